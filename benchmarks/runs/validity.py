"""Answer validity per policy and action kind: how much of a run is the agents' own answers.

A failing server or a model that cannot follow the format still produces complete games (the env
plays its conservative fallback), so a run's figures can look like results while resting on
defaults. This module counts, from the game logs, for each policy label (the runner's ``lineup``
record) and each action kind:

- ``actions``: action events; ``fallback``: those with any ``fallbacks`` (the env replaced at least
  part of the answer); ``field_replaced``: those with a fallback reason naming a field (``target:
  ...``), and ``invalid_fields``: reasons per field (the text before the first ``:`` of each reason,
  so whole-answer reasons such as ``unparseable JSON`` count under their own name);
- for LLM policies (seats whose records include ``llm_call`` / ``llm_outcome``), each action's outcome:
  ``answered`` (the first answer was valid), ``repaired`` (valid after the repair prompt),
  ``invalid`` (the model answered, nothing valid: the env fell back), ``unanswered`` (the server gave
  no reply to the last attempt), ``no_outcome`` (no record says: the policy raised, say). Read from the action's
  ``llm_outcome`` record, or inferred from its ``llm_call`` records in logs written before
  ``llm_outcome`` existed (``inferred_outcomes``). For other policies (heuristic, random, human) these
  are unknown: null;
- ``calls``, ``cut_off`` (calls stopped by the token limit), ``cached`` calls and ``policy_errors``;
- rates over ``actions`` (``answered_rate``, ``repaired_rate``, ``invalid_rate``, ``unanswered_rate``,
  ``fallback_rate``, ``invalid_field_rate``, ``policy_error_rate``) and ``cut_off_rate`` over calls.

The runner writes a seat's records just before that seat's action event, so the records since a
seat's previous action belong to its next one. In a re-scored log (``labeler`` record) the analyses
are the labeler's and count under the labeler's label. Pure functions over records as
``werewolf_env.engine.log.read_log`` returns them; torn logs, unknown record types and malformed records are
tolerated (counted in ``skipped_records`` when they cannot be attributed).

    validity = run_validity(paths)              # or [game_validity(read_log(p)) for p in paths]
    for line in format_validity(validity): print(line)
    label, rate = worst_fallback_rate(validity)

Also here, for the detection figures' side of the same question: ``format_coverage`` (a group's
``coverage`` as text) and ``common_answers`` (two labelings of the same games, each restricted to the
analyses answered under both, for a like-with-like before / after comparison).
"""

from __future__ import annotations

import copy
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.console import WIDTH, pack, table
from werewolf_env.analysis import GameRecord, Label
from werewolf_env.engine import read_log

OUTCOMES = ("answered", "repaired", "invalid", "unanswered")
ANALYSIS_KINDS = ("self_analysis", "peer_analysis")
COUNTS = ("actions", "fallback", "field_replaced", "calls", "cut_off", "cached", "policy_errors")
OUTCOME_COUNTS = (*OUTCOMES, "no_outcome", "inferred_outcomes")
MAX_FIELD_CHARS = 40  # a reason without a field name counts under its own (bounded) text
_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def reason_field(reason: Any) -> str:
    """The field a fallback reason names: the text before its first ``:`` (the whole reason if none)."""
    text = str(reason)
    return (text.split(":", 1)[0] if ":" in text else text).strip()[:MAX_FIELD_CHARS] or "?"


