"""Train one shared PPO policy for every seat with TorchRL, then play it against random and heuristic seats.

    pip install -e ".[rl]"                        # torchrl, tensordict (CPU torch: see docs/integrations.md)
    python examples/torchrl_ppo.py                # 600 frames of self-play, 200 + 200 evaluation games
    python examples/torchrl_ppo.py --smoke        # a few frames and 2 + 2 games (what the tests run)

The env is ``werewolf_env.wrappers.parallel_discrete_env()``, the numeric Parallel env (``Discrete``
actions, a numeric observation, an ``action_mask`` and numeric infos, no text; a seat without a turn may
only send the no-op) behind TorchRL's ``PettingZooWrapper`` with every seat in one group (``"seats"``: roles
follow the seed, so a seat is not a team). One frame is one env step: one simultaneous group of turns,
eight seats' observations. The actor is one MLP shared by all seats with a masked categorical head;
the critic is a per-seat MLP on the same observation (IPPO with shared parameters). Self-play: every
seat learns, each from its team's +1 / -1 at the end of the game.

Then the trained policy plays ``player_0`` (its role follows the seed) in ``--games`` games against random seats and as
many against heuristic seats (``werewolf_deception.agents.training.learner_seats.LearnerSeats``, the AEC env with the
same observation vector and action mask), sampling from the masked policy; random legal play in the same seat and games
is the baseline. Prints the win rates with 95% Wilson intervals, the frames and the time, and one JSON line with
everything at the end. Seeded: the same arguments give the same figures.
"""

from __future__ import annotations

import argparse
import inspect
import json
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs import PettingZooWrapper
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from werewolf_deception.agents.training.learner_seats import LearnerSeats
from werewolf_env.analysis.stats import wilson
from werewolf_env.envs.parallel import NO_ACTION
from werewolf_env.wrappers import parallel_discrete_env

try:  # torchrl >= 0.12
    from torchrl.collectors import Collector
except ImportError:  # torchrl 0.11
    from torchrl.collectors import SyncDataCollector as Collector

GROUP = "seats"
OBS = (GROUP, "observation", "observation")  # the Dict observation's vector (the mask moves to action_mask)
MASK = (GROUP, "action_mask")
ACTION = (GROUP, "action")
LOG_PROB = (GROUP, "action_log_prob")
LOGITS = (GROUP, "logits")
VALUE = (GROUP, "state_value")
ADVANTAGE = (GROUP, "advantage")
VALUE_TARGET = (GROUP, "value_target")
ACTION_KIND = (GROUP, "info", "action_kind")  # numeric_info: NO_ACTION for a seat without a turn
# TorchRL tests its PettingZoo wrapper against pettingzoo 1.24.3 and warns about any other version.
warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested using version")


def make_env(players: int, seed: int) -> PettingZooWrapper:
    """TorchRL's view of the game: one group with every seat (``[frames, seats, ...]`` tensors)."""
    base = parallel_discrete_env(num_players=players)  # numeric infos: TorchRL puts infos in tensors
    return PettingZooWrapper(
        base,
        group_map={GROUP: list(base.possible_agents)},
        use_mask=True,
        categorical_actions=True,
        seed=seed,
    )


def make_modules(env: PettingZooWrapper, hidden: int) -> tuple[ProbabilisticActor, TensorDictModule, nn.Module]:
    obs_size = env.observation_spec[OBS].shape[-1]
    num_actions = env.full_action_spec[ACTION].space.n
    net = MLP(in_features=obs_size, out_features=num_actions, num_cells=[hidden, hidden], activation_class=nn.Tanh)
    actor = ProbabilisticActor(
        TensorDictModule(net, in_keys=[OBS], out_keys=[LOGITS]),
        in_keys={"logits": LOGITS, "mask": MASK},
        out_keys=[ACTION],
        spec=env.full_action_spec[ACTION],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=LOG_PROB,
    )
    critic_net = MLP(in_features=obs_size, out_features=1, num_cells=[hidden, hidden], activation_class=nn.Tanh)
    critic = TensorDictModule(critic_net, in_keys=[OBS], out_keys=[VALUE])
    return actor, critic, net


