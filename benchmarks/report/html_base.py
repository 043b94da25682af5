# ruff: noqa: E501  (HTML templates read better as one line per element than split mid-tag)
"""What the offline HTML pages share: escaping, the stylesheet, the page frame, inlined images, a figure.

``werewolf_deception.benchmarks.report.html_report`` writes the run report, ``werewolf_deception.benchmarks.report.html_viewer`` one page per game.

Escaping is the default: every page is built with ``render`` (a ``str.format`` template whose every
value is escaped unless it is already ``Html``) and ``join``, so a value from a log (a config field, a
name, a statement, a model name) cannot add markup. The one opt-out is ``trusted`` (grep for it): markup
written in this code, never data. Escaped text also shows bidirectional control characters as
``[U+202E]`` (``werewolf_env.core.inert_text``), so no name can reorder what is around it.
"""

from __future__ import annotations

import base64
import html
import string
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from werewolf_env.core import visible_controls

if TYPE_CHECKING:
    from typing_extensions import LiteralString


class Html(str):
    """Markup that may be inserted as it is: made by ``render``, ``join``, ``esc`` or ``trusted`` only."""

    __slots__ = ()


def trusted(markup: LiteralString) -> Html:
    """The opt-out of escaping: markup written in this code (a constant), never a value from data."""
    return Html(markup)


def esc(value: Any) -> Html:
    """``value`` as inert HTML text (also safe in a quoted attribute); ``None`` is empty, ``Html`` stays."""
    if isinstance(value, Html):
        return value
    return Html(visible_controls(html.escape("" if value is None else str(value), quote=True)))


class _EscapingFormatter(string.Formatter):
    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, Html):
            return value
        if value is None and not format_spec:
            return ""
        return esc(format(value, format_spec))


_FORMATTER = _EscapingFormatter()


def render(template: LiteralString, /, **values: Any) -> Html:
    """``template.format(**values)`` with every value escaped unless it is ``Html``."""
    return Html(_FORMATTER.vformat(template, (), values))


def join(parts: Iterable[Any], separator: str = "") -> Html:
    """The parts (each escaped unless ``Html``) joined by ``separator`` (escaped too)."""
    return Html(esc(separator).join(esc(part) for part in parts))


def name(text: Any) -> Html:
    """A name (player, policy, game): isolated with ``<bdi>`` so right-to-left text cannot reorder its neighbours."""
    return render("<bdi>{text}</bdi>", text=text)


