"""Shared helpers: scripted games with fixed roles, and random games."""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from werewolf_deception.agents import RandomAgent
from werewolf_env import Game, GameConfig
from werewolf_env.actions.spaces import JsonActionSpace
from werewolf_env.core.config import Role
from werewolf_env.core.state import ActionKind, Turn

W, S, D, V = Role.WEREWOLF, Role.SEER, Role.DOCTOR, Role.VILLAGER
WI, H = Role.WITCH, Role.HUNTER
# Seats: 0 Alice W, 1 Bob W, 2 Carla S, 3 Dmitri D, 4 Emma V, 5 Farid V, 6 Grace V, 7 Hiro V
STANDARD_ROLES = (W, W, S, D, V, V, V, V)
# Seats: 0 Alice W, 1 Bob W, 2 Carla S, 3 Dmitri D, 4 Emma WI, 5 Farid H, 6 Grace V, 7 Hiro V
FULL_ROLES = (W, W, S, D, WI, H, V, V)

Script = Callable[[Game, Turn], Any]


def quiet(game: Game, turn: Turn) -> Any:
    """A default answer that changes nothing: no kill, no protection, bid 0, silence, abstain."""
    kind = turn.kind
    if kind in (
        ActionKind.ELIMINATE,
        ActionKind.PROTECT,
        ActionKind.UNMASK,
        ActionKind.HEAL,
        ActionKind.POISON,
        ActionKind.SHOOT,
    ):
        return {"target": None}
    if kind is ActionKind.BID:
        return {"bid": 0}
    if kind is ActionKind.STATEMENT:
        return {"statement": "I have nothing to add."}
    if kind is ActionKind.SELF_ANALYSIS:
        return {"is_deceptive": False, "confidence": 0.1, "deception_type": "none"}  # confidence: P(deceptive)
    if kind is ActionKind.PEER_ANALYSIS:
        return {"is_deceptive": False, "confidence": 0.1, "deception_type": "none", "suspicion": 0.5}
    if kind in (ActionKind.VOTE, ActionKind.POLL):
        return {"vote": None}
    return {"summary": "done"}


def scripted(overrides: dict[tuple[ActionKind, int | None, int | None], Any]) -> Script:
    """Answers from ``overrides`` keyed by (kind, round or None, seat or None), else ``quiet``."""

    def script(game: Game, turn: Turn) -> Any:
        rnd = game.state.round
        for key in (
            (turn.kind, rnd, turn.player),
            (turn.kind, None, turn.player),
            (turn.kind, rnd, None),
            (turn.kind, None, None),
        ):
            if key in overrides:
                value = overrides[key]
                return value(game, turn) if callable(value) else value
        return quiet(game, turn)

    return script


def run_until(game: Game, script: Script, stop: Callable[[Game], bool] | None = None, limit: int = 10_000) -> None:
    steps = 0
    while not game.over and not (stop and stop(game)):
        turn = game.current
        assert turn is not None
        game.act(script(game, turn))
        steps += 1
        assert steps < limit, "the game did not end"


def fixed_game(roles: tuple[Role, ...] = STANDARD_ROLES, seed: int = 0, **config: Any) -> Game:
    counts = {r.value: roles.count(r) for r in Role if r is not V}
    cfg = GameConfig(num_players=len(roles), role_counts=counts, roles=roles, **config)
    return Game(cfg, seed)


def random_policy(seed: int, fuzz: float = 0.3) -> Callable[[Any, dict[str, Any]], Any]:
    """A mix of random legal answers and fuzzed (often invalid) ones."""
    import numpy as np

    rng = np.random.default_rng(seed)
    legal = RandomAgent(seed)
    fuzzers: dict[tuple[str, ...], JsonActionSpace] = {}

    def act(game: Game, turn: Turn) -> Any:
        names = game.state.names
        if rng.random() < fuzz:
            space = fuzzers.get(names)
            if space is None:
                space = fuzzers[names] = JsonActionSpace(names, seed=int(rng.integers(1 << 30)))
            return space.sample()
        legal_names = [names[p] for p in game.legal_targets(turn)]
        info = {"action_kind": turn.kind.value, "legal_targets": legal_names, "max_bid": game.state.config.max_bid}
        return legal.act({}, info)

    return act


def played_run(folder: Path, games: int, *extra: str) -> Path:
    """A finished heuristic run of ``games`` games in ``folder/run`` (no report), for tests that read run folders."""
    from werewolf_deception.benchmarks.cli.main import main

    out = folder / "run"
    assert main(["run", "--games", str(games), "--out", str(out), "--no-report", "--quiet", *extra]) == 0
    return out


def run_copy(played: Path, folder: Path) -> Path:
    """A copy of a played run that a test may change."""
    copy = folder / "run"
    shutil.copytree(played, copy)
    return copy


WITCH_AND_HUNTER_KINDS = (ActionKind.HEAL, ActionKind.POISON, ActionKind.SHOOT)


def game_at(kind: ActionKind, **config: Any) -> Game:
    """A game advanced to the first turn of ``kind``: the standard one, or for the witch's and the hunter's
    kinds one with them (``FULL_ROLES``) where the pack attacks the hunter (Farid) on the first night."""
    if kind in WITCH_AND_HUNTER_KINDS:
        game = fixed_game(FULL_ROLES, **config)
        script = scripted({(ActionKind.ELIMINATE, None, None): {"target": "Farid"}})
    elif kind is ActionKind.POLL:  # polls are off unless the config asks for them
        game, script = fixed_game(**{"vote_polls": "after_statement", **config}), quiet
    else:
        game, script = fixed_game(**config), quiet
    run_until(game, script, stop=lambda g: g.current is not None and g.current.kind is kind)
    assert game.current is not None and game.current.kind is kind, kind
    return game


@contextmanager
def uvicorn_thread(
    app: Any, errors: list[logging.LogRecord] | None = None, graceful_seconds: float | None = None
) -> Iterator[str]:
    """``app`` served by uvicorn on 127.0.0.1 (a free port) in a thread until the block ends; yields the base URL.
    ``errors``: uvicorn's error log records are appended to it (checked by the caller). Needs uvicorn (an extra):
    the tests that call it skip without it."""
    import uvicorn

    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", timeout_graceful_shutdown=graceful_seconds)
    )
    handler = logging.Handler(logging.ERROR)
    if errors is not None:
        handler.emit = errors.append  # type: ignore[method-assign]
    logging.getLogger("uvicorn.error").addHandler(handler)  # after the Config: it sets uvicorn's logging up
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(600):
            if server.started or not thread.is_alive():
                break
            thread.join(0.05)
        assert server.started, "the server did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
        logging.getLogger("uvicorn.error").removeHandler(handler)
    assert not thread.is_alive()
