"""The docs tests' own machinery: blocks and marks read from a page, outputs compared, the two commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.doc_snippets import ROOT, is_doc_page, output_difference
from tests.markdown_blocks import MarkError, read_blocks, two_commands

PAGE = """# A page

<!-- doctest: fake-server exit=4 -->
```bash
werewolf-bench run --games 1
```

<!-- doctest: output -->
```text
summary ... 1 game
```

Prose between blocks.

<!-- doctest: skip="needs a real model" -->
```python
print("not run")
```

<!-- doctest: file=lineup.toml -->
```toml
[seats]
```

  ```py
  indented = True
  ```

```json
{"shown": "only"}
```
"""


def test_blocks_marks_and_outputs_are_read(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    blocks = read_blocks(page)
    assert [(b.language, b.runs) for b in blocks] == [
        ("bash", True),
        ("python", True),
        ("toml", False),
        ("py", True),
        ("json", False),
    ]
    run, skipped, lineup, indented, _ = blocks
    assert run.marks == {"fake-server": "", "exit": "4"} and run.output == "summary ... 1 game\n"
    assert run.line == 4 and run.code == "werewolf-bench run --games 1\n"
    assert skipped.marks == {"skip": "needs a real model"} and skipped.output is None
    assert lineup.marks == {"file": "lineup.toml"} and lineup.code == "[seats]\n"
    assert indented.code == "indented = True\n" and indented.marks == {}


@pytest.mark.parametrize(
    ("mark", "error"),
    [
        ("skip", "needs a reason"),
        ('slow=""', "needs a reason"),
        ("sometimes", "unknown doctest mark"),
        ("exit=x", "whole number"),
    ],
)
def test_a_mark_that_cannot_be_read_is_an_error(tmp_path: Path, mark: str, error: str) -> None:
    page = tmp_path / "page.md"
    page.write_text(f"<!-- doctest: {mark} -->\n```bash\ntrue\n```\n", encoding="utf-8")
    with pytest.raises(MarkError, match=error):
        read_blocks(page)


def test_a_mark_must_stand_right_above_its_fence(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text('<!-- doctest: skip="later" -->\nSome prose.\n```bash\ntrue\n```\n', encoding="utf-8")
    with pytest.raises(MarkError, match="right above"):
        read_blocks(page)
    page.write_text(
        "```bash\ntrue\n```\n<!-- doctest: output -->\n```text\n\n```\n<!-- doctest: output -->\n```text\n\n```\n",
        encoding="utf-8",
    )
    with pytest.raises(MarkError, match="already has"):
        read_blocks(page)


def test_an_output_block_must_follow_a_runnable_block(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```json\n{}\n```\n<!-- doctest: output -->\n```text\n{}\n```\n", encoding="utf-8")
    with pytest.raises(MarkError, match="must follow"):
        read_blocks(page)


def test_outputs_compare_with_ellipsis_and_folded_white_space() -> None:
    assert output_difference("games: 20 ... in ...s\n", "games: 20 (seeds 0-19) in 8.2s\n") is None
    assert output_difference("a  b\n", "a b\n") is None
    difference = output_difference("village 6 (30%)\n", "village 7 (35%)\n")
    assert difference is not None and "village 7" in difference


def test_only_the_readme_and_the_docs_pages_are_collected() -> None:
    assert is_doc_page(ROOT / "README.md") and is_doc_page(ROOT / "docs" / "concepts.md")
    assert not is_doc_page(ROOT / "CHANGELOG.md") and not is_doc_page(ROOT / "tests" / "data" / "x.md")
    assert not is_doc_page(ROOT / "tests" / "data" / "README.md") and not is_doc_page(ROOT / "runs" / "x" / "README.md")


def test_the_readme_names_its_two_commands() -> None:
    commands = two_commands(ROOT / "README.md")
    assert len(commands) == 2
    main_job, tests = commands
    assert "werewolf-bench run" in main_job and 'pip install -e ".[report]"' in main_job
    assert tests.endswith("python -m pytest") and 'pip install -e ".[test]"' in tests
