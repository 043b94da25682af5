"""What the scripted server (``werewolf_deception.agents.fake.server``) answers: the content of its chat completions.

Two kinds of request are recognised from their messages:

* **a claim-labelling request** (``werewolf_deception.benchmarks.labels.labelers``): its messages hold the line
  ``CLAIM LABELING TASK``; the answer is ``{"claims": [...]}`` with the claims the project's regex
  reader (``werewolf_env.claims.text``) finds in the statement of the prompt, players as names. The
  prompt's ``Players:``, ``Speaker:``, ``Roles revealed to everyone:`` lines and its
  ``Statement:`` block (between ``<<<`` and ``>>>``) are read; so a labeller served by the fake
  agrees with the regex reader exactly;
* **a game action** (any other request): a valid Werewolf action read from the prompt (the
  "Answer with exactly one JSON object" line and the allowed names), so whole games complete.

``completion`` builds the whole chat-completion body, applying the answer faults of
``fake_openai.FaultPlan`` (malformed, wrong keys, refusal, cut-off, ...) to either kind alike.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from werewolf_deception.agents.llm import living_others
from werewolf_env.claims import extractor_for

PLACEHOLDER = "<what you say>"  # what a small model copies from the answer format instead of speaking
LABELING_MARKER = "CLAIM LABELING TASK"

Answer = Callable[[str], Any]  # prompt -> dict (sent as JSON) or str

_FORMAT = re.compile(r"Answer with exactly one JSON object: (\{.*)")
_ALLOWED = re.compile(r"^Allowed: (.*?)(?: \(or null to abstain\))?\.$", re.MULTILINE)
_LABEL_PLAYERS = re.compile(r"^Players: (\[.*\])$", re.MULTILINE)
_LABEL_SPEAKER = re.compile(r"^Speaker: (\".*\")$", re.MULTILINE)
_LABEL_REVEALED = re.compile(r"^Roles revealed to everyone: (\{.*\})$", re.MULTILINE)
_LABEL_CLAIMED = re.compile(r"^Roles claimed earlier in public: (\{.*\})$", re.MULTILINE)
_LABEL_TEXT = re.compile(r"^Statement:\n<<<\n(.*)\n>>>$", re.MULTILINE | re.DOTALL)

# Answer faults whose content does not depend on the prompt.
FIXED_CONTENT = {
    "malformed": "Sure! I think I would like to vote for someone {not json",
    "wrong_keys": json.dumps({"answer": "yes", "thoughts": "none"}),
    "invalid_target": json.dumps({"target": "Nobody Known", "vote": "Nobody Known", "bid": 99}),
    "empty": "",
    "empty_fence": "```json\n```",
}


_SUBJECTS = re.compile(r'"suspicion_of": an object with one key per player, (.+?), each ')


def scripted_answer(prompt: str) -> dict[str, Any]:
    """A valid action for the task the prompt asks for (deterministic in the prompt)."""
    digest = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16)
    match = _FORMAT.search(prompt)
    wanted = match.group(1) if match else ""
    allowed_match = _ALLOWED.search(prompt)
    allowed = allowed_match.group(1).split(", ") if allowed_match else []
    players = living_others(prompt)
    pick = allowed[digest % len(allowed)] if allowed else None
    if '"statement"' in wanted:
        someone = players[digest % len(players)] if players else "nobody"
        answer: dict[str, Any] = {"statement": f"I think {someone} is a werewolf.", "notes": f"watch {someone}"}
        if '"is_deceptive"' in wanted:  # the self-analysis asked with it (``werewolf_deception.agents.llm.folding``)
            answer.update(_analysis(wanted, digest))
        return _vote_ahead(answer, wanted, digest)
    if '"is_deceptive"' in wanted:
        return _vote_ahead(_analysis(wanted, digest), wanted, digest)
    if '"target"' in wanted:
        return {"target": pick}
    if '"vote"' in wanted:
        return {"vote": pick}
    if '"bid"' in wanted:
        return {"bid": digest % 11}
    return {"summary": "A scripted game."}


_VOTE_AHEAD = re.compile(r'"vote": [^;{]*?the name of one of (.+?), or null to abstain')


def _vote_ahead(answer: dict[str, Any], wanted: str, digest: int) -> dict[str, Any]:
    """The answer with the vote asked ahead in it, if the format asks one (``LLMOptions.vote_in_analysis``)."""
    found = _VOTE_AHEAD.search(wanted)
    if found:
        names = found.group(1).split(", ")
        answer["vote"] = names[(digest >> 11) % len(names)]
    return answer


def _analysis(wanted: str, digest: int) -> dict[str, Any]:
    """A self or peer analysis; its confidence is the probability that the statement is deceptive, on the
    flag's side. A peer analysis may also ask for the next bid (``LLMOptions.bid_in_analysis``)."""
    if '"suspicion"' not in wanted:
        return {"is_deceptive": False, "confidence": 0.1, "deception_type": "none", "reasoning": "scripted"}
    flagged = bool(digest % 2)
    answer: dict[str, Any] = {"is_deceptive": flagged, "confidence": 0.6 if flagged else 0.4, "deception_type": "none",
                              "reasoning": "scripted", "suspicion": round((digest % 100) / 100, 2)}  # fmt: skip
    subjects = _SUBJECTS.search(wanted)
    if subjects:  # the players the statement spoke of (``config.subject_suspicion``)
        names = subjects.group(1).split(", ")
        answer["suspicion_of"] = {name: round(((digest >> (3 * k)) % 100) / 100, 2) for k, name in enumerate(names)}
    if '"bid"' in wanted:
        answer["bid"] = (digest >> 7) % 11
    return answer


