"""Where the shared data sets are found: the LLM transcripts corpus and the Diplomacy lies (Peskov et al. 2020).

They are not shipped with the package (their licences and size). Commands that read them take a path option
(``--corpus``, ``--data-dir``); without one, the folder named by the environment variable
``WEREWOLF_SHARED_DATA`` holds them, else ``../shared/data`` beside a source checkout of the project.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "WEREWOLF_SHARED_DATA"
# A source checkout's sibling folder: ``<checkout>/../shared/data`` (this file is <checkout>/benchmarks/…).
_CHECKOUT_SIBLING = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared_data_dir() -> Path:
    """The folder of the shared data sets: ``$WEREWOLF_SHARED_DATA`` when set, else ``../shared/data``."""
    configured = os.environ.get(ENV_VAR, "").strip()
    return Path(configured).expanduser() if configured else _CHECKOUT_SIBLING


def transcripts_corpus() -> Path:
    """The LLM Werewolf / Mafia transcripts corpus (``games.jsonl``, the labelled samples)."""
    return shared_data_dir() / "llm_werewolf_transcripts"


def diplomacy_dir() -> Path:
    """The Diplomacy lies of Peskov et al. (2020): ``train.jsonl`` and ``validation.jsonl``."""
    return shared_data_dir() / "diplomacy_peskov2020"
