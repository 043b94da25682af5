"""What the claim reader's pattern modules (``claim_disputes``, ``claim_night``, ``claim_reads``) use of the reader
that calls them (``claim_reader.Reader``): its statement's context and where a match goes.

A protocol, so those modules depend on this small face and not on the reader, which imports them.
"""

from __future__ import annotations

from typing import Any, Protocol


class ReaderView(Protocol):
    speaker: int
    n_seats: int

    @property
    def previous(self) -> list[tuple[int, ...]]:
        """The names (groups) of the last sentence that named anyone."""
        ...

    @property
    def claimed(self) -> dict[int, str]:
        """Seat -> the role it claimed in public before this statement."""
        ...

    def add_predicate(
        self,
        s: str,
        at: int,
        subjects: list[int],
        pred: str,
        negated: int = 0,
        hedged: bool = False,
        fake: bool = False,
        check_context: bool = False,
        checked: set[int] | frozenset[int] = frozenset(),
    ) -> None:
        """Each of ``subjects`` said to be ``pred`` at ``at`` in sentence ``s``, hedged or negated by its clause."""
        ...

    def emit(self, claim: dict[str, Any]) -> None:
        """Keep ``claim`` (one about a seat outside the game is dropped)."""
        ...
