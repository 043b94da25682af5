"""Reads of players in analytical speech (``werewolf_env.claims.reads`` and the tactic words of
``claim_disputes``): each category of ``docs/labeling.md``, with the sentences that must stay unread.

Sentences are written for these tests; none comes from the transcripts.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_env.claims.model import CLAIM_KINDS, claim_key, make_claim
from werewolf_env.claims.text import extractor_for

NAMES = ("Alice", "Bob", "Carla", "Dmitri", "Emma", "Farid")
X = extractor_for(NAMES)
A, B, C, D, E, F = range(6)


def keys(text: str, speaker: int = A) -> set[tuple[Any, ...]]:
    return {(*claim_key(c), c["hedged"]) for c in X.extract(text, speaker)}


def wolf(player: int, hedged: bool = True) -> tuple[Any, ...]:
    return (*claim_key(make_claim("team", player, None, "werewolf")), hedged)


def town(player: int, hedged: bool = True) -> tuple[Any, ...]:
    return (*claim_key(make_claim("team", player, None, "village")), hedged)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # suspect rankings and solves
        ("My top suspect is Carla.", {wolf(C)}),
        ("My prime suspects are Bob and Emma.", {wolf(B), wolf(E)}),
        ("Dmitri remains my number one suspect.", {wolf(D)}),
        ("That makes Farid a prime suspect.", {wolf(F)}),
        ("Emma tops my list right now.", {wolf(E)}),
        ("Carla is at the top of my list.", {wolf(C)}),
        ("My solve is Bob + Dmitri.", {wolf(B), wolf(D)}),
        ("Suspects (Bob/Carla/Emma), nothing firm yet", {wolf(B), wolf(C), wolf(E)}),
        ("My suspicion now falls on Farid.", {wolf(F)}),
        ("(4) Backup suspect: Bob.", {wolf(B)}),
        ("Carla is my next-best scum lean for now.", {wolf(C)}),
        ("Dmitri is my read.", {wolf(D)}),
        ("My read is Emma.", {wolf(E)}),
        ("Honestly my gut says Farid, because he pushed me.", {wolf(F)}),
        ("My gut says Farid is town.", {town(F)}),
        ("Bob is the most suspicious to me.", {wolf(B)}),
        ("The most suspicious player is Carla.", {wolf(C)}),
        ("The most suspicious thing is Bob's vote.", set()),
        ("We should focus our suspicions entirely on Dmitri and Emma.", {wolf(D), wolf(E)}),
        ("Bob and Carla are working together.", {wolf(B), wolf(C)}),
        ("Emma is working hard.", set()),
        ("Farid's push reeks of mafia desperation.", {wolf(F)}),
        ("I was highly suspicious of Dmitri for clearing Bob.", {wolf(D)}),
        # suspicion placed, feelings given
        ("I currently suspect Bob the most.", {wolf(B)}),
        ("I'm increasingly wary of Carla and Dmitri.", {wolf(C), wolf(D)}),
        ("Emma gives me a bad feeling.", {wolf(E)}),
        ("Farid gives me town vibes.", {town(F)}),
        # notation
        ("Bob slight+, Carla light town.", {town(B), town(C)}),
        ("Dmitri (slight wolf) and Emma - town-lean.", {wolf(D), town(E)}),
        ("Farid reads town to me.", {town(F)}),
        # several players at once
        ("A wolf pair, Bob and Emma, would explain day one.", {wolf(B), wolf(E)}),
        ("The confirmed mafia members, Carla and Farid, voted together.", {wolf(C, False), wolf(F, False)}),
        ("Bob and Dmitri (both town) made good points.", {town(B, False), town(D, False)}),
        # a werewolf's tactic by name, and play denied a villager's
        ("Carla's deflection onto the voters is telling.", {wolf(C)}),
        ("Bob and Emma keep deflecting blame.", {wolf(B), wolf(E)}),
        ("Farid's pivot after Bob spoke looks like misdirection.", {wolf(F)}),
        ("That is what a cornered wolf does, Dmitri.", {wolf(D)}),
        ("Not the play of a real villager, Emma.", {wolf(E)}),
        ("Bob's pattern aligns with mafia manipulation.", {wolf(B)}),
        # role words as labels
        ("Carla turned out to be a villager.", {(*claim_key(make_claim("role", C, "villager")), False)}),
        ("Dmitri flipped wolf.", {wolf(D, False)}),
        # what stays unread
        ("Carla is not my top suspect.", set()),
        ("If my top suspect is Bob, we lose.", set()),
        ("Bob, you pinned Emma as your top suspect yesterday.", set()),
        ("Is Farid our prime suspect?", set()),
        ("I'm not deflecting, Bob.", set()),
        ("I vote Dmitri.", set()),
        ("Bob said his top suspect is Carla.", set()),
        ("My vote today is Emma; nothing more to say.", set()),
    ],
)
def test_reads_by_category(text: str, expected: set[tuple[Any, ...]]) -> None:
    assert keys(text) == expected


def role(player: int, value: str) -> tuple[Any, ...]:
    return (*claim_key(make_claim("role", player, value)), False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bob and Carla, both villagers, died for nothing.", {role(B, "villager"), role(C, "villager")}),
        ("We lost Dmitri, another sharp villager, last night.", {role(D, "villager")}),
        ("The night kills only hit town (Emma, Farid), sadly.", {town(E, False), town(F, False)}),
        ("Bob died villager.", {role(B, "villager")}),
        ("The confirmed-town Carla was pushed hard.", {town(C, False)}),
        ("Dmitri (another confirmed villager) is gone.", {role(D, "villager")}),
        ("Bob died to the wolves.", set()),
        ("Carla, a strong voice, spoke first.", set()),
    ],
)
def test_roles_and_teams_given_in_passing(text: str, expected: set[tuple[Any, ...]]) -> None:
    assert keys(text) == expected


NUMBERED = extractor_for(tuple(f"player_{i}" for i in range(10)))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Player 4 is mafia.", {4}),
        ("player4 is mafia.", {4}),
        ("Players 5 and 6 are mafia.", {5, 6}),
        ("Player_6, 7, 8, and 9 rushed the vote; they are mafia.", {6, 7, 8, 9}),
        ("We have player 1 and 2 days left, and player_3 is mafia.", {3}),
        ("Player 12 is mafia.", set()),  # no such player
    ],
)
def test_numbered_players_are_read_however_their_number_is_written(text: str, expected: set[int]) -> None:
    assert {c["player"] for c in NUMBERED.extract(text, 0)} == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Werewolf", {wolf(A, False)}),
        ("Villager.", {role(A, "villager")}),
        ("Seer!", {role(A, "seer")}),
        ("Wolf?", set()),  # a question
        ("Bob is innocent - focus your votes on Carla, they're mafia.", {town(B, False), wolf(C, False)}),
        ("I keep defending Dmitri, Emma is a wolf.", {wolf(E, False)}),
        ("From the counts, Farid is forced mafia.", {wolf(F, False)}),
    ],
)
def test_bare_answers_and_the_subject_after_a_comma(text: str, expected: set[tuple[Any, ...]]) -> None:
    assert keys(text) == expected


def test_numbers_are_no_players_where_the_names_are_not_numbered() -> None:
    assert X.extract("Player 1 is mafia.", A) == []


@pytest.mark.parametrize(
    "text",
    ["My top suspect is Alice.", "I'm wary of Alice.", "Alice's deflection is obvious to me.", "Alice slight+."],
)
def test_a_read_never_claims_its_own_speaker(text: str) -> None:
    assert keys(text, speaker=A) == set()


_WORDS = st.sampled_from(
    [
        "my",
        "top",
        "suspect",
        "is",
        "Bob",
        "Carla",
        "(",
        ")",
        "/",
        "+",
        "-",
        ":",
        ",",
        "wolf",
        "town",
        "slight",
        "pair",
        "deflection",
        "wary",
        "of",
        "gives",
        "me",
        "vibes",
        "not",
        "if",
        "tops",
        "list",
        "confirmed",
        "mafia",
        "Alice",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, max_size=40))
def test_any_mix_of_read_words_reads_valid_claims_or_nothing(words: list[str]) -> None:
    for claim in X.extract(" ".join(words), A):
        assert 0 <= claim["player"] < len(NAMES) and claim["kind"] in CLAIM_KINDS
