"""Secrets in a base URL (``user:password@``, ``?key=``) and the API key reach the server and nothing else:
no file of a run (logs, cache, manifest, summary), no printed line, no log record, no exception text,
whatever the server does (answers, 401, 500, drops). Real HTTP to the fake server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.credentials import redact_url, scrub, split_url
from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan, refused_url
from werewolf_deception.agents.llm.agent import LLMAgent
from werewolf_deception.agents.llm.endpoints import EndpointDownError
from werewolf_deception.agents.llm.options import validate_options
from werewolf_deception.benchmarks.cli.main import main

SECRET = "s3cret"
API_KEY = f"sk-{SECRET}"
SMALL = ["--players", "5", "--rounds", "1", "--debate-turns", "1", "--no-report", "--quiet"]
PATIENT = ["--timeout", "2", "--retries", "1", "--max-wait", "5", "--breaker", "3"]
GAME = {"num_players": 5, "num_werewolves": 1, "max_debate_turns": 1, "max_rounds": 1}
FAST = {"timeout": 2.0, "backoff": 0.01, "max_backoff": 0.05, "max_wait": 5.0, "retries": 1}


def secret_url(base_url: str) -> str:
    return f"http://user:{SECRET}@127.0.0.1:{urlsplit(base_url).port}/v1?key={SECRET}"


def leaks(folder: Path) -> list[str]:
    """Every file under ``folder`` whose name or content holds the secret."""
    return [
        str(p) for p in folder.rglob("*") if SECRET in p.name or (p.is_file() and SECRET.encode() in p.read_bytes())
    ]


def chat_paths(server: FakeOpenAIServer) -> list[str]:
    return [h[":path"] for h in server.headers_seen if "/chat/completions" in h[":path"]]


@pytest.fixture
def keyed(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The key in the environment, and every log record captured (httpx logs URLs at INFO, openai at DEBUG)."""
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    caplog.set_level(logging.DEBUG)


# ------------------------------------------------------------------------- a whole run, through the CLI


@pytest.mark.parametrize(("fault", "expected"), [(None, 0), ("500", 0), ("drop", 0), ("401", 3)])
def test_a_run_keeps_no_secret_of_its_base_url_or_key(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    keyed: None,
    fault: str | None,
    expected: int,
) -> None:
    out = tmp_path / "r"
    plan = FaultPlan(schedule=dict.fromkeys(range(6, 400, 9), fault) if fault else {})
    with FakeOpenAIServer(api_key=API_KEY, faults=plan, echo_path=True) as server:
        code = main(
            [
                "run",
                "--model",
                "fake",
                "--base-url",
                secret_url(server.base_url),
                "--games",
                "1",
                "--out",
                str(out),
                *SMALL,
                *PATIENT,
            ]
        )
        paths, answered = chat_paths(server), len(server.requests)
    assert code == expected
    assert answered > 5, "the key went out as the bearer token: the server answered"
    assert paths and all(p.endswith(f"?key={SECRET}") for p in paths), "the query went with every request"
    if fault:
        assert any(f == fault for _, f in server.faults_sent)
    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err
    assert SECRET not in caplog.text
    assert leaks(out) == []


def test_a_refused_key_fails_the_preflight_without_showing_any_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, keyed: None
) -> None:
    with FakeOpenAIServer(api_key="sk-another", echo_path=True) as server:  # its 401 text repeats the path and key
        code = main(
            [
                "run",
                "--model",
                "fake",
                "--base-url",
                secret_url(server.base_url),
                "--games",
                "1",
                "--out",
                str(tmp_path / "r"),
                *SMALL,
            ]
        )
    err = capsys.readouterr().err
    assert code == 2 and "refused the API key" in err and "user:password in base_url" in err
    assert SECRET not in err and SECRET not in caplog.text
    assert leaks(tmp_path) == []


# ------------------------------------------------------------------------- games and the cache, agents only


@pytest.mark.parametrize("fault", [None, "500", "drop", "401"])
def test_game_logs_and_the_cache_keep_no_secret(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    keyed: None,
    fault: str | None,
) -> None:
    plan = FaultPlan(schedule=dict.fromkeys(range(4, 400, 9), fault) if fault else {})
    with FakeOpenAIServer(api_key=API_KEY, faults=plan, echo_path=True) as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": secret_url(server.base_url), **FAST}}
        try:
            result = play_game_sync(GAME, lineup, seed=3, log_dir=tmp_path / "games", cache_dir=tmp_path / "cache")
            assert result.policy_errors == 0
        except EndpointDownError as exc:  # a refused key stops the game: its text is shown to the user
            assert fault == "401" and SECRET not in str(exc) and "401" in str(exc)
        answered = len(server.requests)
    assert answered > 3
    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err + caplog.text
    assert list((tmp_path / "games").glob("*.ndjson")) and leaks(tmp_path) == []
    if fault is None:
        assert list((tmp_path / "cache").rglob("*.json")), "answers were cached"


