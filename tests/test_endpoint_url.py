"""One value holds an LLM server's URL (``EndpointURL``) and one function redacts (``credentials.redacted``):
nothing else keeps a copy of the URL, and no repr, message or run-folder dump shows its secrets (issue 33)."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from werewolf_deception.agents.credentials import EndpointURL, redacted
from werewolf_deception.agents.llm.agent import LLMAgent
from werewolf_deception.agents.llm.endpoints import EndpointDownError, EndpointPool
from werewolf_deception.agents.llm.options import validate_options
from werewolf_deception.agents.play.lineup import lineup_from_data
from werewolf_deception.benchmarks.runs import folder as run_folder

SECRET = "s3cret-value"
URL = f"http://user:{SECRET}@127.0.0.1:9/v1?key={SECRET}"


def _strings(obj: Any) -> list[str]:
    """Every string attribute of ``obj`` (and in its lists and dicts), but inside an ``EndpointURL``."""
    found: list[str] = []
    for value in vars(obj).values():
        items = (
            value if isinstance(value, (list, tuple)) else list(value.values()) if isinstance(value, dict) else [value]
        )
        found += [item for item in items if isinstance(item, str)]
    return found


@settings(max_examples=200, deadline=None)
@given(secret=st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=4, max_size=16))
def test_an_endpoint_url_never_shows_its_secrets(secret: str) -> None:
    encoded = quote(secret, safe="")
    # A secret that is a piece of what is shown anyway ("http", "8443", "***") cannot be told from a leak.
    assume(encoded not in "https://me:***@api.example.org:8443/v1?key=***&other=***: x")
    url = EndpointURL(f"https://me:{encoded}@api.example.org:8443/v1?key={encoded}&other=1")
    assert url.url.startswith("https://me:")  # sent as written
    for shown in (
        str(url),
        repr(url),
        f"{url}",
        url.shown,
        str(redacted({"a": [url]})),
        str(EndpointDownError(url, "x")),
    ):
        assert encoded not in shown and "api.example.org:8443/v1" in shown


def test_the_url_lives_in_one_value_and_every_view_of_it_is_redacted() -> None:
    async def check() -> None:
        pool = EndpointPool()
        agent = LLMAgent(model="m", base_url=URL, pool=pool)
        connection = agent.connection
        assert connection is not None and agent.endpoint is not None
        assert (
            agent.endpoint is connection.url is agent.transport.endpoint
            and connection.circuit.endpoint is connection.url
        )
        assert connection.url.url == URL  # the one place the URL is kept as written
        for shown in (agent.base_url, str(agent.endpoint), repr(agent), repr(connection), agent.transport.shown):
            assert SECRET not in shown and "127.0.0.1:9/v1" in shown
        for holder in (agent, agent.transport, connection, connection.circuit):
            assert not [text for text in _strings(holder) if URL in text], type(holder).__name__
        assert pool.limit(agent.endpoint) is pool.limit(URL)  # the concurrency cap: one per server
        await pool.aclose()

    asyncio.run(check())


def test_one_function_redacts_options_lineups_and_run_folders() -> None:
    assert run_folder.redact_urls is redacted
    proxy = {"proxy": URL}
    options = validate_options({"model": "m", "base_url": URL, "extra_body": proxy})
    spec = {"kind": "llm", "model": "m", "base_url": URL, "extra_body": proxy}
    lineup = lineup_from_data({"default": spec})
    for shown in (repr(options), repr(lineup.default), str(lineup.default.public_dump()), str(lineup.public_dump())):
        assert SECRET not in shown and "127.0.0.1:9/v1" in shown


def test_redacted_goes_through_tuples_too() -> None:
    """A URL inside a tuple (a repr's arguments, a pair of endpoints) is as redacted as one in a list."""
    data = {"pair": (URL, [URL]), "url": EndpointURL(URL), "n": 3}
    shown = redacted(data)
    assert SECRET not in str(shown) and isinstance(shown["pair"], tuple) and shown["n"] == 3
    assert shown["pair"][0] == shown["url"] == EndpointURL(URL).shown
