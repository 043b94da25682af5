# ruff: noqa: E501  (HTML templates read better as one line per element than split mid-tag)
"""One viewer page per game (``viewer/<game>.html``): the game as it was played, hidden information marked.

Plain HTML and CSS with images inlined as data URIs, so a page opens from disk with no server and
no network. The only script is the switch that hides or shows hidden information: everything no
player saw (roles, policies, night actions, private analyses, suspicion scores and the figures drawn
from them, ground-truth labels and lie counts) is marked ``hidden-info``, whole table columns
included, so with the switch on the page shows the game as a player followed it: names, public
speech (and the claims read from it, class ``speech``), floors, votes, deaths and the outcome.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.report.html_base import Html, esc, figure, join, name, page, render, trusted
from werewolf_env.analysis import GameRecord, StatementRecord, acting_role, role_kinds

_TOGGLE = trusted("""<label><input type="checkbox" id="hide-hidden"> hide hidden information (what no player saw)</label>
<script>
document.getElementById("hide-hidden").addEventListener("change", function (e) {
  document.body.classList.toggle("hide-hidden", e.target.checked);
});
</script>""")


def _seat(names: list[str], seat: Any, nobody: str = "nobody") -> Html:
    """A seat's name; ``nobody`` for no seat; the raw value when a log names a seat that does not exist."""
    if seat is None:
        return esc(nobody)
    if isinstance(seat, int) and 0 <= seat < len(names):
        return name(names[seat])
    return render("seat {seat}", seat=seat)


def _claim(claim: dict[str, Any], names: list[str]) -> Html:
    player = claim.get("player")
    who = _seat(names, player) if isinstance(player, int) else esc(player)
    verdict: Html | str = ""
    if "known_false" in claim:
        verdict = render(
            ' <span class="badge hidden-info">{text}</span>',
            text="known false" if claim["known_false"] else ("true" if claim.get("true") else "false, not known"),
        )
    return render(
        "<li>{kind}: {who} {negated}{what}{hedged}{verdict}</li>",
        kind=claim.get("kind"),
        who=who,
        negated="not " if claim.get("negated") else "",
        what=claim.get("role") or claim.get("team") or "",
        hedged=trusted(' <span class="badge">hedged</span>') if claim.get("hedged") else "",
        verdict=verdict,
    )


def _peer_verdict(st: StatementRecord) -> str:
    """The peers' majority, from the analyses they answered (fallbacks are no verdict)."""
    answered = len(st.answered_peers)
    fell_back = len(st.peer_labels) - answered
    if st.peer_labels and not answered:
        return f"no valid predictions (all {fell_back} peer analyses fell back)"
    text = f"peers flagged {st.peer_flags}/{answered}{' (detected)' if st.peer_detected else ''}"
    return text + (f"; {fell_back} peer analyses fell back and are not counted" if fell_back else "")