def test_unexpected_errors_leave_the_agent_scrubbed(keyed: None) -> None:
    """An exception from inside a turn is recorded by the runner: its text must not carry the URL's secrets."""
    with FakeOpenAIServer(api_key=API_KEY) as server:
        agent = LLMAgent(model="fake", base_url=secret_url(server.base_url), **FAST)

        async def turn() -> None:
            try:
                await agent.aact({"text": f"see {secret_url(server.base_url)}"}, {"action_kind": "no-such-kind"})
            finally:
                await agent.aclose()

        with pytest.raises(RuntimeError) as raised:
            asyncio.run(turn())
    assert SECRET not in str(raised.value) and "ValueError" in str(raised.value)
    assert SECRET not in repr(agent) and SECRET not in repr(agent.options) and SECRET not in repr(agent.connection)


BID_TURN = ({"text": 'NOW: bid\nAnswer with exactly one JSON object: {"bid": 3}'},
            {"action_kind": "bid", "legal_targets": [], "max_bid": 10})  # fmt: skip


@pytest.mark.parametrize(("key", "scheme"), [(API_KEY, "Bearer"), (None, "Basic")])
def test_url_credentials_go_as_basic_auth_only_when_no_api_key_is_set(
    monkeypatch: pytest.MonkeyPatch, key: str | None, scheme: str
) -> None:
    if key is None:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    else:
        monkeypatch.setenv("OPENAI_API_KEY", key)
    with FakeOpenAIServer() as server:
        agent = LLMAgent(model="fake", base_url=secret_url(server.base_url), **FAST)

        async def turn() -> object:
            try:
                return await agent.aact(*BID_TURN)
            finally:
                await agent.aclose()

        assert "bid" in asyncio.run(turn())  # type: ignore[operator]
        seen = list(server.headers_seen)
    assert seen and {h.get(":auth-scheme") for h in seen} == {scheme}
    assert all(h[":path"] == f"/v1/chat/completions?key={SECRET}" for h in seen)


def test_preflight_and_endpoint_summaries_are_redacted(keyed: None) -> None:
    from werewolf_deception.agents.llm.endpoints import EndpointPool
    from werewolf_deception.agents.play.lineup import load_lineup
    from werewolf_deception.agents.play.probes import preflight

    url = secret_url(refused_url())
    lineup = load_lineup({"default": {"kind": "llm", "model": "m", "base_url": url, **FAST}})

    async def go() -> tuple[list[str], list[dict[str, object]]]:
        pool = EndpointPool(breaker=1)
        try:
            results = await preflight(lineup.llm_sections(), pool)
            return [str(r.to_json()) + r.message() for r in results], pool.state()
        finally:
            await pool.aclose()

    texts, state = asyncio.run(go())
    assert texts and all(SECRET not in t and "unreachable" in t for t in texts)
    assert SECRET not in str(state) and SECRET not in repr(lineup) and SECRET not in str(lineup.public_dump())


# ------------------------------------------------------------------------- the redaction itself

secret_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=4, max_size=24)


@given(secret_text, st.sampled_from(["password", "query", "bare query", "fragment", "second query"]))
@settings(max_examples=200, deadline=None)
def test_redact_url_never_shows_userinfo_query_values_or_fragments(secret: str, where: str) -> None:
    from urllib.parse import quote

    secret = f"Z9{secret}Q"  # nothing else in the URL looks like it
    encoded = quote(secret, safe="")
    url = {
        "password": f"https://user:{encoded}@host.example:8443/v1",
        "query": f"https://host.example/v1?key={encoded}",
        "bare query": f"https://host.example/v1?{encoded}",
        "fragment": f"https://host.example/v1#{encoded}",
        "second query": f"https://host.example/v1?api-version=1&token={encoded}",
    }[where]
    shown = redact_url(url)
    assert encoded not in shown and secret not in shown
    assert shown.startswith("https://") and "host.example" in shown
    plain, query, _user, password = split_url(url)
    assert encoded not in plain, "what the client is given holds no secret"
    assert secret in [password, *(v for _, v in query)] or where in ("bare query", "fragment")


def test_redact_url_keeps_what_identifies_the_server() -> None:
    assert redact_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"
    assert redact_url("http://u:p@[::1]:8080/v1?k=v&x=y#frag") == "http://***@[::1]:8080/v1?k=***&x=***#***"
    assert redact_url("http://host:notaport/v1") == "<unparseable URL>"


def test_scrub_removes_urls_query_values_auth_headers_and_known_secrets() -> None:
    text = (
        f"Invalid URL (POST /v1/chat/completions?key={SECRET}) at http://u:{SECRET}@h/v1?key={SECRET}; "
        f"Authorization: Bearer {API_KEY}; again {SECRET}, p%40ss; Basic authentication failed"
    )
    cleaned = scrub(text, [SECRET, API_KEY, "p@ss"])
    assert "p%40ss" not in cleaned, "a secret is also removed in its URL-encoded form"
    assert SECRET not in cleaned and "Bearer ***" in cleaned and "Basic authentication failed" in cleaned
    assert "/v1/chat/completions?key=***" in cleaned and "http://***@h/v1?key=***" in cleaned


def test_options_messages_redact_a_bad_url() -> None:
    with pytest.raises(ValueError) as bad:
        validate_options({"model": "m", "base_url": f"ftp://user:{SECRET}@host/v1?key={SECRET}"}, where="lineup x")
    assert "lineup x: base_url" in str(bad.value) and SECRET not in str(bad.value)
