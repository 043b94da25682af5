"""The phase graph as a Mermaid state diagram: ``werewolf-graph``, or ``python -m werewolf_env.engine.graph``.

The graph itself, the one table of every node, its handler and where it routes next, is
``werewolf_env.engine.phases.PHASE_GRAPH``; its names are also here, where they have long been imported from.
"""

from __future__ import annotations

import sys

from werewolf_env.engine.phases import PAUSE_NODES, PHASE_GRAPH, Node, advance, route

__all__ = ["PAUSE_NODES", "PHASE_GRAPH", "Node", "advance", "main", "route", "to_mermaid"]


def to_mermaid() -> str:
    """The graph as a Mermaid state diagram (node ids are prefixed: ``end`` is a Mermaid keyword)."""
    lines = ["stateDiagram-v2"]
    for name, node in PHASE_GRAPH.items():
        shape = "asks players" if node.kind == "collect" else "engine"
        lines.append(f'    state "{name} ({shape})" as n_{name}')
    lines.append("    [*] --> n_start")
    for name, node in PHASE_GRAPH.items():
        for _guard, label, target in node.routes:
            lines.append(f"    n_{name} --> n_{target}" + (f": {label}" if label else ""))
    lines.append("    n_end --> [*]")
    lines.append("    note right of n_eliminate: eliminate, protect and unmask form one simultaneous group")
    return "\n".join(lines)


def main() -> None:
    sys.stdout.write(to_mermaid() + "\n")


if __name__ == "__main__":
    main()
