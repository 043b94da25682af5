"""Game configuration: every rule switch and limit in one validated model.

A ``GameConfig`` is built once per environment; an impossible game (too few players, no werewolf,
werewolves already at parity, duplicate names...) is refused here with a message that says what to
change, so the rules engine never has to second-guess its input.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .names import name_key

MIN_PLAYERS = 5
MAX_PLAYERS = 16
# The default character cap of a statement, per word allowed: room for long words, while text without
# spaces (Chinese, Japanese) or one giant word, which the word limit does not see, stays short.
CHARS_PER_STATEMENT_WORD = 20


class Role(str, Enum):
    WEREWOLF = "werewolf"
    SEER = "seer"
    DOCTOR = "doctor"
    VILLAGER = "villager"

    @property
    def team(self) -> Team:
        return Team.WEREWOLF if self is Role.WEREWOLF else Team.VILLAGE


class Team(str, Enum):
    WEREWOLF = "werewolf"
    VILLAGE = "village"


ROLES: tuple[Role, ...] = tuple(Role)
ROLE_INDEX: dict[Role, int] = {role: i for i, role in enumerate(ROLES)}

DEFAULT_NAMES: tuple[str, ...] = (
    "Alice", "Bob", "Carla", "Dmitri", "Emma", "Farid", "Grace", "Hiro",
    "Ines", "Jamal", "Kofi", "Lena", "Mei", "Nora", "Omar", "Raj",
)  # fmt: skip

# Words a player name may not be, because actions and the claim extractor give them a meaning.
RESERVED_NAMES = frozenset(
    {"i", "me", "myself", "you", "he", "she", "they", "it", "we", "nobody", "none", "null",
     "abstain", "no", "everyone", "werewolf", "werewolves", "wolf", "seer", "doctor", "villager"}
)  # fmt: skip

AnalysisMode = Literal["full", "self", "peer", "off"]


class GameConfig(BaseModel):
    """All rules of one game. Defaults follow the benchmark paper (8 players, 2 werewolves)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    num_players: int = Field(8, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    num_werewolves: int = Field(2, ge=1)
    num_seers: int = Field(1, ge=0)
    num_doctors: int = Field(1, ge=0)
    # Villagers fill the remaining seats.
    names: tuple[str, ...] | None = Field(
        None, description="Display names, one per seat; default: the first names of DEFAULT_NAMES."
    )
    roles: tuple[Role, ...] | None = Field(
        None,
        description="Fixed role per seat (for hand-built games and analysis); default: shuffled by the seed.",
    )

    max_rounds: int = Field(10, ge=1, le=100, description="Night+day rounds before truncation.")
    max_debate_turns: int = Field(6, ge=1, le=50, description="Statements per day.")
    max_statement_words: int = Field(20, ge=1, le=500)
    max_statement_chars: int | None = Field(
        None,
        ge=1,
        le=100_000,
        description="Characters per statement (after the word limit; cut on a word boundary when one is near). "
        f"Default (null): {CHARS_PER_STATEMENT_WORD} per allowed word, 400 for the default 20 words.",
    )
    max_bid: int = Field(10, ge=1, le=100)
    analysis: AnalysisMode = "full"
    suspicion_weight: float = Field(
        0.7, ge=0.0, le=1.0, description="Weight of the new suspicion: score = w * new + (1 - w) * prior."
    )
    suspicion_prior: float = Field(0.5, ge=0.0, le=1.0)
    show_suspicion: bool = Field(
        True, description="Show a player its own suspicion scores (off: the paper's ablation)."
    )
    doctor_repeat_protect: bool = Field(True, description="May the doctor protect the same player two nights in a row?")
    seer_learns_role: bool = Field(False, description="The seer learns the exact role, not only the team.")
    reveal_role_on_death: bool = Field(False, description="Announce the role of killed and exiled players.")
    max_notes_shown: int = Field(20, ge=0, description="Most recent private notes shown in a player's observation.")

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
            if key in RESERVED_NAMES:
                raise ValueError(f"{name!r} cannot be a player name: it is a reserved word")
            if key.startswith("player_"):
                raise ValueError(f"{name!r} cannot be a player name: it looks like an agent id")
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
        specials = self.num_werewolves + self.num_seers + self.num_doctors
        if specials > n:
            raise ValueError(
                f"{self.num_werewolves} werewolves + {self.num_seers} seers + {self.num_doctors} doctors "
                f"= {specials} special roles do not fit in {n} players"
            )
        if self.num_werewolves >= n - self.num_werewolves:
            raise ValueError(
                f"{self.num_werewolves} werewolves among {n} players would win at once: "
                f"werewolves must be fewer than the other players (at most {(n - 1) // 2})"
            )
        if self.names is not None and len(self.names) != n:
            raise ValueError(f"names has {len(self.names)} entries but num_players is {n}")
        if self.roles is not None:
            if len(self.roles) != n:
                raise ValueError(f"roles has {len(self.roles)} entries but num_players is {n}")
            counts = self.role_counts()
            given = {role: self.roles.count(role) for role in ROLES}
            if given != counts:
                raise ValueError(f"roles {given} do not match the configured role counts {counts}")
        return self

    @property
    def num_villagers(self) -> int:
        return self.num_players - self.num_werewolves - self.num_seers - self.num_doctors

    def role_counts(self) -> dict[Role, int]:
        return {
            Role.WEREWOLF: self.num_werewolves,
            Role.SEER: self.num_seers,
            Role.DOCTOR: self.num_doctors,
            Role.VILLAGER: self.num_villagers,
        }

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


def statement_char_limit(max_words: int, max_chars: int | None = None) -> int:
    """A statement's character cap: ``max_chars`` when set, else ``CHARS_PER_STATEMENT_WORD`` per allowed word."""
    return max_chars if max_chars is not None else CHARS_PER_STATEMENT_WORD * max_words


def without_new_defaults(recorded: Any, current: dict[str, Any]) -> dict[str, Any]:
    """``current`` (a config as JSON) less the fields ``recorded`` (one written earlier) does not name and that are
    at their default: a config written before a field existed compares equal to today's for the same game
    (``max_statement_chars``, added with default null, say). A field the record names is always compared."""
    if not isinstance(recorded, dict):
        return current
    fields = GameConfig.model_fields
    out = dict(current)
    for key in [k for k in current if k not in recorded and k in fields]:
        default = fields[key].get_default(call_default_factory=True)
        if current[key] == json.loads(json.dumps(default)):
            del out[key]
    return out
