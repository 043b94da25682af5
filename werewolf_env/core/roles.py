"""What the game's roles are: one ``RoleSpec`` per role, the one place every other module reads.

A role is declared once, in ``ROLE_SPECS`` (the built-in six) or with ``register_role`` (a
variant's own role, even inside a test): its team, the action it takes each night or when it dies,
whether it knows its fellows, its role card, the words players use for it, how many seats it takes
by default, whether werewolves may pretend to hold it, and how the rules text sums up its power.
Everything that depends on the set of roles is derived from the table: role counts and the config
(``config``), who acts at night (``rules``), the knowledge model and the judge (``visibility``,
``judge``), observation text and vectors (``observe``), the claim reader's vocabulary
(``claim_words``), the heuristic agent's fake claims, the reports.

``Role`` is a registered name, not an ``Enum``, so that a role can be added without editing this
file: ``Role("seer")`` is the one instance of the seer (``is`` compares roles), ``tuple(Role)``
lists the roles in registration order (the order of bitmasks and vectors), ``Role.SEER`` names the
built-ins. Modules that keep tables derived from the set of roles subscribe with
``on_roles_changed``; a registration after import updates them.

How the roles *interact* (the witch's heal against the pack's kill, the hunter's last shot) stays
code, in ``rules``; the table says who does what, the rules say in which order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, ClassVar

from pydantic_core import core_schema

MAX_ROLES = 8  # room for roles in the numeric observation (a registered role must fit: ``register_role``)


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


class _Registry(type):
    """``tuple(Role)``, ``len(Role)`` and ``"seer" in Role`` read the registered roles, in order."""

    def __iter__(cls) -> Iterator[Role]:
        return iter(tuple(Role._members.values()))

    def __len__(cls) -> int:
        return len(Role._members)

    def __contains__(cls, value: object) -> bool:
        return isinstance(value, str) and value in Role._members


class Role(str, metaclass=_Registry):
    """A registered role name: ``Role("seer") is Role.SEER``; unknown names raise ValueError."""

    __slots__ = ()
    _members: ClassVar[dict[str, Role]] = {}
    WEREWOLF: ClassVar[Role]
    SEER: ClassVar[Role]
    DOCTOR: ClassVar[Role]
    VILLAGER: ClassVar[Role]
    WITCH: ClassVar[Role]
    HUNTER: ClassVar[Role]

    def __new__(cls, value: object) -> Role:
        if type(value) is cls:
            return value
        member = cls._members.get(value) if isinstance(value, str) else None
        if member is None:
            raise ValueError(f"{value!r} is not a role (roles: {', '.join(cls._members)})")
        return member

    @classmethod
    def _add(cls, name: str) -> Role:
        member = str.__new__(cls, name)
        cls._members[name] = member
        return member

    @property
    def value(self) -> str:
        return str.__str__(self)

    @property
    def name(self) -> str:
        return self.value.upper()

    @property
    def spec(self) -> RoleSpec:
        return ROLE_SPECS[self]

    @property
    def team(self) -> Team:
        return ROLE_SPECS[self].team

    # str.index (a method) is shadowed on purpose: Role.index, the registration slot, is read all over
    # the code base; a role's text is never searched with .index.
    @property
    def index(self) -> int:  # type: ignore[override]
        """The role's place in registration order: its bit in knowledge masks, its slot in vectors."""
        return _INDEX[self]

    def __repr__(self) -> str:
        return f"Role.{self.name}"

    def __str__(self) -> str:
        return self.value

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (Role, (self.value,))  # unpickled as the registered instance, never a copy

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


ROLE_SPECS: dict[Role, RoleSpec] = {}  # each role's spec, its words only those no other role took over
_DECLARED: dict[Role, RoleSpec] = {}  # each role's spec as registered, every word it declared
_TAKEN: dict[Role, frozenset[str]] = {}  # the words each role took over, in the order taken
_WORDS: dict[str, Role] = {}  # every role word and the one role it names (``role_words``)
_INDEX: dict[Role, int] = {}
_listeners: list[Callable[[], None]] = []
_generation = 0  # counts changes to the roles: caches of tables derived from them compare it


def generation() -> int:
    """How many times the set of roles changed (tables derived from it are stale when it moved)."""
    return _generation


def _changed() -> None:
    global _generation
    _generation += 1
    for listener in list(_listeners):
        listener()