CSS = trusted("""
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;
color:#1d1d1f;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ddd}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.86rem}td,th{border:1px solid #ddd;padding:.25rem .45rem;
vertical-align:top}th{background:#f5f5f7;text-align:left}td.num{text-align:right;white-space:nowrap}
.ci{color:#666;font-size:.78rem}.base{color:#5f5f5f;font-size:.75rem;display:block}
.hidden-info{background:#fff4e5;border-left:3px solid #f0a030}.hidden-info::before{content:"hidden \\1F512  ";
font-size:.7rem;color:#a06000;font-weight:600}td.hidden-info::before,th.hidden-info::before,span.hidden-info::before{content:""}
body.hide-hidden .hidden-info{display:none}
.statement{border:1px solid #ddd;border-radius:6px;padding:.5rem .8rem;margin:.7rem 0}
.statement .text{font-size:1.02rem;margin:.3rem 0}.lie{color:#b00020;font-weight:600}.truthful{color:#186a3b}
.wide{overflow-x:auto}.event{margin:.2rem 0;font-size:.9rem}.phase{margin-top:1.4rem}.muted{color:#666}
.badge{display:inline-block;border-radius:3px;padding:0 .35rem;font-size:.75rem;background:#eee;margin-left:.3rem}
.cov{color:#555;font-size:.75rem;display:block}.nvp{color:#b00020;font-weight:600}
.warn{background:#fdecea;border-left:3px solid #b00020;padding:.3rem .6rem}tr.kind th{font-weight:400;padding-left:1.2rem}
img{max-width:100%;border:1px solid #eee;margin:.4rem 0}.plots{display:grid;grid-template-columns:repeat(auto-fill,
minmax(30rem,1fr));gap:1rem}
table{max-width:100%}caption{text-align:left;color:#444}figcaption{font-size:.85rem;color:#333}
.lead{margin:.3rem 0}.toc{font-size:.85rem;margin:.3rem 0}.toc a{margin-right:.6rem;color:#1a5fb4}
.status{border-left:4px solid #186a3b;background:#eef7f0;padding:.3rem .6rem;margin:.4rem 0;font-size:.9rem}
.status.caution{border-color:#a06000;background:#fff4e5}.status.invalid{border-color:#b00020;background:#fdecea}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(17rem,1fr));gap:.6rem;margin:.5rem 0}
.card{border:1px solid #ccc;border-radius:6px;padding:.3rem .6rem;font-size:.8rem;line-height:1.3}
.card h3{margin:.1rem 0 .2rem;font-size:.95rem}.card dl{margin:0}.card dt{font-weight:600;margin-top:.25rem}
.card dd{margin:0}.card .value{font-size:.95rem;font-weight:600}.card .base{display:inline;margin-left:.4rem}
.card .says{color:#333;display:block}
details.section{border-top:1px solid #ddd;margin:.2rem 0}details.section>summary{cursor:pointer;padding:.3rem 0}
details.section>summary h2{display:inline;border:0;margin:0;font-size:1.15rem}
.key-plots figure{margin:0}
@media print{body{max-width:none;margin:0;font-size:10pt}.toc{display:none}
details.section::details-content{content-visibility:visible;display:contents}
.card,figure,tr{break-inside:avoid}a{color:inherit;text-decoration:none}.plots{display:block}}
""")


def page(title: str, body: Html) -> str:
    return render(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>'
        # An inline icon: without one the browser asks for /favicon.ico, which fails from a file: URL.
        '<link rel="icon" href="data:,">'
        "<style>{css}</style></head>\n<body>\n{body}\n</body></html>\n",
        title=title,
        css=CSS,
        body=body,
    )


def data_uri(png: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode("ascii")


def figure(caption: str, png: str | Path, css_class: LiteralString = "", alt: str | None = None) -> Html:
    """An inlined PNG with its caption (``css_class``: the figure's class, e.g. ``hidden-info``); ``alt`` says
    what the image shows to a reader who cannot see it (the caption when not given)."""
    return render(
        '<figure class="{css_class}"><img src="{src}" alt="{alt}"><figcaption>{caption}</figcaption></figure>',
        css_class=css_class,
        src=data_uri(Path(png)),
        alt=caption if alt is None else alt,
        caption=caption,
    )


def fold(anchor: str, title: str, parts: list[Html]) -> Html:
    """A section folded by default: ``title`` as its heading in the summary, ``parts`` a click away. A first
    part that is the section's own ``<h2>`` is left out (the summary carries the heading)."""
    if parts and parts[0].startswith("<h2>"):
        parts = parts[1:]
    return render(
        '<details class="section" id="{anchor}"><summary><h2>{title}</h2></summary>{body}</details>',
        anchor=anchor,
        title=title,
        body=join(parts, "\n"),
    )


def fmt(est: dict[str, Any] | None, digits: int = 2, ci: bool = True) -> Html:
    """An estimate: its value and, with ``ci``, its 95% interval; "n/a" when undefined."""
    if not est or est.get("value") is None:
        return trusted('<span class="muted">n/a</span>')
    spec = f".{int(digits)}f"
    text = esc(format(est["value"], spec))
    low, high = est.get("ci", [None, None])
    if ci and low is not None and high is not None:
        return render(
            '{text} <span class="ci">[{low}, {high}]</span>', text=text, low=format(low, spec), high=format(high, spec)
        )
    return text
