"""The game's facts, the lowest floor: roles, configuration, state, names, untrusted input, visibility and the
version."""
