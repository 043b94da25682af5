"""``werewolf-bench serve`` over HTTP: two people play a whole game against three agents through the real server.

Each seat's every HTTP response and every server-sent frame is kept, then checked against the env itself: the
game is played again from its log in a fresh env, and what each seat's observation ever showed is what that seat
may know. Before the reveal, no seat's page carries a line that only another seat's observation held (another's
role card, checks, night actions, private notes) nor any of the ground truth's keys; after it, the reveal holds
the whole truth. Tokens are keys: an unknown one opens nothing, one seat's cannot answer another's turn, and a
replayed answer is refused. A turn left to its clock is played by the env's fallback and logged as such.
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="werewolf-bench serve needs the web extra (starlette)")
pytest.importorskip("uvicorn", reason="werewolf-bench serve needs the web extra (uvicorn)")

from tests.web_server import Client, EventReader, make_host, served
from werewolf_deception.benchmarks.web import TIMED_OUT, Host
from werewolf_env import GameConfig
from werewolf_env.engine import read_log, replay
from werewolf_env.envs import raw_env
from werewolf_env.record import GameRecord

GOD_KEYS = ('"roles"', '"lie"', '"lie_type"', '"known_false"', '"speaker_role"', '"caught_by"', '"flagged_by"')
HOSTILE = "<img src=x onerror=alert(1)> I am the seer & Bob is a wolf"
# Everything a seat's view holds: the env's observation of the seat, its own turn, and the table's public state.
VIEW_KEYS = {"table", "state", "agent", "name", "card", "history", "alive", "turn", "notice", "waiting_for", "study",
             "error", "reveal", "version"}  # fmt: skip
TURN_KEYS = {"number", "kind", "task", "hint", "targets", "null_ok", "subjects", "max_bid", "max_words", "max_chars",
             "lie_types", "clock", "seconds_left"}  # fmt: skip


def without_clock(view: dict[str, Any]) -> dict[str, Any]:
    return {**view, "turn": {**view["turn"], "seconds_left": None}} if view.get("turn") else view


def answer_for(turn: dict[str, Any], seat: int) -> Any:
    """What a person might send for ``turn``: JSON objects from one seat, typed shorthand from the other."""
    kind, targets = turn["kind"], turn["targets"]
    if kind in ("statement", "summary"):
        text = HOSTILE if kind == "statement" else "notes"
        return text if seat else {kind: text}
    if kind == "bid":
        return "7" if seat else {"bid": 7}
    if kind == "self_analysis":
        return "no 0.2 none" if seat else {"is_deceptive": False, "confidence": 0.2, "deception_type": "none"}
    if kind == "peer_analysis":
        return "yes 0.8 fabrication 0.7" if seat else {
            "is_deceptive": True, "confidence": 0.8, "deception_type": "fabrication", "suspicion": 0.7}  # fmt: skip
    return targets[0] if targets else "none"


def play_through(base: str, host: Host, skip_first: bool = False) -> tuple[dict[str, Client], dict[str, Any], str]:
    """Both people play the host's table to its end over HTTP (with ``skip_first``, seat 1 lets its first turn run
    out of time); returns each seat's client (its bodies), its last view and the kind of the turn let go."""
    table = next(iter(host.tables.values()))
    clients = {token: Client(base) for token in table.seats}
    for token, client in clients.items():
        assert client.request(f"/seat/{token}")[0] == 200  # the page: opening it joins nobody (a link preview)
        assert client.request(f"/api/seat/{token}")[1]["state"] == "waiting"
        assert client.request(f"/api/seat/{token}/join", {})[0] == 200  # the page's script joins
    skipped = ""
    views: dict[str, Any] = {}
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        for i, (token, client) in enumerate(clients.items()):
            status, view = client.request(f"/api/seat/{token}")
            assert status == 200
            views[token] = view
            turn = view["turn"]
            if turn is None:
                continue
            if i == 1 and skip_first and not skipped:
                skipped = turn["kind"]
            if i == 1 and skipped and turn["number"] == 1:
                continue  # left to the clock
            status, body = client.request(
                f"/api/seat/{token}/answer", {"turn": turn["number"], "answer": answer_for(turn, i)}
            )
            assert status == 200, body
            # The same answer again is a replay: refused, and the game does not take it twice.
            assert (
                client.request(f"/api/seat/{token}/answer", {"turn": turn["number"], "answer": answer_for(turn, i)})[0]
                == 409
            )
        if all(v["state"] in ("over", "failed") for v in views.values()) and len(views) == len(clients):
            break
        time.sleep(0.02)
    assert all(v["state"] == "over" for v in views.values()), [v["error"] for v in views.values()]
    return clients, views, skipped


