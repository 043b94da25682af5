"""What the game's roles are: one ``RoleSpec`` per role, the one place every other module reads.

A role is declared once, as a ``RoleSpec`` in a ``Ruleset`` (``DEFAULT_RULESET``: the built-in six;
``DEFAULT_RULESET.with_role(spec)``: a variant's own role, even inside a test): its team, the action it
takes each night or when it dies, whether it knows its fellows, its role card, the words players use for
it, how many seats it takes by default, whether werewolves may pretend to hold it, and how the rules text
sums up its power. Everything that depends on the set of roles is derived from the game's ruleset
(``GameConfig.ruleset``): role counts and the config (``config``), who acts at night (``rules``), the
knowledge model and the judge (``visibility``, ``judge``), observation text and vectors (``observe``), the
claim reader's vocabulary (``claims.words``), the heuristic agent's fake claims, the reports.

``Role`` is a role's name, not an ``Enum``, so that a role can be added without editing this file:
``Role("seer")`` is the one instance of that name (``is`` compares roles; names are interned like
``sys.intern``, they carry no facts), ``Role.SEER`` names the built-ins. What a role *is* (team, words,
night action, slot in masks and vectors) is read from a ruleset: ``ruleset.spec(role)``,
``ruleset.index[role]``, ``ruleset.roles`` (the order of bitmasks and vectors). ``role.spec``,
``role.team``, ``role.index`` and ``tuple(Role)`` read ``DEFAULT_RULESET`` (built-in roles only). There is
no global role state: two games with different rulesets share a process safely.

How the roles *interact* (the witch's heal against the pack's kill, the hunter's last shot) stays
code, in ``rules``; the table says who does what, the rules say in which order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic_core import core_schema

MIN_ROLE_SLOTS = 8  # role slots of the numeric observation: max(MIN_ROLE_SLOTS, len(ruleset)) (``observe.layout``)
MAX_ROLES = MIN_ROLE_SLOTS  # the old name: a ruleset may hold more roles (its layout grows)


class Team(str, Enum):
    WEREWOLF = "werewolf"
    VILLAGE = "village"


class ActionKind(str, Enum):
    """Every kind of decision a player is asked for. Each has an ``ActionSpec`` (``action_specs``)."""

    ELIMINATE = "eliminate"
    PROTECT = "protect"
    UNMASK = "unmask"
    HEAL = "heal"
    POISON = "poison"
    SHOOT = "shoot"
    BID = "bid"
    STATEMENT = "statement"
    SELF_ANALYSIS = "self_analysis"
    PEER_ANALYSIS = "peer_analysis"
    VOTE = "vote"
    SUMMARY = "summary"
    POLL = "poll"  # a private vote poll (``config.vote_polls``): last, so the other kinds keep their index


class _DefaultRoles(type):
    """``tuple(Role)``, ``len(Role)`` and ``"seer" in Role`` read ``DEFAULT_RULESET`` (the built-in roles, in order);
    a game's own roles are ``config.ruleset.roles``."""

    def __iter__(cls) -> Iterator[Role]:
        return iter(DEFAULT_RULESET.roles)

    def __len__(cls) -> int:
        return len(DEFAULT_RULESET.roles)

    def __contains__(cls, value: object) -> bool:
        return value in DEFAULT_RULESET


class Role(str, metaclass=_DefaultRoles):
    """A role's name: ``Role("seer") is Role.SEER``. The facts of a role are a ruleset's (``Ruleset.spec``)."""

    __slots__ = ()
    _interned: ClassVar[dict[str, Role]] = {}  # names only (like ``sys.intern``): no facts, so no role state
    WEREWOLF: ClassVar[Role]
    SEER: ClassVar[Role]
    DOCTOR: ClassVar[Role]
    VILLAGER: ClassVar[Role]
    WITCH: ClassVar[Role]
    HUNTER: ClassVar[Role]

    def __new__(cls, value: object) -> Role:
        if type(value) is cls:
            return value
        if not isinstance(value, str):
            raise ValueError(f"{value!r} is not a role name")
        member = cls._interned.get(value)
        if member is None:
            if not value.strip() or value != value.strip().lower():
                raise ValueError(f"{value!r} is not a role name (lowercase, e.g. 'seer')")
            member = cls._interned.setdefault(value, str.__new__(cls, value))
        return member

    @property
    def value(self) -> str:
        return str.__str__(self)

    @property
    def name(self) -> str:
        return self.value.upper()

    def _default(self) -> RoleSpec:
        spec = DEFAULT_RULESET.specs.get(self)
        if spec is None:
            raise KeyError(
                f"{self.value!r} is not a built-in role: read its facts from the game's ruleset "
                "(config.ruleset.spec(role), config.ruleset.index[role])"
            )
        return spec

    @property
    def spec(self) -> RoleSpec:
        """The built-in role's spec (``DEFAULT_RULESET``); a game's roles: ``config.ruleset.spec(role)``."""
        return self._default()

    @property
    def team(self) -> Team:
        return self._default().team

    # str.index (a method) is shadowed on purpose: Role.index, the role's slot, is read all over
    # the code base; a role's text is never searched with .index.
    @property
    def index(self) -> int:  # type: ignore[override]
        """The built-in role's slot (``DEFAULT_RULESET``); a game's roles: ``config.ruleset.index[role]``."""
        self._default()
        return DEFAULT_RULESET.index[self]

    def __repr__(self) -> str:
        return f"Role.{self.name}"

    def __str__(self) -> str:
        return self.value

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (Role, (self.value,))  # unpickled as the interned instance, never a copy

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls, serialization=core_schema.plain_serializer_function_ser_schema(str.__str__, when_used="always")
        )


