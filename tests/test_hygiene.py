"""Information hygiene: no observation reveals another player's role, night choice, notes or analyses,
except what the rules reveal.

Two complementary checks:
* canaries: every private channel (notes, analysis reasoning) carries a unique token; no other
  player's observation text may ever contain it;
* non-interference: two games that differ only in hidden information (two roles swapped), played
  with role-blind scripted answers, must give a third player byte-identical observations (text and
  numbers) and ``info`` (structured events included: their content and their numbering) at every
  step; with role reveals switched on, the same swap must show (the test can fail).

``tests/test_hidden_info_events.py`` checks every event field and number against what each seat may
know, over random games.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import werewolf_env
from tests.helpers import STANDARD_ROLES, D, S, V, W, random_policy
from werewolf_env.core.config import Role
from werewolf_env.core.state import ActionKind


def canary(seat: int, step: int, channel: str) -> str:
    return f"CANARY-{channel}-{seat}-{step}"


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([5, 8, 12]))
def test_private_channels_never_reach_other_players(seed: int, players: int) -> None:
    env = werewolf_env.raw_env(num_players=players, num_werewolves=max(1, players // 4))
    env.reset(seed=seed)
    policy = random_policy(seed, fuzz=0.0)
    planted: dict[int, set[str]] = {p: set() for p in range(players)}
    step = 0
    for agent in env.agent_iter():
        obs, _r, term, trunc, _info = env.last()
        seat = env.agent_name_mapping[agent]
        if term or trunc:
            env.step(None)
            continue
        foreign = {token for p, tokens in planted.items() if p != seat for token in tokens}
        text = obs["text"]
        leaked = [token for token in foreign if token in text]
        assert not leaked, f"{agent} sees {leaked}"
        assert "[hidden]" not in text
        action = policy(env.game, env.game.current)
        note = canary(seat, step, "note")
        action["notes"] = note
        planted[seat].add(note)
        if env.game.current.kind in (ActionKind.SELF_ANALYSIS, ActionKind.PEER_ANALYSIS):
            action["reasoning"] = canary(seat, step, "reasoning")
            planted[seat].add(action["reasoning"])
        env.step(action)
        step += 1
    # the canaries did reach their owners (the test would notice a channel that shows nothing)
    last_texts = {p: env.observe(f"player_{p}")["text"] for p in range(players)}
    assert any(any(t in last_texts[p] for t in planted[p]) for p in range(players))


def role_blind_answer(kind: ActionKind, seat: int, rnd: int, names: tuple[str, ...]) -> dict[str, Any]:
    """The same answer whatever the player's role: only seat, round and kind matter."""
    if kind is ActionKind.ELIMINATE:
        return {"target": names[7] if rnd == 1 else names[5]}
    if kind is ActionKind.PROTECT:  # Alice is never the target, so protection changes nothing public
        return {"target": names[0], "notes": "secret plan"}
    if kind is ActionKind.UNMASK:
        return {"target": names[(seat + rnd) % len(names)], "notes": "secret plan"}
    if kind is ActionKind.BID:
        return {"bid": (seat * 3 + rnd) % 11}
    if kind is ActionKind.STATEMENT:
        return {"statement": f"I am player {seat} and I think {names[(seat + 1) % 8]} is innocent."}
    if kind is ActionKind.SELF_ANALYSIS:
        return {"is_deceptive": False, "confidence": 0.3, "deception_type": "none", "reasoning": "plain"}
    if kind is ActionKind.PEER_ANALYSIS:  # confidence: the probability that the statement is deceptive
        return {
            "is_deceptive": seat % 2 == 0,
            "confidence": 0.6 if seat % 2 == 0 else 0.4,
            "deception_type": "none",
            "reasoning": "hmm",
            "suspicion": (seat + 1) / 10,
        }
    if kind is ActionKind.VOTE:
        return {"vote": None}
    return {"summary": f"summary of {seat}"}


