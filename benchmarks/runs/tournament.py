"""``werewolf-bench tournament CONFIG.toml``: several models or agent kinds, every one in every role.

    name = "demo"
    blocks = 4            # games = blocks x entrants (or give games = N: rounded up to whole blocks)
    seed = 0
    players = 8
    analysis = "full"
    concurrency = 8

    [[entrants]]
    name = "heuristic"
    kind = "heuristic"

    [[entrants]]
    name = "gpt-4o-mini"
    kind = "llm"
    model = "gpt-4o-mini"
    base_url = "https://api.openai.com/v1"
    api_key_env = "OPENAI_API_KEY"          # never a key: it is read from the environment at run time

    [prices.gpt-4o-mini]                    # USD per million tokens, for the cost estimate: by entrant
    prompt = 0.15                           # name, else by model (a lineup's prices are by model)
    cached_prompt = 0.075                   # optional; without it cached prompt tokens cost the prompt price
    completion = 0.60

Seating: the games come in blocks of E games (E entrants) that share one seed, so the roles sit at
the same seats in every game of a block; in game r of a block, seat s is played by entrant
(s + r) mod E. Over a block every entrant sits in every seat exactly once, so every entrant plays
every role equally often, and no entrant is favoured by where the seed puts the roles.

Rating: a Bradley-Terry model of the werewolf team beating the village, fitted by maximum
likelihood (``werewolf_env.analysis.logistic``, a small ridge) on all decided games: P(werewolves win) =
sigmoid(side + mean skill of the werewolf seats' entrants - mean skill of the village seats'
entrants). ``side`` absorbs how much the rules favour one team; skills are reported on the Elo
scale (1500 + 400 / ln 10 x skill) with 95% intervals from a bootstrap over games. Unlike
sequential Elo, the result does not depend on the order the games finished in.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from werewolf_deception.agents.llm import validate_options
from werewolf_deception.agents.play import AgentSpec, Lineup, read_settings_file
from werewolf_deception.benchmarks.console import MAX_GAMES, MAX_SEED, game_config_of
from werewolf_deception.benchmarks.runs.loop import Job
from werewolf_env import GameConfig
from werewolf_env.analysis import Bootstrap, GameRecord, fit_logistic, joint_key
from werewolf_env.core import Role, Team
from werewolf_env.engine import read_log
from werewolf_env.record import Price, cost_usd

ELO_SCALE = 400 / math.log(10)
# The tournament's name is the folder runs/<name>: letters, digits, spaces and - _ . +, at most 100, starting
# and ending with a letter or digit (so never "..", a path, a hidden folder or an option).
PLAIN_NAME = re.compile(r"\w(?:[\w .+-]{0,98}\w)?")


class TournamentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "tournament"
    entrants: list[AgentSpec]
    blocks: int | None = Field(None, ge=1, le=MAX_GAMES)  # and blocks x entrants at most MAX_GAMES (_playable)
    games: int | None = Field(None, ge=1, le=MAX_GAMES)
    seed: int = Field(0, ge=0, le=MAX_SEED)  # game i gets seed + i: a seed the engine takes
    players: int = 8
    werewolves: int | None = None
    analysis: str = "full"
    concurrency: int = Field(8, ge=1)
    rules: dict[str, Any] = Field(default_factory=dict)  # any other GameConfig field
    prices: dict[str, Price] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _plain(cls, name: str) -> str:
        if not PLAIN_NAME.fullmatch(name):
            raise ValueError(
                f"{name!r} is not a plain name: it names the folder runs/<name>, so it may hold letters, digits, "
                "spaces and - _ . + (at most 100, starting and ending with a letter or digit), never / or \\"
            )
        return name

    @field_validator("entrants")
    @classmethod
    def _named(cls, entrants: list[AgentSpec]) -> list[AgentSpec]:
        if not entrants:
            raise ValueError("a tournament needs at least one entrant")
        names = [e.label() for e in entrants]
        if len(set(names)) != len(names):
            raise ValueError(f"entrant names must differ (give each a name): {names}")
        for spec in entrants:
            if "api_key" in spec.options:
                raise ValueError("an entrant must not hold an API key: use api_key_env or api_key_file")
            if spec.kind == "llm":  # every LLM option valid before any game starts
                validate_options({**spec.options, "name": spec.label()}, where=f"entrant {spec.label()}")
        return entrants

    @model_validator(mode="after")
    def _playable(self) -> TournamentConfig:
        """As many games as a run holds, at most: refused here, before a schedule of them is built."""
        games = self.block_count() * len(self.entrants)
        if games > MAX_GAMES:
            raise ValueError(
                f"{self.block_count():,} blocks of {len(self.entrants)} entrants make {games:,} games: "
                f"a tournament plays at most {MAX_GAMES:,} (fewer blocks or games)"
            )
        return self

    @property
    def names(self) -> list[str]:
        return [e.label() for e in self.entrants]

    def price_of(self, entrant: AgentSpec) -> Price | None:
        """The entrant's price: the one under its name, else under its model; None when neither is set."""
        model = entrant.options.get("model")
        return self.prices.get(entrant.label()) or (self.prices.get(str(model)) if model is not None else None)

    def model_prices(self) -> dict[str, Price]:
        """Prices by model (what reports price their per-model tokens with): each LLM entrant's, the first one
        given for a model that several entrants play."""
        found: dict[str, Price] = {}
        for entrant in self.entrants:
            price = self.price_of(entrant)
            if entrant.kind == "llm" and price is not None:
                found.setdefault(str(entrant.options.get("model")), price)
        return found

    def block_count(self) -> int:
        if self.blocks is not None:
            return self.blocks
        if self.games is not None:
            return max(1, math.ceil(self.games / len(self.entrants)))
        return 4

    def game_config(self) -> GameConfig:
        pack = {"num_werewolves": self.werewolves} if self.werewolves is not None else {}  # else the default pack
        # One readable line naming the [rules] entry at fault, as the command line's options get.
        return game_config_of({"num_players": self.players, "analysis": self.analysis, **pack, **self.rules}, flags={})


