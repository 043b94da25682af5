"""What the heuristic agent says: its statements and the structured claims that go with them.

Village roles speak from what they know: the seer reveals the werewolves it found (and later the
innocents), the witch announces a poisoning and, when accused, her heal, the hunter warns that an
exile costs the village the player he suspects most, the doctor reveals itself when accused, and
everyone accuses the player they most suspect. Werewolves lie: they defend an accused partner
(distortion), one of them fakes a role of this game once (fabrication), and they accuse innocents
(misdirection). Every text says exactly what its claims say, in plain phrasings the claim reader knows.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from werewolf_deception.agents.policies.heuristic_memory import WOLF, GameMemory, Statement, powers
from werewolf_env.core import ActionKind, Role

Speech = tuple[str, list[dict[str, Any]], str]  # (text, claims, the kind of lie or "none")

# The powers whose fake claim a werewolf knows how to script: a seer's result, a witch's potion, a hunter's
# threat; a role without powers is faked by its name alone. A fake doctor is not scripted: werewolves of the
# default game have only ever faked the seer, and default games must play as they always did.
_FAKED_POWERS = (ActionKind.UNMASK, ActionKind.HEAL, ActionKind.SHOOT)


class HeuristicSpeech:
    """The statements of ``HeuristicAgent`` (a mixin: the agent holds the memory and the random state)."""

    memory: GameMemory
    rng: random.Random
    lie_rate: float
    fake_claim_rate: float
    _salt: float
    _announced: set[int]  # seats whose seer result this player has announced
    _announced_poisons: set[int]  # rounds whose poisoning this witch has announced

    def _compose(self) -> Speech:
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
        poisoning = self._unannounced_poisoning()
        if poisoning is not None:
            self._announced_poisons.add(poisoning)
            victim = names[m.poisoned[poisoning]]
            when = " last night" if poisoning == m.round else ""  # she may get the floor only days later
            return (
                f"I am the {m.role}. I poisoned {victim}{when}.",
                [_claim("role", "me", role=m.role), _claim("poisoned", victim)],
                "none",
            )
        last = m.statements[-1] if m.statements else None
        if last is not None and any(c["player"] == m.me and c.get("team") == WOLF for c in last.claims):
            if ActionKind.HEAL in m.my_kinds() or ActionKind.SHOOT in m.my_kinds():
                return self._reveal_power(probs)
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

    def _reveal_power(self, probs: list[float]) -> Speech:
        """An accused witch shows her heal, an accused hunter his threat: true claims, as village roles make."""
        m = self.memory
        role = _claim("role", "me", role=m.role)
        if ActionKind.HEAL in m.my_kinds():
            saved = [p for p in m.healed.values() if m.alive[p] and p != m.me]
            if saved:
                name = m.names[saved[-1]]
                return f"I am the {m.role}. I saved {name} with my potion.", [role, _claim("protected", name)], "none"
            return f"I am the {m.role}, not a werewolf.", [role], "none"
        suspect = self._top_suspect(probs)
        if suspect is None:
            return f"I am the {m.role}, not a werewolf.", [role], "none"
        return f"I am the {m.role}: exile me and I take {m.names[suspect]} with me.", [role], "none"

    def _top_suspect(self, probs: list[float]) -> int | None:
        others = self.memory.living_others()
        return max(others, key=lambda p: (probs[p], -p)) if others else None

    def _unannounced_poisoning(self) -> int | None:
        """The round of this witch's poisoning she has not announced yet (she speaks of it the next day)."""
        for night in sorted(self.memory.poisoned):
            if night not in self._announced_poisons:
                return night
        return None

    # ------------------------------------------------------------------ werewolves

    def _wolf_statement(self, probs: list[float]) -> Speech:
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
        # Fake a role of this game (fabrication): a seer's result, countering a real seer when one has spoken.
        fake = self._pack_fake_role()
        if fake is not None:
            power = next((k for k in _FAKED_POWERS if k in powers(fake, self.memory.ruleset)), None)
            return self._fake_scripts()[power](fake, villagers) if power else self._fake_plain(fake, villagers)
        # Accuse an innocent, preferably one the village already suspects (misdirection).
        target = self._misdirection_target(villagers)
        claims = [_claim("team", names[target], team=WOLF, hedged=True)]
        return f"I suspect {names[target]} is a werewolf.", claims, "misdirection"

    def _misdirection_target(self, villagers: list[int]) -> int:
        return max(villagers, key=lambda p: (self._accusations(p), self.rng.random()))

    def _fake_scripts(self) -> dict[ActionKind, Callable[[Role, list[int]], Speech]]:
        return {
            ActionKind.UNMASK: self._fake_seer,
            ActionKind.HEAL: self._fake_witch,
            ActionKind.SHOOT: self._fake_hunter,
        }

    def _fake_seer(self, role: Role, villagers: list[int]) -> Speech:
        m = self.memory
        real = [c for c in m.seer_claimants() if c not in m.teammates and c != m.me and m.alive[c]]
        target = real[0] if real else self.rng.choice(villagers)
        return (
            f"I am the {role}. I checked {m.names[target]}, a werewolf.",
            [_claim("role", "me", role=role.value), _claim("seer_result", m.names[target], team=WOLF)],
            "fabrication",
        )

    def _fake_witch(self, role: Role, villagers: list[int]) -> Speech:
        """A fake witch takes credit for last night's survivor (the pack knows whom it attacked), or else
        points at an innocent."""
        m = self.memory
        attacked = m.pack_targets.get(m.round)
        if attacked is not None and m.alive[attacked] and attacked != m.me:
            name = m.names[attacked]
            return (
                f"I am the {role}. I saved {name} last night.",
                [_claim("role", "me", role=role.value), _claim("protected", name)],
                "fabrication",
            )
        name = m.names[self._misdirection_target(villagers)]
        return (
            f"I am the {role}. I suspect {name} is a werewolf.",
            [_claim("role", "me", role=role.value), _claim("team", name, team=WOLF, hedged=True)],
            "fabrication",
        )

    def _fake_plain(self, role: Role, villagers: list[int]) -> Speech:
        """A role without powers (a variant's): its name, and an accusation to make the claim count."""
        name = self.memory.names[self._misdirection_target(villagers)]
        return (
            f"I am the {role}. I suspect {name} is a werewolf.",
            [_claim("role", "me", role=role.value), _claim("team", name, team=WOLF, hedged=True)],
            "fabrication",
        )

    def _fake_hunter(self, role: Role, villagers: list[int]) -> Speech:
        m = self.memory
        name = m.names[self._misdirection_target(villagers)]
        text = f"I am the {role}: exile me and I take {name} with me."
        return text, [_claim("role", "me", role=role.value)], "fabrication"

    def _fakeable_roles(self) -> list[Role]:
        """Roles of this game werewolves may pretend to hold (``RoleSpec.fake_claim``) and know how to fake."""
        ruleset = self.memory.ruleset
        return [
            role
            for role in sorted(self.memory.roles_in_game, key=ruleset.index.__getitem__)
            if ruleset.specs[role].fake_claim
            and (not powers(role, ruleset) or any(k in powers(role, ruleset) for k in _FAKED_POWERS))
        ]

    def _pack_fake_role(self) -> Role | None:
        """The role the lowest-seat living wolf fakes today, if any: once per game, with probability per day;
        a real seer's claim is countered at once."""
        m = self.memory
        pack = sorted(p for p in m.teammates | {m.me} if m.alive[p])
        if not pack or pack[0] != m.me:
            return None
        fakeable = self._fakeable_roles()
        claimed = set(m.seer_claimants()).union(*(m.claimants_of(role) for role in fakeable))
        if any(c in pack for c in claimed):
            return None  # never twice
        seer = next((r for r in fakeable if ActionKind.UNMASK in powers(r, self.memory.ruleset)), None)
        if seer is not None and any(c not in m.teammates and c != m.me for c in m.seer_claimants()):
            return seer  # counter-claim a real seer
        # One draw per day, so a bid and the statement that follows it agree.
        if not fakeable or random.Random(f"{self._salt}-{m.round}").random() >= self.fake_claim_rate:
            return None
        if len(fakeable) == 1:
            return fakeable[0]
        return random.Random(f"{self._salt}-{m.round}-role").choice(fakeable)

    def _accusations(self, p: int) -> int:
        return sum(1 for st in self.memory.statements for c in st.claims if c["player"] == p and c.get("team") == WOLF)

    def _unannounced_wolf(self) -> int | None:
        m = self.memory
        for p, result in m.seer_results.items():
            if result == WOLF and m.alive[p] and p not in self._announced:
                return p
        return None

    # ------------------------------------------------------------------ own lies

    def _own_lie(self, st: Statement) -> str:
        """The kind of lie in a statement of this player's, judged by what it knows (as the engine does)."""
        m = self.memory
        kinds = m.my_kinds() if m.role else ()
        for c in st.claims:
            if c["kind"] == "role" and c["player"] == m.me and not c["negated"] and c["role"] != m.role:
                return "fabrication"
            if c["kind"] == "seer_result":
                mine = m.seer_results.get(c["player"])
                if m.role != "seer" or (mine is not None and (WOLF if mine == WOLF else "village") != c["team"]):
                    return "fabrication"
            if c["kind"] == "protected" and ActionKind.PROTECT not in kinds:
                if ActionKind.HEAL not in kinds or c["player"] not in m.healed.values():
                    return "fabrication"
            if c["kind"] == "poisoned" and c["player"] not in m.poisoned.values():
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
