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

Layout: what a statement proposes is read in ``proposals``; determinizations, forks and rollouts are
in ``rollouts``; this module turns them into the signs (``CounterfactualValuer``) and re-exports both.

Pure: no I/O; all randomness from the seed given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from werewolf_env.core import GameState
from werewolf_env.counterfactual.memo import WorldRollouts
from werewolf_env.counterfactual.rollouts import (
    RolloutPolicy,
    RolloutRandom,
    consistent,
    determinize,
    fork,
    public_scores,
    rollout,
)
from werewolf_env.record import Proposal, extract_proposals

__all__ = [
    "CounterfactualValuer", "Proposal", "ProposalValue", "RolloutPolicy", "RolloutRandom", "Sign", "consistent",
    "determinize", "extract_proposals", "fork", "public_scores", "rollout",
]  # fmt: skip

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
            **self.proposal.to_json(),
            "listener": self.listener,
            "bait": self.bait.to_json(),
            "switch": self.switch.to_json(),
            "edge": self.edge.to_json(),
            "plan": self.plan,
            "proposed": self.proposed,
            "promised": self.promised,
            "alternatives": {str(k): v for k, v in self.alternatives.items()},
            "rollouts": self.rollouts,
            "determinizations": self.determinizations,
            "oracle": self.oracle,
        }


class CounterfactualValuer:
    """Estimates bait / switch / edge by determinized rollouts (see the module docstring).

    The default budget (8 determinizations x 3 rollouts per action pair, plus one rollout per
    alternative for the speaker) keeps a whole 8-player game's statements under a minute on one core
    (``benchmarks/perf/counterfactual_speed.py``). ``memo`` (on by default) plays rollouts that can only end
    alike once (``rollout_memo``); the values are the same with it off, only slower.
    """

    def __init__(
        self, determinizations: int = 8, rollouts: int = 3, seed: int = 0, oracle: bool = False, memo: bool = True
    ) -> None:
        if determinizations < 1 or rollouts < 1:
            raise ValueError("determinizations and rollouts must be at least 1")
        self.determinizations = determinizations
        self.rollouts = rollouts
        self.seed = seed
        self.oracle = oracle
        self.memo = memo
        self.played = 0  # rollouts actually run (fewer than ``ProposalValue.rollouts`` with the memo)

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
        hat_i: int | None
        hat_j: int | None
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
            specs = state.config.ruleset.specs
            team_i = specs[roles[listener]].team.value
            team_j = specs[roles[j]].team.value

            world = WorldRollouts(state, roles, listener, j, public, memo=self.memo)
            play = world.play

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
            self.played += world.played
        return ProposalValue(
            proposal=proposal,
            listener=listener,
            bait=_sign(bait),
            switch=_sign(switch),
            edge=_sign(edge),
            plan=a_i,
            proposed=hat_i,
            promised=hat_j,
            alternatives=chosen,
            rollouts=count,
            determinizations=self.determinizations,
            oracle=self.oracle,
        )

    def statement_values(self, state: GameState, statement_id: int | None = None) -> list[ProposalValue]:
        """Every (first vote-related proposal, listener) pair of a statement, for every living listener."""
        st = state.statements[statement_id if statement_id is not None else -1]
        proposals = [
            p for p in extract_proposals(st.id, st.speaker, st.text, st.claims, state.names) if p.kind != "protect"
        ]
        if not proposals:
            return []
        out = []
        for listener in state.living():
            value = self.value(state, proposals[0], listener)
            if value is not None:
                out.append(value)
        return out
