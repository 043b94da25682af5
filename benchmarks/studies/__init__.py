"""Small studies, each a script: role balance, heuristic win rates, the bundled model, friction."""
