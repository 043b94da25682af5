"""Readers of games with different rulesets read at once, in several threads, each as it reads alone.

The claim reader's vocabulary is one immutable value per ruleset (``claims.patterns.vocabulary``), held by
each ``ClaimExtractor``: no module attribute changes while a statement is read, so nothing a thread reads
with can be swapped under it by another.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from werewolf_env.claims import ClaimExtractor
from werewolf_env.claims import patterns as cp
from werewolf_env.claims import words as cw
from werewolf_env.core import DEFAULT_RULESET, ActionKind, RoleSpec, Ruleset, Team

NAMES = ("Alice", "Bob", "Carla", "Dmitri", "Emma", "Farid")
BODYGUARD = RoleSpec(
    role="bodyguard",
    team=Team.VILLAGE,
    night=ActionKind.PROTECT,
    fake_claim=True,
    plural="bodyguards",
    words=("bodyguard", "guard", "protector"),
    card="You are the BODYGUARD (village team). Each night you guard one living player.",
)
ORACLE = RoleSpec(
    role="oracle",
    team=Team.VILLAGE,
    night=ActionKind.UNMASK,
    plural="oracles",
    words=("oracle", "prophet"),
    card="You are the ORACLE (village team). Each night you learn one player's team.",
)
RULESETS = (
    DEFAULT_RULESET,
    DEFAULT_RULESET.with_role(BODYGUARD, takes_over=("bodyguard", "guard", "protector")),
    DEFAULT_RULESET.without_role("seer").with_role(ORACLE, takes_over=("oracle",)),
)
# Each reads differently in at least two of the rulesets.
STATEMENTS = (
    "I am the bodyguard. I protected Bob last night.",
    "As the protector, I can tell you Carla is a wolf.",
    "Bob is the guard, and Dmitri (the doctor) is clean.",
    "I'm the oracle. I checked Emma, she came up as a werewolf.",
    "Farid can't have checked anyone; Bob's prophet claim is fake.",
    "Emma, the seer, is lying. Prophet Carla says Bob = wolf.",
    "I retract my oracle claim. Alice is the seer and Bob is the bodyguard.",
)


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Threads switch as often as the interpreter allows, so that any shared state read mid-statement shows."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def read_alone(ruleset: Ruleset, text: str, speaker: int) -> list[dict[str, Any]]:
    return ClaimExtractor(NAMES, ruleset).extract(text, speaker)


def test_the_statements_read_differently_in_each_ruleset() -> None:
    """The test below means something: every ruleset reads some statement its own way."""
    reads = [[read_alone(rs, text, 0) for text in STATEMENTS] for rs in RULESETS]
    for i, mine in enumerate(reads):
        for other in reads[i + 1 :]:
            assert mine != other


def test_readers_of_different_rulesets_in_several_threads_read_as_alone(busy_switching: None) -> None:
    jobs = [(rs, text, speaker) for rs in RULESETS for text in STATEMENTS for speaker in (0, 3)]
    alone = [read_alone(*job) for job in jobs]
    start = threading.Barrier(8)

    def work(offset: int) -> list[tuple[int, list[dict[str, Any]]]]:
        start.wait()
        out = []
        for round_ in range(20):
            for k in range(len(jobs)):
                index = (k * 7 + offset + round_) % len(jobs)
                rs, text, speaker = jobs[index]
                # A fresh reader each time: nothing memoised, every statement read afresh.
                out.append((index, ClaimExtractor(NAMES, rs).extract(text, speaker)))
        return out

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = [item for chunk in pool.map(work, range(8)) for item in chunk]
    assert len(results) == 8 * 20 * len(jobs)
    wrong = [(jobs[index][0], jobs[index][1]) for index, claims in results if claims != alone[index]]
    assert not wrong, f"{len(wrong)} reads differ from the same read alone, e.g. {wrong[0]}"


def test_no_module_attribute_changes_while_reading() -> None:
    """Reading statements of several rulesets leaves every module attribute of the reader's modules as it was."""
    modules = [sys.modules[name] for name in sorted(sys.modules) if name.startswith("werewolf_env.claims.")]
    before = {(m.__name__, key): value for m in modules for key, value in vars(m).items()}
    for rs in RULESETS:
        for text in STATEMENTS:
            read_alone(rs, text, 1)
    after = {(m.__name__, key): value for m in modules for key, value in vars(m).items()}
    assert after.keys() == before.keys()
    assert all(after[key] is before[key] for key in before)


def test_one_vocabulary_per_ruleset() -> None:
    """Built once per ruleset (equal rulesets share it), immutable, and the old module state is gone."""
    again = DEFAULT_RULESET.with_role(BODYGUARD, takes_over=("bodyguard", "guard", "protector"))
    assert again is not RULESETS[1] and cp.vocabulary(again) is cp.vocabulary(RULESETS[1])
    assert ClaimExtractor(NAMES, again).vocab is cp.vocabulary(RULESETS[1])
    assert cp.vocabulary(RULESETS[2]).words.checker_word == "oracle"
    assert cw.lexicon(DEFAULT_RULESET).checker_word == "seer"
    with pytest.raises(AttributeError):
        cp.vocabulary().words.pred_alt = ""  # type: ignore[misc]
    with pytest.raises(AttributeError, match="lexicon"):
        cw.PREDICATES  # noqa: B018
    with pytest.raises(AttributeError, match="lexicon"):
        cw.using(DEFAULT_RULESET)
