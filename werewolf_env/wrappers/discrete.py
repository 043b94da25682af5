"""``DiscreteActions``: a ``Discrete`` action space with an action mask, for RL libraries.

Every action kind maps integers onto its answers (``decode``); ``observe`` returns
``{"observation": Box, "action_mask": int8 Box}`` (plus ``"text"`` with ``keep_text=True``):

* the kinds that name a player (eliminate, protect, unmask, heal, poison, shoot, vote: every kind with a
  ``target_key`` in ``action_specs``): index ``p`` names seat ``p``; index ``MAX_PLAYERS`` answers null (where
  null is an answer: abstain, keep the potion, no shot);
* bid: index ``b`` bids ``b``;
* statement: a small fixed set of templated statements, each with its structured claims: nothing
  to add; "I am the <role>" for every village role of the game's ruleset (masked to the roles in the game);
  and per seat: suspect them of being a werewolf, vouch for them, or claim the result of a check (werewolf
  or innocent) about them, as the game's role that checks (``statement_templates``);
* self analysis: 0 = honest, 1-4 = deceptive of type omission / distortion / fabrication / misdirection;
  confidence (the probability that the statement is deceptive) 0.2 for honest, 0.8 for deceptive;
* peer analysis: index ``k`` in 0-10 reports suspicion ``k/10``, flags the statement deceptive from 6
  up (type "fabrication"; the discrete variant does not choose among lie types for peers), with
  confidence ``k/10``: the probability that the statement is deceptive rises with ``k``, as the flag does;
* summary: 0.

A masked-out or out-of-range index is passed on anyway and becomes the env's recorded fallback.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from werewolf_env.actions import ACTION_SPECS, TARGET_KEYS, ParseResult, legal_targets, parse, to_jsonable
from werewolf_env.claims import LIE_TYPES, make_claim
from werewolf_env.core import DEFAULT_RULESET, MAX_PLAYERS, ActionKind, Role, Ruleset, Team, Turn
from werewolf_env.observe import layout_of

ABSTAIN = MAX_PLAYERS
SELF_TYPES = LIE_TYPES
_PER_SEAT = 4  # suspect, vouch, seer result werewolf, seer result innocent


@dataclass(frozen=True)
class StatementTemplates:
    """The templated statements of a game's roles (``statement_templates``)."""

    roles: tuple[tuple[str, str], ...]  # ("I am the seer.", "seer") for every village role, in the ruleset's order
    checker: tuple[str, str] | None  # ("I am the seer.", "seer"): the role whose check the result templates claim

    @property
    def first_seat(self) -> int:
        return 1 + len(self.roles)

    @property
    def size(self) -> int:
        """Statement indices: nothing to add, the roles, then ``_PER_SEAT`` per seat."""
        return self.first_seat + _PER_SEAT * MAX_PLAYERS


def _i_am(ruleset: Ruleset, role: Role) -> tuple[str, str]:
    return f"I am {'the' if ruleset.specs[role].unique else 'a'} {role.value}.", role.value


@lru_cache(maxsize=64)
def statement_templates(ruleset: Ruleset = DEFAULT_RULESET, seated: frozenset[str] = frozenset()) -> StatementTemplates:
    """The statements of a game of ``ruleset`` whose seated roles are ``seated``: "I am the <role>." for each
    village role (the mask keeps those in the game), and check results claimed as the first role that checks
    that the game seats (else the ruleset's first; none: no result template)."""
    roles = tuple(_i_am(ruleset, role) for role, spec in ruleset.specs.items() if spec.team is Team.VILLAGE)
    checkers = [role for role, spec in ruleset.specs.items() if ActionKind.UNMASK in spec.night_kinds]
    checker = next((role for role in checkers if role in seated), checkers[0] if checkers else None)
    return StatementTemplates(roles, None if checker is None else _i_am(ruleset, checker))


