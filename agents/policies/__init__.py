"""The policies that need no server: the interface, heuristic, random and human."""
