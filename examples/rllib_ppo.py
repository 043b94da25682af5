"""Train a PPO policy for one seat with RLlib, against heuristic opponents.

    pip install -e ".[rllib]"          # ray[rllib] and torch (CPU)
    python examples/rllib_ppo.py --iterations 30 --out runs/rllib-ppo
    python examples/rllib_ppo.py --iterations 1 --batch 256      # a smoke run (what CI does)

The env is ``werewolf_deception.agents.training.learner_seats.LearnerSeats`` (seat ``player_0`` learns, the other seats
are ``HeuristicAgent``s; the seat's role follows the seed, so the policy plays every role) behind RLlib's own PettingZoo
wrapper, ``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``. Actions are the ``DiscreteActions`` variant; RLlib's
action-masking module keeps the policy to legal actions. Reward: +1 for a win, -1 for a loss, 0 on truncation, at the
end of each game.

Prints one JSON line per iteration (mean return, episodes, steps, seconds) and writes them to
``OUT/learning_curve.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any


def make_env(env_config: dict[str, Any]) -> Any:
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from werewolf_deception.agents.training.learner_seats import LearnerSeats

    return PettingZooEnv(LearnerSeats(env_config.get("game", {}), learners=["player_0"], lineup="heuristic"))


def build(batch: int, seed: int, players: int) -> Any:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env("werewolf_learner_seat", make_env)
    config = (
        PPOConfig()
        .environment("werewolf_learner_seat", env_config={"game": {"num_players": players}})
        .multi_agent(policies={"learner"}, policy_mapping_fn=lambda agent_id, *args, **kwargs: "learner")
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "learner": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"head_fcnet_hiddens": [64, 64], "head_fcnet_activation": "relu"},
                    )
                }
            )
        )
        .env_runners(num_env_runners=0, rollout_fragment_length="auto")
        .training(train_batch_size_per_learner=batch, minibatch_size=min(128, batch), num_epochs=4, lr=3e-4, gamma=0.99)
        .debugging(seed=seed)
    )
    return config.build_algo()


def _number(value: Any) -> float | None:
    """RLlib's figures come as numpy scalars (or are missing before the first episode ends)."""
    return None if value is None else round(float(value), 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--batch", type=int, default=1024, help="env steps per training batch")
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/rllib-ppo"))
    args = parser.parse_args(argv)

    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    curve = []
    try:
        algo = build(args.batch, args.seed, args.players)
        started = time.perf_counter()
        for iteration in range(1, args.iterations + 1):
            result = algo.train()
            runners = result.get("env_runners", {})
            point = {
                "iteration": iteration,
                "episode_return_mean": _number(runners.get("episode_return_mean")),
                "episodes": _number(runners.get("num_episodes")),
                "env_steps": _number(runners.get("num_env_steps_sampled_lifetime")),
                "seconds": round(time.perf_counter() - started, 1),
            }
            curve.append(point)
            print(json.dumps(point), flush=True)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "learning_curve.json").write_text(json.dumps(curve, indent=1) + "\n")
        algo.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
