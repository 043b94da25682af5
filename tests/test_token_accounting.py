"""Token accounting: prompt, cached and completion tokens per game and per call kind, how they were counted,
and a cost only where the user set a price.

Runs talk HTTP to the project's fake server through the real ``openai`` client; the counts are checked
against the usage the server put in each call's log record (whatever it reports for cached tokens).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.agents.llm.agent import LLMAgent
from werewolf_deception.agents.play.lineup import load_lineup
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.report.tokens import priced, run_prices, token_lines
from werewolf_deception.benchmarks.runs.tournament import Price as TournamentPrice
from werewolf_deception.benchmarks.runs.tournament import TournamentConfig
from werewolf_env.analysis.metrics import GameRecord
from werewolf_env.engine.log import read_log
from werewolf_env.record import token_usage
from werewolf_env.record.token_usage import Price, TokenTally, cost_usd, read_usage

SMALL = ["--players", "5", "--rounds", "1", "--debate-turns", "1"]
PRICE = {"prompt": 0.15, "cached_prompt": 0.075, "completion": 0.6}


def lineup_file(folder: Path, base_url: str, prices: dict[str, Any] | None = None) -> Path:
    path = folder / "lineup.json"
    data: dict[str, Any] = {"default": {"kind": "llm", "model": "fake", "base_url": base_url}}
    if prices is not None:
        data["prices"] = prices
    path.write_text(json.dumps(data))
    return path


def logged_calls(out: Path) -> list[dict[str, Any]]:
    return [
        r["data"]
        for path in sorted((out / "games").glob("*.ndjson"))
        for r in read_log(path)
        if r["type"] == "agent_record" and r["data"]["type"] == "llm_call"
    ]


def server_cached(usage: dict[str, Any]) -> int:
    return int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)


# ---------------------------------------------------------------- reading usage and estimating


def test_usage_is_read_from_the_standard_fields() -> None:
    openai_style = {"prompt_tokens": 120, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 64}}
    assert read_usage(openai_style) == (120, 64, 7, True)
    assert read_usage({"prompt_tokens": 50, "completion_tokens": 2, "prompt_cache_hit_tokens": 32}) == (50, 32, 2, True)
    assert read_usage({"prompt_tokens": 50, "completion_tokens": 2}) == (50, 0, 2, False)  # no cached field: 0
    assert read_usage({"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 99}}).cached == 10  # capped
    for nothing in (None, {}, {"total_tokens": 5}, {"prompt_tokens": "12"}, "usage"):
        assert read_usage(nothing) is None


def test_calls_without_usage_are_estimated_and_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(token_usage, "_encoding_name", lambda model: None)  # as without tiktoken
    tally = TokenTally()
    served = {
        "model": "m",
        "action_kind": "vote",
        "raw": "{}",
        "usage": {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 40}},
    }
    guessed = {
        "model": "m",
        "action_kind": "statement",
        "raw": "12345678",
        "messages": [{"role": "system", "content": "x" * 40}, {"role": "user", "content": "y" * 20}],
    }
    unanswered = {"model": "m", "action_kind": "statement", "error": "retries exhausted"}
    assert tally.add_call(served) == (100, 40, 5)
    assert tally.add_call(guessed) == (10 + 5 + 2 * 3 + 3, 0, 2)  # characters / 4, 3 a message, 3 for the reply
    assert tally.add_call(unanswered) == (0, 0, 0)
    data = tally.to_json()
    assert data["calls"] == 3 and data["by_kind"]["statement"]["calls"] == 2 and data["by_kind"]["vote"]["calls"] == 1
    model = data["by_model"]["m"]
    assert (model["usage_calls"], model["estimated_calls"], model["unanswered_calls"]) == (1, 1, 1)
    assert model["counter"] == "server usage; 1 calls without usage: characters/4 estimate"
    only_guessed = TokenTally()
    only_guessed.add_call(guessed)
    assert only_guessed.to_json()["by_model"]["m"]["counter"] == "characters/4 estimate"
    assert TokenTally().to_json() == {}
    lines = token_lines(priced(data, {}))
    assert any("characters/4 is a rough estimate" in line for line in lines)
    assert any("1 unanswered (no tokens counted)" in line for line in lines)


def test_a_tiktoken_estimate_names_its_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    tiktoken = pytest.importorskip("tiktoken", reason="the 'tokens' extra (tiktoken) is not installed")
    # A real tiktoken encoding that needs no download: one token per byte.
    encoding = tiktoken.Encoding(
        "bytes", pat_str=r".", mergeable_ranks={bytes([b]): b for b in range(256)}, special_tokens={}
    )
    monkeypatch.setattr(token_usage, "_encoding_name", lambda model: "bytes")
    monkeypatch.setattr(token_usage, "load_encoding", lambda name: encoding)
    tally = TokenTally()
    counted = tally.add_call({"model": "m", "action_kind": "bid", "raw": "abc", "messages": [{"content": "héllo"}]})
    assert counted == (len("héllo".encode()) + 3 + 3, 0, 3)
    assert tally.to_json()["by_model"]["m"]["counter"] == "tiktoken bytes estimate"


def test_cost_counts_cached_tokens_at_their_price_and_no_price_means_no_cost() -> None:
    tokens = {"prompt_tokens": 1_000_000, "cached_tokens": 400_000, "completion_tokens": 100_000}
    assert cost_usd(tokens, Price(**PRICE)) == pytest.approx(0.6 * 0.15 + 0.4 * 0.075 + 0.1 * 0.6)
    # No cached price: cached tokens cost the prompt price (never an invented discount).
    assert cost_usd(tokens, Price(prompt=1.0, completion=2.0)) == pytest.approx(1.0 + 0.2)
    tally = TokenTally()
    tally.add_call({"model": "a", "action_kind": "vote", "raw": "{}", "usage": {"prompt_tokens": 10**6}})
    tally.add_call({"model": "b", "action_kind": "vote", "raw": "{}", "usage": {"prompt_tokens": 10**6}})
    block = priced(tally.to_json(), {"a": Price(prompt=2.0, completion=0.0)}, games=2)
    assert block["cost_usd"] == 2.0 and block["per_game"]["cost_usd"] == 1.0
    assert block["unpriced_models"] == ["b"] and block["by_model"]["b"]["cost_usd"] is None
    unpriced = priced(tally.to_json(), {})
    assert unpriced["cost_usd"] is None
    text = "\n".join(token_lines(unpriced))
    assert "no price set for model a" in text and "no price set for model b" in text and "$" not in text
    with pytest.raises(ValueError):  # a price without its completion part would charge those tokens $0
        Price(prompt=0.15)
    replayed = TokenTally()  # an answer replayed from the response cache sent no request: no tokens, no cost
    replayed.add_call({"model": "a", "action_kind": "vote", "raw": "{}", "cached": True, "usage": {"prompt_tokens": 9}})
    replayed.add_call({"model": "a", "action_kind": "vote", "raw": "{}", "usage": {"prompt_tokens": 10}})
    data = replayed.to_json()
    assert data["calls"] == 1 and data["prompt_tokens"] == 10 and data["by_model"]["a"]["replayed_calls"] == 1
    assert "1 answers replayed from the response cache" in "\n".join(token_lines(priced(data, {})))


def test_a_lineup_holds_prices_per_model_and_refuses_bad_ones() -> None:
    lineup = load_lineup({"default": {"kind": "llm", "model": "m"}, "prices": {"m": PRICE}})
    assert lineup.prices["m"] == Price(**PRICE)
    with pytest.raises(ValueError, match=r"prices\.m\.completon: not a price field \(did you mean 'completion'\?\)"):
        load_lineup({"prices": {"m": {"completon": 1.0}}})
    with pytest.raises(ValueError, match=r"prices\.m\.prompt"):
        load_lineup({"prices": {"m": {"prompt": -1}}})
    # The tournament's table is the same price model, and its old form still loads.
    assert TournamentPrice is Price
    tour = TournamentConfig.model_validate(
        {
            "entrants": [{"kind": "llm", "model": "m", "name": "mine"}, {"kind": "heuristic", "name": "h"}],
            "prices": {"m": {"prompt": 1.0, "completion": 2.0}},
        }
    )
    assert (
        tour.price_of(tour.entrants[0]) == Price(prompt=1.0, completion=2.0) and tour.price_of(tour.entrants[1]) is None
    )
    assert tour.model_prices() == {"m": Price(prompt=1.0, completion=2.0)}


# ---------------------------------------------------------------- runs against the fake server


def test_an_llm_run_reports_tokens_per_game_and_call_kind_with_its_cost(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-token-test-CANARY")
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        lineup = lineup_file(tmp_path, server.base_url, {"fake": PRICE})
        code = main(["run", "--lineup", str(lineup), "--games", "2", "--out", str(out), *SMALL, "--no-report"])
    printed = capsys.readouterr().out
    assert code == 0
    calls = logged_calls(out)
    usage = [c["usage"] for c in calls]
    assert all(usage), "the fake server reports usage on every answered call"
    prompt, completion = sum(u["prompt_tokens"] for u in usage), sum(u["completion_tokens"] for u in usage)
    cached = sum(server_cached(u) for u in usage)  # whatever the server reports (0 if it reports none)
    summary = json.loads((out / "summary.json").read_text())
    tokens = summary["tokens"]
    assert (tokens["calls"], tokens["prompt_tokens"], tokens["cached_tokens"], tokens["completion_tokens"]) == (
        len(calls),
        prompt,
        cached,
        completion,
    )
    for key in ("calls", "prompt_tokens", "cached_tokens", "completion_tokens"):
        assert sum(row[key] for row in tokens["by_kind"].values()) == tokens[key]
    assert {"statement", "peer_analysis", "bid"} <= set(tokens["by_kind"])
    model = tokens["by_model"]["fake"]
    assert model["counter"] == "server usage" and model["usage_calls"] == len(calls)
    expected = ((prompt - cached) * 0.15 + cached * 0.075 + completion * 0.6) / 1e6
    assert tokens["cost_usd"] == pytest.approx(expected, abs=1e-6)
    assert tokens["per_game"]["cost_usd"] == pytest.approx(expected / 2, abs=1e-6)
    per_game = [g["token_usage"] for g in summary["per_game"]]
    assert sum(g["prompt_tokens"] for g in per_game) == prompt
    assert sum(g["cost_usd"] for g in per_game) == pytest.approx(expected, abs=1e-5)
    # Printed: totals, a row per call kind, the counter and the cost; the key nowhere.
    assert "LLM tokens:" in printed and f"prompt {prompt:,} (cached {cached:,})" in printed
    assert "model fake: " in printed and "counted by server usage" in printed and "estimated cost $" in printed
    assert any(
        line.split()[:2] == ["statement", str(tokens["by_kind"]["statement"]["calls"])] for line in printed.splitlines()
    )
    # The report: the same counts in metrics.json, priced from the manifest's lineup, printed and on the page.
    assert main(["report", str(out), "--baseline-games", "0", "--no-plots"]) == 0
    assert "counted by server usage" in capsys.readouterr().out
    document = json.loads((out / "metrics.json").read_text())
    assert run_prices(out) == {"fake": Price(**PRICE)}
    assert {k: document["tokens"][k] for k in ("calls", "prompt_tokens", "cached_tokens", "completion_tokens")} == {
        k: tokens[k] for k in ("calls", "prompt_tokens", "cached_tokens", "completion_tokens")
    }
    assert document["tokens"]["cost_usd"] == tokens["cost_usd"]
    assert document["metrics"]["totals"]["cached_tokens"] == cached
    record = GameRecord.from_events(read_log(sorted((out / "games").glob("*.ndjson"))[0]))
    assert record.token_usage["by_model"]["fake"]["counter"] == "server usage"
    page = (out / "report.html").read_text()
    assert "LLM calls and tokens" in page and "server usage" in page
    for folder in (out, tmp_path):
        for path in folder.rglob("*"):
            if path.is_file():
                assert b"CANARY" not in path.read_bytes(), path


def test_a_run_without_a_price_prints_tokens_but_no_cost_and_prices_may_change_on_resume(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        lineup = lineup_file(tmp_path, server.base_url)
        assert main(["run", "--lineup", str(lineup), "--games", "1", "--out", str(out), *SMALL, "--no-report"]) == 0
        printed = capsys.readouterr().out
        summary = json.loads((out / "summary.json").read_text())
        assert summary["tokens"]["cost_usd"] is None and summary["tokens"]["unpriced_models"] == ["fake"]
        assert "no price set for model fake" in printed and "$" not in printed
        # Prices are not what the run measures: the same run resumes (one more game) with a price set.
        lineup = lineup_file(tmp_path, server.base_url, {"fake": {"prompt": 1.0, "completion": 1.0}})
        assert main(["run", "--lineup", str(lineup), "--games", "2", "--out", str(out), *SMALL, "--no-report"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    tokens = summary["tokens"]
    assert summary["games"] == 2 and tokens["cost_usd"] == pytest.approx(
        (tokens["prompt_tokens"] + tokens["completion_tokens"]) / 1e6, abs=1e-6
    )


def test_a_model_free_run_prints_no_tokens(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["run", "--games", "2", "--players", "5", "--out", str(out), "--no-report"]) == 0
    printed = capsys.readouterr().out
    assert "token" not in printed.lower() and "cost" not in printed.lower()
    assert json.loads((out / "summary.json").read_text())["tokens"] == {}


def test_a_custom_transport_without_usage_is_estimated_in_the_game_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """A transport that reports no usage (any async ``complete``): its calls are estimated, and say so."""
    monkeypatch.setattr(token_usage, "_encoding_name", lambda model: None)

    async def my_model(messages: list[dict[str, str]], schema: dict[str, Any]) -> str:
        return '{"vote": null}'  # rarely valid: the env falls back, the call is still counted

    result = play_game_sync(
        {"num_players": 5, "max_rounds": 1, "max_debate_turns": 1},
        None,
        seed=3,
        policies=[LLMAgent(transport=my_model) for _ in range(5)],
    )
    usage = result.token_usage
    assert usage["calls"] > 0 and usage["by_model"]["my_model"]["estimated_calls"] == usage["calls"]
    assert usage["by_model"]["my_model"]["counter"] == "characters/4 estimate"
    assert result.tokens == {"prompt_tokens": usage["prompt_tokens"], "completion_tokens": usage["completion_tokens"]}
