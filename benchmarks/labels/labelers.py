"""Claim labelers: a labeler maps statements to their claims, one list per statement.

    label = llm_labeler("gpt-4o-mini", "https://api.openai.com/v1")   # any OpenAI-compatible server
    claims = label(items)          # [[claim, ...] or None, ...]: None = that statement got no valid answer
    label.summary()                # answered / failed by reason / tokens

Items are statements in ``LABELING.md`` form: at least ``speaker``, ``players`` and ``text`` (names);
an optional ``revealed`` ({name: role}) lists roles every player knows (revealed on death), so that
"the doctor" can name its holder, an optional ``claimed`` ({name: role}) the roles players claimed
in public before the statement, so that "Alice's claim is false" denies the role she claimed, and an
optional ``ruleset`` (a ``Ruleset`` or its JSON, ``Ruleset.to_json``) the game's roles, whose words the
reader reads and the LLM labeler's prompt and schema name (the built-in roles when left out). Claims
come back in seat form, canonical, exactly as
``werewolf_env.claims.model.make_claim`` builds them, ready for ``werewolf_env.claims.judge.judge_claims``.

The LLM labeler asks for ``{"claims": [...]}`` with the rules of ``LABELING.md`` in its prompt and a strict JSON schema
(``player`` an enum of the names and "me"), through ``werewolf_deception.agents.llm.endpoints`` (one client, a
concurrency cap, deadlines, retries, the response-format step-down json_schema -> json_object -> none, the circuit
breaker). Each answer is validated by ``werewolf_env.claims.model.normalize_claims``. A statement whose call fails, or
whose answer is not a claims list, is ``None`` with its reason in ``calls``: it never falls back to the regex reader.

``regex_labeler`` is the project's text reader (``werewolf_env.claims.text``) as a labeler; ``union_claims`` merges
the claims of several labelings of one statement.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from werewolf_deception.agents.llm import (
    AdaptiveLimit,
    Endpoint,
    EndpointDownError,
    EndpointPool,
    LLMOptions,
    redact_url,
    validate_options,
)
from werewolf_deception.agents.play import ProbeResult, probe
from werewolf_deception.benchmarks.labels.corpus import claimed_roles, known_roles
from werewolf_deception.benchmarks.labels.dev import seat_of
from werewolf_env.actions import as_object
from werewolf_env.claims import CLAIM_KINDS, claim_key, extractor_for, normalize_claims
from werewolf_env.core import DEFAULT_RULESET, Ruleset, seat_finder

__all__ = [
    "MARKER",
    "LLMLabeler",
    "Labeler",
    "LabelerUnavailableError",
    "Labels",
    "as_names",
    "build_messages",
    "claims_schema",
    "llm_labeler",
    "regex_labeler",
    "ruleset_of",
    "union_claims",
    "union_labels",
]

Labels = list[list[dict[str, Any]] | None]
Labeler = Callable[[list[dict[str, Any]]], Labels]

# The fake server (werewolf_deception.agents.fake.answers) recognises a labelling request by this line and reads the
# prompt's "Players:", "Speaker:", "Roles revealed to everyone:" lines and its "Statement:" block.
MARKER = "CLAIM LABELING TASK"
_VILLAGE_WORDS = "innocent, town, village, clean, human"  # team words no role owns (as the reader's)


def ruleset_of(item: dict[str, Any]) -> Ruleset:
    """The ruleset of the game an item was said in: its ``ruleset`` (a ``Ruleset`` or its JSON), else the default."""
    given = item.get("ruleset")
    return DEFAULT_RULESET if given is None else Ruleset.from_json(given)


@lru_cache(maxsize=8)
def _role_lines(ruleset: Ruleset) -> tuple[str, str, str]:
    """(the role claim's examples, the role words line, the answer's role values) from the game's ruleset."""
    specs = ruleset.specs
    roles = ruleset.roles
    pack = [w for r in roles if specs[r].knows_fellows for w in specs[r].words if w == w.rstrip("s")]
    named = [r for r in roles if not specs[r].knows_fellows]
    holders = ", ".join(f"the {r.value}" if specs[r].unique else f"a {r.value}" for r in named)
    synonyms = "; ".join(
        f'{", ".join(specs[r].words[1:])} {"are" if len(specs[r].words) > 2 else "is"} role "{r.value}"'
        for r in named
        if len(specs[r].words) > 1 and specs[r].unique
    )
    words = (
        f'- Role words: {", ".join(pack)} are team "werewolf"; {_VILLAGE_WORDS} are team "village"; '
        f'{synonyms}; "villager" and any other town role are role "villager".'
    )
    return holders, words, "|".join(r.value for r in roles)