DEFAULT_TEMPLATES = statement_templates()
NUM_STATEMENTS = DEFAULT_TEMPLATES.size  # a game of the built-in roles' (a ruleset with more village roles has more)
_TARGET_KINDS = frozenset(TARGET_KEYS)
NOOP = 0  # the one action an idle or dead seat may take in a Parallel env (ignored by the env)
_MASKS_KEPT = 4096  # masks (and readings) cached per codec, at most (a game of 16 seats makes a few hundred)


class DiscreteCodec:
    """The integers of one game config: what each stands for in a turn (``decode``) and which are legal
    (``mask``). Shared by ``DiscreteActions``, ``ParallelDiscreteActions`` and the numeric envs
    (``werewolf_env.wrappers.numeric``), so every discrete face reads an integer the same way."""

    def __init__(self, config: Any) -> None:
        self.templates = templates_of(config)
        self.num_actions = max(MAX_PLAYERS + 1, config.max_bid + 1, self.templates.size, 11)
        # A mask is a pure function of its key (the kind; and the legal targets, or for a statement the speaker and
        # who lives), for the games of one config: built once, then copied. So is the reading of an integer's
        # answer where ``_reading_key`` gives one (``act``; the names are the config's). Few keys recur, so the
        # caches stay small; each is emptied if it ever grows large, and both when a game of another config comes.
        self._config: Any = config
        self._masks: dict[tuple[Any, ...], np.ndarray] = {}
        self._readings: dict[tuple[Any, ...], tuple[Any, ParseResult]] = {}

    def mask(self, game: Any, turn: Turn | None) -> np.ndarray:
        """The legal integers of ``turn`` in ``game`` (all zero without a turn), as a new array."""
        if turn is None:
            return np.zeros(self.num_actions, dtype=np.int8)
        state = game.state
        kind = turn.kind
        if kind in _TARGET_KINDS:
            key: tuple[Any, ...] = (kind, *legal_targets(state, turn))
        elif kind is ActionKind.STATEMENT:
            key = (kind, turn.player, *state.living())
        else:
            key = (kind,)
        masks = self._cache_for(state, self._masks)
        mask = masks.get(key)
        if mask is None:
            mask = masks[key] = self._build_mask(game, turn)
        return mask.copy()  # a policy may write to its mask: the cached one stays as built

    def mask_or_noop(self, game: Any, turn: Turn | None) -> np.ndarray:
        """The mask of a Parallel step: the turn's legal integers, or only ``NOOP`` for a seat without a turn
        (or a turn with no legal answer), whose action the env ignores."""
        mask = self.mask(game, turn)
        if not mask.any():
            mask[NOOP] = 1
        return mask

    @staticmethod
    def turn_of(env: Any, agent: str) -> Turn | None:
        """``agent``'s pending turn in ``env`` (an env of this package), or None."""
        game = env.game
        return game.pending_turn(env.agent_name_mapping[agent]) if game is not None else None

    def _build_mask(self, game: Any, turn: Turn) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        kind = turn.kind
        if kind in _TARGET_KINDS:
            for seat in game.legal_targets(turn):
                mask[seat] = 1
            if ACTION_SPECS[kind].null_ok:
                mask[ABSTAIN] = 1
        elif kind is ActionKind.BID:
            mask[: game.state.config.max_bid + 1] = 1
        elif kind is ActionKind.STATEMENT:
            state = game.state
            mask[0] = 1
            in_game = state.config.roles_in_game()
            templates = self.templates
            for i, (_text, role) in enumerate(templates.roles, start=1):
                mask[i] = Role(role) in in_game
            for seat in state.living():
                if seat != turn.player:
                    start = templates.first_seat + _PER_SEAT * seat
                    mask[start : start + (_PER_SEAT if templates.checker is not None else 2)] = 1
        elif kind is ActionKind.SELF_ANALYSIS:
            mask[: len(SELF_TYPES)] = 1
        elif kind is ActionKind.PEER_ANALYSIS:
            mask[:11] = 1
        else:
            mask[0] = 1
        return mask

    def act(self, game: Any, action: Any) -> ParseResult:
        """Answer ``game``'s current turn with the integer ``action``, as ``game.act(decode(...))`` does.

        The parse of an answer is memoised where nothing in the game but its config and names can change it:
        a bid, a legal target, abstaining, a statement (by its speaker), a self analysis, a peer analysis (unless
        ``subject_suspicion`` asks it to score the players a statement spoke of, who change), a summary. The rest
        (an illegal index, whose fallback says why) is parsed each time. A reading with a fallback or a repair is
        never kept."""
        if action is None:
            return game.act(None)  # no answer: the engine's fallback
        state = game.state
        turn = state.pending[0]
        key = self._reading_key(state, turn, action)
        if key is None:
            return game.act(self.decode(game, turn, action))
        readings = self._cache_for(state, self._readings)
        found = readings.get(key)
        if found is None:
            raw = to_jsonable(self.decode(game, turn, action))
            result = parse(raw, turn, state)
            if result.fallbacks or result.repairs:
                return game.act_parsed(raw, result)
            found = readings[key] = (raw, result)
        return game.act_parsed(*found)

    def _cache_for(self, state: Any, cache: dict[Any, Any]) -> dict[Any, Any]:
        """``cache``, emptied first if it grew large; both caches emptied for a game of another config."""
        if state.config is not self._config:
            self._config = state.config
            self._masks.clear()
            self._readings.clear()
        elif len(cache) > _MASKS_KEPT:
            cache.clear()
        return cache

    @staticmethod
    def _reading_key(state: Any, turn: Turn, action: Any) -> tuple[Any, ...] | None:
        """What the reading of ``action`` in ``turn`` depends on besides the config and the names, or None
        if it depends on more (or ``action`` is no plain integer)."""
        if type(action) is not int:
            if not isinstance(action, np.integer):
                return None
            action = int(action)
        kind = turn.kind
        if kind is ActionKind.BID or kind is ActionKind.SELF_ANALYSIS or kind is ActionKind.SUMMARY:
            return (kind, action)
        if kind is ActionKind.STATEMENT:
            return (kind, action, turn.player)
        if kind is ActionKind.PEER_ANALYSIS:
            return None if state.config.subject_suspicion else (kind, action)
        if kind in _TARGET_KINDS:
            # A legal seat reads as itself; abstaining as null (where null is no answer, the engine's fallback
            # does not depend on the game either). An illegal seat's fallback names why: parsed each time.
            if action == ABSTAIN or action in legal_targets(state, turn):
                return (kind, action)
        return None

    def decode(self, game: Any, turn: Turn | None, action: Any) -> dict[str, Any]:
        """The JSON action an integer stands for in ``turn`` of ``game``."""
        try:
            index = int(action)
        except (TypeError, ValueError, OverflowError):  # not a number; NaN; an infinity
            return {"invalid_discrete_action": repr(action)}
        if turn is None:
            return {}
        kind = turn.kind
        if kind is ActionKind.BID:  # the most frequent answer first
            return {"bid": index}
        names = game.state.names
        if kind in _TARGET_KINDS:
            if index == ABSTAIN:
                return {TARGET_KEYS[kind]: None}
            return {TARGET_KEYS[kind]: names[index] if 0 <= index < len(names) else f"seat {index}"}
        if kind is ActionKind.STATEMENT:
            return statement_answer(index, turn.player, names, self.templates)
        if kind is ActionKind.SELF_ANALYSIS:
            kind_name = SELF_TYPES[index] if 0 <= index < len(SELF_TYPES) else "invalid"
            return {
                "is_deceptive": index > 0,
                "confidence": 0.8 if index > 0 else 0.2,  # the probability it is deceptive, as flagged
                "deception_type": kind_name,
                "reasoning": "discrete action",
            }
        if kind is ActionKind.PEER_ANALYSIS:
            level = index / 10
            return {
                "is_deceptive": index >= 6,
                "confidence": level,  # one number, monotone in k: the metrics read it as P(deceptive)
                "deception_type": "fabrication" if index >= 6 else "none",
                "reasoning": "discrete action",
                "suspicion": level,
            }
        return {"summary": "Good game."}


