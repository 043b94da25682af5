"""``werewolf_deception.benchmarks.report.html_base``: every value is escaped unless it is ``trusted`` markup (the
one opt-out), in a cell and in a quoted attribute, and bidirectional controls come out visible."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from werewolf_deception.benchmarks.report.html_base import esc, join, name, render, trusted
from werewolf_env.core.inert_text import visible_controls

from .report_pages_runs import HOSTILE, parse


@given(st.one_of(st.text(), st.text(alphabet="<>&\"'=/ a\u202e\u2066\u2069"), st.sampled_from(HOSTILE)))
def test_any_value_is_text_in_every_slot(value: str) -> None:
    """Whatever a value holds, in a cell or an attribute, it parses back as that text and adds no tag."""
    page = render('<td title="{value}">{value}</td>', value=value) + join([value, esc(value)], " ")
    markup = parse(page)
    assert [tag for tag, _ in markup.tags] == ["td"]
    shown = visible_controls(value)
    assert markup.tags[0][1]["title"] == shown
    assert "".join(markup.text) == f"{shown}{shown} {shown}"


def test_only_trusted_markup_passes_unescaped() -> None:
    assert render("<b>{x}</b>", x="<i>") == "<b>&lt;i&gt;</b>"
    assert render("<b>{x}</b>", x=trusted("<i>")) == "<b><i></b>"
    assert render("{x:.2f} {y}", x=0.125, y=None) == "0.12 "
    assert join(["<", trusted("<br>")], "&") == "&lt;&amp;<br>"


def test_bidirectional_controls_are_shown_inert() -> None:
    assert esc("\u202eevil\u202c") == "[U+202E]evil[U+202C]"
    assert name("\u2067x\u2069") == "<bdi>[U+2067]x[U+2069]</bdi>"
    assert esc("Inés ﻣﺮﺣﺒﺎ") == "Inés ﻣﺮﺣﺒﺎ"  # right-to-left letters themselves stay as written
