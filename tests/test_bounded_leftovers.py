"""What issue 31's hardening left: each input bounded and each refusal one line with exit 2, before anything starts.

- a tournament file's ``blocks`` / ``games`` past ``MAX_GAMES`` is refused as the file is read, before its
  schedule is built; a tournament file may start with a byte-order mark, as a lineup file may;
- ``relabel --retries`` / ``--max-tokens`` and ``report --resamples`` are checked as they are parsed;
- a labels file or a ``manifest.json`` (read by ``report``, ``run``, ``export``) nested 100,000 deep is refused
  with a message, never ``RecursionError``; such a ``results.ndjson`` line is not the run's own;
- ``play`` shows the players' names inert, as the other summaries do;
- ``report.html`` lists the logs ``--allow-unverified`` reported unverified, escaped.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

import werewolf_deception.benchmarks.cli.play
import werewolf_deception.benchmarks.cli.tournament
from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.console.values import MAX_GAMES, MAX_RESAMPLES
from werewolf_deception.benchmarks.runs.tournament import load_tournament
from werewolf_env import GameConfig

from .cli_refusals import refused_line as refused
from .test_untrusted_logs import hand_edited

DEEP = "[" * 100_000 + "]" * 100_000
REPORT = ["--no-plots", "--baseline-games", "0", "--resamples", "20"]
RESUME = ["run", "--games", "3", "--players", "5", "--no-report", "--quiet", "--out"]  # the run of ``run_logs``
HOSTILE = "\x1b]0;owned\x07"  # a terminal escape: sets the window title


def copy_run(run_logs: Path, to: Path) -> Path:
    shutil.copytree(run_logs, to)
    return to


# ------------------------------------------------------------------------------------- tournament files

ENTRANTS = '[[entrants]]\nkind = "heuristic"\n[[entrants]]\nname = "rnd"\nkind = "random"\n'


@pytest.mark.parametrize(
    "size", [f"blocks = {10**12}", f"games = {10**12}", f"blocks = {MAX_GAMES}", f"games = {MAX_GAMES + 1}"]
)
def test_a_huge_tournament_is_refused_before_its_schedule(
    size: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_schedule(*_: object) -> None:
        raise AssertionError("the schedule was built for a tournament too large to play")

    monkeypatch.setattr(werewolf_deception.benchmarks.cli.tournament, "schedule", no_schedule)
    config = tmp_path / "t.toml"
    config.write_text(f'name = "t"\n{size}\nplayers = 5\n{ENTRANTS}', encoding="utf-8")
    line = refused(["tournament", str(config), "--no-plots", "--quiet"], tmp_path, capsys)
    assert str(MAX_GAMES) in line.replace(",", "") and str(config) in line and "Value error" not in line


@pytest.mark.parametrize(("entry", "named"), [("seed = -5", "seed"), ('[rules]\nmax_rounds = "x"', "max_rounds")])
def test_a_bad_tournament_seed_or_rule_is_one_line_before_any_game(
    entry: str, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "t.toml"
    config.write_text(f'name = "t"\nblocks = 1\nplayers = 5\n{entry}\n{ENTRANTS}', encoding="utf-8")
    line = refused(["tournament", str(config), "--no-plots", "--quiet"], tmp_path, capsys)
    assert named in line and "For further information" not in line and "[U+000A]" not in line


def test_a_tournament_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_bytes(f'\ufeffname = "t"\nblocks = 1\nplayers = 5\n{ENTRANTS}'.encode())
    tour = load_tournament(config)
    assert tour.name == "t" and tour.names == ["heuristic", "rnd"]


def test_a_deeply_nested_tournament_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "t.toml"
    config.write_text(f'name = "t"\nblocks = 1\nrules = {{x = {"[" * 5000}{"]" * 5000}}}\n{ENTRANTS}', encoding="utf-8")
    assert "nested deeper than" in refused(["tournament", str(config)], tmp_path, capsys)


# ------------------------------------------------------------------------------------- counts checked as parsed


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--retries", "-1"], "--retries"),
        (["--retries", "1e3"], "--retries"),
        (["--max-tokens", "5"], "--max-tokens"),
        (["--max-tokens", str(10**30)], "--max-tokens"),
    ],
)
def test_relabel_counts_are_checked_as_parsed(
    extra: list[str], named: str, run_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(run_logs, tmp_path / "run")  # the regex labeler calls no model: nothing else would refuse them
    line = refused(["relabel", str(run), "--labeler", "regex", "--quiet", *extra], tmp_path, capsys)
    assert named in line


@pytest.mark.parametrize("resamples", ["-5", str(MAX_RESAMPLES + 1), "1e3"])
def test_report_resamples_are_bounded(
    resamples: str, run_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(run_logs, tmp_path / "run")
    line = refused(
        ["report", str(run), "--no-plots", "--baseline-games", "0", "--resamples", resamples], tmp_path, capsys
    )
    assert "--resamples" in line and (resamples == "1e3" or f"{MAX_RESAMPLES}" in line)


def test_report_resamples_help_names_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert f"at most {MAX_RESAMPLES:,}" in " ".join(capsys.readouterr().out.split())


# ------------------------------------------------------------------------------------- nested files


def test_a_deeply_nested_labels_file_is_refused(
    run_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(run_logs, tmp_path / "run")
    (run / "claims").mkdir()
    labels = run / "claims" / "llm.ndjson"
    labels.write_text(f'{{"game": "x", "statement_id": 1, "claims": {DEEP}}}\n', encoding="utf-8")
    line = refused(["report", str(run), *REPORT, "--labeler", "llm"], tmp_path, capsys)
    assert f"{labels} line 1" in line and "nested deeper than" in line


@pytest.mark.parametrize("command", ["report", "run", "export"])
def test_a_deeply_nested_manifest_is_refused(
    command: str, run_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(run_logs, tmp_path / "run")
    manifest = run / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8").rstrip()[:-1] + f', "prices": {DEEP}}}', encoding="utf-8")
    argv = {
        "report": ["report", str(run), *REPORT],
        "run": [*RESUME, str(run)],
        "export": ["export", str(run), "--out", str(tmp_path / "dataset"), "--format", "jsonl"],
    }[command]
    line = refused(argv, tmp_path, capsys)
    assert str(manifest) in line and ("nested deeper than" in line or "not a werewolf-bench run manifest" in line)


def test_a_deeply_nested_results_line_is_not_the_runs_own(run_logs: Path, tmp_path: Path) -> None:
    run = copy_run(run_logs, tmp_path / "run")
    with (run / "results.ndjson").open("a", encoding="utf-8") as results:
        results.write(f'\n{{"game": "seed0", "status": "ok", "result": {DEEP}}}')  # as RunDir.append writes
    assert main([*RESUME, str(run)]) == 0


# ------------------------------------------------------------------------------------- names inert


def test_play_shows_the_roles_line_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    names = (f"Ann{HOSTILE}", "Bob\u202eevil", "Cy", "Di", "Ed")

    def hostile_names(fields: dict[str, object]) -> GameConfig:
        return GameConfig(**{**fields, "names": names})

    monkeypatch.setattr(werewolf_deception.benchmarks.cli.play, "game_config_of", hostile_names)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # the person's input ends at once: the fallbacks play on
    assert main(["play", "--seed", "3", "--players", "5", "--seat", "player_4", "--out", str(tmp_path)]) == 0
    roles = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Roles: ")]
    assert len(roles) == 1
    assert "\x1b" not in roles[0] and "\u202e" not in roles[0] and "\x07" not in roles[0]
    assert "Ann[U+001B]]0;owned[U+0007]" in roles[0] and "Bob[U+202E]evil" in roles[0]


# ------------------------------------------------------------------------------------- report.html


def test_report_html_lists_unverified_logs_escaped(run_logs: Path, tmp_path: Path) -> None:
    run = copy_run(run_logs, tmp_path / "run")
    log = sorted((run / "games").glob("*.ndjson"))[0]
    spoiled = log.rename(log.with_name("<b>&edited.ndjson"))  # a name with markup
    hand_edited(spoiled)
    assert main(["report", str(run), *REPORT, "--allow-unverified"]) == 0
    unverified = json.loads((run / "metrics.json").read_text(encoding="utf-8"))["run"]["unverified_logs"]
    assert list(unverified) == [str(spoiled)]
    html = (run / "report.html").read_text(encoding="utf-8")
    assert "<b>&edited" not in html
    notice = html.index("Unverified logs")
    assert notice < html.index("<h2>")  # near the top: before the first section
    assert str(spoiled).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in html[notice:]
    assert "DIFFERS" in html[notice:]


def test_report_html_of_verified_logs_has_no_unverified_notice(run_logs: Path, tmp_path: Path) -> None:
    run = copy_run(run_logs, tmp_path / "run")
    assert main(["report", str(run), *REPORT]) == 0
    assert "Unverified logs" not in (run / "report.html").read_text(encoding="utf-8")
