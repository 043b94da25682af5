"""Extension modules of the optional compiled build (``WEREWOLF_COMPILE=1``, read by
``build_backend/werewolf_build.py``): everything else about the package is in ``pyproject.toml``.

``COMPILED`` are the modules the compiled build turns into C extensions with mypyc, from the same source: the
rules engine, the state and what a seat sees, the observation text and vector, the action parser (with its reading
of untrusted values and its check for copied instructions) and the claim reader. A module goes here only if the
test suite passes against the compiled build with it
(``.ci/run`` builds it, runs the tests of these modules against it and compares default game logs).
"""

from __future__ import annotations

import os

from setuptools import setup

COMPILED = [
    "werewolf_env/core/state.py",
    "werewolf_env/core/visibility.py",
    "werewolf_env/core/names.py",
    "werewolf_env/core/inert_text.py",
    "werewolf_env/core/json_input.py",
    "werewolf_env/engine/rules_base.py",
    "werewolf_env/engine/game.py",
    "werewolf_env/engine/phases.py",
    "werewolf_env/engine/rules.py",
    "werewolf_env/engine/rules_day.py",
    "werewolf_env/observe/build.py",
    "werewolf_env/observe/transcript.py",
    "werewolf_env/observe/text.py",
    "werewolf_env/observe/public.py",
    "werewolf_env/observe/observation.py",
    "werewolf_env/observe/layout.py",
    "werewolf_env/actions/formats.py",
    "werewolf_env/actions/parse.py",
    "werewolf_env/claims/tokens.py",
    "werewolf_env/claims/context.py",
    "werewolf_env/claims/pronouns.py",
    "werewolf_env/claims/words.py",
    "werewolf_env/claims/night.py",
    "werewolf_env/claims/disputes.py",
    "werewolf_env/claims/patterns.py",
    "werewolf_env/claims/reads.py",
    "werewolf_env/claims/reader.py",
    "werewolf_env/claims/reading.py",
    "werewolf_env/claims/text.py",
    "werewolf_env/claims/judge.py",
]


def ext_modules() -> list:  # type: ignore[type-arg]
    if os.environ.get("WEREWOLF_MYPYC_BUILD") != "1":  # set by the backend when it builds the compiled wheel
        return []
    from mypyc.build import mypycify

    # The overrides of pyproject.toml name modules of every extra: unused in this build, not an error here.
    # Not ``engine/graph.py``, which ``python -m`` runs (an extension module cannot be): the graph it draws is
    # ``engine/phases.py``. Native classes cannot be deep-copied (``copy.deepcopy`` of a ``Game``).
    return mypycify(["--no-warn-unused-configs", *COMPILED], opt_level="3")


setup(ext_modules=ext_modules())
