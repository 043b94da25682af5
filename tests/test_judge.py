"""The judge's rule table, hedged claims included, on engine states and on transcripts."""

from __future__ import annotations

from werewolf_env.claims.judge import Knowledge, judge_claims
from werewolf_env.claims.model import make_claim

PLAYERS = ["Ann", "Ben", "Cal", "Dee", "Eli"]
ROLES = {"Ann": "werewolf", "Ben": "werewolf", "Cal": "seer", "Dee": "doctor", "Eli": "villager"}
ANN, BEN, CAL, DEE, ELI = range(5)


def know(speaker: str, **extra: object) -> Knowledge:
    return Knowledge.of_transcript(PLAYERS, ROLES, speaker, ROLES[speaker], **extra)  # type: ignore[arg-type]


def verdict(speaker: str, *claims: dict, **extra: object) -> dict:
    return judge_claims(know(speaker, **extra), list(claims))


def test_a_hedged_accusation_of_a_known_villager_is_misdirection() -> None:
    v = verdict("Ann", make_claim("team", ELI, team="werewolf", hedged=True))
    assert v["lie"] and v["type"] == "misdirection"
    assert not v["lie_strict"]  # resting on a hedged claim only
    assert v["claims"][0]["hedged"]


def test_a_hedged_vouch_for_a_packmate_is_distortion() -> None:
    v = verdict("Ann", make_claim("team", BEN, team="werewolf", negated=True, hedged=True))
    assert v["lie"] and v["type"] == "distortion"


def test_an_honest_wrong_guess_is_never_a_lie() -> None:
    for hedged in (False, True):
        v = verdict("Eli", make_claim("team", DEE, team="werewolf", hedged=hedged))
        assert not v["lie"] and not v["claims"][0]["true"]


def test_flat_lies_set_lie_strict() -> None:
    v = verdict("Ben", make_claim("role", BEN, role="seer"), make_claim("team", CAL, team="werewolf", hedged=True))
    assert v["lie"] and v["lie_strict"] and v["type"] == "fabrication"


def test_seer_results_are_judged_against_the_checks_on_record() -> None:
    honest = verdict(
        "Cal", make_claim("seer_result", ANN, team="werewolf"), checks={"Ann": "werewolf"}, checks_known=True
    )
    assert not honest["lie"]
    unchecked = verdict(
        "Cal", make_claim("seer_result", BEN, team="werewolf"), checks={"Ann": "werewolf"}, checks_known=True
    )
    assert unchecked["lie"] and unchecked["type"] == "fabrication"
    # Without a night log the seer gets the benefit of the doubt when the result is true.
    assert not verdict("Cal", make_claim("seer_result", BEN, team="werewolf"))["lie"]
    assert verdict("Ann", make_claim("seer_result", ELI, team="werewolf"))["lie"]  # a werewolf has no checks


def test_public_reveals_count_as_known() -> None:
    v = verdict("Eli", make_claim("role", DEE, role="doctor", negated=True), revealed={"Dee": "doctor"})
    assert v["lie"] and v["type"] == "distortion"
    assert not verdict("Eli", make_claim("role", DEE, role="doctor", negated=True))["lie"]


def test_protections() -> None:
    assert not verdict("Dee", make_claim("protected", ELI), protected=["Eli"])["lie"]
    assert verdict("Eli", make_claim("protected", DEE))["lie"]
