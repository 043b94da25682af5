"""``examples/grpo_werewolf.py`` with the 'train' extra (TRL): its locally made tokenizer is one TRL parses tool
calls from, and ``--smoke`` trains two GRPO steps on CPU offline (skipped without TRL, except in CI)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "grpo_werewolf.py"


def _example() -> ModuleType:
    pytest.importorskip("trl", reason="needs the 'train' extra (trl, transformers, datasets, accelerate)")
    spec = importlib.util.spec_from_file_location("grpo_werewolf", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tiny_tokenizer_renders_and_parses_tool_calls() -> None:
    example = _example()
    from trl.chat_template_utils import add_response_schema, supports_tool_calling

    tokenizer = add_response_schema(example.tiny_tokenizer(7))  # raises on a template TRL does not know
    assert supports_tool_calling(tokenizer)
    call = '<tool_call>\n{"name": "bid", "arguments": {"amount": 4}}\n</tool_call><|im_end|>'
    parsed = tokenizer.parse_response(
        tokenizer.encode(call, add_special_tokens=False),
        prefix=tokenizer.encode("<|im_start|>assistant\n", add_special_tokens=False),
    )
    assert parsed["tool_calls"] == [{"type": "function", "function": {"name": "bid", "arguments": {"amount": 4}}}]


def test_smoke_trains_two_steps_offline(tmp_path: Path) -> None:
    """--smoke: two optimisation steps with a tiny random model, with the hub offline and an empty cache (so
    nothing could have come from a download), each step's loss and reward printed; its scratch output folder
    is removed after."""
    _example()
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"), "TRANSFORMERS_OFFLINE": "1"}
    env["TMPDIR"] = str(tmp_path / "tmp")
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--smoke", "--reward", "both"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    steps = re.findall(r"^step (\d+): loss (-?[\d.]+) reward (-?[\d.]+) \(.*reward_detection", done.stdout, re.M)
    assert [step for step, _, _ in steps] == ["1", "2"], done.stdout[-3000:]
    assert "trained 2 steps" in done.stdout
    assert not (tmp_path / "hf" / "hub").exists()  # nothing was fetched into the (empty) cache
    assert not list((tmp_path / "tmp").glob("grpo_werewolf_*"))
