"""Observations: the cached renderer must say exactly what a fresh one says, and knowledge is sound."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import werewolf_env
from tests.helpers import random_policy
from werewolf_env.core.visibility import knowledge
from werewolf_env.observe.build import OBS_LAYOUT, OBS_SIZE, ObservationRenderer, Transcript


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    players=st.sampled_from([5, 8, 11]),
    analysis=st.sampled_from(["full", "off"]),
    reveal=st.booleans(),
    witch_hunter=st.booleans(),
)
def test_cached_observations_equal_fresh_ones(
    seed: int, players: int, analysis: str, reveal: bool, witch_hunter: bool
) -> None:
    # With a witch and a hunter: what the witch learns at night (the attack, her potions) and the hunter's turns.
    extra = {"role_counts": {"witch": 1, "hunter": 1}, "num_seers": 0 if players == 5 else 1} if witch_hunter else {}
    env = werewolf_env.raw_env(
        num_players=players,
        num_werewolves=max(1, players // 4),
        analysis=analysis,
        reveal_role_on_death=reveal,
        **extra,
    )
    env.reset(seed=seed)
    policy = random_policy(seed, fuzz=0.2)
    rng = np.random.default_rng(seed)
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        game = env.game
        # look at a random seat too, not only the one acting, so caches are exercised out of order
        for seat in {env.agent_name_mapping[agent], int(rng.integers(players))}:
            cached = env.observe(f"player_{seat}")
            fresh_renderer = ObservationRenderer(game.state)
            turn = game.pending_turn(seat)
            legal = game.legal_targets(turn) if turn is not None else []
            assert cached["text"] == fresh_renderer.text(seat, turn, legal)
            assert np.array_equal(cached["observation"], fresh_renderer.vector(seat, turn, legal))
            # the fan-out transcript equals the reference per-viewer transcript
            reference = Transcript(game.state.names, seat).update(game.state.events)
            assert fresh_renderer._history_text(seat) == reference
        env.step(policy(game, game.current))


def test_public_render_equals_reference_transcript() -> None:
    env = werewolf_env.raw_env(render_mode="ansi")
    env.reset(seed=4)
    for agent in env.agent_iter():
        _o, _r, term, trunc, _i = env.last(observe=False)
        env.step(None if term or trunc else env.action_space(agent).sample())
    assert env.render() == Transcript(env.game.state.names, None).update(env.game.state.events)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(5, 16), learns_role=st.booleans(), reveal=st.booleans())
def test_knowledge_never_excludes_the_truth(seed: int, players: int, learns_role: bool, reveal: bool) -> None:
    """Whatever a player knows is consistent with the hidden roles (so it can be sampled from)."""
    env = werewolf_env.raw_env(
        num_players=players,
        num_werewolves=max(1, (players - 1) // 3),
        seer_learns_role=learns_role,
        reveal_role_on_death=reveal,
    )
    env.reset(seed=seed)
    policy = random_policy(seed, fuzz=0.0)
    state = env.game.state
    while not env.game.over:
        for seat in range(players):
            known = knowledge(state, seat)
            assert all(state.roles[p] in known[p] for p in range(players))
            assert known[seat] == frozenset({state.roles[seat]})
        env.step(policy(env.game, env.game.current))


def test_observation_layout_is_consistent() -> None:
    assert sum(size for _, size in OBS_LAYOUT) == OBS_SIZE
    env = werewolf_env.raw_env(num_players=16, num_werewolves=5)
    env.reset(seed=0)
    obs = env.observe("player_15")["observation"]
    assert obs.shape == (OBS_SIZE,) and ((obs >= 0) & (obs <= 1)).all()


def _reference_propagation(possible: list[int], counts: dict) -> list[int]:
    """The count rules applied role by role, seat by seat, until nothing changes (the plain form)."""
    from werewolf_env.core.visibility import role_bit

    possible = list(possible)
    changed = True
    while changed:
        changed = False
        for role, count in counts.items():
            bit = role_bit(role)
            candidates = sum(1 for mask in possible if mask & bit)
            certain = sum(1 for mask in possible if mask == bit)
            for p, mask in enumerate(possible):
                if certain == count and candidates > count and mask & bit and mask != bit:
                    possible[p], changed = mask & ~bit, True
                elif candidates == count and certain < count and mask & bit and mask != bit:
                    possible[p], changed = bit, True
    return possible


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    wolves=st.integers(1, 3),
    seers=st.integers(0, 1),
    doctors=st.integers(0, 1),
    villagers=st.integers(1, 8),
    witches=st.integers(0, 1),
    hunters=st.integers(0, 1),
)
def test_count_propagation_matches_the_plain_fixed_point(
    data: st.DataObject, wolves: int, seers: int, doctors: int, villagers: int, witches: int, hunters: int
) -> None:
    """The memoised propagation equals the plain one on any state consistent with some true roles."""
    from werewolf_env.core.roles import Role
    from werewolf_env.core.visibility import _propagated, role_bit

    given = {Role.WEREWOLF: wolves, Role.SEER: seers, Role.DOCTOR: doctors, Role.VILLAGER: villagers,
             Role.WITCH: witches, Role.HUNTER: hunters}  # fmt: skip
    counts = {role: given.get(role, 0) for role in Role}  # every role, in role order (as the engine passes them)
    truth = data.draw(st.permutations([role for role, c in counts.items() for _ in range(c)]))
    everything = sum(role_bit(r) for r in Role)
    noise = data.draw(st.lists(st.integers(0, everything), min_size=len(truth), max_size=len(truth)))
    possible = [role_bit(r) | extra for r, extra in zip(truth, noise, strict=True)]
    expected = _reference_propagation(possible, counts)
    assert list(_propagated(tuple(possible), tuple(counts.values()))) == expected
    assert all(mask & role_bit(r) for mask, r in zip(expected, truth, strict=True))


def test_every_section_header_the_agents_cut_on_is_rendered_and_cut_where_they_expect() -> None:
    """The section headers are a contract between the renderer and the agents that reorder prompts
    (``werewolf_deception.agents.llm.prompts``) and show new lines to a human
    (``werewolf_deception.agents.policies.human``): one ``Section`` table."""
    from werewolf_deception.agents.llm.prompts import build_messages
    from werewolf_env.observe.text import Section

    env = werewolf_env.raw_env(max_notes_shown=3)
    env.reset(seed=2)
    for agent in env.possible_agents:
        env.action_space(agent).seed(2)
    seen: set[str] = set()
    for agent in env.agent_iter(max_iter=400):
        obs, _r, term, trunc, _info = env.last()
        text = obs["text"]
        for header in vars(Section).values():
            if isinstance(header, str) and header.isupper() and ("\n\n" + header) in "\n\n" + text:
                seen.add(header)
        system, user = build_messages(text)
        assert Section.RULES in system["content"] and Section.RULES not in user["content"]
        assert user["content"].startswith(Section.HISTORY if Section.HISTORY in text else Section.PLAYERS)
        assert ("\n\n" + Section.TASK) in user["content"]
        env.step(None if term or trunc else env.action_space(agent).sample())
    headers = {v for k, v in vars(Section).items() if not k.startswith("_")}
    assert headers <= seen, headers - seen