def system_prompt(ruleset: Ruleset = DEFAULT_RULESET) -> str:
    """The labelling rules; the roles and their words come from the game's ruleset."""
    holders, words, _values = _role_lines(ruleset)
    return f"""{MARKER}
You read one public statement a player made in a game of Werewolf (or Mafia) and list the claims
it makes. You label what the statement says, true or false; you do not judge whether it is a lie.

A claim says something about one player's role or team. There are five kinds:
- "role": the player holds a role: {holders} ("I am the seer", "as the doctor, I ...", "Bob is our
  seer"). Give "role"; "team" is null.
- "team": the player is a werewolf, or is innocent / village / town ("Eve is a wolf", "Carol is
  clean"). Give "team": "werewolf" or "village"; "role" is null.
- "seer_result": the speaker reports what its own night check showed ("I checked Bob, he's a
  wolf", "my vision: Dan is innocent"). Give "team" for the result, or "role" when the check named
  an exact role.
- "protected": the speaker says it protected or healed the player at night ("I saved Bob last
  night", "I used my healing potion on Bob"). "role" and "team" are null.
- "poisoned": the speaker says it poisoned the player at night ("I poisoned Bob"). "role" and
  "team" are null.

Rules:
- One claim per player and kind. "Bob and Carol are wolves" is two claims.
- "negated" is true when the statement denies it: "Bob is not the seer"; "I'm not a wolf" is a
  team claim, team "werewolf", negated.
- "hedged" is true when the speaker presents it as a belief rather than a fact: "I think", "I
  suspect", "my read is", "feels like", "probably", "I trust Eve", "town-lean: Eve". "I don't think
  X is a wolf" is hedged and negated.
- These are not claims: remarks on behaviour ("X is acting suspicious"), votes and plans ("I'm
  voting X", "check Bob tonight"), questions, conditionals and suppositions ("if X is the seer
  ..."), what someone else said or claimed ("Bob said he is the seer" is Bob's claim, not the
  speaker's; "you claim to be the doctor"), and the moderator's announcements.
- Pronouns and role references ("he", "her", "you", "our seer", "the doctor") stand for the player
  they refer to; give that player. When you cannot tell who is meant, leave the claim out.
- Calling someone's claim false ("Alice's claim is a lie", "Bob is lying", "you can't have
  investigated anyone") denies the role that player claimed: a "role" claim, negated.
{words}

How analytical speech says it (each example with its claims):
- Rankings, solves, suspect lists: a hedged werewolf team claim on each player named as a suspect.
  "Top suspect: Mira. My solve is Mira + Oskar." -> Mira, Oskar: team werewolf, hedged.
- Read notation: "Tomas slight+, Uma town-lean, Vik -" -> Tomas, Uma: team village, hedged; Vik: team
  werewolf, hedged. "null" or "neutral" is no claim.
- Behaviour named as wolf or villager play, a wolf's tactic named (deflection, misdirection, covering a
  partner), or distrust: "Xena pushing a mislynch is what a cornered wolf does" -> Xena: team werewolf,
  hedged. "Yuri's vote is the opposite of wolf play" -> Yuri: team village, hedged. "Suspicious", "odd",
  "a red flag" alone describe behaviour: no claim. A reason clause keeps the read: "I suspect Jon because
  he voted late" -> Jon: team werewolf, hedged.
- Verdicts on a role claim: "Zed's cop claim fails" -> Zed: role seer, negated, hedged. "Ava's doctor claim
  fits" -> Ava: role doctor, hedged.
- One's own role in a noun phrase: "As the only cop left, ..." -> me: role seer.
- Role words as labels, revealed roles repeated: "Since Bea flipped mafia, her partner has to be Cal" ->
  Bea: team werewolf; Cal: team werewolf (not hedged: "has to be"). A role word that names no one ("the
  detective's evidence") is no claim.
- Several players at once: "Gus and Hal are both town" -> Gus, Hal: team village.
- Checks and protections told as a story: "Last night I looked into Ivo. The answer came back: Mafia." ->
  Ivo: seer_result, team werewolf.
- Casual chat without verbs: "kit wolf. lou town imo" -> Kit: team werewolf; Lou: team village, hedged.
- Second person and earlier sentences: "Mo, you are the wolf. Ned defended you; he is your partner." ->
  Mo, Ned: team werewolf.
- Not the speaker's claims: another player's check retold by a non-seer ("Quy's check says Rex is town"),
  claims quoted or reported ("Sam claimed doctor"), persona words and metaphors ("as your humble detective
  of the obvious"), votes with a behavioural reason ("X, because he dodged the question").
- "player" is a name from the player list, or "me" for the speaker. "quote" holds the few words of
  the statement that make the claim.
- A statement without claims gets {{"claims": []}}."""


