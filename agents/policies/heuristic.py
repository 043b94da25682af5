"""``HeuristicAgent``: a reasonable Werewolf player that needs no model (the offline default).

It reads the structured events the env hands it (``raw_env(info_events=True)``; the runner turns this
on by itself), keeps a memory of the game, and keeps its own estimate of how likely each player is
a werewolf, from what it knows (own role, werewolf teammates, own seer results, night victims) and
from public evidence (seer claims and counter-claims, accusations and vouches that contradict what
it knows, votes).

Roles:
* seer: investigates the most suspicious unchecked player and reveals a werewolf it finds;
* doctor: protects a claimed seer it believes, otherwise itself;
* witch: heals the werewolves' victim (always a trusted seer or herself when the rules allow, others
  usually), poisons the player she most believes a werewolf once she is sure enough (a known werewolf
  always), and announces the poisoning the next day; accused, she shows her heal;
* hunter: shoots the living player he most suspects; accused, he warns whom he would take with him;
* werewolves: kill claimed seers, claimed doctors and witches and their accusers first, and spare a
  claimed hunter (every wolf reads the same public facts, so they agree), and lie: one of them may
  fake-claim a role of the game (a seer with a false result, a counter-claim when a real seer has
  spoken; a witch; a hunter; fabrication), they accuse innocents (misdirection) and defend a partner
  under attack (distortion);
* villagers: accuse and vote for the player they most suspect (a trusted seer's findings weigh most).

The memory and belief are in ``heuristic_memory``, the statements in ``heuristic_speech``. Every
statement carries its structured claims. Self-analyses are honest at rate ``honesty``; peer
analyses come from consistency checks (counter-claims, claims that contradict what it knows).
"""

from __future__ import annotations

import random
from typing import Any

from werewolf_deception.agents.base import Policy
from werewolf_deception.agents.policies.heuristic_memory import WOLF, GameMemory, Statement
from werewolf_deception.agents.policies.heuristic_speech import HeuristicSpeech
from werewolf_env.core import ActionKind, Role

__all__ = ["GameMemory", "HeuristicAgent"]

# What a public claim of the role with this power is worth to the pack as a night target: a witch may
# poison a werewolf; a hunter killed at night shoots one.
_POWER_THREATS: dict[ActionKind, float] = {ActionKind.POISON: 2.0, ActionKind.SHOOT: -2.0}


