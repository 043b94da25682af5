"""Counterfactual deception signs (CTRL-D's bait, switch and edge) for Werewolf proposals.

A statement may *propose* something to its listeners: "vote Bob" / "exile Bob" (or an accusation,
which proposes voting the accused), "don't vote Bob" (or vouching for Bob), "protect Bob". For a
proposal from speaker j to listener i, with â_i the proposed action for i and â_j the action j
promises (j votes as it proposes), and a_i i's own plan before hearing it, a_j j's best alternative:

    Bait   U1 = u_i(â_i, â_j) - u_i(a_i, â_j)    how much following the proposal gains i
    Switch U2 = u_i(â_i, â_j) - u_i(â_i, a_j)    how much i loses if j breaks the promise
    Edge   U3 = u_j(â_i, a_j) - u_j(a_i, a_j)    how much j gains from i following, if j does not

``u_p(a_i, a_j)`` is the probability that p's team wins when i and j cast those votes in the coming
vote and play continues. It is estimated **from the listener's information only**: role assignments
are sampled uniformly among those consistent with what i knows (``determinize``; never the hidden
truth), and in each the rest of the game is rolled out on the rules engine with simple heuristic
policies that read only public information and what their sampled role would know (``rollout``:
no text, no analyses; the rest of today's debate and later debates are skipped, because the
rollout policies do not read statements). Rollouts of the four action pairs share their random
numbers, so the differences are paired; every value carries its number of samples and its standard
error. ``oracle=True`` uses the true roles instead of determinizations: for analysis only, never as
a detector input, and labelled as such.

Pure: no I/O; all randomness from the seed given.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .graph import advance
from .names import name_key
from .roles import ActionKind, Role
from .rules import open_vote
from .state import GameState, Turn
from .visibility import knowledge_masks, role_bit

# ---------------------------------------------------------------------- proposals


@dataclass(frozen=True)
class Proposal:
    """What a statement proposes to its listeners: ``kind`` is vote, dont_vote or protect."""

    statement_id: int
    speaker: int
    kind: str
    target: int
    source: str  # "text" (an explicit request) or "claim" (an accusation or a vouch)

    def to_json(self) -> dict[str, Any]:
        return {"statement_id": self.statement_id, "speaker": self.speaker, "kind": self.kind,
                "target": self.target, "source": self.source}  # fmt: skip


_VERBS_VOTE = r"(?:vote(?:\s+out|\s+for|\s+against)?|exile|eliminate|lynch|hang|kick\s+out|get\s+rid\s+of)"
_NEGATION = r"(?:don'?t|do\s+not|never|stop|shouldn'?t|should\s+not|let'?s\s+not)"


def _name_pattern(names: tuple[str, ...] | list[str]) -> str:
    return "(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + ")"


def extract_proposals(
    statement_id: int, speaker: int, text: str, claims: list[dict[str, Any]], names: tuple[str, ...] | list[str]
) -> list[Proposal]:
    """Explicit requests in the text first ("vote Bob", "don't vote Bob", "protect Bob"), then the
    proposals implied by claims (an accusation proposes a vote, a vouch proposes not voting)."""
    out: list[Proposal] = []
    seen: set[tuple[str, int]] = set()
    # Names compared as everywhere else (``names.name_key``): "Inés" written decomposed is Inés.
    keys = [name_key(n) for n in names]
    index = {key: i for i, key in enumerate(keys)}
    who = _name_pattern(keys)
    lowered = name_key(text)

    def add(kind: str, target: int, source: str) -> None:
        # "Don't vote me" is a proposal (self-defence); "vote me" is not one anybody makes.
        if (target != speaker or kind == "dont_vote") and (kind, target) not in seen:
            seen.add((kind, target))
            out.append(Proposal(statement_id, speaker, kind, target, source))

    for m in re.finditer(rf"\b{_NEGATION}\s+{_VERBS_VOTE}\s+{who}\b", lowered):
        add("dont_vote", index[m.group(1)], "text")
    for m in re.finditer(rf"(?<!not )(?<!n't )\b{_VERBS_VOTE}\s+{who}\b", lowered):
        target = index[m.group(1)]
        if ("dont_vote", target) not in seen:
            add("vote", target, "text")
    for m in re.finditer(rf"\b(?:protect|save|guard)\s+{who}\b", lowered):
        add("protect", index[m.group(1)], "text")
    for c in claims:
        target = c.get("player")
        if not isinstance(target, int) or c.get("negated"):
            continue
        if c.get("kind") in ("team", "seer_result") and c.get("team") == "werewolf":
            add("vote", target, "claim")
        elif c.get("kind") in ("team", "seer_result") and c.get("team") == "village":
            add("dont_vote", target, "claim")
        elif c.get("kind") == "role" and c.get("role") == "werewolf":
            add("vote", target, "claim")
    return out


# ---------------------------------------------------------------------- determinizations


def determinize(state: GameState, listener: int, rng: np.random.Generator, tries: int = 500) -> list[Role]:
    """One role assignment drawn uniformly from those consistent with what ``listener`` knows.

    Seats the listener knows exactly keep their role; the remaining roles are dealt to the
    remaining seats uniformly at random, and a deal that contradicts the listener's knowledge
    (a night victim dealt werewolf, a checked seat dealt the wrong team, ...) is redrawn.
    """
    masks = knowledge_masks(state, listener)
    counts = state.config.seat_counts()
    bits = {role: role_bit(role) for role in Role}
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
    bits = {role: role_bit(role) for role in Role}
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
        rng=RolloutRandom(seed),
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
    if keep_memory_of is not None and roles[keep_memory_of] is Role.SEER and own_checks:
        copy.seer_results[keep_memory_of] = list(own_checks)
    if keep_memory_of is not None and roles[keep_memory_of] is Role.DOCTOR:
        copy.last_protected[keep_memory_of] = own_guard
    for seat, role in enumerate(roles):  # a witch's potions: her own as she knows them, anyone else's unknown: full
        if ActionKind.HEAL in role.spec.night_kinds:
            known = state.potions.get(seat) if seat == keep_memory_of and state.roles[seat] is role else None
            copy.potions[seat] = set(known) if known is not None else {"heal", "poison"}
    return copy


class RolloutRandom(random.Random):
    """The engine's tie-breaks in rollouts (``integers`` and ``random``, as the rules use them), on
    Python's generator: seeding numpy's costs more than a whole rollout."""

    def integers(self, n: int) -> int:
        return self.randrange(n)


class RolloutPolicy:
    """Simple, fast play on a forked state: werewolves kill a random non-werewolf, the doctor guards a
    random living player, the seer checks someone unchecked; votes go to the seer's found werewolf,
    else the most publicly accused (werewolves: the most accused non-werewolf), ties at random."""

    def __init__(self, state: GameState, scores: list[float] | None = None) -> None:
        self.state = state
        self.rng: RolloutRandom = state.rng  # type: ignore[assignment]
        self.scores = scores if scores is not None else public_scores(state)

    def choice(self, options: list[int]) -> int | None:
        return options[self.rng.randrange(len(options))] if options else None

    def votes(self) -> dict[int, dict[str, Any]]:
        """Every living player's vote."""
        s = self.state
        living = s.living()
        roles = s.roles
        scores = self.scores
        wolf = Role.WEREWOLF
        prey = [p for p in living if roles[p] is not wolf]
        out: dict[int, dict[str, Any]] = {}
        for voter in living:
            if roles[voter] is wolf:
                options = prey or [p for p in living if p != voter]
            else:
                found = [t for _r, t, res in s.seer_results.get(voter, ()) if res == "werewolf" and s.alive[t]]
                if found:
                    out[voter] = {"vote": found[-1]}
                    continue
                options = [p for p in living if p != voter]
            if not options:
                out[voter] = {"vote": None}
                continue
            best = max(scores[p] for p in options)
            out[voter] = {"vote": self.choice([p for p in options if scores[p] == best])}
        return out

    def answer(self, turns: list[Turn], forced: dict[int, int | None] | None) -> dict[int, dict[str, Any]]:
        """Answers for a whole group of turns (draws in seat order, as the rules' own ties do)."""
        kind = turns[0].kind
        if kind is ActionKind.VOTE:
            votes = self.votes()
            for voter, target in (forced or {}).items():
                s = self.state
                if s.alive[voter] and (target is None or (target != voter and s.alive[target])):
                    votes[voter] = {"vote": target}
            return votes
        if kind in (ActionKind.ELIMINATE, ActionKind.PROTECT, ActionKind.UNMASK):
            return self.night()
        return {turn.player: self.last_act(turn) for turn in turns}

    def last_act(self, turn: Turn) -> dict[str, Any]:
        """The witch's potions and the hunter's shot: the most accused player (a known werewolf first)."""
        s = self.state
        if turn.kind is ActionKind.HEAL:  # heal the pack's victim half the time (the potion is once a game)
            return {"target": s.night.target if self.rng.random() < 0.5 else None}
        options = [p for p in s.living() if p != turn.player]
        found = [t for _r, t, res in s.seer_results.get(turn.player, ()) if res == "werewolf" and s.alive[t]]
        if found:
            return {"target": found[-1]}
        if not options or (turn.kind is ActionKind.POISON and self.rng.random() < 0.7):
            return {"target": None}  # the poison is kept most nights
        best = max(self.scores[p] for p in options)
        return {"target": self.choice([p for p in options if self.scores[p] == best])}

    def night(self) -> dict[int, dict[str, Any]]:
        s = self.state
        living = s.living()
        answers: dict[int, dict[str, Any]] = {}
        prey = [p for p in living if s.roles[p] is not Role.WEREWOLF]
        for p in living:
            role = s.roles[p]
            if role is Role.WEREWOLF:
                answers[p] = {"target": self.choice(prey)}
            elif role is Role.DOCTOR:
                options = living
                if not s.config.doctor_repeat_protect and s.last_protected.get(p) is not None:
                    options = [q for q in living if q != s.last_protected[p]] or living
                answers[p] = {"target": self.choice(options)}
            elif role is Role.SEER:
                checked = {t for _r, t, _res in s.seer_results.get(p, ())}
                answers[p] = {"target": self.choice([q for q in living if q != p and q not in checked])}
        return answers


