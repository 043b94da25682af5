"""How ``tests/data/report_golden`` was made (kept to document it; the test never runs this).

    PYTHONPATH=<checkout> python tests/data/report_golden/make_fixture.py /tmp/golden

plays a small run into ``/tmp/golden/run`` and writes ``werewolf-bench report``'s outputs for it into
``/tmp/golden/expected/{regex,llm}``. The stored run (``run/``, gzipped) and outputs (``expected/``:
``metrics.json`` and ``tables/*.csv``, gzipped, with the run's folder written ``{RUN}`` and ``generated_by``
``{GENERATED_BY}``) came from commit 9c850f5, the report that held every game in memory, so
``tests/test_report_memory_golden.py`` checks that the streamed report writes the same bytes. Regenerate the outputs
only for a change of figures that is meant (and say so in its commit). The outputs were regenerated once since, for
metrics schema 6 (persuasion, issue 20), after checking that every earlier key, value, row and column stayed the same:
the only changes are ``schema_version``, the new ``persuasion`` figures, the new statement and analysis columns, and the
new (empty) ``polls`` table. And once for token accounting (issue 19), checked the same way: the only changes are the
games table's ``cached_tokens`` and ``llm_calls`` and the players table's ``cached_tokens`` columns (0 here), the
totals' ``cached_tokens``, ``llm_calls`` and ``tokens``, and the document's ``tokens`` (empty: no model calls). And once
for the CSV formula escape (issue 31), checked cell by cell: every table reads back, through
``werewolf_deception.benchmarks.report.tables.cell_text``, as the stored one did; the only changes are the ``'`` before
the names starting with ``=``, ``-``, ``+`` or ``@``. And once for persuasion's controls (issue 32), checked key by key
and cell by cell: every earlier key, value, row and column is the same; the only changes are new keys
(``shift_control``, ``persuasion_net``, ``control_coverage``,
``misled_difference``, the ``..._without_first`` vote swings, ``resistance_net``) and new columns (statements:
``controls_asked``, ``controls_reported``, ``shift_control``, ``day_first``; analyses: ``shift_control``;
players: ``werewolf_env.record.persuasion.SEAT_FIGURES``). And once for the report's fallback limit, checked key by
key: the only changes are ``run.max_fallback_rate`` (0.1) and ``run.max_fallback_rate_from`` ("default": the
fixture's run has no ``summary.json``). And once for each policy's figures by team, checked key by key: the only
change is a new ``by_policy_team`` grouping in seven sections (the run has three policies); the tables are the same.

The run: 6 seats with names a CSV or a spreadsheet could trip on; three heuristic games, one with
random villagers under a policy label holding a comma, quotes and ``=``, one whose every analysis falls
back (``GarbageAnalyst``), one cut in half (unfinished: left out); and an ``llm`` labels file with
missing lines, errors, flipped lies, hedged claims and a line matching no statement.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.test_metrics import GarbageAnalyst
from werewolf_deception.agents import play_game_sync
from werewolf_deception.benchmarks.report.build import build_report
from werewolf_env.analysis.metrics import GameRecord
from werewolf_env.engine.log import read_log

NAMES = ("Ann, Jr.", 'Bo "Q"', "=SUM(A1)", "-minus|pipe", "+$x$", "@at")
# The report's options for the stored outputs (no baseline is played: the heuristic one is the run's own games).
REPORT_OPTIONS = {"baselines": ("heuristic",), "baseline_games": 2, "resamples": 200, "plots": False}
LABELERS = ("regex", "llm")


def play(run: Path) -> None:
    games = run / "games"
    config = {"num_players": 6, "names": list(NAMES)}
    random_villagers = {"default": {"kind": "heuristic"},
                        "roles": {"villager": {"kind": "random", "name": 'rand, "v" =1'}}}  # fmt: skip
    for seed, lineup in {1: "heuristic", 2: "heuristic", 3: "heuristic", 4: random_villagers, 6: "heuristic"}.items():
        play_game_sync(config, lineup, seed, log_dir=games)
    play_game_sync(config, None, 5, log_dir=games, policies=[GarbageAnalyst(500 + s) for s in range(6)])
    cut = games / "game-00000-seed6.ndjson"
    lines = cut.read_text(encoding="utf-8").splitlines(keepends=True)
    cut.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    rows: list[dict] = []
    for path in sorted(games.glob("*.ndjson")):
        record = GameRecord.from_events(read_log(path))
        for st in record.statements:
            k = st.id + 7 * len(rows)
            if k % 11 == 0:
                continue  # no line
            if k % 13 == 0:
                rows.append(
                    {
                        "game": path.name,
                        "statement_id": st.id,
                        "speaker": st.speaker,
                        "claims": None,
                        "lie": None,
                        "error": "timeout: no answer",
                    }
                )
                continue
            lie = (not st.lie) if k % 5 == 0 else st.lie
            claims = [dict(c, source="llm", hedged=bool(c.get("hedged")) or k % 3 == 0) for c in st.claims]
            rows.append(
                {
                    "game": path.name,
                    "statement_id": st.id,
                    "speaker": st.speaker,
                    "claims": claims,
                    "lie": lie,
                    "lie_strict": lie and k % 2 == 0,
                    "type": "fabrication" if lie else None,
                    "verdicts": claims,
                    "error": None,
                }
            )
    rows.append({"game": "nope.ndjson", "statement_id": 1, "claims": [], "lie": False})  # matches no statement
    (run / "claims").mkdir()
    (run / "claims" / "llm.ndjson").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def main(out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    play(out / "run")
    for labeler in LABELERS:
        build_report(out / "run", out=out / "expected" / labeler, labeler=labeler, **REPORT_OPTIONS)  # type: ignore[arg-type]


if __name__ == "__main__":
    main(Path(sys.argv[1]))
