"""The PettingZoo environments: AEC, Parallel, and the privileged global state."""
