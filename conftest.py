"""pytest's root configuration: the README's and the docs pages' code blocks are tests too, and a run can
list what it skipped (``.ci/run`` runs exactly those again once every extra is installed)."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["tests.doc_snippets"]
# A file: for each test or module this run skipped, its node id and the reason, tab-separated, a line each.
SKIPPED_OUT = "WEREWOLF_SKIPPED_OUT"


def _note_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    out = os.environ.get(SKIPPED_OUT)
    if out and report.skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        with open(out, "a", encoding="utf-8") as handle:
            handle.write(f"{report.nodeid}\t{' '.join(str(reason).split())}\n")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _note_skip(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _note_skip(report)
