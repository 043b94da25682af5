"""The human seat end to end: a scripted person plays whole games, through ``HumanAgent`` and through
``werewolf-bench play``.

The person answers each prompt by its kind (``Person``): bids from a fixed list, numbered statements,
fixed analyses, and for every target the first name of a preference list that the game accepts (a
refused name is answered with the next one, as a person would after "Not valid"). So what they did is
known without the game's help, and the tests check that the game's log holds exactly that (the
``action`` events' ``parsed`` values, the statements' text, the votes and pack proposals that counted),
and that their screen shows the public game (their role card, everyone's statements, every vote line
and tally, the deaths, their elimination notice) and nothing hidden (other players' roles, the pack's
night proposals when they are no werewolf, the seer's results when they are not the seer).
"""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents import HeuristicAgent, Policy, play_game_sync
from werewolf_deception.agents.policies.human import ELIMINATED, INPUT_ENDED, NO_ANSWER, HumanAgent
from werewolf_deception.benchmarks.console.exit_codes import EXIT_OK, codes_of
from werewolf_env import GameConfig
from werewolf_env.core.config import Role
from werewolf_env.engine.log import read_log

ROOT = Path(__file__).resolve().parents[1]
W, S, D, V = Role.WEREWOLF, Role.SEER, Role.DOCTOR, Role.VILLAGER
PROMPT = re.compile(r"\[(\w+)\] your answer \([^\n]*\)> $")
NOT_VALID = "Not valid: "
TARGET_KINDS = {"eliminate": "target", "protect": "target", "unmask": "target", "vote": "vote"}
BIDS = (10, 4, 9)  # the n-th bid is BIDS[n % 3]; the first is typed wrong once ("lots") before it
SELF_ANALYSIS = "no 0.15 none"
PEER_ANALYSIS = "yes 0.8 misdirection 0.9"
SUBJECT_SCORE = 0.6  # typed for each player the prompt names after the suspicion ("[Bob 0-1]")
SUBJECT = re.compile(r"\[([^\]\[]+) 0-1\]")
PARSED_ANALYSIS = {
    "self_analysis": {"is_deceptive": False, "confidence": 0.15, "deception_type": "none"},
    "peer_analysis": {"is_deceptive": True, "confidence": 0.8, "deception_type": "misdirection", "suspicion": 0.9},
}
SUMMARY = "A summary typed by the person at the keyboard."


def statement(n: int) -> str:
    return f"Statement {n} typed by the person at the keyboard."


class Person:
    """Answers each prompt on the screen by its kind; counts the questions and the answers refused."""

    def __init__(self, preferences: list[str]) -> None:
        self.preferences = preferences  # the names a target answer tries, in order
        self.asked: Counter[str] = Counter()  # questions per kind (a question re-asked counts once)
        self.prompts = 0  # prompts answered (re-asks included)
        self._try = 0
        self._seen = 0

    def answer(self, screen: str) -> str:
        found = PROMPT.search(screen)
        assert found, f"asked for a line without a prompt:\n{screen[-500:]}"
        kind = found.group(1)
        retry = NOT_VALID in screen[self._seen :]
        self._seen = len(screen)
        self.prompts += 1
        if retry:
            self._try += 1
        else:
            self._try = 0
            self.asked[kind] += 1
        n = self.asked[kind] - 1  # this kind's question number, from 0
        if kind in TARGET_KINDS:
            assert self._try < len(self.preferences), f"every name was refused:\n{screen[-1000:]}"
            return self.preferences[self._try]
        if kind == "bid":
            return "lots" if n == 0 and self._try == 0 else str(BIDS[n % len(BIDS)])
        if kind == "statement":
            return statement(n + 1)
        if kind == "self_analysis":
            return SELF_ANALYSIS
        if kind == "peer_analysis":
            subjects = SUBJECT.findall(found.group(0))
            return " ".join([PEER_ANALYSIS, *[str(SUBJECT_SCORE)] * len(subjects)])
        assert kind == "summary", kind
        return SUMMARY


class Keyboard(io.StringIO):
    """``HumanAgent``'s input: each line is the person's answer to what the screen shows at that moment,
    echoed on the screen as a terminal does."""

    def __init__(self, person: Person, screen: io.StringIO) -> None:
        super().__init__()
        self.person = person
        self.screen = screen

    def readline(self, size: int | None = -1, /) -> str:  # type: ignore[override]
        line = self.person.answer(self.screen.getvalue()) + "\n"
        self.screen.write(line)
        return line