def rollout(game: GameState, forced_votes: dict[int, int | None], scores: list[float] | None = None) -> str | None:
    """Play a forked game to the end from today's vote; return the winning team (None: undecided).
    ``scores``: the public accusation scores (``public_scores``), when the caller has them already.

    The game runs on the engine's own phase graph (``graph.advance``: one game loop): the fork is marked
    ``rollout``, so each night is followed by the vote, without a debate; ``RolloutPolicy`` answers every
    group of turns, ``forced_votes`` override the first vote."""
    policy = RolloutPolicy(game, scores)
    forced: dict[int, int | None] | None = forced_votes
    open_vote(game)
    while game.winner is None and not game.truncated and game.pending:
        answers = policy.answer(game.pending, forced)
        forced = None
        game.group_actions = {turn.player: answers[turn.player] for turn in game.pending}
        game.pending.clear()
        advance(game)
    return game.winner.value if game.winner is not None else None


# ---------------------------------------------------------------------- values


@dataclass(frozen=True)
class Sign:
    """One counterfactual value: mean, standard error and the number of paired samples."""

    value: float
    se: float
    n: int

    def to_json(self) -> dict[str, Any]:
        return {"value": round(self.value, 4), "se": round(self.se, 4), "n": self.n}


def _sign(samples: list[float]) -> Sign:
    n = len(samples)
    if n == 0:
        return Sign(0.0, 0.0, 0)
    mean = sum(samples) / n
    var = sum((x - mean) ** 2 for x in samples) / (n - 1) if n > 1 else 0.0
    return Sign(mean, math.sqrt(var / n), n)


