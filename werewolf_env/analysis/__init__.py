"""Figures over games with intervals: metrics, aggregates, suspicion, persuasion, coverage, rewards."""
