# ruff: noqa: E501  (HTML templates read better as one line per element than split mid-tag)
"""The report's sections on what the figures rest on: answer validity (were the figures the agents' own
answers?) and the ground truth's coverage (how much of the speech the lie labels rest on). Every value is escaped
(``werewolf_deception.benchmarks.report.html_base.render``); ``werewolf_deception.benchmarks.report.html_report`` puts them on the page."""

from __future__ import annotations

from typing import Any

from werewolf_deception.benchmarks.report.html_base import Html, fmt, join, name, render, trusted
from werewolf_env.analysis import action_kinds_of, shown_kinds
from werewolf_env.claims import CLAIM_KINDS

UNVERIFIED_SHOWN = 20  # logs listed by name; metrics.json lists every one


def fmt_coverage(cov: dict[str, Any] | None) -> str:
    """``answered / expected (share)`` of a group's coverage."""
    if not cov:
        return ""
    share = "" if cov.get("share") is None else f" ({100 * cov['share']:.0f}%)"
    return f"{cov['answered']} / {cov['expected']}{share}"


def _pct(count: int | None, rate: float | None) -> Html:
    if count is None or rate is None:
        return trusted('<span class="muted">–</span>')
    return render("{pct:.1f}% <span class='ci'>({count})</span>", pct=100 * rate, count=count)


def _share(count: int | None, total: int) -> float | None:
    return None if count is None or total <= 0 else count / total


def _row_name(label: str, llm: bool, kind: str) -> Html:
    if kind == "all kinds":
        return render("<tr><th>{label}{llm}</th>", label=name(label), llm=" (LLM)" if llm else "")
    return render("<tr class='kind'><th>{kind}</th>", kind=kind)


def _outcome_row(label: str, llm: bool, kind: str, group: dict[str, Any]) -> Html:
    outcomes = join(
        render(
            "<td class='num'>{pct}</td>", pct=_pct(group[n], group.get(f"{n}_rate", _share(group[n], group["actions"])))
        )
        for n in ("answered", "repaired", "invalid", "unanswered", "no_outcome")
    )
    return render(
        "{start}<td class='num'>{actions}</td>{outcomes}<td class='num'><span{warn}>{fallback}</span></td></tr>",
        start=_row_name(label, llm, kind),
        actions=group["actions"],
        outcomes=outcomes,
        warn=trusted(" class='warn'") if group["fallback"] else "",
        fallback=_pct(group["fallback"], group["fallback_rate"]),
    )


def _problem_row(label: str, llm: bool, kind: str, group: dict[str, Any]) -> Html:
    fields = join((render("{field} {count}", field=f, count=c) for f, c in group["invalid_fields"].items()), ", ")
    return render(
        "{start}<td>{fields}</td><td class='num'>{cut_off}</td><td class='num'>{cached}</td>"
        "<td class='num'>{errors}</td></tr>",
        start=_row_name(label, llm, kind),
        fields=fields,
        cut_off=group["cut_off"],
        cached=group["cached"],
        errors=group["policy_errors"],
    )


def _validity_table(validity: dict[str, Any] | None) -> Html:
    """Per policy (all kinds, then each kind): how many actions were the agent's own answers, then what went
    wrong (two tables, so neither outgrows the page)."""
    policies = (validity or {}).get("policies") or {}
    if not policies:
        return trusted("<p class='muted'>no actions</p>")
    groups = [
        (label, bool(entry["llm"]), kind, group)
        for label, entry in policies.items()
        for kind, group in [("all kinds", entry["overall"]), *entry["by_kind"].items()]
    ]
    outcomes = trusted(
        "<caption>outcomes of the actions</caption><tr><th>policy / action kind</th><th>actions</th><th>answered</th>"
        "<th>repaired</th><th>invalid</th><th>unanswered</th><th>no outcome</th><th>fallback</th></tr>"
    )
    problems = trusted(
        "<caption>what went wrong</caption><tr><th>policy / action kind</th><th>invalid fields</th>"
        "<th>calls cut off</th><th>cached calls</th><th>policy errors</th></tr>"
    )
    return render(
        "<table>{outcomes}{rows}</table><table>{problems}{problem_rows}</table>",
        outcomes=outcomes,
        rows=join(_outcome_row(*g) for g in groups),
        problems=problems,
        problem_rows=join(_problem_row(*g) for g in groups),
    )


