"""Real LLM Werewolf / Mafia transcripts (the shared corpus's ``games.jsonl``) and labelled statements.

A labelled statement follows ``LABELING.md``: ``id``, ``speaker``, ``speaker_role``, ``players``,
``roles``, ``text`` and the hand-labelled ``claims``. What the speaker knew when it spoke (its own
role, its pack, its checks and protections, roles revealed publicly on death) is read from the
game when the item names one (``game_id`` + ``event_i``) and the corpus is at hand; otherwise it is
what the item itself says (own role; a werewolf's pack from ``roles``; optional ``checks``,
``protected`` and ``revealed`` fields).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from werewolf_deception.benchmarks.shared_data import transcripts_corpus
from werewolf_env.claims import Knowledge
from werewolf_env.core import ROLE_SPECS, Role

DEFAULT_CORPUS = transcripts_corpus()  # $WEREWOLF_SHARED_DATA, else ../shared/data

# The corpus's role names (original and mapped) -> the project's roles (LABELING.md's mapping).
_ROLE_NAMES = {
    "werewolf": "werewolf", "wolf": "werewolf", "mafia": "werewolf", "mafioso": "werewolf", "don": "werewolf",
    "seer": "seer", "detective": "seer", "cop": "seer",
    "doctor": "doctor", "medic": "doctor", "bodyguard": "doctor", "guard": "doctor",
}  # fmt: skip
_KILL_REVEAL = re.compile(r"^KILL\s+(?P<name>[^\s(]+)\S*\s+role=(?P<role>\w+)")
_SENTENCE_REVEAL = re.compile(
    r"^(?P<name>\S+) was (?:found dead|sent to jail|executed|killed)\W.*?\bwas an? (?P<role>\w+)"
)


def project_role(name: str) -> str:
    """A role name of any source as the project's role (any other town role is a villager)."""
    return _ROLE_NAMES.get(name.strip().lower(), "villager")


def item_id(game: dict[str, Any], event: dict[str, Any]) -> str:
    return f"{game['game_id']}-{event['i']}"


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[dict[str, Any], ...]:
    with open(path, encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f if line.strip())


MORE_SOURCES = Path("more_sources") / "games_more.jsonl"  # three more sources, in the same schema


def load_games(corpus: Path = DEFAULT_CORPUS) -> list[dict[str, Any]]:
    """The corpus's first five sources (``games.jsonl``), from which the earlier samples were drawn."""
    return list(_load(str(Path(corpus) / "games.jsonl")))


def load_all_games(corpus: Path = DEFAULT_CORPUS) -> list[dict[str, Any]]:
    """Every source: ``games.jsonl``, then ``more_sources/games_more.jsonl`` where the corpus has it."""
    more = Path(corpus) / MORE_SOURCES
    return load_games(corpus) + (list(_load(str(more))) if more.is_file() else [])


def games_by_id(corpus: Path = DEFAULT_CORPUS) -> dict[str, dict[str, Any]]:
    return {g["game_id"]: g for g in load_all_games(corpus)}


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                raise ValueError(f"{path}:{n}: a statement needs at least 'text', 'speaker' and 'players'")
            yield item


def public_reveals(game: dict[str, Any], before_i: int) -> dict[str, str]:
    """Roles announced to every player (on death) before event ``before_i``: player -> project role."""
    players = set(game["players"])
    revealed: dict[str, str] = {}
    for event in game["events"][:before_i]:
        if event["kind"] != "announcement":
            continue
        if event.get("revealed_role") and event.get("target") in players:  # sources that record the reveal
            revealed[event["target"]] = project_role(str(event["revealed_role"]))
            continue
        m = _KILL_REVEAL.match(event["text"]) or _SENTENCE_REVEAL.match(event["text"])
        if m and m.group("name") in players:
            revealed[m.group("name")] = project_role(m.group("role"))
    return revealed


def known_roles(item: dict[str, Any], games: dict[str, dict[str, Any]] | None = None) -> tuple[tuple[str, int], ...]:
    """(role, seat) of the seer / doctor when everyone knows who it is (revealed publicly) at the item's moment."""
    revealed: dict[str, str] = dict(item.get("revealed") or {})
    game = games.get(item.get("game_id", "")) if games else None
    if game is not None and "event_i" in item:
        revealed.update(public_reveals(game, item["event_i"]))
    holders: dict[str, list[str]] = {}
    for name, role in revealed.items():
        holders.setdefault(role, []).append(name)
    players = list(item["players"])
    return tuple(
        sorted(
            (role, players.index(names[0]))
            for role, names in holders.items()
            if role in Role and ROLE_SPECS[Role(role)].unique and len(names) == 1 and names[0] in players
        )
    )


