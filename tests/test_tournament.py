"""Tournaments: balanced seating, ratings that follow wins, and the command end to end."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.runs.tournament import TournamentConfig, fit_ratings, schedule
from werewolf_env import Game


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(5, 10), st.integers(1, 3))
def test_every_entrant_plays_every_role_equally(entrants: int, players: int, blocks: int) -> None:
    config = TournamentConfig.model_validate(
        {
            "entrants": [{"kind": "random", "name": f"e{i}"} for i in range(entrants)],
            "players": players,
            "blocks": blocks,
        }
    )
    game_config = config.game_config()
    counts: Counter[tuple[str, str]] = Counter()
    seats: Counter[tuple[str, int]] = Counter()
    for job in schedule(config):
        roles = Game(game_config, job.seed).state.roles
        for seat, role in enumerate(roles):
            name = job.lineup.spec_for(f"player_{seat}", role).label()
            counts[(name, role.value)] += 1
            seats[(name, seat)] += 1
    for role in {r for _, r in counts}:
        assert len({counts[(f"e{i}", role)] for i in range(entrants)}) == 1, role  # the same for everyone
    assert len(set(seats.values())) == 1  # every entrant in every seat equally often
    assert len(schedule(config)) == blocks * entrants


@dataclass
class FakeGame:
    winner: str | None
    policies: list[str]
    teams: list[str]

    @property
    def num_players(self) -> int:
        return len(self.policies)

    def team(self, seat: int) -> str:
        return self.teams[seat]


def test_ratings_follow_wins() -> None:
    teams = ["werewolf", "village", "village", "village"]
    games = []
    for k in range(40):  # A beats B from either side; the sides themselves are even
        a_is_wolf = k % 2 == 0
        policies = ["A", "B", "B", "B"] if a_is_wolf else ["B", "A", "A", "A"]
        a_wins = k % 10 not in (8, 9)  # A wins 80% of its games as werewolf and as villager
        winner = "werewolf" if a_is_wolf == a_wins else "village"
        games.append(FakeGame(winner, policies, teams))
    ratings = fit_ratings(games, ["A", "B"], resamples=100)  # type: ignore[arg-type]
    a, b = ratings["ratings"]["A"], ratings["ratings"]["B"]
    assert a["elo"] > 1600 > 1400 > b["elo"]
    assert a["ci"][0] > 1500 > b["ci"][1]
    assert abs(ratings["side_advantage_werewolf"]["logit"]) < 0.5
    assert fit_ratings([], ["A"])["games"] == 0


def test_tournament_command(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "t"\nblocks = 2\nplayers = 6\n'
        '[[entrants]]\nkind = "heuristic"\n'
        '[[entrants]]\nname = "rnd"\nkind = "random"\n'
        "[prices.rnd]\nprompt = 1.0\ncompletion = 0.0\n"
    )
    out = tmp_path / "out"
    assert main(["tournament", str(config), "--out", str(out), "--no-plots", "--quiet"]) == 0
    result = json.loads((out / "tournament.json").read_text())
    assert result["games"] == 4 and set(result["entrants"]) == {"heuristic", "rnd"}
    for entrant in result["entrants"].values():
        assert entrant["games"] == 4
        assert set(entrant["win_rate_by_role"]) == {"werewolf", "seer", "doctor", "villager"}
        assert entrant["rating"]["elo"] is not None
    assert result["entrants"]["rnd"]["priced"] and result["entrants"]["rnd"]["cost_per_game_usd"] == 0.0
    # Beside the ratings: each entrant's persuasion and lie success as a speaker, its resistance as a listener.
    document = json.loads((out / "metrics.json").read_text())["metrics"]
    metrics = document["persuasion"]
    for name, entrant in result["entrants"].items():
        # Detection on its village seats: a werewolf's flags on its partners are knowledge.
        village = document["detective"]["by_policy_team"][f"{name} | village"]
        assert entrant["detection"]["f1"] == village["f1"] and village["f1"]["value"] is not None
        assert village["analyses"] < document["detective"]["by_policy"][name]["analyses"]
        speaker = metrics["speaker"]["by_policy"][name]
        assert entrant["persuasion"]["deception_success"] == speaker["deception_success"]
        assert entrant["persuasion"]["persuasion"] == speaker["persuasion"]
        assert entrant["persuasion"]["resistance"] == metrics["listener"]["by_policy"][name]["resistance"]
        assert entrant["persuasion"]["coverage"]["expected"] > 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "tournament" and len(manifest["games"]) == 4
    assert (out / "report.html").is_file()
    # The same command again: nothing to play, the same figures.
    assert main(["tournament", str(config), "--out", str(out), "--no-plots", "--quiet"]) == 0
    assert json.loads((out / "tournament.json").read_text())["entrants"] == result["entrants"]
    bad = tmp_path / "bad.toml"
    bad.write_text('[[entrants]]\nkind = "heuristic"\n[[entrants]]\nkind = "heuristic"\n')
    assert main(["tournament", str(bad), "--out", str(tmp_path / "x")]) == 2
