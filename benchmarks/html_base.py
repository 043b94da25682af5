# ruff: noqa: E501  (HTML templates read better as one f-string per element than split mid-tag)
"""What the offline HTML pages share: the stylesheet, escaping, the page frame, inlined images, a figure.

``benchmarks.html_report`` writes the run report, ``benchmarks.html_viewer`` one page per game.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;
color:#1d1d1f;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ddd}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.86rem}td,th{border:1px solid #ddd;padding:.25rem .45rem;
vertical-align:top}th{background:#f5f5f7;text-align:left}td.num{text-align:right;white-space:nowrap}
.ci{color:#666;font-size:.78rem}.base{color:#888;font-size:.75rem;display:block}
.hidden-info{background:#fff4e5;border-left:3px solid #f0a030}.hidden-info::before{content:"hidden \\1F512  ";
font-size:.7rem;color:#a06000;font-weight:600}td.hidden-info::before,span.hidden-info::before{content:""}
body.hide-hidden .hidden-info{display:none}
.statement{border:1px solid #ddd;border-radius:6px;padding:.5rem .8rem;margin:.7rem 0}
.statement .text{font-size:1.02rem;margin:.3rem 0}.lie{color:#b00020;font-weight:600}.truthful{color:#186a3b}
.wide{overflow-x:auto}.event{margin:.2rem 0;font-size:.9rem}.phase{margin-top:1.4rem}.muted{color:#777}
.badge{display:inline-block;border-radius:3px;padding:0 .35rem;font-size:.75rem;background:#eee;margin-left:.3rem}
.cov{color:#555;font-size:.75rem;display:block}.nvp{color:#b00020;font-weight:600}
.warn{background:#fdecea;border-left:3px solid #b00020;padding:.3rem .6rem}tr.kind th{font-weight:400;padding-left:1.2rem}
img{max-width:100%;border:1px solid #eee;margin:.4rem 0}.plots{display:grid;grid-template-columns:repeat(auto-fill,
minmax(30rem,1fr));gap:1rem}
"""

def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{esc(title)}</title>'
        # An inline icon: without one the browser asks for /favicon.ico, which fails from a file: URL.
        '<link rel="icon" href="data:,">'
        f"<style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n"
    )


def data_uri(png: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode("ascii")


def fmt(est: dict[str, Any] | None, digits: int = 2, ci: bool = True) -> str:
    if not est or est.get("value") is None:
        return '<span class="muted">n/a</span>'
    text = f"{est['value']:.{digits}f}"
    low, high = est.get("ci", [None, None])
    if ci and low is not None and high is not None:
        text += f' <span class="ci">[{low:.{digits}f}, {high:.{digits}f}]</span>'
    return text