def _count_one(num_players: int) -> int:
    return 1


def _count_none(num_players: int) -> int:
    return 0


def default_werewolves(num_players: int) -> int:
    """The default pack: a quarter of the players, at least one (8 players: 2; 12 players: 3)."""
    return max(1, round(num_players / 4))


@dataclass(frozen=True, slots=True)
class RoleSpec:
    """One role, declared (see the module docstring).

    ``words``: what players call the role in speech, the first the role's own name ("seer",
    "detective", "fortune teller"); the claim reader reads role claims with them. ``default_count``:
    seats the role takes in a game of n players when the config does not say (villagers fill the
    rest). ``unique``: at most one holder in the usual game, so "the doctor" names the holder once the
    role is revealed. ``fake_claim``: werewolves may pretend to hold it (the heuristic agent does).
    ``knows_fellows``: a holder learns who else holds the role (the pack). ``power``: the role's night
    or death power in a few words, for the rules text ("the seer investigates someone").
    """

    role: str
    team: Team
    card: str
    words: tuple[str, ...]
    plural: str
    night: ActionKind | tuple[ActionKind, ...] | None = None
    on_death: ActionKind | None = None
    knows_fellows: bool = False
    default_count: Callable[[int], int] = _count_none
    unique: bool = True
    fake_claim: bool = False
    power: str = ""
    # The night actions the role is asked for, in order (the witch: heal, then poison): ``night`` as a tuple,
    # computed once (the engine reads it on every turn).
    night_kinds: tuple[ActionKind, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kinds = () if self.night is None else self.night if isinstance(self.night, tuple) else (self.night,)
        object.__setattr__(self, "night_kinds", kinds)  # a frozen dataclass sets its derived field so


def _word_key(word: str) -> str:
    return " ".join(word.lower().split())


def _spoken(spec: RoleSpec) -> list[str]:
    """The words a role is spoken of by: its words, then its plural."""
    return list(dict.fromkeys(_word_key(word) for word in (*spec.words, spec.plural)))


@dataclass(frozen=True, slots=True)
class FixedCount:
    """A role's default seat count that does not depend on the players (a logged role's: ``Ruleset.from_json``)."""

    count: int

    def __call__(self, num_players: int) -> int:
        return self.count


@dataclass(frozen=True, eq=False)
class Ruleset:
    """The roles of a game, as one immutable value: the role specs in order and the words some roles took over.

    Every table derived from the roles is built once, here (``specs``: each role's spec with only the words
    it owns; ``words``: word -> role; ``index``: each role's slot in masks and vectors), and every module
    reads the game's ruleset (``GameConfig.ruleset``) instead of global state: two games with different
    roles share a process safely. ``DEFAULT_RULESET`` holds the six built-in roles; ``with_role`` adds one,
    returning a new ruleset. Equal rulesets (same specs, same take-overs) hash alike, so derived tables are
    cached per ruleset (``functools.lru_cache``).
    """

    declared: tuple[RoleSpec, ...]
    taken: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (role, the words it took over), in the order taken
    roles: tuple[Role, ...] = field(init=False)
    specs: Mapping[Role, RoleSpec] = field(init=False, repr=False)  # each role's spec, only its own words
    words: Mapping[str, Role] = field(init=False, repr=False)  # every role word and the one role it names
    index: Mapping[Role, int] = field(init=False, repr=False)  # a role's bit in knowledge masks, slot in vectors
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        names = [spec.role for spec in self.declared]
        if len(set(names)) != len(names):
            raise ValueError(f"a ruleset names each role once: {names}")
        missing = [name for name in ("werewolf", "villager") if name not in names]
        if missing:  # the pack, and the role that fills the seats left: the rules need both
            raise ValueError(f"a ruleset needs the {' and the '.join(missing)} (roles: {', '.join(names)})")
        roles = tuple(Role(name) for name in names)
        by_name = dict(zip(names, roles, strict=True))
        owner: dict[str, Role] = {}
        for role, spec in zip(roles, self.declared, strict=True):
            for word in _spoken(spec):
                owner.setdefault(word, role)
        for name, taken in self.taken:
            owner.update(dict.fromkeys(taken, by_name[name]))
        specs: dict[Role, RoleSpec] = {}
        for role, spec in zip(roles, self.declared, strict=True):
            own = tuple(word for word in spec.words if owner[_word_key(word)] is role)
            specs[role] = spec if own == spec.words else replace(spec, words=own)
        set_ = object.__setattr__  # a frozen dataclass sets its derived fields so
        set_(self, "roles", roles)
        set_(self, "specs", MappingProxyType(specs))
        set_(self, "words", MappingProxyType(owner))
        set_(self, "index", MappingProxyType({role: i for i, role in enumerate(roles)}))
        set_(self, "_hash", hash((self.declared, self.taken)))

    def __hash__(self) -> int:
        return self._hash

    def __copy__(self) -> Ruleset:
        return self  # immutable

    def __deepcopy__(self, memo: dict[int, Any]) -> Ruleset:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        if self == DEFAULT_RULESET:
            return (_default_ruleset, ())  # unpickled as the one default ruleset
        return (Ruleset, (self.declared, self.taken))

    def __repr__(self) -> str:
        return "DEFAULT_RULESET" if self is DEFAULT_RULESET else f"Ruleset(roles={self.roles!r})"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Ruleset):
            return NotImplemented
        return self._hash == other._hash and self.declared == other.declared and self.taken == other.taken

    def __iter__(self) -> Iterator[Role]:
        return iter(self.roles)

    def __len__(self) -> int:
        return len(self.roles)

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and value in self.index

    def role(self, value: object) -> Role:
        """This ruleset's ``Role`` named ``value`` (the one instance: ``is`` compares roles); ValueError for none."""
        if isinstance(value, str):
            for role in self.roles:
                if role == value:
                    return role
        raise ValueError(f"{value!r} is not a role (roles: {', '.join(self.roles)})")

    def spec(self, role: str) -> RoleSpec:
        """The spec of ``role`` (its words only those no other role took over)."""
        return self.specs[self.role(role)] if not isinstance(role, Role) else self.specs[role]

    def team(self, role: str) -> Team:
        return self.spec(role).team

    def role_of(self, word: str) -> Role:
        """The role ``word`` names: a role's name or any of its words ("medic": the doctor); ValueError for none."""
        role = self.words.get(_word_key(word)) if isinstance(word, str) else None
        return role if role is not None else self.role(word)

    def with_role(self, spec: RoleSpec, *, takes_over: Iterable[str] = ()) -> Ruleset:
        """A new ruleset with ``spec`` added (or, for a role it has, replacing that role's spec in its place).

        Roles without a night action need nothing else; a night or death action is one of the existing
        ``ActionKind``s (new kinds of action are rules code). A word (or plural) of the role that another role
        already uses is refused, naming both roles and the word, unless the role takes it over: ``takes_over``
        lists such words, which then name this role only (the bodyguard takes "bodyguard" and "guard" from the
        doctor). Another role's own name cannot be taken.
        """
        if not spec.words or spec.words[0] != spec.role:
            raise ValueError(f"role {spec.role!r}: its words must start with its own name")
        spoken = _spoken(spec)
        taken = tuple(dict.fromkeys(_word_key(word) for word in takes_over))
        unknown = sorted(set(taken) - set(spoken))
        if unknown:
            raise ValueError(
                f"role {spec.role!r} takes over {unknown[0]!r}, which is not one of its words or its plural"
            )
        for word in spoken:
            holder = self.words.get(word)
            if holder is None or holder == spec.role:
                continue
            if word == holder:
                raise ValueError(
                    f"role {spec.role!r}: {word!r} is the name of role {holder.value!r}; it cannot be taken"
                )
            if word not in taken:
                raise ValueError(
                    f"role {spec.role!r}: the word {word!r} already names role {holder.value!r}; "
                    f"rename it, or take it over with with_role(..., takes_over=({word!r},))"
                )
        declared = [s for s in self.declared]
        names = [s.role for s in declared]
        if spec.role in names:
            declared[names.index(spec.role)] = spec
        else:
            declared.append(spec)
        kept = tuple((name, words) for name, words in self.taken if name != spec.role)
        return Ruleset(tuple(declared), kept + (((spec.role, taken),) if taken else ()))

    def without_role(self, name: str) -> Ruleset:
        """A new ruleset without role ``name``; the words it took over go back to the roles that had them."""
        return Ruleset(
            tuple(s for s in self.declared if s.role != name), tuple((n, w) for n, w in self.taken if n != name)
        )

    # ------------------------------------------------------------------ logged form (a custom ruleset's)
    def to_json(self, num_players: int) -> dict[str, Any]:
        """The ruleset as plain JSON, for a game of ``num_players`` (each default count is written as its value)."""
        return {
            "roles": [_spec_json(spec, num_players) for spec in self.declared],
            "takes_over": {name: list(words) for name, words in self.taken},
        }

    @classmethod
    def from_json(cls, data: Any) -> Ruleset:
        """The ruleset ``to_json`` wrote (the built-in roles come back as they are, so equal to the default's)."""
        if isinstance(data, Ruleset):
            return data
        if not isinstance(data, dict) or not isinstance(data.get("roles"), list):
            raise ValueError("ruleset: expected {'roles': [role specs...], 'takes_over': {role: [words]}}")
        specs = tuple(_spec_of_json(item) for item in data["roles"])
        taken = data.get("takes_over") or {}
        if not isinstance(taken, dict):
            raise ValueError("ruleset: takes_over must map role names to words")
        return cls(specs, tuple((str(name), tuple(map(str, words))) for name, words in taken.items()))


