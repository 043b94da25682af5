"""``werewolf-bench rescore RUN_DIR --labeler L``: the same games, analysed by another labeler.

The design paper's "alternative labelers": every finished game of the run is replayed from its log with the
same seed; bids, statements, night actions, votes and summaries are the logged ones, and only the
self and peer analyses are asked anew, of the labeler playing each seat (it sees exactly what that
seat saw, including its own new suspicion scores). The rules never read analyses, so the game runs
the same course: the result is a new, complete log per game with a new set of labels and scores,
written beside the originals in ``RUN_DIR/rescore/<labeler>/games`` with its own ``metrics.json``,
tables and report. The labeler is a lineup (a kind such as ``heuristic``, or a lineup file, so each
role or team may have its own labeler) or a model name with ``--base-url``.

A model labeler passes the gate every model-calling command passes (``rescore_cli``): the preflight,
one ``EndpointPool`` for the whole rescore (a concurrency cap and a circuit breaker per server, and the
response cache), and ``--max-fallback-rate``. When a breaker trips, ``rescore_run`` stops every game in
flight and raises ``EndpointDownError``; the games rescored by then are kept.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from werewolf_deception.agents.llm import EndpointDownError, EndpointPool
from werewolf_deception.agents.play import Lineup, load_lineup, make_policy, seat_seed
from werewolf_deception.benchmarks.runs import find_logs
from werewolf_env import GameConfig
from werewolf_env.engine import read_log
from werewolf_env.envs import raw_env

ANALYSES = ("self_analysis", "peer_analysis")


class RescoreError(RuntimeError):
    pass


@dataclass
class RescoredGame:
    source: str
    log_path: str | None
    analyses: int
    error: str | None = None


def labeler_lineup(labeler: str, base_url: str | None = None) -> tuple[Lineup, str]:
    """The labeler as a lineup, and a short label for folder names and reports."""
    if base_url is not None:
        return load_lineup({"default": {"kind": "llm", "model": labeler, "base_url": base_url}}), f"llm-{labeler}"
    lineup = load_lineup(labeler)
    return lineup, Path(labeler).stem if Path(labeler).suffix else labeler


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "labeler"


async def rescore_game(
    path: Path,
    lineup: Lineup,
    out_dir: Path,
    concurrency: int = 8,
    pool: EndpointPool | None = None,
    cache_dir: Path | None = None,
) -> RescoredGame:
    """Replay one logged game, asking ``lineup``'s policies for every self and peer analysis (LLM ones through
    ``pool``, whose tripped breaker raises ``EndpointDownError`` out of here)."""
    records = read_log(path)
    header = records[0] if records and records[0].get("type") == "header" else None
    if header is None or not any(r.get("type") == "snapshot" for r in records):
        return RescoredGame(str(path), None, 0, "not a finished game log")
    logged = [r for r in records if r.get("type") == "action"]
    original = next(
        (
            r["data"]["policies"]
            for r in records
            if r.get("type") == "agent_record" and r["data"].get("type") == "lineup"
        ),
        None,
    )
    config = GameConfig.from_record(header["config"])
    seed = int(header["seed"])
    work = out_dir / f".{path.stem}"
    env = raw_env(config=config, log_dir=work)
    env.reset(seed=seed)
    assert env.game is not None
    roles = env.game.state.roles
    specs = [lineup.spec_for(agent, roles[seat], config.ruleset) for seat, agent in enumerate(env.possible_agents)]
    policies = [make_policy(spec, seat_seed(seed, seat), cache_dir, pool) for seat, spec in enumerate(specs)]
    env.info_events = any(p.needs_events for p in policies)
    env.refresh_infos()
    env.log_extra(None, {"type": "lineup", "policies": original or ["unknown"] * config.num_players})
    env.log_extra(None, {"type": "labeler", "policies": [spec.label() for spec in specs], "source": str(path)})
    unseen: dict[str, list[dict[str, Any]]] = {agent: [] for agent in env.possible_agents}
    limit = asyncio.Semaphore(max(1, concurrency))
    cursor = analyses = 0

    def next_logged(agent: str, kind: str) -> dict[str, Any]:
        nonlocal cursor
        if cursor >= len(logged):
            raise RescoreError(f"the log has no action left for {agent}'s {kind}")
        record = logged[cursor]
        seat = env.agent_name_mapping[agent]
        if record["actor"] != seat or record["data"]["kind"] != kind:
            raise RescoreError(
                f"event {record['seq']}: logged {record['data']['kind']} by seat {record['actor']}, "
                f"replay expects {kind} by seat {seat}"
            )
        cursor += 1
        return record

    async def ask(agent: str) -> tuple[Any, list[dict[str, Any]]]:
        policy = policies[env.agent_name_mapping[agent]]
        info = dict(env.infos[agent])
        if "events" in info:
            info["events"] = unseen[agent] + info["events"]
            unseen[agent] = []
        async with limit:
            try:
                return await policy.aact(env.observe(agent), info), policy.drain_records()
            except EndpointDownError:
                raise  # no later call to that server can answer: the rescore stops
            except Exception as exc:  # the env's recorded fallback answers instead
                return {"policy_error": type(exc).__name__}, [
                    *policy.drain_records(),
                    {"type": "policy_error", "error": f"{type(exc).__name__}: {exc}"},
                ]

    try:
        while env.agents:
            members = env.simultaneous_agents()
            if not members:
                env.step(None)
                continue
            kind = env.expected_action(members[0])
            if kind in ANALYSES:
                answers = await asyncio.gather(*(ask(agent) for agent in members))
                for agent, (action, extra) in zip(members, answers, strict=True):
                    next_logged(agent, env.expected_action(agent) or "")
                    for record in extra:
                        env.log_extra(agent, record)
                    env.step(action)
                    analyses += 1
                continue
            for agent in members:
                record = next_logged(agent, env.expected_action(agent) or "")
                unseen[agent].extend(env.infos[agent].get("events", []))
                env.step(record["data"]["raw"])
        if cursor != len(logged):
            raise RescoreError(f"the replay ended with {len(logged) - cursor} logged actions unused")
    except RescoreError as exc:
        env.close()
        _remove(work)
        return RescoredGame(str(path), None, analyses, str(exc))
    except BaseException:  # stopped (a tripped breaker, cancelled): nothing of this game is kept
        env.close()
        _remove(work)
        raise
    finally:
        env.close()
    produced = env.log_path
    assert produced is not None
    target = out_dir / path.name
    produced.replace(target)
    work.rmdir()
    return RescoredGame(str(path), str(target), analyses)


def _remove(work: Path) -> None:
    for leftover in work.glob("*"):
        leftover.unlink()
    if work.exists():
        work.rmdir()


async def rescore_run(
    run_dir: str | Path,
    lineup: Lineup,
    out_dir: str | Path,
    concurrency: int = 8,
    on_game: Callable[[RescoredGame], None] | None = None,
    breaker: int = 8,
    cache_dir: Path | None = None,
) -> list[RescoredGame]:
    """Rescore every log of ``run_dir`` into ``out_dir/games``; ``on_game`` is told of each game as it is done.
    LLM labelers share one ``EndpointPool`` (``concurrency`` calls per server, ``breaker``); when it trips, the
    games in flight are stopped and ``EndpointDownError`` is raised."""
    out = Path(out_dir) / "games"
    out.mkdir(parents=True, exist_ok=True)
    games = asyncio.Semaphore(max(1, concurrency))
    pool = EndpointPool(concurrency=max(1, concurrency), breaker=breaker)

    async def one(path: Path) -> RescoredGame:
        async with games:
            game = await rescore_game(path, lineup, out, concurrency, pool, cache_dir)
        if on_game is not None:
            on_game(game)
        return game

    tasks = [asyncio.ensure_future(one(p)) for p in find_logs(run_dir)]
    try:
        if tasks:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        failed = next((t.exception() for t in tasks if t.done() and not t.cancelled() and t.exception()), None)
        if failed is not None:
            raise failed  # the first failure (a tripped breaker) ends them all
        return [task.result() for task in tasks]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await pool.aclose()
