"""Untrusted text (names, statements, model output) shown inert: what is displayed is what was written.

A name or a statement comes from an agent or a log and is untrusted. Two displays obey characters in it:

* every viewer obeys the bidirectional embedding, override and isolate characters (U+202A-U+202E,
  U+2066-U+2069), which make it show text in another order than it was written ("Trojan Source"):
  on pages and plots (``visible_controls``) each one is written out as ``[U+202E]``;
* a terminal also obeys escape sequences (colours, cursor moves, a cleared screen, a window title):
  ``terminal_safe`` writes out every character that is not printable (controls, format characters)
  the same way, keeping line breaks when asked (a transcript).

One notation, ``[U+XXXX]``, everywhere; the core holds it so that agents (the human seat's terminal)
and benchmarks (pages, plots, the CLI) share it.
"""

from __future__ import annotations

import re

BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def code_point(char: str) -> str:
    return f"[U+{ord(char):04X}]"


def visible_controls(text: str) -> str:
    """``text`` with each bidirectional control character written out as ``[U+XXXX]``."""
    return BIDI_CONTROLS.sub(lambda m: code_point(m.group()), text)


def terminal_safe(text: str, lines: bool = False) -> str:
    """``text`` with every non-printable character (but line breaks, with ``lines``) shown as ``[U+XXXX]``."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or (lines and ch == "\n") else code_point(ch) for ch in text)