def label_answer(prompt: str) -> dict[str, Any]:
    """The regex reader's claims in the labelling prompt's statement, players as names."""
    players_m, speaker_m, text_m = (
        _LABEL_PLAYERS.search(prompt),
        _LABEL_SPEAKER.search(prompt),
        _LABEL_TEXT.search(prompt),
    )
    if not (players_m and speaker_m and text_m):
        return {"claims": []}
    players = [str(p) for p in json.loads(players_m.group(1))]
    speaker = json.loads(speaker_m.group(1))
    revealed_m = _LABEL_REVEALED.search(prompt)
    revealed: dict[str, str] = json.loads(revealed_m.group(1)) if revealed_m else {}
    holders: dict[str, list[str]] = {}
    for name, role in revealed.items():
        holders.setdefault(role, []).append(name)
    # As the game and the transcripts do: a seer / doctor everyone knows, when exactly one is known.
    known = tuple(
        sorted(
            (role, players.index(names[0]))
            for role, names in holders.items()
            if role in ("seer", "doctor") and len(names) == 1 and names[0] in players
        )
    )
    seat = players.index(speaker) if speaker in players else -1
    claimed_m = _LABEL_CLAIMED.search(prompt)
    claimed_names: dict[str, str] = json.loads(claimed_m.group(1)) if claimed_m else {}
    claimed = tuple(sorted((players.index(p), r) for p, r in claimed_names.items() if p in players))
    claims = extractor_for(tuple(players)).extract(text_m.group(1), seat, known, claimed)
    return {
        "claims": [
            {
                "quote": "",
                "kind": c["kind"],
                "player": players[c["player"]],
                "role": c["role"],
                "team": c["team"],
                "negated": c["negated"],
                "hedged": c["hedged"],
            }
            for c in claims
        ]
    }


def task_prompt(messages: list[dict[str, Any]]) -> str:
    """The text a scripted game answer reads: the last user message if it holds the task, else all of them
    (and the system messages, if only they hold the task)."""
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    last = users[-1] if users else ""
    if _FORMAT.search(last):
        return last
    systems = [str(m.get("content", "")) for m in messages if m.get("role") == "system"]
    if not any(_FORMAT.search(u) for u in users) and any(_FORMAT.search(s) for s in systems):
        return "\n".join(systems + users)
    return "\n".join(users)