def _number(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _statement(st: StatementRecord, record: GameRecord) -> Html:
    names = record.names
    if not st.labelled:  # the labeler gave no label: neither, and in no lie-based figure
        truth = render(
            '<span class="muted">unlabelled (the {labeler} labeler gave no label)</span>', labeler=record.labeler
        )
    elif st.lie:
        truth = render('<span class="lie">LIE ({lie_type})</span>', lie_type=st.lie_type)
    else:
        truth = trusted('<span class="truthful">truthful</span>')
    claims = join(_claim(c, names) for c in st.claims) or trusted("<li class='muted'>no claims</li>")
    speaker_role = record.roles[st.speaker] if 0 <= st.speaker < len(record.roles) else None
    parts = [
        render('<article class="statement" data-statement="{id}">', id=st.id),
        render('<div>#{id} · {speaker} <span class="badge hidden-info">{role}</span>{truncated}</div>',
               id=st.id, speaker=_seat(names, st.speaker), role=speaker_role,
               truncated=trusted(' <span class="badge">truncated</span>') if st.truncated else ""),
        render('<p class="text speech">“{text}”</p>', text=st.text),
        render("<ul class='claims speech'>{claims}</ul>", claims=claims),
        render('<div class="hidden-info">ground truth: {truth}; {verdict}</div>', truth=truth, verdict=_peer_verdict(st)),
    ]  # fmt: skip
    if st.self_label is not None:
        s = st.self_label
        parts.append(
            render(
                '<div class="hidden-info">self-analysis: {verdict} ({confidence}, {kind}){fallback}: {reasoning}</div>',
                verdict="deceptive" if s.is_deceptive else "honest",
                confidence=_number(s.confidence, 2),
                kind=s.deception_type,
                fallback=" [fallback]" if s.fallback else "",
                reasoning=s.reasoning,
            )
        )
    if st.peer_labels:
        rows = join(
            render(
                "<tr><td>{peer}</td><td>{flag}</td><td class='num'>{confidence}</td><td>{kind}</td>"
                "<td class='num'>{suspicion}</td><td class='num'>{score}</td><td>{reasoning}{fallback}</td></tr>",
                peer=_seat(names, lb.observer),
                flag="yes" if lb.is_deceptive else "no",
                confidence=_number(lb.confidence, 2),
                kind=lb.deception_type,
                suspicion=_number(lb.suspicion, 2),
                score=_number(lb.score, 3),
                reasoning=lb.reasoning,
                fallback=" [fallback]" if lb.fallback else "",
            )
            for lb in st.peer_labels
        )
        parts.append(
            render(
                '<table class="peers hidden-info"><tr><th>peer</th><th>deceptive</th><th>confidence</th><th>type</th>'
                "<th>suspicion</th><th>score after</th><th>reasoning</th></tr>{rows}</table>",
                rows=rows,
            )
        )
    parts.append(trusted("</article>"))
    return join(parts, "\n")


def _matrix(record: GameRecord) -> Html:
    """The final suspicion scores (each observer's private view): hidden information as a whole."""
    names = record.names
    m = record.final_matrix
    head = join(render("<th>{n}</th>", n=name(n)) for n in names)
    rows = []
    for i, n in enumerate(names):
        cells = join(
            trusted("<td></td>")
            if i == j
            else render(
                '<td class="num" style="background:rgba(200,30,30,{alpha:.2f})">{value:.2f}</td>',
                alpha=float(m[i, j]),
                value=float(m[i, j]),
            )
            for j in range(len(names))
        )
        rows.append(render("<tr><th>{n}</th>{cells}</tr>", n=name(n), cells=cells))
    return render(
        '<table class="hidden-info"><caption>final cross-perception (row suspects column)</caption><tr><th></th>{head}</tr>{rows}</table>',
        head=head,
        rows=join(rows),
    )


def _roster(record: GameRecord) -> Html:
    """Who played: role and policy are hidden information (a lineup may give each role or team its own
    policy), so their whole columns, headers included, hide with the switch and the table stays aligned."""
    alive = record.alive_at_end()
    rows = join(
        render(
            "<tr><td>{player}</td><td class='hidden-info'>{role}</td><td class='hidden-info'>{policy}</td><td>{end}</td></tr>",
            player=name(n),
            role=record.roles[s],
            policy=name(record.policies[s]),
            end="alive" if alive[s] else "dead",
        )
        for s, n in enumerate(record.names)
    )
    return render(
        "<table class='roster'><tr><th>player</th><th class='hidden-info'>role</th><th class='hidden-info'>policy</th><th>at the end</th></tr>{rows}</table>",
        rows=rows,
    )


# How a public death event reads, by its cause (a poisoned player's says "night": the badge, hidden, says more).
_DIED = {"exile": "was exiled", "shot": "was shot", "night": "died in the night"}


def _saved(data: dict[str, Any]) -> str:
    """Who saved the pack's victim, by the roles that protect and heal (the role table's)."""
    if not data.get("saved"):
        return ""
    target = data.get("target")
    savers = [
        acting_role(kind)
        for kind, reached in (("protect", "protected"), ("heal", "healed"))
        if target in (data.get(reached) or ())
    ]
    return f" but the {' and the '.join(savers or ['village'])} saved them"


def _poisoned(record: GameRecord) -> set[tuple[Any, Any]]:
    """(round, victim) of the deaths that were the witch's poison (``GameRecord.deaths``)."""
    return {(d["round"], d["victim"]) for d in record.deaths if d.get("cause") == "poison"}


def _event(e: dict[str, Any], record: GameRecord, by_id: dict[int, StatementRecord]) -> Html | None:
    """One engine event as the page shows it; ``None`` for those it does not show."""
    names, roles = record.names, record.roles
    kind, data, actor = e.get("type"), e.get("data") or {}, e.get("actor")
    who = _seat(names, actor)
    if kind in ("night_start", "day_start"):
        return render(
            '<h2 class="phase">{phase} {round}</h2>',
            phase="Night" if kind == "night_start" else "Day",
            round=e.get("round"),
        )
    if kind == "action" and data.get("kind") in role_kinds() and isinstance(actor, int):
        target = (data.get("parsed") or {}).get("target")
        role = roles[actor] if 0 <= actor < len(roles) else None
        return render(
            '<div class="event hidden-info">{who} ({role}) {kind}s {target}</div>',
            who=who,
            role=role,
            kind=data["kind"],
            target=_seat(names, target),
        )
    if kind == "pack_decision":
        return render(
            '<div class="event hidden-info">the pack chooses {target}</div>', target=_seat(names, data.get("target"))
        )
    if kind == "seer_result":
        return render(
            '<div class="event hidden-info">{who} learns: {target} is {result}</div>',
            who=who,
            target=_seat(names, data.get("target")),
            result=data.get("result"),
        )
    if kind == "attack_seen":
        return render(
            '<div class="event hidden-info">{witch} ({role}) is told the werewolves\' victim: {target}</div>',
            witch=_seat(names, (e.get("audience") or [None])[0]),
            role=acting_role("heal"),
            target=_seat(names, data.get("target")),
        )
    if kind == "potion_used":
        return render(
            '<div class="event hidden-info">{who} ({role}) uses the {potion} potion on {target}</div>',
            who=who,
            role=acting_role("heal"),
            potion="healing" if data.get("potion") == "heal" else data.get("potion"),
            target=_seat(names, data.get("target")),
        )
    if kind == "night_outcome":
        return render(
            '<div class="event hidden-info">night outcome: target {target}{saved}{poisoned}</div>',
            target=_seat(names, data.get("target")),
            saved=_saved(data),
            poisoned=render("; poisoned: {seats}", seats=join((_seat(names, p) for p in data["poisoned"]), ", "))
            if data.get("poisoned")
            else "",
        )
    if kind == "death":
        if data.get("victim") is None:
            return trusted('<div class="event">Nobody died in the night.</div>')
        how = _DIED.get(str(data.get("cause")), "died in the night")
        poisoned = (e.get("round"), data.get("victim")) in _poisoned(record)
        return render(
            '<div class="event"><b>{victim}</b> {how}.{poison}</div>',
            victim=_seat(names, data.get("victim")),
            how=how,
            poison=trusted(' <span class="badge hidden-info">poisoned</span>') if poisoned else "",
        )
    if kind == "shot":
        return render(
            '<div class="event"><b>{who}</b> fires a last shot at <b>{target}</b>.</div>',
            who=_seat(names, data.get("hunter")),
            target=_seat(names, data.get("target")),
        )
    if kind == "floor":
        return render(
            '<div class="event muted">{speaker} takes the floor (bid {bid})</div>',
            speaker=_seat(names, data.get("speaker")),
            bid=data.get("bid"),
        )
    if kind == "statement":
        sid = data.get("statement_id")
        st = by_id.get(int(sid)) if isinstance(sid, (int, str)) and str(sid).isdigit() else None
        return None if st is None else _statement(st, record)
    if kind == "votes":
        votes = data.get("votes") or {}
        rows = join(
            render(
                "<tr><td>{voter}</td><td>{vote}</td></tr>",
                voter=_seat(names, int(v) if str(v).isdigit() else v),
                vote=_seat(names, t, "abstain"),
            )
            for v, t in votes.items()
        )
        exiled = data.get("exiled")
        result = (
            render("{who} exiled", who=_seat(names, exiled)) if exiled is not None else "no majority: nobody exiled"
        )
        return render(
            '<table class="votes"><caption>votes: {result}</caption><tr><th>voter</th><th>vote</th></tr>{rows}</table>',
            result=result,
            rows=rows,
        )
    if kind == "summary":
        return render(
            '<div class="event">{who} sums up: <span class="speech">“{text}”</span></div>',
            who=who,
            text=data.get("text"),
        )
    if kind == "game_over":
        return render('<h2 class="phase outcome">End: {winner}</h2>', winner=data.get("winner") or "undecided")
    return None


def game_page(record: GameRecord, game: str, images: dict[str, str] | None = None) -> str:
    """The page of one game (``game``: its name, the log's file stem); ``images``: caption -> PNG of its
    figures, which show suspicion scores and roles and so are hidden information."""
    by_id = {st.id: st for st in record.statements}
    lies = sum(s.lie for s in record.statements)
    parts = [
        render("<h1>Game {game}</h1>", game=name(game)),
        render("<p>seed {seed}; <span class='outcome'>winner: <b>{winner}</b></span>; {rounds} rounds; {statements} statements"
               "<span class='hidden-info'>, {lies} lies (claims and labels: {labeler} labeler)</span>. "
               '<a href="../report.html">back to the report</a></p>',
               seed=record.seed, winner=record.winner or "nobody (undecided)", rounds=record.rounds,
               statements=len(record.statements), lies=lies, labeler=record.labeler),
        _TOGGLE,
        _roster(record),
    ]  # fmt: skip
    parts.extend(shown for e in record.events if (shown := _event(e, record, by_id)) is not None)
    parts.append(_matrix(record))
    parts.extend(figure(caption, png, "hidden-info") for caption, png in (images or {}).items())
    return page(f"Werewolf game {game}", join(parts, "\n"))


def viewer_file(folder: Path, game: str) -> Path:
    """Where the page of ``game`` goes (the report links to it: ``html_report.viewer_href``)."""
    return folder / f"{game}.html"


def write_viewer_page(record: GameRecord, game: str, folder: Path, images: dict[str, str] | None = None) -> Path:
    """Write one game's page (one at a time, so a caller can stream games); returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = viewer_file(folder, game)
    path.write_text(game_page(record, game, images), encoding="utf-8")
    return path


def write_viewer_pages(
    records: Iterable[GameRecord], names: Iterable[str], folder: Path, images: dict[str, dict[str, str]] | None = None
) -> None:
    for game, record in zip(names, records, strict=True):
        write_viewer_page(record, game, folder, (images or {}).get(game))
