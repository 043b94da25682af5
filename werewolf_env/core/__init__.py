"""The game's facts, the lowest floor: roles, configuration, state, names, untrusted input, visibility, the phase
graph and the version."""
