"""Token accounting in run summaries and reports: the counts of ``werewolf_env.record.token_usage`` with their cost.

    prices = run_prices(run_dir)                  # the manifest's: a lineup's ``prices``, a tournament's
    block = priced(tally_json, prices, games=12)  # + cost per model, in all, per game; unpriced models named
    for line in token_lines(block): print(line)

A model without a price gets no cost (``cost_usd: None``) and is named in ``unpriced_models``; the run's
cost then covers the priced models only and says so. A run without model calls has an empty block and
prints nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from werewolf_deception.benchmarks.console import WIDTH, fit, pack, table
from werewolf_deception.benchmarks.runs import MAX_RUN_FILE_DEPTH
from werewolf_env.core import TooDeepError, loads_bounded, terminal_safe
from werewolf_env.record import CACHE_RULES, CHARS_PER_TOKEN, COUNTS, Price, cache_shares, cost_usd, tiktoken_status

PRICE_UNIT = "USD per million tokens"
CACHE_RULE_NAMES = {"any_prefix": "any prefix", "openai": "OpenAI", "anthropic": "Anthropic"}  # of CACHE_RULES


def parse_prices(data: Any) -> dict[str, Price]:
    """``{model: Price}`` from plain data, skipping what is not a price (a manifest is never trusted blindly)."""
    prices: dict[str, Price] = {}
    for model, value in (data or {}).items() if isinstance(data, dict) else ():
        try:
            prices[str(model)] = Price.model_validate(value)
        except ValidationError:
            continue
    return prices


def run_prices(run_dir: str | Path) -> dict[str, Price]:
    """The prices a run folder's manifest holds: its lineup's ``prices`` (``run``) or its ``prices`` (a
    tournament's, by model); {} for a folder of logs without a manifest. A ValueError naming the manifest
    when it nests deeper than any manifest does (``run_folder.MAX_RUN_FILE_DEPTH``)."""
    path = Path(run_dir) / "manifest.json"
    try:
        manifest = loads_bounded(path.read_text(encoding="utf-8"), MAX_RUN_FILE_DEPTH)
    except TooDeepError as exc:
        raise ValueError(f"{path}: cannot read the manifest: {exc}") from None
    except (OSError, ValueError):
        return {}
    if not isinstance(manifest, dict):
        return {}
    lineup = manifest.get("lineup")
    found = parse_prices(lineup.get("prices")) if isinstance(lineup, dict) else {}
    return {**parse_prices(manifest.get("prices")), **found}


def priced(tokens: dict[str, Any], prices: Mapping[str, Price], games: int | None = None) -> dict[str, Any]:
    """``tokens`` (a ``TokenTally.to_json``) with each model's ``price`` and ``cost_usd`` (None: no price),
    the run's ``cost_usd`` over the priced models (None when none is), ``unpriced_models``, and with ``games``
    the means per game. {} stays {} (no model calls)."""
    if not tokens:
        return {}
    by_model: dict[str, Any] = {}
    total = 0.0
    unpriced = []
    for model, entry in (tokens.get("by_model") or {}).items():
        price = prices.get(model)
        if price is None:
            unpriced.append(model)
        else:
            total += cost_usd(entry, price)
        by_model[model] = {**entry, "price": price.model_dump() if price is not None else None,
                           "cost_usd": round(cost_usd(entry, price), 6) if price is not None else None}  # fmt: skip
        if price is not None and entry.get("cache"):
            by_model[model]["cost_usd_by_cache_rule"] = rule_costs(entry, price)
    priced_any = len(unpriced) < len(by_model)
    block = {**tokens, "by_model": by_model, "cost_usd": round(total, 6) if priced_any else None,
             "unpriced_models": unpriced, "price_unit": PRICE_UNIT}  # fmt: skip
    if games:
        block["games"] = games
        block["per_game"] = {key: round(tokens.get(key, 0) / games, 1) for key in COUNTS}
        block["per_game"]["cost_usd"] = round(total / games, 6) if priced_any else None
    return block


def rule_costs(entry: dict[str, Any], price: Price) -> dict[str, float]:
    """What ``entry``'s tokens would cost if each provider rule's cache served its share of the prompt tokens
    (``entry["cache"]``, from the prompts) instead of what the server reported as cached."""
    shares = cache_shares(entry["cache"])
    prompt = int(entry.get("prompt_tokens") or 0)
    return {
        rule: round(cost_usd({**entry, "cached_tokens": round(prompt * (shares[rule] or 0))}, price), 6)
        for rule in CACHE_RULES
    }


def cache_lines(entry: dict[str, Any], width: int, games: int | None = None) -> list[str]:
    """A model's prompt-cache shares per provider rule (with the cost at each, per game with ``games``), as
    printed lines; [] without them."""
    cache = entry.get("cache")
    if not cache:
        return []
    shares = cache_shares(cache)
    costs = entry.get("cost_usd_by_cache_rule") or {}
    unit = "/game" if games else ""
    parts = [
        f"{CACHE_RULE_NAMES[rule]} {shares[rule] or 0:.2f}"
        + (f" ({_usd(costs[rule] / (games or 1))}{unit})" if costs else "")
        for rule in CACHE_RULES
    ]
    head = f"    cacheable share of prompt tokens ({cache.get('counter')}): "
    return pack(head, parts, indent="      ", sep=", ", width=width)


def game_cost(tokens: dict[str, Any], prices: Mapping[str, Price]) -> float | None:
    """One game's cost over its priced models (None: no model of it priced, or no model calls)."""
    return priced(tokens, prices).get("cost_usd") if tokens else None


def _n(value: Any) -> str:
    return f"{int(value or 0):,}"


def _usd(value: float) -> str:
    return f"${value:.4f}" if value < 100 else f"${value:,.2f}"


def model_parts(model: str, entry: dict[str, Any]) -> list[str]:
    """One model's counter, its calls without usage, its cached-token source and its cost or missing price."""
    parts = [f"model {terminal_safe(model)}: {_n(entry['calls'])} calls counted by {entry.get('counter', '?')}"]
    if entry.get("unanswered_calls"):
        parts.append(f"{_n(entry['unanswered_calls'])} unanswered (no tokens counted)")
    if entry.get("replayed_calls"):
        parts.append(
            f"{_n(entry['replayed_calls'])} answers replayed from the response cache (no request: not counted)"
        )
    if entry.get("usage_calls") and not entry.get("cached_reported_calls"):
        parts.append("cached tokens not reported by the server")
    if entry.get("cost_usd") is not None:
        price = entry["price"]
        cached = price.get("cached_prompt")
        parts.append(
            f"cost {_usd(entry['cost_usd'])} (prompt {price['prompt']:g}, cached "
            f"{'= prompt' if cached is None else format(cached, 'g')}, completion {price['completion']:g} "
            f"{PRICE_UNIT})"
        )
    elif "cost_usd" in entry:
        parts.append(f"no price set for model {terminal_safe(model)}")
    return parts


def model_note(model: str, entry: dict[str, Any]) -> str:
    """``model_parts`` in one line."""
    return "; ".join(model_parts(model, entry))


def _why_no_tiktoken() -> str:
    status = tiktoken_status()
    if status == "not installed":
        return "tiktoken is not installed (pip install 'werewolf-deception[tokens]')"
    if status == "encoding unavailable":
        return "tiktoken could not load its encoding (offline? see TIKTOKEN_CACHE_DIR)"
    return "tiktoken was not available when these tokens were counted"


def token_lines(block: dict[str, Any]) -> list[str]:
    """The printed token block: totals (and per game), a row per call kind, a line per model; each line at most
    ``summary_text.WIDTH`` - 2 columns (for the caller's indent), wrapped between items. [] without calls."""
    if not block:
        return []
    width = WIDTH - 2
    head = [f"{_n(block['calls'])} calls", f"prompt {_n(block['prompt_tokens'])} (cached {_n(block['cached_tokens'])})",
            f"completion {_n(block['completion_tokens'])}"]  # fmt: skip
    if block.get("cost_usd") is not None:
        head.append(
            f"estimated cost {_usd(block['cost_usd'])}"
            + (" (priced models only)" if block.get("unpriced_models") else "")
        )
    elif "cost_usd" in block:
        head.append('no cost: no price set (prices in the lineup: [prices."MODEL"])')
    lines = pack("LLM tokens: ", head, indent="    ", width=width)
    per_game = block.get("per_game")
    if per_game:
        cost = [f"cost {_usd(per_game['cost_usd'])}"] if per_game.get("cost_usd") is not None else []
        lines.extend(
            pack(
                f"  per game ({block['games']} games): ",
                [
                    f"{per_game['calls']:,.1f} calls",
                    f"prompt {per_game['prompt_tokens']:,.0f} (cached {per_game['cached_tokens']:,.0f})",
                    f"completion {per_game['completion_tokens']:,.0f}",
                    *cost,
                ],
                indent="    ",
                sep=", ",
                width=width,
            )
        )
    rows = [["call kind", "calls", "prompt", "cached", "completion"]]
    for kind, row in (block.get("by_kind") or {}).items():
        rows.append(
            [
                terminal_safe(kind),
                _n(row["calls"]),
                _n(row["prompt_tokens"]),
                _n(row["cached_tokens"]),
                _n(row["completion_tokens"]),
            ]
        )
    lines.extend(table(rows, "lrrrr", indent="  ", gap=3))
    for model, entry in (block.get("by_model") or {}).items():
        lines.extend(pack("  ", model_parts(model, entry), indent="    ", width=width))
        lines.extend(cache_lines(entry, width, block.get("games") if per_game else None))
    if any(f"characters/{CHARS_PER_TOKEN}" in str(e.get("counter")) for e in (block.get("by_model") or {}).values()):
        lines.extend(
            fit(
                f"characters/{CHARS_PER_TOKEN} is a rough estimate: {_why_no_tiktoken()}",
                indent="  ",
                subsequent="    ",
                width=width,
            )
        )
    return lines
