"""Information hygiene of ``info["events"]`` and the observation, from first principles.

What a seat may know is rebuilt here without the engine's audiences or ``visibility``: its own role
(and its pack if it is a werewolf), its own night actions and seer results, its own analyses, and
the public events; plus the public rules (role counts, a night victim is never a werewolf). Over
many random games (random configs, fixed or shuffled roles, fuzzed answers), each seat's
``info["events"]`` must be exactly those events, numbered 0, 1, 2, ... in the seat's own stream (a
global index would count the hidden events in between), and every field of every event must hold
only what the seat may know. The numeric observation may not be surer of any role than the seat can
deduce: its possible roles must contain every role a brute-force enumeration of the worlds
consistent with the seat's knowledge allows, and its text may state no fact beyond the seat's own
(its pack, its checks, its protections) and the public reveals.
"""

from __future__ import annotations

import json
import re
from itertools import combinations
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import werewolf_env
from tests.helpers import STANDARD_ROLES, random_policy
from werewolf_env import GameConfig
from werewolf_env.core.config import Role
from werewolf_env.core.state import Event
from werewolf_env.core.visibility import visible
from werewolf_env.engine.log import dumps, read_log, replay
from werewolf_env.envs.base import seat_form
from werewolf_env.observe.layout import NUM_ROLES, OBS_SLICES

W, S, D, V = Role.WEREWOLF, Role.SEER, Role.DOCTOR, Role.VILLAGER

# Every event type, by who may see it. A new type fails the test until it is classified here.
PUBLIC_TYPES = frozenset({
    "game_start", "night_start", "day_start", "death", "floor", "statement", "pass", "votes", "no_exile",
    "winner", "truncated", "summary", "game_over",
})  # fmt: skip
OWN_TYPES = frozenset({"action", "suspicion", "seer_result"})  # the actor's own
ENGINE_ONLY_TYPES = frozenset({"roles", "night_outcome", "ground_truth"})
# role_assigned: its own seat only; pack_decision: the werewolves who proposed that night.

# The data fields each delivered event may have (first principles: nothing a seat could not know).
ALLOWED_FIELDS: dict[str, frozenset[str]] = {
    "game_start": frozenset({"names", "config"}),
    "night_start": frozenset(),
    "day_start": frozenset({"max_debate_turns"}),
    "death": frozenset({"victim", "cause", "role"}),
    "floor": frozenset({"speaker", "bid", "tied"}),
    "statement": frozenset({"statement_id", "speaker", "text", "claims", "claims_source", "claims_disagreement",
                            "truncated"}),
    "pass": frozenset({"speaker"}),
    "votes": frozenset({"votes", "tally", "abstained", "exiled"}),
    "no_exile": frozenset({"needed"}),
    "winner": frozenset({"team"}),
    "truncated": frozenset({"max_rounds"}),
    "summary": frozenset({"text"}),
    "game_over": frozenset({"winner", "truncated", "rewards"}),
    "role_assigned": frozenset({"role", "teammates"}),
    "pack_decision": frozenset({"proposals", "target"}),
    "seer_result": frozenset({"target", "result"}),
    "action": frozenset({"kind", "raw", "parsed", "fallbacks", "repairs"}),
    "suspicion": frozenset({"statement_id", "subject", "prior", "reported", "score"}),
}  # fmt: skip
PUBLIC_CLAIM_FIELDS = frozenset({"kind", "player", "role", "team", "negated", "hedged", "source"})
# Keys that only the god view has (the judge's verdicts, the seed, the role list).
GOD_KEYS = frozenset({"roles", "seed", "speaker_role", "lie", "lie_strict", "known_false", "true", "verdict"})


def may_know(event: Event, seat: int, roles: list[Role], role_assigned_index: int | None) -> bool:
    """Whether ``seat`` may see ``event``, from the rules alone (never from ``event.audience``).

    ``role_assigned_index`` is the event's position among the role_assigned events: the engine deals
    them in seat order, one per seat.
    """
    kind = event.type
    if kind in PUBLIC_TYPES:
        return True
    if kind in ENGINE_ONLY_TYPES:
        return False
    if kind in OWN_TYPES:
        return event.actor == seat
    if kind == "role_assigned":
        return role_assigned_index == seat
    if kind == "pack_decision":
        return roles[seat] is W and str(seat) in event.data["proposals"]
    raise AssertionError(f"event type {kind!r} is not classified: decide who may see it")


