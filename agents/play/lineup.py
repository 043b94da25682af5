"""Lineups: which policy plays which seat, as plain data (dict, TOML or JSON).

    {"default": {"kind": "heuristic"},
     "teams": {"werewolf": {"kind": "llm", "model": "m1", "base_url": "http://127.0.0.1:8080/v1"}},
     "roles": {"seer": {"kind": "llm", "model": "m2", "base_url": "http://127.0.0.1:8081/v1"}},
     "seats": {"player_0": {"kind": "human"}}}

A seat's spec is the first of: ``seats[agent id]``, ``roles[its role]``, ``teams[its team]``,
``default``. Kinds: ``random``, ``heuristic``, ``llm`` and ``human``; ``name`` labels the seat in
reports; the other keys are that policy's options, checked when the lineup is loaded (an unknown
LLM option is refused with the closest valid one). API keys never belong in a lineup: an ``llm``
spec names an environment variable (``api_key_env``, default ``OPENAI_API_KEY``; only names ending
in ``_API_KEY`` or ``_TOKEN``) or a key file (``api_key_file``), and a literal ``api_key`` is refused.
A lineup decides which key goes to which host: treat lineup files from others like code.
``prices`` (``[prices."MODEL"]`` with ``prompt``, ``cached_prompt``, ``completion`` in USD per million
tokens) prices each model's tokens in run summaries and reports (``werewolf_env.record.token_usage``).
``public_dump()`` is the lineup fit for a run folder (base URLs redacted). A lineup file may start with a
byte-order mark; one nested deeper than ``MAX_LINEUP_DEPTH`` levels is refused (a lineup is 4 deep, ``extra_body``
adds what a server needs), and so is a ``seats`` entry the game does not have (``check_seats``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.credentials import redacted
from werewolf_deception.agents.llm import LLMOptions, suggestion, validate_options
from werewolf_env.core import DEFAULT_RULESET, Role, Ruleset, Team
from werewolf_env.record import Price

if TYPE_CHECKING:
    from werewolf_deception.agents.llm import EndpointPool

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

Kind = Literal["random", "heuristic", "llm", "human"]
MAX_LINEUP_DEPTH = 32
_TOO_DEEP = f"cannot read the lineup: nested deeper than {MAX_LINEUP_DEPTH} levels"


class AgentSpec(BaseModel):
    """One policy: its kind and its options (passed on as keywords)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    kind: Kind

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})

    def __repr_args__(self) -> Any:  # a base URL may carry a key: never in a repr
        for name, value in super().__repr_args__():
            yield name, redacted(value)

    def public_dump(self) -> dict[str, Any]:
        """The spec as plain data with its base URL redacted: what a run folder may keep."""
        return redacted(self.model_dump(mode="json"))

    def label(self) -> str:
        """A short name for reports: ``name`` when given, else the kind, or ``llm:<model>``."""
        if self.options.get("name"):
            return str(self.options["name"])
        if self.kind == "llm":
            return f"llm:{self.options.get('model', '?')}"
        return self.kind


