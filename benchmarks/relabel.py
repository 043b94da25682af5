"""``werewolf-bench relabel SOURCE``: a run's (or any JSONL's) statements labelled by another claim labeler.

    werewolf-bench relabel runs/demo --labeler llm --model gpt-4o-mini --base-url https://api.openai.com/v1
    werewolf-bench relabel statements.jsonl --labeler llm --model M --base-url URL [--out labelled.jsonl]
    werewolf-bench relabel runs/demo --labeler regex          # no model: today's regex reader

**A run folder** (logs in ``SOURCE/games/*.ndjson``): every finished game is replayed from its log
to rebuild the exact state at each statement; the statement's text is labelled, and the labeler's
claims are judged with what the speaker knew then (``judge_claims(Knowledge.of_state(state,
speaker), claims)``). Written to ``SOURCE/claims/`` (or ``--out``), one line per statement:

* ``<labeler>.ndjson``: ``{"game", "statement_id", "speaker", "claims", "lie", "lie_strict",
  "type", "verdicts", "error"}``; a statement the labeler could not label has ``error`` set and
  ``null`` labels: it is never filled in by the regex reader;
* ``union.ndjson`` (LLM only): the log's claims (read from the text, plus any the agent sent) merged
  with the LLM's by ``claim_key``, judged with the same knowledge (``null`` where the LLM failed);
* ``<labeler>.json``: the summary; ``<labeler>.calls.ndjson``: one record per call (answered or
  failed and why, tokens, retries, response format).

**A JSONL of statements** (``LABELING.md`` form): what each speaker knew comes from
``benchmarks.transcripts.knowledge_of`` (with the corpus's night logs when the item names its game
and the corpus is at hand). ``OUT`` (default ``<file>.<labeler>.jsonl``) holds each item plus
``claims_<labeler>`` (players as names, each claim with ``lie``: known false), ``lie_<labeler>``
and, for a failed statement, ``error_<labeler>``; with ``--labeler llm`` also ``claims_union`` /
``lie_union``. Items with hand labels (``claims``) are scored (``benchmarks.claims_eval.score``).

The summary gives answered / expected statements, failures by reason, tokens, and agreement with
the regex labeler (``benchmarks.label_agreement``). Exit codes:

    0  every statement labelled (or at most --max-failure-rate of them failed, each with its reason)
    1  no statement to label, or none could be labelled (nothing written)
    2  bad options, no such source, or a server that cannot answer (preflight; nothing labelled)
    3  the endpoint stopped answering midway (circuit breaker; nothing written)
    4  labelled, but more than --max-failure-rate of the statements failed (files written)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.credentials import KEY_VARIABLE_HELP
from werewolf_env.claims import CLAIM_KINDS, public_role_claims
from werewolf_env.judge import Knowledge, judge_claims
from werewolf_env.log import ReplayError, game_of_header, read_log, replayed_actions

from .claim_labelers import LabelerUnavailableError, Labels, LLMLabeler, as_names, llm_labeler, union_labels
from .claims_eval import regex_labeler, score, union_claims
from .label_agreement import agreement, format_summary, progress
from .report import find_logs
from .transcripts import DEFAULT_CORPUS, claimed_roles, games_by_id, knowledge_of, public_reveals, read_jsonl

EXIT_NOTHING = 1
EXIT_BAD = 2
EXIT_DOWN = 3
EXIT_INCOMPLETE = 4
RELABEL_EXIT_CODES = f"""exit codes:
  0    every statement labelled (or failures within --max-failure-rate); files written
  {EXIT_NOTHING}    nothing could be labelled; nothing written
  {EXIT_BAD}    bad options or input, or the preflight found the server unreachable, the key refused or the
       model unknown; nothing written
  {EXIT_DOWN}    the endpoint stopped answering midway (circuit breaker); nothing written
  {EXIT_INCOMPLETE}    more than --max-failure-rate of the statements failed; files written, failures recorded"""
_CLAIM_FIELDS = ("kind", "player", "role", "team", "negated", "hedged")


@dataclass
class Statement:
    """One logged statement with the state it was judged in."""

    game: str
    statement_id: int
    speaker: int
    item: dict[str, Any]  # LABELING.md form: speaker, players, text, revealed (names)
    knowledge: Knowledge
    logged: list[dict[str, Any]]  # the claims the game judged (text and agent), without "source"
    regex: list[dict[str, Any]]  # those read from the text (source "text" or "both")


@dataclass
class Relabelled:
    statements: int = 0
    labels: Labels = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    writes: dict[Path, str] = field(default_factory=dict)  # written only when the relabel is a result
    summary_path: Path | None = None


def bare(claim: dict[str, Any]) -> dict[str, Any]:
    return {k: claim.get(k) for k in _CLAIM_FIELDS}


def logged_statements(path: Path) -> list[Statement]:
    """Replay a finished game log, collecting each statement with the speaker's knowledge at that moment."""
    records = read_log(path)
    if not records or records[0].get("type") != "header":
        raise ReplayError("not a game log (no header line)")
    if not any(r.get("type") == "snapshot" for r in records):
        raise ReplayError("unfinished game (no final snapshot)")
    header = records[0]
    game = game_of_header(header)
    state = game.state
    logged = {r["data"]["statement_id"]: r["data"] for r in records if r.get("type") == "statement"}
    out: list[Statement] = []
    for _record in replayed_actions(records, game):
        while len(out) < len(state.statements):  # a statement is judged as soon as it is made
            st = state.statements[len(out)]
            know = Knowledge.of_state(state, st.speaker)
            seen = logged.get(st.id)
            if seen is None or seen["text"] != st.text or judge_claims(know, st.claims) != st.verdict:
                raise ReplayError(f"statement {st.id}: the replayed statement or its verdict differs from the log")
            names = list(state.names)
            claimed = public_role_claims((earlier.speaker, earlier.claims) for earlier in state.statements[: st.id])
            item = {"speaker": names[st.speaker], "players": names, "text": st.text,
                    "revealed": {names[s]: role.value for s, role in sorted(state.revealed.items())},
                    "claimed": {names[s]: role for s, role in claimed}}  # fmt: skip
            out.append(Statement(
                path.name, st.id, st.speaker, item, know, [bare(c) for c in st.claims],
                [bare(c) for c in st.claims if c.get("source") in ("text", "both")],
            ))  # fmt: skip
    return out


