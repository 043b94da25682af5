# ruff: noqa: E501  (HTML templates read better as one f-string per element than split mid-tag)
"""One viewer page per game (``viewer/<game>.html``): the game as it was played, hidden information marked.

Plain HTML and CSS with images inlined as data URIs, so a page opens from disk with no server and
no network. The only script is the switch that hides or shows hidden information (roles, night
actions, private analyses, ground-truth labels), which is always marked as such.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from werewolf_env.metrics import GameRecord, StatementRecord

from .html_base import data_uri, esc, page

_TOGGLE = """<label><input type="checkbox" id="hide-hidden"> hide hidden information (what no player saw)</label>
<script>
document.getElementById("hide-hidden").addEventListener("change", function (e) {
  document.body.classList.toggle("hide-hidden", e.target.checked);
});
</script>"""


def _claim(claim: dict[str, Any], names: list[str]) -> str:
    who = (
        names[claim["player"]]
        if isinstance(claim.get("player"), int) and claim["player"] < len(names)
        else claim.get("player")
    )
    what = claim.get("role") or claim.get("team") or ""
    neg = "not " if claim.get("negated") else ""
    text = f"{esc(claim.get('kind'))}: {esc(who)} {neg}{esc(what)}"
    if claim.get("hedged"):
        text += ' <span class="badge">hedged</span>'
    if "known_false" in claim:
        verdict = "known false" if claim["known_false"] else ("true" if claim.get("true") else "false, not known")
        text += f' <span class="badge hidden-info">{verdict}</span>'
    return f"<li>{text}</li>"


def _peer_verdict(st: StatementRecord) -> str:
    """The peers' majority, from the analyses they answered (fallbacks are no verdict)."""
    answered = len(st.answered_peers)
    fell_back = len(st.peer_labels) - answered
    if st.peer_labels and not answered:
        return f"no valid predictions (all {fell_back} peer analyses fell back)"
    text = f"peers flagged {st.peer_flags}/{answered}{' (detected)' if st.peer_detected else ''}"
    return text + (f"; {fell_back} peer analyses fell back and are not counted" if fell_back else "")


def _statement(st: StatementRecord, record: GameRecord) -> str:
    names = record.names
    truth = f'<span class="lie">LIE ({esc(st.lie_type)})</span>' if st.lie else '<span class="truthful">truthful</span>'
    if not st.labelled:  # the labeler gave no label: neither, and in no lie-based figure
        truth = f'<span class="muted">unlabelled (the {esc(record.labeler)} labeler gave no label)</span>'
    claims = "".join(_claim(c, names) for c in st.claims) or "<li class='muted'>no claims</li>"
    parts = [
        f'<article class="statement" data-statement="{st.id}">',
        f"<div>#{st.id} · {esc(names[st.speaker])} "
        f'<span class="badge hidden-info">{esc(record.roles[st.speaker])}</span>'
        + (' <span class="badge">truncated</span>' if st.truncated else "")
        + "</div>",
        f'<p class="text">“{esc(st.text)}”</p>',
        f"<ul class='claims'>{claims}</ul>",
        f'<div class="hidden-info">ground truth: {truth}; {_peer_verdict(st)}</div>',
    ]
    if st.self_label is not None:
        s = st.self_label
        parts.append(
            f'<div class="hidden-info">self-analysis: {"deceptive" if s.is_deceptive else "honest"} '
            f"({s.confidence:.2f}, {esc(s.deception_type)}){' [fallback]' if s.fallback else ''}: {esc(s.reasoning)}</div>"
        )
    if st.peer_labels:
        rows = "".join(
            f"<tr><td>{esc(names[lb.observer])}</td><td>{'yes' if lb.is_deceptive else 'no'}</td>"
            f"<td class='num'>{lb.confidence:.2f}</td><td>{esc(lb.deception_type)}</td>"
            f"<td class='num'>{'' if lb.suspicion is None else f'{lb.suspicion:.2f}'}</td>"
            f"<td class='num'>{'' if lb.score is None else f'{lb.score:.3f}'}</td>"
            f"<td>{esc(lb.reasoning)}{' [fallback]' if lb.fallback else ''}</td></tr>"
            for lb in st.peer_labels
        )
        parts.append(
            '<table class="peers hidden-info"><tr><th>peer</th><th>deceptive</th><th>confidence</th><th>type</th>'
            f"<th>suspicion</th><th>score after</th><th>reasoning</th></tr>{rows}</table>"
        )
    parts.append("</article>")
    return "\n".join(parts)


def _matrix(record: GameRecord) -> str:
    names = record.names
    m = record.final_matrix
    head = "".join(f"<th>{esc(n)}</th>" for n in names)
    rows = []
    for i, n in enumerate(names):
        cells = "".join(
            "<td></td>"
            if i == j
            else f'<td class="num" style="background:rgba(200,30,30,{m[i, j]:.2f})">{m[i, j]:.2f}</td>'
            for j in range(len(names))
        )
        rows.append(f"<tr><th>{esc(n)}</th>{cells}</tr>")
    return f'<table class="hidden-info"><caption>final cross-perception (row suspects column)</caption><tr><th></th>{head}</tr>{"".join(rows)}</table>'


