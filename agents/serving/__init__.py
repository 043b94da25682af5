"""Talking to OpenAI-compatible servers: endpoints, transport, backpressure, credentials, preflight, and the
local llama.cpp server."""
