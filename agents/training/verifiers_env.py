"""The game as a ``verifiers.v1`` environment: the trained policy in one seat or several (self-play), the
rewards of ``werewolf_env.analysis.rewards`` as ``@vf.reward`` functions scored on each seat's own trace.

Built against verifiers' task-based v1 API (``Taskset``, ``Task``, ``Env.run(task, agents)``); the ``train``
extra installs it. Importing this module registers it as the verifiers plugin ``werewolf_seat`` (taskset,
environment and harness), so that verifiers' loaders find it by that id in this process:

    import verifiers.v1 as vf
    from werewolf_deception.agents.training.verifiers_env import WerewolfEnv, WerewolfEnvConfig, WerewolfTasksetConfig

    config = WerewolfEnvConfig(
        taskset=WerewolfTasksetConfig(seeds=[1, 2, 3], seats=[0, 4]),      # two trained seats: self-play
        game={"num_players": 7}, lineup="heuristic", weights={"win": 1.0, "detection": 0.5},
    )
    env = WerewolfEnv(config)
    ctx = vf.ModelContext(model="my-policy", client=vf.EvalClientConfig(base_url="http://127.0.0.1:8000/v1"))
    async with env.serving():
        episode = await env.run_episode(next(iter(env.taskset)), ctx)
    {trace.task.data.seat: trace.rewards for trace in episode.traces}

- A task row is one deal: ``seed`` and the trained ``seats``. Every trained seat is one interaction of the
  ``policy`` agent, so one episode holds one trace per trained seat (``trace.task.data.seat``), each scored
  by its own seat's rewards; the other seats are played inside by the ``lineup`` (heuristic, random, or
  frozen LLM seats on any OpenAI-compatible server).
- Each seat's conversation holds only that seat's view: its first message is the seat's whole observation,
  each later one what it had not seen since its previous turn (``seat_env.new_text_since``). Hidden events
  never reach a prompt; they reach only the rewards, through the game's log.
- The rewards are the task's ``@vf.reward`` methods ``win``, ``detection``, ``honesty``, ``deception_success``
  and ``validity``; their weights are verifiers' own (``TaskConfig.rewards``, set from ``weights`` here), so
  ``trace.reward`` is the weighted sum ``werewolf_env.analysis.rewards.reward`` gives.
- The ``policy`` agent runs the in-process chat harness of this module (one chat completion per turn through
  verifiers' interception, so tokens and logprobs are recorded as for any harness) on the local runtime.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import AsyncExitStack
from typing import Annotated, Any

import verifiers.v1 as vf
from openai import AsyncOpenAI
from pydantic import AfterValidator, Field, model_validator
from verifiers.v1.dialects.chat import message_to_wire

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.llm import EndpointDownError
from werewolf_deception.agents.play import load_lineup, make_policy, seat_seed
from werewolf_deception.agents.training.seat_env import new_text_since
from werewolf_env import GameConfig
from werewolf_env.analysis import REWARD_FUNCTIONS, REWARDS, RewardWeights
from werewolf_env.envs import raw_env
from werewolf_env.record import GameRecord

__all__ = ["WerewolfChatHarness", "WerewolfEnv", "WerewolfTaskset"]

PLUGIN_ID = "werewolf_seat"

INSTRUCTIONS = (
    "You play one seat of a game of Werewolf. Each message is what you saw since your previous turn and ends "
    "with your turn: answer it with exactly the one JSON object the turn asks for, and nothing else."
)
_DEFAULT_WEIGHTS = RewardWeights()


def _distinct_seats(seats: list[int]) -> list[int]:
    if len(set(seats)) != len(seats) or min(seats) < 0:
        raise ValueError(f"the trained seats must be distinct seat indices, got {seats}")
    return seats


def _check_seats(seats: list[int], players: int) -> None:
    if max(seats) >= players:
        raise ValueError(f"seat {max(seats)} is not a seat of a {players}-player game (0-{players - 1})")


Seats = Annotated[list[int], Field(min_length=1), AfterValidator(_distinct_seats)]
Seed = Annotated[int, Field(ge=0)]  # a game's seed (the env refuses a negative one)


class WerewolfData(vf.TaskData):
    """One deal: the game's ``seed`` and the ``seats`` the trained policy plays (several: self-play). On a
    seat's own task (the one its trace is scored by), ``seat`` names that seat."""

    seed: Seed
    seats: Seats = Field(default_factory=lambda: [0])
    seat: int | None = None


