"""Runs for the report-page tests (``tests/test_report_pages_*.py``): real heuristic games with hostile
and unusual names, policies named after the team they play, and logs whose header config and
statements were then edited the way a hostile log could be; and a reader of the pages' markup."""

from __future__ import annotations

import asyncio
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from werewolf_deception.agents import play_game
from werewolf_env import GameConfig

# Every payload sets window.__pwned if it ever runs: the browser test checks it stays undefined.
HOSTILE = [
    "<script>window.__pwned=1</script>",
    '"><img src=x onerror="window.__pwned=1">',
    "</style><script>window.__pwned=1</script>",
    "</title><svg onload=window.__pwned=1>",
    "' onmouseover='window.__pwned=1' x='",
    '<a href="javascript:window.__pwned=1">link</a>',
]
# Names that break matplotlib's mathtext ($x_$, $\nope$), markdown tables (a | b), and that reorder
# text (right-to-left override and isolate characters).
ODD_NAMES = ["$x_$", "$\\nope$", "a | b", "\u202eevil\u202c", "\u2067Iso\u2069 bel"]
NAMES = [HOSTILE[0], HOSTILE[1], HOSTILE[2], *ODD_NAMES[:5]]  # eight seats
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def shown_as(text: str) -> str:
    """How a page shows ``text``: each bidirectional control written out, e.g. ``[U+202E]``."""
    return BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


# The policy of the werewolf seats is named after their team: a page that shows policies shows roles.
LINEUP: dict[str, Any] = {
    "default": {"kind": "heuristic", "name": HOSTILE[3]},
    "teams": {"werewolf": {"kind": "heuristic", "name": "werewolf team bot"}},
}


def play_games(folder: Path, seeds: tuple[int, ...] = (1, 2)) -> list[Path]:
    """Heuristic games with ``NAMES`` and ``LINEUP``, logged in ``folder``."""
    config = GameConfig(names=tuple(NAMES))
    for seed in seeds:
        asyncio.run(play_game(config, LINEUP, seed, log_dir=folder))
    return sorted(folder.glob("*.ndjson"))


def make_hostile(log: Path) -> None:
    """Edit a finished log as a hostile one could be: markup in header config values (and an extra
    key) and in the first statements' text."""
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    header = records[0]
    header["config"]["analysis"] = HOSTILE[4]
    header["config"]["num_werewolves"] = HOSTILE[0]
    header["config"]["num_players"] = HOSTILE[2]
    header["config"][HOSTILE[1]] = HOSTILE[5]
    statements = [r for r in records if r.get("type") == "statement"]
    for record, payload in zip(statements, HOSTILE, strict=False):
        record["data"]["text"] = payload
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def hostile_run(folder: Path) -> Path:
    """A run folder whose logs carry every payload: names, policy names, statements, header config."""
    for log in play_games(folder / "games"):
        make_hostile(log)
    return folder


def report_hostile_run(run: Path) -> None:
    """The report of ``hostile_run``'s folder: refused as it is (its logs do not replay), then written with
    ``--allow-unverified``, every edited log listed as unverified and still shown (its payloads reach the pages)."""
    from werewolf_deception.benchmarks.cli.main import main

    args = ["report", str(run), "--baseline-games", "0", "--resamples", "20"]
    assert main(args) == 2 and not (run / "report.html").exists()
    assert main([*args, "--allow-unverified"]) == 0
    metrics = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    assert len(metrics["run"]["unverified_logs"]) == 2
    assert metrics["run"]["games"] == 2  # reported anyway, marked


# Every tag the pages are built of: anything else came from data.
TAGS = {"html", "head", "meta", "title", "link", "style", "body", "h1", "h2", "p", "code", "b", "i", "table",
        "caption", "tr", "th", "td", "div", "span", "a", "figure", "img", "figcaption", "label", "input",
        "script", "article", "ul", "li", "bdi", "h3", "nav", "section", "details", "summary", "dl", "dt",
        "dd"}  # fmt: skip


class Markup(HTMLParser):
    """The tags, attributes and script / style bodies of a page, as a browser's tokenizer reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.raw: dict[str, list[str]] = {"script": [], "style": []}
        self.text: list[str] = []
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._open = tag if tag in self.raw else None

    def handle_endtag(self, tag: str) -> None:
        self._open = None

    def handle_data(self, data: str) -> None:
        if self._open:
            self.raw[self._open].append(data)
        else:
            self.text.append(data)


def parse(html_text: str) -> Markup:
    parser = Markup()
    parser.feed(html_text)
    parser.close()
    return parser
