"""The gate every command that calls a model passes, so that each fails the same way, fast and loud.

    probes = preflight_gate(sections, args)     # exit 2 (an int) when an endpoint cannot answer
    ...
    except (EndpointDownError, RunStoppedError) as exc:
        return stopped("rescore", exc, "the games rescored so far are kept")   # exit 3

1. **Preflight** (``werewolf_deception.agents.play.probes``): one probe per distinct (endpoint, model) before
anything is
   played or written; a failure names the seats and the endpoint and exits 2 (``--no-preflight`` skips it).
2. **Circuit breaker** (``werewolf_deception.agents.llm.endpoint``): ``--breaker`` calls in a row without a usable
answer, a
   refused key, or a hung server stop the command with exit 3, naming the endpoint and what tripped it.
3. **Validity**: each command's threshold (``--max-fallback-rate``, relabel's ``--max-failure-rate``)
   makes a finished command that does not measure the model exit 4.

``run`` and ``tournament`` (``run_command.execute``), ``relabel``, ``rescore``, ``detect-eval`` (its llm-judge) and
``python -m werewolf_deception.benchmarks.labels.evaluate --labeler llm`` pass it; the Inspect tasks' LLM seats pass the
same preflight and breaker inside Inspect (``inspect_models.InspectTransport``).
"""

from __future__ import annotations

import argparse
import sys

from werewolf_deception.agents.llm import EndpointDownError
from werewolf_deception.agents.play import AgentSpec, ProbeResult
from werewolf_deception.benchmarks.console import EXIT_STOPPED, run_preflight


def preflight_gate(sections: list[tuple[str, AgentSpec]], args: argparse.Namespace) -> list[ProbeResult] | int:
    """The preflight of ``sections`` (none: nothing to probe), unless ``--no-preflight``: the results, or exit 2."""
    if not sections or getattr(args, "no_preflight", False):
        return []
    return run_preflight(sections, bool(getattr(args, "quiet", False)))


def stopped(command: str, exc: BaseException, kept: str) -> int:
    """Say that ``command`` stopped on a tripped breaker (``exc`` names the endpoint and why) and what is kept; 3."""
    reason = exc.reason if isinstance(exc, EndpointDownError) else str(exc)
    shown = f"{exc.endpoint}: {reason}" if isinstance(exc, EndpointDownError) else reason
    print(
        f"{command.upper()} STOPPED: {shown}. {kept}; fix the endpoint and run the same command again.", file=sys.stderr
    )
    return EXIT_STOPPED
