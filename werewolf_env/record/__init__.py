"""One game's deception record, built from its events: statements, labels, persuasion, tokens, transcript."""