def claimed_roles(item: dict[str, Any], games: dict[str, dict[str, Any]] | None = None) -> tuple[tuple[int, str], ...]:
    """(seat, role) each player had claimed in public before the item (its ``claimed`` field: name -> role, or
    read from the game's earlier statements with the project's claim reader)."""
    players = list(item["players"])
    game = games.get(item.get("game_id", "")) if games else None
    if game is None or "event_i" not in item:
        given = item.get("claimed") or {}
        return tuple(sorted((players.index(p), r) for p, r in given.items() if p in players))
    return _claimed_before(game["game_id"], item["event_i"], tuple(players), games)  # type: ignore[arg-type]


def _claimed_before(
    game_id: str, event_i: int, players: tuple[str, ...], games: dict[str, dict[str, Any]]
) -> tuple[tuple[int, str], ...]:
    from werewolf_env.claims import public_role_claims

    said = _said_in(game_id, players, games)
    return public_role_claims((speaker, claims) for i, speaker, claims in said if i < event_i)


_SAID: dict[tuple[str, tuple[str, ...]], list[tuple[int, int, list[dict[str, Any]]]]] = {}


def _said_in(
    game_id: str, players: tuple[str, ...], games: dict[str, dict[str, Any]]
) -> list[tuple[int, int, list[dict[str, Any]]]]:
    """(event index, speaker seat, claims read) of every statement of a game, read once per game."""
    from werewolf_env.claims import extractor_for

    key = (game_id, players)
    if key not in _SAID:
        game = games[game_id]
        extractor = extractor_for(players)
        seat = {p: i for i, p in enumerate(players)}
        said = []
        for event in game["events"]:
            if event["kind"] == "speech" and event["speaker"] in seat:
                speaker = seat[event["speaker"]]
                known = known_roles(_at(game, event), games)
                said.append((event["i"], speaker, extractor.extract(event["text"], speaker, known)))
        _SAID[key] = said
    return _SAID[key]


def _at(game: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    return {"game_id": game["game_id"], "event_i": event["i"], "players": game["players"]}


def knowledge_of(item: dict[str, Any], games: dict[str, dict[str, Any]] | None = None) -> Knowledge:
    """What the item's speaker knew when it spoke (see the module docstring)."""
    players: list[str] = list(item["players"])
    roles: dict[str, str] = dict(item.get("roles") or {})
    speaker = item["speaker"]
    own = item.get("speaker_role") or roles.get(speaker, "villager")
    game = games.get(item.get("game_id", "")) if games else None
    checks: dict[str, str] = dict(item.get("checks") or {})
    protected: set[str] = set(item.get("protected") or ())
    revealed: dict[str, str] = dict(item.get("revealed") or {})
    checks_known = "checks" in item
    if game is not None and "event_i" in item:
        day = item.get("day", game["events"][item["event_i"]]["day"])
        for n in game["night"]:
            if n.get("actor") != speaker or n["night"] > day:
                continue
            if n["action"] == "check" and n.get("target"):
                checks[n["target"]] = project_role(n["result_role"]) if n.get("result_role") else n["result"]
            elif n["action"] == "protect" and n.get("target"):
                protected.add(n["target"])
        checks_known = True
        revealed.update(public_reveals(game, item["event_i"]))
    return Knowledge.of_transcript(
        players=players,
        roles=roles,
        speaker=speaker,
        own_role=own,
        checks=checks,
        checks_known=checks_known,
        protected=protected,
        revealed=revealed,
    )


def sources(items: Iterable[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item.get("source", "?")] = counts.get(item.get("source", "?"), 0) + 1
    return counts


def with_reveals(item: dict[str, Any], games: dict[str, Any] | None) -> dict[str, Any]:
    """The item as the labeler sees it: roles revealed to everyone and roles claimed in public before it (the
    item's own, or read from the game's earlier statements) included."""
    revealed = dict(item.get("revealed") or {})
    game = games.get(item.get("game_id", "")) if games else None
    if game is not None and "event_i" in item:
        revealed.update(public_reveals(game, item["event_i"]))
    players = item["players"]
    claimed = {players[seat]: role for seat, role in claimed_roles(item, games)}
    return {
        "speaker": item["speaker"],
        "players": players,
        "text": item["text"],
        "revealed": revealed,
        "claimed": claimed,
    }
