"""The seat environment (``werewolf_deception.agents.training.seat_env.SeatEnv``) as an OpenEnv server
(``openenv-core``, the ``train`` extra).

OpenEnv serves an environment's ``reset``/``step``/``state`` over a WebSocket, one environment per connection,
so that any trainer that speaks OpenEnv (TRL's native path among them) can play one seat of a game of Werewolf:

    app = seat_app({"num_players": 7}, lineup="heuristic", weights={"win": 1.0, "detection": 0.5})
    # uvicorn.run(app, host="127.0.0.1", port=8000), or: python -m werewolf_deception.agents.training.openenv_server
    --port 8000

    with SeatClient(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset(seed=3, seat=2)                      # seed and seat as in SeatEnv.reset
        while not result.done:
            result = env.step(SeatAction(answer=my_model(result.observation.text)))
        result.reward, result.observation.rewards

- ``SeatAction.answer``: the JSON the seat's turn asks for, as an object or as the model's raw text (what does
  not parse is recorded as a fallback, as for any policy).
- ``SeatObservation``: ``text``, what the seat has not seen yet (the whole view at ``reset``, then the history
  since its last turn, its suspicion scores and the next turn: append it to one growing chat); ``turn`` (the
  pending turn's ``action_kind``, ``legal_targets``, ``answer_format``, ``round``, ``phase``; None at the end);
  ``done`` when the game is over; ``reward``, sparse: 0.0 until the step that ends the game, then the seat's
  weighted reward; ``rewards``, every component then (empty before: mid-game rewards would tell the trainer
  the judge's verdicts on statements still in play).
- ``SeatState``: ``episode_id``, ``step_count`` (the seat's answers), ``seed``, ``seat`` and ``done``; never
  the roles or the hidden events.

OpenEnv's plain HTTP ``/reset`` and ``/step`` make a new environment for every request (they hold no game from
one call to the next): play through the WebSocket client. The other seats play inside, by the lineup.
"""

from __future__ import annotations

import argparse
import functools
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from werewolf_deception.agents.play import Lineup, load_lineup
from werewolf_deception.agents.training.seat_env import SeatEnv
from werewolf_env import GameConfig, __version__
from werewolf_env.analysis import RewardWeights

MISSING_EXTRA = (
    "werewolf_deception.agents.training.openenv_server needs openenv-core, from the 'train' extra: "
    "pip install -e '.[train]'"
)
RESET_OPTIONS = ("seed", "seat", "episode_id")
DEFAULT_MAX_SESSIONS = 16  # concurrent WebSocket sessions, each one game: a GRPO group plays several at once
# A session this long after its last reply is ended and its slot freed: a few idle connections must not hold every
# one of the ``max_sessions`` slots for good. A step, the other seats' turns included, takes seconds to minutes.
DEFAULT_IDLE_TIMEOUT = 600.0
SESSION_ENDED = "this session was ended (idle longer than the server's idle timeout): open a new one"
# Built on first use, so that importing this module needs no openenv (see ``_openenv_classes``).
PUBLIC_CLASSES = ("SeatAction", "SeatObservation", "SeatState", "SeatEnvironment", "SeatClient")


def seat_app(
    config: GameConfig | Mapping[str, Any] | None = None,
    lineup: Lineup | Mapping[str, Any] | str | Path | None = "heuristic",
    weights: RewardWeights | Mapping[str, float] | None = None,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
) -> Any:
    """The OpenEnv server's ASGI app (FastAPI): one ``SeatEnvironment`` per WebSocket session, of these options.

    ``idle_timeout``: seconds after a session's last reply before OpenEnv ends it, freeing its slot (OpenEnv checks
    every quarter of it, but no more often than every 5 s); 0 or None: never. It counts from the last reply, so a
    step still being played counts as idle: keep it well above a step's longest time (the other seats' turns
    included). The options are checked here, before anything is served (a ``ValueError`` names what is wrong)."""
    classes = _openenv_classes()
    try:
        from openenv.core.env_server.http_server import create_app
        from openenv.core.env_server.types import ConcurrencyConfig
    except ImportError as exc:
        raise RuntimeError(MISSING_EXTRA) from exc
    if isinstance(max_sessions, bool) or not isinstance(max_sessions, int) or max_sessions < 1:
        raise ValueError(f"max_sessions {max_sessions!r}: a positive number of concurrent sessions")
    if idle_timeout is not None and (
        isinstance(idle_timeout, bool) or not isinstance(idle_timeout, (int, float)) or not 0 <= idle_timeout < 1e9
    ):  # NaN fails the range too
        raise ValueError(f"idle_timeout {idle_timeout!r}: a number of seconds under 1e9 (0 or None: never)")
    game_config = config if isinstance(config, GameConfig) else GameConfig(**dict(config or {}))
    seat_lineup = load_lineup(lineup if not isinstance(lineup, Mapping) else dict(lineup), game_config.ruleset)
    reward_weights = weights if isinstance(weights, RewardWeights) else RewardWeights(**dict(weights or {}))
    factory = functools.partial(classes["SeatEnvironment"], game_config, seat_lineup, reward_weights)
    app = create_app(
        factory,
        classes["SeatAction"],
        classes["SeatObservation"],
        env_name="werewolf_seat",
        concurrency_config=ConcurrencyConfig(
            max_concurrent_envs=max_sessions,
            session_timeout=float(idle_timeout) if idle_timeout else None,
        ),
    )
    app.add_middleware(_ClientClosedFirst)
    return app