def judged(claims: list[dict[str, Any]] | None, know: Knowledge) -> dict[str, Any]:
    if claims is None:
        return {"claims": None, "lie": None, "lie_strict": None, "type": None, "verdicts": None}
    verdict = judge_claims(know, claims)
    return {"claims": claims, "lie": verdict["lie"], "lie_strict": verdict["lie_strict"], "type": verdict["type"],
            "verdicts": verdict["claims"]}  # fmt: skip


def write_atomic(path: Path, text: str) -> None:
    """Write a file atomically (a killed relabel never leaves half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def ndjson(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def label(labeler: Any, items: list[dict[str, Any]]) -> tuple[Labels, list[str | None], list[dict[str, Any]]]:
    """The labels, an error per statement (None: labelled) and the call records (LLM only)."""
    if isinstance(labeler, LLMLabeler):
        labels = asyncio.run(labeler.alabel(items)) if items else []
        calls = labeler.last_calls if items else []
        errors = [None if c["status"] == "answered" else f"{c['reason']}: {c['error']}" for c in calls]
        return labels, errors, calls
    labels = list(labeler(items)) if items else []
    return labels, [None if claims is not None else "not labelled" for claims in labels], []


# ---------------------------------------------------------------------------------------- run folders


def relabel_run(source: Path, name: str, labeler: Any, out_dir: Path) -> Relabelled:
    statements: list[Statement] = []
    games, skipped = [], []
    for path in find_logs(source):
        try:
            found = logged_statements(path)
        except (ValueError, KeyError) as exc:
            skipped.append({"game": path.name, "error": str(exc)[:300]})
            continue
        games.append(path.name)
        statements += found
    labels, errors, calls = label(labeler, [s.item for s in statements])
    rows, union_rows = [], []
    for st, claims, error in zip(statements, labels, errors, strict=True):
        head = {"game": st.game, "statement_id": st.statement_id, "speaker": st.speaker}
        rows.append({**head, **judged(claims, st.knowledge), "error": error})
        merged = None if claims is None else union_claims(st.logged, claims)
        union_rows.append({**head, **judged(merged, st.knowledge), "error": error})
    regex_lies = [judge_claims(s.knowledge, s.regex)["lie"] for s in statements]
    result = Relabelled(len(statements), labels)
    result.summary = {
        "source": str(source), "kind": "run", "games": games, "skipped_logs": skipped,
        # the regex labeler against what it read when the games were played: the reader's drift since
        "agreement": agreement([s.regex for s in statements], regex_lies, labels, [r["lie"] for r in rows],
                               names=(name, "regex" if name != "regex" else "logged")),
    }  # fmt: skip
    result.writes[out_dir / f"{name}.ndjson"] = ndjson(rows)
    if name == "llm":
        result.writes[out_dir / "union.ndjson"] = ndjson(union_rows)
        where = [{"game": st.game, "statement_id": st.statement_id} for st in statements]
        result.writes[out_dir / f"{name}.calls.ndjson"] = ndjson({**w, **c} for w, c in zip(where, calls, strict=True))
    result.summary_path = out_dir / f"{name}.json"
    result.summary["files"] = [str(p) for p in [*result.writes, result.summary_path]]
    return result


# ---------------------------------------------------------------------------------------- JSONL files


def check_items(items: list[dict[str, Any]], path: Path) -> None:
    for n, item in enumerate(items, 1):
        players = item.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ValueError(f"{path}: statement {n}: 'players' must be a list of names")
        if item.get("speaker") not in players:
            raise ValueError(f"{path}: statement {n}: the speaker {item.get('speaker')!r} is not among the players")


def with_reveals(item: dict[str, Any], games: dict[str, Any] | None) -> dict[str, Any]:
    """The item as the labeler sees it: roles revealed to everyone and roles claimed in public before it (the
    item's own, or read from the game's earlier statements) included."""
    revealed = dict(item.get("revealed") or {})
    game = games.get(item.get("game_id", "")) if games else None
    if game is not None and "event_i" in item:
        revealed.update(public_reveals(game, item["event_i"]))
    players = item["players"]
    claimed = {players[seat]: role for seat, role in claimed_roles(item, games)}
    return {"speaker": item["speaker"], "players": players, "text": item["text"], "revealed": revealed,
            "claimed": claimed}  # fmt: skip


def named(claims: list[dict[str, Any]] | None, know: Knowledge, players: list[str]) -> list[dict[str, Any]] | None:
    if claims is None:
        return None
    verdicts = judge_claims(know, claims)["claims"]
    return [{**bare(c), "lie": v["known_false"]} for c, v in zip(as_names(claims, players), verdicts, strict=True)]


def relabel_jsonl(path: Path, name: str, labeler: Any, out: Path, corpus: Path) -> Relabelled:
    items = list(read_jsonl(path))
    check_items(items, path)
    named_games = any("game_id" in item for item in items)
    games = games_by_id(corpus) if named_games and (corpus / "games.jsonl").exists() else None
    knows = [knowledge_of(item, games) for item in items]
    regex = [claims or [] for claims in regex_labeler(games)(items)]  # the reader labels every statement
    labels, errors, _calls = label(labeler, [with_reveals(item, games) for item in items])
    sides: dict[str, Labels] = {name: labels}
    if name == "llm":
        sides["union"] = union_labels(regex, labels)
    rows = []
    for i, item in enumerate(items):
        row = dict(item)
        for side, side_labels in sides.items():
            claims = side_labels[i]
            row[f"claims_{side}"] = named(claims, knows[i], item["players"])
            row[f"lie_{side}"] = None if claims is None else judge_claims(knows[i], claims)["lie"]
        if errors[i] is not None:
            row[f"error_{name}"] = errors[i]
        rows.append(row)
    regex_lies = [judge_claims(k, c)["lie"] for k, c in zip(knows, regex, strict=True)]
    result = Relabelled(len(items), labels)
    result.summary = {
        "source": str(path), "kind": "jsonl", "corpus": str(corpus) if games else None,
        "agreement": agreement(regex, regex_lies, labels, [r[f"lie_{name}"] for r in rows], names=(name, "regex"))
        if name != "regex" else None,
    }  # fmt: skip
    if any("claims" in item for item in items):
        kept = [i for i, claims in enumerate(labels) if claims is not None]
        on = [items[i] for i in kept]
        scores: dict[str, Any] = {}
        every: dict[str, Labels] = {**sides, "regex": list(regex)}
        for side, side_labels in every.items():
            found = score(on, [side_labels[i] or [] for i in kept], games)
            found.pop("_errors", None)
            scores[side] = found
        result.summary["hand_labels"] = {"statements": len(on), "scores": scores}
    result.writes[out] = ndjson(rows)
    result.summary_path = out.with_name(f"{out.stem}.summary.json")
    result.summary["files"] = [str(out), str(result.summary_path)]
    return result


# ---------------------------------------------------------------------------------------- command


def add_relabel_parser(commands: Any, formatter: type[argparse.HelpFormatter] = argparse.HelpFormatter) -> None:
    text = "label a run's (or a JSONL's) statements with another claim labeler"
    p = commands.add_parser("relabel", help=text, description=text, epilog=RELABEL_EXIT_CODES,
                            formatter_class=formatter)  # fmt: skip
    p.add_argument("source", type=Path, help="a run folder (games/*.ndjson) or a .jsonl of statements")
    p.add_argument("--labeler", choices=["llm", "regex"], default="llm", help="llm (default) or regex (no model)")
    p.add_argument("--model", help="the model name (required for --labeler llm; no default)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL or OpenAI)")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help=f"{KEY_VARIABLE_HELP} (default OPENAI_API_KEY)")
    p.add_argument("--concurrency", type=int, default=8, help="calls in flight (default 8)")
    p.add_argument("--out", type=Path, help="run folder: the claims folder (default SOURCE/claims); JSONL: the file")
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="transcripts corpus (night logs; JSONL only)")
    p.add_argument("--timeout", type=float, help="wall-clock limit per attempt, seconds (default 60)")
    p.add_argument("--retries", type=int, help="retries per call (default 4)")
    p.add_argument("--max-tokens", type=int, help="room for one answer (default 600)")
    p.add_argument("--response-format", choices=["auto", "json_schema", "json_object_schema", "json_object", "none"],
                   help="what to ask the server for; auto (default) steps down from json_schema as the server "
                        "refuses")  # fmt: skip
    p.add_argument("--breaker", type=int, default=8, help="stop (exit 3) after N calls in a row unanswered")
    p.add_argument("--max-failure-rate", type=float, default=0.10, help="exit 4 above this share of failures")
    p.add_argument("--no-preflight", action="store_true", help="skip the probe of the endpoint")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line and no summary")


def make_labeler(args: argparse.Namespace) -> Any:
    if args.labeler == "regex":
        return regex_labeler(None)  # run items carry their revealed roles; JSONL items get the corpus's below
    if not args.model:
        raise ValueError("--labeler llm needs --model (and --base-url for a server other than OpenAI)")
    options = {k: v for k, v in (("timeout", args.timeout), ("retries", args.retries), ("max_tokens", args.max_tokens),
                                 ("response_format", args.response_format)) if v is not None}  # fmt: skip
    return llm_labeler(args.model, args.base_url, api_key_env=args.api_key_env, concurrency=args.concurrency,
                       breaker=args.breaker, preflight=not args.no_preflight, **options)  # fmt: skip


def relabel_command(args: argparse.Namespace) -> int:
    source: Path = args.source
    try:
        if not 0.0 <= args.max_failure_rate <= 1.0:  # NaN fails this too
            raise ValueError(f"--max-failure-rate must be between 0 and 1 (got {args.max_failure_rate})")
        labeler = make_labeler(args)
        is_run = source.is_dir()
        if is_run and not find_logs(source):
            raise ValueError(f"no game logs in {source}")
        if not is_run and not source.is_file():
            raise ValueError(f"no such run folder or file: {source}")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD
    name = args.labeler
    show = isinstance(labeler, LLMLabeler) and not args.quiet and sys.stderr.isatty()
    if show:
        labeler.on_done = progress()
    started = time.perf_counter()
    try:
        if is_run:
            result = relabel_run(source, name, labeler, args.out or source / "claims")
        else:
            out = args.out or source.with_name(f"{source.stem}.{name}.jsonl")
            result = relabel_jsonl(source, name, labeler, out, args.corpus)
    except LabelerUnavailableError as exc:
        print(f"error: preflight: {exc}\nnothing was labelled; fix the above, or pass --no-preflight", file=sys.stderr)
        return EXIT_BAD
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD
    finally:
        if show:
            print(file=sys.stderr)  # end the progress line
    summary = finish_summary(result, labeler, name, time.perf_counter() - started)
    if isinstance(labeler, LLMLabeler) and labeler.down is not None:
        how = "stopped answering" if summary["answered"] else "gave no answer"
        print(f"RELABEL STOPPED: {labeler.endpoint_shown} model {labeler.options.model!r} {how}: "
              f"{labeler.down}. {summary['answered']} of {summary['statements']} statements were labelled; "
              "nothing was written.", file=sys.stderr)  # fmt: skip
        return EXIT_DOWN
    if not summary["statements"]:
        skipped = "; ".join(f"{s['game']}: {s['error']}" for s in summary.get("skipped_logs") or [])
        print(f"error: no statement to label in {source}" + (f" (skipped {skipped})" if skipped else ""),
              file=sys.stderr)  # fmt: skip
        return EXIT_NOTHING
    if not summary["answered"]:
        causes = ", ".join(f"{k} {v}" for k, v in summary["failures"].items())
        print(f"error: no statement could be labelled ({causes}); nothing was written", file=sys.stderr)
        return EXIT_NOTHING
    for path, text in result.writes.items():
        write_atomic(path, text)
    if result.summary_path is not None:
        write_atomic(result.summary_path, json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    rate = summary["failed"] / summary["statements"]
    incomplete = rate > args.max_failure_rate
    if incomplete:
        print(
            f"INCOMPLETE LABELS: {summary['failed']} of {summary['statements']} statements ({rate:.0%}) could "
            f"not be labelled, more than --max-failure-rate {args.max_failure_rate:.0%}; each carries its error."
        )
    if not args.quiet:
        print(json.dumps(summary, indent=1) if args.json else "\n".join(format_summary(summary)))
    return EXIT_INCOMPLETE if incomplete else 0


def finish_summary(result: Relabelled, labeler: Any, name: str, seconds: float) -> dict[str, Any]:
    if isinstance(labeler, LLMLabeler):
        head = labeler.summary()
    else:
        failed = sum(1 for claims in result.labels if claims is None)
        head = {"model": None, "base_url": None, "statements": result.statements,
                "answered": result.statements - failed, "failed": failed, "failures": {},
                "tokens": {"prompt": 0, "completion": 0}}  # fmt: skip
    claims = [c for claims in result.labels if claims for c in claims]
    head["claims"] = {"total": len(claims), **{k: sum(1 for c in claims if c["kind"] == k) for k in CLAIM_KINDS}}
    return {"labeler": name, **head, **result.summary, "seconds": round(seconds, 2)}
