"""The game runner: one game to the end, asking each simultaneous group of agents at once.

    result = await play_game({"num_players": 8}, "heuristic", seed=1, log_dir="runs/x")
    result = play_game_sync({"num_players": 8}, lineup_dict, seed=1)
    result = await play_game(config, None, seed=1, policy_factory=lambda seat: MyPolicy(seat.role))
    result.events                                 # the game in its log's format (header, events, records)

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
import concurrent.futures
import contextlib
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.llm import EndpointDownError, EndpointPool
from werewolf_deception.agents.play.lineup import AgentSpec, Lineup, load_lineup, make_policy
from werewolf_env import GameConfig, __version__
from werewolf_env.actions import to_jsonable
from werewolf_env.core import Role, Team
from werewolf_env.engine import SCHEMA_VERSION, Game
from werewolf_env.envs import raw_env
from werewolf_env.record import TokenTally


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


class GameTrail:
    """One game's records in its log's format, kept in memory as cheaply as possible: the engine's events
    are read from the game itself when asked for; the policies' records are kept with their place."""

    def __init__(self, game: Game, on_records: Callable[[list[dict[str, Any]]], None] | None = None) -> None:
        self.game = game
        state = game.state
        self.header = {"type": "header", "schema_version": SCHEMA_VERSION, "package_version": __version__,
                       "seed": state.seed, "config": state.config.model_dump(mode="json")}  # fmt: skip
        self._extras: list[tuple[int, dict[str, Any]]] = []  # (engine events before it, record)
        self._on_records = on_records
        self._told = (0, 0, False)  # events, records and snapshot already told to on_records
        if on_records is not None:
            on_records([self.header])

    def record(self, actor: int | None, data: dict[str, Any]) -> None:
        state = self.game.state
        record: dict[str, Any] = {"seq": None, "round": state.round, "phase": state.phase, "type": "agent_record",
                                  "actor": actor, "audience": [], "data": data}  # fmt: skip
        self._extras.append((len(state.events), record))

    def _merged(self, events_from: int, extras_from: int) -> list[dict[str, Any]]:
        events = self.game.state.events
        out: list[dict[str, Any]] = []
        i = events_from
        for position, record in self._extras[extras_from:]:
            out.extend(e.to_json() for e in events[i:position])
            i = max(i, position)
            out.append(to_jsonable(record))
        out.extend(e.to_json() for e in events[i:])
        return out

    def records(self) -> list[dict[str, Any]]:
        """Header, events and records in order, and the final snapshot when the game is over."""
        snapshot = [{"type": "snapshot", "data": self.game.snapshot()}] if self.game.over else []
        return [self.header, *self._merged(0, 0), *snapshot]

    def told(self) -> None:
        """Tell ``on_records`` what happened since it was last told."""
        if self._on_records is None or self._told[2]:
            return
        events, extras, _ = self._told
        new = self._merged(events, extras)
        over = self.game.over
        if over:
            new.append({"type": "snapshot", "data": self.game.snapshot()})
        self._told = (len(self.game.state.events), len(self._extras), over)
        if new:
            self._on_records(new)


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
    tokens: dict[str, int] = field(default_factory=dict)  # prompt / completion tokens of the policies' model calls
    # The same calls by call kind and by model, cached prompt tokens and how they were counted
    # (``werewolf_env.record.token_usage.TokenTally.to_json``; {} without model calls).
    token_usage: dict[str, Any] = field(default_factory=dict)
    trail: GameTrail | None = field(default=None, repr=False, compare=False)  # not in to_json

    @property
    def events(self) -> list[dict[str, Any]]:
        """The game in its log's format (header, engine events, policies' records, final snapshot), as
        ``werewolf_env.engine.log.read_log`` reads a log file: ``GameRecord.from_events(result.events)``."""
        return self.trail.records() if self.trail is not None else []

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "trail"}
        data["players"] = [asdict(p) for p in self.players]
        data["tokens"] = dict(self.tokens)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameResult:
        players = [PlayerOutcome(**p) for p in data.get("players", [])]
        return cls(**{**data, "players": players})


