"""Play in the browser (``werewolf-bench serve``, the ``web`` extra): hosted games with people in any seats and
agents in the rest, one secret link per person, the same engine games, logs and reports as ``run``.

The names other packages use, from the modules that define them; the app itself (``web.app.web_app``) is imported
where the web extra is asked for (``werewolf-bench serve``), so that this face needs no Starlette.
"""

from __future__ import annotations

from werewolf_deception.benchmarks.web.seat import TIMED_OUT, AnswerRefusedError, WebSeat
from werewolf_deception.benchmarks.web.table import DEFAULT_CONSENT, Host, StudySettings, Table, reveal_of

__all__ = [
    "DEFAULT_CONSENT",
    "TIMED_OUT",
    "AnswerRefusedError",
    "Host",
    "StudySettings",
    "Table",
    "WebSeat",
    "reveal_of",
]
