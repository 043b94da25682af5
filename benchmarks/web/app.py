"""The ASGI app of ``werewolf-bench serve`` (Starlette): pages for the host and for each person's seat.

Routes:

* ``GET /``: a form that sets a game up (in a study: the consent page; accepting it starts a game of one's own);
* ``POST /tables``: a new table; redirects to its host page, ``GET /host/<host token>``, which lists one invite
  link per person and the game's state (``POST /host/<host token>/start`` starts it before everyone has come);
* ``GET /seat/<token>``: a seat's page (opening it joins the game); its script reads
  ``GET /api/seat/<token>`` (the seat's view as JSON), follows ``GET /api/seat/<token>/stream`` (the same view
  as server-sent events, sent whenever it changes) and answers with ``POST /api/seat/<token>/answer``
  (``{"turn": <number>, "answer": <JSON object or shorthand text>}``).

A token is the only key to a seat: an unknown one is a 404, whatever the route. An answer for a turn that is over
(a replayed or stale request) is refused with 409, one that is not valid for the open turn with 422 and the reason.
Every response says no-store and sends no referrer, so a seat's link stays in the address bar it was typed in; the
pages load no script or style from elsewhere, and put every player's text in the page as text, never as markup.
"""

from __future__ import annotations

import asyncio
import html
import json
import secrets
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from werewolf_deception.benchmarks.console import game_config_of
from werewolf_deception.benchmarks.web.seat import AnswerRefusedError
from werewolf_deception.benchmarks.web.table import Host, Table, TooManyTablesError
from werewolf_env.core import MAX_PLAYERS, MIN_PLAYERS, loads_bounded

MAX_DEPTH = 8  # an answer nests two or three levels; a deeper one is refused before it is read further
MAX_BODY = 64 * 1024  # an answer is a few hundred bytes; anything far larger is refused before it is parsed
KEEPALIVE = 15.0  # seconds between a stream's keep-alive comments when nothing changes
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
}
STATIC = {"seat.js": "text/javascript", "seat.css": "text/css"}