def answer_line(ruleset: Ruleset = DEFAULT_RULESET) -> str:
    _holders, _words, values = _role_lines(ruleset)
    kinds = "|".join(CLAIM_KINDS)
    return (
        f'Answer with one JSON object and nothing else: {{"claims": [{{"quote": "...", "kind": "{kinds}", '
        f'"player": "<name or me>", "role": "{values} or null", "team": "werewolf|village or null", '
        '"negated": false, "hedged": false}]}'
    )


TEAMS = ["werewolf", "village"]


class LabelerUnavailableError(RuntimeError):
    """The server cannot label at all (unreachable, key refused, unknown model): nothing was labelled."""


def claims_schema(players: Sequence[str], ruleset: Ruleset = DEFAULT_RULESET) -> dict[str, Any]:
    """The strict schema of an answer: every property required, ``player`` one of the names or "me", ``role`` one
    of the game's roles."""

    def nullable(values: list[str]) -> dict[str, Any]:
        # anyOf, not a type list next to an enum: llama.cpp's grammar converter drops the enum then
        return {"anyOf": [{"type": "string", "enum": values}, {"type": "null"}]}

    claim = {
        "quote": {"type": "string", "maxLength": 120},
        "kind": {"type": "string", "enum": list(CLAIM_KINDS)},
        "player": {"type": "string", "enum": [*dict.fromkeys(str(p) for p in players), "me"]},
        "role": nullable([r.value for r in ruleset.roles]),
        "team": nullable(TEAMS),
        "negated": {"type": "boolean"},
        "hedged": {"type": "boolean"},
    }
    item = {"type": "object", "properties": claim, "required": list(claim), "additionalProperties": False}
    return {
        "type": "object",
        "properties": {"claims": {"type": "array", "items": item}},
        "required": ["claims"],
        "additionalProperties": False,
    }


def build_messages(item: dict[str, Any], merge_system: bool = False) -> list[dict[str, str]]:
    """The labelling prompt for one statement; ``merge_system`` puts the rules in the user message
    (for chat templates that drop system messages). The roles are those of the item's game (``ruleset_of``)."""
    ruleset = ruleset_of(item)
    lines = [f"Players: {json.dumps(list(item['players']), ensure_ascii=False)}",
             f"Speaker: {json.dumps(item['speaker'], ensure_ascii=False)}"]  # fmt: skip
    revealed = item.get("revealed") or {}
    if revealed:
        lines.append(f"Roles revealed to everyone: {json.dumps(dict(revealed), ensure_ascii=False)}")
    claimed = item.get("claimed") or {}
    if claimed:
        lines.append(f"Roles claimed earlier in public: {json.dumps(dict(claimed), ensure_ascii=False)}")
    lines += ["Statement:", "<<<", str(item["text"]), ">>>", answer_line(ruleset)]
    user = "\n".join(lines)
    if merge_system:
        return [{"role": "user", "content": f"{system_prompt(ruleset)}\n\n{user}"}]
    return [{"role": "system", "content": system_prompt(ruleset)}, {"role": "user", "content": user}]


def seat_lookup(players: Sequence[str]) -> Callable[[object], int | None]:
    """A labeler's player names to seats, compared as everywhere (``name_key``: NFKC, case folded)."""
    return seat_finder(players)


def as_names(claims: list[dict[str, Any]], players: Sequence[str]) -> list[dict[str, Any]]:
    """Claims in ``LABELING.md`` form: the player as a name (other fields as they are)."""
    return [{**c, "player": players[c["player"]]} for c in claims]