class _ClientClosedFirst:
    """ASGI middleware: a WebSocket session whose client closed first ends quietly. OpenEnv 0.3.0's ``/ws``
    closes the socket again after the client's "close" message, and the ``WebSocketDisconnect`` this raises
    reaches uvicorn, which logs a traceback at every clean session end (huggingface/OpenEnv#1159)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from fastapi import WebSocketDisconnect

        try:
            await self.app(scope, receive, send)
        except WebSocketDisconnect:
            if scope.get("type") != "websocket":
                raise


def __getattr__(name: str) -> Any:
    """The OpenEnv classes (``SeatAction``, ``SeatClient``, ...), built when first asked for."""
    if name in PUBLIC_CLASSES:
        return _openenv_classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _openenv_classes() -> dict[str, Any]:
    """The environment, its models and its client on OpenEnv's base classes (openenv imported here only)."""
    try:
        from openenv.core.client_types import StepResult
        from openenv.core.env_client import EnvClient
        from openenv.core.env_server.interfaces import Environment
        from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
        from pydantic import Field
    except ImportError as exc:
        raise RuntimeError(MISSING_EXTRA) from exc

    class SeatAction(Action):
        """The seat's answer to its turn."""

        answer: dict[str, Any] | str = Field(
            description="the JSON object the turn asks for, or the model's raw text (parsed as any policy's answer)"
        )

    class SeatObservation(Observation):
        """What the seat sees after its answer (``done`` and ``reward`` are OpenEnv's own fields)."""

        text: str = Field(default="", description="what the seat has not seen yet, ending with its next turn")
        turn: dict[str, Any] | None = Field(default=None, description="the pending turn; None once the game is over")
        rewards: dict[str, float] = Field(
            default_factory=dict, description="every reward component of the seat, once the game is over"
        )

    class SeatState(State):
        """The episode's bookkeeping: nothing of the game the seat does not see."""

        seed: int | None = Field(default=None, description="the game's seed")
        seat: int = Field(default=0, description="the seat played, 0-based")
        done: bool = Field(default=False, description="whether the game is over")

    class SeatEnvironment(Environment):
        """One seat of one game at a time (``SeatEnv``) behind OpenEnv's ``reset``/``step``/``state``."""

        SUPPORTS_CONCURRENT_SESSIONS = True  # each session has its own SeatEnv: nothing is shared but options

        def __init__(
            self,
            config: GameConfig | Mapping[str, Any] | None = None,
            lineup: Lineup | Mapping[str, Any] | str | Path | None = "heuristic",
            weights: RewardWeights | Mapping[str, float] | None = None,
        ) -> None:
            super().__init__()
            self.seat_env = SeatEnv(config, lineup, weights)
            self._state = SeatState()
            self._closed = False

        def reset(
            self, seed: int | None = None, episode_id: str | None = None, seat: int | str | None = None, **options: Any
        ) -> SeatObservation:
            """A new game: ``seed`` (a non-negative integer) names the deal, ``seat`` the seat played (an
            index, ``player_<i>`` or a name; by default the seed's)."""
            self._check_open()
            if options:
                unknown = ", ".join(sorted(options))
                raise ValueError(f"unknown reset option(s) {unknown}: the options are {', '.join(RESET_OPTIONS)}")
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
                raise ValueError(f"seed {seed!r}: a game's seed must be a non-negative integer")
            if episode_id is not None and not isinstance(episode_id, str):
                raise ValueError(f"episode_id {episode_id!r}: an episode's id must be a string")
            env = self.seat_env
            env.reset(seed=seed, seat=seat)
            game = env.raw.game  # its seed: the one given, or the one drawn when none was
            drawn = seed if game is None else game.state.seed
            self._state = SeatState(episode_id=episode_id or str(uuid.uuid4()), seed=drawn, seat=env.seat)
            return self._observation()

        def step(self, action: Any, timeout_s: float | None = None, **options: Any) -> SeatObservation:
            """Answer the seat's turn; the other seats play until its next one (``timeout_s`` is not used: the
            lineup's own timeouts bound their turns)."""
            self._check_open()
            if not isinstance(action, SeatAction):
                raise ValueError(f"a step takes a SeatAction, not {type(action).__name__}")
            if self._state.episode_id is None:
                raise ValueError("no game yet: call reset first")
            self.seat_env.act(action.answer)  # a ValueError once the game is over
            self._state.step_count += 1
            self._state.done = self.seat_env.done
            return self._observation()

        @property
        def state(self) -> SeatState:
            return self._state

        def get_metadata(self) -> Any:
            return EnvironmentMetadata(
                name="werewolf_seat",
                description="One seat of a game of Werewolf, in text; the other seats play inside. "
                "Rewards from the game's ground truth (werewolf_env.analysis.rewards).",
                version=__version__,
            )

        def close(self) -> None:
            if not self._closed:
                self._closed = True
                self.seat_env.close()

        def _check_open(self) -> None:
            # OpenEnv ends an idle session (``idle_timeout``) while its connection may still be open: say so,
            # rather than play on in a game whose seats were shut.
            if self._closed:
                raise RuntimeError(SESSION_ENDED)

        def _observation(self) -> SeatObservation:
            env = self.seat_env
            if not env.done:
                return SeatObservation(text=env.new_text, turn=env.turn, done=False, reward=0.0)
            return SeatObservation(text=env.new_text, done=True, reward=env.reward(), rewards=env.rewards())

    class SeatClient(EnvClient):
        """OpenEnv's WebSocket client for ``seat_app`` (async; ``.sync()`` for a blocking one)."""

        def _step_payload(self, action: SeatAction) -> dict[str, Any]:
            return dict(action.model_dump())

        def _parse_result(self, payload: dict[str, Any]) -> Any:
            observation = SeatObservation(
                **payload.get("observation", {}), done=payload.get("done", False), reward=payload.get("reward")
            )
            return StepResult(observation=observation, reward=observation.reward, done=observation.done)

        def _parse_state(self, payload: dict[str, Any]) -> SeatState:
            return SeatState(**payload)

    return {cls.__name__: cls for cls in (SeatAction, SeatObservation, SeatState, SeatEnvironment, SeatClient)}


