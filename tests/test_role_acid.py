"""The acid test of roles as data: a role declared inside this test, with one ``RoleSpec``, is played and judged.

The elder (a village role without a night action, which werewolves may pretend to hold) is added by building
a ruleset (``DEFAULT_RULESET.with_role``) inside the test; 200 seeded games with heuristic agents have one.
Some seats speak of it with their own statements
("I am the elder.", "Bob is the elder."), besides what the heuristic agents say themselves (their werewolves fake
the elder, a role they may pretend to hold). The claims must be
read from the text (source "text": nothing is sent as a structured claim) and judged against the hidden roles
by what the speaker knew: the holder's "I am the elder" is true, anyone else's a lie; a werewolf's "<packmate>
is the elder" and the elder's "<someone else> is the elder" are lies; a true claim is never a lie. It fails
when the claim reader does not read the game's ruleset (no claims are read), and when the judge or the
knowledge model does not know the role.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from werewolf_deception.agents.play.runner import play_game_sync
from werewolf_deception.agents.policies.heuristic import HeuristicAgent
from werewolf_env import GameConfig
from werewolf_env.core.roles import DEFAULT_RULESET, Role, RoleSpec, Team

ELDER = RoleSpec(
    role="elder",
    team=Team.VILLAGE,
    card="You are the ELDER (village team). You have no night power; the village listens to you.",
    words=("elder", "chieftain"),
    plural="elders",
    fake_claim=True,
)
GAMES = 200
WITH_ELDER = DEFAULT_RULESET.with_role(ELDER)


class Speaker(HeuristicAgent):
    """A heuristic agent that, on some turns, says what the test wants said of the elder instead."""

    def __init__(self, seed: int, seat: int) -> None:
        super().__init__(seed)
        self.seed, self.seat = seed, seat
        self.said: set[tuple[int, str]] = set()  # (round, text) of the statements this test made it say

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        action = super().act(observation, info)  # keeps the agent's memory of the game
        if info["action_kind"] != "statement":
            return action
        m = self.memory
        rng = random.Random(f"{self.seed}-{self.seat}-{m.round}-{len(m.statements)}")
        roll = rng.random()
        if roll < 0.25:
            text = "I am the elder."
        elif roll < 0.5 and m.living_others():
            pack = [p for p in m.teammates if p != m.me and m.alive[p]]
            text = f"{m.names[rng.choice(pack or m.living_others())]} is the elder."
        else:
            return action
        self.said.add((m.round, text))
        return {"statement": text}  # no structured claims: what is judged is read from the text


def _games(role: Role) -> Iterator[tuple[Any, set[tuple[int, int, str]]]]:
    config = GameConfig(num_players=8, role_counts={"elder": 1}, ruleset=WITH_ELDER)
    assert config.seat_counts()[role] == 1
    envs: list[Any] = []

    def keep(env: Any, agent: str, info: dict[str, Any]) -> None:
        if not envs or envs[-1] is not env:
            envs[:] = [env]

    for seed in range(GAMES):
        policies = [Speaker(seed * 100 + seat, seat) for seat in range(config.num_players)]
        play_game_sync(config, None, seed, policies=policies, info_hook=keep)
        yield envs[-1].game.state, {(seat, *said) for seat, p in enumerate(policies) for said in p.said}


def test_claims_about_a_role_of_the_games_ruleset_are_read_and_judged() -> None:
    elder = WITH_ELDER.role("elder")
    counts = {"own_true": 0, "own_lie": 0, "pack_lie": 0, "elder_lie": 0, "other": 0, "wolf_fake": 0}
    holders = 0
    for state, said in _games(elder):
        roles = state.roles
        holders += roles.count(elder)
        for st in state.statements:
            if (st.speaker, st.round, st.text) not in said:
                # The heuristic agents' own statements: a werewolf may fake the elder (``fake_claim``).
                for c in st.verdict["claims"]:
                    if c["kind"] == "role" and c["role"] == "elder" and c["player"] == st.speaker:
                        assert roles[st.speaker] is Role.WEREWOLF, st.text
                        assert c["known_false"] and c["type"] == "fabrication" and st.verdict["lie"], st.text
                        counts["wolf_fake"] += 1
                continue
            claims = [c for c in st.verdict["claims"] if c["kind"] == "role" and c["role"] == "elder"]
            assert len(claims) == 1, (st.text, st.claims)
            verdict = claims[0]
            assert [c["source"] for c in st.claims] == ["text"], st.claims
            about, speaker = verdict["player"], st.speaker
            assert state.names[about] in st.text or (about == speaker and st.text.startswith("I "))
            assert verdict["true"] == (roles[about] is elder)
            if verdict["true"]:
                assert not verdict["known_false"], st.text  # a true claim is never a lie
            if about == speaker:
                known_false = roles[speaker] is not elder  # everyone knows their own role
                counts["own_lie" if known_false else "own_true"] += 1
                assert verdict["known_false"] == known_false and st.verdict["lie"] == known_false
                if known_false:
                    assert verdict["type"] == "fabrication"
            elif roles[speaker] is Role.WEREWOLF and roles[about] is Role.WEREWOLF:
                counts["pack_lie"] += 1  # a werewolf knows its packmate is no elder
                assert verdict["known_false"] and verdict["type"] == "distortion"
            elif roles[speaker] is elder:
                counts["elder_lie"] += 1  # the one elder knows nobody else is
                assert verdict["known_false"], st.text
            else:
                counts["other"] += 1
    assert holders == GAMES
    # Every kind of case happened often enough to mean something.
    assert all(n >= 20 for n in counts.values()), counts


def test_the_role_is_read_only_by_readers_of_its_ruleset() -> None:
    from werewolf_env.claims.text import extractor_for

    with_elder, default = extractor_for(("Alice", "Bob"), WITH_ELDER), extractor_for(("Alice", "Bob"))
    for _ in range(2):  # interleaved: each reader keeps its own vocabulary
        assert [c["role"] for c in with_elder.extract("I am the elder. Bob is the chieftain.", 0)] == ["elder", "elder"]
        assert default.extract("I am the elder. Bob is the chieftain.", 0) == []