def train(args: argparse.Namespace) -> tuple[nn.Module, dict[str, Any]]:
    env = make_env(args.players, args.seed)
    actor, critic, net = make_modules(env, args.hidden)
    options: dict[str, Any] = {"frames_per_batch": args.batch, "total_frames": args.frames, "device": "cpu"}
    if "auto_register_policy_transforms" in inspect.signature(Collector.__init__).parameters:  # torchrl >= 0.14
        options["auto_register_policy_transforms"] = False  # the policy is stateless: no InitTracker
    collector = Collector(env, actor, **options)
    keys = {
        "reward": (GROUP, "reward"),
        "done": (GROUP, "done"),
        "terminated": (GROUP, "terminated"),
        "value": VALUE,
        "advantage": ADVANTAGE,
        "value_target": VALUE_TARGET,
    }
    # The advantage is normalised per batch below, over the seats that had a turn.
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=args.entropy, normalize_advantage=False)
    loss.set_keys(action=ACTION, sample_log_prob=LOG_PROB, **keys)
    gae = GAE(gamma=args.gamma, lmbda=0.95, value_network=critic, average_gae=False)
    gae.set_keys(**keys)
    optimiser = torch.optim.Adam(loss.parameters(), lr=args.lr)

    frames = games = 0
    returns: list[float] = []
    for batch in collector:
        frames += batch.numel()
        ended = batch["next", "done"].squeeze(-1)
        games += int(ended.sum())
        if ended.any():
            returns.extend(batch["next", GROUP, "reward"][ended].flatten().tolist())
        with torch.no_grad():
            gae(batch)
            # An idle seat's only legal action is the no-op: log-probability 0, no policy gradient. Its
            # advantage is left out of the statistics (the critic still learns from every seat).
            advantage = batch[ADVANTAGE]
            acting = (batch[ACTION_KIND] != NO_ACTION).unsqueeze(-1)
            mean, std = advantage[acting].mean(), advantage[acting].std()
            batch[ADVANTAGE] = (advantage - mean) / (std + 1e-8)
        flat = batch.reshape(-1)
        for _ in range(args.epochs):
            for index in torch.randperm(flat.numel()).split(args.minibatch):
                values = loss(flat[index])
                total = values["loss_objective"] + values["loss_critic"] + values["loss_entropy"]
                optimiser.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                optimiser.step()
        collector.update_policy_weights_()
    collector.shutdown()
    env.close()
    # Self-play: the seats' end-of-game rewards sum to the winners minus the losers; shown for scale.
    return net, {"frames": frames, "games_finished": games, "seat_steps": frames * args.players}


def policy_player(net: nn.Module, rng: np.random.Generator) -> Callable[[dict[str, np.ndarray]], int]:
    """Sample from the trained masked policy (numpy's seeded generator, so evaluation is reproducible)."""

    def act(obs: dict[str, np.ndarray]) -> int:
        mask = obs["action_mask"] > 0
        with torch.no_grad():
            logits = net(torch.as_tensor(obs["observations"])).numpy().astype(np.float64)
        logits[~mask] = -np.inf
        probs = np.exp(logits - logits[mask].max())
        return int(rng.choice(probs.size, p=probs / probs.sum()))

    return act


def random_player(rng: np.random.Generator) -> Callable[[dict[str, np.ndarray]], int]:
    return lambda obs: int(rng.choice(np.flatnonzero(obs["action_mask"])))


def evaluate(act: Callable[[dict[str, np.ndarray]], int], lineup: str, games: int, players: int, seed: int) -> dict:
    """``act`` plays player_0 against ``lineup`` seats; wins = games its team won."""
    env = LearnerSeats({"num_players": players}, learners=["player_0"], lineup=lineup)
    wins = 0
    for game in range(games):
        env.reset(seed=seed + 1000 * game)  # spaced out: LearnerSeats may skip to the next seed
        reward = 0.0
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else act(obs))
        wins += reward > 0
    estimate = wilson(wins, games)
    return {"wins": wins, "games": games, "rate": estimate.value, "ci95": [estimate.low, estimate.high]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=600, help="env steps of self-play (each: every seat)")
    parser.add_argument("--batch", type=int, default=200, help="frames per PPO update")
    parser.add_argument("--minibatch", type=int, default=50, help="frames per gradient step")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--games", type=int, default=200, help="evaluation games per opponent lineup")
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="a few frames and 2 games per lineup (seconds)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.frames, args.batch, args.minibatch, args.epochs, args.games = 20, 10, 10, 1, 2

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # a small MLP: threads cost more than they give on a few cores
    started = time.perf_counter()
    net, trained = train(args)
    train_seconds = time.perf_counter() - started
    print(
        f"trained {trained['frames']} frames ({trained['seat_steps']} seat steps, "
        f"{trained['games_finished']} games finished) in {train_seconds:.1f} s"
    )

    results: dict[str, Any] = {"train": {**trained, "seconds": round(train_seconds, 1)}, "eval": {}}
    eval_started = time.perf_counter()
    eval_seed = 1_000_000 + args.seed  # games the training never saw
    for lineup in ("random", "heuristic"):
        for name, act in (
            ("trained", policy_player(net, np.random.default_rng(args.seed))),
            ("random_legal", random_player(np.random.default_rng(args.seed))),
        ):
            result = evaluate(act, lineup, args.games, args.players, eval_seed)
            results["eval"][f"{name}_vs_{lineup}"] = result
            low, high = result["ci95"]
            print(
                f"{name:>12} as player_0 vs {lineup:>9} seats: won {result['wins']}/{result['games']} "
                f"= {result['rate']:.1%} (95% CI {low:.1%}-{high:.1%})"
            )
    results["eval_seconds"] = round(time.perf_counter() - eval_started, 1)
    results["seconds"] = round(time.perf_counter() - started, 1)
    print(f"evaluation {results['eval_seconds']} s; total {results['seconds']} s")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
