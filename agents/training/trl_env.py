"""The seat environment in TRL's shape: ``GRPOTrainer(environment_factory=...)``, the game's turns as tools.

TRL makes one environment object per rollout (with no arguments), calls ``reset(**row)`` with the dataset
row's columns, offers the object's public methods to the model as tools (their docstrings describe the
arguments), and passes the objects to the reward functions. Here:

    Seat = seat_environment({"num_players": 7}, lineup="heuristic", weights={"win": 1.0, "detection": 0.5})
    trainer = GRPOTrainer(model=..., train_dataset=rows, environment_factory=Seat,
                          reward_funcs=[reward_from_env])   # rows: {"prompt": [...], "seed": 3, "seat": 2}

- ``seed`` (and ``seat``) come from the row, so that the completions of one GRPO group play the same deal;
  without ``seat``, the seed's seat plays.
- Tools: ``speak``, ``analyse``, ``bid``, ``vote``, ``night_action``, ``summarise``. Each answers the turn
  the last observation names; calling another turn's tool changes nothing and says which tool the turn
  wants (a ``ValueError``, which TRL feeds back to the model as the tool's answer), as does any call
  after the game.
- Each tool returns what the seat has not seen yet: the history since its last turn, its suspicion scores
  and the next turn. The other seats play inside (``SeatEnv``).
- After the episode, ``reward`` is the seat's weighted reward (``werewolf_env.analysis.rewards``), ``rewards`` every
  component, ``done`` whether the game ended (it may not, when the completion budget ran out first: such an
  episode's ``reward`` is the reward so far, and ``done`` false).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from werewolf_deception.agents.play import Lineup
from werewolf_deception.agents.training.seat_env import SeatEnv
from werewolf_env import GameConfig
from werewolf_env.actions import TARGET_KEYS
from werewolf_env.analysis import REWARDS, RewardWeights
from werewolf_env.core import ActionKind

INSTRUCTIONS = (
    "You play one seat of a game of Werewolf. Each observation ends with NOW: your turn. Answer every turn by "
    "calling the one tool it asks for (speak, analyse, bid, vote, night_action or summarise); the tool's answer "
    "is what happened since, and your next turn. The game goes on until it says it is over."
)
# The tool that answers each kind of turn; the kinds that name a player by "target" (the night's actions, a
# hunter's shot) share ``night_action``, those that name one by "vote" share ``vote``.
_NAMED = {ActionKind.STATEMENT: "speak", ActionKind.SELF_ANALYSIS: "analyse", ActionKind.PEER_ANALYSIS: "analyse",
          ActionKind.BID: "bid", ActionKind.SUMMARY: "summarise"}  # fmt: skip
TOOL_OF: dict[str, str] = {
    kind.value: _NAMED.get(kind) or ("vote" if TARGET_KEYS.get(kind) == "vote" else "night_action")
    for kind in ActionKind
}


class WerewolfSeat:
    """One rollout's seat (see the module docstring); ``seat_environment`` binds its options."""

    options: ClassVar[tuple[Any, Any, Any]] = (None, "heuristic", None)

    def __init__(self) -> None:
        config, lineup, weights = self.options
        self._env = SeatEnv(config, lineup, weights)
        self.reward = 0.0
        self.rewards: dict[str, float] = dict.fromkeys(REWARDS, 0.0)
        self.done = False
        self.wrong_tool_calls = 0

    def reset(self, **row: Any) -> str:
        """Start the row's game (``seed``, optional ``seat``); the seat's first observation."""
        seed, seat = row.get("seed"), row.get("seat")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"seed {seed!r}: a row's seed must be a non-negative integer")
        text = self._env.reset(seed=seed, seat=seat)
        self.reward, self.rewards, self.done, self.wrong_tool_calls = 0.0, dict.fromkeys(REWARDS, 0.0), False, 0
        self._score()
        return f"{INSTRUCTIONS}\n\n{text}"

    # ------------------------------------------------------------------ tools

    def speak(self, statement: str, notes: str = "") -> str:
        """Say your statement to the table, when your turn is to speak.

        Args:
            statement: What you say, within the word limit the rules give.
            notes: An optional private note to yourself, shown only to you later.

        Returns:
            What happened since, and your next turn.
        """
        return self._answer("speak", {"statement": statement, "notes": notes})

    def analyse(
        self,
        is_deceptive: bool,
        probability: float,
        deception_type: str,
        reasoning: str,
        suspicion: float | None = None,
        suspicion_of: dict[str, float] | None = None,
        notes: str = "",
    ) -> str:
        """Analyse the statement just made (your own, or another player's), when your turn is to analyse.

        Args:
            is_deceptive: Whether the statement is deceptive.
            probability: The probability (0 to 1) that the statement is deceptive.
            deception_type: One of none, omission, distortion, fabrication, misdirection.
            reasoning: Why, in a sentence or two.
            suspicion: For another player's statement: how likely (0 to 1) the speaker is a werewolf.
            suspicion_of: When the turn asks it: how likely (0 to 1) each player the statement is about is a
                werewolf, by name.
            notes: An optional private note to yourself.

        Returns:
            What happened since, and your next turn.
        """
        answer: dict[str, Any] = {"is_deceptive": is_deceptive, "confidence": probability,
                                  "deception_type": deception_type, "reasoning": reasoning, "notes": notes}  # fmt: skip
        if suspicion is not None:
            answer["suspicion"] = suspicion
        if suspicion_of is not None:
            answer["suspicion_of"] = suspicion_of
        return self._answer("analyse", answer)

    def bid(self, amount: int, notes: str = "") -> str:
        """Bid for the floor: the highest bid speaks next.

        Args:
            amount: Your bid, an integer from 0 to the maximum the rules give.
            notes: An optional private note to yourself.

        Returns:
            What happened since, and your next turn.
        """
        return self._answer("bid", {"bid": amount, "notes": notes})

    def vote(self, player: str | None = None, notes: str = "") -> str:
        """Vote to exile a player (or say whom you would exile now, when asked privately).

        Args:
            player: The name of the player, or null to abstain.
            notes: An optional private note to yourself.

        Returns:
            What happened since, and your next turn.
        """
        return self._answer("vote", {"vote": player, "notes": notes})

    def night_action(self, target: str | None = None, notes: str = "") -> str:
        """Your role's action on a player, when the turn asks for one: the werewolves' victim, the doctor's
        protection, the seer's check, the witch's heal or poison, the hunter's last shot.

        Args:
            target: The name of the player, or null (to keep a potion, or shoot nobody).
            notes: An optional private note to yourself.

        Returns:
            What happened since, and your next turn.
        """
        return self._answer("night_action", {"target": target, "notes": notes})

    def summarise(self, summary: str, notes: str = "") -> str:
        """Give your final summary of the game, when the game is over and asks for it.

        Args:
            summary: Your summary of what happened.
            notes: An optional private note to yourself.

        Returns:
            What happened since, and your next turn (or the end of the game).
        """
        return self._answer("summarise", {"summary": summary, "notes": notes})

    # ------------------------------------------------------------------ the turn

    def _answer(self, tool: str, answer: dict[str, Any]) -> str:
        turn = self._env.turn
        if turn is None:
            raise ValueError("The game is over: there is nothing more to answer.")
        wanted = TOOL_OF.get(str(turn["action_kind"]), "?")
        if tool != wanted:
            self.wrong_tool_calls += 1
            raise ValueError(f"It is not your turn to call {tool}: the turn is {turn['action_kind']}; call {wanted}.")
        self._env.act(answer)
        self._score()
        return self._env.new_text

    def _score(self) -> None:
        self.done = self._env.done
        self.rewards = self._env.rewards()
        self.reward = self._env.reward()