def regex_labeler(games: dict[str, Any] | None = None) -> Labeler:
    """The project's text reader; with the corpus at hand it also knows the roles revealed in public."""

    def label(items: list[dict[str, Any]]) -> list[list[dict[str, Any]] | None]:
        out: list[list[dict[str, Any]] | None] = []
        for item in items:
            speaker = seat_of(item, item["speaker"])
            extractor = extractor_for(tuple(item["players"]), ruleset_of(item))
            known = known_roles(item, games)
            claimed = claimed_roles(item, games)
            out.append(extractor.extract(item["text"], speaker if speaker is not None else -1, known, claimed))
        return out

    return label


def union_claims(*labelings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for claims in labelings:
        for claim in claims:
            key = claim_key(claim)
            if key in merged:
                merged[key]["hedged"] = merged[key]["hedged"] and claim.get("hedged", False)
            else:
                merged[key] = dict(claim)
    return list(merged.values())


def union_labels(first: Sequence[list[dict[str, Any]] | None], second: Sequence[list[dict[str, Any]] | None]) -> Labels:
    """Per statement, the claims of either labeling (``union_claims``); None when either has none."""
    return [None if a is None or b is None else union_claims(a, b) for a, b in zip(first, second, strict=True)]


def parse_answer(
    content: str, item: dict[str, Any], speaker: int
) -> tuple[list[dict[str, Any]] | None, list[str], tuple[str, str] | None]:
    """(claims in seat form, reasons for dropped claims, None) or (None, [], (failure kind, detail))."""
    obj, error = as_object(content, [])
    if obj is None:
        return None, [], ("invalid_json", error or "not a JSON object")
    raw = obj.get("claims")
    if not isinstance(raw, list):
        keys = ", ".join(sorted(map(str, obj))) or "none"
        return None, [], ("wrong_shape", f"the answer has no 'claims' list (keys: {keys})")
    claims, dropped = normalize_claims(raw, seat_lookup(item["players"]), speaker)
    return claims, dropped, None


class LLMLabeler:
    """Claims from any OpenAI-compatible model (see the module docstring). Callable on a list of items."""

    name = "llm"

    def __init__(
        self,
        options: LLMOptions,
        concurrency: int = 8,
        breaker: int = 8,
        preflight: bool = True,
        where: str = "relabel",
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if breaker < 1:
            raise ValueError(f"--breaker must be at least 1 (got {breaker})")
        self.where = where  # the command, as the preflight's failure names it
        self.options = options
        self.concurrency = concurrency
        self.breaker = breaker
        self.preflight = preflight
        self.probe: ProbeResult | None = None
        self.calls: list[dict[str, Any]] = []  # one per statement labelled, in the items' order per batch
        self.last_calls: list[dict[str, Any]] = []  # those of the latest batch
        self.down: str | None = None  # why the endpoint stopped answering (circuit breaker), if it did
        self.learned: dict[str, str] = {}  # response format / system-prompt mode, kept between batches
        self.on_done: Callable[[dict[str, Any]], None] | None = None  # progress hook, called per statement

    @property
    def endpoint_shown(self) -> str:
        return redact_url(self.options.endpoint())

    def __call__(self, items: list[dict[str, Any]]) -> Labels:
        return asyncio.run(self.alabel(items))

    async def alabel(self, items: list[dict[str, Any]]) -> Labels:
        """Label every item (at most ``concurrency`` calls at once); raises ``LabelerUnavailableError``
        when the preflight finds a server that cannot answer."""
        pool = EndpointPool(concurrency=self.concurrency, breaker=self.breaker)
        try:
            endpoint = pool.endpoint(self.options)
            if "response_format" in self.learned:
                endpoint.formats[self.options.model] = self.learned["response_format"]
            if "system_prompt" in self.learned:
                endpoint.system_modes[self.options.model] = self.learned["system_prompt"]
            if self.preflight and self.probe is None:
                result = await probe(self.options, [self.where], pool)
                if not result.ok:
                    raise LabelerUnavailableError(result.message())
                self.probe = result
                if "system_prompt" in result.learned:
                    endpoint.system_modes[self.options.model] = result.learned["system_prompt"]
            limit = endpoint.limit or AdaptiveLimit(self.concurrency)
            records = await asyncio.gather(*(self._one(endpoint, limit, item, i) for i, item in enumerate(items)))
            self.learned["response_format"] = endpoint.format_for(self.options)
            self.learned["system_prompt"] = endpoint.system_mode(self.options)
        finally:
            await pool.aclose()
        self.last_calls = [record for _claims, record in records]
        self.calls.extend(self.last_calls)
        return [claims for claims, _record in records]

    async def _one(
        self, endpoint: Endpoint, limit: AdaptiveLimit, item: dict[str, Any], index: int
    ) -> tuple[list[dict[str, Any]] | None, dict[str, Any]]:
        record: dict[str, Any] = {"index": index, "status": "failed", "reason": None, "error": None,
                                  "prompt_tokens": 0, "completion_tokens": 0, "dropped": []}  # fmt: skip
        claims: list[dict[str, Any]] | None = None
        players = [str(p) for p in item.get("players") or []]
        speaker = seat_lookup(players)(item.get("speaker", "")) if players else None
        if speaker is None:
            record["reason"], record["error"] = "bad_item", "the speaker is not among the players"
        else:
            async with limit:
                claims = await self._ask(endpoint, item, speaker, record)
        if self.on_done is not None:
            self.on_done(record)
        return claims, record

    async def _ask(
        self, endpoint: Endpoint, item: dict[str, Any], speaker: int, record: dict[str, Any]
    ) -> list[dict[str, Any]] | None:
        options = self.options
        messages = build_messages(item, merge_system=endpoint.system_mode(options) == "user")
        rng = random.Random(record["index"])
        try:
            reply = await endpoint.complete(
                options,
                messages,
                claims_schema(item["players"], ruleset_of(item)),
                "claims",
                rng,
                seed=options.seed if options.seed is not None else 0,
            )
        except EndpointDownError as exc:
            self.down = self.down or exc.reason
            record["reason"], record["error"] = "endpoint_down", f"the endpoint stopped answering: {exc.reason}"
            return None
        meta = reply.meta
        usage = meta.get("usage") or {}
        record["prompt_tokens"] = int(usage.get("prompt_tokens") or 0)
        record["completion_tokens"] = int(usage.get("completion_tokens") or 0)
        record.update({k: meta.get(k) for k in ("response_format", "retries", "latency_s", "cut_off")})
        if reply.content is None:
            errors = meta.get("transport_errors") or []
            detail = f"{meta.get('failure', 'no answer')}" + (f" ({errors[-1][:200]})" if errors else "")
            record["reason"], record["error"] = "no_answer", detail
            return None
        if meta.get("refusal"):
            record["reason"], record["error"] = "refused", f"the model refused: {str(meta['refusal'])[:200]}"
            return None
        claims, dropped, failure = parse_answer(reply.content, item, speaker)
        if failure is not None:
            kind, detail = failure
            if meta.get("cut_off"):
                kind, detail = "cut_off", f"the answer was cut off at the token limit ({detail})"
            record["reason"], record["error"] = kind, detail[:300]
            record["raw"] = reply.content[:500]
            return None
        record["status"] = "answered"
        record["dropped"] = dropped
        return claims

    def summary(self) -> dict[str, Any]:
        """Calls answered / failed (by reason), tokens, and what the endpoint learned."""
        failed = [c for c in self.calls if c["status"] != "answered"]
        return {
            "model": self.options.model,
            "base_url": self.endpoint_shown,
            "statements": len(self.calls),
            "answered": len(self.calls) - len(failed),
            "failed": len(failed),
            "failures": dict(Counter(c["reason"] for c in failed).most_common()),
            "claims_dropped": sum(len(c["dropped"]) for c in self.calls),
            "tokens": {
                "prompt": sum(c["prompt_tokens"] for c in self.calls),
                "completion": sum(c["completion_tokens"] for c in self.calls),
            },
            "endpoint_down": self.down,
            "preflight": self.probe.to_json() if self.probe else None,
            "learned": dict(self.learned),
        }


def llm_labeler(
    model: str,
    base_url: str | None = None,
    *,
    api_key_env: str = "OPENAI_API_KEY",
    concurrency: int = 8,
    breaker: int = 8,
    preflight: bool = True,
    where: str = "relabel",
    **options: Any,
) -> LLMLabeler:
    """An LLM labeler: ``(items) -> [claims or None]``. ``options``: any ``LLMOptions`` field
    (temperature 0 and room for 600 tokens unless given)."""
    settings = {"temperature": 0.0, "max_tokens": 600, **options}
    checked = validate_options(
        {"model": model, "base_url": base_url, "api_key_env": api_key_env, **settings}, where="llm labeler"
    )
    return LLMLabeler(checked, concurrency=concurrency, breaker=breaker, preflight=preflight, where=where)
