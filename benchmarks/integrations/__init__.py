"""Integrations with other frameworks: the Inspect tasks, scorers, models and registry."""