def observed_by_seat(log: Path) -> tuple[dict[int, set[str]], dict[int, set[str]]]:
    """Each seat's observation, played again from the log in a fresh env after every step: the lines of its
    history it ever saw, and every line of its card (everything before the history)."""
    records = read_log(log)
    header = records[0]
    env = raw_env(config=GameConfig(**header["config"]))
    env.reset(seed=header["seed"])
    seats = range(len(env.possible_agents))
    history: dict[int, set[str]] = {s: set() for s in seats}
    cards: dict[int, set[str]] = {s: set() for s in seats}

    def look() -> None:
        for s, agent in enumerate(env.possible_agents):
            text = env.observe(agent)["text"]
            head, _, rest = text.partition("\n\nHISTORY:\n")
            cards[s].update(head.splitlines())
            history[s].update(rest.partition("\n\nNOW:")[0].splitlines())

    look()
    for record in records:
        if record.get("type") == "action":
            assert env.agent_name_mapping[env.agent_selection] == record["actor"]
            env.step(record["data"]["raw"])
            look()
    return history, cards


def test_two_people_play_a_whole_game_and_each_page_shows_only_what_its_seat_may_know(tmp_path: Path) -> None:
    host = make_host(tmp_path / "out", players=5, people=2, clock=1.5, seed=3)
    table = host.new_table()
    with served(host) as base:
        readers = {token: EventReader(base, f"/api/seat/{token}/stream") for token in table.seats}
        for reader in readers.values():
            reader.start()
        # No seat before the game: an unknown token opens nothing, on every route.
        stranger = Client(base)
        assert stranger.request("/seat/not-a-token")[0] == 404
        assert stranger.request("/api/seat/not-a-token")[0] == 404
        assert stranger.request("/api/seat/not-a-token/answer", {"turn": 1, "answer": "x"})[0] == 404
        assert stranger.request(f"/host/{next(iter(table.seats))}")[0] == 404  # a seat's token is no host's

        clients, views, skipped = play_through(base, host, skip_first=True)
        for reader in readers.values():
            reader.join(30)
            reader.stop()
    assert table.log_path is not None and table.log_path.parent == tmp_path / "out" / "games"
    assert replay(table.log_path).ok

    # The log: two human seats, labelled so for the report; the turn left to the clock is the env's fallback.
    records = read_log(table.log_path)
    extra = [r["data"] for r in records if r.get("type") == "agent_record"]
    lineup = next(r for r in extra if r["type"] == "lineup")
    assert lineup["policies"][:2] == ["human", "human"] and "human" not in lineup["policies"][2:]
    timeouts = [r for r in extra if r["type"] == "timeout"]
    assert len(timeouts) == 1 and timeouts[0]["kind"] == skipped and timeouts[0]["reason"] == "clock"
    assert 1.5 <= timeouts[0]["seconds"] < 5
    timed_out = [r for r in records if r.get("type") == "action" and r["data"]["raw"] == TIMED_OUT]
    assert len(timed_out) == 1 and timed_out[0]["actor"] == 1 and timed_out[0]["data"]["fallbacks"]

    history, cards = observed_by_seat(table.log_path)
    record = GameRecord.from_events(records)
    for i, token in enumerate(table.seats):
        seat = int(table.seats[token].agent.rsplit("_", 1)[1])
        assert seat == i
        bodies = clients[token].bodies + readers[token].frames
        assert readers[token].status == 200 and len(readers[token].frames) >= 5
        revealed = [json.loads(b) for b in bodies if '"reveal":null' not in b.replace(" ", "") and '"state"' in b]
        assert revealed and all(v["state"] == "over" for v in revealed), "only a finished game's view has the reveal"
        hidden = [b for b in bodies if '"reveal":null' in b.replace(" ", "")]
        assert hidden, "no view before the reveal was read"
        # Lines only other seats' observations ever held, and the cards of other seats' roles.
        mine = history[seat] | cards[seat]
        private = {line for s in history if s != seat for line in history[s] | cards[s]} - mine
        private = {line for line in private if len(line) > 12}  # a lone word ("---") says nothing
        # A frame only when the seat's own view changed: never on another seat's activity (its timing would
        # hint at roles), so no two frames in a row say the same thing but for the clock.
        shown = [json.dumps(without_clock(json.loads(frame)), sort_keys=True) for frame in readers[token].frames]
        assert all(a != b for a, b in itertools.pairwise(shown)), "a frame that changed nothing"
        for body in hidden:
            view = json.loads(body)
            assert set(view) == VIEW_KEYS, "the view carries something new: check that the seat may know it"
            assert view["turn"] is None or set(view["turn"]) == TURN_KEYS
            assert set(view["history"]) <= history[seat]
            assert set(view["card"].splitlines()) <= cards[seat]
            for line in private:
                assert line not in body, f"seat {seat} was shown another seat's line: {line!r}"
            for key in GOD_KEYS:
                assert key not in body, f"seat {seat} was shown the ground truth's {key}"
        # The reveal: every role, and each statement's truth as the record has it.
        reveal = views[token]["reveal"]
        assert [p["role"] for p in reveal["players"]] == record.roles
        assert [p["human"] for p in reveal["players"]] == [True, True, False, False, False]
        assert [s["lie"] for s in reveal["statements"]] == [st.lie for st in record.statements]
        assert reveal["you"]["seat"] == seat
    # The people's statements reached the game as they typed them, markup and all (the page shows it as text).
    said = [st.text for st in record.statements if st.speaker in (0, 1)]
    assert said and all(text.startswith("<img src=x") for text in said)