def unverified_notice(document: dict[str, Any]) -> list[Html]:
    """The logs ``report --allow-unverified`` counted although they do not replay as whole, identical games
    (``run.unverified_logs``: path -> replay's verdict); nothing when every log replayed or none was checked."""
    unverified = (document.get("run") or {}).get("unverified_logs") or {}
    if not unverified:
        return []
    more = len(unverified) - UNVERIFIED_SHOWN
    return [
        render(
            "<div class='warn'><p><b>Unverified logs</b>: {n} logs do not replay as whole, identical games "
            "(reported with --allow-unverified); the finished ones are counted in the figures below.</p>"
            "<ul>{items}</ul>{more}</div>",
            n=len(unverified),
            items=join(
                render("<li><code>{path}</code>: {verdict}</li>", path=name(path), verdict=verdict)
                for path, verdict in list(unverified.items())[:UNVERIFIED_SHOWN]
            ),
            more=render("<p>and {more} more (metrics.json: run.unverified_logs)</p>", more=more) if more > 0 else "",
        )
    ]


def validity_section(document: dict[str, Any]) -> list[Html]:
    """First thing to read: whether the figures below rest on the agents' answers or on fallbacks."""
    metrics = document["metrics"]
    parts = [trusted("<h2>Answer validity</h2>")]
    analyses = metrics["totals"].get("analysis_coverage") or {}
    if analyses.get("expected") and analyses.get("answered", 0) < analyses["expected"]:
        parts.append(
            render(
                "<p class='warn'>{missing} of {expected} self / peer analyses fell back to the env's "
                "default (no usable answer) and are left out of every detection figure. Each table shows the "
                "coverage (answered / asked) its figures rest on; a group with no answered analysis says "
                "<b>no valid predictions</b>.</p>",
                missing=analyses["expected"] - analyses["answered"],
                expected=analyses["expected"],
            )
        )
    policies = (document.get("validity") or {}).get("policies") or {}
    if not any(entry["llm"] or entry["overall"]["fallback"] for entry in policies.values()):
        parts.append(
            trusted(
                "<p>No LLM seats and no fallbacks: every action was the policies' own answer, so there is no "
                "table of answer outcomes.</p>"
            )
        )
        return parts
    parts.append(
        trusted(
            "<p>Per policy and action kind: <i>answered</i> (the model's first answer was valid), <i>repaired</i> "
            "(valid after one repair prompt), <i>invalid</i> (answered, nothing valid), <i>unanswered</i> (the "
            "server gave no reply), <i>fallback</i> (the env replaced all or part of the answer). Outcomes are "
            "known for LLM policies only (– for the others).</p>"
        )
    )
    parts.append(_validity_table(document.get("validity")))
    return parts


def _counted(part: dict[str, Any]) -> Html:
    """A coverage share with its interval and its count."""
    return render("{share} <span class='ci'>({count})</span>", share=fmt(part["share"]), count=part["count"])


def _claim_kinds(document: dict[str, Any]) -> list[str]:
    """The claim kinds with a column: held by some statement, about any game, or about a night action a role of
    the games takes (``claims_coverage.shown_kinds``: no "poisoned" column without a witch)."""
    roles = ((document.get("metrics") or {}).get("deaths") or {}).get("by_role") or {}
    acting = action_kinds_of(roles)
    shown: set[str] = set()
    for cov in (document.get("claims_coverage_by_labeler") or {}).values():
        if "error" not in cov:
            shown.update(shown_kinds(cov, acting))
    return [kind for kind in CLAIM_KINDS if kind in shown]