def register_role(spec: RoleSpec, *, takes_over: Iterable[str] = ()) -> Role:
    """Add a role to the game (a variant's, or a test's): every table derived from the roles follows.

    Roles without a night action need nothing else; a night or death action is one of the existing
    ``ActionKind``s (new kinds of action are rules code). Registering an existing name replaces its spec
    (its index stays), so a test may redefine a role it added.

    A word (or plural) of the role that another role already uses is refused, naming both roles and the
    word, unless the role takes it over: ``takes_over`` lists such words, which then name this role only
    (the bodyguard takes "bodyguard" and "guard" from the doctor) until it is unregistered. Another role's
    own name cannot be taken.
    """
    if not spec.words or spec.words[0] != spec.role:
        raise ValueError(f"role {spec.role!r}: its words must start with its own name")
    spoken = _spoken(spec)
    taken = frozenset(_word_key(word) for word in takes_over)
    unknown = sorted(taken - set(spoken))
    if unknown:
        raise ValueError(f"role {spec.role!r} takes over {unknown[0]!r}, which is not one of its words or its plural")
    for word in spoken:
        holder = _WORDS.get(word)
        if holder is None or holder.value == spec.role:
            continue
        if word == holder.value:
            raise ValueError(f"role {spec.role!r}: {word!r} is the name of role {holder.value!r}; it cannot be taken")
        if word not in taken:
            raise ValueError(
                f"role {spec.role!r}: the word {word!r} already names role {holder.value!r}; "
                f"rename it, or take it over with register_role(..., takes_over=({word!r},))"
            )
    if spec.role in Role._members:
        role = Role(spec.role)
    else:
        if len(Role._members) >= MAX_ROLES:
            raise ValueError(f"at most {MAX_ROLES} roles fit the numeric observation")
        role = Role._add(spec.role)
        _INDEX[role] = len(_INDEX)
    _DECLARED[role] = spec
    _TAKEN.pop(role, None)  # a role's take-overs count from its latest registration
    if taken:
        _TAKEN[role] = taken
    _assign_words()
    _changed()
    return role


def unregister_role(name: str) -> None:
    """Remove a role added by ``register_role`` (tests clean up after themselves); built-ins stay.

    The words it took over go back to the roles that had them.
    """
    role = Role._members.get(name)
    if role is None or role in _BUILT_IN:
        return
    del Role._members[name]
    del ROLE_SPECS[role], _DECLARED[role]
    _TAKEN.pop(role, None)
    _INDEX.clear()
    _INDEX.update({r: i for i, r in enumerate(Role._members.values())})
    _assign_words()
    _changed()


def on_roles_changed(listener: Callable[[], None]) -> None:
    """Call ``listener`` after every registration (modules that derive tables from the roles rebuild them)."""
    _listeners.append(listener)


def role_words() -> dict[str, Role]:
    """Every word for a role (its words and plural, lowercase) and the one role it names.

    The one mapping of words to roles: the claim reader reads with it and the judge resolves role names with it.
    """
    return dict(_WORDS)


def role_of(word: str) -> Role:
    """The role ``word`` names: a role's name or any of its words ("medic": the doctor); ValueError for none."""
    role = _WORDS.get(_word_key(word)) if isinstance(word, str) else None
    return role if role is not None else Role(word)


def _word_key(word: str) -> str:
    return " ".join(word.lower().split())


def _spoken(spec: RoleSpec) -> list[str]:
    """The words a role is spoken of by: its words, then its plural."""
    return list(dict.fromkeys(_word_key(word) for word in (*spec.words, spec.plural)))


def _assign_words() -> None:
    """Give each word to one role, and each role's spec only its own words (``ROLE_SPECS``).

    A word belongs to the first role registered with it, unless a later role took it over (the latest
    take-over wins); the specs as declared are kept, so that an unregistered role's words go back.
    """
    owner: dict[str, Role] = {}
    for role, spec in _DECLARED.items():
        for word in _spoken(spec):
            owner.setdefault(word, role)
    for role, taken in _TAKEN.items():
        owner.update(dict.fromkeys(taken, role))
    _WORDS.clear()
    _WORDS.update(owner)
    for role, spec in _DECLARED.items():
        own = tuple(word for word in spec.words if owner[_word_key(word)] is role)
        ROLE_SPECS[role] = spec if own == spec.words else replace(spec, words=own)


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

for _spec in _BUILT_IN_SPECS:
    register_role(_spec)
# By name, not by position: a spec added to ``_BUILT_IN_SPECS`` above leaves these six as they are.
Role.WEREWOLF, Role.SEER, Role.DOCTOR = Role("werewolf"), Role("seer"), Role("doctor")
Role.VILLAGER, Role.WITCH, Role.HUNTER = Role("villager"), Role("witch"), Role("hunter")
_BUILT_IN = frozenset(Role)