class _Tally:
    """Counts for one (label, kind) or one label overall, while a game is read."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.fields: Counter[str] = Counter()

    def action(self, fallbacks: list[Any], outcome: str | None, inferred: bool) -> None:
        self.counts["actions"] += 1
        if fallbacks:
            self.counts["fallback"] += 1
            names = [reason_field(r) for r in fallbacks]
            self.fields.update(names)
            self.counts["field_replaced"] += any(_FIELD.fullmatch(n) for n in names)
        if outcome is not None:
            self.outcomes[outcome] += 1
            self.outcomes["inferred_outcomes"] += inferred

    def records(self, records: list[dict[str, Any]]) -> None:
        for data in records:
            if data.get("type") == "llm_call":
                self.counts["calls"] += 1
                self.counts["cut_off"] += bool(data.get("cut_off")) or data.get("finish_reason") == "length"
                self.counts["cached"] += bool(data.get("cached"))
            elif data.get("type") == "policy_error":
                self.counts["policy_errors"] += 1

    def to_json(self, llm: bool) -> dict[str, Any]:
        out: dict[str, Any] = {name: int(self.counts[name]) for name in COUNTS}
        out["invalid_fields"] = dict(self.fields.most_common())
        for name in OUTCOME_COUNTS:
            out[name] = int(self.outcomes[name]) if llm else None
        if llm:  # every action of an LLM policy has an outcome; the ones no record explains are no_outcome
            out["no_outcome"] = out["actions"] - sum(out[name] for name in OUTCOMES)
        return _with_rates(out)


def _rate(num: int | None, den: int) -> float | None:
    return None if num is None or den <= 0 else round(num / den, 4)


def _with_rates(group: dict[str, Any]) -> dict[str, Any]:
    """(Re)compute a group's rates from its counts."""
    actions = group["actions"]
    for name in OUTCOMES:
        group[f"{name}_rate"] = _rate(group[name], actions)
    group["fallback_rate"] = _rate(group["fallback"], actions)
    group["invalid_field_rate"] = _rate(group["field_replaced"], actions)  # share of actions with a field replaced
    group["policy_error_rate"] = _rate(group["policy_errors"], actions)
    group["cut_off_rate"] = _rate(group["cut_off"], group["calls"])
    return group


def _outcome(records: list[dict[str, Any]]) -> tuple[str | None, bool]:
    """This action's outcome from its records: the ``llm_outcome`` one, else inferred from ``llm_call``s."""
    stated = [r for r in records if r.get("type") == "llm_outcome"]
    if stated:
        value = stated[-1].get("outcome")
        return (value if value in OUTCOMES else "no_outcome"), False
    calls = [r for r in records if r.get("type") == "llm_call"]
    if not calls:
        return None, False
    valid = [c for c in calls if c.get("error") is None and "failure" not in c]
    if any(c.get("attempt", "answer") == "answer" for c in valid):
        return "answered", True
    if valid:
        return "repaired", True
    # As LLMAgent words it: the last call decides (an invalid answer whose repair got no reply is unanswered).
    return ("unanswered" if "failure" in calls[-1] else "invalid"), True


