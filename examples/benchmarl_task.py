"""Werewolf as a BenchMARL task: ``WerewolfTask.WEREWOLF.get_task(config={...})``, then any BenchMARL
algorithm with discrete actions (MAPPO, IPPO, MASAC, QMIX, ...).

    pip install benchmarl        # in its own virtual environment: see below
    python examples/benchmarl_task.py --frames 2000          # a short MAPPO run (CPU)

Or from your own script:

    from benchmarl.algorithms import MappoConfig
    from benchmarl.experiment import Experiment, ExperimentConfig
    from benchmarl.models.mlp import MlpConfig
    from examples.benchmarl_task import WerewolfTask

    task = WerewolfTask.WEREWOLF.get_task(config={"num_players": 8})
    Experiment(task=task, algorithm_config=MappoConfig.get_from_yaml(), model_config=MlpConfig.get_from_yaml(),
               critic_model_config=MlpConfig.get_from_yaml(), seed=0, config=ExperimentConfig.get_from_yaml()).run()

The env is the one ``examples/torchrl_ppo.py`` trains on: ``parallel_discrete_env`` (the numeric parallel
env: ``Discrete`` actions, an ``action_mask``, numeric infos, no text) behind TorchRL's
``PettingZooWrapper`` with every seat in one group, ``"seats"``. BenchMARL reads the groups' ``observation``
(the numeric vector), ``action_mask`` (BenchMARL's masked policies keep to legal actions; a seat without
a turn may only send the no-op), ``info`` (the four numeric info keys) and the global ``state``
(``return_state=True``: every hidden role, for centralised critics such as MAPPO's). The config is the
game's keywords (``werewolf_env.parallel_env``) plus ``max_steps`` (evaluation rollouts' cap; a default
game takes about 75 steps).

Tested with BenchMARL 1.5.2, which pins torchrl 0.11.1 and tensordict 0.11.0 (older than the versions the
'rl' extra installs) and pulls torchvision: install it in a virtual environment of its own, with the
machine's CPU torch first, so pip keeps that torch::

    python -m venv .venv-benchmarl && . .venv-benchmarl/bin/activate
    pip install --find-links /opt/wheels "torch==2.13.0"     # or your CPU torch
    pip install -e . benchmarl                                # constrain torch if pip wants to move it
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarl.environments.common import Task, TaskClass
from torchrl.data import Composite
from torchrl.envs import EnvBase, PettingZooWrapper

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from a checkout

from werewolf_env.wrappers import parallel_discrete_env

GROUP = "seats"


class WerewolfTaskClass(TaskClass):
    """BenchMARL's constructor of Werewolf envs (``self.config``: game keywords and ``max_steps``)."""

    def get_env_fun(
        self, num_envs: int, continuous_actions: bool, seed: int | None, device: Any
    ) -> Callable[[], EnvBase]:
        game = copy.deepcopy(self.config)
        game.pop("max_steps", None)

        def make() -> EnvBase:
            base = parallel_discrete_env(**game)
            return PettingZooWrapper(
                base,
                group_map={GROUP: list(base.possible_agents)},
                categorical_actions=True,
                seed=seed,
                device=device,
                return_state=True,
            )

        return make  # BenchMARL batches it (SerialEnv / ParallelEnv) for num_envs > 1

    def supports_continuous_actions(self) -> bool:
        return False

    def supports_discrete_actions(self) -> bool:
        return True

    def has_state(self) -> bool:
        return True

    def has_render(self, env: EnvBase) -> bool:
        return False  # the env renders text (render_mode="ansi"), not frames

    def max_steps(self, env: EnvBase) -> int:
        return int(self.config.get("max_steps", 500))

    def group_map(self, env: EnvBase) -> dict[str, list[str]]:
        return env.group_map

    def _only(self, env: EnvBase, keep: str) -> Composite | None:
        spec = env.observation_spec.clone()
        for group in self.group_map(env):
            for key in list(spec[group].keys()):
                if key != keep:
                    del spec[group][key]
            if spec[group].is_empty():
                del spec[group]
        if "state" in spec.keys():
            del spec["state"]
        return None if spec.is_empty() else spec

    def observation_spec(self, env: EnvBase) -> Composite:
        spec = self._only(env, "observation")
        assert spec is not None
        return spec

    def action_mask_spec(self, env: EnvBase) -> Composite | None:
        return self._only(env, "action_mask")

    def info_spec(self, env: EnvBase) -> Composite | None:
        return self._only(env, "info")

    def state_spec(self, env: EnvBase) -> Composite | None:
        return Composite({"state": env.observation_spec["state"].clone()})

    def action_spec(self, env: EnvBase) -> Composite:
        return env.full_action_spec

    @staticmethod
    def env_name() -> str:
        return "werewolf"


class WerewolfTask(Task):
    """The Werewolf tasks (one: the config picks the table)."""

    WEREWOLF = None

    @staticmethod
    def associated_class() -> type[TaskClass]:
        return WerewolfTaskClass


def main(argv: list[str] | None = None) -> int:
    from benchmarl.algorithms import MappoConfig
    from benchmarl.experiment import Experiment, ExperimentConfig
    from benchmarl.models.mlp import MlpConfig

    parser = argparse.ArgumentParser(description="A short BenchMARL MAPPO run on Werewolf (CPU).")
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=500, help="frames collected per iteration")
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="BenchMARL's save folder (default: a temp dir)")
    args = parser.parse_args(argv)

    out = args.out or Path(tempfile.mkdtemp(prefix="benchmarl-werewolf-"))
    out.mkdir(parents=True, exist_ok=True)
    config = ExperimentConfig.get_from_yaml()
    config.max_n_frames = args.frames
    config.on_policy_collected_frames_per_batch = args.batch
    config.on_policy_n_envs_per_worker = 1
    config.on_policy_minibatch_size = min(100, args.batch)
    config.on_policy_n_minibatch_iters = 4
    config.lr = 3e-4
    config.evaluation = True
    config.evaluation_interval = args.frames  # one evaluation, at the end
    config.evaluation_episodes = 2
    config.render = False
    config.loggers = ["csv"]
    config.create_json = True
    config.save_folder = str(out)
    config.checkpoint_interval = 0
    config.checkpoint_at_end = False

    task = WerewolfTask.WEREWOLF.get_task(config={"num_players": args.players})
    experiment = Experiment(
        task=task,
        algorithm_config=MappoConfig.get_from_yaml(),
        model_config=MlpConfig.get_from_yaml(),
        critic_model_config=MlpConfig.get_from_yaml(),
        seed=args.seed,
        config=config,
    )
    started = time.perf_counter()
    experiment.run()
    print(
        f"BenchMARL MAPPO: {experiment.total_frames} frames in {time.perf_counter() - started:.1f} s; "
        f"logs in {experiment.folder_name}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