# ------------------------------------------------------------------------------------- what the log holds


@dataclass
class Played:
    """What the person did, as the game's log holds it: each kind's parsed values in order, and how many of
    their answers had to be refused (the mistyped first bid, and each name the game could not take)."""

    actions: dict[str, list[Any]] = field(default_factory=dict)
    refused: int = 0

    def count(self, *kinds: str) -> int:
        return sum(len(self.actions.get(kind, [])) for kind in kinds)


def check_log(records: list[dict[str, Any]], seat: int, person: Person) -> Played:
    """The person's actions in the log, each checked against what they typed (and then against what counted)."""
    names = records[1]["data"]["names"]
    roles = next(r["data"]["roles"] for r in records if r["type"] == "roles")
    wanted = [names.index(name) for name in person.preferences]
    dead: set[int] = set()
    played = Played()
    done = played.actions
    said = 0
    for r in records:
        d = r.get("data") or {}
        if r["type"] == "death":
            dead.add(d["victim"])
        elif r["type"] == "floor" and d["speaker"] == seat:
            assert d["bid"] == done["bid"][-1], "the floor was won with another bid than the one typed"
        elif r["type"] == "statement" and d["speaker"] == seat:
            said += 1
            assert d["text"] == statement(said) and not d["truncated"], d
        elif r["type"] == "summary" and r["actor"] == seat:
            assert d["text"] == SUMMARY
        elif r["type"] == "votes" and str(seat) in d["votes"]:
            assert d["votes"][str(seat)] == done["vote"][-1], "the vote counted is not the one typed"
        elif r["type"] == "pack_decision" and str(seat) in d["proposals"]:
            assert d["proposals"][str(seat)] == done["eliminate"][-1], "the pack counted another proposal"
        if r["type"] != "action" or r["actor"] != seat:
            continue
        kind, parsed = d["kind"], d["parsed"]
        assert "fallbacks" not in d and "repairs" not in d, d
        n = len(done.setdefault(kind, []))
        if kind in TARGET_KINDS:  # the first name the game takes: alive, not oneself, no werewolf for the pack
            legal = [
                p
                for p in wanted
                if p not in dead and p != seat and not (kind == "eliminate" and roles[p] == "werewolf")
            ]
            assert parsed == {TARGET_KINDS[kind]: legal[0]}, (kind, parsed, [names[p] for p in legal])
            played.refused += wanted.index(legal[0])
            done[kind].append(legal[0])
        elif kind == "bid":
            assert parsed == {"bid": BIDS[n % len(BIDS)]}
            played.refused += n == 0
            done[kind].append(parsed["bid"])
        elif kind in PARSED_ANALYSIS:
            assert {k: parsed.get(k) for k in PARSED_ANALYSIS[kind]} == PARSED_ANALYSIS[kind], parsed
            # Every player the statement spoke of, scored as typed (no repair above: none was left out).
            assert all(score == SUBJECT_SCORE for _, score in parsed.get("suspicion_of", ())), parsed
            done[kind].append(parsed)
        elif kind == "statement":
            assert parsed["statement"] == statement(n + 1)
            done[kind].append(parsed["statement"])
        else:
            assert kind == "summary" and parsed["summary"] == SUMMARY, d
            done[kind].append(parsed["summary"])
    # Every question the person was asked is one action in the log; every answer refused was one expected.
    assert {kind: len(values) for kind, values in done.items()} == dict(person.asked)
    assert person.prompts == sum(person.asked.values()) + played.refused
    assert said == played.count("statement")
    return played


# ------------------------------------------------------------------------------------- what the screen shows


