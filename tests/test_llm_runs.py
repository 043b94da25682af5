"""LLM runs end as a valid measurement or a fast, clear failure: the CLI against real HTTP servers.

Every test talks HTTP to the project's fake server (or to a port where nothing listens) on 127.0.0.1
through the real ``openai`` client; nothing is mocked.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan, refused_url
from werewolf_deception.benchmarks.cli.main import main
from werewolf_env.engine.log import read_log

SMALL = ["--players", "5", "--rounds", "1", "--debate-turns", "1", "--no-report", "--quiet"]
PATIENT = ["--timeout", "2", "--retries", "1", "--max-wait", "5"]


def run(out: Path, base_url: str, *extra: str, model: str = "fake") -> int:
    return main(["run", "--model", model, "--base-url", base_url, "--games", "1", "--out", str(out), *SMALL, *extra])


def calls(out: Path) -> list[dict[str, Any]]:
    return [
        r["data"]
        for path in sorted((out / "games").glob("*.ndjson"))
        for r in read_log(path)
        if r["type"] == "agent_record" and r["data"]["type"] == "llm_call"
    ]


def summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


# ---------------------------------------------------------------- preflight: exit 2 within seconds


def test_wrong_key_fails_the_preflight_fast_and_names_the_cause(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-CANARY-123456")
    with FakeOpenAIServer(api_key="sk-right") as server:
        started = time.monotonic()
        code = run(tmp_path / "r", server.base_url)
        elapsed = time.monotonic() - started
        chat = [h for h in server.headers_seen if h[":path"].endswith("/chat/completions")]
    err = capsys.readouterr().err
    assert code == 2 and elapsed < 10
    assert "lineup default" in err and "127.0.0.1" in err and "API key" in err and "$OPENAI_API_KEY" in err
    assert "CANARY" not in err
    assert len(chat) == 1, "a refused key is not retried"
    assert not (tmp_path / "r" / "games").exists(), "nothing was played"


def test_nothing_listening_fails_the_preflight_fast(tmp_path: Path, capsys) -> None:
    started = time.monotonic()
    code = run(tmp_path / "r", refused_url())
    assert code == 2 and time.monotonic() - started < 15
    assert "unreachable" in capsys.readouterr().err


def test_unknown_model_fails_the_preflight(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(models=("gemma",)) as server:
        code = run(tmp_path / "r", server.base_url, model="gpt-9")
    assert code == 2
    assert "does not know model 'gpt-9'" in capsys.readouterr().err


def test_a_url_with_credentials_is_redacted_in_messages(tmp_path: Path, capsys) -> None:
    url = refused_url().replace("http://", "http://user:hunter2@") + "?key=sekret"
    assert run(tmp_path / "r", url) == 2
    err = capsys.readouterr().err
    assert "hunter2" not in err and "sekret" not in err and "***" in err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--temperature", "nan"], "temperature"),
        (["--timeout", "-1"], "timeout"),
        (["--max-tokens", "5"], "--max-tokens"),
        (["--context-budget", "300"], "--context-budget"),
        (["--max-fallback-rate", "1.5"], "--max-fallback-rate"),
        (["--breaker", "0"], "--breaker"),
    ],
)
def test_bad_options_are_refused_before_anything_starts(tmp_path: Path, capsys, flags: list[str], message: str) -> None:
    try:
        code = run(tmp_path / "r", refused_url(), *flags)
    except SystemExit as refused:  # argparse's refusal of a count out of its bounds
        code = refused.code  # type: ignore[assignment]
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_a_malformed_url_and_a_bad_temperature_in_a_lineup_are_refused(tmp_path: Path, capsys) -> None:
    assert run(tmp_path / "r", "localhost:8080") == 2
    assert "not an http(s) URL" in capsys.readouterr().err
    lineup = tmp_path / "l.toml"
    lineup.write_text('[default]\nkind = "llm"\nmodel = "m"\ntemperature = "hot"\n')
    assert main(["run", "--lineup", str(lineup), "--out", str(tmp_path / "r2"), *SMALL]) == 2
    err = capsys.readouterr().err
    assert "lineup default" in err and "temperature" in err and "number" in err
    assert "'hot'" not in err  # text values are never quoted back: one may be a key put in the wrong place
    with pytest.raises(SystemExit) as bad:  # argparse refuses a word where a number goes, with exit 2
        run(tmp_path / "r3", refused_url(), "--temperature", "hot")
    assert bad.value.code == 2


# ---------------------------------------------------------------- during the run


def test_schema_500_steps_down_and_the_run_is_valid(tmp_path: Path) -> None:
    with FakeOpenAIServer(schema_error=True) as server:
        code = run(tmp_path / "r", server.base_url)
    assert code == 0
    records = calls(tmp_path / "r")
    assert records and all(r["response_format"] == "json_object_schema" for r in records), "learned in the preflight"
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    (probe,) = manifest["preflight"]
    assert probe["response_format"] == "json_object_schema"
    assert manifest["endpoints"][0]["models"]["fake"]["response_format"] == "json_object_schema"
    assert summary(tmp_path / "r")["validity"]["policies"]["llm:fake"]["overall"]["fallback_rate"] == 0.0


def test_schema_is_strict_and_targets_are_the_legal_names(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        assert run(tmp_path / "r", server.base_url) == 0
        bodies = [b for b in server.requests if (b.get("response_format") or {}).get("type") == "json_schema"]
    # votes come inside the day's last analyses (``werewolf_deception.agents.llm.folding``) or in calls of their own
    votes = [b for b in bodies if "vote" in b["response_format"]["json_schema"]["schema"]["properties"]]
    assert bodies and all(b["response_format"]["json_schema"]["strict"] is True for b in bodies)
    schema = votes[0]["response_format"]["json_schema"]["schema"]
    assert schema["additionalProperties"] is False
    name, null = schema["properties"]["vote"]["anyOf"]
    assert null == {"type": "null"} and "enum" in name
    analysis = next(b for b in bodies if b["response_format"]["json_schema"]["name"] == "peer_analysis")
    assert next(iter(analysis["response_format"]["json_schema"]["schema"]["properties"])) == "reasoning"


def test_a_dead_server_trips_the_breaker_and_keeps_finished_games(tmp_path: Path, capsys) -> None:
    out = tmp_path / "r"
    with FakeOpenAIServer() as server:
        assert run(out, server.base_url) == 0
        base_url, port = server.base_url, int(server.base_url.split(":")[2].split("/")[0])
    # The server is gone: the second game cannot be played, and the first must survive.
    started = time.monotonic()
    code = main(
        [
            "run",
            "--model",
            "fake",
            "--base-url",
            base_url,
            "--games",
            "2",
            "--out",
            str(out),
            *SMALL,
            "--no-preflight",
            *PATIENT,
            "--breaker",
            "3",
        ]
    )
    assert code == 3 and time.monotonic() - started < 30
    s = summary(out)
    assert s["status"] == "stopped" and s["headline"].startswith("RUN STOPPED") and "3 calls in a row" in s["headline"]
    assert s["games"] == 1
    results = [json.loads(line) for line in (out / "results.ndjson").read_text().splitlines() if line.strip()]
    assert [r["game"] for r in results if r["status"] == "ok"] == ["seed0"], "the stopped game is not recorded"
    assert len(list((out / "games").glob("*.ndjson"))) == 1
    capsys.readouterr()
    with FakeOpenAIServer(port=port) as server:  # back up: the same command resumes and finishes
        code = main(
            [
                "run",
                "--model",
                "fake",
                "--base-url",
                server.base_url,
                "--games",
                "2",
                "--out",
                str(out),
                *SMALL,
                *PATIENT,
            ]
        )
    assert code == 0 and summary(out)["games"] == 2


def test_a_trickling_server_cannot_hold_a_call_past_its_deadline(tmp_path: Path) -> None:
    with FakeOpenAIServer(trickle=0.05) as server:  # a ~300-byte answer would take 15 s
        started = time.monotonic()
        code = run(
            tmp_path / "r", server.base_url, "--no-preflight", "--timeout", "0.5", "--retries", "0", "--breaker", "4"
        )
        elapsed = time.monotonic() - started
    assert code == 3
    assert elapsed < 15, f"{elapsed:.1f}s: calls were held past the 0.5 s deadline"
    assert "deadline" in summary(tmp_path / "r")["headline"]


def test_a_refused_connection_mid_run_is_the_breaker_not_a_hang(tmp_path: Path) -> None:
    started = time.monotonic()
    code = run(tmp_path / "r", refused_url(), "--no-preflight", "--retries", "0")
    assert code == 3 and time.monotonic() - started < 20
    assert "connect" in summary(tmp_path / "r")["headline"].lower()


def test_too_many_fallbacks_make_the_run_invalid(tmp_path: Path, capsys) -> None:
    plan = FaultPlan(rates={"malformed": 0.6}, seed=1)
    with FakeOpenAIServer(faults=plan) as server:
        code = run(tmp_path / "r", server.base_url, "--no-preflight")
    assert code == 4
    s = summary(tmp_path / "r")
    assert s["status"] == "invalid" and s["headline"].startswith("INVALID RUN: llm:fake")
    overall = s["validity"]["policies"]["llm:fake"]["overall"]
    assert overall["fallback_rate"] > 0.10 and overall["answered_rate"] < 1


def test_the_response_cache_makes_a_resumed_run_free(tmp_path: Path) -> None:
    out = tmp_path / "r"
    with FakeOpenAIServer() as server:
        assert run(out, server.base_url, "--temperature", "0.8") == 0
        asked = len(server.requests)
        # As if killed just before the game was recorded: its line and log are gone.
        (out / "results.ndjson").unlink()
        for log in (out / "games").glob("*.ndjson"):
            log.unlink()
        assert run(out, server.base_url, "--temperature", "0.8") == 0
        preflight = [b for b in server.requests[asked:] if "PLAYERS:" not in json.dumps(b)]
        assert len(server.requests) == asked + len(preflight) == asked + 3, "only the preflight's probes were new"
    assert all(r["cached"] for r in calls(out))


def test_the_concurrency_cap_holds_across_games_and_one_client_per_endpoint(tmp_path: Path) -> None:
    import asyncio

    from werewolf_deception.agents.llm.endpoints import EndpointPool
    from werewolf_deception.agents.play.lineup import load_lineup
    from werewolf_deception.benchmarks.runs.loop import Job, RunDir, play_run
    from werewolf_env import GameConfig

    with FakeOpenAIServer(latency=0.02) as server:
        lineup = load_lineup({"default": {"kind": "llm", "model": "fake", "base_url": server.base_url}})
        run_dir = RunDir(tmp_path / "r")
        jobs = [Job(f"g{i}", i, lineup) for i in range(4)]
        run_dir.open({"lineup": "x"}, [j.id for j in jobs])
        config = GameConfig(num_players=5, num_werewolves=1, max_rounds=1, max_debate_turns=1)

        async def go() -> int:
            pool = EndpointPool(concurrency=2)
            await play_run(run_dir, config, jobs, concurrency=2, pool=pool)
            count = len(pool.endpoints())
            await pool.aclose()
            return count

        assert asyncio.run(go()) == 1
        assert server.max_in_flight <= 2, f"{server.max_in_flight} calls at once with a cap of 2"


def test_templates_that_drop_system_messages_are_detected(tmp_path: Path) -> None:
    with FakeOpenAIServer(drop_system=True) as server:
        assert run(tmp_path / "r", server.base_url) == 0
    records = calls(tmp_path / "r")
    assert all(len(r["messages"]) == 1 and r["messages"][0]["role"] == "user" for r in records)
    assert "RULES:" in records[0]["messages"][0]["content"]
    with FakeOpenAIServer() as server:
        assert run(tmp_path / "s", server.base_url) == 0
    assert calls(tmp_path / "s")[0]["messages"][0]["role"] == "system"


def test_call_records_keep_request_ids_rate_limits_and_the_budget(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        assert run(tmp_path / "r", server.base_url) == 0
    record = calls(tmp_path / "r")[0]
    assert record["request_id"].startswith("req_")
    assert "x-ratelimit-remaining-requests" in record["rate_limit"]
    assert record["prompt_budget"]["budget"] == 4096 and record["finish_reason"] == "stop"