def _seat(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def game_validity(records: Iterable[Any]) -> dict[str, Any]:
    """One game's validity per policy label (see the module docstring for the fields)."""
    labels: list[str] = []
    labeler: list[str] | None = None
    pending: dict[int, list[dict[str, Any]]] = defaultdict(list)
    kinds: dict[str, dict[str, _Tally]] = defaultdict(lambda: defaultdict(_Tally))
    overall: dict[str, _Tally] = defaultdict(_Tally)
    llm: set[str] = set()
    skipped = 0
    complete = False
    actors: set[int] = set()

    def label_of(seat: int | None, kind: str) -> str:
        if seat is None:
            return "unknown"
        if labeler is not None and kind in ANALYSIS_KINDS and seat < len(labeler):
            return labeler[seat]  # a re-scored log: the labeler answered the analyses
        return labels[seat] if seat < len(labels) else "unknown"

    def attribute(label: str, kind: str, attached: list[dict[str, Any]]) -> None:
        if any(r.get("type") in ("llm_call", "llm_outcome") for r in attached):
            llm.add(label)
        for tally in (overall[label], kinds[label][kind]):
            tally.records(attached)

    for record in records:
        if not isinstance(record, dict):
            skipped += 1
            continue
        rtype = record.get("type")
        data = record.get("data")
        if rtype == "snapshot":
            complete = True
        if rtype == "agent_record":
            if not isinstance(data, dict):
                skipped += 1
                continue
            dtype = data.get("type")
            if dtype in ("lineup", "labeler") and isinstance(data.get("policies"), list):
                names = [str(p) for p in data["policies"]]
                if dtype == "lineup":
                    labels = names
                else:
                    labeler = names
            elif dtype in ("llm_call", "llm_outcome", "policy_error"):
                seat = _seat(record.get("actor"))
                if seat is None:
                    skipped += 1
                else:
                    pending[seat].append(data)
            # other agent records (prompts, notes, future types) say nothing about validity
            continue
        if rtype != "action":
            continue
        if not isinstance(data, dict):
            skipped += 1
            continue
        seat = _seat(record.get("actor"))
        kind = str(data.get("kind") or "unknown")
        label = label_of(seat, kind)
        attached = pending.pop(seat, []) if seat is not None else []
        fallbacks = data.get("fallbacks")
        fallbacks = list(fallbacks) if isinstance(fallbacks, list) else ([fallbacks] if fallbacks else [])
        outcome, inferred = _outcome(attached)
        attribute(label, kind, attached)
        for tally in (overall[label], kinds[label][kind]):
            tally.action(fallbacks, outcome, inferred)
        if seat is not None:
            actors.add(seat)
    for seat, attached in pending.items():  # a torn log: calls made for an action never logged
        kind = str(next((r.get("action_kind") for r in attached if r.get("action_kind")), "unknown"))
        attribute(label_of(seat, kind), kind, attached)
    seats = labels or ["unknown"] * (max(actors) + 1 if actors else 0)
    seat_games = Counter(seats) + Counter(labeler or [])  # a labeler sits in every seat of a re-scored game
    policies: dict[str, Any] = {}
    for label in sorted(set(overall) | set(kinds)):
        is_llm = label in llm
        policies[label] = {
            "llm": is_llm,
            "seat_games": seat_games.get(label, 0),
            "overall": overall[label].to_json(is_llm),
            "by_kind": {k: t.to_json(is_llm) for k, t in sorted(kinds[label].items())},
        }
    return {"games": 1, "incomplete_games": int(not complete), "skipped_records": skipped, "policies": policies}


def _merge_group(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = {name: a[name] + b[name] for name in COUNTS}
    fields = Counter(a["invalid_fields"])
    fields.update(b["invalid_fields"])
    out["invalid_fields"] = dict(fields.most_common())
    if a["answered"] is None and b["answered"] is None:
        out.update(dict.fromkeys(OUTCOME_COUNTS))
    else:  # a label that was an LLM in some games only: its other actions have no known outcome
        for name in OUTCOME_COUNTS:
            out[name] = (a[name] or 0) + (b[name] or 0)
        out["no_outcome"] += (a["actions"] if a["answered"] is None else 0) + (
            b["actions"] if b["answered"] is None else 0
        )
    return _with_rates(out)


def _merge(total: dict[str, Any], game: dict[str, Any]) -> dict[str, Any]:
    for key in ("games", "incomplete_games", "skipped_records"):
        total[key] = total.get(key, 0) + int(game.get(key, 0))
    policies = total.setdefault("policies", {})
    for label, entry in game.get("policies", {}).items():
        mine = policies.get(label)
        if mine is None:
            policies[label] = {**entry, "by_kind": dict(entry["by_kind"])}
            continue
        mine["llm"] = mine["llm"] or entry["llm"]
        mine["seat_games"] += entry["seat_games"]
        mine["overall"] = _merge_group(mine["overall"], entry["overall"])
        for kind, group in entry["by_kind"].items():
            mine["by_kind"][kind] = _merge_group(mine["by_kind"][kind], group) if kind in mine["by_kind"] else group
    return total


def run_validity(games: Iterable[dict[str, Any] | str | Path | list[Any]]) -> dict[str, Any]:
    """Validity over a run: each item is a ``game_validity`` result, a log path, or a log's records."""
    total: dict[str, Any] = {"games": 0, "incomplete_games": 0, "skipped_records": 0, "policies": {}}
    for game in games:
        if isinstance(game, (str, Path)):
            game = game_validity(read_log(game))
        elif isinstance(game, list):
            game = game_validity(game)
        _merge(total, game)
    total["policies"] = {
        label: {**entry, "by_kind": dict(sorted(entry["by_kind"].items()))}
        for label, entry in sorted(total["policies"].items())
    }
    return total


def worst_fallback_rate(validity: dict[str, Any]) -> tuple[str | None, float | None]:
    """The policy whose actions fell back most often, and that share ((None, None) with no actions)."""
    rates = sorted(
        (-entry["overall"]["fallback_rate"], label)  # highest first; ties: the first label alphabetically
        for label, entry in validity.get("policies", {}).items()
        if entry["overall"]["fallback_rate"] is not None
    )
    if not rates:
        return None, None
    rate, label = rates[0]
    return label, -rate


def _pct(rate: float | None) -> str:
    if rate is None:
        return "n/a"
    if 0 < rate < 0.01 or 0.99 < rate < 1:  # never round a few failures to 0% or 100%
        return f"{100 * rate:.1f}%"
    return f"{100 * rate:.0f}%"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def format_validity(validity: dict[str, Any]) -> list[str]:
    """Terminal lines (at most ``summary_text.WIDTH`` - 4 columns, for the caller's indent): per LLM policy (and
    per other policy that had fallbacks) a small table, its actions in all and each action kind that had
    fallbacks, with the outcome shares (LLM policies) and the fallback share; then its invalid fields and its
    policy errors, calls cut off and cached calls. Empty when no policy is an LLM and nothing fell back."""
    entries = [(label, e) for label, e in validity.get("policies", {}).items() if e["llm"] or e["overall"]["fallback"]]
    lines: list[str] = []
    for label, entry in entries:
        overall = entry["overall"]
        groups = [("all kinds", overall)] + [(kind, g) for kind, g in entry["by_kind"].items() if g["fallback"]]
        outcomes = ["answered", "repaired"] if overall["answered"] is not None else []
        outcomes += [name for name in ("invalid", "unanswered", "no_outcome") if any(g[name] for _, g in groups)]
        rows = [["action kind", "actions", *(name.replace("_", " ") for name in outcomes), "fallback"]]
        for kind, group in groups:
            shares = [_pct(group.get(f"{name}_rate", _rate(group[name], group["actions"]))) for name in outcomes]
            rows.append([kind, str(group["actions"]), *shares, _pct(group["fallback_rate"])])
        lines.append(f"{label}: {_count(overall['actions'], 'action', 'actions')}")
        lines.extend(table(rows, "l" + "r" * (len(rows[0]) - 1), indent="  "))
        fields = list(overall["invalid_fields"].items())
        if fields:
            more = [f"{len(fields) - 5} more"] if len(fields) > 5 else []
            lines.extend(
                pack(
                    "  invalid fields: ",
                    [f"{name} {count}" for name, count in fields[:5]] + more,
                    indent="    ",
                    sep=", ",
                    width=WIDTH - 4,
                )
            )
        extras = [
            _count(overall[name], one, many)
            for name, one, many in (
                ("policy_errors", "policy error", "policy errors"),
                ("cut_off", "call cut off", "calls cut off"),
                ("cached", "cached call", "cached calls"),
            )
            if overall[name]
        ]
        if extras:
            lines.append(f"  {', '.join(extras)}")
    return lines


# ---------------------------------------------------------------------- coverage of detection figures


def format_coverage(cov: dict[str, Any] | None) -> str:
    """A detection group's coverage as ``n answered / m expected`` (empty without one)."""
    if not cov:
        return ""
    return f"{cov['answered']} answered / {cov['expected']} expected"


def _labels(record: GameRecord) -> dict[tuple[int, int, str], Label]:
    out = {}
    for st in record.statements:
        for label in ([st.self_label] if st.self_label else []) + st.peer_labels:
            out[(st.id, label.observer, label.kind)] = label
    return out


def common_answers(before: list[GameRecord], after: list[GameRecord]) -> tuple[list[GameRecord], list[GameRecord]]:
    """Two labelings of the same games (a run and its re-scoring, matched by log file name), each
    restricted to the analyses answered in both: every other analysis is marked a fallback in both
    copies, so figures from them compare like with like. Games in only one list are left out."""
    others = {Path(r.source or "").name: r for r in after}
    paired_before, paired_after = [], []
    for record in before:
        other = others.get(Path(record.source or "").name)
        if other is None:
            continue
        a, b = copy.deepcopy(record), copy.deepcopy(other)
        mine, theirs = _labels(a), _labels(b)
        for key in mine.keys() | theirs.keys():
            x, y = mine.get(key), theirs.get(key)
            if x is None or y is None or not (x.answered and y.answered):
                for label in (x, y):
                    if label is not None:
                        label.fallback = True
        paired_before.append(a)
        paired_after.append(b)
    return paired_before, paired_after
