"""The ``verifiers.v1`` environment (``werewolf_deception.agents.training.verifiers_env``): real rollouts through
verifiers' own machinery (its env, agents, interception and scoring), the trained seats' model being the project's
fake OpenAI server over HTTP; one trained seat, and two playing against each other (self-play)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

vf = pytest.importorskip("verifiers.v1", reason="the verifiers extra: pip install -e '.[verifiers]'")

from werewolf_deception.agents.fake.server import FakeOpenAIServer  # noqa: E402
from werewolf_deception.agents.training.seat_env import new_text_since  # noqa: E402
from werewolf_deception.agents.training.verifiers_env import (  # noqa: E402
    PLUGIN_ID,
    Game,
    WerewolfEnv,
    WerewolfEnvConfig,
    WerewolfTasksetConfig,
)
from werewolf_env import GameConfig  # noqa: E402
from werewolf_env.analysis.rewards import REWARDS, rewards  # noqa: E402
from werewolf_env.core.roles import Role  # noqa: E402
from werewolf_env.record.game_record import GameRecord  # noqa: E402

GAME = {"num_players": 7}
# Seed 4 deals player_0 a werewolf and player_1 the seer: the two trained seats of the self-play test are on
# opposite teams, each with a secret the other must not see.
SEED = 4


def _episodes(config: WerewolfEnvConfig, server: FakeOpenAIServer) -> list[Any]:
    env = WerewolfEnv(config)
    ctx = vf.ModelContext(model="fake", client=vf.EvalClientConfig(base_url=server.base_url, api_key_var="UNSET"))

    async def run() -> list[Any]:
        async with env.serving():
            return [await env.run_episode(task, ctx) for task in env.taskset]

    return asyncio.run(run())


def _views(trace: Any, role: str) -> list[str]:
    return [str(message.content) for message in trace.messages if message.role == role]


def _replay(config: WerewolfEnvConfig, traces: list[Any]) -> tuple[dict[int, list[str]], GameRecord]:
    """Each trained seat's messages and the game's log, replayed outside verifiers: the same deal and lineup,
    each seat answering what its trace answered; every message is read from that seat's own observation only."""
    answers = {trace.task.data.seat: iter(_views(trace, "assistant")) for trace in traces}
    game = Game(GameConfig(**config.game), config.lineup, SEED, list(config.taskset.seats))
    views: dict[int, list[str]] = {seat: [] for seat in answers}
    seen = dict.fromkeys(answers, "")

    async def replay() -> None:
        while (agent := await game.next_trained_turn()) is not None:
            seat = int(agent.removeprefix("player_"))
            observation = str(game.raw.observe(f"player_{seat}")["text"])  # the seat's own view, and only it
            views[seat].append(new_text_since(seen[seat], observation))
            seen[seat] = observation
            game.raw.step(next(answers[seat]))
        await game.close()

    asyncio.run(replay())
    return views, game.record


def _check_scores(trace: Any, weights: dict[str, float], record: GameRecord) -> None:
    """The trace's rewards are its seat's rewards in the game, weighted as configured."""
    assert {name: reward.score for name, reward in trace.rewards.items()} == rewards(record, trace.task.data.seat)
    assert {name: reward.weight for name, reward in trace.rewards.items()} == {
        name: weights.get(name, 0.0) for name in REWARDS
    }
    assert trace.reward == pytest.approx(sum(weights[name] * trace.rewards[name].score for name in weights))
    assert trace.rewards["validity"].score == 1.0  # the server answered every turn in form
    assert trace.rewards["win"].score in (-1.0, 0.0, 1.0)


def test_one_trained_seat_plays_a_game_through_verifiers() -> None:
    weights = {"win": 1.0, "detection": 0.5, "validity": 0.25}
    config = WerewolfEnvConfig(taskset=WerewolfTasksetConfig(seeds=[SEED], seats=[3]), game=GAME, weights=weights)
    with FakeOpenAIServer() as server:
        (episode,) = _episodes(config, server)
        requests = list(server.requests)
    assert episode.ok and not episode.errors
    (trace,) = episode.traces
    assert trace.agent.name == "policy" and trace.task.data.seat == 3 and trace.num_branches == 1
    views, record = _replay(config, [trace])
    assert record.winner is not None
    _check_scores(trace, weights, record)
    # every turn of the seat was one model call to the server (the heuristic lineup asks nothing)
    assert len(requests) == len(_views(trace, "assistant")) > 3
    assert _views(trace, "user") == views[3]
    assert _views(trace, "user")[0].startswith("== Werewolf: you are Dmitri (player_3) ==")