def check_screen(screen: str, records: list[dict[str, Any]], seat: int, played: Played) -> None:
    """The public game and the person's own knowledge are on ``screen``; nothing hidden from them is."""
    names = records[1]["data"]["names"]
    roles = next(r["data"]["roles"] for r in records if r["type"] == "roles")
    config = records[0]["config"]
    me = names[seat]
    label = [f"{n} (you)" if p == seat else n for p, n in enumerate(names)]
    wolf = roles[seat] == "werewolf"
    lines = screen.splitlines()

    assert screen.startswith(f"== Werewolf: you are {me} (player_{seat}) ==")
    mates = [names[p] for p, r in enumerate(roles) if r == "werewolf" and p != seat]
    card = f"You are a werewolf. Your fellow werewolves: {', '.join(mates)}." if wolf else f"Your role: {roles[seat]}."
    assert lines.count(card) == 1
    assert screen.count(NOT_VALID) == played.refused
    assert screen.count("your answer (") == played.count(*played.actions) + played.refused  # one prompt per answer

    votes_lines = [line for line in lines if line.startswith("Votes: ")]
    assert len(votes_lines) == sum(r["type"] == "votes" for r in records)
    shown_votes = iter(votes_lines)
    for r in records:
        d = r.get("data") or {}
        if r["type"] == "statement":
            assert f'{label[d["speaker"]]}: "{d["text"]}"' in lines
        elif r["type"] == "summary":
            assert f'{label[r["actor"]]} (final summary): "{d["text"]}"' in lines
        elif r["type"] == "death" and d["victim"] is None:
            assert "Dawn: nobody died in the night." in lines
        elif r["type"] == "death":
            role = f" They were the {roles[d['victim']]}." if config["reveal_role_on_death"] else ""
            said = "Dawn: {} was killed in the night." if d["cause"] == "night" else "{} is exiled."
            assert said.format(label[d["victim"]]) + role in lines
        elif r["type"] == "votes":
            line = next(shown_votes)
            who, tally = line.split(". Tally: ")
            for voter, target in d["votes"].items():
                assert f"{label[int(voter)]} -> {'abstain' if target is None else label[target]}" in who
            for target, count in d["tally"].items():
                assert f"{label[int(target)]} {count}" in tally
        elif r["type"] == "seer_result" and r["actor"] == seat:
            verdict = "a werewolf" if d["result"] == "werewolf" else "not a werewolf"
            assert f"You investigated {names[d['target']]}: {verdict}." in lines
        elif r["type"] == "pack_decision" and wolf:
            assert f"The pack's proposals: {label[seat]} -> " in screen
    # Own actions are reminded (one line each); no one else's is: they are hidden.
    for reminder, kinds in (
        ("You voted for ", ("vote",)),
        ("You protected ", ("protect",)),
        ("You proposed to eliminate ", ("eliminate",)),
        ("You analysed the statement", ("self_analysis", "peer_analysis")),
    ):
        assert screen.count(reminder) == played.count(*kinds), reminder

    # Hidden: the deal, the other roles' private events, the engine's ground truth.
    assert "[hidden]" not in screen and "Roles: " not in screen
    for role in ("seer", "doctor", "villager"):
        assert lines.count(f"Your role: {role}.") == (role == roles[seat])
    if not wolf:
        assert "werewolves:" not in screen and "The pack's proposals" not in screen
    if roles[seat] != "seer":
        assert "ou investigated " not in screen  # "You investigated X: ..." / "Night 1: you investigated X"
    if roles[seat] != "doctor":
        assert "ou protected " not in screen
    died = {r["data"]["victim"] for r in records if r["type"] == "death"}
    for p, name in enumerate(names):
        told = p == seat or (wolf and roles[p] == "werewolf") or (config["reveal_role_on_death"] and p in died)
        if not told:
            assert f"{name} was the " not in screen

    # Eliminated: told once, right after the news of their death (in the order it happened), never asked again,
    # shown the rest.
    if seat in died:
        assert screen.count(ELIMINATED) == 1
        before, after_text = screen.split(ELIMINATED, 1)
        news = before.rstrip("\n").splitlines()[-1]
        assert news.startswith((f"Dawn: {label[seat]} was killed", f"{label[seat]} is exiled.")), news
        after = after_text.splitlines()[1:]
        assert not any("your answer" in line for line in after)
    else:
        assert ELIMINATED not in screen
    if records[-1]["type"] == "snapshot":
        assert "Game over." in lines and screen.rstrip().endswith("NOW: the game is over.")


# ------------------------------------------------------------------------------------- HumanAgent in a game

