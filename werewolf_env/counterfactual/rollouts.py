"""The counterfactual signs' estimator machinery: determinizations and rollouts from one listener's view.

``determinize`` draws a role assignment uniformly among those consistent with what a listener knows
(never the hidden truth; ``consistent`` checks one); ``fork`` copies the game at the start of today's
vote with those roles and only the listener's private memories; ``rollout`` plays the fork to the end on
the engine's own phase graph with ``RolloutPolicy``, simple play that reads only public accusations
(``public_scores``) and what each sampled role would know. Split from ``counterfactual`` (which
re-exports these and turns rollouts into bait / switch / edge values).

Pure: no I/O; all randomness from the generator or seed given.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from werewolf_env.actions import TARGET_KEYS, legal_targets
from werewolf_env.core import ActionKind, GameState, Role, Team, Turn, knowledge_masks, role_bit
from werewolf_env.engine import advance, open_vote

# ---------------------------------------------------------------------- determinizations


def determinize(state: GameState, listener: int, rng: np.random.Generator, tries: int = 500) -> list[Role]:
    """One role assignment drawn uniformly from those consistent with what ``listener`` knows.

    Seats the listener knows exactly keep their role; the remaining roles are dealt to the
    remaining seats uniformly at random, and a deal that contradicts the listener's knowledge
    (a night victim dealt werewolf, a checked seat dealt the wrong team, ...) is redrawn.
    """
    masks = knowledge_masks(state, listener)
    counts = state.config.seat_counts()
    ruleset = state.config.ruleset
    bits = {role: role_bit(role, ruleset) for role in ruleset.roles}
    roles: list[Role | None] = [None] * len(masks)
    pool: list[Role] = []
    remaining = dict(counts)
    for seat, mask in enumerate(masks):
        exact = [r for r in bits if mask == bits[r]]
        if exact:
            roles[seat] = exact[0]
            remaining[exact[0]] -= 1
    for role, count in remaining.items():
        if count < 0:
            raise ValueError("the listener's knowledge contradicts the role counts")
        pool.extend([role] * count)
    open_seats = [s for s, r in enumerate(roles) if r is None]
    for _ in range(tries):
        deal = [pool[k] for k in rng.permutation(len(pool))]
        if all(masks[s] & bits[r] for s, r in zip(open_seats, deal, strict=True)):
            for s, r in zip(open_seats, deal, strict=True):
                roles[s] = r
            return roles  # type: ignore[return-value]
    raise RuntimeError(f"no consistent role assignment found in {tries} draws")


def consistent(state: GameState, listener: int, roles: list[Role]) -> bool:
    """Does this assignment agree with everything ``listener`` knows (and with the role counts)?"""
    masks = knowledge_masks(state, listener)
    ruleset = state.config.ruleset
    bits = {role: role_bit(role, ruleset) for role in ruleset.roles}
    counts = state.config.seat_counts()
    if any(roles.count(role) != count for role, count in counts.items()):
        return False
    return all(mask & bits[role] for mask, role in zip(masks, roles, strict=True))


# ---------------------------------------------------------------------- rollouts


def public_scores(state: GameState, skip_last: bool = False) -> list[float]:
    """Public accusations minus half the public vouches, per seat, from every statement so far
    (``skip_last``: without the latest statement, the one being judged)."""
    statements = state.statements[:-1] if skip_last else state.statements
    scores = [0.0] * state.num_players
    for st in statements:
        for c in st.claims:
            target = c.get("player")
            if not isinstance(target, int) or c.get("negated") or target == st.speaker:
                continue
            if c.get("team") == "werewolf" or c.get("role") == "werewolf":
                scores[target] += 1.0
            elif c.get("team") == "village":
                scores[target] -= 0.5
    return scores


def fork(state: GameState, roles: list[Role], seed: int, keep_memory_of: int | None) -> GameState:
    """A copy of the game at the start of today's vote, with ``roles`` in place of the true ones.

    Private memories (seer results, the doctor's last protection) are kept only for
    ``keep_memory_of`` (the listener: they are its own knowledge); everyone else starts afresh.
    """
    own_checks = state.seer_results.get(keep_memory_of, []) if keep_memory_of is not None else []
    own_guard = state.last_protected.get(keep_memory_of) if keep_memory_of is not None else None
    copy = GameState(
        config=state.config,
        seed=seed,
        # Duck-typed for GameState.rng (a numpy Generator): the rules call only ``integers`` and ``random``.
        rng=RolloutRandom(seed),  # type: ignore[arg-type]
        names=state.names,
        roles=list(roles),
        alive=list(state.alive),
        round=state.round,
        phase="vote",
        revealed=dict(state.revealed),
        suspicion=state.suspicion,
        statements=state.statements,  # read only: public accusations
    )
    copy.rollout = True  # no debate in a rollout: the night is followed by the vote (``graph``)
    if keep_memory_of is not None:  # the memories the listener's night actions left it
        own_kinds = state.config.ruleset.specs[roles[keep_memory_of]].night_kinds
        if ActionKind.UNMASK in own_kinds and own_checks:
            copy.seer_results[keep_memory_of] = list(own_checks)
        if ActionKind.PROTECT in own_kinds:
            copy.last_protected[keep_memory_of] = own_guard
    for seat, role in enumerate(roles):  # a witch's potions: her own as she knows them, anyone else's unknown: full
        if ActionKind.HEAL in state.config.ruleset.specs[role].night_kinds:
            known = state.potions.get(seat) if seat == keep_memory_of and state.roles[seat] is role else None
            copy.potions[seat] = set(known) if known is not None else {"heal", "poison"}
    return copy


class RolloutRandom(random.Random):
    """The engine's tie-breaks in rollouts (``integers`` and ``random``, as the rules use them), on
    Python's generator: seeding numpy's costs more than a whole rollout."""

    def integers(self, n: int) -> int:
        return self.randrange(n)


def force_votes(
    alive: list[bool], votes: dict[int, dict[str, Any]], forced: dict[int, int | None] | None
) -> dict[int, dict[str, Any]]:
    """``votes`` with the forced ones in place (a forced vote by a dead seat, for itself or for a dead
    seat is ignored). The policy's own votes are drawn first for everyone, forced or not, so the
    random numbers a rollout uses never depend on the forced votes (``rollout_memo`` relies on it)."""
    for voter, target in (forced or {}).items():
        if counts_as_forced(alive, voter, target):
            votes[voter] = {"vote": target}
    return votes


def counts_as_forced(alive: list[bool], voter: int, target: int | None) -> bool:
    """Does a forced vote replace the policy's (a living voter, for nobody or for another living seat)?"""
    return alive[voter] and (target is None or (target != voter and alive[target]))


class RolloutPolicy:
    """Simple, fast play on a forked state, always within the engine's legal actions (``actions.legal_targets``):
    a night action or a last shot names one of its legal targets, whatever role takes it. Eliminations and
    protections go to a random legal target, checks to one not checked yet; votes go to the seer's found
    werewolf, else the most publicly accused (the werewolf team: the most accused of the others), ties at random."""

    def __init__(self, state: GameState, scores: list[float] | None = None) -> None:
        self.state = state
        self.rng: RolloutRandom = state.rng  # type: ignore[assignment]
        self.scores = scores if scores is not None else public_scores(state)
        specs = state.config.ruleset.specs
        self.wolves = [specs[role].team is Team.WEREWOLF for role in state.roles]  # the roles of a fork never change

    def choice(self, options: list[int]) -> int | None:
        return options[self.rng.randrange(len(options))] if options else None

    def votes(self) -> dict[int, dict[str, Any]]:
        """Every living player's vote."""
        s = self.state
        living = s.living()
        if not living:
            return {}
        wolves = self.wolves
        scores = self.scores
        randrange = self.rng.randrange
        # The most accused of all the living and of the prey, found once: a voter's options (everyone but
        # itself) lead with the same players unless it is among them, and only alone at the top does
        # leaving it out change who leads. Same candidates in the same order, so the same draws.
        top = max(scores[p] for p in living)
        leaders = [p for p in living if scores[p] == top]
        prey = [p for p in living if not wolves[p]]
        prey_top = max((scores[p] for p in prey), default=0.0)
        prey_leaders = [p for p in prey if scores[p] == prey_top]
        out: dict[int, dict[str, Any]] = {}
        for voter in living:
            if wolves[voter] and prey:
                pick = prey_leaders
            else:
                if not wolves[voter]:
                    checks = s.seer_results.get(voter)
                    found = [t for _r, t, res in checks if res == "werewolf" and s.alive[t]] if checks else None
                    if found:
                        out[voter] = {"vote": found[-1]}
                        continue
                pick = [p for p in leaders if p != voter] if voter in leaders else leaders
                if not pick:  # the voter alone leads: the most accused of the others
                    others = [p for p in living if p != voter]
                    if not others:
                        out[voter] = {"vote": None}
                        continue
                    best = max(scores[p] for p in others)
                    pick = [p for p in others if scores[p] == best]
            out[voter] = {"vote": pick[randrange(len(pick))]}
        return out

    def answer(self, turns: list[Turn], forced: dict[int, int | None] | None) -> dict[int, dict[str, Any]]:
        """Answers for a whole group of turns, drawn in seat order (as the rules' own ties are)."""
        if turns[0].kind is ActionKind.VOTE:
            return force_votes(self.state.alive, self.votes(), forced)
        return {turn.player: self.act(turn) for turn in sorted(turns, key=_seat)}

    def act(self, turn: Turn) -> dict[str, Any]:
        """One turn's answer: a target among the engine's legal ones (or none)."""
        kind = turn.kind
        key = TARGET_KEYS.get(kind)
        if key is None:  # a rollout has no debate: only actions that name a player are asked
            raise ValueError(f"rollouts answer only actions that name a player, not {kind.value!r}")
        legal = legal_targets(self.state, turn)
        if kind is ActionKind.HEAL:  # heal the pack's victim (the one legal target) half the time; once a game
            heal = self.rng.random() < 0.5
            return {key: legal[0] if heal and legal else None}
        if kind in (ActionKind.POISON, ActionKind.SHOOT):
            return {key: self.last_act(turn, legal)}
        if kind is ActionKind.UNMASK:  # someone not checked yet
            checked = {t for _r, t, _res in self.state.seer_results.get(turn.player, ())}
            legal = [p for p in legal if p not in checked]
        return {key: self.choice(legal)}

    def last_act(self, turn: Turn, legal: list[int]) -> int | None:
        """The witch's poison and the hunter's shot: a known werewolf, else the most accused legal target."""
        s = self.state
        found = [t for _r, t, res in s.seer_results.get(turn.player, ()) if res == "werewolf" and t in legal]
        if found:
            return found[-1]
        if not legal or (turn.kind is ActionKind.POISON and self.rng.random() < 0.7):
            return None  # the poison is kept most nights
        best = max(self.scores[p] for p in legal)
        return self.choice([p for p in legal if self.scores[p] == best])


def _seat(turn: Turn) -> int:
    return turn.player


def rollout(game: GameState, forced_votes: dict[int, int | None], scores: list[float] | None = None) -> str | None:
    """Play a forked game to the end from today's vote; return the winning team (None: undecided).
    ``scores``: the public accusation scores (``public_scores``), when the caller has them already.

    The game runs on the engine's own phase graph (``graph.advance``: one game loop): the fork is marked
    ``rollout``, so each night is followed by the vote, without a debate; ``RolloutPolicy`` answers every
    group of turns, ``forced_votes`` override the first vote."""
    policy = RolloutPolicy(game, scores)
    open_vote(game)
    return play_out(game, policy, policy.answer(game.pending, forced_votes) if game.pending else {})


def play_out(game: GameState, policy: RolloutPolicy, answers: dict[int, dict[str, Any]]) -> str | None:
    """``rollout`` from its first vote on: ``answers`` answer the pending group, the policy every later one."""
    while game.pending:
        game.group_actions = {turn.player: answers[turn.player] for turn in game.pending}
        game.pending.clear()
        advance(game)
        if game.winner is not None or game.truncated:
            break
        if game.pending:
            answers = policy.answer(game.pending, None)
    return game.winner.value if game.winner is not None else None