class Game:
    """One game of one episode: the env, the other seats' policies, and what each trained seat has seen."""

    def __init__(self, config: GameConfig, lineup: Any, seed: int, seats: list[int]) -> None:
        _check_seats(seats, config.num_players)
        self.raw = raw_env(config=config, info_events=True)
        self.raw.reset(seed=seed)
        game = self.raw.game
        assert game is not None
        self.seats = {f"player_{seat}": seat for seat in seats}
        rules = load_lineup(lineup, config.ruleset)
        self.policies: dict[str, Policy] = {
            agent: make_policy(
                rules.spec_for(agent, game.state.roles[i], game.state.config.ruleset), seat_seed(seed, i)
            )
            for i, agent in enumerate(self.raw.possible_agents)
            if agent not in self.seats
        }
        self.seen: dict[str, str] = dict.fromkeys(self.seats, "")
        self.policy_errors = 0
        self._record: tuple[int, GameRecord] | None = None  # the record, and how many events it was read from

    @property
    def record(self) -> GameRecord:
        """The game's log so far (final once the game is over); read again only when the log has grown."""
        events = self.raw.game.state.events if self.raw.game is not None else []
        if self._record is None or self._record[0] != len(events):
            self._record = (len(events), GameRecord.from_events([event.to_json() for event in events]))
        return self._record[1]

    async def next_trained_turn(self) -> str | None:
        """Play the other seats until a trained seat's turn; that seat's agent name, or None at the game's end."""
        raw = self.raw
        while raw.agents:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                raw.step(None)
            elif agent in self.seats:
                return str(agent)
            else:
                raw.step(await self._other(agent))
        return None

    def new_text(self, agent: str) -> str:
        """What ``agent`` sees now that it had not seen at its previous turn (all of it the first time)."""
        current = str(self.raw.observe(agent)["text"])
        text, self.seen[agent] = new_text_since(self.seen[agent], current), current
        return text

    async def _other(self, agent: str) -> Any:
        """Another seat's answer; a policy that raises is recorded as a fallback, as the runner does, but for
        a server that can no longer answer, which stops the game (the episode fails with that error)."""
        try:
            return await self.policies[agent].aact(self.raw.observe(agent), self.raw.infos[agent])
        except EndpointDownError:
            raise
        except Exception as exc:  # any policy failure is the env's fallback answer, as in the runner
            self.policy_errors += 1
            return {"policy_error": type(exc).__name__}

    async def close(self) -> None:
        policies, self.policies = self.policies, {}
        for policy in policies.values():
            await policy.aclose()
        self.raw.close()


def _seat_reward(name: str) -> Any:
    """The ``@vf.reward`` method scoring reward ``name`` of the task's seat, weighted by default as
    ``RewardWeights`` weighs it."""

    async def score(self: WerewolfTask) -> float:
        return self._reward(name)

    score.__name__ = score.__qualname__ = name
    score.__doc__ = REWARD_FUNCTIONS[name].__doc__
    return vf.reward(score, weight=getattr(_DEFAULT_WEIGHTS, name))


class WerewolfTask(vf.Task[WerewolfData, vf.State, vf.TaskConfig]):
    """A deal; on a seat's own task (``data.seat`` set, ``game`` attached by the env), the seat's rewards."""

    game: Game | None = None

    def _reward(self, name: str) -> float:
        if self.game is None or self.data.seat is None:
            raise vf.TaskError("a werewolf reward is scored on a seat's own task, after its game")
        return REWARD_FUNCTIONS[name](self.game.record, self.data.seat)

    # verifiers finds a task's rewards by their decorator: one ``@vf.reward`` per reward of the seat, named as in
    # ``werewolf_env.analysis.rewards`` and documented by its formula there
    win = _seat_reward("win")
    detection = _seat_reward("detection")
    honesty = _seat_reward("honesty")
    deception_success = _seat_reward("deception_success")
    validity = _seat_reward("validity")


def reward_weights(weights: RewardWeights | dict[str, float] | None) -> vf.TaskConfig:
    """The task config whose reward weights are ``weights`` (verifiers weighs each ``@vf.reward``)."""
    chosen = weights if isinstance(weights, RewardWeights) else RewardWeights(**(weights or {}))
    return vf.TaskConfig(rewards={name: vf.RewardFunctionConfig(weight=getattr(chosen, name)) for name in REWARDS})