def game_page(record: GameRecord, name: str, images: dict[str, str] | None = None) -> str:
    names = record.names
    by_id = {st.id: st for st in record.statements}
    alive = record.alive_at_end()
    roster = "".join(
        f"<tr><td>{esc(n)}</td><td class='hidden-info'>{esc(record.roles[s])}</td><td>{esc(record.policies[s])}</td>"
        f"<td>{'alive' if alive[s] else 'dead'}</td></tr>"
        for s, n in enumerate(names)
    )
    parts = [
        f"<h1>Game {esc(name)}</h1>",
        f"<p>seed {record.seed}; winner: <b>{esc(record.winner or 'nobody (undecided)')}</b>; {record.rounds} rounds; "
        f"{len(record.statements)} statements, {sum(s.lie for s in record.statements)} lies "
        f"(claims and labels: {esc(record.labeler)} labeler). "
        '<a href="../report.html">back to the report</a></p>',
        _TOGGLE,
        f"<table><tr><th>player</th><th>role</th><th>policy</th><th>at the end</th></tr>{roster}</table>",
    ]  # fmt: skip
    for e in record.events:
        kind, data, actor = e["type"], e.get("data") or {}, e.get("actor")
        who = names[actor] if isinstance(actor, int) else None
        if kind == "night_start":
            parts.append(f'<h2 class="phase">Night {e["round"]}</h2>')
        elif kind == "day_start":
            parts.append(f'<h2 class="phase">Day {e["round"]}</h2>')
        elif kind == "action" and data.get("kind") in ("eliminate", "protect", "unmask") and isinstance(actor, int):
            target = (data.get("parsed") or {}).get("target")
            tname = names[target] if isinstance(target, int) else "nobody"
            parts.append(
                f'<div class="event hidden-info">{esc(who)} ({esc(record.roles[actor])}) {data["kind"]}s {esc(tname)}</div>'
            )
        elif kind == "pack_decision":
            target = data.get("target")
            parts.append(
                f'<div class="event hidden-info">the pack chooses {esc(names[target] if isinstance(target, int) else "nobody")}</div>'
            )
        elif kind == "seer_result":
            parts.append(
                f'<div class="event hidden-info">{esc(who)} learns: {esc(names[data["target"]])} is {esc(data.get("result"))}</div>'
            )
        elif kind == "night_outcome":
            saved = " but the doctor saved them" if data.get("saved") else ""
            target = data.get("target")
            parts.append(
                f'<div class="event hidden-info">night outcome: target {esc(names[target] if isinstance(target, int) else "nobody")}{saved}</div>'
            )
        elif kind == "death":
            victim = data.get("victim")
            if victim is None:
                parts.append('<div class="event">Nobody died in the night.</div>')
            else:
                how = "was exiled" if data.get("cause") == "exile" else "died in the night"
                parts.append(f'<div class="event"><b>{esc(names[victim])}</b> {how}.</div>')
        elif kind == "floor":
            parts.append(
                f'<div class="event muted">{esc(names[data["speaker"]])} takes the floor (bid {esc(data.get("bid"))})</div>'
            )
        elif kind == "statement":
            st = by_id.get(int(data["statement_id"]))
            if st is not None:
                parts.append(_statement(st, record))
        elif kind == "votes":
            rows = "".join(
                f"<tr><td>{esc(names[int(v)])}</td><td>{esc(names[t] if t is not None else 'abstain')}</td></tr>"
                for v, t in data["votes"].items()
            )
            exiled = data.get("exiled")
            result = f"{names[exiled]} exiled" if exiled is not None else "no majority: nobody exiled"
            parts.append(
                f'<table class="votes"><caption>votes: {esc(result)}</caption><tr><th>voter</th><th>vote</th></tr>{rows}</table>'
            )
        elif kind == "summary":
            parts.append(f'<div class="event">{esc(who)} sums up: “{esc(data.get("text"))}”</div>')
        elif kind == "game_over":
            parts.append(f'<h2 class="phase">End: {esc(data.get("winner") or "undecided")}</h2>')
    parts.append(_matrix(record))
    for caption, png in (images or {}).items():
        parts.append(
            f'<figure><img src="{data_uri(Path(png))}" alt="{esc(caption)}"><figcaption>{esc(caption)}</figcaption></figure>'
        )
    return page(f"Werewolf game {name}", "\n".join(parts))


def write_viewer_pages(
    records: list[GameRecord], names: list[str], folder: Path, images: dict[str, dict[str, str]] | None = None
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, record in zip(names, records, strict=True):
        (folder / f"{name}.html").write_text(game_page(record, name, (images or {}).get(name)), encoding="utf-8")
