"""``werewolf-bench serve``: games in the browser, people in some seats and agents in the rest (the ``web`` extra).

The server binds to 127.0.0.1 unless ``--host`` says otherwise (then it warns: anyone who can reach the port can
host games, and a seat's link is its only key). Without ``--study`` it sets one game up at start and prints the
host page and one invite link per person; the host page (``/``) sets up more. With ``--study`` it prints one link
for participants: each one reads the consent text (``--consent``), and accepting starts a game of their own with
one human seat. ``--out`` is a run folder of its own kind (``manifest.json`` says ``serve``; locked while the
server runs): each finished game's log goes to its ``games/`` (``werewolf-bench report`` and ``export`` read the
folder as a run's). An LLM lineup passes the same preflight as ``run`` first. Ctrl-C stops the server: the games
still playing stop where they are, their logs so far kept in ``unfinished/``.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from pathlib import Path
from typing import Any

from werewolf_deception.agents import load_lineup
from werewolf_deception.benchmarks.console import EXIT_BAD_OPTIONS, game_config_of, game_option, print_lines, refuse
from werewolf_deception.benchmarks.runs import RunDir, RunFolderError, preflight_gate

LOOPBACK = "127.0.0.1"


def add_serve_parser(command: argparse.ArgumentParser) -> None:
    game_option(command, "num_players", help="seats per game")
    command.add_argument(
        "--people", type=int, default=1, help="seats played by people in the first game (its first seats)"
    )
    command.add_argument("--agents", choices=["heuristic", "random"], default="heuristic", help="the other seats")
    command.add_argument("--lineup", help="a lineup file for the other seats (LLM seats too), as run takes it")
    command.add_argument("--clock", type=float, default=180.0, help="seconds a person has per turn (0: no clock)")
    command.add_argument("--seed", type=int, default=None, help="the first game's seed (then +1 per game)")
    command.add_argument("--out", type=Path, default=Path("runs/serve"), help="folder for the games' logs")
    command.add_argument("--host", default=LOOPBACK, help="address to listen on (default 127.0.0.1: this machine)")
    command.add_argument("--port", type=int, default=8765, help="port (0: a free one)")
    command.add_argument("--url", help="the address people reach the server at, for the printed links (default: "
                         "the address listened on; with --host 0.0.0.0, this machine's on the network)")  # fmt: skip
    command.add_argument("--study", action="store_true", help="a study: one person per game, after a consent page")
    command.add_argument("--consent", type=Path, help="with --study: a text file with the consent text to show")
    command.add_argument("--no-preflight", action="store_true", help="skip the probe of an LLM lineup's endpoints")


def serve_command(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from werewolf_deception.benchmarks.web import Host, StudySettings
        from werewolf_deception.benchmarks.web.app import web_app
    except ImportError as exc:
        print(f"error: werewolf-bench serve needs the web extra ({exc.name} is missing): "
              "pip install 'werewolf-deception[web]'", file=sys.stderr)  # fmt: skip
        return EXIT_BAD_OPTIONS
    try:
        config = game_config_of({"num_players": args.players})
        lineup = load_lineup(args.lineup or args.agents, config.ruleset)
        lineup.check_seats(config.num_players)
        if not 1 <= args.people <= config.num_players:
            raise ValueError(f"--people must be 1 to {config.num_players}")
        if not 0 <= args.clock <= 24 * 3600:
            raise ValueError("--clock must be 0 (no clock) to 86400 seconds")
        if not 0 <= args.port <= 65535:
            raise ValueError("--port must be 0 to 65535")
        if args.consent and not args.study:
            raise ValueError("--consent goes with --study")
        if args.study and not args.clock:
            raise ValueError("--study needs a clock (--clock above 0): a participant who leaves must not hold a game")
        people = ["player_0"] if args.study else [f"player_{i}" for i in range(args.people)]
        taken = sorted(set(lineup.seats) & set(people))
        if taken:
            raise ValueError(f"the lineup gives {', '.join(taken)} an agent, but people play those seats here")
        consent = args.consent.read_text(encoding="utf-8").strip() if args.consent else None
        if args.consent and not consent:
            raise ValueError(f"--consent {args.consent} is empty")
        folder = RunDir(args.out)
        folder.check({}, [])  # a serve folder (its manifest says so) or a new one, never a run's
    except (ValueError, RunFolderError, OSError) as exc:
        return refuse(exc)
    probed = preflight_gate(lineup.llm_sections(), args)
    if isinstance(probed, int):
        return probed
    study = (StudySettings(consent) if consent else StudySettings()) if args.study else None
    try:
        folder.open({}, [], kind="serve")  # locked while the server runs: a second one cannot share it
    except (ValueError, RunFolderError) as exc:
        return refuse(exc)
    host = Host(
        out=Path(args.out), config=config, lineup=lineup, humans=1 if study else args.people,
        clock=args.clock or None, seed=args.seed, study=study,
    )  # fmt: skip
    try:
        sock = socket.create_server((args.host, args.port))
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    if not _loopback(args.host):
        print(f"warning: listening on {args.host}: anyone who can reach this port can host games here, and a "
              "seat's link is its only key; share links over a channel you trust", file=sys.stderr)  # fmt: skip
    port = sock.getsockname()[1]
    base = args.url.rstrip("/") if args.url else f"http://{_reachable(args.host)}:{port}"
    if study:
        lines = [f"Study: participants open {base}/ (each gets a game of their own after the consent page)."]
    else:
        table = host.new_table()
        lines = [f"Game {table.id}: {config.num_players} players, {len(table.seats)} of them people.",
                 f"Host page: {base}/host/{table.host_token}"]  # fmt: skip
        lines += [f"  {seat.agent}: {base}/seat/{seat.token}" for seat in table.seats.values()]
        lines.append(f"More games: {base}/")
    print_lines([*lines, f"Logs: {args.out}", "Ctrl-C stops the server."])
    sys.stdout.flush()

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:  # Ctrl-C: streams end and games stop at once
            host.shutdown()
            super().handle_exit(sig, frame)

    server = Server(
        uvicorn.Config(
            web_app(host),
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=2,
            lifespan="off",
            limit_concurrency=512,  # connections at once (each open page holds one stream)
        )
    )
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn hands Ctrl-C back once it has shut down: that is how one stops it
        pass
    finally:
        host.shutdown()
        sock.close()
        folder.close()
    done = sum(1 for table in host.tables.values() if table.state == "over")
    cut = sum(1 for table in host.tables.values() if table.state == "stopped")
    print(f"Server stopped: {done} finished game{'s' * (done != 1)} logged in {Path(args.out) / 'games'}"
          + (f"; {cut} unfinished kept in {Path(args.out) / 'unfinished'}" if cut else "") + ".")  # fmt: skip
    return 0


def _reachable(host: str) -> str:
    """The address to print in links: the one listened on, or for every address this machine's own on the network
    (found without sending anything: a UDP socket's connect only picks the route), else 127.0.0.1."""
    if host not in ("0.0.0.0", "::", ""):
        return f"[{host}]" if ":" in host else host
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere, nothing is sent
            return str(probe.getsockname()[0])
    except OSError:
        return LOOPBACK


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address == "localhost"