def main(argv: list[str] | None = None) -> None:
    """``python -m werewolf_deception.agents.training.openenv_server``: serve the seat environment until interrupted
    (127.0.0.1 by default)."""
    parser = argparse.ArgumentParser(
        prog="python -m werewolf_deception.agents.training.openenv_server",
        description="Serve one seat of Werewolf as an OpenEnv environment.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: a free one, which uvicorn logs)")
    parser.add_argument("--players", type=int, default=7, help="players per game (default 7)")
    parser.add_argument("--lineup", default="heuristic", help="the other seats: heuristic, random or a lineup file")
    parser.add_argument(
        "--weight", action="append", default=[], metavar="NAME=VALUE", help="a reward's weight (repeat; default win=1)"
    )
    parser.add_argument("--max-sessions", type=int, default=DEFAULT_MAX_SESSIONS, help="concurrent games at most")
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=DEFAULT_IDLE_TIMEOUT,
        metavar="SECONDS",
        help="end a session this long after its last reply, freeing its slot; above a step's longest time "
        f"(default {DEFAULT_IDLE_TIMEOUT:g}; 0: never)",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port < 65536:
        parser.error(f"--port {args.port}: a port from 0 (a free one) to 65535")
    try:
        weights = dict(_weight(text) for text in args.weight)
        app = seat_app({"num_players": args.players}, args.lineup, weights or None, args.max_sessions,
                       args.idle_timeout)  # fmt: skip
        import uvicorn
    except ImportError:
        parser.error(MISSING_EXTRA)
    except (ValueError, RuntimeError, OSError) as exc:  # pydantic's ValidationError is a ValueError
        parser.error(" ".join(str(exc).split()))
    uvicorn.run(app, host=args.host, port=args.port)


def _weight(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    try:
        return name.strip(), float(value)
    except ValueError:
        raise ValueError(f"--weight {text!r}: NAME=VALUE, for example detection=0.5") from None


if __name__ == "__main__":
    main()