def test_a_token_answers_only_its_own_seat_and_bad_answers_are_refused_with_the_reason(tmp_path: Path) -> None:
    host = make_host(tmp_path / "out", players=5, people=2, clock=None, seed=11)
    table = host.new_table()
    a, b = list(table.seats)
    with served(host) as base:
        client = Client(base)
        client.request(f"/api/seat/{a}/join", {})
        assert client.request(f"/api/seat/{a}")[1]["state"] == "waiting"  # until everyone opened their link
        client.request(f"/api/seat/{b}/join", {})
        deadline = time.monotonic() + 60
        open_turn: tuple[str, str, dict[str, Any]] | None = None
        while open_turn is None and time.monotonic() < deadline:
            for mine, other in ((a, b), (b, a)):
                turn = client.request(f"/api/seat/{mine}")[1]["turn"]
                if turn is not None and client.request(f"/api/seat/{other}")[1]["turn"] is None:
                    open_turn = (mine, other, turn)
                    break
            time.sleep(0.02)
        assert open_turn is not None
        mine, other, turn = open_turn
        # The other seat's token cannot answer this turn (it opens only its own seat, which has no turn open).
        assert client.request(f"/api/seat/{other}/answer", {"turn": turn["number"], "answer": "x"})[0] == 409
        assert client.request(f"/api/seat/{mine}")[1]["turn"]["number"] == turn["number"]  # still open
        # Malformed, oversized and invalid answers: refused with the reason, the turn stays open.
        assert client.request(f"/api/seat/{mine}/answer", raw=b"not json")[0] == 400
        assert client.request(f"/api/seat/{mine}/answer", {"turn": True, "answer": "x"})[0] == 400
        assert client.request(f"/api/seat/{mine}/answer", raw=b"x" * 70_000)[0] == 413
        status, body = client.request(f"/api/seat/{mine}/answer", {"turn": turn["number"], "answer": {"nonsense": 1}})
        assert status == 422 and body["error"]
        assert client.request(f"/api/seat/{mine}/answer", {"turn": turn["number"] + 5, "answer": "x"})[0] == 409
        assert client.request(f"/api/seat/{mine}")[1]["turn"]["number"] == turn["number"]
        # Pages: the host page lists one invite per person; every page says no-store and sends no referrer.
        status, page = client.request(f"/host/{table.host_token}")
        assert status == 200 and page.count("/seat/") >= 2 and a in page and b in page


