"""The fake OpenAI-compatible server for tests and offline runs: its server, answers and faults."""