def _error_row(labeler: str, cov: dict[str, Any], span: int) -> Html:
    return render("<tr><th>{name}</th><td colspan='{span}' class='warn'>{error}</td></tr>", name=labeler, span=span,
                  error=cov["error"])  # fmt: skip


def _coverage_row(labeler: str, cov: dict[str, Any], mark: str) -> Html:
    if "error" in cov:
        return _error_row(labeler, cov, 7)
    return render(
        "<tr><th>{name}{mark}</th><td class='num'>{labelled} / {statements}</td><td class='num'>{with_claim}</td>"
        "<td class='num'>{claims}</td><td class='num'>{hedged}</td><td>{sources}</td><td class='num'>{lies}</td>"
        "<td class='num'>{hedged_only}</td></tr>",
        name=labeler,
        mark=mark,
        labelled=cov["labelled"],
        statements=cov["statements"],
        with_claim=_counted(cov["with_claim"]),
        claims=cov["claims"],
        hedged=_counted(cov["hedged"]),
        sources=join((render("{k} {v}", k=k, v=v) for k, v in cov["claims_by_source"].items()), ", "),
        lies=cov["lies"],
        hedged_only=_counted(cov["lies_hedged_only"]),
    )


def _kinds_row(labeler: str, cov: dict[str, Any], mark: str, kinds: list[str]) -> Html:
    if "error" in cov:
        return _error_row(labeler, cov, max(1, len(kinds)))
    return render(
        "<tr><th>{name}{mark}</th>{kinds}</tr>",
        name=labeler,
        mark=mark,
        kinds=join(render("<td class='num'>{v}</td>", v=_counted(cov["by_kind"][k])) for k in kinds),
    )


def ground_truth_section(document: dict[str, Any]) -> list[Html]:
    """Which labeler the lie figures rest on, and how much of the speech each available labeler covers."""
    labeler = document.get("labeler", "regex")
    unlabelled = document.get("unlabelled") or {}
    source = (
        trusted(" (the claims the engine read and judged while the games were played).")
        if labeler == "regex"
        else render(" (<code>claims/{labeler}.ndjson</code>, judged with what each speaker knew).", labeler=labeler)
    )
    parts = [
        trusted("<h2>Ground truth coverage</h2>"),
        render("<p>Claims and lie labels: the <b>{labeler}</b> labeler{source}"
               " A statement holding no claim counts as truthful, so each row says how much of the speech the"
               " labels cover: statements holding at least one claim (in all and by kind), the share of claims"
               " hedged (a belief: &ldquo;I think Bob is a wolf&rdquo;), and the lies that rest on hedged claims only.</p>",
               labeler=labeler, source=source),
    ]  # fmt: skip
    if unlabelled.get("unlabelled"):
        why = join((render("{r} {c}", r=r, c=c) for r, c in unlabelled.get("unlabelled_by_reason", {}).items()), ", ")
        parts.append(
            render(
                "<p class='warn'>{n} of {statements} statements have no label from the {labeler} labeler ({why}): they are "
                "left out of every figure that rests on the lie label, and never given the regex label instead.</p>",
                n=unlabelled["unlabelled"],
                statements=unlabelled["statements"],
                labeler=labeler,
                why=why,
            )
        )
    kinds = _claim_kinds(document)
    head = trusted(
        "<caption>statements, claims and lies</caption><tr><th>labeler</th><th>statements labelled</th>"
        "<th>with a claim</th><th>claims</th><th>hedged</th><th>claims by source</th><th>lies</th>"
        "<th>lies on hedged claims only</th></tr>"
    )
    by_kind = render(
        "<caption>statements holding a claim, by kind</caption><tr><th>labeler</th>{kinds}</tr>",
        kinds=join(render("<th>{k}</th>", k=k) for k in kinds),
    )
    coverages = [
        (labeler_name, cov, " (these figures)" if labeler_name == labeler else "")
        for labeler_name, cov in (document.get("claims_coverage_by_labeler") or {}).items()
    ]
    parts.append(
        render(
            '<table class="coverage">{head}{rows}</table><table class="coverage">{by_kind}{kind_rows}</table>',
            head=head,
            rows=join(_coverage_row(n, cov, mark) for n, cov, mark in coverages),
            by_kind=by_kind,
            kind_rows=join(_kinds_row(n, cov, mark, kinds) for n, cov, mark in coverages),
        )
    )
    return parts