_SPEC_FIELDS = ("role", "team", "card", "words", "plural", "night", "on_death", "knows_fellows", "unique",
                "fake_claim", "power")  # fmt: skip


def _spec_json(spec: RoleSpec, num_players: int) -> dict[str, Any]:
    built_in = _BUILT_IN_BY_NAME.get(spec.role)
    if built_in is not None and built_in == spec:
        return {"role": spec.role, "built_in": True}
    out: dict[str, Any] = {}
    for key in _SPEC_FIELDS:
        value = getattr(spec, key)
        if isinstance(value, Enum):
            value = value.value
        elif isinstance(value, tuple):
            value = [v.value if isinstance(v, Enum) else v for v in value]
        out[key] = value
    out["default_count"] = spec.default_count(num_players)
    return out


def _spec_of_json(item: Any) -> RoleSpec:
    if not isinstance(item, dict) or not isinstance(item.get("role"), str):
        raise ValueError(f"ruleset: a role spec must be an object naming its role, not {item!r}")
    if item.get("built_in"):
        built_in = _BUILT_IN_BY_NAME.get(item["role"])
        if built_in is None:
            raise ValueError(f"ruleset: {item['role']!r} is not a built-in role")
        return built_in
    night = item.get("night")
    kinds = (
        None if night is None else tuple(ActionKind(k) for k in night) if isinstance(night, list) else ActionKind(night)
    )
    return RoleSpec(
        role=item["role"],
        team=Team(item["team"]),
        card=str(item["card"]),
        words=tuple(map(str, item["words"])),
        plural=str(item["plural"]),
        night=kinds,
        on_death=None if item.get("on_death") is None else ActionKind(item["on_death"]),
        knows_fellows=bool(item.get("knows_fellows", False)),
        default_count=FixedCount(int(item.get("default_count", 0))),
        unique=bool(item.get("unique", True)),
        fake_claim=bool(item.get("fake_claim", False)),
        power=str(item.get("power", "")),
    )