class Lineup(BaseModel):
    model_config = ConfigDict(extra="forbid")

    default: AgentSpec = Field(default_factory=lambda: AgentSpec(kind="heuristic"))
    teams: dict[Team, AgentSpec] = Field(default_factory=dict)
    roles: dict[Role, AgentSpec] = Field(default_factory=dict)
    seats: dict[str, AgentSpec] = Field(default_factory=dict)
    # USD per million tokens per model, for the cost estimate: {"gpt-4o-mini": {"prompt": 0.15, "cached_prompt":
    # 0.075, "completion": 0.6}}. Not part of what a run measures: a resumed run may change them.
    prices: dict[str, Price] = Field(default_factory=dict)

    @field_validator("roles")
    @classmethod
    def _roles_of_the_ruleset(cls, roles: dict[Role, AgentSpec], info: ValidationInfo) -> dict[Role, AgentSpec]:
        """Role names the game's ruleset has (``load_lineup(..., ruleset)``; the built-in roles unless told)."""
        ruleset = (info.context or {}).get("ruleset", DEFAULT_RULESET)
        for key in roles:
            if key not in ruleset:
                raise ValueError(f"lineup roles.{key.value!r}: not a role{suggestion(key.value, ruleset.roles)}")
        return roles

    @field_validator("default", "teams", "roles", "seats", mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        """Allow ``"heuristic"`` for ``{"kind": "heuristic"}`` anywhere a spec goes."""
        if isinstance(value, str):
            return {"kind": value}
        if isinstance(value, dict) and "kind" not in value:
            return {k: {"kind": v} if isinstance(v, str) else v for k, v in value.items()}
        return value

    @field_validator("default", "teams", "roles", "seats")
    @classmethod
    def _valid_options(cls, value: Any, info: ValidationInfo) -> Any:
        """No literal keys anywhere; every LLM seat's options valid before any game starts."""
        specs = value.items() if isinstance(value, dict) else [(None, value)]
        for key, spec in specs:
            where = info.field_name if key is None else f"{info.field_name}.{getattr(key, 'value', key)}"
            if "api_key" in spec.options:
                raise ValueError(
                    f"lineup {where}: a lineup must not hold an API key (it is written to the run directory): "
                    "use api_key_env (an environment variable name) or api_key_file"
                )
            if spec.kind == "llm":
                validate_options(spec.options, where=f"lineup {where}")
        return value

    def llm_sections(self) -> list[tuple[str, AgentSpec]]:
        """Every LLM spec with where it sits ("lineup default", "lineup teams.werewolf", "lineup seats.player_0")."""
        found: list[tuple[str, AgentSpec]] = [("lineup default", self.default)] if self.default.kind == "llm" else []
        for section in ("teams", "roles", "seats"):
            for key, spec in getattr(self, section).items():
                if spec.kind == "llm":
                    found.append((f"lineup {section}.{getattr(key, 'value', key)}", spec))
        return found

    def check_seats(self, num_players: int) -> None:
        """Refuse (ValueError) a ``seats`` entry that is not a seat of a ``num_players``-player game."""
        seats = {f"player_{i}" for i in range(num_players)}
        unknown = [seat for seat in self.seats if seat not in seats]
        if unknown:
            shown = ", ".join(repr(seat[:40]) for seat in unknown[:3]) + (", ..." if len(unknown) > 3 else "")
            raise ValueError(
                f"lineup seats {shown}: not a seat of a {num_players}-player game (its seats are "
                f"player_0 ... player_{num_players - 1})"
            )

    def spec_for(self, agent: str, role: Role, ruleset: Ruleset = DEFAULT_RULESET) -> AgentSpec:
        """The policy of seat ``agent`` holding ``role`` (its team from ``ruleset``, the game's)."""
        found = self.seats.get(agent) or self.roles.get(role)
        return found or self.teams.get(ruleset.specs[role].team) or self.default

    def public_dump(self) -> dict[str, Any]:
        """The lineup as plain data with every base URL redacted: for manifests and messages, not to play from."""
        data = self.model_dump(mode="json")
        data["default"] = self.default.public_dump()
        for section in ("teams", "roles", "seats"):
            data[section] = {getattr(k, "value", k): spec.public_dump() for k, spec in getattr(self, section).items()}
        return data


def lineup_from_data(data: Any, source: str = "", ruleset: Ruleset = DEFAULT_RULESET) -> Lineup:
    """A validated lineup, or a ValueError that names each problem's seat and option (never a value)."""
    if nesting_depth(data, MAX_LINEUP_DEPTH) > MAX_LINEUP_DEPTH:
        raise ValueError(f"{source}{_TOO_DEEP}")
    try:
        return Lineup.model_validate(data, context={"ruleset": ruleset})
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = [str(getattr(x, "value", x)) for x in err["loc"]]
            key = loc[-2] if loc[-1:] == ["[key]"] else None  # a role or team name that is not one
            if key is not None:
                loc = [*loc[:-2], repr(key)]
            where = ".".join(loc) or "lineup"
            if key is not None and loc[:1] == ["roles"]:
                problems.append(f"lineup {where}: not a role{suggestion(key, ruleset)}")
            elif err["type"] == "value_error":  # ours: already names the seat and the option
                problems.append(str(err["ctx"]["error"]))
            elif err["type"] == "extra_forbidden" and loc[:1] == ["prices"]:
                problems.append(f"lineup {where}: not a price field{suggestion(loc[-1], Price.model_fields)}")
            elif err["type"] == "extra_forbidden":
                problems.append(f"{where}: not a lineup section{suggestion(where, Lineup.model_fields)}")
            else:
                problems.append(f"lineup {where}: {err['msg']}")
        raise ValueError(f"{source}{'; '.join(problems)}") from None


def load_lineup(source: Lineup | dict[str, Any] | str | Path | None, ruleset: Ruleset = DEFAULT_RULESET) -> Lineup:
    """A lineup from a Lineup, a dict, a TOML / JSON file path, or a kind name ("heuristic"); its role names
    are ``ruleset``'s (the game's)."""
    if source is None:
        return Lineup()
    if isinstance(source, Lineup):
        return source
    if isinstance(source, dict):
        return lineup_from_data(source, ruleset=ruleset)
    text = str(source)
    if text in ("random", "heuristic", "llm", "human"):
        return Lineup(default=AgentSpec(kind=text))
    path = Path(text)
    if not path.is_file():
        raise ValueError(f"no lineup file {path} (and {text!r} is not a policy kind)")
    data = read_settings_file(path, "lineup", toml=path.suffix.lower() == ".toml")
    return lineup_from_data(data, f"{path}: ", ruleset)


def read_settings_file(path: Path, what: str, toml: bool) -> Any:
    """The data of a TOML (``toml``) or JSON file a user wrote (a lineup, a tournament), or a ValueError of one
    line naming ``path`` and ``what`` it is: unreadable, not UTF-8, not TOML / JSON, or nested deeper than
    ``MAX_LINEUP_DEPTH`` (the parsers recurse once per level). A byte-order mark at the start is not content."""
    too_deep = ValueError(f"{path}: cannot read the {what}: nested deeper than {MAX_LINEUP_DEPTH} levels")
    try:
        raw = path.read_text(encoding="utf-8-sig")  # Windows editors write one
        data = tomllib.loads(raw) if toml else json.loads(raw)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read the {what}: {getattr(exc, 'strerror', None) or exc}") from None
    except RecursionError:
        raise too_deep from None
    if nesting_depth(data, MAX_LINEUP_DEPTH) > MAX_LINEUP_DEPTH:
        raise too_deep
    return data


def nesting_depth(data: Any, limit: int) -> int:
    """How deep ``data``'s dicts and lists nest (a scalar: 0), counted without recursion; stops past ``limit``."""
    deepest = 0
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, depth)
            if depth > limit:
                break
            stack.extend((item, depth + 1) for item in (value.values() if isinstance(value, dict) else value))
    return deepest


def make_policy(
    spec: AgentSpec, seed: int, cache_dir: str | Path | None = None, pool: EndpointPool | None = None
) -> Policy:
    """A fresh policy for one seat of one game, seeded for reproducibility.

    LLM seats share ``pool`` (the run's clients, concurrency caps and breakers); without one, each
    LLM policy opens its own connection and closes it in ``aclose``.
    """
    options = spec.options
    options.pop("name", None)  # a label for reports, not a policy option
    if spec.kind == "random":
        from werewolf_deception.agents.policies import RandomAgent

        return RandomAgent(seed=seed)
    if spec.kind == "heuristic":
        from werewolf_deception.agents.policies import HeuristicAgent

        return HeuristicAgent(seed=seed, **options)
    if spec.kind == "llm":
        from werewolf_deception.agents.llm import LLMAgent

        llm = LLMOptions.model_validate({**options, "name": spec.label()})
        return LLMAgent(options=llm, pool=pool, seed=seed, cache_dir=cache_dir)
    from werewolf_deception.agents.policies import HumanAgent

    return HumanAgent(**options)
