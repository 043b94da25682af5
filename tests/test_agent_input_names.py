"""Names from text match their seat however Unicode spells them: NFKC and case folding, in one rule
(``names.name_key``) used by action targets, structured claims, the claim reader and the benchmarks."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.helpers import fixed_game, quiet, run_until
from werewolf_deception.benchmarks.labels.evaluate import seat_of
from werewolf_deception.benchmarks.labels.labelers import seat_lookup
from werewolf_env import Game, GameConfig
from werewolf_env.actions.parse import resolver
from werewolf_env.claims.model import normalize_claims
from werewolf_env.claims.text import ClaimExtractor
from werewolf_env.core.state import ActionKind

NAMES = ("Inés", "Zoë", "Bob", "Carla", "Dmitri", "Émile", "Hiro", "Straße")
INES_DECOMPOSED = unicodedata.normalize("NFD", "Inés")  # "Ine" + U+0301: what some models write
ZOE_DECOMPOSED = unicodedata.normalize("NFD", "Zoë")
FULL_WIDTH_BOB = "Ｂｏｂ"
SPELLINGS = {  # how a name may come back from a model: seat
    INES_DECOMPOSED: 0, "INÉS": 0, "ine\u0301s": 0, " Inés ": 0, ZOE_DECOMPOSED: 1, "ZOË": 1, FULL_WIDTH_BOB: 2,
    "ＢＯＢ": 2, unicodedata.normalize("NFD", "ÉMILE"): 5, "STRASSE": 7, "strasse": 7, "player_3": 3,
}  # fmt: skip
X = ClaimExtractor(NAMES)


def game_at(kind: ActionKind) -> Game:
    game = fixed_game(names=NAMES)
    run_until(game, quiet, stop=lambda g: g.current.kind is kind)
    return game


@pytest.mark.parametrize(("spelling", "seat"), list(SPELLINGS.items()))
def test_a_vote_names_the_seat_however_the_name_is_encoded(spelling: str, seat: int) -> None:
    game = game_at(ActionKind.VOTE)
    voter = game.current.player
    result = game.act({"vote": spelling})
    if seat == voter:
        assert "yourself" in result.fallbacks[0]
    else:
        assert result.action == {"vote": seat} and not result.fallbacks


@pytest.mark.parametrize(("spelling", "seat"), list(SPELLINGS.items()))
def test_structured_claims_and_the_reader_find_the_seat(spelling: str, seat: int) -> None:
    game = game_at(ActionKind.STATEMENT)
    speaker = game.current.player
    claim = {"kind": "role", "player": spelling, "role": "seer"}
    claims, errors = normalize_claims([claim], resolver(game.state), speaker)
    assert not errors and claims[0]["player"] == seat
    assert X.seat(spelling) == seat
    text = f"I am sure {spelling.strip()} is a werewolf."
    assert [(c["player"], c["team"]) for c in X.extract(text, 4 if seat != 4 else 6)] == [(seat, "werewolf")]
    assert X.mentions(text) == frozenset({seat})


def test_the_words_for_oneself_are_folded_too() -> None:
    claims, errors = normalize_claims([{"kind": "role", "player": "ＭＥ", "role": "seer"}], X.seat, 4)
    assert not errors and claims[0]["player"] == 4


@pytest.mark.parametrize(
    "text",
    [
        f"ﬁne… {INES_DECOMPOSED} is a wolf, and {FULL_WIDTH_BOB} is the seer.",  # folding changes lengths before
        f"{INES_DECOMPOSED}, {ZOE_DECOMPOSED}: both town. {FULL_WIDTH_BOB} is a wolf!",
        f"Ⅷ ﬀ {unicodedata.normalize('NFD', 'ÉMILE')} is the doctor; STRASSE is a wolf.",
    ],
)
def test_names_in_folded_text_are_cut_at_the_right_places(text: str) -> None:
    lowered = text.lower()
    hits = X._name_hits(text, lowered)
    found = [(lowered[start:end], seat) for start, end, seat in hits]
    assert found and all(X.seat(written) == seat for written, seat in found), found
    assert all(unicodedata.category(lowered[end])[0] != "M" for _, end, _ in hits if end < len(lowered))


def test_claims_read_from_decomposed_and_full_width_names() -> None:
    text = f"ﬁne… {INES_DECOMPOSED} is a wolf, and {FULL_WIDTH_BOB} is the seer. I trust {ZOE_DECOMPOSED}."
    claims = {(c["kind"], c["player"], c["role"], c["team"], c["hedged"]) for c in X.extract(text, 4)}
    assert claims == {
        ("team", 0, None, "werewolf", False),
        ("role", 2, "seer", None, False),
        ("team", 1, None, "village", True),
    }


def test_benchmark_seat_lookups_fold_names() -> None:
    players = list(NAMES)
    for spelling, seat in SPELLINGS.items():
        if spelling.startswith("player_"):
            continue
        assert seat_lookup(players)(spelling) == seat
        assert seat_of({"players": players}, spelling) == seat
    assert seat_lookup(players)(3) is None and seat_of({"players": players}, None) is None


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (("Inés", INES_DECOMPOSED, "Bob", "Carla", "Dmitri"), "read as the same name"),
        (("Bob", FULL_WIDTH_BOB, "Inés", "Carla", "Dmitri"), "read as the same name"),
        (("Straße", "STRASSE", "Inés", "Carla", "Dmitri"), "read as the same name"),
        (("ＭＥ", "Bob", "Inés", "Carla", "Dmitri"), "reserved word"),
        (("ｐｌａｙｅｒ_7", "Bob", "Inés", "Carla", "Dmitri"), "looks like an agent id"),
        # the marks a seat's observation puts after names: "Bob (you)" would make Bob's lines read as every
        # seat's own, "Bob [dead]" a living player as dead
        (("Bob (YOU)", "Ann", "Inés", "Carla", "Dmitri"), "observations mark names with '\\(you\\)'"),
        (("Ann", "Bob（you）", "Inés", "Carla", "Dmitri"), "observations mark names with '\\(you\\)'"),
        (("Ann", "Bob", "Inés [Dead] x", "Carla", "Dmitri"), "observations mark names with '\\[dead\\]'"),
    ],
)
def test_config_refuses_names_that_read_alike(names: tuple[str, ...], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        GameConfig(num_players=5, num_werewolves=1, names=names)


# ------------------------------------------------------------------------------------ the folding rule

texts = st.text(st.characters(codec="utf-8"), max_size=40) | st.sampled_from([*SPELLINGS, "ǰ", "İ", "ﬃ"])


@settings(max_examples=400, deadline=None)
@given(text=texts)
def test_name_key_is_stable_and_ignores_encoding_and_case(text: str) -> None:
    from werewolf_env.core.names import name_key

    key = name_key(text)
    assert name_key(key) == key
    assert name_key(unicodedata.normalize("NFD", text)) == key == name_key(unicodedata.normalize("NFC", text))
    assert name_key(text.upper()) == name_key(text.upper().lower())


@settings(max_examples=400, deadline=None)
@given(text=texts)
def test_fold_positions_cover_the_text_in_order(text: str) -> None:
    from werewolf_env.core.names import fold, fold_with_positions

    folded, starts, ends = fold_with_positions(text)
    assert folded == fold(text) and len(starts) == len(ends) == len(folded)
    assert starts == sorted(starts) and ends == sorted(ends)
    assert all(0 <= a < b <= len(text) for a, b in zip(starts, ends, strict=True))
    # Each cluster folds on its own to the folded characters mapped to it.
    for a, b in sorted(set(zip(starts, ends, strict=True))):
        assert fold(text[a:b]) == "".join(c for c, s, e in zip(folded, starts, ends, strict=True) if (s, e) == (a, b))
