"""Answers asked ahead: a seat's next turn asked inside the call it is making now, to save calls (issue 19).

Three turns follow a call of the same seat with nothing new in between, so they can be asked with it:

- the next **bid**, inside each peer analysis but the day's last (``LLMOptions.bid_in_analysis``): the
  living players bid right after the analyses, all at once;
- the **vote**, inside the analyses (peer and self) of the day's last statement, and inside that statement's
  own call when no self-analysis call comes between (``LLMOptions.vote_in_analysis``): the debate always
  runs its full number of turns, then everyone votes;
- the **self-analysis**, inside the statement (``LLMOptions.self_analysis_in_statement``): the speaker
  analyses its statement right after making it.

An answer asked ahead is used once, by the next turn of its kind, and only if it is valid for that turn
(validated again with that turn's info) and the seat has learnt nothing since but its own doings: the
same round, its history grown only by its own lines (in the second person, or its own statement), and
for a self-analysis the statement recorded exactly as the seat made it (a statement the env cut is
analysed in a call of its own). Otherwise the turn makes its own call, never a default. The turn's
outcome record says ``asked_in`` (the call it came from) and takes that call's outcome.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from werewolf_deception.agents.llm.prompts import history_of, living_others, max_bid_of
from werewolf_deception.agents.llm.schemas import ASK_KEYS
from werewolf_env.core import SELF_MARK, name_key

# The fields of each kind that can be asked ahead, as they appear in the asking call's answer.
AHEAD_FIELDS: dict[str, tuple[str, ...]] = {
    "bid": ("bid",),
    "vote": ("vote",),
    "self_analysis": ("reasoning", "is_deceptive", "confidence", "deception_type"),
}

_STATEMENT = re.compile(r'^The statement: [^\n]*?: "(.*)"$', re.MULTILINE)
# The role card's first line names the seat ("== Werewolf: you are Hiro (player_3) =="); greedy, so a name
# holding "(player_1)" itself is read whole.
_OWN_NAME = re.compile(r"^== Werewolf: you are (.+) \(player_\d+\) ==$", re.MULTILINE)


def statement_analysed(observation_text: str) -> str | None:
    """The text of the statement an analysis task asks about, as the env recorded it."""
    found = _STATEMENT.search(observation_text)
    return found.group(1) if found else None


def what_to_ask(kind: str, text: str, info: dict[str, Any], options: Any) -> dict[str, Any]:
    """The info keys (``ASK_KEYS``) that ask this call for later turns, given the seat's options. A statement
    asks the self-analysis only when the env says one follows (``self_analysis_next`` in its info)."""
    asks: dict[str, Any] = {}
    analysis = kind in ("peer_analysis", "self_analysis")
    # The env says whether this statement is the day's last (``debate_ends``); without it nothing is asked
    # that depends on it.
    last = (analysis or kind == "statement") and bool(info.get("debate_ends"))
    if kind == "peer_analysis" and options.bid_in_analysis and not last:  # no bid follows the last statement
        asks[ASK_KEYS["bid"]] = max_bid_of(text)
    self_next = kind == "statement" and bool(info.get("self_analysis_next"))
    if self_next and options.self_analysis_in_statement:
        asks[ASK_KEYS["self_analysis"]] = True
    # The vote is the seat's next turn after its analysis of the day's last statement, and after the last
    # statement itself unless a self-analysis call comes between.
    vote_next = analysis or (kind == "statement" and (not self_next or options.self_analysis_in_statement))
    if last and vote_next and options.vote_in_analysis:
        # a statement's own legal targets are the living others; an analysis has none, so the players line
        # says them (a name the line cannot carry makes the vote turn ask again, ``AskedAhead.usable``)
        targets = [str(n) for n in info.get("legal_targets") or []] if kind == "statement" else living_others(text)
        if targets:
            asks[ASK_KEYS["vote"]] = targets
    return asks


def own_label(observation_text: str) -> str | None:
    """How the seat's own name reads in its history ("Hiro (you)"), from the role card; None if not found."""
    found = _OWN_NAME.search(observation_text)
    return found.group(1) + SELF_MARK if found else None


def is_news(line: str, own: str | None) -> bool:
    """A history line the seat did not write itself: its own lines say "You ..." or start with its own
    label ("Hiro (you) takes the floor", 'Hiro (you) (bid 3): "..."'). Without a label, every line not
    in the second person is news."""
    if not line or line.startswith("You "):
        return False
    return own is None or not (line.startswith(own) and line[len(own) : len(own) + 1] in (" ", ":", ""))


@dataclass
class AskedAhead:
    """An answer for a later turn, with what the seat knew when it gave it."""

    kind: str  # the turn it is for
    asked_in: str  # the kind of the call that asked it
    round: Any
    history: str
    answer: dict[str, Any]
    outcome: str  # the asking call's outcome
    cached: bool
    statement: str | None = None  # a self-analysis: the statement it analyses
    targets: tuple[str, ...] | None = None  # a vote: the names it was offered

    def usable(self, text: str, info: dict[str, Any]) -> bool:
        """Whether the seat has learnt nothing since (see the module docstring), was offered the same choice
        as the turn offers, and the turn carries no note the earlier call did not see (``friction``)."""
        if self.round != info.get("round") or info.get("friction"):
            return False
        if self.targets is not None:
            offered = {name_key(n) for n in info.get("legal_targets") or []}
            if {name_key(n) for n in self.targets} != offered:
                return False
        now = history_of(text)
        if not now.startswith(self.history):
            return False
        own = own_label(text)
        if any(is_news(line, own) for line in now[len(self.history) :].split("\n")):
            return False  # a death, someone's statement, the night: asked again
        if self.statement is None:
            return True
        recorded = statement_analysed(text)  # compared as the env keeps text: runs of whitespace as one space
        return recorded is not None and recorded.split() == self.statement.split()
