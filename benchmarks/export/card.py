"""The dataset card (``README.md``) of ``werewolf-bench export``: Hugging Face YAML front matter and a body.

The front matter declares one config per table (``statements``, the default, and ``games``), so
``datasets.load_dataset(DIR, "games")`` loads a table by name; the body names every feature (from
``export_schema``, the same lists the files are written from), how the data was made (project, version,
commit, runs, configs, models) and leaves the licence to the publisher: the card's licence fields are the Hub's
for a licence of its own (``license: other`` with ``license_name`` and ``license_link``, here ``LICENSE.md``,
``licence_text``) until the publisher puts an id such as ``cc-by-4.0`` in ``license``.
"""

from __future__ import annotations

import json
from typing import Any

from werewolf_deception.benchmarks.export.schema import HIDDEN_PREFIX, STRUCTS, TABLES

PROJECT = "werewolf-deception"
LICENSE_NAME = f"{PROJECT}-export-unlicensed"


def _cell(text: Any) -> str:
    """Text fit for a Markdown table cell: one line, no column breaks."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _front_matter(fmt: str) -> list[str]:
    lines = [
        "---",
        "# The data's licence is the publisher's choice: replace these three lines by one like `license: cc-by-4.0`.",
        "license: other",
        f"license_name: {LICENSE_NAME}",
        "license_link: LICENSE.md",
        f"pretty_name: {PROJECT} games and statements",
        "tags:", "- werewolf", "- deception", "- multi-agent", "- llm-evaluation",
        "task_categories:", "- text-classification",
        "configs:",
    ]  # fmt: skip
    for i, table in enumerate(TABLES):
        lines += [f"- config_name: {table}"] + (["  default: true"] if i == 0 else [])
        lines += ["  data_files:", "  - split: train", f"    path: {table}/*.{fmt}"]
    return [*lines, "---", ""]


def _features(table: str) -> list[str]:
    lines = ["| column | type | meaning |", "|---|---|---|"]
    for name, kind, meaning in TABLES[table]:
        lines.append(f"| `{name}` | `{kind}` | {_cell(meaning)} |")
    return lines


def _structs() -> list[str]:
    lines: list[str] = []
    for struct, fields in STRUCTS.items():
        lines += ["", f"`{struct}` (a struct):", "", "| field | type | meaning |", "|---|---|---|"]
        lines += [f"| `{name}` | `{kind}` | {_cell(meaning)} |" for name, kind, meaning in fields]
    return lines


def _provenance(summary: dict[str, Any]) -> list[str]:
    commit = summary.get("exporter_git_commit") or "unknown (not run from a git checkout)"
    lines = [
        f"- Project: {PROJECT} (the LLM Werewolf deception benchmark), exported with version "
        f"{summary['exporter_version']}, commit `{commit}`, on {summary['created']}.",
        f"- {summary['games']} games and {summary['statements']} statements from {len(summary['runs'])} run(s):",
        "",
        "| run_id | kind | games | unfinished left out | version | commit | models | created |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run in summary["runs"]:
        models = ", ".join(run["models"]) or "none (model-free policies)"
        lines.append(
            f"| `{_cell(run['run_id'])}` | {_cell(run['kind'])} | {run['games']} | {run['unfinished_left_out']} | "
            f"{_cell(run['package_version'])} | `{_cell(run['git_commit'] or 'unknown')}` | {_cell(models)} | "
            f"{_cell(run['created'])} |"
        )
    lines += [
        "",
        "Lineups and game configs per run (as the run's `manifest.json` and logs give them; URLs redacted, "
        "no API keys):",
        "",
    ]
    for run in summary["runs"]:
        detail = {"lineup": run["lineup"], "configs": run["configs"]}
        lines += [f"`{_cell(run['run_id'])}`:", "", "```json", json.dumps(detail, indent=1), "```", ""]
    return lines


def dataset_card(summary: dict[str, Any]) -> str:
    """The card for an export ``summary`` (what ``export.json`` holds)."""
    fmt = summary["format"]
    loader = "parquet" if fmt == "parquet" else "json"
    body = [
        f"# {PROJECT}: Werewolf games and statements with ground-truth deception labels",
        "",
        "Games of Werewolf played by language models and/or scripted agents in the "
        f"[{PROJECT}](https://pypi.org/project/{PROJECT}/) benchmark, which measures deception against the "
        "game's ground truth: every public statement is read into claims (\"I am the seer\", \"Bob is a "
        "werewolf\"), each claim is checked against the true state and what the speaker knew, and a statement "
        "resting on a claim its speaker knew to be false is a lie (fabrication, misdirection or distortion). "
        "Each speaker also analysed its own statement, and every other living player analysed it and reported "
        "a suspicion of the speaker.",
        "",
        "## Tables",
        "",
        f"- `statements` ({summary['statements']} rows; `{summary['files']['statements']}`): one row per "
        "public statement.",
        f"- `games` ({summary['games']} rows; `{summary['files']['games']}`): one row per finished game.",
        "",
        "They join on `game_id` (unique over this dataset and opaque: `run_id/` and a hash of the log's name).",
        "",
        "```python",
        "from datasets import load_dataset",
        'statements = load_dataset("path/to/this/folder", "statements", split="train")',
        'games = load_dataset("path/to/this/folder", "games", split="train")',
        f'# the generic loader reads the default table: load_dataset("{loader}", data_dir="path/to/this/folder")',
        f'# and another from its folder: load_dataset("{loader}", data_dir="path/to/this/folder/games")',
        "import pandas as pd",
        f'df = pd.read_{"parquet" if fmt == "parquet" else "json"}("path/to/this/folder/'
        f'{summary["files"]["statements"]}"{"" if fmt == "parquet" else ", lines=True"})',
        "```",
        "",
        "## Hidden information",
        "",
        f"Every column that holds what a player at the table did not see starts with `{HIDDEN_PREFIX}`, and no "
        "other column holds such information: roles and teams, the lie labels and the truth of each claim, "
        "the self and peer analyses and suspicion scores, who played each seat (a lineup may give each role "
        "or team its own policy or model, so a seat's policy can tell its team) and whether a seat's answer "
        f"was replaced by a fallback. Drop every `{HIDDEN_PREFIX}*` column to get the games as the players "
        "followed them (names, public speech, the claims read from it, the outcome) plus run metadata. "
        "The seed is hidden too (`hidden_seed`; the log's name, `hidden_log`, holds it): with the game's config "
        "it determines the deal (the engine is deterministic).",
        "",
        "Fallbacks: when an agent's answer was unusable, the environment substituted its conservative "
        "default; such a statement or analysis is flagged (`hidden_statement_fallback`, `hidden_self_fallback`, "
        "`fallback` in `hidden_peer_analyses`): the replaced fields are the environment's, not the agent's (an "
        "analysis with any field replaced is no prediction of the agent). "
        "`hidden_mean_peer_suspicion` and `hidden_peers_answered` count the answered peer analyses only.",
        "",
        "## Features",
        "",
        "### `statements`",
        "",
        *_features("statements"),
        "",
        "### `games`",
        "",
        *_features("games"),
        *_structs(),
        "",
        "## How the data was produced",
        "",
        *_provenance(summary),
        "The lie labels are the logs' own ground truth (the deterministic claim reader and judge of the "
        "version that played the games). Reproduce a game with `werewolf-bench replay`; rebuild this dataset "
        "with `werewolf-bench export RUN ... --out DIR`.",
        "",
        "## License",
        "",
        "To be chosen by the publisher (`LICENSE.md` and the `license` fields above). The benchmark's code is MIT; "
        "statements written by language models may be subject to their providers' terms.",
        "",
    ]  # fmt: skip
    return "\n".join(_front_matter(fmt) + body)


def licence_text() -> str:
    """``LICENSE.md`` of an export: the card's ``license_link`` until the publisher chooses a licence."""
    return (
        f"# Licence: not chosen yet ({LICENSE_NAME})\n\n"
        f"This dataset was exported by {PROJECT}; whoever publishes it chooses its licence, and should replace this "
        "file and the card's `license`, `license_name` and `license_link` fields (for example by `license: "
        "cc-by-4.0`). Until then no licence is granted. The benchmark's code is MIT; statements written by "
        "language models may be subject to their providers' terms.\n"
    )
