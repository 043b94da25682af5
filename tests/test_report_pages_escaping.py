"""Escaping is the default on the report pages: a log's header config, player names, statements and
policy (model) names add no markup to ``report.html`` or a viewer page; names that break matplotlib's
mathtext or reorder text are drawn and shown as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from .report_pages_runs import BIDI, HOSTILE, NAMES, TAGS, hostile_run, parse, report_hostile_run, shown_as


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = hostile_run(tmp_path_factory.mktemp("hostile"))
    report_hostile_run(run)
    return run


def test_hostile_values_add_no_markup(run_dir: Path) -> None:
    pages = [run_dir / "report.html", *sorted((run_dir / "viewer").glob("*.html"))]
    for path in pages:
        markup = parse(path.read_text(encoding="utf-8"))
        tags = [tag for tag, _ in markup.tags]
        assert set(tags) <= TAGS, (path.name, set(tags) - TAGS)
        assert tags.count("style") == 1 and tags.count("title") == 1 and tags.count("body") == 1
        assert all(not name.startswith("on") for _, attrs in markup.tags for name in attrs), path.name
        for tag, attrs in markup.tags:
            if tag == "img":
                assert (attrs.get("src") or "").startswith("data:image/png;base64,"), path.name
            if tag == "a":
                href = attrs.get("href") or ""
                same_page = href.startswith("#") and href[1:].replace("-", "").isalpha()  # the contents' links
                assert same_page or href == "../report.html" or (href.startswith("viewer/") and ":" not in href), href
        scripts = markup.raw["script"]
        assert scripts == ([] if path.name == "report.html" else [scripts[0]]), path.name
        assert all("__pwned" not in body for body in scripts + markup.raw["style"]), path.name
        text = "".join(markup.text)
        assert not BIDI.search(text), path.name
        if path.name == "report.html":  # the header's config, shown as text
            assert HOSTILE[4] in text and HOSTILE[2] in text and HOSTILE[0] in text
        else:
            assert all(shown_as(name) in text for name in NAMES), path.name
    links = [a["href"] for tag, a in parse((run_dir / "report.html").read_text()).tags if tag == "a"]
    game_links = [href for href in links if not href.startswith("#")]
    assert sorted(game_links) == sorted(f"viewer/{p.name}" for p in pages[1:])  # each link opens its page


def test_odd_names_are_plotted(run_dir: Path) -> None:
    """Names with mathtext ($x_$, $\\nope$), pipes and bidirectional controls: every plot is written."""
    assert len(list((run_dir / "plots").glob("*.png"))) >= 5
    assert len(list((run_dir / "plots" / "games").glob("*.png"))) == 2 * len(list((run_dir / "games").glob("*")))
