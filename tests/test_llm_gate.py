"""One gate for every command that calls a model: the same preflight, circuit breaker and exit codes.

Each command runs against a dead server (a refused port) and a server that refuses the key (HTTP 401):
with the preflight it exits 2 within seconds, naming the endpoint; with ``--no-preflight`` the circuit
breaker stops it with exit 3. Nothing is mocked: real HTTP to the project's fake server on 127.0.0.1.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import played_run, run_copy
from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan, refused_url
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.labels import evaluate as claims_eval

SMALL = ["--players", "5", "--rounds", "1", "--debate-turns", "1"]
QUICK = ["--retries", "0", "--breaker", "1"]  # without the preflight: the breaker stops the command at once
PESKOV = Path(__file__).parent / "data" / "peskov2020_tiny"
KEY = "sk-right"
ITEM = {"text": "I am the seer and Bob is a werewolf.", "speaker": "Ann", "players": ["Ann", "Bob", "Cid"],
        "claims": [], "source": "mine"}  # fmt: skip

Command = Callable[[str, Path, list[str]], int]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played_run(tmp_path_factory.mktemp("played"), 1, *SMALL)


def _run(url: str, tmp: Path, extra: list[str]) -> int:
    return main(
        [
            "run",
            "--model",
            "fake",
            "--base-url",
            url,
            "--games",
            "1",
            "--out",
            str(tmp / "out"),
            *SMALL,
            "--no-report",
            "--quiet",
            *extra,
        ]
    )


def _tournament(url: str, tmp: Path, extra: list[str]) -> int:
    config = tmp / "t.toml"
    config.write_text(
        f'name = "t"\nblocks = 1\nplayers = 5\n[rules]\nmax_rounds = 1\nmax_debate_turns = 1\n'
        f'[[entrants]]\nkind = "heuristic"\n'
        f'[[entrants]]\nname = "m"\nkind = "llm"\nmodel = "fake"\nbase_url = "{url}"\n'
    )
    return main(["tournament", str(config), "--out", str(tmp / "out"), "--no-plots", "--quiet", *extra])


def _relabel(url: str, tmp: Path, extra: list[str], played: Path) -> int:
    source = run_copy(played, tmp)
    return main(
        [
            "relabel",
            str(source),
            "--labeler",
            "llm",
            "--model",
            "fake",
            "--base-url",
            url,
            "--out",
            str(tmp / "out"),
            "--quiet",
            *extra,
        ]
    )


def _rescore(url: str, tmp: Path, extra: list[str], played: Path) -> int:
    source = run_copy(played, tmp)
    return main(
        [
            "rescore",
            str(source),
            "--labeler",
            "fake",
            "--base-url",
            url,
            "--out",
            str(tmp / "out"),
            "--no-plots",
            *extra,
        ]
    )


def _detect_eval(url: str, tmp: Path, extra: list[str]) -> int:
    return main(
        [
            "detect-eval",
            "--dataset",
            "peskov2020",
            "--data-dir",
            str(PESKOV),
            "--out",
            str(tmp / "out"),
            "--detector",
            "llm-judge",
            "--judge-sample",
            "4",
            "--judge-model",
            "fake",
            "--judge-base-url",
            url,
            "--quiet",
            *extra,
        ]
    )


def _claims_eval(url: str, tmp: Path, extra: list[str]) -> int:
    data = tmp / "mine.jsonl"
    data.write_text(json.dumps(ITEM) + "\n")
    return claims_eval.main(
        [
            "--data",
            str(data),
            "--corpus",
            str(tmp / "nowhere"),
            "--labeler",
            "llm",
            "--model",
            "fake",
            "--base-url",
            url,
            *extra,
        ]
    )


COMMANDS: dict[str, Callable[..., int]] = {
    "run": _run, "tournament": _tournament, "relabel": _relabel, "rescore": _rescore, "detect-eval": _detect_eval,
    "claims_eval": _claims_eval,
}  # fmt: skip


@pytest.fixture(params=["dead", "401"])
def server_url(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-CANARY")
    if request.param == "dead":
        yield "dead", refused_url()
        return
    with FakeOpenAIServer(api_key=KEY) as server:
        yield "401", server.base_url


def _call(name: str, url: str, tmp: Path, extra: list[str], played: Path) -> int:
    command = COMMANDS[name]
    if name in ("relabel", "rescore"):
        return command(url, tmp, extra, played)
    return command(url, tmp, extra)


@pytest.mark.parametrize("preflight", [True, False], ids=["preflight", "no-preflight"])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_model_command_fails_fast_and_the_same_way(
    name: str,
    preflight: bool,
    server_url: tuple[str, str],
    played: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With the preflight: exit 2 before anything is played or written. Without it: the breaker, exit 3."""
    kind, url = server_url
    started = time.monotonic()
    code = _call(name, url, tmp_path, [] if preflight else ["--no-preflight", *QUICK], played)
    elapsed = time.monotonic() - started
    captured = capsys.readouterr()
    said = captured.err + captured.out
    assert code == (2 if preflight else 3), said
    assert elapsed < 20
    assert "127.0.0.1" in said and "CANARY" not in said and "Traceback" not in said
    if preflight:
        assert "preflight" in captured.err and ("unreachable" if kind == "dead" else "API key") in captured.err
        assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.ndjson")), "nothing played"
    else:
        assert ("401" if kind == "401" else "connect") in said.lower()


@pytest.mark.parametrize("preflight", [True, False], ids=["preflight", "no-preflight"])
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_inspect_tasks_llm_seats_pass_the_same_gate(
    preflight: bool, server_url: tuple[str, str], tmp_path: Path
) -> None:
    pytest.importorskip("inspect_ai", reason="the 'inspect' extra (inspect-ai) is not installed")
    from inspect_ai import eval as inspect_eval

    from werewolf_deception.benchmarks.integrations.inspect_registry import werewolf

    kind, url = server_url
    task = werewolf(games=2, players=5, rounds=1, debate_turns=1, preflight=preflight, breaker=1)
    started = time.monotonic()
    logs = inspect_eval(
        task, model="openai/fake", model_base_url=url, log_dir=str(tmp_path), display="none", max_retries=0, timeout=5
    )
    elapsed = time.monotonic() - started
    log = logs[0]
    assert log.status == "error", "a model that cannot answer does not play games on fallbacks"
    assert elapsed < 30
    message = log.error.message if log.error else ""
    assert ("preflight" in message) == preflight, message
    assert "127.0.0.1" in message and ("401" if kind == "401" else "connect") in message.lower(), message
    assert "CANARY" not in message
    assert not any((s.metadata.get("werewolf_game") or {}).get("finished") for s in log.samples or [])


@pytest.mark.parametrize("name", ["rescore", "claims_eval"])  # relabel's own: tests/test_relabel.py
def test_answers_that_are_never_valid_make_the_command_exit_4(
    name: str, played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Prose instead of JSON is the model's answer (no breaker), but nothing it labelled is a measurement."""
    with FakeOpenAIServer(faults=FaultPlan(rates={"malformed": 1.0})) as server:
        code = _call(name, server.base_url, tmp_path, ["--no-preflight"], played)
    captured = capsys.readouterr()
    assert code == 4, captured.err
    assert "INVALID" in captured.err or "INCOMPLETE" in captured.err + captured.out
