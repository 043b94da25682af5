"""benchmarks/labels/evaluate.py: claim and lie scores on hand-labelled statements."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from werewolf_deception.benchmarks.labels import evaluate as claims_eval
from werewolf_deception.benchmarks.labels.corpus import DEFAULT_CORPUS

HAVE_CORPUS = (DEFAULT_CORPUS / "games.jsonl").exists() and (DEFAULT_CORPUS / "dev_labeled.jsonl").exists()

# Statements written for this test (not taken from any transcript), labelled per LABELING.md.
PLAYERS = ["Ann", "Ben", "Cal", "Dee"]
ROLES = {"Ann": "werewolf", "Ben": "seer", "Cal": "doctor", "Dee": "villager"}


def item(i: int, speaker: str, text: str, claims: list[dict]) -> dict:
    return {
        "id": f"t-{i}",
        "speaker": speaker,
        "speaker_role": ROLES[speaker],
        "players": PLAYERS,
        "roles": ROLES,
        "text": text,
        "claims": claims,
    }


def claim(
    kind: str,
    player: str,
    role: str | None = None,
    team: str | None = None,
    negated: bool = False,
    hedged: bool = False,
    lie: bool = False,
) -> dict:
    return {
        "kind": kind,
        "player": player,
        "role": role,
        "team": team,
        "negated": negated,
        "hedged": hedged,
        "lie": lie,
    }


ITEMS = [
    item(0, "Ann", "I think Dee is a wolf.", [claim("team", "Dee", team="werewolf", hedged=True, lie=True)]),
    item(1, "Ann", "I am the seer. I checked Cal, he is a werewolf.",
         [claim("role", "Ann", role="seer", lie=True), claim("seer_result", "Cal", team="werewolf", lie=True)]),
    item(2, "Dee", "Is Ben the seer? Let's wait.", []),
    item(3, "Dee", "Ann is not a wolf, I trust her.", [claim("team", "Ann", team="werewolf", negated=True),
                                                       claim("team", "Ann", team="village", hedged=True)]),
    item(4, "Ben", "Cal said he protected me.", []),
    # A claim the reader misses: an implication only a careful reader takes as a claim.
    item(5, "Ann", "Whoever keeps defending Cal is clearly on the wolf side, and that is Dee.",
         [claim("team", "Dee", team="werewolf", lie=True)]),
]  # fmt: skip


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert claims_eval.main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_scores_on_a_labelled_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "mine.jsonl"
    data.write_text("".join(json.dumps(x) + "\n" for x in ITEMS))
    report = run(["--data", str(data), "--corpus", str(tmp_path / "nowhere")], capsys)
    result = report["sets"]["mine"]
    assert result["statements"] == len(ITEMS)
    assert result["claims"]["fn"] == 1 and result["claims"]["fp"] == 0  # only item 5's claim is missed
    assert result["claims"]["tp"] == 4  # item 3's two readings are one claim (Ann is village)
    assert result["lies"] == {**result["lies"], "tp": 2, "fp": 0, "fn": 1}
    assert result["judge_on_gold"]["f1"] == 1.0  # the judge agrees with every hand lie label
    assert result["recall_by_kind"]["seer_result"] == 1.0
    assert result["coverage"] == {"gold": round(4 / 6, 4), "labeler": 0.5}
    lo, hi = result["claims"]["f1_ci"]
    assert lo <= result["claims"]["f1"] <= hi
    assert report["statements_per_second"] > 0


def test_no_data_and_no_corpus_exits_2(tmp_path: Path) -> None:
    # bad input is 2, as for every command; 3 is a tripped circuit breaker (werewolf_deception.benchmarks.runs.gate)
    assert claims_eval.main(["--corpus", str(tmp_path)]) == 2


@pytest.mark.skipif(not HAVE_CORPUS, reason="needs ../shared/data/llm_werewolf_transcripts")
def test_the_labelled_sets_and_the_readers_in_sample_floor(capsys: pytest.CaptureFixture[str]) -> None:
    """The regex reader on the labelled real speech: a guard against regressions on the sets it was developed
    on (in-sample figures, not its accuracy on new speech: that is ``--loso``)."""
    report = run([], capsys)
    sets = report["sets"]
    assert [sets[name]["statements"] for name in ("corpus_dev", "project_sample")] == [150, 260]
    assert sets["stratified"]["statements"] >= 1100 and sets["all"]["statements"] >= 1500
    for name in ("corpus_dev", "project_sample"):
        # Each set it was developed on: most claims read, few false ones.
        assert sets[name]["claims"]["f1"] >= 0.78 and sets[name]["claims"]["precision"] >= 0.95, sets[name]["claims"]
    # The hand lie labels are what the judge says of the hand-labelled claims (one source logs no night
    # actions, so a seer's reported check there cannot be confirmed): reading is the gap.
    assert sets["all"]["judge_on_gold"]["f1"] >= 0.99


def test_the_llm_and_union_labelers_over_http(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The fake server labels with the regex reader's claims, given the same context: the same scores."""
    from werewolf_deception.agents.fake.server import FakeOpenAIServer, FaultPlan

    data = tmp_path / "mine.jsonl"
    data.write_text("".join(json.dumps(x) + "\n" for x in ITEMS))
    base = ["--data", str(data), "--corpus", str(tmp_path / "nowhere")]
    regex = run(base, capsys)["sets"]["mine"]
    with FakeOpenAIServer() as server:
        for labeler in ("llm", "union"):
            report = run([*base, "--labeler", labeler, "--model", "fake", "--base-url", server.base_url], capsys)
            mine = report["sets"]["mine"]
            assert mine["labelled"] == len(ITEMS) and report["llm"]["answered"] == len(ITEMS)
            assert (mine["claims"]["tp"], mine["claims"]["fp"], mine["claims"]["fn"]) == (
                regex["claims"]["tp"],
                regex["claims"]["fp"],
                regex["claims"]["fn"],
            )
    # Every call fails: nothing is scored as if it were a labelling, and the exit code says the labeler stopped.
    plan = FaultPlan(rates={"500": 1.0})
    with FakeOpenAIServer(faults=plan, retry_after=0.01) as server:
        args = [*base, "--labeler", "llm", "--model", "fake", "--base-url", server.base_url]
        assert claims_eval.main(args) in (2, 3)
        capsys.readouterr()
    assert claims_eval.main([*base, "--labeler", "llm"]) == 2  # no --model