def test_self_play_two_trained_seats_each_see_only_their_own_seat() -> None:
    weights = {"win": 1.0, "honesty": 0.5}
    config = WerewolfEnvConfig(taskset=WerewolfTasksetConfig(seeds=[SEED], seats=[0, 1]), game=GAME, weights=weights)
    deal = Game(GameConfig(**GAME), "heuristic", SEED, [0])
    roles = deal.raw.game.state.roles if deal.raw.game else []
    asyncio.run(deal.close())
    assert (roles[0], roles[1]) == (Role.WEREWOLF, Role.SEER)
    with FakeOpenAIServer() as server:
        (episode,) = _episodes(config, server)
        requests = list(server.requests)
    assert episode.ok and not episode.errors
    traces = {trace.task.data.seat: trace for trace in episode.traces}
    assert sorted(traces) == [0, 1] and {trace.agent.name for trace in traces.values()} == {"policy"}
    replayed, record = _replay(config, list(traces.values()))
    for trace in traces.values():
        _check_scores(trace, weights, record)
    wins = (traces[0].rewards["win"].score, traces[1].rewards["win"].score)
    assert wins in ((1.0, -1.0), (-1.0, 1.0), (0.0, 0.0))  # opposite teams, by the ground truth

    # Each seat's conversation is exactly its own observations (replayed), and no request mixed the two.
    for seat, trace in traces.items():
        assert _views(trace, "user") == replayed[seat]
    conversations = {
        seat: [m.model_dump(include={"role", "content"}) for m in t.messages] for seat, t in traces.items()
    }
    for request in requests:
        sent = [{"role": m["role"], "content": m["content"]} for m in request["messages"]]
        owners = [seat for seat, messages in conversations.items() if messages[: len(sent)] == sent]
        assert len(owners) == 1
    assert len(requests) == sum(len(_views(trace, "assistant")) for trace in traces.values())

    werewolf, seer = "\n".join(_views(traces[0], "user")), "\n".join(_views(traces[1], "user"))
    assert "Your fellow werewolves: Carla." in werewolf and "Your fellow werewolves" not in seer
    assert "you are Bob (player_1)" in seer and "you are Bob" not in werewolf
    assert "Your role: seer." in seer and "Your role: seer." not in werewolf


def test_a_seat_whose_turn_budget_runs_out_leaves_the_game_to_finish() -> None:
    """A seat's run ended by its agent's ``max_turns``: the env's fallback answers its later turns, the game
    ends, and the seat is scored on the whole game (its fallbacks lower validity)."""
    config = WerewolfEnvConfig(
        taskset=WerewolfTasksetConfig(seeds=[SEED], seats=[2]),
        game=GAME,
        policy=vf.AgentConfig(runtime=vf.SubprocessConfig(), max_turns=2),
        weights={"validity": 1.0},
    )
    with FakeOpenAIServer() as server:
        (episode,) = _episodes(config, server)
    (trace,) = episode.traces
    assert len(_views(trace, "assistant")) == 2 and len(_views(trace, "user")) == 2
    assert 0.0 < trace.rewards["validity"].score < 1.0 and trace.reward == trace.rewards["validity"].score


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"taskset": {"seats": [7]}}, "seat 7 is not a seat of a 7-player game"),
        ({"taskset": {"seats": [1, 1]}}, "must be distinct"),
        ({"taskset": {"seats": []}}, "at least 1"),
        ({"taskset": {"seeds": [3, -1]}}, "greater than or equal to 0"),
        ({"game": {"num_players": 2}}, "num_players"),
        ({"lineup": "nonsense"}, "nonsense"),
        ({"weights": {"wins": 1.0}}, "wins"),
    ],
)
def test_configs_that_cannot_play_are_refused_before_any_rollout(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        WerewolfEnvConfig.model_validate({"game": GAME, **options})


def test_verifiers_finds_the_plugin_by_its_id() -> None:
    """Verifiers' loaders resolve the taskset, the environment and the default harness by the plugin id."""
    config = WerewolfEnvConfig(taskset=WerewolfTasksetConfig(seeds=[1, 2]), game=GAME)
    env = vf.load_environment(config)
    assert isinstance(env, WerewolfEnv) and config.taskset.id == PLUGIN_ID
    assert [task.data.seed for task in env.taskset] == [1, 2]
    assert vf.default_agent_harness(config.taskset.id).id == PLUGIN_ID  # the policy's harness: this module's
