"""The speed work's shortcuts give what the plain computation gives: public vector blocks built when read (in any
order), the judge's memoised claim masks and its knowledge of a speaker without a night record."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf_deception.agents import RandomAgent
from werewolf_env import raw_env
from werewolf_env.claims.judge import Knowledge, _asserted_mask, asserted_mask
from werewolf_env.core.roles import Role, Team
from werewolf_env.core.state import GameState
from werewolf_env.core.visibility import knowledge_masks
from werewolf_env.observe.build import ObservationRenderer
from werewolf_env.observe.public import PublicBlocks

_ROLE_COUNTS = {"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1}


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), order_seed=st.integers(0, 10**6), witch=st.booleans())
def test_vectors_read_in_any_order_show_their_own_step(seed: int, order_seed: int, witch: bool) -> None:
    """Observations kept unread and read in a random order (public blocks built forward, or from scratch for
    one older than the latest built) equal a fresh renderer's vector at their step."""
    kwargs = {"num_players": 8, "role_counts": _ROLE_COUNTS} if witch else {"num_players": 7}
    env = raw_env(analysis="off", **kwargs)  # type: ignore[arg-type]
    env.reset(seed=seed)
    policies = [RandomAgent(seed + seat) for seat in range(env.config.num_players)]
    kept = []
    for step, agent in enumerate(env.agent_iter(max_iter=300)):
        obs, _, termination, truncation, info = env.last()
        if step % 3 == 0:
            state = env.game.state  # type: ignore[union-attr]
            seat = env.agent_name_mapping[agent]
            turn = next((t for t in state.pending if t.player == seat), None)
            legal = env.game.legal_targets(turn) if turn is not None else []  # type: ignore[union-attr]
            kept.append((obs, ObservationRenderer(state).vector(seat, turn, legal)))
        if termination or truncation:
            env.step(None)
            continue
        env.step(policies[env.agent_name_mapping[agent]].act(obs, info))
    random.Random(order_seed).shuffle(kept)
    for obs, reference in kept:
        assert np.array_equal(obs["observation"], reference)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), order_seed=st.integers(0, 10**6))
def test_public_blocks_as_of_any_moment_equal_blocks_built_from_scratch(seed: int, order_seed: int) -> None:
    env = raw_env(num_players=8, analysis="off")
    env.reset(seed=seed)
    policies = [RandomAgent(seed + seat) for seat in range(8)]
    state = env.game.state  # type: ignore[union-attr]
    blocks = PublicBlocks(state)
    keys = []
    for agent in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        keys.append(blocks.key())
        env.step(None if termination or truncation else policies[env.agent_name_mapping[agent]].act(obs, info))
    random.Random(order_seed).shuffle(keys)
    for key in keys:
        built = blocks.base(key).copy()
        assert np.array_equal(built, PublicBlocks(state).base(key)), key  # a new one builds it from scratch


def test_memoised_claim_masks_equal_the_computed_ones() -> None:
    for _ in range(2):  # the second round reads the memo
        for role in [None, *(r.value for r in Role)]:
            for team in [None, *(t.value for t in Team)]:
                for negated in (False, True):
                    assert asserted_mask(role, team, negated) == _asserted_mask(role, team, negated)


def _knowledge_as_before(state: GameState, speaker: int) -> Knowledge:
    """``Knowledge.of_state`` as it was written before its shortcuts for speakers without a night record."""
    checks = {target: result for _round, target, result in state.seer_results.get(speaker, ())}
    protected = frozenset(t for _, t in state.protect_history.get(speaker, ()) if t is not None)
    protected |= frozenset(t for _, t in state.heal_history.get(speaker, ()))
    return Knowledge(
        speaker=speaker,
        roles=tuple(state.roles),
        possible=knowledge_masks(state, speaker),
        checks=checks,
        protected=protected,
        seer_learns_role=state.config.seer_learns_role,
        poisoned=frozenset(t for _, t in state.poison_history.get(speaker, ())),
    )


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_knowledge_of_every_seat_at_every_step_equals_the_plain_computation(seed: int) -> None:
    env = raw_env(num_players=8, analysis="off", role_counts=_ROLE_COUNTS)
    env.reset(seed=seed)
    policies = [RandomAgent(seed + seat) for seat in range(8)]
    state = env.game.state  # type: ignore[union-attr]
    for agent in env.agent_iter():
        for seat in range(8):
            assert Knowledge.of_state(state, seat) == _knowledge_as_before(state, seat)
        obs, _, termination, truncation, info = env.last()
        env.step(None if termination or truncation else policies[env.agent_name_mapping[agent]].act(obs, info))
