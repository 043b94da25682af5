"""Game configuration: every rule switch and limit in one validated model.

A ``GameConfig`` is built once per environment; an impossible game (too few players, no werewolf,
werewolves already at parity, duplicate names...) is refused here with a message that says what to
change, so the rules engine never has to second-guess its input.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

from werewolf_env.core.names import DEAD_MARK, SELF_MARK, name_key
from werewolf_env.core.roles import DEFAULT_RULESET, ActionKind, Role, Ruleset, Team, default_werewolves

MIN_PLAYERS = 5
MAX_PLAYERS = 16
# The default character cap of a statement, per word allowed: room for long words, while text without
# spaces (Chinese, Japanese) or one giant word, which the word limit does not see, stays short.
CHARS_PER_STATEMENT_WORD = 20


__all__ = [
    "DEFAULT_NAMES", "DEFAULT_RULESET", "MAX_PLAYERS", "MIN_PLAYERS", "ActionKind", "GameConfig", "Role", "Ruleset",
    "Team", "reserved_names",
    "statement_char_limit", "without_new_defaults",
]  # fmt: skip

DEFAULT_NAMES: tuple[str, ...] = (
    "Alice", "Bob", "Carla", "Dmitri", "Emma", "Farid", "Grace", "Hiro",
    "Ines", "Jamal", "Kofi", "Lena", "Mei", "Nora", "Omar", "Raj",
)  # fmt: skip

# Words a player name may not be, because actions and the claim extractor give them a meaning (with every
# role's name and plural: ``reserved_names``).
_RESERVED_WORDS = frozenset(
    {"i", "me", "myself", "you", "he", "she", "they", "it", "we", "nobody", "none", "null",
     "abstain", "no", "everyone", "wolf"}
)  # fmt: skip


@lru_cache(maxsize=64)
def reserved_names(ruleset: Ruleset = DEFAULT_RULESET) -> frozenset[str]:
    """Words a player name may not be: pronouns and answers ("none", "abstain"), and every role's name and plural."""
    return _RESERVED_WORDS | {w for spec in ruleset.specs.values() for w in (spec.role, spec.plural)}


# Fields added since the first logs: left out of a config's JSON at their default, so a game that does not
# use them logs (and resumes, and replays) exactly as it did before they existed.
_NEW_FIELDS_AT_DEFAULT_OMITTED = ("max_statement_chars", "role_counts", "witch_self_heal", "vote_polls")
# Fields added since the first logs whose default is not what a game did before they existed: a recorded config
# that leaves one out played by this value (``GameConfig.from_record``). They are always written.
LEGACY_VALUES: dict[str, Any] = {"subject_suspicion": False, "control_subject_probability": 0.0}

AnalysisMode = Literal["full", "self", "peer", "off"]
VotePolls = Literal["off", "after_statement", "after_debate"]


