"""The game runner: one game to the end, asking each simultaneous group of agents at once.

    result = await play_game({"num_players": 8}, "heuristic", seed=1, log_dir="runs/x")
    result = play_game_sync({"num_players": 8}, lineup_dict, seed=1)

Within a group (one turn's bids, the night, the votes, the analyses of one statement, the
summaries) the runner asks every member at once, at most ``concurrency`` calls in flight per
endpoint, then steps the env in the env's order. The env guarantees that the members'
observations do not depend on each other's answers, so the result is identical to sequential
play (a test checks it for concurrency 1 and 16).

A policy that raises does not end the game: the error is logged and the env's recorded fallback
answers for it, except ``KeyboardInterrupt`` and ``EndpointDownError`` (a server that can no longer
answer: the game is abandoned, unlogged, and the caller decides; a run stops).

A policy with a ``watch(observation, alive, over)`` method (``HumanAgent``) is shown its seat's
observation after every step, so a person who was eliminated still follows the game to its end.

LLM seats share an ``EndpointPool``: one client and one concurrency cap per server. A run passes
its own pool to every game, so the cap holds across games; without one, the game makes its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from werewolf_env import GameConfig
from werewolf_env.env import raw_env

from .base import Policy
from .endpoints import EndpointDownError, EndpointPool
from .lineup import Lineup, load_lineup, make_policy


@dataclass
class PlayerOutcome:
    seat: int
    agent: str
    name: str
    role: str
    team: str
    policy: str
    alive: bool
    reward: float
    won: bool


@dataclass
class GameResult:
    seed: int
    winner: str | None  # "village", "werewolf" or None (undecided after max_rounds)
    truncated: bool
    rounds: int
    steps: int
    fallbacks: int
    seconds: float
    log_path: str | None
    players: list[PlayerOutcome] = field(default_factory=list)
    policy_errors: int = 0
    groups: int = 0  # simultaneous groups asked: the sequential rounds of calls the game needed
    tokens: dict[str, int] = field(default_factory=dict)  # summed usage of the policies' model calls

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameResult:
        players = [PlayerOutcome(**p) for p in data.get("players", [])]
        return cls(**{**data, "players": players})


class _Activity:
    """Policy calls in flight in this process (for progress displays)."""

    in_flight = 0


def calls_in_flight() -> int:
    return _Activity.in_flight


def seat_seed(game_seed: int, seat: int) -> int:
    """Each seat's policy seed: distinct per seat and game, the same on every rerun."""
    return (game_seed * 1_000_003 + seat * 7919) % (2**31 - 1)


async def play_game(
    env_config: GameConfig | dict[str, Any] | None,
    lineup: Lineup | dict[str, Any] | str | Path | None,
    seed: int,
    log_dir: str | Path | None = None,
    concurrency: int = 8,
    cache_dir: str | Path | None = None,
    policies: list[Policy] | None = None,
    info_hook: Callable[[raw_env, str, dict[str, Any]], None] | None = None,
    pool: EndpointPool | None = None,
) -> GameResult:
    """Play one game to the end and return its result (and write its log when ``log_dir`` is set).

    ``policies`` overrides the lineup with ready-made policy objects, one per seat. ``info_hook(env,
    agent, info)`` may add to a copy of each info before the policy sees it (the detector's friction
    warnings, for instance); it must add only what that agent may know. ``pool`` is the run's
    ``EndpointPool`` (its ``concurrency`` then caps calls per endpoint across every game sharing it).
    """
    config = env_config if isinstance(env_config, GameConfig) else GameConfig(**(env_config or {}))
    spec = load_lineup(lineup)
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    own_pool = pool is None
    if pool is None:
        pool = EndpointPool(concurrency=concurrency)
    env = raw_env(config=config, log_dir=log_dir)
    env.reset(seed=seed)
    game = env.game
    assert game is not None
    roles = game.state.roles
    try:
        if policies is None:
            specs = [spec.spec_for(agent, roles[seat]) for seat, agent in enumerate(env.possible_agents)]
            policies = [make_policy(s, seat_seed(seed, seat), cache_dir, pool) for seat, s in enumerate(specs)]
            labels = [s.label() for s in specs]
        else:
            if len(policies) != config.num_players:
                raise ValueError(f"{len(policies)} policies for {config.num_players} seats")
            labels = [p.name for p in policies]
        return await _play(env, config, seed, policies, labels, pool, info_hook)
    finally:
        env.close()
        for policy in policies or []:
            await policy.aclose()
        if own_pool:
            await pool.aclose()


