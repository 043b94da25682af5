"""One seat driven from outside (``werewolf_deception.agents.training.seat_env``) and in TRL's shape
(``werewolf_deception.agents.training.trl_env``)."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_deception.agents.llm.prompts import build_messages
from werewolf_deception.agents.play.runner import seat_seed
from werewolf_deception.agents.policies.heuristic import HeuristicAgent
from werewolf_deception.agents.training.seat_env import SeatEnv
from werewolf_deception.agents.training.trl_env import (
    TOOL_OF,
    WerewolfSeat,
    as_tool_call,
    reward_component,
    reward_from_env,
    seat_environment,
)
from werewolf_env.analysis.rewards import REWARDS, rewards
from werewolf_env.core.roles import ActionKind
from werewolf_env.record.game_record import GameRecord

CONFIG = {"num_players": 7}


def test_a_seat_played_from_outside_gives_the_runners_game() -> None:
    """The seat answered by the heuristic the runner would give it: the same game, event for event."""
    for seed, seat in ((3, 1), (4, 5), (11, 0)):
        env = SeatEnv(CONFIG)
        env.reset(seed=seed, seat=seat)
        me = HeuristicAgent(seed=seat_seed(seed, seat))
        while not env.done:
            env.act(me.act({"text": env.observation}, env.raw.infos[env.agent]))
        expected = play_game_sync(CONFIG, "heuristic", seed).events
        assert env.events == [e for e in expected if e.get("type") not in ("header", "snapshot", "agent_record")]
        assert env.rewards() == rewards(GameRecord.from_events(expected), seat)
        assert env.observation.startswith("The game is over")


def test_new_text_is_what_the_seat_had_not_seen() -> None:
    env = SeatEnv(CONFIG)
    first = env.reset(seed=3, seat=1)
    assert env.new_text == first and "RULES:" in first
    me = HeuristicAgent(seed=0)
    seen = first
    while not env.done:
        env.act(me.act({"text": env.observation}, env.raw.infos[env.agent]))
        if env.done:
            break
        new = env.new_text
        assert "RULES:" not in new and "NOW:" in new and new.endswith(env.observation.split("\n\nNOW:")[1])
        history = env.observation.split("HISTORY:\n")[1].split("\n\n")[0].splitlines()
        old = seen.split("HISTORY:\n")[1].split("\n\n")[0].splitlines()
        assert history[: len(old)] == old  # the history only grows
        for line in history[len(old) :]:
            assert line in new
        seen = env.observation


def test_seats_and_seeds() -> None:
    env = SeatEnv(CONFIG)
    env.reset(seed=9)
    assert env.seat == 9 % 7  # the seed names the seat
    names = env.raw.game.state.names  # type: ignore[union-attr]
    env.reset(seed=9, seat=names[4])
    assert env.seat == 4
    env.reset(seed=9, seat="player_6")
    assert env.seat == 6
    for bad in (7, -1, "player_9", "Nobody", True, 2.0):
        with pytest.raises(ValueError, match="not a seat"):
            env.reset(seed=9, seat=bad)  # type: ignore[arg-type]


def _drive(seat: WerewolfSeat, answer_of: Any) -> int:
    """Play the seat's turns through its tools, each from ``answer_of(observation, turn)``; the calls made."""
    calls = 0
    while not seat.done:
        turn = seat._env.turn
        assert turn is not None
        tool, arguments = as_tool_call(answer_of(seat._env.observation, turn), str(turn["action_kind"]))
        getattr(seat, tool)(**arguments)
        calls += 1
    return calls


def test_tools_answer_only_their_turn_and_nothing_after_the_game() -> None:
    seat_class = seat_environment(CONFIG, weights={"win": 1.0, "detection": 0.5})
    seat = seat_class()
    text = seat.reset(prompt=[{"role": "user", "content": "play"}], seed=3, seat=1)
    assert text.startswith("You play one seat") and "NOW:" in text
    turn = seat._env.turn
    assert turn is not None and turn["action_kind"] == "bid"
    before = list(seat._env.events)
    with pytest.raises(ValueError, match="call bid"):
        seat.speak("I am the seer.")
    assert seat._env.events == before and seat.wrong_tool_calls == 1  # nothing happened
    me = HeuristicAgent(seed=0)
    _drive(seat, lambda text, turn: me.act({"text": text}, {**seat._env.raw.infos[seat._env.agent]}))
    assert seat.done and seat.reward == pytest.approx(seat.rewards["win"] + 0.5 * seat.rewards["detection"])
    with pytest.raises(ValueError, match="game is over"):
        seat.vote("Alice")
    assert reward_from_env([seat]) == [seat.reward]
    assert reward_component("detection")([seat]) == [seat.rewards["detection"]]
    with pytest.raises(ValueError, match="unknown reward"):
        reward_component("happiness")


