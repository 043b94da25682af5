"""The phase graph: every node of a game, its handler, and where it routes next, in one table.

The node names are those of the state graph in the design paper, "Multi-Agent Social Deduction Benchmark
for LLM Deception" (eliminate, protect, unmask, resolve_night, check_winner_night, debate, vote, exile,
check_winner_day, summarize, end) with the debate split in its three steps: ``bid`` for the floor,
``debate`` (the statement) and ``analyze`` (self and peer analyses of that statement), then ``score``
(suspicion updates). Games with a witch add ``heal`` and ``poison`` after the night group (she learns the
pack's victim first); a dead hunter's ``shoot`` and its resolution ``shot`` come after the deaths of a
night or an exile, before the winner is checked. Private vote polls (``config.vote_polls``) add ``poll``
(every living player names whom it would exile now) and ``polled`` (recorded for no one to see) at the
day's start and after each statement, or once after the debate; with polls off (the default) the graph
never enters them.

A *collect* node opens turns for players; the engine waits until the whole simultaneous group has
answered before it runs the next node, except where ``joins_next`` is set: the three night nodes
add their turns to one group (werewolves, doctor and seer act at the same time, none seeing the
others), which ``resolve_night`` then resolves. A collect node with ``pause_when_empty`` (the witch's two)
takes a step even when it asks nobody, in an env that steps every group (the parallel env reads
``PAUSE_NODES``), so that how long a night takes never tells who can still act in it.

``werewolf-graph`` (``python -m werewolf_env.engine.graph``) prints the graph as a Mermaid diagram. This module
holds only what a game runs (it is compiled in the compiled build, which cannot run a module with ``-m``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from werewolf_env.core import ActionKind, GameState
from werewolf_env.engine import rules

Guard = Callable[[GameState], bool]


def _always(state: GameState) -> bool:
    return True


def _game_decided(state: GameState) -> bool:
    return state.winner is not None or state.truncated


def _debate_continues(state: GameState) -> bool:
    return state.debate_turn < state.config.max_debate_turns


def _in_rollout(state: GameState) -> bool:
    return state.rollout


def _poll_due(state: GameState) -> bool:
    return rules.poll_moment(state) is not None


def _debate_over(state: GameState) -> bool:
    return state.debate_turn >= state.config.max_debate_turns


def _witch_in_game(state: GameState) -> bool:
    return ActionKind.HEAL in state.kinds_in_game


def _hunter_shoots(state: GameState) -> bool:
    return bool(state.shooters)


def _by_day(state: GameState) -> bool:
    """The deaths being settled are the day's (an exile this round), not the night's."""
    return bool(state.exiles) and state.exiles[-1][0] == state.round


@dataclass(frozen=True, slots=True)
class Node:
    handler: Callable[[GameState], None]
    kind: str  # "collect" (asks players) or "resolve" (engine only)
    routes: tuple[tuple[Guard, str, str], ...]  # (guard, label, next node): the first true guard wins
    joins_next: bool = False
    # A step of its own every time the game enters it, even when it asks nobody (``GameState.pause_when_empty``,
    # ``PAUSE_NODES``): how many steps a night takes must not tell who can still act there.
    pause_when_empty: bool = False


PHASE_GRAPH: dict[str, Node] = {
    "start": Node(rules.start_game, "resolve", ((_always, "", "eliminate"),)),
    "eliminate": Node(rules.open_eliminate, "collect", ((_always, "", "protect"),), joins_next=True),
    "protect": Node(rules.open_protect, "collect", ((_always, "", "unmask"),), joins_next=True),
    "unmask": Node(rules.open_unmask, "collect", (
        (_witch_in_game, "a witch plays", "heal"),
        (_always, "", "resolve_night"),
    )),
    "heal": Node(rules.open_heal, "collect", ((_always, "", "poison"),), pause_when_empty=True),
    "poison": Node(rules.open_poison, "collect", ((_always, "", "resolve_night"),), pause_when_empty=True),
    "resolve_night": Node(rules.resolve_night, "resolve", (
        (_hunter_shoots, "a hunter died", "shoot"),
        (_always, "", "check_winner_night"),
    )),
    "shoot": Node(rules.open_shoot, "collect", ((_always, "", "shot"),)),
    "shot": Node(rules.resolve_shot, "resolve", (
        (_hunter_shoots, "a hunter was shot", "shoot"),
        (_by_day, "by day", "check_winner_day"),
        (_always, "by night", "check_winner_night"),
    )),
    "check_winner_night": Node(rules.check_winner, "resolve", (
        (_game_decided, "winner", "summarize"),
        (_in_rollout, "rollout: no debate", "vote"),
        (_poll_due, "vote polls after each statement", "poll"),
        (_always, "no winner", "bid"),
    )),
    "bid": Node(rules.open_bid, "collect", ((_always, "", "debate"),)),
    "debate": Node(rules.open_statement, "collect", ((_always, "", "analyze"),)),
    "analyze": Node(rules.open_analyses, "collect", ((_always, "", "score"),)),
    "score": Node(rules.score_analyses, "resolve", (
        (_poll_due, "vote polls", "poll"),
        (_debate_continues, "turns left", "bid"),
        (_always, "debate over", "vote"),
    )),
    "poll": Node(rules.open_poll, "collect", ((_always, "", "polled"),)),
    "polled": Node(rules.record_poll, "resolve", (
        (_debate_over, "debate over", "vote"),
        (_always, "", "bid"),
    )),
    "vote": Node(rules.open_vote, "collect", ((_always, "", "exile"),)),
    "exile": Node(rules.exile, "resolve", (
        (_hunter_shoots, "a hunter died", "shoot"),
        (_always, "", "check_winner_day"),
    )),
    "check_winner_day": Node(rules.check_winner, "resolve", (
        (_game_decided, "winner or max_rounds", "summarize"),
        (_always, "no winner", "next_round"),
    )),
    "next_round": Node(rules.next_round, "resolve", ((_always, "", "eliminate"),)),
    "summarize": Node(rules.open_summaries, "collect", ((_always, "", "end"),)),
    "end": Node(rules.end_game, "resolve", ()),
}  # fmt: skip

# The nodes that take a step even when they ask nobody, for an env that steps every node (the parallel env).
PAUSE_NODES = frozenset(name for name, node in PHASE_GRAPH.items() if node.pause_when_empty)


def route(state: GameState) -> str | None:
    for guard, _label, target in PHASE_GRAPH[state.phase].routes:
        if guard(state):
            return target
    return None


def advance(state: GameState) -> None:
    """Run nodes until some player must answer or the game is over."""
    while not state.over:
        node = PHASE_GRAPH[state.phase]
        if state.pending and not (node.kind == "collect" and node.joins_next):
            return
        target = route(state)
        if target is None:
            return
        state.phase = target
        PHASE_GRAPH[target].handler(state)
        if not state.pending and target in state.pause_when_empty:
            state.paused = True  # a step in which nobody answers (see ``GameState.pause_when_empty``)
            return
