"""Secrets: which API keys a lineup may use, and URLs and texts cleaned of secrets before they are shown or stored.

    check_key_variable("OPENAI_API_KEY")          # the name, or ValueError: only *_API_KEY / *_TOKEN variables
    read_key("OPENAI_API_KEY", None)              # the key (a key file wins), or "not-needed" for local servers
    redact_url("http://u:pw@host/v1?key=abc")     # 'http://***@host/v1?key=***'
    redacted({"base_url": "http://u:pw@host/v1"}) # every URL in data redacted: for messages, reprs and run folders
    EndpointURL("http://u:pw@host/v1")            # a server's URL: .url is sent, str()/repr() show it redacted
    scrub("... ?key=abc ...", secrets=["abc"])    # '... ?key=*** ...'

A lineup decides where a seat's key is sent (``base_url``), so a lineup from someone else could
send any secret the user holds to any host. What it may name is limited here, in one place: an
environment variable whose name says it is a key (ends in ``_API_KEY`` or ``_TOKEN``), or a key
file: a small regular file holding one key (one line of key characters; never echoed). Secrets that
travel in a URL (``user:password@``, query values) are sent to the server but shown and stored
only as ``***``; every text from a client library is scrubbed of the known secrets before it is
logged, recorded or raised.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit, urlunsplit

NO_KEY = "not-needed"  # what local servers get when no key is set (they accept any)
MAX_KEY_FILE_BYTES = 4096  # keys and tokens (JWTs too) are far shorter; anything longer is not a key file
KEY_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*_(?:API_KEY|TOKEN)|API_KEY", re.IGNORECASE)
# One line of the characters keys and tokens are made of (base64, base64url, hex, JWT dots): a file
# that holds anything else (a PEM key, a credentials list, a URL with a password) is not sent.
_KEY_TEXT = re.compile(r"[A-Za-z0-9._~+/=-]+")
MIN_SCRUBBED_LENGTH = 4  # shorter secrets are removed from URLs and key=value pairs, not from free text
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
_QUERY_VALUE = re.compile(r"([?&][^=\s&#'\"<>]+=)[^\s&#'\"<>]+")
# A bearer token, or HTTP Basic credentials (base64 with a digit, + / or =: not the word "Basic authentication")
_AUTH_HEADER = re.compile(
    r"\b(Bearer)\s+[A-Za-z0-9._~+/=-]+|\b(Basic)\s+(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/]{6,}={0,2}"
)
_known_secrets: set[str] = set()  # every secret an endpoint of this process uses (for the log filter)


KEY_VARIABLE_HELP = "the environment variable holding the API key; its name must end in _API_KEY or _TOKEN"


def check_key_variable(name: str) -> str:
    """``name`` if a lineup may read it as an API key, else a ValueError naming it and the rule."""
    if not KEY_VARIABLE.fullmatch(name):
        raise ValueError(
            f"{name!r} is not an API key variable: api_key_env must name an environment variable ending in "
            "_API_KEY or _TOKEN (e.g. OPENAI_API_KEY), so that a lineup cannot send other variables to a server"
        )
    return name


def read_key_file(path: str | Path) -> str:
    """The key a key file holds, or a ValueError naming the file and what is wrong (never its content)."""
    shown = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the run; checked below
    try:
        fd = os.open(Path(path).expanduser(), flags)
    except OSError as exc:
        raise ValueError(f"cannot read the API key file {shown}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)  # the file opened, not whatever the path points at by now
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"the API key file {shown} is not a regular file")
        if info.st_size > MAX_KEY_FILE_BYTES:
            raise ValueError(f"the API key file {shown} is larger than {MAX_KEY_FILE_BYTES} bytes: not a key file")
        data = b""
        while len(data) <= MAX_KEY_FILE_BYTES and (chunk := os.read(fd, MAX_KEY_FILE_BYTES + 1 - len(data))):
            data += chunk  # the file may have grown since fstat: never read more than the limit and one byte
    except OSError as exc:
        raise ValueError(f"cannot read the API key file {shown}: {exc.strerror}") from None
    finally:
        os.close(fd)
    try:
        key = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        key = ""
    if len(data) > MAX_KEY_FILE_BYTES or not _KEY_TEXT.fullmatch(key):
        raise ValueError(
            f"the API key file {shown} does not hold one key (a single line of letters, digits and - _ . ~ + / =)"
        )
    return key


def read_key(env_name: str, key_file: str | None) -> str:
    """The key a seat sends: its key file's, else its variable's, else ``NO_KEY``."""
    if key_file:
        return read_key_file(key_file)
    return os.environ.get(check_key_variable(env_name)) or NO_KEY


def split_url(url: str) -> tuple[str, list[tuple[str, str]], str | None, str | None]:
    """(the URL without user info, query or fragment; its query pairs; user name; password)."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    plain = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    query = parse_qsl(parts.query, keep_blank_values=True)
    user, password = (None if s is None else unquote(s) for s in (parts.username, parts.password))
    return plain, query, user, password