# Alice (seat 0) is the seer, exiled on day 2 of this seed; or a werewolf (with Bob) who lives to the end and
# sees roles revealed on death. The other seats are heuristic agents.
CASES = {
    "seer": (1, (S, W, W, D, V, V, V, V), {}),
    "werewolf": (0, (W, W, S, D, V, V, V, V), {"reveal_role_on_death": True}),
}
PREFERENCES = ["Hiro", "Bob", "Grace", "Carla", "Farid", "Emma", "Dmitri"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_log_holds_what_the_person_typed_and_their_screen_only_what_they_may_see(case: str, tmp_path: Path) -> None:
    seed, roles, rules = CASES[case]
    screen = io.StringIO()
    person = Person(PREFERENCES)
    policies: list[Policy] = [HumanAgent(input=Keyboard(person, screen), output=screen),
                              *(HeuristicAgent(seed * 10 + s) for s in range(1, 8))]  # fmt: skip
    result = play_game_sync(GameConfig(roles=roles, **rules), None, seed=seed, policies=policies, log_dir=tmp_path)
    records = read_log(str(result.log_path))
    played = check_log(records, 0, person)
    check_screen(screen.getvalue(), records, 0, played)
    # The seed plays the scene it was picked for: every kind of answer the role has, typed and applied.
    night = {S: "unmask", W: "eliminate"}[roles[0]]
    assert {night, "bid", "statement", "vote", "self_analysis", "peer_analysis"} <= set(played.actions)
    assert played.count("vote") >= 2 and played.refused >= 2, "pick a seed with two days and a refused name"
    if case == "seer":  # exiled on day 2: told so, and shown the rest of the game
        assert not result.players[0].alive and "summary" not in played.actions, "pick a seed in which Alice dies"
    else:  # lives to the end, sees the pack's proposals, and the roles of the dead
        assert result.players[0].alive and "summary" in played.actions, "pick a seed in which Alice lives"
        assert "They were the " in screen.getvalue()


# ------------------------------------------------------------------------------------- werewolf-bench play


def play_in_a_terminal(
    args: list[str], person: Person, deadline: float = 120.0, answers: int | None = None
) -> tuple[int, str, str]:
    """Run ``werewolf-bench`` with ``args``, the person answering each prompt it prints; (code, stdout, stderr).
    With ``answers``, the input ends (Ctrl-D) at the prompt after that many answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "werewolf_deception.benchmarks.cli.main", *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin and proc.stdout and proc.stderr
    out, err = bytearray(), bytearray()
    end = time.monotonic() + deadline
    try:
        streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
        while streams:
            left = end - time.monotonic()
            assert left > 0, f"the game did not end in {deadline} s:\n{out[-2000:].decode(errors='replace')}"
            ready, _, _ = select.select(list(streams), [], [], left)
            for fd in ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    del streams[fd]
                    continue
                streams[fd].extend(chunk)
                if fd == proc.stdout.fileno() and PROMPT.search(out.decode(errors="replace")[-300:]):
                    if proc.stdin.closed:
                        continue
                    if answers is not None and person.prompts >= answers:
                        proc.stdin.close()  # Ctrl-D
                        continue
                    line = (person.answer(out.decode()) + "\n").encode()
                    out.extend(line)  # the terminal's echo
                    proc.stdin.write(line)
                    proc.stdin.flush()
        code = proc.wait(timeout=max(1.0, end - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return code, out.decode(), err.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="select() on pipes")
def test_play_command_with_a_person_at_the_keyboard(tmp_path: Path) -> None:
    """``werewolf-bench play`` in a terminal: the person in seat 4 (Emma, the doctor in this seed's deal)."""
    person = Person(["Carla", "Alice", "Bob", "Dmitri", "Farid"])
    code, out, err = play_in_a_terminal(
        ["play", "--seed", "3", "--players", "6", "--seat", "player_4", "--out", str(tmp_path)], person
    )
    assert code == 0, err
    game, _, ending = out.partition("\nGame over (seed 3): ")
    log = Path(re.search(r"^Log: (.+)$", ending, re.M).group(1))  # type: ignore[union-attr]
    assert log.parent == tmp_path and list(tmp_path.iterdir()) == [log]  # the log, no scratch folder
    records = read_log(log)
    roles = next(r["data"]["roles"] for r in records if r["type"] == "roles")
    assert roles[4] == "doctor", "pick a seed in which seat 4 is the doctor"
    played = check_log(records, 4, person)
    check_screen(game, records, 4, played)
    assert {"protect", "bid", "statement", "vote", "peer_analysis"} <= set(played.actions), played
    assert played.refused >= 2 and ELIMINATED in game, "pick a seed in which Emma has a name refused, and dies"
    # The ending says how it went for this seat, and only then every role.
    winner = next(r["data"]["winner"] for r in records if r["type"] == "game_over")
    won = winner == "village"
    assert ending.startswith(f"{winner} wins; you were the doctor: {'you won' if won else 'you lost'}.")
    assert "Roles: " + ", ".join(f"{n} {r}" for n, r in zip(records[1]["data"]["names"], roles, strict=True)) in ending


# ------------------------------------------------------------------------------------- the input ends mid-game

# Seat 4 with the input closed (Ctrl-D) after 8 answers: the doctor of seed 3 lives to the end; the werewolf of
# seed 7 is exiled later, after the input ended.
EOF_CASES = {"lives": 3, "dies later": 7}


@pytest.mark.skipif(sys.platform == "win32", reason="select() on pipes")
@pytest.mark.parametrize("case", sorted(EOF_CASES))
def test_when_the_input_ends_the_fallbacks_play_the_seat_to_the_end(case: str, tmp_path: Path) -> None:
    seed = EOF_CASES[case]
    person = Person(["Carla", "Alice", "Bob", "Dmitri", "Farid"])
    code, out, err = play_in_a_terminal(
        ["play", "--seed", str(seed), "--players", "6", "--seat", "player_4", "--out", str(tmp_path)], person, answers=8
    )
    assert code == EXIT_OK and EXIT_OK in codes_of("play"), err  # the game finished, as play's --help says
    game, _, ending = out.partition(f"\nGame over (seed {seed}): ")
    records = read_log(Path(re.search(r"^Log: (.+)$", ending, re.M).group(1)))  # type: ignore[union-attr]
    assert records[-1]["type"] == "snapshot" and game.rstrip().endswith("NOW: the game is over.")
    dies = any(r["type"] == "death" and r["data"]["victim"] == 4 for r in records)
    assert dies == (case == "dies later"), "pick a seed in which Emma lives / dies after the input ended"

    # Said once, where the input ended (at the prompt after the 8th answer); never asked again.
    assert person.prompts == 8 and game.count(INPUT_ENDED) == 1
    asked, told = game.split(INPUT_ENDED)
    assert PROMPT.search(asked.rstrip("\n")) and "your answer" not in told
    # Eliminated only if the seat was: then after the input ended, right after the news of the death.
    if dies:
        assert told.count(ELIMINATED) == 1
        news = told.split(ELIMINATED)[0].rstrip("\n").splitlines()[-1]
        assert news.startswith(("Dawn: Emma (you) was killed", "Emma (you) is exiled.")), news
    else:
        assert "eliminated" not in game.lower()
    # Still shown the public game to the end: every vote, those after the input ended too.
    assert sum(line.startswith("Votes: ") for line in game.splitlines()) == sum(r["type"] == "votes" for r in records)

    # In the log, the turns answered at the keyboard are the person's; every later one is a fallback that says why.
    actions = [r["data"] for r in records if r["type"] == "action" and r["actor"] == 4]
    typed = sum(person.asked.values())
    assert [a["raw"] == NO_ANSWER for a in actions] == [False] * typed + [True] * (len(actions) - typed)
    assert all("fallbacks" not in a for a in actions[:typed])
    assert all(a["fallbacks"] for a in actions[typed:]) and len(actions) > typed + 5
    assert {"bid", "vote", "peer_analysis"} <= {a["kind"] for a in actions[typed:]}
    if not dies:
        assert actions[-1]["kind"] == "summary"  # played to the very end


@pytest.mark.skipif(sys.platform == "win32", reason="select() on pipes")
def test_a_seat_killed_on_the_first_night_sees_the_game_in_the_order_it_happened(tmp_path: Path) -> None:
    """Seed 6: Emma (seat 4, a villager) is killed on night 1, before any turn of hers."""
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "werewolf_deception.benchmarks.cli.main",
            "play",
            "--seed",
            "6",
            "--players",
            "6",
            "--seat",
            "player_4",
            "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == EXIT_OK, run.stderr
    game, _, ending = run.stdout.partition("\nGame over (seed 6): ")
    records = read_log(Path(re.search(r"^Log: (.+)$", ending, re.M).group(1)))  # type: ignore[union-attr]
    death = next(r for r in records if r["type"] == "death" and r["data"]["victim"] == 4)
    assert death["round"] == 1 and death["data"]["cause"] == "night", "pick a seed in which Emma dies on night 1"
    # The opening, the game's beginning, the night, the death, then the notice: in the order they happened.
    lines = game.splitlines()
    order = ["== Werewolf: you are Emma (player_4) ==", "HISTORY:",
             "The game begins with 6 players: Alice, Bob, Carla, Dmitri, Emma, Farid.", "Your role: villager.",
             "--- Night 1 ---", "Dawn: Emma (you) was killed in the night.", ELIMINATED, "--- Day 1 ---"]  # fmt: skip
    assert [lines.index(line) for line in order] == sorted(lines.index(line) for line in order)
    assert lines.index(ELIMINATED) == lines.index("Dawn: Emma (you) was killed in the night.") + 1
    assert INPUT_ENDED not in game  # never asked: the input never ran out
    check_screen(game, records, 4, check_log(records, 4, Person([])))
