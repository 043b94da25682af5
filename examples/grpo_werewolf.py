"""GRPO with Hugging Face TRL on one seat of Werewolf, rewarded by the ground truth: win, detection or both.

The game's turns are the model's tools (``werewolf_deception.agents.training.trl_env``: TRL's ``environment_factory``);
the other seats are played inside the environment by heuristic agents. One dataset row per deal (its ``seed``): GRPO
plays each row ``num_generations`` times, so the completions of a group play the same deal and differ only by the
policy.

    pip install -e ".[train]"
    # two optimisation steps on CPU with a tiny random model and a tokenizer trained here (nothing downloaded):
    python examples/grpo_werewolf.py --smoke
    # a real run, on a GPU (Qwen3's chat template is one TRL parses tool calls from):
    python examples/grpo_werewolf.py --reward both --model Qwen/Qwen3-0.6B --steps 500 --output-dir runs/grpo

Rewards (``werewolf_env.analysis.rewards``): ``win`` (+1 / -1 for the seat's team), ``detection`` (a balanced Brier
skill of the seat's lie probabilities against the judge's labels: the base rate does not pay), ``both`` (win
plus detection / 2). The weighted reward trains; each component is logged too (``rewards/reward_<name>``).
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The repository root, for a checkout run without ``pip install -e``.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from werewolf_deception.agents.training.trl_env import (
    INSTRUCTIONS,
    WerewolfSeat,
    reward_component,
    reward_from_env,
    seat_environment,
)

WEIGHTS = {"win": {"win": 1.0}, "detection": {"detection": 1.0}, "both": {"win": 1.0, "detection": 0.5}}
PROMPT = "You are a careful, truthful player. Play your seat to the end of the game.\n\n"
GPU_MODEL = "Qwen/Qwen3-0.6B"
# The tiny model's chat tokens: Qwen3's, so that TRL's copy of Qwen3's chat template (which it knows how to parse
# tool calls from) renders and parses them.
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>",
                  "</tool_response>", "<think>", "</think>"]  # fmt: skip


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reward", choices=sorted(WEIGHTS), default="both", help="what the seat is trained for")
    parser.add_argument("--model", default=GPU_MODEL, help=f"a Hugging Face model id or folder (default {GPU_MODEL})")
    parser.add_argument("--smoke", action="store_true", help="2 steps on CPU, a tiny random model, no download")
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--deals", type=int, default=2048, help="dataset rows, one seed each")
    parser.add_argument("--steps", type=int, default=500, help="optimisation steps")
    parser.add_argument("--num-generations", type=int, default=8, help="completions per deal (the GRPO group)")
    parser.add_argument("--max-completion-length", type=int, default=8192, help="tokens for the whole episode")
    parser.add_argument("--learning-rate", type=float, default=1e-6)
    parser.add_argument("--output-dir", default="runs/grpo_werewolf")
    return parser.parse_args(argv)


def rows(deals: int) -> Any:
    """One row per deal: the prompt (the environment appends the seat's first observation) and its seed."""
    from datasets import Dataset

    return Dataset.from_list([{"prompt": [{"role": "user", "content": PROMPT}], "seed": seed} for seed in range(deals)])


def tiny_tokenizer(players: int) -> Any:
    """A byte-level BPE tokenizer trained here on the game's own text, with Qwen3's chat tokens and TRL's copy
    of Qwen3's chat template: TRL renders the tools with it and parses the model's tool calls back."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen3_chat_template

    seat = seat_environment({"num_players": players})()
    corpus = [INSTRUCTIONS, PROMPT, qwen3_chat_template]
    corpus += [seat.reset(seed=seed) for seed in range(4)]
    corpus += [method.__doc__ or "" for method in vars(WerewolfSeat).values() if callable(method)]  # the tools
    tokenizer = Tokenizer(models.BPE(unk_token=None))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1024, special_tokens=SPECIAL_TOKENS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(corpus, trainer)
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>", chat_template=qwen3_chat_template
    )
    wrapped.add_special_tokens({"additional_special_tokens": SPECIAL_TOKENS[3:]})
    return wrapped


def tiny_model(tokenizer: Any) -> Any:
    """A 2-layer Qwen3 with hidden size 64 and random weights (about 0.2M parameters)."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    config = Qwen3Config(
        vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=16384,
        tie_word_embeddings=True, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )  # fmt: skip
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def print_steps() -> Any:
    """A callback that prints one line per logged step: its loss and rewards."""
    from transformers import TrainerCallback

    class PrintSteps(TrainerCallback):  # type: ignore[misc]
        def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, float] | None = None, **_: Any) -> None:
            if not logs or "loss" not in logs:
                return
            rewards = " ".join(
                f"{key.split('/')[1]} {value:.3f}"
                for key, value in logs.items()
                if key.startswith("rewards/") and key.endswith("/mean")
            )
            print(f"step {state.global_step}: loss {logs['loss']:.4f} reward {logs['reward']:.3f} ({rewards})")

    return PrintSteps()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.smoke:
        os.environ["HF_HUB_OFFLINE"] = "1"  # before the Hugging Face libraries read it: nothing is downloaded
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory is marked experimental
    from trl import GRPOConfig, GRPOTrainer

    weights = WEIGHTS[args.reward]
    seat_class = seat_environment({"num_players": args.players}, lineup="heuristic", weights=weights)
    # The weighted reward trains; each of its components is computed for the logs only (weight 0).
    reward_funcs = [reward_from_env, *(reward_component(name) for name in weights)]
    common: dict[str, Any] = {
        "reward_weights": [1.0] + [0.0] * len(weights),
        "logging_steps": 1,
        "report_to": "none",
        "save_strategy": "no",
    }
    if args.smoke:
        tokenizer = tiny_tokenizer(args.players)
        model: Any = tiny_model(tokenizer)
        output_dir = tempfile.mkdtemp(prefix="grpo_werewolf_")  # nothing is saved: removed at exit
        atexit.register(shutil.rmtree, output_dir, ignore_errors=True)
        config = GRPOConfig(
            output_dir=output_dir, max_steps=2, per_device_train_batch_size=2, num_generations=2,
            max_completion_length=96, max_tool_calling_iterations=4, learning_rate=1e-3, use_cpu=True,
            bf16=False, disable_tqdm=True, **common,
        )  # fmt: skip
        train_rows = rows(4)
    else:
        tokenizer, model = None, args.model
        config = GRPOConfig(
            output_dir=args.output_dir, max_steps=args.steps, num_generations=args.num_generations,
            max_completion_length=args.max_completion_length, learning_rate=args.learning_rate, bf16=True, **common,
        )  # fmt: skip
        train_rows = rows(args.deals)
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        train_dataset=train_rows,
        environment_factory=seat_class,
        reward_funcs=reward_funcs,
        args=config,
        callbacks=[print_steps()],
    )
    started = time.monotonic()
    trainer.train()
    print(f"trained {trainer.state.global_step} steps in {time.monotonic() - started:.0f}s (reward: {args.reward})")
    if not args.smoke:
        trainer.save_model(args.output_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
