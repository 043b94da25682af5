"""Names are data: a model name, seat label or player name with terminal escapes or bidi controls is shown
made visible (``[U+001B]``) in every summary and progress line, as ``play`` shows speech.

The runs talk HTTP to the project's fake server; nothing is mocked.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.console.progress import Bar

TITLE = "\x1b]0;pwned\x07"  # sets the terminal window's title
CLEAR = "\x1b[2J"  # clears the screen
RLO = "\u202e"  # shows what follows right to left
HOSTILE = f"m{TITLE}o{CLEAR}d{RLO}el"
SMALL = ["--players", "5", "--rounds", "1", "--debate-turns", "1", "--baseline-games", "0"]


def assert_inert(text: str) -> None:
    raw = [ch for ch in text if not ch.isprintable() and ch not in "\n\r"]
    assert not raw, sorted({f"U+{ord(ch):04X}" for ch in raw})


def test_the_run_summary_and_the_report_show_hostile_names_made_visible(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        lineup = tmp_path / "lineup.json"
        lineup.write_text(
            json.dumps(
                {"default": {"kind": "llm", "model": HOSTILE, "base_url": server.base_url, "name": f"seat{TITLE}{RLO}"}}
            )
        )
        assert main(["run", "--lineup", str(lineup), "--games", "1", "--out", str(out), *SMALL]) == 0
    printed = capsys.readouterr()
    assert_inert(printed.out)
    assert_inert(printed.err)
    assert "[U+001B]]0;pwned[U+0007]" in printed.out and "[U+202E]" in printed.out
    assert main(["report", str(out), "--baseline-games", "0"]) == 0
    printed = capsys.readouterr()
    assert_inert(printed.out)
    assert_inert(printed.err)


def test_a_progress_line_shows_a_hostile_label_made_visible() -> None:
    for tty in (True, False):
        stream = io.StringIO()
        with Bar(f"games {HOSTILE}", 2, stream=stream, tty=tty, width=200) as bar:
            bar.advance(1, model=HOSTILE)
        shown = stream.getvalue().replace("\r", "")
        assert_inert(shown)
        assert "[U+202E]" in shown
