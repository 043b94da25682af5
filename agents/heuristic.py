"""``HeuristicAgent``: a reasonable Werewolf player that needs no model (the offline default).

It reads the structured events the env hands it (``raw_env(info_events=True)``; the runner turns this
on by itself), keeps a memory of the game, and keeps its own estimate of how likely each player is
a werewolf, from what it knows (own role, werewolf teammates, own seer results, night victims) and
from public evidence (seer claims and counter-claims, accusations and vouches that contradict what
it knows, votes).

Roles:
* seer: investigates the most suspicious unchecked player and reveals a werewolf it finds;
* doctor: protects a claimed seer it believes, otherwise itself;
* werewolves: kill claimed seers, claimed doctors and their accusers first (every wolf reads the
  same public facts, so they agree), and lie: one of them may fake-claim seer with a false result
  (fabrication; a counter-claim when a real seer has spoken), they accuse innocents (misdirection)
  and defend a partner under attack (distortion);
* villagers: accuse and vote for the player they most suspect (a trusted seer's findings weigh most).

Every statement carries its structured claims. Self-analyses are honest at rate ``honesty``; peer
analyses come from consistency checks (counter-claims, claims that contradict what it knows).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from .base import Policy

WOLF = "werewolf"


@dataclass
class _Statement:
    round: int
    speaker: int
    text: str
    claims: list[dict[str, Any]]


@dataclass
class GameMemory:
    """What one player has seen of the game, rebuilt from its visible events."""

    me: int = -1
    names: list[str] = field(default_factory=list)
    role: str = ""
    teammates: set[int] = field(default_factory=set)
    config: dict[str, Any] = field(default_factory=dict)
    alive: list[bool] = field(default_factory=list)
    round: int = 1
    seer_results: dict[int, str] = field(default_factory=dict)  # own investigations: seat -> team or role
    protected: list[int | None] = field(default_factory=list)  # own protections
    night_victims: set[int] = field(default_factory=set)
    revealed: dict[int, str] = field(default_factory=dict)
    statements: list[_Statement] = field(default_factory=list)
    votes: list[dict[int, int | None]] = field(default_factory=list)

    def update(self, events: list[dict[str, Any]]) -> None:
        for e in events:
            kind, d = e["type"], e["data"]
            self.round = e["round"]
            if kind == "game_start":
                self.__init__()  # type: ignore[misc]  # a new game: forget the old one
                self.names = list(d["names"])
                self.config = d["config"]
                self.alive = [True] * len(self.names)
            elif kind == "role_assigned":
                self.me = e["audience"][0]
                self.role = d["role"]
                self.teammates = set(d.get("teammates", []))
            elif kind == "seer_result":
                self.seer_results[d["target"]] = d["result"]
            elif kind == "action" and d["kind"] == "protect":
                self.protected.append(d["parsed"]["target"])
            elif kind == "death" and d["victim"] is not None:
                self.alive[d["victim"]] = False
                if d["cause"] == "night":
                    self.night_victims.add(d["victim"])
                if "role" in d:
                    self.revealed[d["victim"]] = d["role"]
            elif kind == "statement":
                self.statements.append(_Statement(e["round"], d["speaker"], d["text"], d["claims"]))
            elif kind == "votes":
                self.votes.append({int(k): v for k, v in d["votes"].items()})

    # ------------------------------------------------------------------ what this player knows

    def living_others(self) -> list[int]:
        return [p for p, up in enumerate(self.alive) if up and p != self.me]

    def known_team(self, p: int) -> str | None:
        """The team of ``p`` if this player knows it for sure, else None."""
        if p == self.me:
            return WOLF if self.role == WOLF else "village"
        if self.role == WOLF:
            return WOLF if p in self.teammates else "village"
        if p in self.revealed:
            return WOLF if self.revealed[p] == WOLF else "village"
        if p in self.seer_results:
            return WOLF if self.seer_results[p] == WOLF else "village"
        if p in self.night_victims:
            return "village"
        return None

    def seer_claimants(self) -> list[int]:
        """Players who publicly claimed to be the seer (by role or by reporting a result), first first."""
        out: list[int] = []
        for st in self.statements:
            if (
                any(
                    (c["kind"] == "role" and c["role"] == "seer" and c["player"] == st.speaker and not c["negated"])
                    or c["kind"] == "seer_result"
                    for c in st.claims
                )
                and st.speaker not in out
            ):
                out.append(st.speaker)
        return out

    def claimed_results(self, claimant: int) -> list[tuple[int, str]]:
        return [
            (c["player"], c["team"] or ("village" if c["role"] != WOLF else WOLF))
            for st in self.statements
            if st.speaker == claimant
            for c in st.claims
            if c["kind"] == "seer_result"
        ]

    def claimed_role(self, p: int, role: str) -> bool:
        return any(
            c["kind"] == "role" and c["role"] == role and c["player"] == p and st.speaker == p and not c["negated"]
            for st in self.statements
            for c in st.claims
        )

    def wolf_probability(self) -> list[float]:
        """This player's estimate that each seat is a werewolf."""
        n = len(self.names)
        known = [self.known_team(p) for p in range(n)]
        unknown = [p for p in range(n) if known[p] is None and self.alive[p]]
        wolves_total = int(self.config.get("num_werewolves", 2))
        wolves_known = sum(1 for p in range(n) if known[p] == WOLF)
        base = max(wolves_total - wolves_known, 0) / max(len(unknown), 1)
        score = [base] * n
        claimants = self.seer_claimants()
        for c in claimants:
            trust = 1.0 if len(claimants) == 1 else 0.5
            contradicted = any(known[t] is not None and known[t] != team for t, team in self.claimed_results(c)) or (
                self.role == "seer" and c != self.me
            )
            if contradicted:
                score[c] += 0.8
                continue
            if len(claimants) > 1:
                score[c] += 0.15
            for target, team in self.claimed_results(c):
                score[target] += 0.45 * trust if team == WOLF else -0.3 * trust
        for st in self.statements:
            for claim in st.claims:
                t, s = claim["player"], st.speaker
                if claim["kind"] != "team" or t == s or claim["negated"]:
                    continue
                if claim["team"] == WOLF:
                    score[s] += 0.3 if known[t] == "village" else 0.0
                    score[t] += 0.05
                elif known[t] == WOLF:
                    score[s] += 0.4  # vouched for a werewolf
        for day in self.votes:
            for voter, target in day.items():
                if target is not None and known[target] == "village":
                    score[voter] += 0.08
                elif target is not None and known[target] == WOLF:
                    score[voter] -= 0.08
        return [
            (1.0 if known[p] == WOLF else 0.0) if known[p] is not None else min(max(score[p], 0.02), 0.98)
            for p in range(n)
        ]