def first_principles_stream(events: list[Event], seat: int, roles: list[Role]) -> list[Event]:
    stream = []
    dealt = 0
    for event in events:
        index = None
        if event.type == "role_assigned":
            index, dealt = dealt, dealt + 1
        if may_know(event, seat, roles, index):
            stream.append(event)
    return stream


def god_keys_in(value: Any, path: str = "") -> list[str]:
    """Paths of keys that only the god view has, anywhere in a JSON value."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in GOD_KEYS and not (key == "roles" and path == ".config" and item is None):
                found.append(f"{path}.{key}")
            found += god_keys_in(item, f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            found += god_keys_in(item, path)
    return found


def check_content(record: dict[str, Any], seat: int, roles: list[Role], config: GameConfig) -> None:
    """Every field of a delivered event holds only what ``seat`` may know."""
    kind, data = record["type"], record["data"]
    where = f"seat {seat}, {kind} #{record['seq']}"
    assert set(data) <= ALLOWED_FIELDS[kind], f"{where}: unexpected fields {set(data) - ALLOWED_FIELDS[kind]}"
    assert not god_keys_in(data), f"{where}: god-view fields {god_keys_in(data)}"
    wolves = sorted(p for p, r in enumerate(roles) if r is W)
    if kind in PUBLIC_TYPES:
        assert record["audience"] == "all", where
    else:  # the seat itself, or its pack: seats it knows
        known = set(wolves) if roles[seat] is W else {seat}
        assert record["audience"] and set(record["audience"]) <= known, where
    if kind == "game_start":
        assert data["config"]["roles"] is None, f"{where}: the public config names the roles"
        assert data["config"] == {**config.model_dump(mode="json"), "roles": None}
    elif kind == "death":
        if "role" in data:
            assert config.reveal_role_on_death and data["victim"] is not None, where
            assert data["role"] == roles[data["victim"]].value
        else:
            assert not config.reveal_role_on_death or data["victim"] is None, where
    elif kind == "statement":
        for claim in data["claims"]:
            assert set(claim) <= PUBLIC_CLAIM_FIELDS, f"{where}: claim fields {set(claim) - PUBLIC_CLAIM_FIELDS}"
    elif kind == "role_assigned":
        assert data["role"] == roles[seat].value, where
        if roles[seat] is W:
            assert data["teammates"] == [w for w in wolves if w != seat], where
        else:
            assert "teammates" not in data, where
    elif kind == "pack_decision":
        assert {int(w) for w in data["proposals"]} <= set(wolves), where
    elif kind == "seer_result":
        assert roles[seat] is S and record["actor"] == seat, where
        truth = roles[data["target"]]
        assert data["result"] == (truth.value if config.seer_learns_role else truth.team.value), where
    elif kind in ("action", "suspicion"):
        assert record["actor"] == seat, where


def deducible_roles(
    config: GameConfig,
    seat: int,
    own: Role,
    pack: set[int],
    checks: dict[int, str],
    revealed: dict[int, Role],
    night_victims: set[int],
) -> list[set[Role]]:
    """Every role each seat can have in some world consistent with what ``seat`` knows (brute force)."""
    n = config.num_players
    counts = config.seat_counts()
    possible: list[set[Role]] = [set() for _ in range(n)]
    for wolves in combinations(range(n), counts[W]):
        wolf_set = set(wolves)
        if (own is W) != (seat in wolf_set) or (own is W and wolf_set != pack) or wolf_set & night_victims:
            continue
        rest = [p for p in range(n) if p not in wolf_set]
        for seers in combinations(rest, counts[S]):
            after_seers = [p for p in rest if p not in seers]
            for doctors in combinations(after_seers, counts[D]):
                world = [V] * n
                for p in wolves:
                    world[p] = W
                for p in seers:
                    world[p] = S
                for p in doctors:
                    world[p] = D
                if world[seat] is not own or any(world[p] is not r for p, r in revealed.items()):
                    continue
                if any(result not in (world[t].value, world[t].team.value) for t, result in checks.items()):
                    continue
                for p, role in enumerate(world):
                    possible[p].add(role)
    return possible


def seat_knowledge(
    events: list[Event], seat: int, roles: list[Role]
) -> tuple[dict[int, str], dict[int, Role], set[int]]:
    """(own seer results, publicly revealed roles, night victims) from the events ``seat`` may see."""
    checks: dict[int, str] = {}
    revealed: dict[int, Role] = {}
    victims: set[int] = set()
    for event in first_principles_stream(events, seat, roles):
        data = event.data
        if event.type == "seer_result":
            checks[data["target"]] = data["result"]
        elif event.type == "death" and data["victim"] is not None:
            if "role" in data:
                revealed[data["victim"]] = Role(data["role"])
            if data["cause"] == "night":
                victims.add(data["victim"])
    return checks, revealed, victims


def check_facts(
    text: str, seat: int, roles: list[Role], names: tuple[str, ...], checks: dict[int, str], revealed: dict[int, Role]
) -> None:
    """The observation's WHAT YOU KNOW section states only the seat's own knowledge and public reveals."""
    if "\n\nWHAT YOU KNOW:\n" not in text:
        return
    section = text.split("\n\nWHAT YOU KNOW:\n", 1)[1].split("\n\n", 1)[0]
    seat_of = {name: p for p, name in enumerate(names)}
    for line in section.split("\n"):
        fact = line.removeprefix("- ")
        if fact.startswith("Your fellow werewolves: "):
            assert roles[seat] is W, f"seat {seat} ({roles[seat].value}) is told: {fact}"
            mates = [p for p, r in enumerate(roles) if r is W and p != seat]
            assert fact.endswith(", ".join(names[p] for p in mates) + ".") or not mates
        elif match := re.fullmatch(r"Night \d+: you investigated (.+): (.+)\.", fact):
            assert roles[seat] is S and seat_of[match[1]] in checks, f"seat {seat} is told: {fact}"
        elif re.fullmatch(r"Night \d+: you protected .+\.", fact):
            assert roles[seat] is D, f"seat {seat} is told: {fact}"
        elif match := re.fullmatch(r"(.+) was the (\w+) \(revealed on death\)\.", fact):
            assert revealed.get(seat_of[match[1]]) is Role(match[2]), f"seat {seat} is told: {fact}"
        else:
            raise AssertionError(f"seat {seat} is told an unclassified fact: {fact}")


def shown_roles(vector: np.ndarray, seat: int) -> set[Role]:
    start = OBS_SLICES["known_roles"][0] + seat * NUM_ROLES
    return {role for role in Role if vector[start + role.index]}


@st.composite
def small_configs(draw: st.DrawFn) -> GameConfig:
    n = draw(st.integers(5, 9))
    wolves = draw(st.integers(1, min(3, (n - 1) // 2)))
    seers = draw(st.integers(0, min(2, n - wolves)))
    doctors = draw(st.integers(0, min(2, n - wolves - seers)))
    fixed = None
    if draw(st.booleans()):  # a hand-built game: the config itself holds the roles
        deck = [W] * wolves + [S] * seers + [D] * doctors + [V] * (n - wolves - seers - doctors)
        fixed = tuple(draw(st.permutations(deck)))
    return GameConfig(
        num_players=n,
        num_werewolves=wolves,
        num_seers=seers,
        num_doctors=doctors,
        roles=fixed,
        max_rounds=draw(st.integers(1, 4)),
        max_debate_turns=draw(st.integers(1, 3)),
        analysis=draw(st.sampled_from(["full", "self", "peer", "off"])),
        doctor_repeat_protect=draw(st.booleans()),
        seer_learns_role=draw(st.booleans()),
        reveal_role_on_death=draw(st.booleans()),
    )


@settings(max_examples=100, deadline=None)
@given(config=small_configs(), seed=st.integers(0, 2**31 - 1), policy_seed=st.integers(0, 2**20))
def test_each_seat_gets_exactly_what_it_may_know(config: GameConfig, seed: int, policy_seed: int) -> None:
    env = werewolf_env.raw_env(config=config, info_events=True)
    env.reset(seed=seed)
    state = env.game.state
    roles = list(state.roles)
    n = config.num_players
    wolves = {p for p, r in enumerate(roles) if r is W}
    policy = random_policy(policy_seed, fuzz=0.2)
    delivered: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    deduced: dict[tuple[int, int], list[set[Role]]] = {}
    for agent in env.agent_iter():
        obs, _reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[agent]
        delivered[seat] += info["events"]
        assert "[hidden]" not in obs["text"]
        # the numeric observation is never surer of a role than the seat can deduce
        key = (seat, len(state.events))
        if key not in deduced:
            checks, revealed, victims = seat_knowledge(state.events, seat, roles)
            check_facts(obs["text"], seat, roles, state.names, checks, revealed)
            deduced[key] = deducible_roles(config, seat, roles[seat], wolves, checks, revealed, victims)
        for p, allowed in enumerate(deduced[key]):
            shown = shown_roles(obs["observation"], p)
            assert roles[p] in allowed
            assert allowed <= shown, f"seat {seat} is shown {shown} for seat {p}; it can only deduce {allowed}"
        env.step(policy(env.game, env.game.current))
    assert any(delivered)
    for seat in range(n):
        stream = delivered[seat]  # empty for a seat killed before its first turn
        assert [r["seq"] for r in stream] == list(range(len(stream))), f"seat {seat}: seq is not its own count"
        expected = first_principles_stream(state.events, seat, roles)
        # the stream is exactly the events the seat may know, in order, up to its last turn
        want = [seat_form(json.loads(dumps({**e.to_json(), "seq": i}))) for i, e in enumerate(expected[: len(stream)])]
        # how a statement's claims were found (text, agent) tells policies apart, and so maybe teams: never sent
        assert not any(
            "claims_source" in r["data"] or any("source" in c for c in r["data"].get("claims", ()))
            for r in stream
            if r["type"] == "statement"
        )
        assert stream == want, f"seat {seat}: info['events'] differ from what it may know"
        for record in stream:
            check_content(record, seat, roles, config)
        # the observation's history and info["events"] share one rule of visibility: the same rule
        dealt = 0
        for event in state.events:
            index = None
            if event.type == "role_assigned":
                index, dealt = dealt, dealt + 1
            may = may_know(event, seat, roles, index)
            assert visible(event, seat) == may, f"seat {seat}: visible() disagrees on {event.type} #{event.seq}"


def test_game_start_never_names_the_hidden_roles_but_the_log_header_does(tmp_path: Any) -> None:
    config = GameConfig(roles=STANDARD_ROLES)
    env = werewolf_env.raw_env(config=config, info_events=True, log_dir=tmp_path)
    env.reset(seed=3)
    start = next(e for e in env.game.state.events if e.type == "game_start")
    assert start.data["config"]["roles"] is None
    first = env.infos[env.agent_selection]["events"][0]
    assert first["type"] == "game_start" and first["data"]["config"]["roles"] is None
    policy = random_policy(3, fuzz=0.0)
    for _agent in env.agent_iter():
        _obs, _r, term, trunc, _info = env.last(observe=False)
        env.step(None if term or trunc else policy(env.game, env.game.current))
    records = read_log(env.log_path)
    assert records[0]["type"] == "header" and records[0]["config"]["roles"] == [r.value for r in STANDARD_ROLES]
    hidden = next(r for r in records if r.get("type") == "roles")
    assert hidden["audience"] == [] and hidden["data"]["roles"] == [r.value for r in STANDARD_ROLES]
    assert replay(env.log_path).ok


def test_shuffled_games_keep_their_public_config_unchanged() -> None:
    """Games whose roles are dealt by the seed (every benchmark run) log the same game_start as before
    the roles were hidden, so their old logs still replay identically."""
    config = GameConfig()
    env = werewolf_env.raw_env(config=config)
    env.reset(seed=0)
    start = env.game.state.events[0]
    assert start.type == "game_start" and start.data["config"] == config.model_dump(mode="json")


def test_sequence_numbers_do_not_count_the_wolves_night() -> None:
    """A villager's events are numbered 0, 1, 2, ...: the night's hidden events leave no gap."""
    env = werewolf_env.raw_env(config=GameConfig(roles=STANDARD_ROLES), info_events=True)
    env.reset(seed=0)
    policy = random_policy(0, fuzz=0.0)
    villager: list[dict[str, Any]] = []
    for agent in env.agent_iter():
        _obs, _r, term, trunc, info = env.last(observe=False)
        if term or trunc:
            env.step(None)
            continue
        if agent == "player_4":
            villager += info["events"]
        env.step(policy(env.game, env.game.current))
    assert [e["seq"] for e in villager] == list(range(len(villager)))
    assert len(villager) < len(env.game.state.events)  # there were hidden events to hide


def test_refresh_infos_numbers_the_stream_from_zero_again() -> None:
    env = werewolf_env.raw_env(config=GameConfig(roles=STANDARD_ROLES))
    env.reset(seed=0)
    env.info_events = True
    env.refresh_infos()
    first = env.infos[env.agent_selection]["events"]
    env.refresh_infos()
    assert env.infos[env.agent_selection]["events"] == first
    assert [e["seq"] for e in first] == list(range(len(first)))