def load_tournament(path: str | Path) -> TournamentConfig:
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no tournament file {path}")
    data = read_settings_file(path, "tournament file", toml=True)  # as a lineup file is read
    entrants = data.get("entrants", [])
    for entrant in entrants if isinstance(entrants, list) else []:  # the entrant's name is its label everywhere
        if isinstance(entrant, dict) and "name" not in entrant and entrant.get("kind") != "llm":
            entrant["name"] = entrant.get("kind")
    try:
        return TournamentConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in err['loc']) or 'file'}: "
            + (str(err["ctx"]["error"]) if err["type"] == "value_error" else err["msg"])  # ours: no "Value error, "
            for err in exc.errors()
        )
        raise ValueError(f"tournament file {path}: {problems}") from None


def schedule(config: TournamentConfig) -> list[Job]:
    """Blocks of E games sharing a seed; in game r of a block seat s is played by entrant (s + r) mod E."""
    entrants = config.entrants
    n, e = config.players, len(entrants)
    jobs = []
    for block in range(config.block_count()):
        seed = config.seed + block
        for r in range(e):
            seats = {f"player_{s}": entrants[(s + r) % e] for s in range(n)}
            jobs.append(Job(f"b{block:04d}-r{r:02d}-seed{seed}", seed, Lineup(default=entrants[0], seats=seats)))
    return jobs


@dataclass(frozen=True)
class TournamentGame:
    """What ratings and the entrant table need of one game: a few fields, so that a tournament's memory does not
    grow with its games' logs (a ``GameRecord`` holds every event)."""

    winner: str | None
    policies: tuple[str, ...]
    teams: tuple[str, ...]
    seat_tokens: dict[int, dict[str, int]]

    @classmethod
    def of(cls, record: GameRecord) -> TournamentGame:
        return cls(
            record.winner,
            tuple(record.policies),
            tuple(record.team(s) for s in range(record.num_players)),
            {s: dict(t) for s, t in record.seat_tokens.items()},
        )

    @property
    def num_players(self) -> int:
        return len(self.teams)

    def team(self, seat: int) -> str:
        return self.teams[seat]


def tournament_games(paths: Iterable[Path]) -> list[TournamentGame]:
    """The games of ``paths``, each read and reduced before the next is read."""
    return [TournamentGame.of(GameRecord.from_events(read_log(path), source=str(path))) for path in paths]


def fit_ratings(
    records: Sequence[GameRecord | TournamentGame], names: list[str], resamples: int = 200, seed: int = 0
) -> dict[str, Any]:
    """Bradley-Terry skills on the Elo scale, with bootstrap intervals over games (see the module docstring)."""
    index = {name: i for i, name in enumerate(names)}
    rows, outcomes = [], []
    for record in records:
        if record.winner is None:
            continue
        x = np.zeros(len(names))
        wolves = [s for s in range(record.num_players) if record.team(s) == "werewolf"]
        village = [s for s in range(record.num_players) if record.team(s) != "werewolf"]
        for seats, sign in ((wolves, 1.0), (village, -1.0)):
            for s in seats:
                if record.policies[s] in index:
                    x[index[record.policies[s]]] += sign / len(seats)
        rows.append(x)
        outcomes.append(1.0 if record.winner == "werewolf" else 0.0)
    if not rows:
        return {"games": 0, "side_advantage_werewolf": None, "ratings": {n: None for n in names}}
    x = np.array(rows)
    y = np.array(outcomes)

    def fit(weights: np.ndarray) -> np.ndarray:
        # The project's one logistic solver; a resample whose decided games one side won all is one class: no
        # skill is identified there (zero skills, the smoothed base rate as the side advantage).
        found = fit_logistic(x, y, l2=1e-2, sample_weight=weights, intercept_l2=1e-6, tol=1e-10)
        skills = found.coef - found.coef.mean()  # only differences are identified
        return np.concatenate([[found.intercept], skills])

    point = fit(np.ones(len(y)))
    boot = Bootstrap(len(y), resamples, seed)
    samples = np.array([fit(w) for w in boot.weights]) if boot.weights.shape[0] else np.zeros((0, len(point)))

    def interval(k: int) -> list[float | None]:
        if samples.shape[0] == 0:
            return [None, None]
        low, high = np.percentile(samples[:, k], [2.5, 97.5])
        return (
            [round(1500 + ELO_SCALE * low, 1), round(1500 + ELO_SCALE * high, 1)]
            if k
            else [round(float(low), 4), round(float(high), 4)]
        )

    return {
        "games": len(y),
        "model": "Bradley-Terry on team means, Elo scale (1500 + 400/ln10 x skill), bootstrap over games",
        "side_advantage_werewolf": {"logit": round(float(point[0]), 4), "ci": interval(0)},
        "ratings": {
            name: {"elo": round(1500 + ELO_SCALE * float(point[k + 1]), 1), "ci": interval(k + 1)}
            for k, name in enumerate(names)
        },
    }