# Each tool's arguments from the fields of the JSON answer a turn asks for (``answer_format``).
_ARGUMENTS = {
    "speak": {"statement": "statement", "notes": "notes"},
    "analyse": {"is_deceptive": "is_deceptive", "confidence": "probability", "deception_type": "deception_type",
                "reasoning": "reasoning", "suspicion": "suspicion", "suspicion_of": "suspicion_of", "notes": "notes"},
    "bid": {"bid": "amount", "notes": "notes"},
    "vote": {"vote": "player", "notes": "notes"},
    "night_action": {"target": "target", "notes": "notes"},
    "summarise": {"summary": "summary", "notes": "notes"},
}  # fmt: skip


def as_tool_call(answer: Mapping[str, Any], action_kind: str) -> tuple[str, dict[str, Any]]:
    """The tool call that gives a turn of ``action_kind`` the JSON ``answer`` (the env's answer format): its
    tool's name and arguments. For turning answers (a model's, a heuristic's) into tool-calling data."""
    tool = TOOL_OF.get(action_kind)
    if tool is None:
        raise ValueError(f"unknown action kind {action_kind!r}")
    names = _ARGUMENTS[tool]
    return tool, {names[field]: value for field, value in answer.items() if field in names}


def seat_environment(
    config: GameConfig | Mapping[str, Any] | None = None,
    lineup: Lineup | Mapping[str, Any] | str | Path | None = "heuristic",
    weights: RewardWeights | Mapping[str, float] | None = None,
) -> type[WerewolfSeat]:
    """A ``WerewolfSeat`` class with these options bound, for ``environment_factory`` (which calls the class
    with no arguments). The options are checked here, once, rather than in every rollout."""
    SeatEnv(config, lineup, weights).close()  # refuses a bad config, lineup or weights now

    class BoundSeat(WerewolfSeat):
        options = (config, lineup, weights)

    return BoundSeat


def reward_from_env(environments: list[WerewolfSeat], **_: Any) -> list[float]:
    """TRL reward function: each rollout's weighted reward."""
    return [env.reward for env in environments]


def reward_component(name: str) -> Callable[..., list[float]]:
    """TRL reward function for one component (``werewolf_env.analysis.rewards.REWARDS``), to log or weight separately
    with ``GRPOConfig.reward_weights``."""
    if name not in REWARDS:
        raise ValueError(f"unknown reward {name!r}: one of {', '.join(REWARDS)}")

    def component(environments: list[WerewolfSeat], **_: Any) -> list[float]:
        return [env.rewards[name] for env in environments]

    component.__name__ = f"reward_{name}"
    return component