def statement_answer(
    index: int, speaker: int, names: tuple[str, ...], templates: StatementTemplates = DEFAULT_TEMPLATES
) -> dict[str, Any]:
    """The statement (text and claims) that index ``index`` stands for."""
    if index == 0 or not 0 <= index < templates.size:
        return {"statement": "I have nothing to add.", "claims": []}
    if index < templates.first_seat:
        text, role = templates.roles[index - 1]
        return {"statement": text, "claims": [_claim("role", "me", role=role)]}
    seat, variant = divmod(index - templates.first_seat, _PER_SEAT)
    if seat >= len(names) or (variant >= 2 and templates.checker is None):
        return {"statement": "I have nothing to add.", "claims": []}
    name = names[seat]
    if variant == 0:
        claims = [_claim("team", name, team="werewolf", hedged=True)]
        return {"statement": f"I suspect {name} is a werewolf.", "claims": claims}
    if variant == 1:
        claims = [_claim("team", name, team="village", hedged=True)]
        return {"statement": f"I believe {name} is innocent.", "claims": claims}
    team = "werewolf" if variant == 2 else "village"
    result = "a werewolf" if variant == 2 else "innocent"
    assert templates.checker is not None
    i_am, checker = templates.checker
    return {
        "statement": f"{i_am} I checked {name}, {result}.",
        "claims": [_claim("role", "me", role=checker), _claim("seer_result", name, team=team)],
    }