class _Activity:
    """Policy calls in flight in this process (for progress displays)."""

    in_flight = 0


def calls_in_flight() -> int:
    return _Activity.in_flight


@dataclass(frozen=True)
class Seat:
    """What a policy factory is told of the seat it makes a policy for."""

    seat: int
    agent: str  # "player_0", ...
    name: str  # the player's name in the game
    role: Role
    team: Team
    seed: int  # the seat's policy seed (``seat_seed``)
    spec: AgentSpec  # what the lineup says for this seat


PolicyFactory = Callable[[Seat], Policy]


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
    *,
    policy_factory: PolicyFactory | None = None,
    passthrough: tuple[type[BaseException], ...] = (),
    on_records: Callable[[list[dict[str, Any]]], None] | None = None,
) -> GameResult:
    """Play one game to the end and return its result (and write its log when ``log_dir`` is set).

    ``policies`` overrides the lineup with ready-made policy objects, one per seat; ``policy_factory(seat)``
    makes each seat's policy from a ``Seat`` (``seat``: its number; ``role``, ``seed`` and the lineup
    ``spec``) instead. ``info_hook(env, agent, info)`` may add to a copy of each info before the policy sees
    it (the detector's friction warnings, for instance); it must add only what that agent may know. ``pool``
    is the run's ``EndpointPool`` (its ``concurrency`` then caps calls per endpoint across every game sharing
    it).
    ``passthrough``: exception types a policy may raise that end the game and reach the caller (never a
    fallback). ``on_records(records)`` is told the game's new log records after every step.
    """
    config = env_config if isinstance(env_config, GameConfig) else GameConfig(**(env_config or {}))
    spec = load_lineup(lineup, config.ruleset)
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if policies is not None and policy_factory is not None:
        raise ValueError("give play_game either policies or a policy_factory, not both")
    own_pool = pool is None
    if pool is None:
        pool = EndpointPool(concurrency=concurrency)
    env = raw_env(config=config, log_dir=log_dir)
    env.reset(seed=seed)
    game = env.game
    assert game is not None
    roles = game.state.roles
    unknown = sorted(set(spec.seats) - set(env.possible_agents))
    try:
        if unknown:
            raise ValueError(
                f"lineup seats.{unknown[0]}: no such seat in a {config.num_players}-player game "
                f"(seats are player_0 to player_{config.num_players - 1})"
            )
        if policies is None:
            ruleset = game.state.config.ruleset
            specs = [spec.spec_for(agent, roles[seat], ruleset) for seat, agent in enumerate(env.possible_agents)]
            if policy_factory is None:
                policies = [make_policy(s, seat_seed(seed, seat), cache_dir, pool) for seat, s in enumerate(specs)]
                labels = [s.label() for s in specs]
            else:
                policies = []
                for seat, agent in enumerate(env.possible_agents):
                    where = Seat(
                        seat,
                        agent,
                        game.state.names[seat],
                        roles[seat],
                        game.state.team_of(seat),
                        seat_seed(seed, seat),
                        specs[seat],
                    )
                    policies.append(policy_factory(where))
                labels = [p.name for p in policies]
        else:
            if len(policies) != config.num_players:
                raise ValueError(f"{len(policies)} policies for {config.num_players} seats")
            labels = [p.name for p in policies]
        trail = GameTrail(game, on_records)
        return await _play(env, config, seed, policies, labels, pool, info_hook, trail, passthrough)
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
    trail: GameTrail,
    passthrough: tuple[type[BaseException], ...],
) -> GameResult:
    game = env.game
    assert game is not None
    roles = game.state.roles
    # Who played which seat: reports group their figures by these labels (ignored by replay).
    lineup_record = {"type": "lineup", "policies": labels}
    env.log_extra(None, lineup_record)
    trail.record(None, lineup_record)
    for agent, policy in zip(env.possible_agents, policies, strict=True):
        for record in policy.drain_records():  # what a policy has to log before any turn (a study's consent)
            env.log_extra(agent, record)
            trail.record(env.agent_name_mapping[agent], record)
    # Policies that follow the game between their turns (a person, once eliminated): told after each step.
    watchers = [(agent, p) for agent, p in zip(env.possible_agents, policies, strict=True) if hasattr(p, "watch")]
    # Structured events cost time on every turn: hand them out only when some policy reads them.
    env.info_events = any(p.needs_events for p in policies)
    for policy in policies:  # policies that turn errors into their own (LLM seats) let the caller's through
        if passthrough and isinstance(getattr(policy, "passthrough", None), tuple):
            policy.passthrough = tuple(dict.fromkeys((*policy.passthrough, *passthrough)))  # type: ignore[attr-defined]
    env.refresh_infos()
    started = time.perf_counter()
    steps = errors = groups = 0
    tally = TokenTally()
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
            tasks.append(asyncio.ensure_future(_ask(policy, obs, info, pool, passthrough)))
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
                trail.record(env.agent_name_mapping[agent], record)
                if record.get("type") == "llm_call":
                    tally.add_call(record, seat=agent)
            errors += failed
            env.step(action)
            steps += 1
            _tell(env, watchers)
            trail.told()
    _tell(env, watchers)
    state = game.state
    rewards = game.rewards()
    players = [
        PlayerOutcome(
            seat=seat,
            agent=env.possible_agents[seat],
            name=state.names[seat],
            role=roles[seat].value,
            team=state.team_of(seat).value,
            policy=labels[seat],
            alive=state.alive[seat],
            reward=rewards[seat],
            won=state.winner is not None and state.team_of(seat) is state.winner,
        )
        for seat in range(config.num_players)
    ]
    fallbacks = sum(1 for e in state.events if e.type == "action" and "fallbacks" in e.data)
    return GameResult(
        seed=seed,
        winner=state.winner.value if state.winner else None,
        truncated=state.truncated,
        rounds=state.round,
        steps=steps,
        fallbacks=fallbacks,
        seconds=round(time.perf_counter() - started, 4),
        log_path=str(env.log_path) if env.log_path else None,
        players=players,
        policy_errors=errors,
        groups=groups,
        tokens=_flat(tally),
        token_usage=tally.to_json(),
        trail=trail,
    )