def _default_ruleset() -> Ruleset:
    return DEFAULT_RULESET


def _removed(name: str, instead: str) -> Callable[..., Any]:
    def removed(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"roles.{name} was removed: roles are no longer global state. {instead} (see docs/rules.md, adding a role)"
        )

    removed.__name__ = name
    return removed


register_role = _removed(
    "register_role",
    "Build a ruleset instead: DEFAULT_RULESET.with_role(spec, takes_over=...), and play it with "
    "GameConfig(ruleset=...)",
)
unregister_role = _removed(
    "unregister_role", "Use the ruleset without the role (Ruleset.without_role), or DEFAULT_RULESET"
)
on_roles_changed = _removed("on_roles_changed", "Rulesets are immutable: cache tables per ruleset (it is hashable)")
generation = _removed("generation", "Rulesets are immutable: cache tables per ruleset (it is hashable)")


# ---------------------------------------------------------------------------------------- the built-in roles

_WIN_VILLAGE = "You win when every werewolf is dead."
_BUILT_IN_SPECS = (
    RoleSpec(
        role="werewolf", team=Team.WEREWOLF, night=ActionKind.ELIMINATE, knows_fellows=True,
        default_count=default_werewolves, unique=False, plural="werewolves",
        words=("werewolf", "werewolves", "wolf", "wolves", "mafia", "mafioso", "mafiosi", "mafiosos", "scum"),
        power="werewolves pick a victim",
        card=(
            "You are a WEREWOLF (werewolf team). Each night the werewolves choose a villager to eliminate. "
            "By day, hide your identity: blend in, deflect suspicion, and steer the vote toward villagers. "
            "You win when werewolves are at least as many as everyone else alive."
        ),
    ),
    RoleSpec(
        role="seer", team=Team.VILLAGE, night=ActionKind.UNMASK, default_count=_count_one, fake_claim=True,
        plural="seers", words=("seer", "detective", "investigator", "cop", "diviner", "oracle", "sheriff",
                               "fortune teller"),
        power="the seer investigates someone",
        card=(
            "You are the SEER (village team). Each night you investigate one living player and privately "
            "learn whether they are a werewolf. Use what you learn to guide the village without getting killed. "
            + _WIN_VILLAGE
        ),
    ),
    RoleSpec(
        role="doctor", team=Team.VILLAGE, night=ActionKind.PROTECT, default_count=_count_one, fake_claim=True,
        plural="doctors", words=("doctor", "medic", "healer", "nurse", "bodyguard", "guard", "guardian",
                                 "protector", "knight"),
        power="the doctor protects someone",
        card=(
            "You are the DOCTOR (village team). Each night you protect one living player (yourself allowed); "
            "if the werewolves target that player, nobody dies. " + _WIN_VILLAGE
        ),
    ),
    RoleSpec(
        role="villager", team=Team.VILLAGE, unique=False, plural="villagers",
        words=("villager", "villagers", "townie", "townies", "townsperson", "townspeople", "citizen", "civilian",
               "bystander", "commoner", "peasant", "medium"),
        card=(
            "You are a VILLAGER (village team). You have no night power. By day, reason about who is lying "
            "and vote to exile the werewolves. " + _WIN_VILLAGE
        ),
    ),
    RoleSpec(
        role="witch", team=Team.VILLAGE, night=(ActionKind.HEAL, ActionKind.POISON), fake_claim=True,
        plural="witches", words=("witch", "sorceress"),
        power="the witch, told the werewolves' victim, may heal it or poison someone (each potion once a game)",
        card=(
            "You are the WITCH (village team). You have two potions, each usable once in the game: a healing "
            "potion and a poison. Each night, after the werewolves choose, you learn their victim and may heal "
            "them (they survive), then you may poison one player (they die that night). " + _WIN_VILLAGE
        ),
    ),
    RoleSpec(
        role="hunter", team=Team.VILLAGE, on_death=ActionKind.SHOOT, fake_claim=True,
        plural="hunters", words=("hunter",),
        power="the hunter, when killed or exiled, shoots one player who dies with him",
        card=(
            "You are the HUNTER (village team). You have no night power, but when you die (killed at night or "
            "exiled) you shoot one living player, who dies with you. " + _WIN_VILLAGE
        ),
    ),
)  # fmt: skip