class WerewolfTasksetConfig(vf.TasksetConfig):
    id: str = PLUGIN_ID
    seeds: list[Seed] = Field(default_factory=lambda: list(range(64)), min_length=1)
    """One task per seed; a GRPO group (``-r n``) plays the same deal."""
    seats: Seats = Field(default_factory=lambda: [0])
    """The seats the trained policy plays in every game (several: self-play)."""


class WerewolfTaskset(vf.Taskset[WerewolfTask, WerewolfTasksetConfig]):
    def load(self) -> Iterator[WerewolfTask]:
        for seed in self.config.seeds:
            data = WerewolfData(
                id=f"werewolf-{seed}", name=f"werewolf seed {seed}", seed=seed, seats=list(self.config.seats)
            )
            yield WerewolfTask(data, self.config.task)


class WerewolfEnvConfig(vf.EnvConfig):
    taskset: WerewolfTasksetConfig = WerewolfTasksetConfig()
    policy: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The trained policy: every trained seat is one of its interactions (the run's model unless pinned)."""
    game: dict[str, Any] = Field(default_factory=dict)
    """``GameConfig`` fields (``num_players``, ...)."""
    lineup: str | dict[str, Any] = "heuristic"
    """Who plays the other seats: a lineup kind, a lineup table or a lineup file
    (``werewolf_deception.agents.play.lineup``)."""
    weights: dict[str, float] | None = None
    """Reward weights (``RewardWeights`` fields); set, they override the weights in ``taskset.task.rewards``."""

    @model_validator(mode="after")
    def _playable(self) -> WerewolfEnvConfig:
        """A game config, lineup or seat that cannot play is refused here, before any rollout."""
        config = GameConfig(**self.game)
        _check_seats(self.taskset.seats, config.num_players)
        load_lineup(dict(self.lineup) if isinstance(self.lineup, dict) else self.lineup, config.ruleset)
        return self

    def model_post_init(self, context: Any) -> None:
        if self.weights is not None:
            task = self.taskset.task
            weighted = task.model_copy(update={"rewards": {**task.rewards, **reward_weights(self.weights).rewards}})
            self.taskset = self.taskset.model_copy(update={"task": weighted})


class WerewolfEnv(vf.Env[WerewolfEnvConfig]):
    """Plays one game per episode: the trained seats answer through the ``policy`` agent, turn by turn."""

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        data = task.data
        assert isinstance(data, WerewolfData)
        game = Game(GameConfig(**self.config.game), self.config.lineup, data.seed, data.seats)
        try:
            async with AsyncExitStack() as stack:
                interactions: dict[str, Any] = {}
                for name, seat in game.seats.items():
                    seat_task = WerewolfTask(
                        data.model_copy(update={"seat": seat, "prompt": None, "system_prompt": INSTRUCTIONS}),
                        task.config,
                    )
                    seat_task.game = game
                    interactions[name] = await stack.enter_async_context(agents.policy.interaction(seat_task))
                ended: set[str] = set()  # seats whose run ended (their turn budget): the env's fallback answers
                # Leaving the stack closes every seat's interaction: each trace is then scored on the whole game.
                while (agent := await game.next_trained_turn()) is not None:
                    if agent in ended:
                        game.raw.step(None)
                        continue
                    segment = await interactions[agent].turn(game.new_text(agent))
                    if segment.terminated:
                        ended.add(agent)
                    game.raw.step(None if segment.terminated else segment.last_reply)
        finally:
            await game.close()

    async def finalize(self, task: vf.Task, episode: vf.Episode) -> None:
        for trace in episode.traces:
            trace.record_metric("trained_seats", float(len(episode.traces)))


class WerewolfChatHarness(vf.Harness[vf.HarnessConfig]):
    """One chat completion per turn, in process, through verifiers' interception endpoint (no program to
    install, no tools): the conversation so far in, the seat's JSON answer out."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace,
        runtime: vf.Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
        tool_interception_url: str | None = None,
    ) -> vf.ProgramResult:
        system_prompt, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}] if system_prompt else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt is not None:
            messages.extend(message_to_wire(message) for message in prompt)
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as client:
            reply = await client.chat.completions.create(model=ctx.model, messages=messages)  # type: ignore[arg-type]
        content = reply.choices[0].message.content if reply.choices else ""
        return vf.ProgramResult(exit_code=0, stdout=content or "", stderr="")


# Verifiers finds a plugin by importing its id as a top-level module; this module is one by this id.
sys.modules.setdefault(PLUGIN_ID, sys.modules[__name__])