class DiscreteActions(BaseWrapper):
    """The wrapper form: any AEC env of this package, with its text kept on request (``keep_text``). For RL,
    ``werewolf_env.wrappers.discrete_env()`` is the same game with the same integers, faster (no text, no
    attribute forwarding)."""

    def __init__(self, env: AECEnv, keep_text: bool = False) -> None:
        super().__init__(env)
        base = env.unwrapped
        self.base = base
        self.keep_text = keep_text
        self.codec = DiscreteCodec(base.config)
        self.templates = self.codec.templates
        self.num_actions = self.codec.num_actions
        obs: dict[str, spaces.Space] = {
            "observation": spaces.Box(0.0, 1.0, (layout_of(base.config.ruleset).size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        }
        if keep_text:
            obs["text"] = base.observation_spaces[base.possible_agents[0]]["text"]
        self._observation_spaces = {a: spaces.Dict(obs) for a in base.possible_agents}
        self._action_spaces: dict[str, spaces.Space] = {
            a: spaces.Discrete(self.num_actions) for a in base.possible_agents
        }

    # The statement an index stands for (``statement_answer``), where the tests have long read it.
    _statement = staticmethod(statement_answer)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def observe(self, agent: str) -> dict[str, Any]:
        inner = self.env.observe(agent)
        out = {"observation": inner["observation"], "action_mask": self.action_mask(agent)}
        if self.keep_text:
            out["text"] = inner["text"]
        return out

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if action is None or self.terminations.get(agent) or self.truncations.get(agent):
            self.env.step(action)
            return
        self.env.step(self.decode(agent, action))

    # ------------------------------------------------------------------

    def action_mask(self, agent: str) -> np.ndarray:
        return self.codec.mask(self.base.game, self.codec.turn_of(self.base, agent))

    def decode(self, agent: str, action: Any) -> dict[str, Any]:
        """The JSON action an integer stands for in ``agent``'s current turn."""
        return self.codec.decode(self.base.game, self.codec.turn_of(self.base, agent), action)


def templates_of(config: Any) -> StatementTemplates:
    """The statement templates of a game's config (its ruleset and seated roles)."""
    return statement_templates(config.ruleset, frozenset(role.value for role in config.roles_in_game()))


def _claim(
    kind: str, player: str, role: str | None = None, team: str | None = None, hedged: bool = False
) -> dict[str, Any]:
    claim = make_claim(kind, 0, role, team, hedged=hedged)
    claim["player"] = player
    return {k: v for k, v in claim.items() if v is not None}