async def _play(
    env: raw_env,
    config: GameConfig,
    seed: int,
    policies: list[Policy],
    labels: list[str],
    pool: EndpointPool,
    info_hook: Callable[[raw_env, str, dict[str, Any]], None] | None,
) -> GameResult:
    game = env.game
    assert game is not None
    roles = game.state.roles
    # Who played which seat: reports group their figures by these labels (ignored by replay).
    env.log_extra(None, {"type": "lineup", "policies": labels})
    # Policies that follow the game between their turns (a person, once eliminated): told after each step.
    watchers = [(agent, p) for agent, p in zip(env.possible_agents, policies, strict=True) if hasattr(p, "watch")]
    # Structured events cost time on every turn: hand them out only when some policy reads them.
    env.info_events = any(p.needs_events for p in policies)
    env.refresh_infos()
    started = time.perf_counter()
    steps = errors = groups = 0
    tokens: dict[str, int] = {}
    while env.agents:
        members = env.simultaneous_agents()
        if not members:  # the game is over: retire every agent
            env.step(None)
            continue
        groups += 1
        tasks = []
        for agent in members:
            obs, info = env.observe(agent), env.infos[agent]
            if info_hook is not None:
                info = dict(info)
                info_hook(env, agent, info)
            policy = policies[env.agent_name_mapping[agent]]
            tasks.append(asyncio.ensure_future(_ask(policy, obs, info, pool)))
            await asyncio.sleep(0)  # this member's call goes out before the next observation is rendered
        try:
            answers = await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:  # one member's server is down: the others' calls are moot
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        for agent, (action, records, failed) in zip(members, answers, strict=True):
            for record in records:
                env.log_extra(agent, record)
                usage = record.get("usage") if record.get("type") == "llm_call" else None
                if isinstance(usage, dict):
                    for key in ("prompt_tokens", "completion_tokens"):
                        if isinstance(usage.get(key), int):
                            tokens[key] = tokens.get(key, 0) + usage[key]
            errors += failed
            env.step(action)
            steps += 1
            _tell(env, watchers)
    _tell(env, watchers)
    state = game.state
    rewards = game.rewards()
    players = [
        PlayerOutcome(
            seat=seat, agent=env.possible_agents[seat], name=state.names[seat], role=roles[seat].value,
            team=roles[seat].team.value, policy=labels[seat], alive=state.alive[seat], reward=rewards[seat],
            won=state.winner is not None and roles[seat].team is state.winner,
        )
        for seat in range(config.num_players)
    ]  # fmt: skip
    fallbacks = sum(1 for e in state.events if e.type == "action" and "fallbacks" in e.data)
    return GameResult(
        seed=seed, winner=state.winner.value if state.winner else None, truncated=state.truncated,
        rounds=state.round, steps=steps, fallbacks=fallbacks, seconds=round(time.perf_counter() - started, 4),
        log_path=str(env.log_path) if env.log_path else None, players=players, policy_errors=errors, groups=groups,
        tokens=tokens,
    )  # fmt: skip


def _tell(env: raw_env, watchers: list[tuple[str, Policy]]) -> None:
    """What each watching policy's seat may now see: ``watch(observation, alive, over)``."""
    game = env.game
    assert game is not None
    for agent, policy in watchers:
        seat = env.agent_name_mapping[agent]
        policy.watch(env.observe(agent), game.state.alive[seat], game.over)  # type: ignore[attr-defined]


def play_game_sync(*args: Any, **kwargs: Any) -> GameResult:
    """``play_game`` for code without an event loop."""
    return asyncio.run(play_game(*args, **kwargs))


async def _ask(
    policy: Policy,
    obs: dict[str, Any],
    info: dict[str, Any],
    pool: EndpointPool,
) -> tuple[Any, list[dict[str, Any]], int]:
    """One policy's answer, its log records, and 1 if it raised (the env then falls back)."""
    key = policy.endpoint
    guard = pool.limit(key) if key is not None else contextlib.nullcontext()
    async with guard:
        _Activity.in_flight += 1
        try:
            action = await policy.aact(obs, info)
            return action, policy.drain_records(), 0
        except (KeyboardInterrupt, SystemExit, EndpointDownError):
            raise
        except Exception as exc:
            records = policy.drain_records()
            records.append({
                "type": "policy_error", "policy": policy.name, "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(limit=5),
            })  # fmt: skip
            return {"policy_error": type(exc).__name__}, records, 1
        finally:
            _Activity.in_flight -= 1