def web_app(host: Host) -> Starlette:
    """The app serving ``host``'s tables."""

    def page(title: str, body: str, status: int = 200, refresh: int | None = None) -> HTMLResponse:
        meta = f'<meta http-equiv="refresh" content="{refresh}">' if refresh else ""
        return HTMLResponse(
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"{meta}<title>{html.escape(title)}</title><link rel='icon' href='data:,'>"
            "<link rel='stylesheet' href='/static/seat.css'></head>"
            f"<body><main class='narrow'><h1>{html.escape(title)}</h1>{body}</main></body></html>",
            status_code=status,
            headers=HEADERS,
        )

    def not_found() -> Response:
        return page("Not found", "<p>No game has this link. Ask the host for yours.</p>", status=404)

    async def index(request: Request) -> Response:
        if host.study is not None:
            return page(
                "Werewolf: a study",
                f"<p class='consent'>{html.escape(host.study.consent)}</p>"
                "<form method='post' action='/study'><label><input type='checkbox' name='consent' value='yes' "
                "required> I have read this and agree to take part.</label>"
                "<p><button type='submit'>Start my game</button></p></form>",
            )
        config = host.config
        return page(
            "Werewolf: host a game",
            "<form method='post' action='/tables' class='setup'>"
            f"<label>Players <input type='number' name='players' min='{MIN_PLAYERS}' max='{MAX_PLAYERS}' "
            f"value='{config.num_players}'></label>"
            f"<label>People (the first seats; agents play the rest) <input type='number' name='people' min='1' "
            f"max='{MAX_PLAYERS}' value='{host.humans}'></label>"
            f"<label>Seconds per turn (0: no clock) <input type='number' name='clock' min='0' max='3600' "
            f"value='{int(host.clock or 0)}'></label>"
            f"<p>Agents: {html.escape(host.lineup.default.label())}</p>"
            "<p><button type='submit'>Create the game</button></p></form>",
        )

    async def create_table(request: Request) -> Response:
        if not same_origin(request):
            return page("Refused", "<p>Games are set up from this server's own page.</p>", 403)
        if host.study is not None:
            return page("Not here", "<p>In a study each participant starts from the consent page.</p>", 403)
        form = await _form(request)
        try:
            players = int(str(form.get("players", host.config.num_players)))
            people = int(str(form.get("people", host.humans)))
            clock = float(str(form.get("clock", host.clock or 0)))
            if not 0 <= clock <= 3600:
                raise ValueError("seconds per turn: 0 to 3600")
            config = host.config if players == host.config.num_players else game_config_of({"num_players": players})
            table = host.new_table(config, people, clock)
        except TooManyTablesError as exc:
            return page("Busy", f"<p>{html.escape(str(exc))}.</p>", 503)
        except ValueError as exc:
            return page("Cannot create that game", f"<p>{html.escape(str(exc))}</p><p><a href='/'>Back</a></p>", 400)
        return RedirectResponse(f"/host/{table.host_token}", status_code=303, headers=HEADERS)

    async def start_study(request: Request) -> Response:
        if host.study is None:
            return not_found()
        if not same_origin(request):
            return page("Refused", "<p>A study starts from this server's own page.</p>", 403)
        form = await _form(request)
        if form.get("consent") != "yes":
            return page("Consent needed", "<p>The game starts once you agree. <a href='/'>Back</a></p>", 400)
        try:
            table = host.new_table(humans=1, study=True)
        except TooManyTablesError as exc:
            return page("Busy", f"<p>{html.escape(str(exc))}.</p>", 503)
        token = next(iter(table.seats))
        table.join(token, participant=secrets.token_hex(8))
        return RedirectResponse(f"/seat/{token}", status_code=303, headers=HEADERS)

    async def host_page(request: Request) -> Response:
        table = host.table_of_host(request.path_params["token"])
        if table is None:
            return not_found()
        base = str(request.base_url).rstrip("/")
        names = table.config.player_names()
        rows = "".join(
            f"<li><span class='who'>{html.escape(names[int(seat.agent.rsplit('_', 1)[1])])} "
            f"({html.escape(seat.agent)})</span> "
            f"<a class='invite' href='/seat/{seat.token}'>{html.escape(base)}/seat/{seat.token}</a> "
            f"<span class='joined'>{'joined' if seat.joined else 'not joined yet'}</span></li>"
            for seat in table.seats.values()
        )
        state = {
            "waiting": "Waiting for everyone to open their link; the game starts when all have.",
            "playing": "The game is on.",
            "over": "The game is over.",
            "failed": table.error or "The game stopped.",
            "stopped": "The server stopped before the game ended.",
            "expired": "Nobody started this game in time: its links have expired.",
        }[table.state]
        where = f"<p>Log: <code>{html.escape(str(table.log_path))}</code></p>" if table.log_path else ""
        if table.state == "waiting":  # start without those who have not come: their turns wait for them (the clock)
            where += (
                f"<form method='post' action='/host/{table.host_token}/start'><button type='submit'>Start now"
                "</button> (seats not joined yet stay people's: their turns wait for them, up to the clock)</form>"
            )
        return page(
            f"Game {table.id}",
            f"<p class='state'>{html.escape(state)}</p><p>Send each person their own link (it is their key to "
            f"the seat; anyone with it plays that seat):</p><ul class='invites'>{rows}</ul>{where}"
            f"<p>{table.config.num_players} players, seed {table.seed}; agents: "
            f"{html.escape(table.lineup.default.label())}.</p>",
            refresh=3 if table.state in ("waiting", "playing") else None,
        )

    async def start_now(request: Request) -> Response:
        table = host.table_of_host(request.path_params["token"])
        if table is None:
            return not_found()
        if not same_origin(request):
            return page("Refused", "<p>A game is started from its host page.</p>", 403)
        table.start()
        return RedirectResponse(f"/host/{table.host_token}", status_code=303, headers=HEADERS)

    def seat_of(request: Request) -> tuple[Table, str] | None:
        token = request.path_params["token"]
        table = host.table_of_seat(token)
        return None if table is None else (table, token)

    def api_seat(request: Request, changing: bool = False) -> tuple[Table, str] | Response:
        """The seat an API request names, or the refusal: no such seat (404), another site's request (403)."""
        found = seat_of(request)
        if found is None:
            return JSONResponse({"error": "no such seat"}, status_code=404, headers=HEADERS)
        if changing and not same_origin(request):
            return JSONResponse({"error": "refused: another site's request"}, status_code=403, headers=HEADERS)
        return found

    async def seat_page(request: Request) -> Response:
        # Opening the page joins nobody (a chat app's link preview opens it too): its script joins.
        if seat_of(request) is None:
            return not_found()
        body = resources.files(__package__).joinpath("static/seat.html").read_text(encoding="utf-8")
        return HTMLResponse(body, headers=HEADERS)

    async def seat_state(request: Request) -> Response:
        found = api_seat(request)
        if isinstance(found, Response):
            return found
        table, token = found
        table.seats[token].seat.seen()
        return JSONResponse(table.seat_view(token), headers=HEADERS)

    async def seat_join(request: Request) -> Response:
        found = api_seat(request, changing=True)
        if isinstance(found, Response):
            return found
        table, token = found
        table.join(token).seat.seen()
        return JSONResponse(table.seat_view(token), headers=HEADERS)

    async def seat_stream(request: Request) -> Response:
        found = api_seat(request)
        if isinstance(found, Response):
            return found
        table, token = found
        seat = table.seats[token].seat

        async def frames() -> AsyncIterator[str]:
            # Sent when this seat's own view changes, never on another seat's activity (that would tell when
            # others act, a hint at their roles).
            seat.streams += 1
            try:
                last = None
                while not host.closing:
                    version = seat.version
                    view = table.seat_view(token)
                    shown = json.dumps(_without_clock(view), separators=(",", ":"))
                    if shown != last:
                        last = shown
                        yield f"data: {json.dumps(view, separators=(',', ':'))}\n\n"
                    if table.state not in ("waiting", "playing"):
                        return  # the page closes its stream on the last view
                    await seat.wait_change(version, KEEPALIVE)
                    if seat.version == version:  # nothing new: is anyone still there?
                        if await request.is_disconnected():
                            return
                        seat.seen()
                        yield ": keep-alive\n\n"
            finally:
                seat.streams -= 1
                seat.seen()

        return StreamingResponse(frames(), media_type="text/event-stream", headers=HEADERS)

    async def seat_answer(request: Request) -> Response:
        found = api_seat(request, changing=True)
        if isinstance(found, Response):
            return found
        table, token = found
        body = await _body(request)
        if body is None:
            return JSONResponse({"error": "the answer is too large"}, status_code=413, headers=HEADERS)
        try:
            data = loads_bounded(body, MAX_DEPTH)
            number = data["turn"]
            answer = data["answer"]
            if not isinstance(number, int) or isinstance(number, bool):
                raise TypeError
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            return JSONResponse(
                {"error": 'send {"turn": <number>, "answer": <object or text>}'}, status_code=400, headers=HEADERS
            )
        try:
            table.answer(token, number, answer)
        except AnswerRefusedError as exc:
            return JSONResponse({"error": str(exc)}, status_code=409 if exc.stale else 422, headers=HEADERS)
        await asyncio.sleep(0)  # the game takes the answer before the page asks again
        return JSONResponse({"ok": True}, headers=HEADERS)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return not_found()
        text = resources.files(__package__).joinpath(f"static/{name}").read_text(encoding="utf-8")
        return Response(text, media_type=STATIC[name], headers=HEADERS)

    return Starlette(
        routes=[
            Route("/", index),
            Route("/tables", create_table, methods=["POST"]),
            Route("/study", start_study, methods=["POST"]),
            Route("/host/{token}", host_page),
            Route("/host/{token}/start", start_now, methods=["POST"]),
            Route("/seat/{token}", seat_page),
            Route("/api/seat/{token}", seat_state),
            Route("/api/seat/{token}/join", seat_join, methods=["POST"]),
            Route("/api/seat/{token}/stream", seat_stream),
            Route("/api/seat/{token}/answer", seat_answer, methods=["POST"]),
            Route("/static/{name}", static),
        ]
    )


def same_origin(request: Request) -> bool:
    """A state-changing request from this server's own pages: a browser says where a request comes from
    (``Origin``, ``Sec-Fetch-Site``), and another site's page may not set games up, join or answer here. A client
    that says nothing (a script, curl) is let through: it has to hold the token anyway."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    return origin is None or origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


def _without_clock(view: dict[str, Any]) -> dict[str, Any]:
    """The view without its countdown and its version: a frame is sent when what the page shows changes, not as
    time passes."""
    turn = view.get("turn")
    shown = {key: value for key, value in view.items() if key != "version"}
    return {**shown, "turn": {**turn, "seconds_left": None}} if turn else shown


async def _form(request: Request) -> dict[str, str]:
    """A small urlencoded form's fields (the first value of each); an oversized or unreadable body has none."""
    body = await _body(request)
    try:
        pairs = parse_qsl((body or b"").decode("utf-8"), keep_blank_values=True, max_num_fields=20)
    except (UnicodeDecodeError, ValueError):
        return {}
    return {key: value for key, value in reversed(pairs)}


async def _body(request: Request) -> bytes | None:
    """The request's body, or None once it passes ``MAX_BODY`` (read no further)."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
