"""``werewolf-bench export``: runs as a dataset (Parquet / JSON Lines) with its card.

Real runs are played through the CLI (heuristic; an LLM run against the project's fake OpenAI server;
a mixed lineup whose LLM werewolves meet a faulty server, so fallbacks occur), exported, and read back
with pyarrow and pandas; every figure checked here is counted straight from the logs' events.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from werewolf_deception.agents.fake.answers import scripted_answer
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.export import dataset as export_module
from werewolf_deception.benchmarks.export.schema import GAME_COLUMNS, HIDDEN_PREFIX, STATEMENT_COLUMNS, game_id_of
from werewolf_env.engine.log import read_log

SMALL = ["--players", "5", "--rounds", "2", "--no-report", "--quiet"]
# The columns a player at the table could see, and run metadata: everything else must be hidden_.
PUBLIC_STATEMENTS = {"run_id", "game_id", "round", "phase", "statement_id", "turn", "speaker_seat",
                     "speaker_name", "text", "claims", "truncated"}  # fmt: skip
PUBLIC_GAMES = {"run_id", "game_id", "package_version", "config", "num_players", "names", "lineup",
                "winner", "rounds", "truncated", "statements", "actions", "fallbacks", "prompt_tokens",
                "completion_tokens", "cached_tokens"}  # fmt: skip


def sloppy(prompt: str) -> dict[str, Any]:
    """The fake server's answers, but always bidding for the floor, with a claim the env must drop in every
    statement, and unusable for every self-analysis and some peer analyses: those fall back (a repair does
    not help). A statement with no usable text would be a pass, not a statement."""
    answer = scripted_answer(prompt)
    if "bid" in answer:
        return {"bid": 10}
    if "statement" in answer:
        return {"statement": answer["statement"], "claims": [{"kind": "nonsense", "player": "Nobody"}]}
    if "is_deceptive" in answer and answer.get("suspicion", 0) < 0.5:
        return {"oops": True}
    return answer


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    out = {"heuristic": root / "heuristic", "llm": root / "llm", "mixed": root / "mixed"}
    assert main(["run", "--games", "3", "--out", str(out["heuristic"]), *SMALL]) == 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", "sk-test")
        with FakeOpenAIServer() as server:
            assert (
                main(
                    [
                        "run",
                        "--model",
                        "fake",
                        "--base-url",
                        server.base_url,
                        "--games",
                        "2",
                        "--out",
                        str(out["llm"]),
                        *SMALL,
                    ]
                )
                == 0
            )
        with FakeOpenAIServer(answer=sloppy) as server:
            llm = {"kind": "llm", "model": "fake", "base_url": server.base_url, "retries": 0}
            lineup = root / "lineup.json"
            lineup.write_text(json.dumps({"default": "heuristic", "teams": {"werewolf": llm}}))
            code = main(["run", "--lineup", str(lineup), "--games", "2", "--out", str(out["mixed"]), *SMALL])
            assert code in (0, 4)  # 4: the LLM seat's fallback rate is over the limit; the games are kept
    return out


@pytest.fixture(scope="module")
def exported(runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "dataset"
    assert main(["export", *map(str, runs.values()), "--out", str(out)]) == 0
    return out


def logs(runs: dict[str, Path]) -> dict[str, list[dict[str, Any]]]:
    """Every exported game's records by game_id, read by the project's reader."""
    return {
        game_id_of(run.name, path.stem): read_log(path)
        for run in runs.values()
        for path in sorted((run / "games").glob("*.ndjson"))
    }


def events(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("type") == kind]


def test_round_trip_counts_types_and_values(runs: dict[str, Path], exported: Path) -> None:
    statements = pq.read_table(exported / "statements" / "train.parquet")
    games = pq.read_table(exported / "games" / "data.parquet")
    by_game = logs(runs)
    assert games.num_rows == len(by_game) == 7
    assert statements.num_rows == sum(len(events(r, "statement")) for r in by_game.values()) > 0
    assert statements.schema.names == [name for name, _, _ in STATEMENT_COLUMNS]
    assert games.schema.names == [name for name, _, _ in GAME_COLUMNS]
    types = statements.schema
    assert pa.types.is_int32(types.field("round").type) and pa.types.is_int64(types.field("hidden_seed").type)
    assert pa.types.is_boolean(types.field("hidden_lie").type)
    assert pa.types.is_float64(types.field("hidden_mean_peer_suspicion").type)
    assert pa.types.is_string(types.field("text").type)
    claims = types.field("claims").type
    assert pa.types.is_list(claims) and pa.types.is_struct(claims.value_type)
    assert pa.types.is_int32(claims.value_type.field("player").type)
    peers = types.field("hidden_peer_analyses").type.value_type
    assert pa.types.is_boolean(peers.field("fallback").type) and pa.types.is_float64(peers.field("confidence").type)
    assert pa.types.is_list(games.schema.field("hidden_roles").type)

    rows = {(r["game_id"], r["statement_id"]): r for r in statements.to_pylist()}
    game_rows = {r["game_id"]: r for r in games.to_pylist()}
    fallbacks_seen = 0
    for game_id, records in by_game.items():
        header = records[0]
        roles = events(records, "roles")[0]["data"]["roles"]
        game = game_rows[game_id]
        over = events(records, "game_over")[0]["data"]
        assert game["hidden_seed"] == header["seed"] and game["hidden_roles"] == roles
        assert game["winner"] == over["winner"] and game["truncated"] == over["truncated"]
        assert game["statements"] == len(events(records, "statement"))
        calls = [r["data"] for r in events(records, "agent_record") if r["data"].get("type") == "llm_call"]
        usage = [c.get("usage") or {} for c in calls]
        assert game["prompt_tokens"] == sum(u.get("prompt_tokens", 0) for u in usage)
        assert game["completion_tokens"] == sum(u.get("completion_tokens", 0) for u in usage)
        actions = events(records, "action")
        assert game["fallbacks"] == sum("fallbacks" in a["data"] for a in actions) == sum(game["hidden_seat_fallbacks"])
        fallbacks_seen += game["fallbacks"]
        lineup = next(r["data"]["policies"] for r in events(records, "agent_record") if r["data"]["type"] == "lineup")
        assert game["hidden_seat_policies"] == lineup
        truth = {e["data"]["statement_id"]: e["data"] for e in events(records, "ground_truth")}
        for event in events(records, "statement"):
            data = event["data"]
            row = rows[(game_id, data["statement_id"])]
            assert row["text"] == data["text"] and row["speaker_seat"] == data["speaker"]
            assert row["round"] == event["round"]
            assert row["speaker_name"] == events(records, "game_start")[0]["data"]["names"][data["speaker"]]
            assert row["hidden_speaker_role"] == roles[data["speaker"]]
            assert row["hidden_speaker_policy"] == lineup[data["speaker"]]
            assert row["hidden_lie"] == truth[data["statement_id"]]["lie"]
            assert len(row["claims"]) == len(data["claims"])
            assert [c["player"] for c in row["claims"]] == [c["player"] for c in data["claims"]]
            assert [c["known_false"] for c in row["hidden_claims"]] == [
                c["known_false"] for c in truth[data["statement_id"]]["claims"]
            ]
    assert fallbacks_seen > 0, "the sloppy answers fell back"


def test_analyses_and_fallback_flags_equal_the_logs(runs: dict[str, Path], exported: Path) -> None:
    rows = {(r["game_id"], r["statement_id"]): r for r in pq.read_table(exported / "statements").to_pylist()}
    for game_id, records in logs(runs).items():
        statement_id, said = None, None
        analyses: Counter[tuple[int, str]] = Counter()
        for rec in records:
            data = rec.get("data") or {}
            if rec.get("type") == "statement":
                statement_id = data["statement_id"]
                assert rows[(game_id, statement_id)]["hidden_statement_fallback"] == ("fallbacks" in said)
            elif rec.get("type") == "action" and data["kind"] == "statement":
                said = data
            elif rec.get("type") == "action" and data["kind"] == "self_analysis":
                row = rows[(game_id, statement_id)]
                assert row["hidden_self_is_deceptive"] == data["parsed"]["is_deceptive"]
                assert row["hidden_self_confidence"] == pytest.approx(data["parsed"]["confidence"])
                assert row["hidden_self_fallback"] == ("fallbacks" in data)
            elif rec.get("type") == "action" and data["kind"] == "peer_analysis":
                peer = next(
                    p
                    for p in rows[(game_id, statement_id)]["hidden_peer_analyses"]
                    if p["observer_seat"] == rec["actor"]
                )
                assert peer["is_deceptive"] == data["parsed"]["is_deceptive"]
                assert peer["fallback"] == ("fallbacks" in data)
                analyses[(statement_id, "peer")] += 1
        for (sid, _), count in analyses.items():
            row = rows[(game_id, sid)]
            assert len(row["hidden_peer_analyses"]) == count
            answered = [p for p in row["hidden_peer_analyses"] if not p["fallback"]]
            assert row["hidden_peers_answered"] == len(answered)
            scores = [p["suspicion"] for p in answered if p["suspicion"] is not None]
            mean = row["hidden_mean_peer_suspicion"]
            assert (mean is None) if not scores else mean == pytest.approx(sum(scores) / len(scores))


def test_fallbacks_are_flagged(exported: Path) -> None:
    mixed = [r for r in pq.read_table(exported / "statements").to_pylist() if r["run_id"] == "mixed"]
    llm = [r for r in mixed if r["hidden_speaker_policy"] == "llm:fake"]
    assert llm and all(r["hidden_statement_fallback"] and r["hidden_self_fallback"] for r in llm)
    assert not any(r["hidden_statement_fallback"] for r in mixed if r["hidden_speaker_policy"] == "heuristic")
    peers = [p for r in mixed for p in r["hidden_peer_analyses"]]
    assert any(p["fallback"] for p in peers) and not all(p["fallback"] for p in peers)


def test_models_per_seat_for_llm_and_mixed_runs(exported: Path) -> None:
    games = pq.read_table(exported / "games").to_pylist()
    for game in games:
        for policy, model in zip(game["hidden_seat_policies"], game["hidden_seat_models"], strict=True):
            assert model == ("fake" if policy == "llm:fake" else None)
    assert {g["lineup"] for g in games} == {"heuristic", "llm:fake", "heuristic+llm:fake"}


def test_pandas_reads_typed_columns(exported: Path) -> None:
    import pandas as pd  # the reader most users load the dataset with

    statements = pd.read_parquet(exported / "statements" / "train.parquet")
    games = pd.read_parquet(exported / "games" / "data.parquet")
    assert statements["round"].dtype == "int32" and statements["hidden_seed"].dtype == "int64"
    assert statements["hidden_lie"].dtype == bool and statements["truncated"].dtype == bool
    assert statements["hidden_self_confidence"].dtype == "float64"
    assert pd.api.types.is_string_dtype(statements["text"])
    assert isinstance(statements["claims"].iloc[0][0], dict) and isinstance(games["names"].iloc[0][0], str)
    expected = games.set_index("game_id")["statements"]
    assert (statements.groupby("game_id").size().reindex(expected.index, fill_value=0) == expected).all()


def test_hidden_information_only_in_hidden_columns(exported: Path) -> None:
    statements = pq.read_table(exported / "statements")
    games = pq.read_table(exported / "games")
    assert {c for c in statements.column_names if not c.startswith(HIDDEN_PREFIX)} == PUBLIC_STATEMENTS
    assert {c for c in games.column_names if not c.startswith(HIDDEN_PREFIX)} == PUBLIC_GAMES
    # No public column repeats a role, a team, a lie label or a policy, in any form.
    columns = {name: [str(v) for v in statements.column(name).to_pylist()] for name in statements.column_names}
    secrets = ("hidden_speaker_role", "hidden_speaker_team", "hidden_lie", "hidden_lie_type", "hidden_speaker_policy")
    for column in PUBLIC_STATEMENTS - {"claims"}:
        for secret in secrets:
            assert len(set(columns[secret])) < 2 or columns[column] != columns[secret], f"{column} repeats {secret}"
    for game in games.to_pylist():
        public = [game[c] for c in PUBLIC_GAMES]
        assert game["hidden_roles"] not in public and game["hidden_teams"] not in public
        assert game["hidden_seat_policies"] not in public
        assert json.loads(game["config"])["roles"] is None


def test_jsonl_holds_the_same_rows(runs: dict[str, Path], exported: Path, tmp_path: Path) -> None:
    out = tmp_path / "jsonl"
    assert main(["export", *map(str, runs.values()), "--out", str(out), "--format", "jsonl"]) == 0
    for table in ("statements", "games"):
        lines = (out / table / export_module.table_file(table, "jsonl")).read_text(encoding="utf-8").splitlines()
        assert [json.loads(line) for line in lines] == pq.read_table(exported / table).to_pylist()
    assert "path: statements/*.jsonl" in (out / "README.md").read_text()


def test_batches_are_row_groups_of_the_same_table(
    runs: dict[str, Path], exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(export_module, "BATCH_ROWS", 5)
    out = tmp_path / "small-batches"
    assert main(["export", *map(str, runs.values()), "--out", str(out)]) == 0
    assert pq.ParquetFile(out / "statements" / "train.parquet").num_row_groups > 2
    assert pq.read_table(out / "statements").to_pylist() == pq.read_table(exported / "statements").to_pylist()


def test_dataset_card(exported: Path) -> None:
    text = (exported / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    assert "license" in meta
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert configs["statements"]["data_files"] == [{"split": "train", "path": "statements/*.parquet"}]
    assert configs["games"]["data_files"] == [{"split": "train", "path": "games/*.parquet"}]
    for name, kind, _ in (*STATEMENT_COLUMNS, *GAME_COLUMNS):
        assert f"| `{name}` | `{kind}` |" in text
    assert "llm:fake" not in text.split("## Features")[0]  # provenance is below; the card names the model there
    assert "| `llm` |" in text and "fake" in text and "0.1.0" in text
    mark = json.loads((exported / "export.json").read_text())
    assert [r["run_id"] for r in mark["runs"]] == ["heuristic", "llm", "mixed"]
    assert mark["runs"][1]["models"] == ["fake"] and mark["runs"][0]["models"] == []


def test_unfinished_logs_are_left_out(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs["heuristic"], run)
    log = sorted((run / "games").glob("*.ndjson"))[0]
    log.write_bytes(log.read_bytes()[: log.stat().st_size // 2])  # a game cut off mid-write
    assert main(["export", str(run), "--out", str(tmp_path / "out")]) == 0
    assert pq.read_table(tmp_path / "out" / "games").num_rows == 2
    assert f"1 unfinished game log(s) left out: {log.name}" in capsys.readouterr().err


def test_same_folder_names_get_unique_run_ids(runs: dict[str, Path], tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "heuristic"
    shutil.copytree(runs["heuristic"], copy)
    assert main(["export", str(runs["heuristic"]), str(copy), "--out", str(tmp_path / "out")]) == 0
    games = pq.read_table(tmp_path / "out" / "games").to_pylist()
    assert len({g["game_id"] for g in games}) == len(games) == 6
    assert {g["run_id"] for g in games} == {"heuristic", "heuristic-2"}


# ------------------------------------------------------------------------------------------- errors


def test_not_a_run_folder(runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("hi")
    for bad, said in (
        (stray, "holds no manifest.json"),
        (tmp_path / "missing", "no such folder"),
        (stray / "notes.txt", "a file"),
    ):
        assert main(["export", str(runs["heuristic"]), str(bad), "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert f"{bad} is not a run folder" in err and said in err
        assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_out_must_be_new_empty_or_an_earlier_export(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep")
    assert main(["export", str(runs["heuristic"]), "--out", str(foreign)]) == 2
    assert "folder of other files" in capsys.readouterr().err
    assert [p.name for p in foreign.iterdir()] == ["mine.txt"]
    assert main(["export", str(runs["heuristic"]), "--out", str(runs["llm"])]) == 2  # a run folder is no export
    out = tmp_path / "out"
    assert main(["export", str(runs["llm"]), "--out", str(out)]) == 0
    assert main(["export", str(runs["heuristic"]), "--out", str(out)]) == 0  # an earlier export: replaced
    assert {g["run_id"] for g in pq.read_table(out / "games").to_pylist()} == {"heuristic"}
    assert sorted(p.name for p in out.iterdir()) == ["LICENSE.md", "README.md", "export.json", "games", "statements"]


def test_parquet_without_pyarrow_says_what_to_do(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(export_module, "pyarrow_or_none", lambda: None)
    assert main(["export", str(runs["heuristic"]), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "pip install -e .[export]" in err and "--format jsonl" in err
    assert main(["export", str(runs["heuristic"]), "--out", str(tmp_path / "out"), "--format", "jsonl"]) == 0
