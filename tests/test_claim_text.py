"""The text claim reader on the phrasings real models use (sentences written for these tests)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_env.claims.model import CLAIM_KINDS, claim_key, make_claim
from werewolf_env.claims.text import ClaimExtractor, extractor_for

NAMES = ("Alice", "Bob", "Carla", "Dmitri", "Emma", "Farid", "Grace", "May")
X = extractor_for(NAMES)
A, B, C, D, E, F, G, M = range(8)


def keys(text: str, speaker: int = A, reader: ClaimExtractor = X) -> set[tuple[Any, ...]]:
    return {(*claim_key(c), c["hedged"]) for c in reader.extract(text, speaker)}


def k(
    kind: str,
    player: int,
    role: str | None = None,
    team: str | None = None,
    negated: bool = False,
    hedged: bool = False,
) -> tuple[Any, ...]:
    return (*claim_key(make_claim(kind, player, role, team, negated)), hedged)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # hedged beliefs, and their negation
        ("I think Bob is a wolf.", {k("team", B, team="werewolf", hedged=True)}),
        ("I don't think Bob is a werewolf.", {k("team", B, team="village", hedged=True)}),
        ("Carla seems wolfy to me.", {k("team", C, team="werewolf", hedged=True)}),
        ("My gut says Emma is probably town.", {k("team", E, team="village", hedged=True)}),
        ("I trust Dmitri.", {k("team", D, team="village", hedged=True)}),
        ("I suspect Farid.", {k("team", F, team="werewolf", hedged=True)}),
        (
            "town-lean: Emma and Grace",
            {k("team", E, team="village", hedged=True), k("team", G, team="village", hedged=True)},
        ),
        ("I'm leaning towards Bob as the most likely wolf.", {k("team", B, team="werewolf", hedged=True)}),
        # several players at once; read-lists
        ("Bob and Carla are wolves.", {k("team", B, team="werewolf"), k("team", C, team="werewolf")}),
        (
            "Bob, Carla and Dmitri are all innocent.",
            {k("team", B, team="village"), k("team", C, team="village"), k("team", D, team="village")},
        ),
        # self-claims
        ("As the doctor, I kept everyone alive.", {k("role", A, role="doctor")}),
        ("As the real seer I must speak now.", {k("role", A, role="seer")}),
        (
            "I'm just a plain villager like Bob and Emma.",
            {k("role", A, role="villager"), k("role", B, role="villager"), k("role", E, role="villager")},
        ),
        ("I am not the werewolf.", {k("team", A, team="village")}),
        ("I have no special role.", {k("role", A, role="villager")}),
        ("My role is seer.", {k("role", A, role="seer")}),
        ("I CO seer.", {k("role", A, role="seer")}),
        # seer results and protections
        ("I checked Dmitri last night and he came back as a werewolf.", {k("seer_result", D, team="werewolf")}),
        ("My vision shows that Emma is human.", {k("seer_result", E, team="village")}),
        ("N1: Farid=Werewolf", {k("seer_result", F, team="werewolf")}),
        ("I divined Grace. She is a werewolf.", {k("seer_result", G, team="werewolf")}),
        (
            "I divined Bob human and Carla human.",
            {k("seer_result", B, team="village"), k("seer_result", C, team="village")},
        ),
        ("I protected Emma last night.", {k("protected", E)}),
        # role words as labels, appositives, vocatives, pronouns
        ("We must listen to Seer Bob.", {k("role", B, role="seer")}),
        ("The outed wolf Carla keeps talking.", {k("team", C, team="werewolf")}),
        ("Dmitri, the doctor, died last night.", {k("role", D, role="doctor")}),
        ("Bob, you are the wolf.", {k("team", B, team="werewolf")}),
        ("My vote goes to Farid! He is the wolf for sure.", {k("team", F, team="werewolf")}),
        (
            "Emma and Grace keep deflecting. They must be the wolves.",
            {k("team", E, team="werewolf"), k("team", G, team="werewolf")},
        ),
        ("The wolf is Dmitri.", {k("team", D, team="werewolf")}),
        ("Bob's seer claim is fake.", {k("role", B, role="seer", negated=True)}),
        ("Bob is not the seer.", {k("role", B, role="seer", negated=True)}),
        ("Bob was the seer, and Emma is the mafia.", {k("role", B, role="seer"), k("team", E, team="werewolf")}),
        # adjectives, copulas in the past, suspicion, remarks on play called a werewolf's
        ("Farid is the big bad wolf!", {k("team", F, team="werewolf")}),
        ("Bob was confirmed as a villager.", {k("role", B, role="villager")}),  # "confirmed as" is no adjective
        ("Bob is a friend of wolves.", set()),
        ("Grace must have been a villager.", {k("role", G, role="villager")}),
        ("Emma might have been the seer.", {k("role", E, role="seer", hedged=True)}),
        ("I'm very suspicious of Carla.", {k("team", C, team="werewolf", hedged=True)}),
        ("Dmitri rushed his vote. I'm suspicious.", {k("team", D, team="werewolf", hedged=True)}),
        ("I lean to trust Emma.", {k("team", E, team="village", hedged=True)}),
        ("Bob dodged every question. That's classic wolf play.", {k("team", B, team="werewolf", hedged=True)}),
        ("Carla's silence feels wolf-like.", {k("team", C, team="werewolf", hedged=True)}),
        (
            "Bob keeps voting with Carla. Feels like wolf teamwork.",
            {k("team", B, team="werewolf", hedged=True), k("team", C, team="werewolf", hedged=True)},
        ),
        ("Silent votes against Dmitri look like a wolf tactic.", set()),  # Dmitri is who was voted, not who voted
        ("So Emma not wolf.", {k("team", E, team="village")}),
        ("Bob is in the clear.", {k("team", B, team="village")}),
        ("Emma strikes me as town.", {k("team", E, team="village", hedged=True)}),
        ("I'm inclined to believe Farid is a villager.", {k("role", F, role="villager", hedged=True)}),
        (
            "I suspect both Carla and Dmitri.",
            {k("team", C, team="werewolf", hedged=True), k("team", D, team="werewolf", hedged=True)},
        ),
        # seer results in more phrasings, and self-claims
        (
            "As the detective, I carefully investigated Carla and she is mafia.",
            {k("role", A, role="seer"), k("seer_result", C, team="werewolf")},
        ),
        ("I investigated last night and my read is that Bob is the mafioso.", {k("seer_result", B, team="werewolf")}),
        ("Dmitri is human by my divine.", {k("seer_result", D, team="village")}),
        ("As a villager myself, I can't tell yet.", {k("role", A, role="villager")}),
        ("Given Emma's role as seer, we should listen.", {k("role", E, role="seer")}),
        # vocatives are not subjects
        ("Bob, I'm not the wolf.", {k("team", A, team="village")}),
        ("@Carla Dmitri is the wolf.", {k("team", D, team="werewolf")}),
        ("Emma - the mafia doesn't know who the seer is.", set()),
        # not claims
        ("Is Bob the seer?", set()),
        ("If Bob is the seer, then Carla is a wolf.", set()),
        ("Carla said she is the seer.", set()),
        ("Bob claims to be the doctor.", set()),
        ("Emma accused Farid of being a wolf.", set()),
        ("Either Bob or Carla is the wolf.", set()),
        ("Bob could be the seer or the doctor.", set()),
        ("Bob's seer result was strange.", set()),
        ("I hope Grace wasn't the seer.", set()),
        ("I'm voting Bob today.", set()),
        ("Bob is acting suspicious.", set()),
        ("The wolves are among us.", set()),
        ("May we vote now? Let us be careful.", set()),  # "May" is a word here, not the player
    ],
)
def test_reads_what_the_statement_asserts(text: str, expected: set[tuple[Any, ...]]) -> None:
    assert keys(text) == expected


CLAIMED = ((B, "seer"), (C, "doctor"))  # Bob claimed the seer, Carla the doctor, earlier in public


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bob's claim is false.", {k("role", B, role="seer", negated=True)}),
        ("Carla is lying.", {k("role", C, role="doctor", negated=True)}),
        ("I think Bob is lying.", {k("role", B, role="seer", negated=True, hedged=True)}),
        ("Carla's story feels off.", {k("role", C, role="doctor", negated=True, hedged=True)}),
        ("Bob, that's impossible.", {k("role", B, role="seer", negated=True)}),
        ("Bob, your claim is a lie.", {k("role", B, role="seer", negated=True)}),
        ("Emma can't have investigated anyone.", {k("role", E, role="seer", negated=True)}),
        ("Emma is lying.", set()),  # Emma claimed nothing: lying about what is not said
        ("Dmitri says Bob is lying.", set()),  # reported
        ("Either Bob is lying or Carla is wrong.", set()),
    ],
)
def test_a_claim_called_false_denies_the_role_claimed_before(text: str, expected: set[tuple[Any, ...]]) -> None:
    assert {(*claim_key(c), c["hedged"]) for c in X.extract(text, A, (), CLAIMED)} == expected


def test_public_role_claims_follow_what_each_speaker_said_of_itself() -> None:
    from werewolf_env.claims.model import public_role_claims

    said = [
        (B, [make_claim("role", B, "seer")]),
        (C, [make_claim("protected", D)]),
        (D, [make_claim("role", D, "seer", hedged=True)]),  # "I might be the seer": no claim to hold
        (E, [make_claim("seer_result", B, team="werewolf")]),
        (B, [make_claim("role", B, "seer", negated=True)]),  # Bob takes it back
    ]
    assert public_role_claims(said) == ((C, "doctor"), (E, "seer"))


# ---------------------------------------------------------------------------------------- witch and hunter


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # role claims, as for the built-in roles
        ("I'm the witch.", {k("role", A, role="witch")}),
        ("As the witch, I saved Bob last night.", {k("role", A, role="witch"), k("protected", B)}),
        ("I claim witch.", {k("role", A, role="witch")}),
        ("I am the sorceress.", {k("role", A, role="witch")}),
        ("Bob is the witch.", {k("role", B, role="witch")}),
        ("Bob is not the witch.", {k("role", B, role="witch", negated=True)}),
        ("I think Carla is the hunter.", {k("role", C, role="hunter", hedged=True)}),
        ("The witch is Dmitri.", {k("role", D, role="witch")}),
        ("Witch Emma saved me.", {k("role", E, role="witch")}),
        ("Bob's witch claim is fake.", {k("role", B, role="witch", negated=True)}),
        ("Emma and Grace are villagers, not hunters.", {k("role", E, role="villager"), k("role", G, role="villager")}),
        # the hunter's threat is a role claim
        ("I'm the hunter, exile me and I shoot Bob.", {k("role", A, role="hunter")}),
        ("As the hunter, exile me and I shoot Bob.", {k("role", A, role="hunter")}),
        ("As the hunter, if you exile me I will shoot Bob.", {k("role", A, role="hunter")}),
        # heals: protected
        ("I healed Bob with my potion.", {k("protected", B)}),
        ("My heal went to Carla.", {k("protected", C)}),
        ("I used my healing potion on Dmitri.", {k("protected", D)}),
        ("I've used my heal on Emma and it worked.", {k("protected", E)}),
        # poisons
        ("I poisoned Bob.", {k("poisoned", B)}),
        ("Last night I used my poison on Carla.", {k("poisoned", C)}),
        ("My poison went to Dmitri.", {k("poisoned", D)}),
        ("I finally poisoned Emma and Grace.", {k("poisoned", E), k("poisoned", G)}),
        ("I think I poisoned Bob.", {k("poisoned", B, hedged=True)}),
        # denials of one's potion: negated claims (tests/test_claim_denials.py)
        ("I didn't poison Bob.", {k("poisoned", B, negated=True)}),
        ("I never poisoned Bob.", {k("poisoned", B, negated=True)}),
        # no claims: plans, conditionals, someone else's words, questions, idioms
        ("I will poison Bob tonight.", set()),
        ("If I were the witch I would poison Bob.", set()),
        ("If I poisoned Bob, we would know by now.", set()),
        ("Carla said she poisoned Bob.", set()),
        ("Carla said I poisoned Bob.", set()),
        ("Carla claims to be the witch.", set()),
        ("Is Bob the witch?", set()),
        ("Either Bob or Carla is the hunter.", set()),
        ("Bob is a wolf hunter.", set()),
        ("Bob's poison story is off.", set()),
    ],
)
def test_reads_the_witch_and_the_hunter(text: str, expected: set[tuple[Any, ...]]) -> None:
    assert keys(text) == expected


def test_a_witch_keeps_her_claim_when_she_reports_a_heal() -> None:
    from werewolf_env.claims.model import public_role_claims

    said = [
        (B, [make_claim("role", B, "witch"), make_claim("protected", C)]),  # "I'm the witch; I healed Carla"
        (C, [make_claim("protected", D)]),  # a protection alone: the doctor
        (D, [make_claim("poisoned", E)]),  # a poisoning alone: the witch
    ]
    assert public_role_claims(said) == ((B, "witch"), (C, "doctor"), (D, "witch"))


def test_the_vocabulary_follows_the_ruleset() -> None:
    """A role of a game's ruleset is read like a built-in one by that game's reader; the default's reader, used
    in between, does not read it."""
    from werewolf_env.core.roles import DEFAULT_RULESET, RoleSpec, Team

    text = "I am the lighthouse keeper. Bob is a lamplighter."
    assert keys(text) == set()
    ruleset = DEFAULT_RULESET.with_role(
        RoleSpec(
            role="lighthouse keeper",
            team=Team.VILLAGE,
            card="A keeper.",
            plural="keepers",
            words=("lighthouse keeper", "lamplighter"),
            fake_claim=True,
        )
    )
    reader = extractor_for(NAMES, ruleset)
    assert keys(text, reader=reader) == {k("role", A, role="lighthouse keeper"), k("role", B, role="lighthouse keeper")}
    assert keys(text) == set()
    assert keys("As the lamplighter, I vote Carla.", reader=reader) == {k("role", A, role="lighthouse keeper")}
    assert keys(text) == set()


def test_a_known_role_names_its_holder_only_where_the_sentence_speaks_of_a_death() -> None:
    known = (("doctor", D),)
    assert {claim_key(c) for c in X.extract("The doctor died last night.", A, known)} == {
        claim_key(make_claim("role", D, "doctor"))
    }
    assert X.extract("We should keep an eye on the doctor.", A, known) == []


def test_a_player_named_like_a_word_counts_only_when_capitalised() -> None:
    assert keys("May is the wolf.") == {k("team", M, team="werewolf")}
    assert keys("it may be the wolf.") == set()


def test_an_ambiguous_pronoun_is_left_unresolved() -> None:
    assert keys("Bob talked to Carla. She is a wolf.") == set()
    assert keys("Bob talked to me. He is a wolf.") == {k("team", B, team="werewolf")}


def test_a_check_names_its_result_in_the_next_sentence_or_before() -> None:
    assert keys("Dmitri is the mafioso. I investigated him last night.") == {k("seer_result", D, team="werewolf")}


def test_medium_results_are_team_claims_not_seer_results() -> None:
    assert keys("I'm the medium. Bob (day1)=HUMAN Carla (day2)=HUMAN.") == {
        k("role", A, role="villager"),
        k("team", B, team="village"),
        k("team", C, team="village"),
    }


def test_claims_come_out_in_canonical_form_and_deduplicated() -> None:
    claims = X.extract("Bob is not a wolf. Bob is innocent. I think Bob is innocent.", A)
    assert claims == [make_claim("team", B, team="village")]  # one claim, not hedged: one reading was flat


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.integers(min_value=0, max_value=7))
def test_any_text_gives_well_formed_claims(text: str, speaker: int) -> None:
    for claim in X.extract(text, speaker):
        assert claim["kind"] in CLAIM_KINDS
        assert 0 <= claim["player"] < len(NAMES)
        assert isinstance(claim["hedged"], bool) and isinstance(claim["negated"], bool)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "I think",
                "Bob",
                "Carla",
                "is",
                "not",
                "a",
                "the",
                "wolf",
                "seer",
                "and",
                "if",
                "said",
                "?",
                ".",
                ",",
                "he",
                "they",
                "you",
                "I",
                "checked",
                "trust",
                "as",
                "—",
                "=",
                "@",
                "'s",
                "Bob's",
                "(day1)",
                "human",
                "doctor",
            ]
        ),
        max_size=40,
    )
)
def test_word_salad_never_breaks_the_reader(words: list[str]) -> None:
    for claim in X.extract(" ".join(words), 0):
        assert 0 <= claim["player"] < len(NAMES)


def test_long_text_is_read_in_linear_time() -> None:
    """A 200 kB statement (agents are untrusted) is read quickly: no pattern backtracks catastrophically."""
    fresh = ClaimExtractor(NAMES)
    text = "I think Bob, Carla and Dmitri are " + "really " * 5000 + "wolves. " + "Bob said (day1)=x " * 5000
    start = time.perf_counter()
    fresh.extract(text, 0)
    assert time.perf_counter() - start < 5.0


def test_typographic_punctuation_reads_as_its_ascii_form() -> None:
    """Non-breaking spaces, Unicode hyphens, dashes and quotes are normalised before reading."""
    from werewolf_env.claims.text import extractor_for

    reader = extractor_for(("Alice", "Bob", "Carol", "Dave"))
    for plain, typographic in [
        ("Bob is a werewolf. Carol is the seer.", "Bob\u00a0is\u00a0a werewolf.\u2009Carol is the seer."),
        ("I am the doctor - Bob is a wolf.", "I am the doctor \u2014 Bob is a wolf."),
        ("I think Bob's a werewolf.", "I think Bob\u2019s a werewolf."),
    ]:
        assert reader.extract(typographic, 0) == reader.extract(plain, 0) != []
