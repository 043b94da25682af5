"""The stratified labelled sample: quotas per source, disjoint from the earlier samples, reproducible."""

from __future__ import annotations

import pytest

from werewolf_deception.benchmarks.labels import strata as claims_strata
from werewolf_deception.benchmarks.labels.corpus import DEFAULT_CORPUS, MORE_SOURCES, item_id, load_all_games

HAVE_CORPUS = (DEFAULT_CORPUS / MORE_SOURCES).is_file()
pytestmark = pytest.mark.skipif(not HAVE_CORPUS, reason="needs ../shared/data/llm_werewolf_transcripts/more_sources")


def test_every_source_reaches_its_quota_or_gives_all_it_has_and_the_whole_reaches_1500() -> None:
    plan = claims_strata.plan(load_all_games())
    assert len(plan) == 8
    for source, row in plan.items():
        assert row["total"] == min(row["statements"], max(claims_strata.QUOTAS[source], row["earlier"])), source
        assert row["total"] >= min(150, row["statements"]), source
    assert sum(row["total"] for row in plan.values()) >= 1500


def test_the_draw_is_reproducible_and_disjoint_from_the_earlier_samples() -> None:
    games = load_all_games()
    first = [item_id(g, e) for g, e in claims_strata.draw(games)]
    assert first == [item_id(g, e) for g, e in claims_strata.draw(games)]
    assert len(set(first)) == len(first)
    assert not set(first) & claims_strata.earlier_ids()
    chunks = [claims_strata.chunk(first, k, 7) for k in range(7)]
    assert sorted(x for c in chunks for x in c) == sorted(first)


def test_check_finds_unknown_items_players_kinds_and_values() -> None:
    games = load_all_games()
    game, event = claims_strata.draw(games)[0]
    iid, player = item_id(game, event), game["players"][0]
    good = {"kind": "team", "player": player, "role": None, "team": "werewolf", "negated": False, "hedged": True,
            "lie": False}  # fmt: skip
    assert claims_strata.problems({iid: {"claims": [good]}}, games) == []
    bad = {
        "nobody-1": {"claims": []},
        iid: {"claims": [{**good, "player": "Nobody"}, {**good, "kind": "vote"}, {**good, "team": "town"},
                         {**good, "kind": "role", "role": "mayor"}, {**good, "lie": "no"}]},
    }  # fmt: skip
    found = claims_strata.problems(bad, games)
    assert len(found) == 6 and "not an item" in found[0]


def _item(source: str, n: int, text: str, claims: list[dict[str, object]]) -> dict[str, object]:
    players = ["Alice", "Bob", "Carol", "Dave"]
    return {
        "id": f"{source}-{n}",
        "source": source,
        "speaker": "Alice",
        "speaker_role": "villager",
        "players": players,
        "roles": dict(zip(players, ["villager", "werewolf", "seer", "doctor"], strict=True)),
        "text": text,
        "claims": claims,
    }


def _claim(player: str, team: str) -> dict[str, object]:
    return {
        "kind": "team",
        "player": player,
        "role": None,
        "team": team,
        "negated": False,
        "hedged": False,
        "lie": False,
    }


def test_leave_one_source_out_fits_on_the_other_sources_and_averages_over_sources() -> None:
    from werewolf_deception.benchmarks.labels.evaluate import loso, loso_targets, regex_labeler

    items = [
        _item("a", 0, "Bob is a werewolf.", [_claim("Bob", "werewolf")]),
        _item("a", 1, "Carol is a werewolf.", [_claim("Carol", "werewolf")]),
        _item("b", 0, "Bob is a werewolf.", [_claim("Bob", "werewolf")]),
        _item("b", 1, "hmm, carol: scum, 100%, trust me", [_claim("Carol", "werewolf")]),
    ]
    seen: list[set[str]] = []

    def fit(train: list[dict[str, object]]):  # type: ignore[no-untyped-def]
        seen.append({str(item["source"]) for item in train})
        return regex_labeler(None)

    result = loso(items, fit, None)
    assert seen == [{"b"}, {"a"}]  # each source scored by a labeler fitted without it
    per_source = result["macro"]["claim_f1"]["per_source"]
    assert set(per_source) == {"a", "b"}
    assert result["macro"]["claim_f1"]["mean"] == pytest.approx(sum(per_source.values()) / 2, abs=1e-4)
    assert result["by_source"]["a"]["claims"]["recall"] == 1.0
    assert result["macro"]["lie_f1"]["undefined"] == ["a", "b"]  # no lie anywhere: undefined, never 0
    assert set(loso_targets(result)) == {"claim_f1", "claim_precision", "lie_f1", "kind_recall"}
