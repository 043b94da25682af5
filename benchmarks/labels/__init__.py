"""Claim labelling: labelers, the labelled transcripts, the claim reader's evaluation, relabel and rescore."""
