"""Human lies in Diplomacy (Peskov 2020): the reader, the shared logistic solver, the message detectors,
the metrics and the leave-one-game-out evaluation, on a tiny synthetic fixture (and the real data when
``../shared`` holds it)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from werewolf_deception.benchmarks.cli.main import main
from werewolf_deception.benchmarks.detect.detector import fit, out_of_fold_scores
from werewolf_deception.benchmarks.diplomacy.detectors import MessageDetector
from werewolf_deception.benchmarks.diplomacy.evaluate import DEFAULT_DATA_DIR, confusion_metrics, score_split
from werewolf_deception.benchmarks.diplomacy.models import StackedDetector, auroc, game_balanced_weights, load_detector
from werewolf_deception.benchmarks.diplomacy.peskov import Message, read_dialogs, read_split, truth_value
from werewolf_env.analysis.logistic import Sparse, best_threshold, fit_logistic

FIXTURE = Path(__file__).parent / "data" / "peskov2020_tiny"
HAVE_DATA = (DEFAULT_DATA_DIR / "train.jsonl").is_file() and (DEFAULT_DATA_DIR / "validation.jsonl").is_file()


def test_reader_is_tolerant(tmp_path: Path) -> None:
    assert [truth_value(v) for v in (True, "false", " TRUE ", "NOANNOTATION", None, 1)] == [
        True,
        False,
        True,
        None,
        None,
        None,
    ]
    train = read_split(FIXTURE, "train")
    assert {m.game for m in train} == {"1", "2", "3", "4"} and len(train) == 4 * 3 * 24
    raw = [json.loads(line) for line in (FIXTURE / "train.jsonl").read_text().splitlines()]
    first = raw[0]
    assert [m.lie for m in train if m.dialog == "train:0"] == [not x for x in first["sender_labels"]]
    string_labels = [m for m in train if m.game == "2"]
    assert all(m.lie is not None for m in string_labels) and all(m.suspected is None for m in string_labels)
    assert sum(m.lie is None for m in train) == 1  # the "NOANNOTATION" sender label of game 3
    game4 = [m for m in train if m.game == "4"]
    assert all(m.score_delta is not None for m in game4) and any(m.year is None for m in game4)
    assert all(math.isfinite(v) for m in train for v in [*m.surface.values(), *m.context.values(), *m.power.values()])
    # Short and missing lists, junk lines: read, with unknown values.
    odd_line = '{"messages": ["a", "b"], "sender_labels": [false], "game_id": 9}'
    (tmp_path / "odd.jsonl").write_text(odd_line + "\nnot json\n\n")
    odd = read_dialogs(tmp_path / "odd.jsonl")
    assert [m.lie for m in odd] == [True, None] and odd[1].game_score is None and odd[0].game == "9"
    with pytest.raises(ValueError):
        read_split(FIXTURE, "test")


def test_context_reads_only_the_past() -> None:
    train = read_split(FIXTURE, "train")
    before = {id(m): dict(m.context) for m in train}
    later = read_split(FIXTURE, "train")
    for m in later:  # change every later message's words: no earlier message's features may move
        if m.relative_index > 10:
            m.text = "completely different words here?"
    from werewolf_deception.benchmarks.diplomacy.peskov import add_features

    add_features(later)
    for old, new in zip(train, later, strict=True):
        if new.relative_index <= 10 and before[id(old)] != new.context:
            pytest.fail(f"{new.dialog} message {new.relative_index} read a later message")


def test_solver_exact_and_conjugate_gradients_agree_and_weights_repeat_rows() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 4))
    y = (x[:, 0] - x[:, 1] + rng.normal(size=300)) > 0
    exact = fit_logistic(x, y, l2=2.0)
    sparse = fit_logistic(Sparse.from_dense(x), y, l2=2.0)
    assert np.allclose(exact.coef, sparse.coef, atol=1e-5) and abs(exact.intercept - sparse.intercept) < 1e-5
    weights = np.where(np.arange(300) < 100, 2.0, 1.0)
    doubled = fit_logistic(np.vstack([x, x[:100]]), np.concatenate([y, y[:100]]), l2=2.0)
    assert np.allclose(fit_logistic(x, y, l2=2.0, sample_weight=weights).coef, doubled.coef, atol=1e-6)
    separable = fit_logistic(np.array([[-2.0], [-1.0], [1.0], [2.0]]), np.array([0, 0, 1, 1]), l2=1e-3)
    assert separable.converged and np.isfinite(separable.coef).all() and separable.coef[0] > 0
    one = fit_logistic(x, np.zeros(300), l2=1.0)
    assert one.one_class and np.allclose(one.probability(x), 0.5 / 301)


def test_best_threshold_is_the_lowest_of_the_best() -> None:
    rng = np.random.default_rng(1)
    scores = np.round(rng.random(200), 2)
    y = rng.random(200) < scores * 0.5
    brute, best = 0.5, -1.0
    for t in np.unique(scores):
        pred = scores >= t
        f1 = 2 * (pred & y).sum() / (pred.sum() + y.sum())
        if f1 > best:
            brute, best = float(t), f1
    assert best_threshold(scores, y) == brute


def test_werewolf_detector_folds_scale_inside_and_handle_one_class() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=(200, 3))
    y = x[:, 0] + rng.normal(scale=0.5, size=200) > 0
    groups = np.arange(200) // 20  # folds by group, round-robin: group g in fold g % 5
    oof, _ = out_of_fold_scores(x, y, groups, folds=5)
    moved = x.copy()
    moved[groups == 0, 1] += 1000.0  # group 0, held out in fold 0 with group 5, changes its features
    moved_oof, _ = out_of_fold_scores(moved, y, groups, folds=5)
    # Group 5 is scored by a model of folds 1-4 alone: with scaling fitted on every row (the old leak), the
    # shifted mean and scale of feature 1 would move its scores.
    assert np.allclose(oof[groups == 5], moved_oof[groups == 5])
    one_class_y = groups >= 5  # folds 0-4 hold both classes: drop to two groups so each training part is one class
    two = np.where(groups < 5, 0, 1)
    oof, single = out_of_fold_scores(x, one_class_y, two, folds=2)
    assert single == 2 and np.allclose(oof[two == 0], 100.5 / 101) and np.allclose(oof[two == 1], 0.5 / 101)
    model = fit(x, one_class_y, ["a", "b", "c"], two, folds=2)
    assert model.notes and "one class" in model.notes[0]


def test_metrics_on_a_known_confusion() -> None:
    truth = np.array([1, 1, 1, 1, 0, 0] + [0] * 14, dtype=bool)
    pred = np.array([1, 1, 0, 0, 1, 1] + [0] * 14, dtype=bool)  # tp 2, fn 2, fp 2, tn 14
    p = np.where(pred, 0.9, 0.1)
    m = confusion_metrics(p, pred, truth, np.arange(20) % 5, resamples=200)
    assert m["lie_f1"]["value"] == 0.5 and m["precision"]["value"] == 0.5 and m["recall"]["value"] == 0.5
    assert m["macro_f1"]["value"] == pytest.approx((0.5 + 28 / 32) / 2, abs=1e-4)
    low, high = m["lie_f1"]["ci"]
    assert low <= 0.5 <= high and m["coverage"] == 1.0 and m["flagged"] == 4
    abstains = confusion_metrics(np.where(pred, np.nan, 0.1), pred, truth, np.arange(20) % 5, resamples=0)
    assert abstains["lie_f1"]["value"] == 0.0 and abstains["coverage"] == 0.8


def test_a_game_is_scored_without_its_labels() -> None:
    """Leave-one-game-out: flipping every label of the held-out game changes none of its predictions
    (the vocabulary, scaling, L2 strength and threshold all come from the other games)."""
    rows = read_split(FIXTURE, "train") + read_split(FIXTURE, "validation")
    rows = [m for m in rows if m.lie is not None]
    held = "5"
    train = [m for m in rows if m.game != held]
    test = [m for m in rows if m.game == held]
    p, pred, chosen = score_split("text+context", [(train, test)], seed=0)
    for m in test:
        m.lie = not m.lie
    p2, pred2, chosen2 = score_split("text+context", [(train, test)], seed=0)
    assert np.array_equal(p, p2) and np.array_equal(pred, pred2) and chosen == chosen2
    assert chosen[0]["test_games"] == [held] and chosen[0]["l2"] is not None


def test_one_class_training_predicts_its_base_rate_and_says_so() -> None:
    rows = [m for m in read_split(FIXTURE, "train") if m.lie is not None]
    for m in rows:
        m.lie = False
    detector = MessageDetector("text").fit(rows)
    p = detector.probability(rows)
    assert np.allclose(p, 0.5 / (len(rows) + 1)) and any("one class" in n for n in detector.notes)


def test_save_and_load(tmp_path: Path) -> None:
    rows = [m for m in read_split(FIXTURE, "train") if m.lie is not None]
    detector = MessageDetector("text+context+power").fit(rows)
    detector.save(tmp_path / "d.json")
    loaded = MessageDetector.load(tmp_path / "d.json")
    test = read_split(FIXTURE, "validation")
    assert np.allclose(loaded.probability(test), detector.probability(test))
    assert loaded.threshold == detector.threshold and loaded.l2 == detector.l2
    with pytest.raises(ValueError):
        MessageDetector.from_json({"kind": "something else"})


def test_detect_eval_on_the_fixture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    args = ["detect-eval", "--dataset", "peskov2020", "--data-dir", str(FIXTURE), "--out", str(out)]
    assert main([*args, "--detector", "text", "--detector", "stacked"]) == 0
    result = json.loads((out / "detect_eval.json").read_text())
    logo, validation = result["splits"]["leave_one_game_out"], result["splits"]["validation"]
    assert (logo["games"], logo["messages"], logo["interval_clusters"]) == (5, 5 * 72 - 1, "game")
    assert (validation["games"], validation["interval_clusters"]) == (1, "dialog")
    for split in (logo, validation):
        assert set(split["detectors"]) == {"text", "stacked", "random", "all-lie", "human receivers"}
        for row in split["detectors"].values():
            for metric in ("lie_f1", "macro_f1", "precision", "recall", "auroc", "average_precision"):
                est = row[metric]
                assert est["value"] is None or est["ci"][0] is None or est["ci"][0] <= est["value"] <= est["ci"][1]
    assert logo["detectors"]["text"]["lie_f1"]["value"] > logo["detectors"]["all-lie"]["lie_f1"]["value"]
    assert len(logo["detectors"]["text"]["folds"]) == 5
    assert MessageDetector.load(out / "detectors" / "text.json").pipeline is not None
    assert isinstance(load_detector(out / "detectors" / "stacked.json"), StackedDetector)
    printed = capsys.readouterr().out
    assert "leave_one_game_out" in printed and "lie_f1" in printed
    assert main([*args[:-2], "--out", str(tmp_path / "x"), "--detector", "bogus"]) == 2
    assert main([*args[:3], "--data-dir", str(tmp_path / "none"), "--out", str(tmp_path / "y")]) == 2


def test_game_balanced_weights_and_auroc() -> None:
    y = np.array([1, 0, 0, 0, 1, 1, 0, 0, 0, 0], dtype=bool)
    games = ["a"] * 4 + ["b"] * 6
    w = game_balanced_weights(y, games)
    assert w[y].sum() == pytest.approx(5) and w[~y].sum() == pytest.approx(5)
    assert w[0] == pytest.approx(2.5) and w[4] == pytest.approx(1.25)  # each game's lies weigh the same
    assert w[1:4].sum() == pytest.approx(w[6:].sum())
    assert np.array_equal(game_balanced_weights(np.zeros(3, dtype=bool), ["a"] * 3), np.ones(3))
    rng = np.random.default_rng(3)
    scores = np.round(rng.random(60), 1)
    truth = rng.random(60) < 0.3
    pairs = [(a > b) + 0.5 * (a == b) for a in scores[truth] for b in scores[~truth]]
    assert auroc(scores, truth) == pytest.approx(np.mean(pairs)) and auroc(scores, np.ones(60, dtype=bool)) == 0.5


def test_stacked_detector_is_scored_without_its_labels_and_saves(tmp_path: Path) -> None:
    rows = [m for m in read_split(FIXTURE, "train") + read_split(FIXTURE, "validation") if m.lie is not None]
    train = [m for m in rows if m.game != "5"]
    test = [m for m in rows if m.game == "5"]
    p, pred, chosen = score_split("stacked", [(train, test)], seed=0)
    for m in test:
        m.lie = not m.lie
    p2, pred2, chosen2 = score_split("stacked", [(train, test)], seed=0)
    assert np.array_equal(p, p2) and np.array_equal(pred, pred2) and chosen == chosen2
    assert len(chosen[0]["l2"].split("/")) == 2
    detector = StackedDetector("stacked").fit(train)
    detector.save(tmp_path / "s.json")
    loaded = load_detector(tmp_path / "s.json")
    assert isinstance(loaded, StackedDetector) and loaded.threshold == detector.threshold
    assert np.allclose(loaded.probability(test), detector.probability(test)) and loaded.probability([]).shape == (0,)
    assert isinstance(load_detector(_saved_text(tmp_path, train)), MessageDetector)
    with pytest.raises(ValueError):
        StackedDetector("text")
    with pytest.raises(ValueError):
        StackedDetector.from_json({"kind": "peskov_message_detector"})


def _saved_text(tmp_path: Path, rows: list[Message]) -> Path:
    MessageDetector("text", grid=(16.0,), folds=2).fit(rows).save(tmp_path / "t.json")
    return tmp_path / "t.json"


@pytest.mark.skipif(not HAVE_DATA, reason="needs ../shared/data/diplomacy_peskov2020")
def test_the_real_data_reads_as_documented() -> None:
    train = read_split(DEFAULT_DATA_DIR, "train")
    validation = read_split(DEFAULT_DATA_DIR, "validation")
    assert (len(train), sum(bool(m.lie) for m in train)) == (13132, 591)
    assert (len(validation), sum(bool(m.lie) for m in validation)) == (1416, 56)
    assert len({m.game for m in train}) == 9 and {m.game for m in validation} == {"11"}
    assert all(m.game_score is not None and m.score_delta is not None for m in train + validation)
    sample: list[Message] = [m for m in validation if m.lie is not None]
    detector = MessageDetector("text", grid=(16.0,), folds=2).fit(sample)
    assert 0.0 <= detector.threshold <= 1.0 and detector.probability(sample[:5]).shape == (5,)
