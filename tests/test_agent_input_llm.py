"""A language model's hostile answers, end to end through the fake server on 127.0.0.1: a giant word or
text without spaces as a statement, a list as the deception type. The game goes on, every fallback and
cut is in the log, and no later prompt carries more of a statement than the character cap."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from werewolf_deception.agents import play_game_sync
from werewolf_deception.agents.fake.answers import scripted_answer
from werewolf_deception.agents.fake.server import FakeOpenAIServer
from werewolf_env import GameConfig
from werewolf_env.engine.log import read_log, replay

SMALL = {"num_players": 5, "num_werewolves": 1, "max_debate_turns": 2, "max_rounds": 2}
FAST = {"timeout": 5.0, "backoff": 0.01, "max_backoff": 0.05, "max_wait": 5.0}
# Room for the whole giant answer and every prompt: nothing but the engine's cap may shorten them.
ROOMY = {"max_tokens": 30_000, "context_budget": 2_000_000}


def hostile_model(giant: str) -> Any:
    def answer(prompt: str) -> dict[str, Any]:
        reply = scripted_answer(prompt)
        if "statement" in reply:
            reply["statement"] = giant
        if "deception_type" in reply:
            reply["deception_type"] = ["fabrication", "omission"]
        return reply

    return answer


@pytest.mark.parametrize("giant", ["x" * 20_000, "我是预言家狼人就是他" * 2000], ids=["one word", "chinese"])
def test_giant_statements_never_reach_a_later_prompt_whole(tmp_path: Path, giant: str) -> None:
    cap = GameConfig().statement_char_limit
    with FakeOpenAIServer(answer=hostile_model(giant)) as server:
        lineup = {"default": {"kind": "llm", "model": "fake", "base_url": server.base_url, **FAST, **ROOMY}}
        result = play_game_sync(SMALL, lineup, seed=2, log_dir=tmp_path)
        prompts = ["\n".join(str(m.get("content", "")) for m in r.get("messages", [])) for r in server.requests]
    assert result.winner in ("village", "werewolf", None) and result.policy_errors == 0
    too_long = re.compile(rf"x{{{cap + 1},}}|[\u3040-\u9fff]{{{cap + 1},}}")
    assert any(giant[:cap] in p for p in prompts), "later prompts show the statement, cut"
    assert not any(too_long.search(p) for p in prompts), "a later prompt held more of a statement than the cap"
    records = read_log(result.log_path)
    statements = [r for r in records if r["type"] == "statement"]
    assert statements and all(s["data"]["truncated"] and len(s["data"]["text"]) <= cap for s in statements)
    actions = [r["data"] for r in records if r["type"] == "action"]
    said = [a for a in actions if a["kind"] == "statement" and a["parsed"]["statement"]]
    assert said and all(any(" characters" in r for r in a["repairs"]) for a in said), "each cut is recorded"
    analyses = [a for a in actions if a["kind"].endswith("analysis")]
    assert analyses and all(any(f.startswith("deception_type:") for f in a["fallbacks"]) for a in analyses)
    assert replay(result.log_path).ok
