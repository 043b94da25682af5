"""Role words cannot collide: one word names one role, for reading and for judging alike.

A role whose words another role of the ruleset already uses is refused when the ruleset is built, naming both
roles and the word, unless it takes the word over explicitly (``ruleset.with_role(spec, takes_over=...)``).
Standard roles whose words the built-in table uses today (the bodyguard: the doctor's "bodyguard", "guard";
the medium: the villager's "medium") are then read and judged as themselves in that ruleset, while the default
ruleset (and every other) keeps its words: nothing is global.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from werewolf_env.claims import words as cw
from werewolf_env.claims.judge import Knowledge, judge_claims
from werewolf_env.claims.model import claim_key, make_claim
from werewolf_env.claims.text import extractor_for
from werewolf_env.claims.words import lexicon
from werewolf_env.core.roles import (
    DEFAULT_RULESET,
    ROLE_SPECS,
    ActionKind,
    Role,
    RoleSpec,
    Ruleset,
    Team,
    role_words,
)

NAMES = ("Alice", "Bob", "Carla", "Dmitri", "Emma", "Farid", "Grace", "May")
A, B, C = range(3)

BODYGUARD = RoleSpec(
    role="bodyguard",
    team=Team.VILLAGE,
    night=ActionKind.PROTECT,
    default_count=lambda n: 0,
    fake_claim=True,
    plural="bodyguards",
    words=("bodyguard", "guard", "protector"),
    power="the bodyguard guards someone",
    card="You are the BODYGUARD (village team). Each night you guard one living player.",
)
MEDIUM = RoleSpec(
    role="medium",
    team=Team.VILLAGE,
    plural="mediums",
    words=("medium", "spiritualist"),
    card="You are the MEDIUM (village team). You learn the team of each exiled player.",
)


WITH_BODYGUARD = DEFAULT_RULESET.with_role(BODYGUARD, takes_over=("bodyguard", "guard", "protector"))
WITH_MEDIUM = DEFAULT_RULESET.with_role(MEDIUM, takes_over=("medium",))
WITH_BOTH = WITH_BODYGUARD.with_role(MEDIUM, takes_over=("medium",))


def keys(text: str, speaker: int = A, ruleset: Ruleset = DEFAULT_RULESET) -> set[tuple[Any, ...]]:
    return {claim_key(c) for c in extractor_for(NAMES, ruleset).extract(text, speaker)}


def verdict(text: str, speaker_role: str, roles: dict[str, str], ruleset: Ruleset) -> dict[str, Any]:
    """The judge's verdict on ``text`` said by Alice, who holds ``speaker_role``, with the reader's claims."""
    know = Knowledge.of_transcript(list(NAMES), roles, "Alice", speaker_role, ruleset=ruleset)
    return judge_claims(know, extractor_for(NAMES, ruleset).extract(text, A))


def test_a_word_of_another_role_is_refused_naming_both_roles_and_the_word() -> None:
    with pytest.raises(ValueError, match=r"'bodyguard'.*'doctor'.*'bodyguard'|'doctor'.*'bodyguard'.*'bodyguard'"):
        DEFAULT_RULESET.with_role(BODYGUARD)
    assert "bodyguard" not in DEFAULT_RULESET  # a ruleset never changes
    assert role_words()["bodyguard"] is Role.DOCTOR
    assert lexicon().predicate("bodyguard") == ("role", "doctor", False)


def test_a_clash_between_two_added_roles_is_refused() -> None:
    elder = RoleSpec(role="elder", team=Team.VILLAGE, card="An elder.", plural="elders", words=("elder", "chieftain"))
    chief = RoleSpec(role="chief", team=Team.VILLAGE, card="A chief.", plural="chiefs", words=("chief", "chieftain"))
    with_elder = DEFAULT_RULESET.with_role(elder)
    with pytest.raises(ValueError, match="chieftain") as refused:
        with_elder.with_role(chief)
    assert "'elder'" in str(refused.value) and "'chief'" in str(refused.value)
    assert "chief" not in with_elder and "elder" in with_elder and "elder" not in DEFAULT_RULESET


def test_a_plural_is_checked_like_a_word() -> None:
    clash = RoleSpec(role="townie boss", team=Team.VILLAGE, card="A boss.", plural="villagers", words=("townie boss",))
    with pytest.raises(ValueError, match="'villagers'"):
        DEFAULT_RULESET.with_role(clash)


def test_a_take_over_must_name_a_word_of_the_new_role_held_by_another_and_no_role_name() -> None:
    with pytest.raises(ValueError, match="'medic'"):  # not among the bodyguard's words
        DEFAULT_RULESET.with_role(BODYGUARD, takes_over=("bodyguard", "guard", "protector", "medic"))
    own_name = RoleSpec(role="doc", team=Team.VILLAGE, card="A doc.", plural="docs", words=("doc", "doctor"))
    with pytest.raises(ValueError, match="'doctor'"):  # a role's own name stays its own
        DEFAULT_RULESET.with_role(own_name, takes_over=("doctor",))
    assert "medic" in ROLE_SPECS[Role.DOCTOR].words


def test_the_bodyguard_is_read_and_judged_as_itself() -> None:
    rs = WITH_BODYGUARD
    assert keys("I am the bodyguard.", ruleset=rs) == {claim_key(make_claim("role", A, "bodyguard"))}
    assert keys("Bob is the protector.", ruleset=rs) == {claim_key(make_claim("role", B, "bodyguard"))}
    assert keys("I am the doctor.", ruleset=rs) == {claim_key(make_claim("role", A, "doctor"))}
    honest = verdict("I am the bodyguard.", "bodyguard", {"Alice": "bodyguard", "Bob": "werewolf"}, rs)
    assert not honest["lie"]
    lie = verdict("I am the bodyguard.", "doctor", {"Alice": "doctor", "Bob": "werewolf"}, rs)
    assert lie["type"] == "fabrication"
    doctor = rs.spec(Role.DOCTOR)
    assert "guard" not in doctor.words and "medic" in doctor.words
    # The default ruleset, read in the same process at the same time, keeps its words.
    assert keys("I am the bodyguard.") == {claim_key(make_claim("role", A, "doctor"))}
    assert "guard" in ROLE_SPECS[Role.DOCTOR].words


def test_the_medium_is_read_and_judged_as_itself() -> None:
    rs = WITH_MEDIUM
    assert keys("I'm the medium.", ruleset=rs) == {claim_key(make_claim("role", A, "medium"))}
    assert keys("Bob is the spiritualist.", ruleset=rs) == {claim_key(make_claim("role", B, "medium"))}
    assert not verdict("I'm the medium.", "medium", {"Alice": "medium", "Bob": "werewolf"}, rs)["lie"]
    lie = verdict("I'm the medium.", "villager", {"Alice": "villager", "Bob": "werewolf"}, rs)
    assert lie["type"] == "fabrication"
    assert "medium" not in rs.spec(Role.VILLAGER).words
    assert "medium" in ROLE_SPECS[Role.VILLAGER].words


def test_a_ruleset_without_the_role_gives_its_words_back() -> None:
    back = WITH_BOTH.without_role("bodyguard").without_role("medium")
    assert back == DEFAULT_RULESET and hash(back) == hash(DEFAULT_RULESET)
    assert keys("I am the bodyguard.", ruleset=back) == {claim_key(make_claim("role", A, "doctor"))}
    assert role_words(back)["medium"] is Role.VILLAGER
    assert back.spec(Role.DOCTOR).words[-5:] == ("bodyguard", "guard", "guardian", "protector", "knight")


def test_reading_and_judging_use_one_mapping() -> None:
    """The reader reads each role word as the role ``ruleset.words`` maps it to, and the judge resolves it so."""
    rs = WITH_BOTH
    mapped = role_words(rs)
    read = {word: value for word, (kind, value, _) in lexicon(rs).predicates.items() if kind == "role"}
    assert read and all(mapped[word].value == value for word, value in read.items())
    for role, spec in rs.specs.items():
        assert all(mapped[word] is role for word in spec.words)  # no word names two roles
        assert cw.is_pack(role, rs) or all(read[word] == role.value for word in spec.words)
    know = Knowledge.of_transcript(list(NAMES), {"Alice": "guard", "Bob": "medic"}, "Alice", "guard", ruleset=rs)
    assert know.roles[:2] == (rs.role("bodyguard"), Role.DOCTOR)


def test_the_built_in_path_takes_another_spec() -> None:
    """A spec appended to ``_BUILT_IN_SPECS`` (as docs/rules.md says) imports: the built-ins keep their names."""
    source = Path(sys.modules[Role.__module__].__file__ or "").read_text()
    extra = 'RoleSpec(role="mayor", team=Team.VILLAGE, plural="mayors", words=("mayor",), card="A mayor."),\n)'
    anchor = "\n)  # fmt: skip\n\n\n_BUILT_IN_BY_NAME"
    assert anchor in source
    module = types.ModuleType("roles_with_a_mayor")
    sys.modules[module.__name__] = module
    try:
        exec(compile(source.replace(anchor, "\n" + extra + anchor[2:], 1), module.__name__, "exec"), module.__dict__)
        roles = module.__dict__["Role"]
        assert roles.SEER.value == "seer" and roles.HUNTER.value == "hunter"
        assert [r.value for r in module.__dict__["DEFAULT_RULESET"].roles][-1] == "mayor"
    finally:
        del sys.modules[module.__name__]