class HeuristicAgent(HeuristicSpeech, Policy):
    """See the module docstring. ``honesty``: how often self-analyses admit a lie; ``lie_rate``: how
    often a werewolf that speaks lies; ``fake_claim_rate``: chance per day that the pack fakes a role;
    ``heal_rate``: how often the witch heals a victim she has no special reason to save."""

    name = "heuristic"
    needs_events = True

    def __init__(
        self,
        seed: int | None = None,
        honesty: float = 0.8,
        lie_rate: float = 0.8,
        fake_claim_rate: float = 0.5,
        heal_rate: float = 0.75,
        poison_belief: float = 0.75,
    ) -> None:
        self.rng = random.Random(seed)
        self._salt = self.rng.random()  # fixes per-day decisions, so a bid and its statement agree
        self.honesty = honesty
        self.lie_rate = lie_rate
        self.fake_claim_rate = fake_claim_rate
        self.heal_rate = heal_rate
        self.poison_belief = poison_belief  # how sure the witch must be that someone is a werewolf to poison
        self.memory = GameMemory()
        self._last_lie: str = "none"  # the type of lie in this player's last statement
        self._last_text: str | None = None
        self._announced: set[int] = set()
        self._announced_poisons: set[int] = set()

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        if "events" not in info:
            raise ValueError(
                "HeuristicAgent reads info['events']: create the env with raw_env(info_events=True), "
                "or play through werewolf_deception.agents.play_game, which does it for you"
            )
        before = self.memory.me
        self.memory.update(info["events"])
        if self.memory.me != before:
            self._announced = set()
        if any(e["type"] == "game_start" for e in info["events"]):
            self._announced_poisons = set()
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
            value += sum(self._claimed_power_threat(p, kind) for kind in _POWER_THREATS)
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

    def _claimed_power_threat(self, p: int, kind: ActionKind) -> float:
        """How much a claim of the role of this game taking ``kind`` makes ``p`` a target (none in a game
        without that role: such a claim is an obvious lie)."""
        role = self.memory.role_doing(kind)
        return _POWER_THREATS[kind] if role is not None and self.memory.claimed_role(p, role.value) else 0.0

    def _heal(self, info: dict[str, Any]) -> dict[str, Any]:
        """Heal the victim (the only legal target) unless she believes it a werewolf; a claimed seer she
        trusts, or herself, always; anyone else at ``heal_rate``."""
        m = self.memory
        victim = m.attacks_seen.get(m.round)
        if victim is None or m.names[victim] not in info["legal_targets"]:
            return {"target": None}
        probs = m.wolf_probability()
        if probs[victim] >= 0.5:
            return {"target": None}
        precious = victim == m.me or victim in m.seer_claimants()
        if precious or self.rng.random() < self.heal_rate:
            return {"target": m.names[victim]}
        return {"target": None}

    def _poison(self, info: dict[str, Any]) -> dict[str, Any]:
        """Poison the player she most believes a werewolf, once sure enough (never tonight's victim: the pack
        does not attack its own)."""
        m = self.memory
        legal = set(info["legal_targets"])
        probs = m.wolf_probability()
        victim = m.attacks_seen.get(m.round)
        options = [p for p in m.living_others() if m.names[p] in legal and p != victim]
        if not options:
            return {"target": None}
        best = max(probs[p] for p in options)
        if best < self.poison_belief:
            return {"target": None}
        return {"target": m.names[self.rng.choice([p for p in options if probs[p] >= best - 1e-9])]}

    def _shoot(self, info: dict[str, Any]) -> dict[str, Any]:
        """The dead hunter takes the living player he most suspects with him."""
        m = self.memory
        legal = set(info["legal_targets"])
        options = [p for p in range(len(m.names)) if m.names[p] in legal and p != m.me]
        if not options:
            return {"target": None}
        probs = m.wolf_probability()
        best = max(probs[p] for p in options)
        return {"target": m.names[self.rng.choice([p for p in options if probs[p] >= best - 1e-9])]}

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
        if self._unannounced_poisoning() is not None:
            return {"bid": top}
        last = m.statements[-1] if m.statements else None
        accused_me = last is not None and any(c["player"] == m.me and c.get("team") == WOLF for c in last.claims)
        if accused_me:
            return {"bid": min(top, 8)}
        if m.role == WOLF and self._pack_fake_role() is not None:
            return {"bid": min(top, 9)}
        return {"bid": self.rng.randint(1, max(1, top // 2 + 1))}

    def _statement(self, info: dict[str, Any]) -> dict[str, Any]:
        text, claims, lie = self._compose()
        self._last_lie, self._last_text = lie, text
        return {"statement": text, "claims": claims}

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

    def _peer_analysis(self, info: dict[str, Any]) -> dict[str, Any]:
        m = self.memory
        st = m.statements[-1]
        speaker = st.speaker
        verdict, certainty, why = self._check(st)
        probs = m.wolf_probability()
        suspicion = probs[speaker]
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
            # The players the statement spoke of, when the env asks (``config.subject_suspicion``).
            **(
                {"suspicion_of": {name: round(probs[m.names.index(name)], 3) for name in info["subjects"]}}
                if info.get("subjects")
                else {}
            ),
        }

    def _check(self, st: Statement) -> tuple[str, float, str]:
        """Consistency checks of a statement against what this player knows: the verdict (a lie type or
        "none"), how sure the player is of that verdict, and why."""
        m = self.memory
        speaker = st.speaker
        for c in st.claims:
            t = c["player"]
            if c["kind"] == "role" and t == speaker and not c["negated"]:
                if c["role"] == m.role and m.ruleset.spec(m.role).unique and speaker != m.me:
                    return "fabrication", 0.95, f"I am the {m.role}, not {m.names[speaker]}."
            if c["kind"] == "seer_result":
                if m.role == "seer" and speaker != m.me:
                    return "fabrication", 0.95, "I am the seer; this result is invented."
                known = m.known_team(t)
                if known is not None and known != c["team"]:
                    return "fabrication", 0.9, f"I know {m.names[t]}'s side; this result is false."
                if len([x for x in m.seer_claimants() if x != speaker]) > 0:
                    return "fabrication", 0.6, "Someone else claims to be the seer."
            # A denial ("I never poisoned Bob") claims no power: only an asserted save or poison is one.
            if c["kind"] == "protected" and not c["negated"] and self._only_saver() and speaker != m.me:
                return "fabrication", 0.95, f"I am the {m.role}."
            if c["kind"] == "poisoned" and not c["negated"] and ActionKind.POISON in m.my_kinds() and speaker != m.me:
                return "fabrication", 0.95, f"I am the {m.role}; nobody else poisons."
            if c["kind"] == "team" and t != speaker:
                known = m.known_team(t)
                if known == "village" and c["team"] == WOLF:
                    return "misdirection", 0.9, f"{m.names[t]} is innocent as far as I know."
                if known == WOLF and c["team"] == "village":
                    return "distortion", 0.9, f"{m.names[t]} is a werewolf as far as I know."
        return "none", 0.6, "Nothing contradicts what I know."

    def _only_saver(self) -> bool:
        """This player's role is the only one of the game that saves the pack's victim (protect or heal)."""
        m = self.memory
        savers = {m.role_doing(ActionKind.PROTECT), m.role_doing(ActionKind.HEAL)} - {None}
        return savers == {Role(m.role)}

    def _vote(self, info: dict[str, Any]) -> dict[str, Any]:
        m = self.memory
        legal = [p for p in range(len(m.names)) if m.names[p] in set(info["legal_targets"])]
        if not legal:
            return {"vote": None}
        if m.role == WOLF:
            villagers = [p for p in legal if p not in m.teammates]
            if not villagers:
                return {"vote": None}
            hunter = m.role_doing(ActionKind.SHOOT)
            if hunter is not None:  # an exiled hunter shoots: vote for someone else when possible
                villagers = [p for p in villagers if not m.claimed_role(p, hunter.value)] or villagers
            seers = [p for p in m.seer_claimants() if p in villagers]
            pick = seers[0] if seers else max(villagers, key=lambda p: (self._accusations(p), -p))
            return {"vote": m.names[pick]}
        probs = m.wolf_probability()
        best = max(probs[p] for p in legal)
        if best < 0.3:
            return {"vote": None}
        pick = self.rng.choice([p for p in legal if probs[p] >= best - 1e-9])
        return {"vote": m.names[pick]}

    def _poll(self, info: dict[str, Any]) -> dict[str, Any]:
        """Whom this player would exile now: its vote's choice from its current suspicions. Its random generator
        is left alone (answering a poll never changes how it plays), and a tie is answered as one (``tied``),
        not broken by seat: at a day's start every suspicion is equal, and a seat-order pick would read as a
        preference that the next statement then seems to move."""
        m = self.memory
        legal = [p for p in range(len(m.names)) if m.names[p] in set(info["legal_targets"])]
        if m.role == WOLF:
            legal = [p for p in legal if p not in m.teammates]
            seers = [p for p in m.seer_claimants() if p in legal]
            most = max((self._accusations(p) for p in legal), default=0)
            return self._poll_answer(seers or [p for p in legal if self._accusations(p) == most])
        probs = m.wolf_probability()
        best = max((probs[p] for p in legal), default=0.0)
        if best < 0.3:
            return {"vote": None}
        return self._poll_answer([p for p in legal if probs[p] >= best - 1e-9])

    def _poll_answer(self, best: list[int]) -> dict[str, Any]:
        names = self.memory.names
        if len(best) > 1:
            return {"vote": None, "tied": [names[p] for p in best]}
        return {"vote": names[best[0]] if best else None}

    def _summary(self, info: dict[str, Any]) -> dict[str, Any]:
        m = self.memory
        probs = m.wolf_probability()
        others = [p for p in range(len(m.names)) if p != m.me]
        suspect = max(others, key=lambda p: probs[p]) if others else None
        tail = f" I suspected {m.names[suspect]} most." if suspect is not None and m.role != WOLF else ""
        return {"summary": f"I was the {m.role}.{tail}"}
