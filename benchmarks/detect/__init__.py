"""Deception detectors and their evaluation (``werewolf-bench detect-eval``)."""