def redact_url(url: str) -> str:
    """A URL fit for messages and logs: user info, every query value and the fragment shown as ``***``."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "<unparseable URL>"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address keeps its brackets
    netloc = ("***@" if "@" in parts.netloc else "") + host + (f":{port}" if port is not None else "")
    pairs = [pair for pair in re.split(r"[&;]", parts.query) if pair]
    query = "&".join(f"{pair.split('=', 1)[0]}=***" if "=" in pair else "***" for pair in pairs)
    return urlunsplit((parts.scheme, netloc, parts.path, query, "***" if parts.fragment else ""))


def redacted(data: Any) -> Any:
    """``data`` with every URL in it redacted (``redact_url``), through dicts, lists and tuples: what messages,
    reprs and run folders may show of options, lineups and manifests. The one place that decides what of a URL
    is shown."""
    if isinstance(data, dict):
        return {key: redacted(value) for key, value in data.items()}
    if isinstance(data, list):
        return [redacted(value) for value in data]
    if isinstance(data, tuple):
        return tuple(redacted(value) for value in data)
    if isinstance(data, str) and "://" in data:
        return redact_url(data)
    if isinstance(data, EndpointURL):
        return data.shown
    return data


@dataclass(frozen=True)
class EndpointURL:
    """An LLM server's base URL: sent as written (``url``), shown only redacted (``shown``, ``str()``, ``repr()``).
    The one value that holds it: connections, their breakers, transports and agents refer to it."""

    url: str = field(repr=False)

    @property
    def shown(self) -> str:
        return redact_url(self.url)

    def secrets(self) -> list[str]:
        """What in the URL is or may be secret (``url_secrets``): scrubbed from every text of its calls."""
        return url_secrets(self.url)

    def __str__(self) -> str:
        return self.shown

    def __repr__(self) -> str:
        return f"EndpointURL({self.shown!r})"


def url_secrets(url: str) -> list[str]:
    """The parts of ``url`` that are secrets or may be: its password and every query value, as written and decoded."""
    try:
        parts = urlsplit(url)
        _plain, query, _user, password = split_url(url)
    except ValueError:
        return []
    written = [parts.password or "", *(pair.partition("=")[2] or pair for pair in parts.query.split("&"))]
    decoded = [password or "", *(value or name for name, value in query)]  # a bare "?token" is a secret too
    return [value for value in dict.fromkeys([*written, *decoded]) if value]


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with URLs redacted, query values and auth headers masked, and ``secrets`` (as sent, encoded) gone."""
    text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    text = _QUERY_VALUE.sub(r"\1***", text)
    text = _AUTH_HEADER.sub(lambda m: f"{m.group(1) or m.group(2)} ***", text)
    forms = {
        form
        for secret in secrets
        if len(secret) >= MIN_SCRUBBED_LENGTH
        for form in (secret, quote(secret, safe=""), quote_plus(secret))
    }
    for form in sorted(forms, key=len, reverse=True):  # longest first: a secret inside another goes with it
        text = text.replace(form, "***")
    return text


class _ScrubSecrets(logging.Filter):
    """Client libraries log request URLs (httpx at INFO, openai at DEBUG): scrub them on the way out."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is the logging module's to report
            return True
        record.msg, record.args = scrub(message, _known_secrets), ()
        return True


_LOG_FILTER = _ScrubSecrets()
_CLIENT_LOGGERS = ("httpx", "httpcore", "openai")  # name prefixes (httpx2, openai._base_client, ...)


def register_secrets(secrets: Iterable[str]) -> None:
    """Remember secrets in use (in memory only) so that client library log lines never show them."""
    _known_secrets.update(s for s in secrets if len(s) >= MIN_SCRUBBED_LENGTH and s != NO_KEY)
    # A logger's filters see only its own records, not its children's: filter every client logger by name.
    names = [name for name in list(logging.root.manager.loggerDict) if name.startswith(_CLIENT_LOGGERS)]
    for name in {"httpx", "openai", *names}:
        logger = logging.getLogger(name)
        if _LOG_FILTER not in logger.filters:
            logger.addFilter(_LOG_FILTER)
