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
``werewolf_deception.benchmarks.labels.corpus.knowledge_of`` (with the corpus's night logs when the item names its game
and the corpus is at hand). ``OUT`` (default ``<file>.<labeler>.jsonl``) holds each item plus
``claims_<labeler>`` (players as names, each claim with ``lie``: known false), ``lie_<labeler>``
and, for a failed statement, ``error_<labeler>``; with ``--labeler llm`` also ``claims_union`` /
``lie_union``. Items with hand labels (``claims``) are scored (``werewolf_deception.benchmarks.labels.evaluate.score``).

The summary gives answered / expected statements, failures by reason, tokens, and agreement with
the regex labeler (``werewolf_deception.benchmarks.labels.agreement``). Exit codes:

    0  every statement labelled (or at most --max-failure-rate of them failed, each with its reason)
    1  no statement to label, or none could be labelled (nothing written)
    2  bad options, no such source, or a server that cannot answer (preflight; nothing labelled)
    3  the endpoint stopped answering midway (circuit breaker; nothing written)
    4  labelled, but more than --max-failure-rate of the statements failed (files written)
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.console import (
    EXIT_BAD_OPTIONS,
    EXIT_FAILED_GAMES,
    EXIT_INVALID,
    EXIT_STOPPED,
    Bar,
)
from werewolf_deception.benchmarks.labels.agreement import agreement
from werewolf_deception.benchmarks.labels.corpus import games_by_id, knowledge_of, read_jsonl, with_reveals
from werewolf_deception.benchmarks.labels.labelers import (
    Labels,
    LLMLabeler,
    as_names,
    regex_labeler,
    union_claims,
    union_labels,
)
from werewolf_deception.benchmarks.runs import find_logs
from werewolf_env.claims import Knowledge, judge_claims, public_role_claims
from werewolf_env.core import DEFAULT_RULESET
from werewolf_env.engine import ReplayError, game_of_header, read_log, replayed_actions

# Its exit codes (their meanings for relabel: werewolf_deception.benchmarks.console.exit_codes.COMMANDS["relabel"]).
EXIT_NOTHING = EXIT_FAILED_GAMES
EXIT_BAD = EXIT_BAD_OPTIONS
EXIT_DOWN = EXIT_STOPPED
EXIT_INCOMPLETE = EXIT_INVALID
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
            ruleset = state.config.ruleset
            claimed = public_role_claims(
                ((earlier.speaker, earlier.claims) for earlier in state.statements[: st.id]),
                ruleset,
                state.config.roles_in_game(),
            )
            item = {"speaker": names[st.speaker], "players": names, "text": st.text,
                    "revealed": {names[s]: role.value for s, role in sorted(state.revealed.items())},
                    "claimed": {names[s]: role for s, role in claimed}}  # fmt: skip
            if ruleset != DEFAULT_RULESET:  # the game's own roles: the labelers read and ask with them
                item["ruleset"] = ruleset
            out.append(
                Statement(
                    path.name,
                    st.id,
                    st.speaker,
                    item,
                    know,
                    [bare(c) for c in st.claims],
                    [bare(c) for c in st.claims if c.get("source") in ("text", "both")],
                )
            )
    return out


def judged(claims: list[dict[str, Any]] | None, know: Knowledge) -> dict[str, Any]:
    if claims is None:
        return {"claims": None, "lie": None, "lie_strict": None, "type": None, "verdicts": None}
    verdict = judge_claims(know, claims)
    return {
        "claims": claims,
        "lie": verdict["lie"],
        "lie_strict": verdict["lie_strict"],
        "type": verdict["type"],
        "verdicts": verdict["claims"],
    }


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


class StatementProgress:
    """``LLMLabeler.on_done``: a bar on stderr over the statements
    (``werewolf_deception.benchmarks.console.progress``), failures and tokens beside; its total is set when the
    statements are known (``label``)."""

    def __init__(self, quiet: bool = False) -> None:
        self.bar = Bar("relabel", None, unit="statements", quiet=quiet)
        self.failed = self.tokens = 0

    def start(self, total: int) -> None:
        """The statements are known, and the labelling starts (the bar is drawn at the first one done)."""
        self.bar.total = total
        self.bar.started = self.bar.clock()

    def __call__(self, record: dict[str, Any]) -> None:
        self.failed += record["status"] != "answered"
        self.tokens += record["prompt_tokens"] + record["completion_tokens"]
        self.bar.advance(failed=self.failed, tokens=self.tokens)

    def close(self) -> None:
        if self.bar.done:  # nothing to say when no statement was labelled (a preflight refused, or none to label)
            self.bar.close()


def label(labeler: Any, items: list[dict[str, Any]]) -> tuple[Labels, list[str | None], list[dict[str, Any]]]:
    """The labels, an error per statement (None: labelled) and the call records (LLM only)."""
    if isinstance(labeler, LLMLabeler):
        if isinstance(labeler.on_done, StatementProgress):
            labeler.on_done.start(len(items))
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
        # Deferred: evaluate is a module one runs (python -m); the package's face, which loads this module, must
        # not load it too, or runpy finds it imported before it runs.
        from werewolf_deception.benchmarks.labels.evaluate import score

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
