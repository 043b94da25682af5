"""Every option is validated before anything starts: a bad value exits 2 with one readable line, before the
preflight's first request and before any folder is made (issue 31, item 6); the games bound and a manifest
that does not grow with --games (item 4); unusable --out targets (item 9)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.agents.llm.options import validate_options
from werewolf_deception.agents.play.lineup import load_lineup
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.console.values import MAX_GAMES, MAX_SEED
from werewolf_deception.benchmarks.runs.folder import RunDir, RunMismatchError
from werewolf_env import GameConfig

from .cli_refusals import refused_line

SMALL = ["--games", "1", "--players", "5", "--no-report", "--quiet"]


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as running:
        yield running


def refused(argv: list[str], folder: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``argv`` in ``folder``; check it exits 2 with one line, no request and nothing written; the line."""
    asked = len(server.requests)
    line = refused_line(argv, folder, capsys)
    assert len(server.requests) == asked, "the preflight ran before the options were checked"
    return line


def llm(server: FakeOpenAIServer) -> list[str]:
    return ["run", *SMALL, "--model", "m", "--base-url", server.base_url]


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--concurrency", "0"], "--concurrency"),
        (["--concurrency", "-4"], "--concurrency"),
        (["--seed", "-5"], "--seed"),
        (["--seed", str(MAX_SEED + 1)], "--seed"),
        (["--workers", "0"], "--workers"),
        (["--baseline-games", "-3"], "--baseline-games"),
        (["--games", "0"], "--games"),
        (["--games", "1000000000000"], f"{MAX_GAMES}"),
        (["--games", "1e3"], "--games"),
        (["--rounds", "0"], "--rounds"),
        (["--players", "100"], "--players"),
        (["--debate-turns", "1000000000"], "--debate-turns"),
        (["--debate-turns", "1e9"], "--debate-turns"),
        (["--role-counts", "witch=9"], "do not fit"),
        (["--llm-seed", "-1"], "--llm-seed"),
        (["--breaker", "0"], "--breaker"),
        (["--bogus\x1b]0;title\x07"], "unrecognized"),
    ],
)
def test_a_bad_run_option_is_one_line_before_the_preflight(
    extra: list[str], named: str, tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = llm(server)
    argv[argv.index("--games") : argv.index("--games") + 2] = []  # tested cases give their own
    line = refused(
        [*argv, "--games", "1", *extra] if "--games" not in extra else [*argv, *extra], tmp_path, server, capsys
    )
    assert named in line


def lineup_file(folder: Path, data: object, name: str = "lineup.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(data))
    return path


def test_a_lineup_seat_the_game_does_not_have(
    tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = {"kind": "llm", "model": "m", "base_url": server.base_url}
    path = lineup_file(tmp_path, {"default": spec, "seats": {"player_9": "random"}})
    line = refused(["run", *SMALL, "--lineup", str(path)], tmp_path, server, capsys)
    assert "player_9" in line and "player_4" in line


@pytest.mark.parametrize("field", ["model", "messages", "stream", "n", "max_tokens", "response_format", "tools"])
def test_extra_body_may_not_override_the_request(
    field: str, tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = {"kind": "llm", "model": "m", "base_url": server.base_url, "extra_body": {field: "x", "top_k": 20}}
    line = refused(["run", *SMALL, "--lineup", str(lineup_file(tmp_path, {"default": spec}))], tmp_path, server, capsys)
    assert "extra_body" in line and repr(field) in line
    with pytest.raises(ValueError, match="extra_body"):
        validate_options({"model": "m", "extra_body": {field: 1}})
    assert validate_options({"model": "m", "extra_body": {"top_k": 20}}).extra_body == {"top_k": 20}


@pytest.mark.parametrize("kind", ["toml", "json"])
def test_a_deeply_nested_lineup_is_refused(
    kind: str, tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"deep.{kind}"
    if kind == "toml":
        path.write_text("default = 'heuristic'\nx = " + "[" * 5_000 + "]" * 5_000 + "\n")
    else:
        path.write_text("[" * 100_000 + "]" * 100_000)
    line = refused(["run", *SMALL, "--lineup", str(path)], tmp_path, server, capsys)
    assert str(path) in line and "nested" in line


def test_a_lineup_nested_within_the_parser_but_too_deep_for_the_run(tmp_path: Path) -> None:
    deep: object = 1
    for _ in range(200):
        deep = {"a": deep}
    with pytest.raises(ValueError, match="nested"):
        load_lineup(lineup_file(tmp_path, {"default": {"kind": "llm", "model": "m", "extra_body": {"x": deep}}}))


def test_a_lineup_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    toml = tmp_path / "bom.toml"
    toml.write_bytes(b"\xef\xbb\xbfdefault = 'random'\n")
    jsonl = tmp_path / "bom.json"
    jsonl.write_bytes(b'\xef\xbb\xbf{"default": "random"}')
    assert load_lineup(toml).default.kind == "random" and load_lineup(jsonl).default.kind == "random"
    assert main(["run", *SMALL, "--lineup", str(toml), "--out", str(tmp_path / "r")]) == 0


def test_openai_base_url_is_validated_like_base_url(
    tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "localhost:8080")
    line = refused(["run", *SMALL, "--model", "m"], tmp_path, server, capsys)
    assert "OPENAI_BASE_URL" in line and "http(s) URL" in line
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)  # a good one is used
    assert validate_options({"model": "m"}).endpoint() == server.base_url


@pytest.mark.parametrize("kind", ["dangling", "loop", "file-parent"])
def test_an_unusable_out_is_exit_2(
    kind: str, tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    if kind == "dangling":
        out.symlink_to(tmp_path / "missing")
    elif kind == "loop":
        out.symlink_to(tmp_path / "other")
        (tmp_path / "other").symlink_to(out)
    else:
        (tmp_path / "a-file").write_text("mine\n")
        out = tmp_path / "a-file" / "out"
    line = refused([*llm(server), "--out", str(out)], tmp_path, server, capsys)
    assert str(out) in line


def test_out_at_a_file_is_refused_before_the_preflight(
    tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("mine\n")
    assert "is a file" in refused([*llm(server), "--out", str(tmp_path / "a-file")], tmp_path, server, capsys)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["play", "--seed", "-1"], "--seed"),
        (["play", "--players", "100"], "--players"),
        (["detect-eval", "--workers", "0"], "--workers"),
        (["detect-eval", "--rollouts", "0"], "--rollouts"),
        (["detect-eval", "--determinizations", "0"], "--determinizations"),
        (["detect-eval", "--players", "100"], "--players"),
        (["detect-eval", "--judge-sample", "-1"], "--judge-sample"),
        (["detect-eval", "--train-games", "0"], "--train-games"),
        (["detect-eval", "--seed", "-1"], "--seed"),
        (["rescore", "somewhere", "--labeler", "heuristic", "--concurrency", "0"], "--concurrency"),
        (["tournament", "t.toml", "--concurrency", "0"], "--concurrency"),
        (["tournament", "t.toml", "--workers", "0"], "--workers"),
        (["tournament", "t.toml", "--baseline-games", "-1"], "--baseline-games"),
    ],
)
def test_other_commands_refuse_bad_counts_and_seeds(
    argv: list[str], named: str, tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert named in refused(argv, tmp_path, server, capsys)


def test_a_config_problem_is_one_readable_line() -> None:
    from werewolf_deception.benchmarks.console.values import game_config_of

    with pytest.raises(ValueError) as refusal:
        game_config_of({"num_players": 5, "max_rounds": 0, "role_counts": {"witch": 9}})
    text = str(refusal.value)
    assert "\n" not in text and "--rounds" in text and "pydantic" not in text


def test_games_help_names_the_maximum(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert f"at most {MAX_GAMES:,} per run" in " ".join(capsys.readouterr().out.split())


# ------------------------------------------------------------------ the manifest does not grow with --games


def manifest_size(folder: Path, games: int, first: int = 0) -> int:
    run = RunDir(folder)
    config = {"config": GameConfig(num_players=5).model_dump(mode="json")}
    try:
        run.open(config, [f"seed{s}" for s in range(first, first + games)], seeds=list(range(first, first + games)))
    finally:
        run.close()
    return len((folder / "manifest.json").read_bytes())


def test_the_manifest_does_not_grow_with_games(tmp_path: Path) -> None:
    small = manifest_size(tmp_path / "small", 10)
    large = manifest_size(tmp_path / "large", MAX_GAMES)
    assert large - small < 16  # the digits of the count


def test_a_run_with_a_listed_manifest_resumes_and_extends(tmp_path: Path) -> None:
    """A manifest written before the compact form (games and seeds listed) is still read."""
    config = {"config": GameConfig(num_players=5).model_dump(mode="json")}
    manifest = {"schema_version": 1, "kind": "run", "label": "heuristic", **config,
                "games": ["seed0", "seed1"], "seeds": [0, 1]}  # fmt: skip
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunMismatchError):
        with RunDir(tmp_path) as run:
            run.open(config, ["seed1", "seed2"], seeds=[1, 2])
    with RunDir(tmp_path) as run:
        assert run.open(config, ["seed0", "seed1", "seed2"], seeds=[0, 1, 2]) == {}
    assert manifest_size(tmp_path, 3) == len((tmp_path / "manifest.json").read_bytes())
    with pytest.raises(RunMismatchError):  # fewer games than the run holds
        manifest_size(tmp_path, 2)


def test_a_hand_edited_manifest_range_is_refused_without_expanding_it(tmp_path: Path) -> None:
    manifest_size(tmp_path, 3)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["seeds"] = {"first": 0, "last": 10**15}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunMismatchError):
        manifest_size(tmp_path, 3)


def test_a_different_run_in_out_is_refused_before_the_preflight(
    tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert main(["run", *SMALL, "--out", str(out)]) == 0
    line = refused([*llm(server), "--out", str(out)], tmp_path, server, capsys)
    assert "holds a different run" in line