# An entrant's persuasion figures in tournament.json, as speaker and as village listener (docs/reports.md,
# "Persuasion").
PERSUASION_KEYS = ("persuasion", "deception_success", "deception_successes", "lies_measured", "deception_effect",
                   "misled_lies", "misled_truths", "vote_swing", "coverage", "subject_coverage")  # fmt: skip


def entrant_persuasion(metrics: dict[str, Any], name: str) -> dict[str, Any]:
    """The entrant's ``persuasion`` figures (as a speaker) and its village seats' ``resistance`` to lies."""
    persuasion = metrics.get("persuasion") or {}
    speaker = persuasion.get("speaker", {}).get("by_policy", {}).get(name, {})
    listener = persuasion.get("listener", {}).get("by_policy", {}).get(name, {})
    return {
        **{k: speaker.get(k) for k in PERSUASION_KEYS},
        "resistance": listener.get("resistance"),
        "resistance_coverage": listener.get("coverage"),
    }


def entrant_table(
    config: TournamentConfig,
    document: dict[str, Any],
    records: Sequence[GameRecord | TournamentGame],
    ratings: dict[str, Any],
) -> dict[str, Any]:
    """Per entrant: win rate by role with CIs, rating, deception and detection, tokens and cost per game."""
    metrics = document["metrics"]
    players = metrics["players"]
    by_policy_role = players.get("by_policy_role", {})
    out: dict[str, Any] = {}
    for entrant, name in zip(config.entrants, config.names, strict=True):
        games = sum(name in r.policies for r in records)
        prompt = sum(
            r.seat_tokens.get(s, {}).get("prompt_tokens", 0)
            for r in records
            for s, p in enumerate(r.policies)
            if p == name
        )
        completion = sum(
            r.seat_tokens.get(s, {}).get("completion_tokens", 0)
            for r in records
            for s, p in enumerate(r.policies)
            if p == name
        )
        cached = sum(
            r.seat_tokens.get(s, {}).get("cached_tokens", 0)
            for r in records
            for s, p in enumerate(r.policies)
            if p == name
        )
        price = config.price_of(entrant)
        # Unpriced: no cost at all (None), never $0.
        cost = (
            cost_usd({"prompt_tokens": prompt, "cached_tokens": cached, "completion_tokens": completion}, price)
            if price is not None
            else None
        )
        # Keys are "<entrant> | <role or team>": looked up, never split (an entrant may be called "a | b").
        village = metrics["detective"].get("by_policy_team", {}).get(joint_key(name, Team.VILLAGE.value)) or {}
        roles = sorted(role.value for role in Role if joint_key(name, role.value) in by_policy_role)
        out[name] = {
            "games": games,
            "win_rate": players.get("by_policy", {}).get(name, {}).get("win_rate"),
            "win_rate_by_role": {role: by_policy_role[joint_key(name, role)]["win_rate"] for role in roles},
            "rating": ratings["ratings"].get(name),
            "deception": {
                k: metrics["deceptive"].get("by_policy", {}).get(name, {}).get(k)
                for k in ("lies_per_statement", "undetected_lie_share")
            },
            # On its village seats: a werewolf's flags on its partners are knowledge, not detection.
            "detection": {k: village.get(k) for k in ("precision", "recall", "f1", "auroc_werewolf")},
            "persuasion": entrant_persuasion(metrics, name),
            "tokens_per_game": {
                "prompt": round(prompt / games, 1) if games else 0,
                "cached": round(cached / games, 1) if games else 0,
                "completion": round(completion / games, 1) if games else 0,
            },
            "cost_per_game_usd": None if cost is None else round(cost / games, 6) if games else 0.0,
            "priced": price is not None,
        }
    return out
