"""The claim reader's learned stage: normalised text, candidates and their features, a deterministic fit."""

from __future__ import annotations

import numpy as np

from werewolf_deception.benchmarks.labels import train as claims_train
from werewolf_env.claims.learned import LearnedStage, candidate_features, class_of, hashed, label, normalise, tokens


def test_unicode_punctuation_is_read_as_ascii() -> None:
    text = "Uma town\u2011lean, Vik \u2212, \u201cBob\u201d\u00a0is\u2014odd"
    assert normalise(text) == 'Uma town-lean, Vik -, "Bob" is - odd'
    assert tokens("Tomas slight+ \u2014 Vik\u2212") == ["tomas", "slight", "+", "-", "vik", "-"]


def test_candidates_are_named_players_and_the_speaker_and_names_never_become_features() -> None:
    features = candidate_features("I think Bob is a wolf. Carol is town.", ["Alice", "Bob", "Carol", "Dave"], 0)
    assert set(features) == {0, 1, 2}  # "I" is the speaker; Dave is never named
    bob = features[1]
    assert "w:wolf" in bob and "w:<c>" in bob and "l1:think" in bob and "r2:a" in bob
    assert not any("bob" in f or "carol" in f for f in bob)
    assert "w:town" not in bob  # another clause
    assert "is_speaker" in features[0] and "is_speaker" not in bob


def test_classes_are_claim_keys_canonical_form() -> None:
    assert class_of({"kind": "team", "team": "werewolf", "negated": True}) == ("team", None, "village", False)
    assert class_of({"kind": "role", "role": "werewolf"}) == ("role", None, "werewolf", False)
    assert label("role", "seer", None, True) == "role:not-seer"


def test_the_fit_learns_a_rule_and_is_deterministic() -> None:
    rng = np.random.default_rng(0)
    noise = [f"w:n{k}" for k in range(40)]
    rows, targets = [], []
    for _ in range(400):
        wolf = bool(rng.random() < 0.3)
        feats = ["bias", *rng.choice(noise, 5)] + (["w:wolf"] if wolf else [])
        rows.append(hashed(feats))
        target = [0.0] * len(claims_train.HEADS)
        target[0] = float(wolf)  # team:werewolf
        targets.append(target)
    first = claims_train.fit_heads(rows, np.array(targets))
    again = claims_train.fit_heads(rows, np.array(targets))
    assert all(np.array_equal(first[h].values, again[h].values) for h in first)
    stage = LearnedStage(first, 0.5)
    assert [c["team"] for c in stage.claims(3, ["bias", "w:n1", "w:wolf"])] == ["werewolf"]
    assert stage.claims(3, ["bias", "w:n1", "w:n2"]) == []