def test_every_kind_of_turn_has_a_tool_with_its_arguments() -> None:
    tools = {name for name in dir(WerewolfSeat) if not name.startswith("_") and callable(getattr(WerewolfSeat, name))}
    assert set(TOOL_OF.values()) <= tools and set(TOOL_OF) == {kind.value for kind in ActionKind}
    for tool in set(TOOL_OF.values()):
        doc = getattr(WerewolfSeat, tool).__doc__ or ""
        assert "Args:" in doc and "Returns:" in doc, tool  # TRL builds the tool's schema from these
    assert as_tool_call({"confidence": 0.8, "is_deceptive": True, "junk": 1}, "peer_analysis") == (
        "analyse",
        {"probability": 0.8, "is_deceptive": True},
    )
    with pytest.raises(ValueError, match="unknown action kind"):
        as_tool_call({}, "dance")


def test_bad_rows_and_options_are_refused_up_front() -> None:
    with pytest.raises(ValueError):
        seat_environment({"num_players": 2})
    with pytest.raises(ValueError):
        seat_environment(CONFIG, weights={"wins": 1.0})
    seat = seat_environment(CONFIG)()
    for bad in (-1, "3", True):
        with pytest.raises(ValueError, match="seed"):
            seat.reset(seed=bad)


def test_a_rollout_against_a_model_server_with_frozen_model_seats() -> None:
    """The trained seat's answers come from an OpenAI-compatible server (the project's fake one, over HTTP),
    as TRL's generations would, turned into tool calls; the other seats are frozen LLM seats on that server."""
    with FakeOpenAIServer() as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, "timeout": 5.0,
                              "backoff": 0.01, "max_backoff": 0.05, "max_wait": 5.0}}  # fmt: skip
        seat_class = seat_environment(CONFIG, lineup=lineup, weights={"win": 1.0, "validity": 1.0})
        seat = seat_class()
        seat.reset(seed=5, seat=2)
        client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0)

        def model(text: str, turn: dict[str, Any]) -> dict[str, Any]:
            reply = client.chat.completions.create(model="fake", messages=build_messages(text))  # type: ignore[arg-type]
            return dict(json.loads(reply.choices[0].message.content or "{}"))

        calls = _drive(seat, model)
        client.close()
        requests = len(server.requests)
    assert seat.done and calls > 0 and requests > calls  # the frozen seats asked the server too
    assert not seat._env._policies  # the game over, its model seats were closed
    assert set(seat.rewards) == set(REWARDS) and seat.rewards["validity"] == 1.0
    assert seat._env.policy_errors == 0


def test_model_seats_keep_their_connection_from_turn_to_turn_and_game_to_game() -> None:
    """The other seats' LLM policies answer every turn (the server is up): their client's connections
    outlive one call, so every call runs on the env's one loop (a loop per call found them closed, and
    most turns fell back with ``llm_unavailable``)."""
    with FakeOpenAIServer() as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, "timeout": 5.0,
                              "backoff": 0.01, "max_backoff": 0.05, "max_wait": 5.0}}  # fmt: skip
        env = SeatEnv(CONFIG, lineup=lineup)
        for seed in (5, 6):
            env.reset(seed=seed, seat=2)
            me = HeuristicAgent(seed=0)
            while not env.done:
                env.act(me.act({"text": env.observation}, env.raw.infos[env.agent]))
            unavailable = [
                event
                for event in env.events
                if event.get("type") == "action" and "llm_unavailable" in str(event["data"].get("raw"))
            ]
            assert unavailable == [] and env.policy_errors == 0, unavailable[:1]
        env.close()


