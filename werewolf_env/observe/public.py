"""The numeric observation's public blocks (roles claimed, accusations, last votes, clock), made when read.

Every seat sees the same public blocks; a turn adds its kind and legal targets (``TurnRow``). A policy that
reads only the text never reads them, so a row holds only what its blocks show, as of when it was made: the
number of statements and of vote records so far (both lists only grow) and the clock. Its blocks are built
on the first read of the vector, brought forward from the latest ones built (usually the row's own), or
from scratch for a row older than those (one read late, after newer ones): the same values either way
(``tests/test_lazy_observation.py`` reads rows late and out of order against a fresh renderer).
"""

from __future__ import annotations

import numpy as np

from werewolf_env.claims import ROLE_OF_RESULT, role_of_result
from werewolf_env.core import GameState, Role
from werewolf_env.observe.layout import layout_of

# (statements, vote records, round, debate turn): everything the public blocks show, as of one moment.
PublicKey = tuple[int, int, int, int]


class PublicBlocks:
    """One game's public blocks: the latest built (``base``) and what they show (``key``)."""

    __slots__ = ("_base", "_counts", "_key", "layout", "state")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.layout = layout = layout_of(state.config.ruleset)
        self._base = np.zeros(layout.size - layout.public_start, dtype=np.float32)  # kind and legal left at 0
        self._counts = [0] * state.num_players  # public accusations received, as of ``_key``
        self._key: PublicKey | None = None  # nothing built yet

    def key(self) -> PublicKey:
        """What the public blocks show now."""
        state = self.state
        return (len(state.statements), len(state.vote_history), state.round, state.debate_turn)

    def base(self, key: PublicKey) -> np.ndarray:
        """The public blocks as of ``key`` (kind and legal at 0). The array is shared: callers copy it."""
        if key == self._key:
            return self._base
        done = self._key
        if done is None or key[0] < done[0] or key[1] < done[1]:  # before the latest built: from scratch
            size = self.layout.size - self.layout.public_start
            base, counts = np.zeros(size, dtype=np.float32), [0] * self.state.num_players
            self._bring(base, counts, (0, 0, -1, -1), key)
            if done is not None:
                return base  # an old row read late: the latest blocks stay as they are
        else:
            # A new array, never written to in place: rows made earlier hold the old one.
            base, counts = self._base.copy(), self._counts
            self._bring(base, counts, done, key)
        self._base, self._counts, self._key = base, counts, key
        return base

    def _bring(self, base: np.ndarray, counts: list[int], done: PublicKey, key: PublicKey) -> None:
        """Write into ``base`` what changed from ``done`` to ``key`` (``counts``: the accusations as of ``done``)."""
        state = self.state
        if key[0] != done[0]:
            self._add_claims(base, counts, done[0], key[0])
        if key[1] != done[1]:
            self._write_votes(base, key[1])
        if key[2:] != done[2:]:
            base[self.layout.round_start] = min(key[2] / state.config.max_rounds, 1.0)
            base[self.layout.debate_turn_start] = key[3] / state.config.max_debate_turns

    def _add_claims(self, base: np.ndarray, counts: list[int], start: int, stop: int) -> None:
        """Roles publicly claimed per seat, and public accusations received (normalised), by statements
        ``start`` to ``stop``."""
        accused = False
        ruleset = self.state.config.ruleset
        seated = self.state.config.roles_in_game()
        index, layout = ruleset.index, self.layout
        claimed_start, slots = layout.claimed_start, layout.num_roles
        for st in self.state.statements[start:stop]:
            for claim in st.claims:
                if claim["negated"]:
                    continue
                subject = claim["player"]
                kind = claim["kind"]
                if kind == "role" and subject == st.speaker:
                    base[claimed_start + subject * slots + index[Role(claim["role"])]] = 1.0
                elif (kind == "team" or kind == "seer_result") and claim["team"] == "werewolf":
                    counts[subject] += 1
                    accused = True
                if kind in ROLE_OF_RESULT:  # a night result claims the role of the game that acts so
                    acting = role_of_result(kind, ruleset, seated)
                    if acting is not None:
                        base[claimed_start + st.speaker * slots + index[Role(acting)]] = 1.0
        if accused:
            top = max(counts)
            start = layout.accused_start
            base[start : start + len(counts)] = [c / top for c in counts]

    def _write_votes(self, base: np.ndarray, records: int) -> None:
        """Share of the votes each seat received in the latest of the first ``records`` vote records."""
        if not records:
            return
        last = self.state.vote_history[records - 1]
        voters = max(len(last["votes"]), 1)
        block = [0.0] * self.state.num_players
        for target, count in last["tally"].items():
            block[int(target)] = count / voters
        start = self.layout.votes_start
        base[start : start + len(block)] = block


class TurnRow:
    """A turn's public blocks of the vector with its kind and legal targets, made on first read."""

    __slots__ = ("blocks", "key", "kind", "legal", "row")

    def __init__(self, blocks: PublicBlocks, key: PublicKey, kind: int, legal: tuple[int, ...]) -> None:
        self.blocks, self.key, self.kind, self.legal = blocks, key, kind, legal
        self.row: np.ndarray | None = None

    def made(self) -> np.ndarray:
        if self.row is None:
            row = self.blocks.base(self.key).copy()
            layout = self.blocks.layout
            row[layout.kind_start + self.kind] = 1.0
            for p in self.legal:
                row[layout.legal_start + p] = 1.0
            self.row = row
        return self.row
