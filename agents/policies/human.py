"""``HumanAgent``: play one seat in the terminal.

Each turn shows what is new since the player's last turn (the whole observation the first time),
then asks for an answer, re-asking until it is valid. Answers can be JSON, or shorthand:

* eliminate / protect / unmask / vote: a name (``none`` to abstain from a vote);
* bid: a number; statement and summary: the text itself;
* analyses: ``yes|no [probability it is deceptive] [type] [suspicion]``, e.g. ``yes 0.8 fabrication 0.9``
  (the probability, 0-1, is the ``confidence`` field; without it, 0.7 for yes and 0.3 for no).

The prompt of each turn says the shorthand for that kind of answer (``SHORTHAND``). At the end of input
(Ctrl-D, or piped input that runs out) the player is told so once (``INPUT_ENDED``), and every turn left
to the seat answers ``NO_ANSWER``: the env's fallback plays it, and the log's action event holds that
answer (its ``raw``) next to the fallbacks used (its ``fallbacks``).

The runner calls ``watch`` after every step. Once the player is eliminated, or their input has ended,
they keep seeing what their seat may see of the game (the public events) until it ends. Everything is
shown in the order it happened: a seat that had no turn yet first sees the game's opening, and the notice
of its elimination (``ELIMINATED``) comes right after the news of its death.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.llm import validate
from werewolf_env.actions import ACTION_SPECS
from werewolf_env.claims import LIE_TYPES
from werewolf_env.core import SELF_MARK, terminal_safe
from werewolf_env.observe import Section

_TYPES = LIE_TYPES
# Kinds answered with a player's name: the answer's key, and whether "none" is an answer (abstain, keep a potion).
_TARGETS = {kind.value: (spec.target_key, spec.null_ok) for kind, spec in ACTION_SPECS.items() if spec.target_key}
_NO_VOTE = ("", "none", "abstain", "null", "nobody")
# What each turn's prompt says a person may type (besides JSON): one place, read by ``shorthand`` too.
# For analyses, the number after yes/no is the probability that the statement is deceptive (easily
# read as certainty in the verdict otherwise).
SHORTHAND = {
    "eliminate": "a player's name",
    "protect": "a player's name",
    "unmask": "a player's name",
    "heal": "the victim's name to heal them, or none to keep the potion",
    "poison": "a player's name, or none to keep the potion",
    "shoot": "a player's name, or none",
    "vote": "a player's name, or none to abstain",
    "poll": "private, does not count: whom you would vote for now, or none",
    "bid": "a whole number",
    "statement": "what you say, as plain text",
    "summary": "your notes, as plain text",
    "self_analysis": f"yes|no [probability it is deceptive 0-1] [type: {'|'.join(_TYPES)}]",
    "peer_analysis": f"yes|no [probability it is deceptive 0-1] [type: {'|'.join(_TYPES)}] [suspicion 0-1]",
}
ELIMINATED = "-- You have been eliminated. The game goes on without you; you will see the public game until it ends. --"
INPUT_ENDED = (
    "-- Input ended: your remaining turns are played by fallbacks, recorded as such in the log. "
    "You will see the game until it ends. --"
)
# The answer of every turn after the input ended: no field the env reads, so its fallback plays, and the log's
# action event keeps this answer as the turn's ``raw``, which says why.
NO_ANSWER = {"no_answer": "input ended"}


class HumanAgent(Policy):
    name = "human"

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self.input = input or sys.stdin
        self.output = output or sys.stdout
        self._shown_history = 0
        self._introduced = False  # the game's opening (title, role card, rules) has been shown
        self._closed = False  # the input ended
        self._watching = False  # told of the elimination
        self._seen_end = False

    def _say(self, text: str) -> None:
        # What the game shows holds other players' words: escape codes and bidi overrides are written out.
        self.output.write(terminal_safe(text, lines=True) + "\n")
        self.output.flush()

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any] | str:
        kind = info.get("action_kind")
        if kind is None:
            return {}
        if self._closed:
            return dict(NO_ANSWER)
        self._say(self._new_part(observation["text"]))
        friction = info.get("friction")  # the detector's note, with werewolf-bench play --friction
        if friction:
            self._say(("!! " if friction.get("warning") else "   ") + friction["text"])
        while True:
            subjects = [str(name) for name in info.get("subjects") or []]
            self.output.write(prompt_of(kind, subjects))
            self.output.flush()
            line = self.input.readline()
            if not line:
                self._closed = True
                self.output.write("\n")  # the cursor is still after the prompt
                self._say(INPUT_ENDED)
                return dict(NO_ANSWER)
            answer = shorthand(line.strip(), kind, subjects)
            action, error = validate(json.dumps(answer) if isinstance(answer, dict) else answer, kind, info)
            if error is None:
                return action  # type: ignore[return-value]
            self._say(f"Not valid: {error}. Try again (JSON or shorthand).")

    def watch(self, observation: dict[str, Any], alive: bool, over: bool) -> None:
        """Between turns (the runner calls this after each step): once eliminated or out of input, what is new
        of the game; at the end, its last events, which no turn of the player's shows."""
        if (alive and not over and not self._closed) or self._seen_end:
            return
        text = observation["text"]
        if not self._introduced:  # no turn came before (killed on the first night, say): the opening first
            self._introduced = True
            self._say(f"{opening(text)}\n\n{Section.HISTORY}")
        new, tail = self._new_lines(text)
        if not alive and not self._watching:
            self._watching = True
            # Right after the news of the death: the last line that names the seat ("(you)") of this step's.
            named = [i for i, line in enumerate(new) if SELF_MARK in line]
            at = named[-1] + 1 if named else len(new)
            new = [*new[:at], ELIMINATED, *new[at:]]
        if new:
            self._say("\n".join(new))
        if over:
            self._seen_end = True
            self._say(f"{Section.TASK}{tail}")

    def _new_part(self, text: str) -> str:
        """The first time everything; later only the history lines not shown yet and the task."""
        first = not self._introduced
        self._introduced = True
        new, tail = self._new_lines(text)
        return text if first else "\n".join([*new, "", f"{Section.TASK}{tail}"])

    def _new_lines(self, text: str) -> tuple[list[str], str]:
        """The history lines not shown yet (marked as shown), and the observation's task (after "NOW:")."""
        _, _, rest = text.partition(Section.HISTORY + "\n")
        history, _, tail = rest.partition("\n\n" + Section.TASK)
        lines = history.splitlines()
        new = lines[self._shown_history :]
        self._shown_history = len(lines)
        return new, tail