def test_a_study_asks_consent_and_logs_an_anonymous_participant_without_names(tmp_path: Path) -> None:
    from werewolf_deception.benchmarks.web import StudySettings

    host = make_host(tmp_path / "out", players=5, people=1, clock=None, seed=5)
    host.study = StudySettings("Consent text for the test <b>bold</b>.")
    with served(host) as base:
        client = Client(base)
        status, page = client.request("/")
        assert status == 200 and "Consent text for the test &lt;b&gt;bold&lt;/b&gt;." in page
        assert client.request("/tables", raw=b"players=5")[0] == 403  # a study makes no free tables
        import urllib.request

        refused = urllib.request.Request(base + "/study", data=b"", method="POST")
        refused.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            urllib.request.urlopen(refused, timeout=10)
            raise AssertionError("a study started without consent")
        except urllib.error.HTTPError as exc:
            assert exc.code == 400
        accepted = urllib.request.Request(base + "/study", data=b"consent=yes", method="POST")
        accepted.add_header("Content-Type", "application/x-www-form-urlencoded")
        with urllib.request.urlopen(accepted, timeout=10) as response:  # followed to the seat's page
            assert response.status == 200 and "/seat/" in response.url
            token = response.url.rsplit("/", 1)[1]
        table = host.table_of_seat(token)
        assert table is not None and table.study and len(table.seats) == 1
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            view = client.request(f"/api/seat/{token}")[1]
            if view["state"] == "over":
                break
            if view["turn"]:
                client.request(
                    f"/api/seat/{token}/answer", {"turn": view["turn"]["number"], "answer": answer_for(view["turn"], 1)}
                )
            time.sleep(0.01)
    assert table.log_path is not None
    records = read_log(table.log_path)
    study = [r for r in records if r.get("type") == "agent_record" and r["data"]["type"] == "study"]
    assert len(study) == 1 and study[0]["actor"] == 0
    data = study[0]["data"]
    assert data["consent"] == "Consent text for the test <b>bold</b>." and len(data["participant"]) == 16
    text = table.log_path.read_text()
    assert "127.0.0.1" not in text  # no address of the participant's anywhere in the log


