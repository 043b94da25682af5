"""What every command shares with the terminal: exit codes, option values, the LLM seats' flags, progress bars,
the summary text and the messages of refused writes."""