def _token_cells(row: dict[str, Any]) -> Html:
    return render(
        "<td class='num'>{calls}</td><td class='num'>{prompt}</td><td class='num'>{cached}</td>"
        "<td class='num'>{completion}</td>",
        calls=f"{row['calls']:,}",
        prompt=f"{row['prompt_tokens']:,}",
        cached=f"{row['cached_tokens']:,}",
        completion=f"{row['completion_tokens']:,}",
    )


def _usd(value: float | None) -> str:
    return "no price set" if value is None else f"${value:.4f}"


def token_section(document: dict[str, Any]) -> list[Html]:
    """LLM calls and tokens by call kind and by model, how each model's were counted, and the estimated cost at
    the prices in the run's lineup (``werewolf_deception.benchmarks.report.tokens``); nothing for a run without model calls."""
    tokens = document.get("tokens") or {}
    if not tokens:
        return []
    per_game = tokens.get("per_game") or {}
    cost = tokens.get("cost_usd")
    unpriced = ", ".join(tokens.get("unpriced_models") or [])
    parts = [
        trusted("<h2>LLM calls and tokens</h2>"),
        render("<p>{calls} calls; prompt {prompt} tokens (cached {cached}), completion {completion}; per game "
               "{game_prompt} prompt, {game_cached} cached, {game_completion} completion. Estimated cost: {cost}"
               "{per_game}{unpriced}. Prices are {unit}, set per model in the lineup's <code>[prices.\"MODEL\"]</code>; "
               "cost = (uncached prompt &times; prompt + cached &times; cached_prompt + completion &times; "
               "completion) / 10<sup>6</sup>.</p>",
               calls=f"{tokens['calls']:,}", prompt=f"{tokens['prompt_tokens']:,}", cached=f"{tokens['cached_tokens']:,}",
               completion=f"{tokens['completion_tokens']:,}", game_prompt=f"{per_game.get('prompt_tokens', 0):,.0f}",
               game_cached=f"{per_game.get('cached_tokens', 0):,.0f}",
               game_completion=f"{per_game.get('completion_tokens', 0):,.0f}", cost=_usd(cost),
               per_game=f" ({_usd(per_game.get('cost_usd'))} per game)" if cost is not None else "",
               unpriced=f"; no price set for {unpriced}" if unpriced and cost is not None else "",
               unit=tokens.get("price_unit", "USD per million tokens")),
    ]  # fmt: skip
    head = trusted("<th>calls</th><th>prompt</th><th>cached</th><th>completion</th>")
    kinds = join(
        render("<tr><th>{kind}</th>{cells}</tr>", kind=kind, cells=_token_cells(row))
        for kind, row in (tokens.get("by_kind") or {}).items()
    )
    parts.append(render("<table><tr><th>call kind</th>{head}</tr>{rows}</table>", head=head, rows=kinds))
    models = join(
        render(
            "<tr><th>{model}</th>{cells}<td>{counter}{unanswered}{cached_note}</td><td class='num'>{cost}</td></tr>",
            model=name(model),
            cells=_token_cells(entry),
            counter=entry.get("counter", ""),
            unanswered=f"; {entry['unanswered_calls']} unanswered (no tokens counted)"
            if entry.get("unanswered_calls")
            else "",
            cached_note="; cached tokens not reported by the server"
            if entry.get("usage_calls") and not entry.get("cached_reported_calls")
            else "",
            cost=_usd(entry.get("cost_usd")),
        )
        for model, entry in (tokens.get("by_model") or {}).items()
    )
    parts.append(
        render(
            "<table><tr><th>model</th>{head}<th>counted by</th><th>estimated cost</th></tr>{rows}</table>",
            head=head,
            rows=models,
        )
    )
    return parts