def viewer_trace(roles: tuple[Role, ...], viewer: int, max_rounds: int = 2, **config: Any) -> list[tuple[str, ...]]:
    """What ``viewer`` holds, each time it changes: observation text, numbers, and its info as JSON.

    (Steps that change nothing for the viewer are not repeated: how many hidden actions others take
    between two of its views is not for it to count.)
    """
    env = werewolf_env.raw_env(
        num_players=8, roles=roles, max_rounds=max_rounds, num_werewolves=roles.count(W), info_events=True, **config
    )
    env.reset(seed=7)
    names = env.game.state.names
    trace = []
    for agent in env.agent_iter():
        _obs, _r, term, trunc, _info = env.last(observe=False)
        seen = env.observe(f"player_{viewer}")
        info = json.dumps(env.infos.get(f"player_{viewer}"), sort_keys=True)  # gone once the game ends
        view = (seen["text"], np.asarray(seen["observation"]).tobytes().hex(), info)
        if not trace or trace[-1] != view:
            trace.append(view)
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[agent]
        env.step(role_blind_answer(env.game.current.kind, seat, env.game.state.round, names))
    return trace


def swapped(roles: tuple[Role, ...], a: int, b: int) -> tuple[Role, ...]:
    out = list(roles)
    out[a], out[b] = out[b], out[a]
    return tuple(out)


@pytest.mark.parametrize(
    ("viewer", "a", "b", "rounds"),
    [
        (4, 2, 6, 2),  # a villager cannot tell the seer from another villager
        (4, 1, 6, 2),  # ... nor a werewolf from a villager
        (4, 3, 5, 2),  # ... nor the doctor (Farid dies on night 2 in both games)
        # ... nor, on night 3, whether the doctor or the seer still acts at night (Farid, dead, or a
        # living player): the hidden night events differ in number, the viewer's event numbers may not
        (4, 3, 5, 3),
        (4, 2, 5, 3),
        (2, 0, 6, 2),  # the seer cannot tell an un-investigated werewolf from a villager
        (0, 2, 3, 3),  # a werewolf cannot tell the seer from the doctor
    ],
)
def test_swapping_hidden_roles_does_not_change_a_viewers_observations(viewer: int, a: int, b: int, rounds: int) -> None:
    roles = STANDARD_ROLES  # Alice W, Bob W, Carla S, Dmitri D, Emma V, Farid V, Grace V, Hiro V
    if viewer == 2:
        # the seer investigates (seat + round) % 8 = 3 then 4: Dmitri and Emma, not the swapped seats
        assert (2 + 1) % 8 not in (a, b) and (2 + 2) % 8 not in (a, b)
    first = viewer_trace(roles, viewer, rounds)
    second = viewer_trace(swapped(roles, a, b), viewer, rounds)
    assert len(first) == len(second)
    for i, (x, y) in enumerate(zip(first, second, strict=True)):
        assert x == y, f"step {i}: the viewer's observation reveals the swap"


def test_role_reveal_does_show_the_swap() -> None:
    """Positive control: with reveal_role_on_death, the dead Farid's role differs between the games."""
    roles = STANDARD_ROLES
    first = viewer_trace(roles, 4, reveal_role_on_death=True)
    second = viewer_trace(swapped(roles, 3, 5), 4, reveal_role_on_death=True)
    assert first != second


def test_werewolves_see_their_pack_and_nobody_else_does() -> None:
    from werewolf_env.observe.layout import NUM_ROLES, OBS_SLICES

    env = werewolf_env.raw_env(roles=(W, W, S, D, V, V, V, V))
    env.reset(seed=0)
    texts = {p: env.observe(f"player_{p}")["text"] for p in range(8)}
    assert "Your fellow werewolves: Bob." in texts[0] and "Your fellow werewolves: Alice." in texts[1]
    base = OBS_SLICES["known_roles"][0]
    for p in range(8):
        known = env.observe(f"player_{p}")["observation"]
        bob = known[base + NUM_ROLES : base + 2 * NUM_ROLES]  # what p knows of Bob's role
        if p in (0, 1):
            assert bob[W.index] == 1 and bob.sum() == 1
        else:
            assert "fellow werewolves" not in texts[p]
            assert bob[W.index] == 1 and bob.sum() > 1, "a non-werewolf cannot know Bob is one"


def test_ground_truth_events_are_engine_only() -> None:
    env = werewolf_env.raw_env()
    env.reset(seed=1)
    for agent in env.agent_iter():
        _o, _r, term, trunc, _i = env.last(observe=False)
        env.step(None if term or trunc else env.action_space(agent).sample())
    for event in env.game.state.events:
        if event.type in ("ground_truth", "roles", "night_outcome"):
            assert event.audience == ()
        if event.type in ("action", "suspicion", "seer_result", "role_assigned"):
            assert event.audience is not None and len(event.audience) == 1
        if event.type == "pack_decision":
            assert all(env.game.state.roles[p] is W for p in event.audience)