class HeuristicAgent(Policy):
    """See the module docstring. ``honesty``: how often self-analyses admit a lie; ``lie_rate``: how
    often a werewolf that speaks lies; ``fake_claim_rate``: chance per day that the pack fakes a seer."""

    name = "heuristic"
    needs_events = True

    def __init__(
        self, seed: int | None = None, honesty: float = 0.8, lie_rate: float = 0.8, fake_claim_rate: float = 0.5
    ) -> None:
        self.rng = random.Random(seed)
        self._salt = self.rng.random()  # fixes per-day decisions, so a bid and its statement agree
        self.honesty = honesty
        self.lie_rate = lie_rate
        self.fake_claim_rate = fake_claim_rate
        self.memory = GameMemory()
        self._last_lie: str = "none"  # the type of lie in this player's last statement
        self._last_text: str | None = None
        self._announced: set[int] = set()

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        if "events" not in info:
            raise ValueError(
                "HeuristicAgent reads info['events']: create the env with raw_env(info_events=True), "
                "or play through agents.play_game, which does it for you"
            )
        before = self.memory.me
        self.memory.update(info["events"])
        if self.memory.me != before:
            self._announced = set()
        kind = info["action_kind"]
        handler = getattr(self, f"_{kind}")
        return handler(info)

    # ------------------------------------------------------------------ night

    def _eliminate(self, info: dict[str, Any]) -> dict[str, Any]:
        m = self.memory
        targets = [p for p in m.living_others() if p not in m.teammates]
        if not targets:
            return {"target": None}

        def threat(p: int) -> float:
            value = 0.0
            if p in m.seer_claimants():
                value += 3.0
            if m.claimed_role(p, "doctor"):
                value += 2.0
            for st in m.statements:
                if st.speaker == p:
                    value += sum(
                        1.0
                        for c in st.claims
                        if c["kind"] in ("team", "seer_result")
                        and c["team"] == WOLF
                        and c["player"] in m.teammates | {m.me}
                    )
            return value

        # Every wolf reads the same public facts, so a real threat gets the same vote from all; with
        # none, each picks at random and the engine breaks the tie.
        scores = {p: threat(p) for p in targets}
        best = max(scores.values())
        return {"target": m.names[self.rng.choice([p for p in targets if scores[p] == best])]}

    def _protect(self, info: dict[str, Any]) -> dict[str, Any]:
        m = self.memory
        legal = set(info["legal_targets"])
        probs = m.wolf_probability()
        trusted = [c for c in m.seer_claimants() if m.alive[c] and c != m.me and probs[c] < 0.5]
        for choice in [*trusted, m.me, *m.living_others()]:
            if m.names[choice] in legal:
                return {"target": m.names[choice]}
        return {"target": None}

    def _unmask(self, info: dict[str, Any]) -> dict[str, Any]:
        m = self.memory
        probs = m.wolf_probability()
        options = [p for p in m.living_others() if p not in m.seer_results]
        if not options:
            options = m.living_others()
        best = max(probs[p] for p in options)
        choice = self.rng.choice([p for p in options if probs[p] >= best - 1e-9])
        return {"target": m.names[choice]}

    # ------------------------------------------------------------------ day

    def _bid(self, info: dict[str, Any]) -> dict[str, Any]:
        m = self.memory
        top = int(info.get("max_bid", 10))
        if m.role == "seer" and self._unannounced_wolf() is not None:
            return {"bid": top}
        last = m.statements[-1] if m.statements else None
        accused_me = last is not None and any(c["player"] == m.me and c.get("team") == WOLF for c in last.claims)
        if accused_me:
            return {"bid": min(top, 8)}
        if m.role == WOLF and self._pack_should_fake_claim():
            return {"bid": min(top, 9)}
        return {"bid": self.rng.randint(1, max(1, top // 2 + 1))}

    def _statement(self, info: dict[str, Any]) -> dict[str, Any]:
        text, claims, lie = self._compose()
        self._last_lie, self._last_text = lie, text
        return {"statement": text, "claims": claims}

    def _compose(self) -> tuple[str, list[dict[str, Any]], str]:
        m = self.memory
        names = m.names
        probs = m.wolf_probability()
        others = m.living_others()
        if m.role == WOLF:
            return self._wolf_statement(probs)
        if m.role == "seer":
            wolf = self._unannounced_wolf()
            if wolf is not None:
                self._announced.add(wolf)
                return (
                    f"I am the seer. I checked {names[wolf]}, a werewolf.",
                    [_claim("role", "me", role="seer"), _claim("seer_result", names[wolf], team=WOLF)],
                    "none",
                )
            fakes = [c for c in m.seer_claimants() if c != m.me and m.alive[c]]
            if fakes:
                return (
                    f"I am the real seer. {names[fakes[0]]} is a werewolf.",
                    [_claim("role", "me", role="seer"), _claim("team", names[fakes[0]], team=WOLF)],
                    "none",
                )
            cleared = [p for p, r in m.seer_results.items() if r != WOLF and m.alive[p] and p not in self._announced]
            if cleared and m.round >= 2:
                self._announced.add(cleared[0])
                return (
                    f"I am the seer. I checked {names[cleared[0]]}, innocent.",
                    [_claim("role", "me", role="seer"), _claim("seer_result", names[cleared[0]], team="village")],
                    "none",
                )
        last = m.statements[-1] if m.statements else None
        if last is not None and any(c["player"] == m.me and c.get("team") == WOLF for c in last.claims):
            role_word = "the doctor" if m.role == "doctor" and m.round >= 2 else "innocent"
            claim = (
                _claim("role", "me", role="doctor")
                if role_word == "the doctor"
                else _claim("team", "me", team="village")
            )
            return f"I am {role_word}, {names[last.speaker]} is wrong about me.", [claim], "none"
        suspect = max(others, key=lambda p: (probs[p], -p)) if others else None
        if suspect is not None and probs[suspect] >= 0.45:
            claims = [_claim("team", names[suspect], team=WOLF, hedged=True)]
            return f"I suspect {names[suspect]} is a werewolf.", claims, "none"
        return "I have nothing to add yet.", [], "none"

    def _wolf_statement(self, probs: list[float]) -> tuple[str, list[dict[str, Any]], str]:
        m = self.memory
        names = m.names
        villagers = [p for p in m.living_others() if p not in m.teammates]
        if not villagers or self.rng.random() > self.lie_rate:
            return "I have nothing to add yet.", [], "none"
        # Defend a partner who was just accused (distortion).
        last = m.statements[-1] if m.statements else None
        if last is not None and last.speaker not in m.teammates | {m.me}:
            accused = [c["player"] for c in last.claims if c.get("team") == WOLF and c["player"] in m.teammates]
            if accused and m.alive[accused[0]]:
                return (
                    f"I believe {names[accused[0]]} is innocent.",
                    [_claim("team", names[accused[0]], team="village", hedged=True)],
                    "distortion",
                )
        # Fake a seer claim, countering a real seer when one has spoken (fabrication).
        if self._pack_should_fake_claim():
            real = [c for c in m.seer_claimants() if c not in m.teammates and c != m.me and m.alive[c]]
            target = real[0] if real else self.rng.choice(villagers)
            return (
                f"I am the seer. I checked {names[target]}, a werewolf.",
                [_claim("role", "me", role="seer"), _claim("seer_result", names[target], team=WOLF)],
                "fabrication",
            )
        # Accuse an innocent, preferably one the village already suspects (misdirection).
        target = max(villagers, key=lambda p: (self._accusations(p), self.rng.random()))
        claims = [_claim("team", names[target], team=WOLF, hedged=True)]
        return f"I suspect {names[target]} is a werewolf.", claims, "misdirection"

    def _pack_should_fake_claim(self) -> bool:
        """The lowest-seat living wolf fakes a seer claim once, with probability per day; never twice."""
        m = self.memory
        pack = sorted(p for p in m.teammates | {m.me} if m.alive[p])
        if not pack or pack[0] != m.me:
            return False
        if any(c in pack or c == m.me for c in m.seer_claimants()):
            return False
        if any(c not in m.teammates and c != m.me for c in m.seer_claimants()):
            return True  # counter-claim a real seer
        # One draw per day, so a bid and the statement that follows it agree.
        return random.Random(f"{self._salt}-{m.round}").random() < self.fake_claim_rate

    def _accusations(self, p: int) -> int:
        return sum(1 for st in self.memory.statements for c in st.claims if c["player"] == p and c.get("team") == WOLF)

    def _unannounced_wolf(self) -> int | None:
        m = self.memory
        for p, result in m.seer_results.items():
            if result == WOLF and m.alive[p] and p not in self._announced:
                return p
        return None

    def _self_analysis(self, info: dict[str, Any]) -> dict[str, Any]:
        last = self.memory.statements[-1] if self.memory.statements else None
        # Normally this player composed the statement and knows what kind of lie it was; when it
        # only labels (re-scoring a logged game) it judges its own logged words by what it knows.
        lie = self._last_lie if last is None or last.text == self._last_text else self._own_lie(last)
        lied = lie != "none"
        honest = self.rng.random() < self.honesty
        # ``confidence`` is the stated probability that the statement is deceptive: a denied lie
        # claims a little less certainty (0.2) than a true statement's 0.05.
        if lied and honest:
            return {
                "is_deceptive": True,
                "confidence": 0.9,
                "deception_type": lie,
                "reasoning": "I said what I knew to be false.",
            }
        return {
            "is_deceptive": False,
            "confidence": 0.2 if lied else 0.05,
            "deception_type": "none",
            "reasoning": "I said what I believe.",
        }

    def _own_lie(self, st: _Statement) -> str:
        """The kind of lie in a statement of this player's, judged by what it knows (as the engine does)."""
        m = self.memory
        for c in st.claims:
            if c["kind"] == "role" and c["player"] == m.me and not c["negated"] and c["role"] != m.role:
                return "fabrication"
            if c["kind"] == "seer_result":
                mine = m.seer_results.get(c["player"])
                if m.role != "seer" or (mine is not None and (WOLF if mine == WOLF else "village") != c["team"]):
                    return "fabrication"
            if c["kind"] == "protected" and m.role != "doctor":
                return "fabrication"
        for c in st.claims:
            if c["kind"] == "team" and not c.get("negated"):
                known = m.known_team(c["player"])
                if known is None or known == c["team"]:
                    continue
                if c["player"] == m.me:
                    return "fabrication"
                return "misdirection" if c["team"] == WOLF else "distortion"
        return "none"

    def _peer_analysis(self, info: dict[str, Any]) -> dict[str, Any]:
        m = self.memory
        st = m.statements[-1]
        speaker = st.speaker
        verdict, certainty, why = self._check(st)
        suspicion = m.wolf_probability()[speaker]
        if verdict == "none" and suspicion >= 0.6:
            verdict, certainty, why = "misdirection", round(suspicion, 2), "I already suspect the speaker."
        flagged = verdict != "none"
        return {
            "is_deceptive": flagged,
            # The answer's confidence is the probability the statement is deceptive, not certainty in the
            # verdict; rounded so "1 - 0.6" is logged as 0.4.
            "confidence": certainty if flagged else round(1.0 - certainty, 6),
            "deception_type": verdict,
            "reasoning": why,
            "suspicion": round(suspicion, 3),
        }

    def _check(self, st: _Statement) -> tuple[str, float, str]:
        """Consistency checks of a statement against what this player knows: the verdict (a lie type or
        "none"), how sure the player is of that verdict, and why."""
        m = self.memory
        speaker = st.speaker
        for c in st.claims:
            t = c["player"]
            if c["kind"] == "role" and t == speaker and not c["negated"]:
                if c["role"] == m.role and m.role in ("seer", "doctor") and speaker != m.me:
                    return "fabrication", 0.95, f"I am the {m.role}, not {m.names[speaker]}."
            if c["kind"] == "seer_result":
                if m.role == "seer" and speaker != m.me:
                    return "fabrication", 0.95, "I am the seer; this result is invented."
                known = m.known_team(t)
                if known is not None and known != c["team"]:
                    return "fabrication", 0.9, f"I know {m.names[t]}'s side; this result is false."
                if len([x for x in m.seer_claimants() if x != speaker]) > 0:
                    return "fabrication", 0.6, "Someone else claims to be the seer."
            if c["kind"] == "protected" and m.role == "doctor" and speaker != m.me:
                return "fabrication", 0.95, "I am the doctor."
            if c["kind"] == "team" and t != speaker:
                known = m.known_team(t)
                if known == "village" and c["team"] == WOLF:
                    return "misdirection", 0.9, f"{m.names[t]} is innocent as far as I know."
                if known == WOLF and c["team"] == "village":
                    return "distortion", 0.9, f"{m.names[t]} is a werewolf as far as I know."
        return "none", 0.6, "Nothing contradicts what I know."

    def _vote(self, info: dict[str, Any]) -> dict[str, Any]:
        m = self.memory
        legal = [p for p in range(len(m.names)) if m.names[p] in set(info["legal_targets"])]
        if not legal:
            return {"vote": None}
        if m.role == WOLF:
            villagers = [p for p in legal if p not in m.teammates]
            if not villagers:
                return {"vote": None}
            seers = [p for p in m.seer_claimants() if p in villagers]
            pick = seers[0] if seers else max(villagers, key=lambda p: (self._accusations(p), -p))
            return {"vote": m.names[pick]}
        probs = m.wolf_probability()
        best = max(probs[p] for p in legal)
        if best < 0.3:
            return {"vote": None}
        pick = self.rng.choice([p for p in legal if probs[p] >= best - 1e-9])
        return {"vote": m.names[pick]}

    def _summary(self, info: dict[str, Any]) -> dict[str, Any]:
        m = self.memory
        probs = m.wolf_probability()
        others = [p for p in range(len(m.names)) if p != m.me]
        suspect = max(others, key=lambda p: probs[p]) if others else None
        tail = f" I suspected {m.names[suspect]} most." if suspect is not None and m.role != WOLF else ""
        return {"summary": f"I was the {m.role}.{tail}"}


def _claim(
    kind: str, player: str, role: str | None = None, team: str | None = None, hedged: bool = False
) -> dict[str, Any]:
    claim: dict[str, Any] = {"kind": kind, "player": player}
    if hedged:
        claim["hedged"] = True
    if role is not None:
        claim["role"] = role
    if team is not None:
        claim["team"] = team
    return claim