_BUILT_IN_BY_NAME: Mapping[str, RoleSpec] = MappingProxyType({spec.role: spec for spec in _BUILT_IN_SPECS})
DEFAULT_RULESET = Ruleset(_BUILT_IN_SPECS)  # the six built-in roles: every game's unless its config says otherwise
# By name, not by position: a spec added to ``_BUILT_IN_SPECS`` above leaves these six as they are.
Role.WEREWOLF, Role.SEER, Role.DOCTOR = Role("werewolf"), Role("seer"), Role("doctor")
Role.VILLAGER, Role.WITCH, Role.HUNTER = Role("villager"), Role("witch"), Role("hunter")
ROLE_SPECS: Mapping[Role, RoleSpec] = DEFAULT_RULESET.specs  # the built-in roles' specs (read only)


def role_words(ruleset: Ruleset = DEFAULT_RULESET) -> dict[str, Role]:
    """Every word for a role of ``ruleset`` (its words and plural, lowercase) and the one role it names.

    The one mapping of words to roles: the claim reader reads with it and the judge resolves role names with it.
    """
    return dict(ruleset.words)


def role_of(word: str, ruleset: Ruleset = DEFAULT_RULESET) -> Role:
    """The role ``word`` names in ``ruleset``: a role's name or any of its words ("medic": the doctor)."""
    return ruleset.role_of(word)
