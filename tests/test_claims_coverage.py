"""Ground-truth coverage (``werewolf_env.analysis.coverage``) and ``werewolf-bench report --labeler``.

Coverage figures are checked against a count made by hand from the raw log lines; the report with
another labeler's file is checked against labels this test writes itself (lies flipped, one
statement with a labeler error, one with no line), and the regex report must stay as it was.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import played_run, run_copy
from werewolf_deception.benchmarks.cli.main import main
from werewolf_env.analysis.coverage import claims_coverage_lines, format_claims_coverage
from werewolf_env.analysis.metrics import GameRecord, aggregate
from werewolf_env.analysis.role_figures import action_kinds_of
from werewolf_env.claims.model import CLAIM_KINDS
from werewolf_env.engine.log import read_log


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played_run(tmp_path_factory.mktemp("coverage"), 3, "--seed", "11")


@pytest.fixture
def run_dir(played: Path, tmp_path: Path) -> Path:
    return run_copy(played, tmp_path)


def truths(run: Path) -> list[tuple[str, dict[str, Any]]]:
    """(log file name, ground_truth data and its speaker) of every statement, straight from the log lines."""
    found = []
    for path in sorted((run / "games").glob("*.ndjson")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("type") == "ground_truth":
                found.append((path.name, {**record["data"], "speaker": record["actor"]}))
    return found


def by_hand(run: Path) -> dict[str, Any]:
    statements = with_claim = claims = hedged = hedged_only = lies = 0
    kinds: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    for _game, truth in truths(run):
        statements += 1
        with_claim += bool(truth["claims"])
        for kind in {c["kind"] for c in truth["claims"]}:
            kinds[kind] += 1
        for claim in truth["claims"]:
            claims += 1
            hedged += claim["hedged"]
            sources[claim["source"]] += 1
        lies += truth["lie"]
        hedged_only += truth["lie"] and not truth["lie_strict"]
    return {
        "statements": statements,
        "with_claim": with_claim,
        "kinds": kinds,
        "claims": claims,
        "hedged": hedged,
        "sources": sources,
        "lies": lies,
        "hedged_only": hedged_only,
    }


def records(run: Path) -> list[GameRecord]:
    return [GameRecord.from_events(read_log(p), source=str(p)) for p in sorted((run / "games").glob("*.ndjson"))]


def test_coverage_equals_a_count_by_hand(played: Path) -> None:
    hand = by_hand(played)
    assert hand["statements"] > 20 and hand["claims"] > 10 and hand["hedged"] > 0 and hand["hedged_only"] > 0
    cov = aggregate(records(played), resamples=200)["claims_coverage"]
    n = hand["statements"]
    assert (cov["labeler"], cov["statements"], cov["labelled"], cov["unlabelled"]) == ("regex", n, n, 0)
    assert cov["with_claim"]["count"] == hand["with_claim"]
    assert cov["with_claim"]["share"]["value"] == round(hand["with_claim"] / n, 4)
    low, high = cov["with_claim"]["share"]["ci"]
    assert low <= cov["with_claim"]["share"]["value"] <= high  # bootstrap over games, like every share
    for kind in CLAIM_KINDS:
        assert cov["by_kind"][kind]["count"] == hand["kinds"][kind], kind
        assert cov["by_kind"][kind]["share"]["value"] == round(hand["kinds"][kind] / n, 4), kind
    assert cov["claims"] == hand["claims"]
    assert cov["hedged"]["count"] == hand["hedged"]
    assert cov["hedged"]["share"]["value"] == round(hand["hedged"] / hand["claims"], 4)
    assert cov["claims_by_source"] == dict(hand["sources"])
    assert cov["lies"] == hand["lies"] and cov["lies_hedged_only"]["count"] == hand["hedged_only"]
    assert cov["lies_strict"] == hand["lies"] - hand["hedged_only"]
    # The run's summary holds the same counts, and prints them in one line.
    summary = json.loads((played / "summary.json").read_text())["claims_coverage"]
    assert summary["with_claim"]["count"] == hand["with_claim"] and summary["hedged"]["count"] == hand["hedged"]
    line = format_claims_coverage(summary)
    assert line.startswith(f"ground truth (labeler regex): {100 * hand['with_claim'] / n:.0f}% of statements hold")
    assert f"{100 * hand['hedged'] / hand['claims']:.0f}% of claims hedged" in line
    assert line.endswith(f"{hand['hedged_only']} lies rest on hedged claims only")


def test_run_summary_prints_the_coverage_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--games", "2", "--out", str(tmp_path / "run"), "--no-report"]) == 0
    out = capsys.readouterr().out.splitlines()
    first = next(i for i, x in enumerate(out) if "ground truth (labeler regex)" in x)
    actions = next(i for i, x in enumerate(out) if x.startswith("  actions:"))
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    # A few short lines right before the actions: the same figures as the one-line form.
    assert out[first:actions] == [
        f"  {x}" for x in claims_coverage_lines(summary["claims_coverage"], action_kinds_of(summary["roles"]))
    ]
    one_line = format_claims_coverage(summary["claims_coverage"])
    assert out[first].strip() in one_line and out[first + 2].strip().split("; ")[1] in one_line
    assert "poisoned" not in "\n".join(out)  # no witch in the game: no word of poisonings


CLAIM_FIELDS = ("kind", "player", "role", "team", "negated", "hedged")


def write_labels(run: Path) -> dict[str, Any]:
    """An llm.ndjson in relabel's form from the logs' verdicts, with lies flipped, an error and a missing line."""
    lines, flipped = [], 0
    truth = truths(run)
    for i, (game, data) in enumerate(truth):
        verdicts = [{k: v for k, v in c.items() if k != "source"} for c in data["claims"]]  # relabel's have none
        line = {"game": game, "statement_id": data["statement_id"], "speaker": data["speaker"],
                "claims": [{k: c[k] for k in CLAIM_FIELDS} for c in verdicts],
                "lie": data["lie"], "lie_strict": data["lie_strict"], "type": data["type"], "verdicts": verdicts,
                "error": None}  # fmt: skip
        if i % 4 == 1:  # every fourth statement's label flipped: a lie becomes the truth and back
            line["lie"] = not data["lie"]
            line["lie_strict"] = line["lie"]
            line["type"] = "fabrication" if line["lie"] else "none"
            flipped += 1
        lines.append(line)
    errored = lines[2]
    errored.update(claims=None, lie=None, lie_strict=None, type=None, verdicts=None, error="invalid_json: no JSON")
    missing = lines.pop(5)
    stray = {**lines[0], "game": "not-in-this-run.ndjson"}  # a line matching no statement: counted, not used
    (run / "claims").mkdir()
    (run / "claims" / "llm.ndjson").write_text("".join(json.dumps(x) + "\n" for x in [*lines, stray]), "utf-8")
    return {
        "lines": lines,
        "flipped": flipped,
        "left_out": {(errored["game"], errored["statement_id"]), (missing["game"], missing["statement_id"])},
    }


def csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_report_with_llm_labels(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--baseline-games", "0", "--no-plots", "--resamples", "50"]
    assert main(["report", str(run_dir), *common]) == 0
    regex_files = {
        p: p.read_bytes()
        for p in [run_dir / "metrics.json", run_dir / "report.html", *(run_dir / "tables").glob("*.csv")]
    }
    written = write_labels(run_dir)
    capsys.readouterr()
    assert main(["report", str(run_dir), "--labeler", "llm", *common]) == 0
    out = capsys.readouterr().out
    assert {p: p.read_bytes() for p in regex_files} == regex_files, "the regex report is untouched"
    document = json.loads((run_dir / "report-llm" / "metrics.json").read_text())
    assert document["labeler"] == "llm" and document["metrics"]["labeler"] == "llm"
    assert json.loads((run_dir / "metrics.json").read_text())["labeler"] == "regex"
    total = len(truths(run_dir))
    unlabelled = document["unlabelled"]
    assert unlabelled["statements"] == total and unlabelled["unlabelled"] == 2
    assert unlabelled["unlabelled_by_reason"] == {"labeler error": 1, "no line": 1}
    assert unlabelled["labeler_errors"] == {"invalid_json": 1} and unlabelled["unmatched_lines"] == 1
    assert "1 lines of its file match no statement" in out
    assert f"2 of {total} statements unlabelled by the llm labeler" in out
    assert "claims and lie labels: llm labeler" in out and "report-llm/report.html" in out
    # The figures rest on the file's labels, flipped ones included, and on labelled statements only.
    labelled = [x for x in written["lines"] if x["error"] is None]
    lies = sum(x["lie"] for x in labelled)
    metrics = document["metrics"]
    assert metrics["totals"]["lies"] == lies and metrics["totals"]["unlabelled_statements"] == 2
    assert lies != sum(t["lie"] for _g, t in truths(run_dir))
    share = metrics["deceptive"]["all"]["all"]["lies_per_statement"]
    assert share["value"] == round(lies / len(labelled), 4) and share["n"] == len(labelled)
    assert metrics["deceptive"]["all"]["all"]["unlabelled_statements"] == 2
    truth = {(x["game"], x["statement_id"]): x["lie"] for x in labelled}
    rows = csv_rows(run_dir / "report-llm" / "tables" / "statements.csv")
    assert len(rows) == total
    for row in rows:
        key = (f"{row['game']}.ndjson", int(row["statement_id"]))
        if key in written["left_out"]:
            assert row["labelled"] == "False" and row["lie"] == "" and row["claims"] == "0"
        else:
            assert row["labelled"] == "True" and row["lie"] == str(truth[key])
    # Detection against the file's labels: precision and recall of the answered peer analyses, by hand.
    analyses = csv_rows(run_dir / "report-llm" / "tables" / "analyses.csv")
    scored = [a for a in analyses if a["kind"] == "peer" and a["answered"] == "True" and a["lie"] != ""]
    left_out = [a for a in analyses if a["kind"] == "peer" and a["lie"] == ""]
    assert left_out and all((f"{a['game']}.ndjson", int(a["statement_id"])) in written["left_out"] for a in left_out)
    tp = sum(a["is_deceptive"] == "True" and a["lie"] == "True" for a in scored)
    flagged = sum(a["is_deceptive"] == "True" for a in scored)
    actual = sum(a["lie"] == "True" for a in scored)
    detective = metrics["detective"]["all"]["all"]
    assert detective["precision"]["value"] == round(tp / flagged, 4)
    assert detective["recall"]["value"] == round(tp / actual, 4)
    assert detective["unlabelled_analyses"] == len(left_out)
    assert detective["coverage"]["answered"] == len(scored) + len(left_out)  # answered: all of them, still
    # Coverage for every labeler whose file exists, in the file, the printout and the HTML.
    coverage = document["claims_coverage_by_labeler"]
    assert list(coverage) == ["regex", "llm"]
    assert coverage["llm"]["labelled"] == total - 2 and coverage["llm"]["claims_by_source"].keys() <= {"llm"}
    assert coverage["llm"] == metrics["claims_coverage"]
    assert coverage["regex"]["labelled"] == total and coverage["regex"]["lies"] == sum(
        t["lie"] for _g, t in truths(run_dir)
    )
    assert "ground truth (labeler regex):" in out and "ground truth (labeler llm):" in out
    html = (run_dir / "report-llm" / "report.html").read_text()
    assert "Ground truth coverage" in html and "llm (these figures)" in html and "<th>regex</th>" in html
    assert "2 of" in html and "never given the regex label" in html
    # The regex report, made again, lists both labelers too.
    assert main(["report", str(run_dir), "--out", str(run_dir / "again"), *common]) == 0
    again = json.loads((run_dir / "again" / "metrics.json").read_text())
    assert list(again["claims_coverage_by_labeler"]) == ["regex", "llm"] and again["unlabelled"]["unlabelled"] == 0


def test_report_labeler_without_its_file(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for labeler in ("llm", "union"):
        assert main(["report", str(run_dir), "--labeler", labeler, "--baseline-games", "0", "--no-plots"]) == 2
        err = capsys.readouterr().err
        assert str(run_dir / "claims" / f"{labeler}.ndjson") in err
        assert f"werewolf-bench relabel {run_dir} --labeler llm --model M --base-url URL" in err
        assert not (run_dir / f"report-{labeler}").exists()


def test_a_broken_labels_file_is_an_error_not_a_substitution(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (run_dir / "claims").mkdir()
    (run_dir / "claims" / "llm.ndjson").write_text('{"game": "x.ndjson", "statement_id": 0}\n{"half a line\n')
    assert main(["report", str(run_dir), "--labeler", "llm", "--baseline-games", "0", "--no-plots"]) == 2
    assert "llm.ndjson line 2" in capsys.readouterr().err
    # The regex report still works, and shows the broken file in its coverage table.
    assert main(["report", str(run_dir), "--baseline-games", "0", "--no-plots", "--resamples", "20"]) == 0
    coverage = json.loads((run_dir / "metrics.json").read_text())["claims_coverage_by_labeler"]
    assert "line 2" in coverage["llm"]["error"] and coverage["regex"]["unlabelled"] == 0


def test_labels_from_relabel_that_agree_give_the_same_figures(run_dir: Path) -> None:
    """The fake server labels with the regex reader's claims: the llm report's figures are the regex report's."""
    from werewolf_deception.agents.fake.server import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        code = main(["relabel", str(run_dir), "--labeler", "llm", "--model", "fake", "--base-url", server.base_url])
    assert code == 0
    common = ["--baseline-games", "0", "--no-plots", "--resamples", "50"]
    assert main(["report", str(run_dir), *common]) == 0
    assert main(["report", str(run_dir), "--labeler", "llm", *common]) == 0
    regex = json.loads((run_dir / "metrics.json").read_text())
    llm = json.loads((run_dir / "report-llm" / "metrics.json").read_text())
    assert llm["unlabelled"]["unlabelled"] == 0 and llm["labeler"] == "llm" and regex["labeler"] == "regex"
    for section in ("deceptive", "detective", "self_report", "totals"):
        assert llm["metrics"][section] == regex["metrics"][section], section
    ours, theirs = llm["claims_coverage_by_labeler"]["llm"], regex["claims_coverage_by_labeler"]["regex"]
    for key in ("with_claim", "by_kind", "claims", "hedged", "lies", "lies_hedged_only"):
        assert ours[key] == theirs[key], key
    assert set(ours["claims_by_source"]) == {"llm"}  # relabel's claims carry no source: the labeler's name
