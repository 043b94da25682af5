"""pytest's root configuration: the README's and the docs pages' code blocks are tests too, and a run can
list what it skipped (``.ci/run`` runs exactly those again once every extra is installed)."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["tests.doc_snippets"]
SKIPPED_OUT = "WEREWOLF_SKIPPED_OUT"  # a file: one node id a line, for each test or module this run skipped


def _note_skip(nodeid: str) -> None:
    out = os.environ.get(SKIPPED_OUT)
    if out:
        with open(out, "a", encoding="utf-8") as handle:
            handle.write(nodeid + "\n")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped:
        _note_skip(report.nodeid)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.skipped:
        _note_skip(report.nodeid)