def test_the_setup_form_makes_tables_refuses_bad_ones_and_caps_the_open_ones(tmp_path: Path) -> None:
    import urllib.request

    from werewolf_deception.benchmarks.web.table import TooManyTablesError

    host = make_host(tmp_path / "out", players=5, people=1, clock=None)
    host.max_open = 2

    def post(base: str, form: bytes) -> tuple[int, str, str]:
        request = urllib.request.Request(base + "/tables", data=form, method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.url, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, "", exc.read().decode()

    with served(host) as base:
        status, page = Client(base).request("/")
        assert status == 200 and "<form method='post' action='/tables'" in page
        status, url, page = post(base, b"players=6&people=3&clock=30")
        assert status == 200 and "/host/" in url and page.count("class='invite'") == 3
        table = host.table_of_host(url.rsplit("/", 1)[1])
        assert table is not None and table.config.num_players == 6 and table.clock == 30
        status, _, page = post(base, b"players=5&people=9&clock=30")
        assert status == 400 and "people" in page
        status, _, page = post(base, b"players=99&people=1")
        assert (status == 400 and "num_players" in page) or "players" in page
        assert post(base, b"players=5&people=1&clock=0")[0] == 200  # the second open game: the cap
        status, _, page = post(base, b"players=5&people=1")
        assert status == 503 and "waiting or playing" in page
    with pytest.raises(TooManyTablesError):
        host.new_table()


def test_a_seat_nobody_opens_is_played_by_fallbacks_and_the_game_exports_with_its_people_marked(tmp_path: Path) -> None:
    from werewolf_deception.benchmarks.export import export_runs

    # Seat 1 is the seer: it has a turn every night, dead or alive by day.
    host = make_host(tmp_path / "out", players=5, people=2, clock=None, seed=9,
                     roles=["werewolf", "seer", "doctor", "villager", "villager"])  # fmt: skip
    host.away_seconds = 0.3  # nobody follows seat 1: each of its turns falls back after this long
    table = host.new_table()
    present = next(iter(table.seats))
    with served(host) as base:
        client = Client(base)
        assert client.request(f"/api/seat/{present}/join", {})[0] == 200
        assert table.state == "waiting"
        # Another site's page cannot start it, nor join or answer for a seat, even holding the links.
        evil = {"Origin": "http://evil.example"}
        assert client.request(f"/host/{table.host_token}/start", raw=b"", headers=evil)[0] == 403
        assert client.request(f"/api/seat/{present}/join", {}, headers={"Sec-Fetch-Site": "cross-site"})[0] == 403
        assert client.request(f"/api/seat/{present}/answer", {"turn": 1, "answer": "x"}, headers=evil)[0] == 403
        assert table.state == "waiting"
        assert client.request(f"/host/{table.host_token}/start", raw=b"")[0] == 200  # the host starts it
        deadline = time.monotonic() + 120
        while table.state == "playing" and time.monotonic() < deadline:
            view = client.request(f"/api/seat/{present}")[1]
            if view["turn"]:
                sent = {"turn": view["turn"]["number"], "answer": answer_for(view["turn"], 1)}
                client.request(f"/api/seat/{present}/answer", sent)
            time.sleep(0.01)
        # A deeply nested answer is refused as malformed, not a server error.
        assert client.request(f"/api/seat/{present}/answer", raw=b"[" * 60_000)[0] == 400
    assert table.state == "over", table.error
    records = read_log(table.log_path)  # type: ignore[arg-type]
    away = [r["data"] for r in records if r.get("type") == "agent_record" and r["data"]["type"] == "timeout"]
    assert away and all(t["reason"] == "away" for t in away)
    assert all(r["actor"] == 1 for r in records if r.get("type") == "agent_record" and r["data"]["type"] == "timeout")
    summary = export_runs([tmp_path / "out"], tmp_path / "export", "jsonl")
    assert summary["games"] == 1 and summary["runs"][0]["kind"] == "serve"
    games = [json.loads(line) for line in next((tmp_path / "export" / "games").glob("*.jsonl")).open()]
    assert games[0]["hidden_seat_policies"] == ["human", "human", "heuristic", "heuristic", "heuristic"]
    rows = [json.loads(line) for line in next((tmp_path / "export" / "statements").glob("*.jsonl")).open()]
    observers = {a["observer_seat"]: a["observer_policy"] for row in rows for a in row["hidden_peer_analyses"]}
    assert observers[0] == "human" and {observers[s] for s in observers if s > 1} == {"heuristic"}


def test_the_server_stopping_keeps_a_running_games_log_as_unfinished(tmp_path: Path) -> None:
    host = make_host(tmp_path / "out", players=5, people=1, clock=None, seed=4)
    table = host.new_table()
    token = next(iter(table.seats))
    with served(host) as base:
        client = Client(base)
        client.request(f"/api/seat/{token}/join", {})
        deadline = time.monotonic() + 30
        while client.request(f"/api/seat/{token}")[1]["turn"] is None and time.monotonic() < deadline:
            time.sleep(0.02)
        host.shutdown()  # what Ctrl-C does
        for _ in range(100):
            if table.state == "stopped":
                break
            time.sleep(0.02)
    assert table.state == "stopped"
    assert table.log_path is not None and table.log_path.parent == tmp_path / "out" / "unfinished"
    assert read_log(table.log_path)[0]["type"] == "header"
    assert not list((tmp_path / "out").glob("games/*.ndjson"))  # reports read finished games only
