"""Speed and cost scripts (each prints JSON): engine, claim reader, counterfactuals, tournaments, LLM concurrency."""