def _flat(tally: TokenTally) -> dict[str, int]:
    """``GameResult.tokens``: prompt and completion only (a progress display adds up its values); {} without calls."""
    totals = tally.totals
    return {k: totals[k] for k in ("prompt_tokens", "completion_tokens")} if totals["calls"] else {}


def _tell(env: raw_env, watchers: list[tuple[str, Policy]]) -> None:
    """What each watching policy's seat may now see: ``watch(observation, alive, over)``."""
    game = env.game
    assert game is not None
    for agent, policy in watchers:
        seat = env.agent_name_mapping[agent]
        policy.watch(env.observe(agent), game.state.alive[seat], game.over)  # type: ignore[attr-defined]


def play_game_sync(*args: Any, **kwargs: Any) -> GameResult:
    """``play_game`` for synchronous code. Inside a running event loop (a notebook, an async framework) the
    game is played on its own loop in a worker thread while this call blocks; from async code, prefer
    ``await play_game(...)`` (objects bound to the caller's loop, such as a shared ``EndpointPool``, cannot
    be used from the worker's loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(play_game(*args, **kwargs))
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="play_game_sync") as worker:
        return worker.submit(asyncio.run, play_game(*args, **kwargs)).result()


async def _ask(
    policy: Policy,
    obs: dict[str, Any],
    info: dict[str, Any],
    pool: EndpointPool,
    passthrough: tuple[type[BaseException], ...] = (),
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
        except passthrough:
            raise  # the caller's (a limit of an evaluation framework): ends the game, never a fallback
        except Exception as exc:
            records = policy.drain_records()
            records.append(
                {
                    "type": "policy_error",
                    "policy": policy.name,
                    "error": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc(limit=5),
                }
            )
            return {"policy_error": type(exc).__name__}, records, 1
        finally:
            _Activity.in_flight -= 1
