"""The benchmark layer: the ``werewolf-bench`` CLI, runs, reports, detectors, labels, exports, integrations."""

from __future__ import annotations