def answer_for(messages: list[dict[str, Any]], answer: Answer) -> Any:
    """A labelling request's claims, or ``answer`` (the game script) on the task prompt."""
    everything = "\n".join(str(m.get("content", "")) for m in messages)
    if LABELING_MARKER in everything:
        return label_answer(everything)
    return answer(task_prompt(messages))


CACHE_BLOCK = 128  # tokens per cached block, as OpenAI's prompt caching counts them


class PrefixCache:
    """A simulated server prompt cache: how many leading prompt tokens (in whole ``CACHE_BLOCK``s) an earlier
    prompt shared. Tokens are what ``usage.prompt_tokens`` counts here (words). Like vLLM's prefix cache,
    each block is known by a hash chained over every block before it, so a prompt's cached share is its
    longest run of leading blocks that some earlier prompt also had; the oldest hashes are forgotten past
    ``max_blocks`` (memory stays bounded however long the server runs)."""

    def __init__(self, max_blocks: int = 65_536) -> None:
        self.max_blocks = max_blocks
        self._blocks: OrderedDict[int, None] = OrderedDict()

    def cached_tokens(self, tokens: list[str]) -> int:
        """The cached prefix of ``tokens`` (a multiple of ``CACHE_BLOCK``); remembers its blocks for later prompts."""
        chain, hit, missed = 0, 0, False
        for end in range(CACHE_BLOCK, len(tokens) + 1, CACHE_BLOCK):
            chain = hash((chain, *tokens[end - CACHE_BLOCK : end]))
            if not missed and chain in self._blocks:
                hit = end
                self._blocks.move_to_end(chain)
            else:
                missed = True
                self._blocks[chain] = None
        while len(self._blocks) > self.max_blocks:
            self._blocks.popitem(last=False)
        return hit


def completion(
    index: int,
    body: dict[str, Any],
    fault: str | None,
    answer: Answer,
    drop_system: bool,
    cache: PrefixCache | None = None,
) -> dict[str, Any]:
    """The chat-completion body for request ``index``, with its answer fault (if any) applied."""
    messages = [m for m in body.get("messages", []) if not (drop_system and m.get("role") == "system")]
    reply = answer_for(messages, answer)
    if fault == "placeholder" and isinstance(reply, dict) and "statement" in reply:
        reply = {**reply, "statement": PLACEHOLDER}
    content: str | None = reply if isinstance(reply, str) else json.dumps(reply)
    refusal = None
    finish_reason = "stop"
    if fault in FIXED_CONTENT:
        content = FIXED_CONTENT[fault]
    elif fault == "refusal":
        content, refusal = None, "I can't help with deceiving people."
    elif fault == "length" and content:
        content, finish_reason = content[: max(1, len(content) * 3 // 5)], "length"
    elif fault == "null_content":
        content = None
    elif fault == "cut_before_json":
        content, finish_reason = "Sure", "length"
    limit = body.get("max_tokens") or body.get("max_completion_tokens")
    # about 4 characters a token: a client that asks for more room on "length" then gets the whole answer
    if isinstance(limit, int) and content is not None and len(content) > 4 * limit:
        content, finish_reason = content[: 4 * limit], "length"
    words = [word for m in messages for word in str(m.get("content", "")).split()]
    prompt_tokens = len(words)
    completion_tokens = len((content or refusal or "").split())
    cached = cache.cached_tokens(words) if cache is not None else 0
    usage: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                             "total_tokens": prompt_tokens + completion_tokens,
                             "prompt_tokens_details": {"cached_tokens": cached}}  # fmt: skip
    if fault == "bad_usage":  # a server's own idea of a count
        usage.update(prompt_tokens="lots", completion_tokens="some", total_tokens=None)
    choices = (
        []
        if fault == "no_choices"
        else [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
            }
        ]
    )
    return {
        "id": f"chatcmpl-{index}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": choices,
        "usage": usage,
    }
