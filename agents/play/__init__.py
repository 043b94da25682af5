"""Playing games: lineups of policies and the runner."""
