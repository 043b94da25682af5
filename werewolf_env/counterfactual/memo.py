"""Memoised rollouts: rollouts of one fork that can only end alike are played once.

``CounterfactualValuer`` plays, for every determinization and seed, the same fork (the statement's
state, the sampled roles, the seed, the listener's memories, the public scores) many times over with
different forced first votes: the speaker's alternatives, then the four action pairs. Those rollouts
are identical up to the first vote's tally, and from the exile on they depend on its result only:

* the policy draws its own vote for every voter, forced or not, before the forced votes replace theirs
  (``rollouts.force_votes``), so the random numbers used are the same whatever is forced;
* the exile is decided by the tally alone (a strict majority exiles, no tie-break draws), and what the
  rest of the game reads of the vote is who was exiled: the votes cast are only recorded
  (``vote_history`` and the events), which neither the rules nor ``RolloutPolicy`` read in a rollout.

So ``SharedFork`` keys each rollout's winner on the exiled seat (None: nobody), within one fork:
the key of the whole rollout is (the fork's inputs, which the instance holds fixed, and the exile).
A miss plays the rollout exactly as without the memo and checks that the engine exiled whom the memo
predicted, so a rule change that breaks the reasoning above fails loudly instead of silently.

Pure: no I/O; all randomness from the seed given.
"""

from __future__ import annotations

from typing import Any

from werewolf_env.core import GameState, Role
from werewolf_env.counterfactual.rollouts import RolloutPolicy, counts_as_forced, force_votes, fork, play_out, rollout
from werewolf_env.engine import count_choices, open_vote


class SharedFork:
    """The rollouts of one fork of ``state`` (``roles``, ``seed``, the ``listener``'s memories, the public
    ``scores``), each keyed on whom its first vote exiles. ``played`` counts the rollouts actually run."""

    def __init__(self, state: GameState, roles: list[Role], seed: int, listener: int, scores: list[float]) -> None:
        self.state = state
        self.roles = roles
        self.seed = seed
        self.listener = listener
        self.scores = scores
        game = fork(state, roles, seed, keep_memory_of=listener)
        open_vote(game)
        # The policy's own first votes, drawn as every rollout of this fork draws them.
        self.policy = RolloutPolicy(game, scores)
        self.planned = {voter: answer["vote"] for voter, answer in self.policy.votes().items()}
        self.alive = list(game.alive)  # before the vote: whose forced votes count (``force_votes``)
        self.tally = count_choices(self.planned.values())
        self.voters = len(self.planned)
        self.round = game.round
        # The fork, its first vote open and drawn: the first rollout played goes on from here instead of
        # forking and drawing again (later ones fork anew: the first has used this one up).
        self.fresh: GameState | None = game
        self.winners: dict[int | None, str | None] = {}
        self.played = 0

    def votes(self, forced: dict[int, int | None]) -> dict[int, dict[str, Any]]:
        """The first vote's answers, as ``RolloutPolicy.answer`` gives them with these votes forced."""
        planned = {voter: {"vote": target} for voter, target in self.planned.items()}
        return force_votes(self.alive, planned, forced)

    def exiled(self, forced: dict[int, int | None]) -> int | None:
        """Whom the first vote exiles with these votes forced (``rules_day.exile``: a strict majority of the
        votes cast, abstentions included), from the planned tally moved by the forced votes."""
        tally = dict(self.tally)
        for voter, target in forced.items():
            if counts_as_forced(self.alive, voter, target):
                planned = self.planned[voter]
                if planned is not None:
                    tally[planned] -= 1
                if target is not None:
                    tally[target] = tally.get(target, 0) + 1
        for target, count in tally.items():
            if count * 2 > self.voters:
                return target
        return None

    def winner(self, forced: dict[int, int | None]) -> str | None:
        """``rollout(fork(...), forced, scores)``'s result, played only when no earlier rollout of this fork
        exiled the same seat."""
        exiled = self.exiled(forced)
        if exiled in self.winners:
            return self.winners[exiled]
        game = self.fresh
        if game is not None:
            self.fresh = None
            result = play_out(game, self.policy, self.votes(forced))
        else:
            game = fork(self.state, self.roles, self.seed, keep_memory_of=self.listener)
            result = rollout(game, forced, self.scores)
        self.played += 1
        if not game.exiles or game.exiles[0] != (self.round, exiled):
            raise RuntimeError(f"the rollout memo predicted exile {exiled}, the engine did {game.exiles[:1]}")
        self.winners[exiled] = result
        return result


class WorldRollouts:
    """The rollouts of one determinization (``roles``) for a proposal from ``speaker`` to ``listener``:
    ``play(vote_i, vote_j, seed)`` is ``rollout(fork(state, roles, seed, listener), {listener: vote_i,
    speaker: vote_j}, scores)``, through one ``SharedFork`` per seed with ``memo`` on, played afresh
    every time with it off. ``played`` counts the rollouts actually run."""

    def __init__(
        self, state: GameState, roles: list[Role], listener: int, speaker: int, scores: list[float], memo: bool = True
    ) -> None:
        self.state = state
        self.roles = roles
        self.listener = listener
        self.speaker = speaker
        self.scores = scores
        self.memo = memo
        self.forks: dict[int, SharedFork] = {}  # seed -> its fork's rollouts (the seed is the rest of the key)
        self.unshared = 0

    @property
    def played(self) -> int:
        return self.unshared + sum(shared.played for shared in self.forks.values())

    def play(self, vote_i: int | None, vote_j: int | None, seed: int) -> str | None:
        forced = {self.listener: vote_i, self.speaker: vote_j}
        if not self.memo:
            self.unshared += 1
            return rollout(fork(self.state, self.roles, seed, keep_memory_of=self.listener), forced, self.scores)
        shared = self.forks.get(seed)
        if shared is None:
            shared = self.forks[seed] = SharedFork(self.state, self.roles, seed, self.listener, self.scores)
        return shared.winner(forced)