@dataclass
class ProposalValue:
    """Bait, switch and edge of one proposal to one listener, with what they were computed from."""

    proposal: Proposal
    listener: int
    bait: Sign
    switch: Sign
    edge: Sign
    plan: int | None  # a_i
    proposed: int | None  # â_i
    promised: int | None  # â_j
    alternatives: dict[int | None, int] = field(default_factory=dict)  # a_j chosen per determinization: count
    rollouts: int = 0
    determinizations: int = 0
    oracle: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            **self.proposal.to_json(), "listener": self.listener, "bait": self.bait.to_json(),
            "switch": self.switch.to_json(), "edge": self.edge.to_json(), "plan": self.plan,
            "proposed": self.proposed, "promised": self.promised,
            "alternatives": {str(k): v for k, v in self.alternatives.items()},
            "rollouts": self.rollouts, "determinizations": self.determinizations, "oracle": self.oracle,
        }  # fmt: skip


class CounterfactualValuer:
    """Estimates bait / switch / edge by determinized rollouts (see the module docstring).

    The default budget (8 determinizations x 3 rollouts per action pair, plus one rollout per
    alternative for the speaker) keeps a whole 8-player game's statements under a minute on one core
    (``benchmarks/counterfactual_speed.py``).
    """

    def __init__(self, determinizations: int = 8, rollouts: int = 3, seed: int = 0, oracle: bool = False) -> None:
        if determinizations < 1 or rollouts < 1:
            raise ValueError("determinizations and rollouts must be at least 1")
        self.determinizations = determinizations
        self.rollouts = rollouts
        self.seed = seed
        self.oracle = oracle

    def plan(self, state: GameState, listener: int, rng: np.random.Generator, exclude: int | None = None) -> int | None:
        """a_i: the listener's vote before the proposal: its own top suspect (its suspicion row),
        ties broken by public accusations before this statement, then at random."""
        living = [p for p in state.living() if p not in (listener, exclude)]
        if not living:
            return None
        scores = public_scores(state, skip_last=True)  # without the statement being judged
        row = state.suspicion[listener]
        key = [(round(float(row[p]), 9), scores[p]) for p in living]
        best = max(key)
        leaders = [p for p, k in zip(living, key, strict=True) if k == best]
        return leaders[int(rng.integers(len(leaders)))]

    def value(self, state: GameState, proposal: Proposal, listener: int) -> ProposalValue | None:
        """The signs of ``proposal`` for ``listener`` at this moment (the statement just made)."""
        j = proposal.speaker
        if proposal.kind == "protect" or listener == j or not state.alive[listener] or not state.alive[j]:
            return None
        rng = np.random.default_rng([self.seed, state.seed, proposal.statement_id, listener])
        a_i = self.plan(state, listener, rng)
        living = state.living()
        if proposal.kind == "vote":
            if proposal.target == listener or not state.alive[proposal.target]:
                return None
            hat_i = hat_j = proposal.target
        else:  # dont_vote: follow your plan unless it names the target; the speaker avoids the target too
            hat_i = a_i if a_i != proposal.target else self.plan(state, listener, rng, exclude=proposal.target)
            scores = public_scores(state)
            options = [p for p in living if p not in (j, proposal.target)]
            hat_j = max(options, key=lambda p: (scores[p], -p)) if options else None
        public = public_scores(state)
        bait: list[float] = []
        switch: list[float] = []
        edge: list[float] = []
        chosen: dict[int | None, int] = {}
        count = 0
        for _ in range(self.determinizations):
            roles = list(state.roles) if self.oracle else determinize(state, listener, rng)
            seeds = [int(x) for x in rng.integers(2**31 - 1, size=self.rollouts)]
            team_i = roles[listener].team.value
            team_j = roles[j].team.value

            def play(vote_i: int | None, vote_j: int | None, seed: int, roles: list[Role] = roles) -> str | None:
                game = fork(state, roles, seed, keep_memory_of=listener)
                return rollout(game, {listener: vote_i, j: vote_j}, public)

            # a_j: the speaker's best other vote in this world (one rollout each, common random numbers).
            options = [p for p in living if p not in (j, hat_j)]
            best, best_value = None, -1.0
            for v in options:
                won = play(a_i, v, seeds[0]) == team_j
                count += 1
                if won > best_value:
                    best, best_value = v, float(won)
            a_j = best
            chosen[a_j] = chosen.get(a_j, 0) + 1
            for seed in seeds:
                w1 = play(hat_i, hat_j, seed)
                w2 = play(a_i, hat_j, seed)
                w3 = play(hat_i, a_j, seed)
                w4 = play(a_i, a_j, seed)
                count += 4
                bait.append(float(w1 == team_i) - float(w2 == team_i))
                switch.append(float(w1 == team_i) - float(w3 == team_i))
                edge.append(float(w3 == team_j) - float(w4 == team_j))
        return ProposalValue(
            proposal=proposal, listener=listener, bait=_sign(bait), switch=_sign(switch), edge=_sign(edge),
            plan=a_i, proposed=hat_i, promised=hat_j, alternatives=chosen, rollouts=count,
            determinizations=self.determinizations, oracle=self.oracle,
        )  # fmt: skip

    def statement_values(self, state: GameState, statement_id: int | None = None) -> list[ProposalValue]:
        """Every (first vote-related proposal, listener) pair of a statement, for every living listener."""
        st = state.statements[statement_id if statement_id is not None else -1]
        proposals = [p for p in extract_proposals(st.id, st.speaker, st.text, st.claims, state.names)
                     if p.kind != "protect"]  # fmt: skip
        if not proposals:
            return []
        out = []
        for listener in state.living():
            value = self.value(state, proposals[0], listener)
            if value is not None:
                out.append(value)
        return out