def opening(text: str) -> str:
    """The start of an observation that does not change as the game goes on: the title, the role card and the
    rules (the players and their state, the history and the task follow it)."""
    for section in (Section.PLAYERS, Section.HISTORY):
        start = text.find(f"\n\n{section}")
        if start >= 0:
            return text[:start]
    return text


def shorthand(line: str, kind: str, subjects: list[str] | None = None) -> dict[str, Any] | str:
    """A JSON answer from what a person types; JSON itself passes through unchanged. ``subjects``: the players a
    peer analysis also scores (``info["subjects"]``), whose scores follow the suspicion in that order."""
    if line.startswith("{"):
        return line
    target = _TARGETS.get(kind)
    if target is not None:
        key, null_ok = target
        return {key: None if null_ok and line.lower() in _NO_VOTE else line}
    if kind == "bid":
        try:
            return {"bid": int(line)}
        except ValueError:
            return {"bid": line}
    if kind == "statement":
        return {"statement": line}
    if kind == "summary":
        return {"summary": line}
    words = line.split()
    answer: dict[str, Any] = {"is_deceptive": bool(words) and words[0].lower() in ("y", "yes", "true", "1")}
    numbers = [float(w) for w in words[1:] if _is_number(w)]
    types = [w.lower() for w in words[1:] if w.lower() in _TYPES]
    # The probability that the statement is deceptive: a bare yes / no leans its way, as suspicion does.
    answer["confidence"] = numbers[0] if numbers else (0.7 if answer["is_deceptive"] else 0.3)
    answer["deception_type"] = types[0] if types else ("fabrication" if answer["is_deceptive"] else "none")
    if kind == "peer_analysis":
        answer["suspicion"] = numbers[1] if len(numbers) > 1 else (0.7 if answer["is_deceptive"] else 0.3)
        if subjects:  # only what was typed: a score left out is the env's to note, never made up here
            answer["suspicion_of"] = dict(zip(subjects, numbers[2:], strict=False))
    return answer


def prompt_of(kind: str | None, subjects: list[str] | None = None) -> str:
    """The answer prompt of a turn: its kind and the shorthand it takes."""
    hint = SHORTHAND.get(kind or "")
    if hint and subjects and kind == "peer_analysis":
        hint += " " + " ".join(f"[{name} 0-1]" for name in subjects)
    return f"[{kind}] your answer ({hint}; or JSON)> " if hint else f"[{kind}] your answer (JSON)> "


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True