def test_rewards_read_mid_game_do_not_stick_at_the_end() -> None:
    """The rewards a trainer reads after every turn (as ``WerewolfSeat`` does) and the end text are those of
    the whole game once it is over: a record read before the game ended is not kept for it."""
    for seed, seat_index in ((3, 1), (4, 5)):
        seat = seat_environment(CONFIG)()
        seat.reset(seed=seed, seat=seat_index)
        env, me = seat._env, HeuristicAgent(seed=0)
        _drive(seat, lambda text, turn, env=env, me=me: me.act({"text": text}, {**env.raw.infos[env.agent]}))
        events = seat._env.events
        over = [event for event in events if event["type"] == "game_over"]
        assert over and over[0]["data"]["winner"] is not None
        assert seat.rewards == rewards(GameRecord.from_events(events), seat_index)
        assert seat.rewards["win"] in (-1.0, 1.0) and seat.reward == seat.rewards["win"]
        assert f"the {over[0]['data']['winner']} team won" in seat._env.observation


def test_several_seats_answered_together_give_the_runners_game() -> None:
    """Every seat trained, each answered by the heuristic the runner would give it, a group at a time: the
    same game, event for event; each batch is exactly the trained seats of the env's simultaneous group."""
    from werewolf_deception.agents.training.seat_env import SeatsEnv

    for seed, trained in ((3, None), (4, [1, 5]), (11, ["player_0", "player_6", "player_2"])):
        env = SeatsEnv(CONFIG)
        texts = env.reset(seed=seed, seats=trained)
        policies = {seat: HeuristicAgent(seed=seat_seed(seed, seat)) for seat in env.seats}
        batches = []
        while not env.done:
            group = [env.raw.agent_name_mapping[a] for a in env.raw.simultaneous_agents()]
            assert sorted(texts) == sorted(env.pending) == sorted(s for s in group if s in env.seats)
            infos = {seat: env.raw.infos[env.raw.possible_agents[seat]] for seat in texts}
            batches.append(len(texts))
            texts = env.act_all({s: policies[s].act({"text": t}, infos[s]) for s, t in texts.items()})
        expected = play_game_sync(CONFIG, "heuristic", seed).events
        assert env.events == [e for e in expected if e.get("type") not in ("header", "snapshot", "agent_record")]
        assert max(batches) > 1  # bids, analyses or votes of several trained seats came together
        record = GameRecord.from_events(expected)
        assert all(env.rewards(seat) == rewards(record, seat) for seat in env.seats)
        assert all(env.observations[seat].startswith("The game is over") for seat in env.seats)


def test_a_batch_must_answer_exactly_the_pending_seats() -> None:
    from werewolf_deception.agents.training.seat_env import SeatsEnv

    env = SeatsEnv(CONFIG)
    texts = env.reset(seed=3, seats=[0, 1, 2, 3, 4, 5, 6])
    while len(texts) < 2:  # a group of several trained seats
        texts = env.act_all(dict.fromkeys(texts, "{}"))
    before = list(env.events)
    seats = sorted(texts)
    with pytest.raises(ValueError, match="seats to answer"):
        env.act_all(dict.fromkeys(seats[:-1], "{}"))
    with pytest.raises(ValueError, match="seats to answer"):
        env.act_all(dict.fromkeys([*seats, 99], "{}"))
    assert env.events == before  # nothing was stepped
    for bad in ([], [0, 0], [9]):
        with pytest.raises(ValueError):
            env.reset(seed=3, seats=bad)


def test_a_refused_reset_leaves_the_game_in_play_untouched() -> None:
    """A reset whose seats cannot play is refused before anything moves: the game in play goes on, its seat
    still the one answering and the lineup still playing the others (not a new deal's seat answered by the
    old seat's model, with no lineup: what an OpenEnv client's bad reset once left)."""
    from werewolf_deception.agents.training.seat_env import SeatsEnv

    env, twin = SeatEnv(CONFIG), SeatEnv(CONFIG)
    env.reset(seed=1, seat=0)
    twin.reset(seed=1, seat=0)
    for bad in (9, "nobody", True):
        with pytest.raises(ValueError, match="not a seat"):
            env.reset(seed=2, seat=bad)
    assert env.raw.agent_selection == "player_0" and env.seat == 0
    while not env.done:
        assert env.act('{"bid": 3}') == twin.act('{"bid": 3}')
    assert env.policy_errors == 0 and env.events == twin.events
    env.close()
    twin.close()

    seats = SeatsEnv(CONFIG)
    texts = seats.reset(seed=1, seats=[0, 1])
    for bad in ([0, 9], [1, 1], []):
        with pytest.raises(ValueError):
            seats.reset(seed=2, seats=bad)
    while not seats.done:
        texts = seats.act_all(dict.fromkeys(texts, "{}"))
    assert seats.policy_errors == 0 and seats.raw.game is not None and seats.raw.game.state.seed == 1
    seats.close()