class GameConfig(BaseModel):
    """All rules of one game. Defaults follow the design paper, "Multi-Agent Social Deduction Benchmark
    for LLM Deception" (8 players, 2 werewolves)."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    ruleset: Ruleset = Field(
        DEFAULT_RULESET,
        description="The game's roles (``roles.Ruleset``): the built-in six unless a variant adds its own. Left "
        "out of the config's JSON when it is the default; a custom one is written (each role's spec) so replay "
        "rebuilds it.",
    )

    num_players: int = Field(8, ge=MIN_PLAYERS, le=MAX_PLAYERS, description="Seats (5-16).")
    num_werewolves: int = Field(
        2, ge=1, description="Werewolves (default: a quarter of the players, at least one: ``default_werewolves``)."
    )
    num_seers: int = Field(1, ge=0, description="Seers (shorthand for role_counts['seer']).")
    num_doctors: int = Field(1, ge=0, description="Doctors (shorthand for role_counts['doctor']).")
    # Kept as (role, count) pairs, so that a config stays hashable (memoised rules texts, per-config tables);
    # given and written as a mapping.
    role_counts: tuple[tuple[str, int], ...] | None = Field(
        None,
        description="Seats per role, e.g. {'werewolf': 2, 'seer': 1, 'doctor': 1, 'witch': 1, 'hunter': 1}; roles "
        "not named take their default (werewolves, seer, doctor: the num_* fields; others none); villagers fill "
        "the rest.",
    )
    witch_self_heal: bool = Field(True, description="May the witch heal herself when the werewolves attack her?")
    names: tuple[str, ...] | None = Field(
        None, description="Display names, one per seat; default: the first names of DEFAULT_NAMES."
    )
    roles: tuple[Role, ...] | None = Field(
        None,
        description="Fixed role per seat (for hand-built games and analysis); default: shuffled by the seed.",
    )

    max_rounds: int = Field(10, ge=1, le=100, description="Night+day rounds before truncation.")
    max_debate_turns: int = Field(6, ge=1, le=50, description="Statements per day.")
    max_statement_words: int = Field(20, ge=1, le=500, description="Words per statement (longer ones are cut).")
    max_statement_chars: int | None = Field(
        None,
        ge=1,
        le=100_000,
        description="Characters per statement (after the word limit; cut on a word boundary when one is near). "
        f"Default (null): {CHARS_PER_STATEMENT_WORD} per allowed word, 400 for the default 20 words.",
    )
    max_bid: int = Field(10, ge=1, le=100, description="Highest bid for the floor.")
    analysis: AnalysisMode = Field(
        "full", description="Deception analyses after each statement: full (self and peers), self, peer, off."
    )
    subject_suspicion: bool = Field(
        True,
        description="Peers also score the players a statement makes claims about (not only its speaker): "
        "how likely each is a werewolf. What the statement did to the listeners' beliefs (persuasion) rests on it.",
    )
    control_subject_probability: float = Field(
        0.25,
        ge=0.0,
        le=1.0,
        description="With subject_suspicion: the chance that a peer analysis also scores one living player the "
        "statement does not mention (a control subject, listed among the others): persuasion is reported net of "
        "the control's shift, so a listener that moves whoever it is asked about does not count as persuaded.",
    )
    vote_polls: VotePolls = Field(
        "off",
        description="Private vote polls: every living player names whom it would exile now, after each "
        "statement (and at the day's start) or once after the debate. Recorded, seen by nobody, never change "
        "the game; each answer is one more call for a model seat.",
    )
    suspicion_weight: float = Field(
        0.7, ge=0.0, le=1.0, description="Weight of the new suspicion: score = w * new + (1 - w) * prior."
    )
    suspicion_prior: float = Field(0.5, ge=0.0, le=1.0, description="Every player's suspicion of each other at start.")
    show_suspicion: bool = Field(
        True, description="Show a player its own suspicion scores (off: the design paper's ablation)."
    )
    doctor_repeat_protect: bool = Field(True, description="May the doctor protect the same player two nights in a row?")
    seer_learns_role: bool = Field(False, description="The seer learns the exact role, not only the team.")
    reveal_role_on_death: bool = Field(False, description="Announce the role of killed and exiled players.")
    max_notes_shown: int = Field(20, ge=0, description="Most recent private notes shown in a player's observation.")

    @model_validator(mode="before")
    @classmethod
    def _counts_in_one_place(cls, data: Any) -> Any:
        """``role_counts`` and the ``num_*`` shorthands say the same thing once: the three built-in counts
        live in the ``num_*`` fields (as they always have), every other role's in ``role_counts``; the pack
        defaults to a quarter of the players (``default_werewolves``)."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        ruleset = data.get("ruleset")
        if ruleset is None:
            data.pop("ruleset", None)
            ruleset = DEFAULT_RULESET
        else:
            ruleset = data["ruleset"] = Ruleset.from_json(ruleset)
        if isinstance(data.get("roles"), (list, tuple)):
            data["roles"] = tuple(ruleset.role(r) for r in data["roles"])  # the ruleset's roles, or ValueError
        counts = data.get("role_counts")
        if counts is not None:
            if isinstance(counts, (list, tuple)):  # (role, count) pairs, as the config keeps them
                try:
                    counts = dict(counts)
                except (TypeError, ValueError):
                    raise ValueError("role_counts must map role names to seat counts") from None
            if not isinstance(counts, dict):
                raise ValueError("role_counts must map role names to seat counts")
            counts = dict(counts)
            for key in counts:
                if key not in ruleset:
                    raise ValueError(f"role_counts: {key!r} is not a role (roles: {', '.join(ruleset.roles)})")
            for role, field in _SHORTHANDS.items():
                if role.value in counts:
                    given = counts.pop(role.value)
                    if field in data and data[field] != given:
                        raise ValueError(f"role_counts[{role.value!r}] = {given} but {field} = {data[field]}")
                    data[field] = given
            data["role_counts"] = tuple(sorted((k, int(v)) for k, v in counts.items() if v)) or None
        if "num_werewolves" not in data:
            players = data.get("num_players", 8)
            data["num_werewolves"] = default_werewolves(players) if isinstance(players, int) else 2
        return data

    @field_serializer("role_counts")
    def _counts_as_mapping(self, counts: tuple[tuple[str, int], ...] | None) -> dict[str, int] | None:
        return dict(counts) if counts is not None else None

    @field_serializer("ruleset")
    def _ruleset_json(self, ruleset: Ruleset) -> dict[str, Any] | None:
        return None if ruleset == DEFAULT_RULESET else ruleset.to_json(self.num_players)

    @model_serializer(mode="wrap")
    def _omit_new_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if out.get("ruleset", 0) is None:  # the default ruleset: logs stay as they were before rulesets
            del out["ruleset"]
        for key in _NEW_FIELDS_AT_DEFAULT_OMITTED:
            if key in out and out[key] == GameConfig.model_fields[key].default:
                del out[key]
        return out

    @classmethod
    def from_record(cls, recorded: dict[str, Any]) -> GameConfig:
        """The config of a recorded game (a log's header): a field the record leaves out that did not exist then
        takes the value games had before it (``LEGACY_VALUES``), so old logs replay as they were played."""
        data = dict(recorded)
        for key, value in LEGACY_VALUES.items():
            data.setdefault(key, value)
        return cls.model_validate(data)

    @field_validator("names")
    @classmethod
    def _clean_names(cls, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if names is None:
            return None
        cleaned = tuple(" ".join(str(n).split()) for n in names)
        keys: dict[str, str] = {}
        for name in cleaned:
            key = name_key(name)  # how names in answers and speech are matched to seats
            if not key:
                raise ValueError("player names must not be empty")
            if key in reserved_names():  # the default roles' words (a custom ruleset's: checked after)
                raise ValueError(f"{name!r} cannot be a player name: it is a reserved word")
            if key.startswith("player_"):
                raise ValueError(f"{name!r} cannot be a player name: it looks like an agent id")
            for mark in (SELF_MARK, DEAD_MARK):  # a name holding one would make another's line read as one's own
                if name_key(mark) in key:
                    raise ValueError(f"{name!r} cannot be a player name: observations mark names with {mark.strip()!r}")
            if key in keys:
                raise ValueError(
                    f"player names must be unique: {keys[key]!r} and {name!r} read as the same name "
                    "(names are compared ignoring case, accent encoding and character width)"
                )
            keys[key] = name
        return cleaned

    @model_validator(mode="after")
    def _check_playable(self) -> GameConfig:
        n = self.num_players
        for key, count in self.role_counts or ():
            if count < 0:
                raise ValueError(f"role_counts[{key!r}] must not be negative")
        villagers = dict(self.role_counts or ()).get("villager")
        if villagers is not None and villagers != self.num_villagers:
            raise ValueError(
                f"role_counts['villager'] = {villagers}, but the other roles leave {self.num_villagers} of "
                f"{n} seats (villagers fill the rest: the count may be left out)"
            )
        specials = {r: c for r, c in self._special_counts().items() if c}
        if sum(specials.values()) > n:
            specs = self.ruleset.specs
            listed = " + ".join(f"{c} {specs[r].plural if c > 1 else r.value}" for r, c in specials.items())
            raise ValueError(f"{listed} = {sum(specials.values())} special roles do not fit in {n} players")
        if self.num_werewolves >= n - self.num_werewolves:
            raise ValueError(
                f"{self.num_werewolves} werewolves among {n} players would win at once: "
                f"werewolves must be fewer than the other players (at most {(n - 1) // 2})"
            )
        if self.names is not None and self.ruleset != DEFAULT_RULESET:
            for name in self.names:
                if name_key(name) in reserved_names(self.ruleset):
                    raise ValueError(f"{name!r} cannot be a player name: it is a reserved word")
        if self.names is not None and len(self.names) != n:
            raise ValueError(f"names has {len(self.names)} entries but num_players is {n}")
        if self.roles is not None:
            if len(self.roles) != n:
                raise ValueError(f"roles has {len(self.roles)} entries but num_players is {n}")
            counts = self.seat_counts()
            given = {role: self.roles.count(role) for role in self.ruleset.roles}
            if given != counts:
                raise ValueError(f"roles {given} do not match the configured role counts {counts}")
        return self

    def _special_counts(self) -> dict[Role, int]:
        """Seats of every role but the villagers, in role order."""
        given = dict(self.role_counts or ())
        shorthand = {Role.WEREWOLF: self.num_werewolves, Role.SEER: self.num_seers, Role.DOCTOR: self.num_doctors}
        n = self.num_players
        return {
            role: shorthand[role] if role in shorthand else int(given.get(role.value, spec.default_count(n)))
            for role, spec in self.ruleset.specs.items()
            if role is not Role.VILLAGER
        }

    @property
    def num_villagers(self) -> int:
        return self.num_players - sum(self._special_counts().values())

    def seat_counts(self) -> dict[Role, int]:
        """Seats per role (every role of the ruleset, in role order; villagers fill the rest)."""
        return dict(_derived(self)[0])

    def roles_in_game(self) -> frozenset[Role]:
        return _derived(self)[1]

    def acts(self, kind: ActionKind) -> bool:
        """Some role of this game is asked for ``kind`` (a game without a witch has no poison)."""
        return kind in _derived(self)[2]

    def kinds_in_game(self) -> frozenset[ActionKind]:
        """The night and death actions some role of this game takes."""
        return _derived(self)[2]

    @property
    def statement_char_limit(self) -> int:
        """The character cap of a statement: ``max_statement_chars``, or its default for the word limit."""
        return statement_char_limit(self.max_statement_words, self.max_statement_chars)

    def player_names(self) -> tuple[str, ...]:
        return self.names if self.names is not None else DEFAULT_NAMES[: self.num_players]

    @property
    def analysis_self(self) -> bool:
        return self.analysis in ("full", "self")

    @property
    def analysis_peer(self) -> bool:
        return self.analysis in ("full", "peer")


@lru_cache(maxsize=256)
def _derived(config: GameConfig) -> tuple[dict[Role, int], frozenset[Role], frozenset[ActionKind]]:
    """(seats per role, the roles in the game, the night and death actions they take) of ``config``: asked on
    every turn, so memoised per config (its ruleset is part of it)."""
    specials = config._special_counts()
    counts = {role: specials[role] if role in specials else config.num_villagers for role in config.ruleset.roles}
    specs = config.ruleset.specs
    in_game = frozenset(role for role, count in counts.items() if count)
    kinds: set[ActionKind] = set()
    for role in in_game:
        kinds.update(specs[role].night_kinds)
        on_death = specs[role].on_death
        if on_death is not None:
            kinds.add(on_death)
    return counts, in_game, frozenset(kinds)


_SHORTHANDS: dict[Role, str] = {Role.WEREWOLF: "num_werewolves", Role.SEER: "num_seers", Role.DOCTOR: "num_doctors"}


def statement_char_limit(max_words: int, max_chars: int | None = None) -> int:
    """A statement's character cap: ``max_chars`` when set, else ``CHARS_PER_STATEMENT_WORD`` per allowed word."""
    return max_chars if max_chars is not None else CHARS_PER_STATEMENT_WORD * max_words


def without_new_defaults(recorded: Any, current: dict[str, Any]) -> dict[str, Any]:
    """``current`` (a config as JSON) in a form comparable with ``recorded`` (one written earlier, maybe by an
    older version): fields that either leaves out and that are at their default in the other are dropped
    from it, so a config written before a field existed (or after the field started being left out at its
    default: ``_NEW_FIELDS_AT_DEFAULT_OMITTED``) compares equal for the same game. A field both name, or that
    one names away from its default, is always compared."""
    if not isinstance(recorded, dict):
        return current
    fields = GameConfig.model_fields
    out = dict(current)
    for key in [k for k in current if k not in recorded and k in fields]:
        if _at_default(key, current[key]) or LEGACY_VALUES.get(key, _MISSING) == current[key]:
            del out[key]
    for key in [k for k in recorded if k not in current and k in fields]:
        if _at_default(key, recorded[key]):
            out[key] = recorded[key]  # the same default, as the record wrote it
    return out


_MISSING = object()


def _at_default(key: str, value: Any) -> bool:
    if key == "ruleset":  # written only when it is not the default
        return value is None
    default = GameConfig.model_fields[key].get_default(call_default_factory=True)
    return bool(value == json.loads(json.dumps(default)))


def arguments_table() -> str:
    """Every ``GameConfig`` field as a ``Parameter | Type | Default | Meaning`` table (the env's docstring)."""
    rows = ["| Parameter | Type | Default | Meaning |", "|---|---|---|---|"]
    for name, field in GameConfig.model_fields.items():
        annotation = field.annotation
        kind = annotation.__name__ if isinstance(annotation, type) else str(annotation)
        kind = kind.replace("typing.", "").replace("werewolf_env.core.roles.", "").replace(" | ", " or ")
        default = field.get_default(call_default_factory=True)
        rows.append(f"| ``{name}`` | {kind} | {default!r} | {field.description or ''} |")
    return "\n".join(rows)
