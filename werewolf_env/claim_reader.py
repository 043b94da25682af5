"""Reading one statement sentence by sentence (``Reader``), for ``claim_text.ClaimExtractor``.

The reader keeps what pronouns may refer to (the players named in the previous sentence, the player
addressed, a check whose result is still to come) and applies the patterns of ``claim_patterns`` in
turn; each match is dropped when a conditional, a question or someone else's reported speech governs
it, and hedged or negated by the words around it (see ``claim_text``'s docstring for the rules).
"""

from __future__ import annotations

from typing import Any

from . import claim_patterns as cp
from .claims import claim_key, make_claim


class Reader:
    """Reads one statement sentence by sentence, keeping what pronouns may refer to."""

    def __init__(self, speaker: int, n_seats: int, known: dict[str, int] | None = None) -> None:
        self.speaker = speaker
        self.n_seats = n_seats
        self.known = known or {}
        self.found: list[dict[str, Any]] = []
        self.previous: list[tuple[int, ...]] = []  # the names (groups) of the previous sentence with any
        self.addressee: int | None = None
        self.pending_check: frozenset[int] = frozenset()
        self.check_context = False
        self.sentence_start = 0  # where the previous sentence's claims start in ``found``
        self.medium = False  # the statement speaks of the medium: "X=Human" lists are execution results

    # ------------------------------------------------------------------ pronouns and vocatives
    def _note_address(self, sentence: str) -> None:
        """Remember the last player this sentence addresses by name."""
        found = []
        lead = cp.LEAD_ADDRESS_RE.match(sentence)
        if lead:
            found.append(lead.group(1))
        if "@>" in sentence:
            found += cp.AT_ADDRESS_RE.findall(sentence)
        if "," in sentence:
            end = cp.END_ADDRESS_RE.search(sentence)
            if end:
                found.append(end.group(1))
        for seat in map(int, found):
            if seat != self.speaker:
                self.addressee = seat

    def _resolve(self, sentence: str, has_pronoun: bool = True) -> str:
        self._note_address(sentence)
        you = "you" in sentence and cp.YOU_RE.search(sentence)
        mid = you and cp.MID_VOCATIVE_RE.search(sentence)
        if mid and int(mid.group(1)) != self.speaker:
            self.addressee = int(mid.group(1))
        lead = you and cp.LEAD_VOCATIVE_RE.match(sentence)
        if lead and int(lead.group(1)) != self.speaker:
            self.addressee = int(lead.group(1))
        pronouns = list(cp.PRONOUN_RE.finditer(sentence)) if has_pronoun else None
        if not pronouns:
            return sentence
        out, last = [], 0
        for m in pronouns:
            before = sentence[: m.start()]
            mentions = (cp.mention_groups(before) if "<" in before else None) or self.previous
            target: tuple[int, ...] | None = None
            if m.group("you"):
                target = (self.addressee,) if self.addressee is not None else None
            elif m.group("they"):
                if len(mentions) == 1:
                    target = mentions[0]
            else:
                singles = {g[0] for g in mentions if len(g) == 1 and g[0] != self.speaker}
                groups = [g for g in mentions if len(g) > 1]
                if len(singles) == 1 and not groups:
                    target = (next(iter(singles)),)
            if target is None:
                continue
            out.append(sentence[last : m.start()])
            out.append(" and ".join(f"<{s}>" for s in target))
            last = m.end()
        out.append(sentence[last:])
        return "".join(out)

    # ------------------------------------------------------------------ claims
    def read(self, raw: str) -> None:
        words = set(cp.WORD_RE.findall(raw))
        if cp.TRIGGER_WORDS.isdisjoint(words) or (
            # Every claim has a subject: a name, "I" / "my", a pronoun, or a role everyone knows the holder of.
            "<" not in raw and cp.SUBJECT_WORDS.isdisjoint(words) and not (self.known and ("the" in words or "our" in words))
        ):
            # Nothing to read here; only what later pronouns may refer to changes.
            groups = cp.mention_groups(raw) if "<" in raw else None
            if groups:
                self.previous = groups
            if "<" in raw:
                self._note_address(raw)
            self.pending_check = frozenset()
            self.check_context = False
            self.sentence_start = len(self.found)
            return
        self.medium = self.medium or "medium" in words
        has_pronoun = not cp.PRONOUN_WORDS.isdisjoint(words)
        sentence = self._resolve(raw, has_pronoun) if has_pronoun or "<" in raw else raw
        groups = cp.mention_groups(sentence) if "<" in sentence else None
        if groups:
            self.previous = groups
        if sentence.rstrip().endswith("?") or sentence.split(" ", 1)[0] in cp.QUESTION_START:
            # A question asserts nothing; a statement before it in the same sentence still does ("I suspect
            # Bob — are you the seer?").
            breaks = list(cp.CLAUSE_BREAK_RE.finditer(sentence))
            if not breaks or sentence.split(" ", 1)[0] in cp.QUESTION_START:
                self.pending_check = frozenset()
                self.check_context = False
                return
            sentence = sentence[: breaks[-1].start()]
        hints_check = not cp.CHECK_WORDS.isdisjoint(words) or "(me)" in sentence
        check_context = self.check_context or (hints_check and bool(cp.CHECK_CONTEXT_RE.search(sentence)))
        checked = set(self.pending_check)
        found_before = len(self.found)
        for m in cp.CHECK_RE.finditer(sentence) if hints_check else ():
            if self._blocked(sentence, m.start()):
                continue
            targets = cp.seats_in(m.group("group"))
            checked.update(targets)
            self._result_after(sentence, m.end(), targets)
        if self.pending_check:
            self._result_after(sentence, 0, sorted(self.pending_check))
        if checked and not self.pending_check:
            # "Charlie is the mafioso. I investigated them last night.": the claim just before was the result.
            for claim in self.found[self.sentence_start : found_before]:
                if claim["kind"] == "team" and claim["player"] in checked and not claim["hedged"]:
                    claim["kind"] = "seer_result"
        self.sentence_start = found_before
        self._read_patterns(sentence, words, check_context, checked)
        new = self.found[found_before:]
        # A check with no result in its sentence: the next sentence may give it ("She's a Werewolf").
        results = {c["player"] for c in new if c["kind"] == "seer_result"}
        self.pending_check = (
            frozenset(checked - results) if hints_check and cp.CHECK_RE.search(sentence) else frozenset()
        )
        # "I stand by my investigation. Diana is the Mafioso.": the reference carries one sentence on.
        self.check_context = hints_check and bool(cp.CHECK_CONTEXT_RE.search(sentence)) and not new

    def _result_after(self, s: str, start: int, targets: list[int]) -> None:
        direct = cp.DIRECT_RESULT_RE.match(s, start)
        if direct is not None and len(targets) == 1:
            # "I divined Benjamin HUMAN (day0) and George HUMAN (day1)"
            seat, pos = targets[0], start
            while direct is not None:
                self._emit_result(s, start, seat, direct.group("pred"), bool(direct.group("neg")))
                pos = direct.end()
                nxt = cp.NEXT_RESULT_RE.match(s, pos)
                if nxt is None:
                    break
                seat = cp.seats_in(nxt.group("seat"))[0]
                direct = cp.DIRECT_RESULT_RE.match(s, nxt.end())
            return
        m = cp.RESULT_RE.match(s, start)
        if m is None:
            return
        others = set(cp.seats_in(m.group("gap"))) - set(targets)
        if others or cp.GAP_STOP_RE.search(m.group("gap")):
            return
        negated = bool(m.group("neg")) or bool(cp.NEGATION_RE.search(m.group("gap")))
        for seat in targets:
            self._emit_result(s, start, seat, m.group("pred"), negated)

    def _emit_result(self, s: str, at: int, seat: int, pred: str, negated: bool) -> None:
        kind, value, _ = cp.predicate(pred)
        if kind == "team":
            self._emit(s, at, make_claim("seer_result", seat, None, value, negated))
        elif value == "villager":
            self._emit(s, at, make_claim("seer_result", seat, None, "village", negated))
        else:
            self._emit(s, at, make_claim("seer_result", seat, value, None, negated))

    def _read_patterns(self, s: str, words: set[str], check_context: bool, checked: set[int]) -> None:
        preds = not cp.PRED_WORDS.isdisjoint(words)
        labels = not cp.LABEL_WORDS.isdisjoint(words)
        if self.known and labels:
            # "the doctor is gone", "our late seer": a role everyone knows the holder of names that player.
            for m in cp.ROLE_REFERENCE_RE.finditer(s):
                role = cp.predicate(m.group("pred"))[1]
                seat = self.known.get(role)
                if seat is not None and seat != self.speaker and not self._blocked(s, m.start()):
                    self._emit(s, m.start(), make_claim("role", seat, role))
        if "retract" in words or "withdraw" in words or "fake" in words or "bluff" in words:
            for m in cp.RETRACT_RE.finditer(s):
                if not self._blocked(s, m.start(), True):
                    pred = m.group("pred") or m.group("pred2")
                    self._add_predicate(s, m.start(), [self.speaker], pred, negated=1)
        for m in cp.CLAIM_RE.finditer(s) if preds else ():
            subjects = cp.subject_seats(m.group("subj"), self.speaker)
            if (
                not subjects
                or self._blocked(s, m.start(), subjects == [self.speaker])
                or cp.disjunction(m.group("subj"))
            ):
                continue
            if m.group("cop").strip() == "'s" and not m.group("mods") and not cp.CLAUSE_END_RE.match(s, m.end()):
                continue  # "Rin's medium info": a possessive, not "Rin is a medium"
            if cp.object_of_previous_word(s, m.start()):
                continue  # "whoever keeps defending Cal is on the wolf side": Cal is not the subject
            negated = cp.count_negations(m.group("cop") + m.group("mods"))
            mods = m.group("mods")
            fake = "fake" in mods or "false" in mods
            hedged = bool(cp.HEDGE_RE.search(m.group("cop") + mods))
            self._add_predicate(
                s,
                m.start(),
                subjects,
                m.group("pred"),
                negated=negated,
                hedged=hedged,
                fake=fake,
                check_context=check_context,
                checked=checked,
            )
            if "i" in m.group("subj").split() or subjects == [self.speaker]:
                # "I'm just a regular townie like Bob and Diana"
                like = "like" in s and cp.LIKE_RE.match(s, m.end())
                if like:
                    others = cp.seats_in(like.group("group"))
                    self._add_predicate(
                        s, m.start(), others, m.group("pred"), negated=negated, hedged=hedged, fake=fake
                    )
        for m in cp.LABEL_BEFORE_RE.finditer(s) if labels else ():
            if m.start() and (s[m.start() - 1].isalnum() or s[m.start() - 1] == "-"):
                continue  # inside a word ("werewolf" holds "wolf")
            pre_m = cp.LABEL_PRE_RE.search(s, max(0, m.start() - 24), m.start())
            pre = pre_m.group("pre") if pre_m else ""
            if pre in ("self-proclaimed", "so-called", "alleged", "claimed", "supposed") or self._blocked(s, m.start()):
                continue
            hedged = pre in ("suspected", "possible", "potential", "likely", "obvious")
            self._add_predicate(
                s,
                m.start(),
                cp.seats_in(m.group("seat") or m.group("seat2")),
                m.group("pred"),
                hedged=hedged,
                fake=pre in ("fake", "false"),
            )
        if labels and ("," in s or "(" in s):
            for m in cp.LABEL_AFTER_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                fake = "fake" in m.group("mods")
                self._add_predicate(s, m.start(), cp.seats_in(m.group("seat")), m.group("pred"), fake=fake)
        for m in cp.SUBJECT_AFTER_RE.finditer(s) if preds else ():
            if m.group("either") or self._blocked(s, m.start()) or cp.disjunction(m.group("group")):
                continue
            negated = cp.count_negations(m.group("cop"))
            hedged = bool(cp.HEDGE_RE.search(m.group("cop")))
            subjects = cp.seats_in(m.group("group"))
            self._add_predicate(
                s,
                m.start(),
                subjects,
                m.group("pred"),
                negated=negated,
                hedged=hedged,
                check_context=check_context,
                checked=checked,
            )
        if preds and not cp.EQUALS_CHARS.isdisjoint(s):
            for m in cp.EQUALS_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                # "N1: Eve=Werewolf" reports a check, unless the speaker speaks as the medium (executions' results).
                as_result = not self.medium and (check_context or bool(m.group("night")))
                seats = cp.seats_in(m.group("seat"))
                self._add_predicate(
                    s,
                    m.start(),
                    seats,
                    m.group("pred"),
                    negated=1 if m.group("neg") else 0,
                    check_context=as_result,
                    checked=checked | set(seats) if as_result else set(),
                )
        if "'s" in s and ("claim" in s or " co" in s):
            for m in cp.FALSE_CLAIM_RE.finditer(s):
                if not self._blocked(s, m.start()):
                    self._add_predicate(s, m.start(), cp.seats_in(m.group("seat")), m.group("pred"), negated=1)
        if preds and ("as " in s or "being " in s or "to be " in s):
            for m in cp.AS_PREDICATE_RE.finditer(s):
                if self._blocked(s, m.start()) or cp.disjunction(m.group("group")):
                    continue
                verb = m.group("verb")
                negated = int(bool(m.group("neg"))) + int(verb.startswith(("rule", "ruled", "ruling")))
                hedged = not verb.startswith(("rule", "ruled", "ruling"))
                self._add_predicate(
                    s, m.start(), cp.seats_in(m.group("group")), m.group("pred"), negated=negated, hedged=hedged
                )
        if "lean" in s or "read" in s:
            for m in cp.READ_LIST_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                team = "werewolf" if m.group("side") in ("wolf", "scum", "mafia") else "village"
                for seat in cp.seats_in(m.group("group")):
                    self._emit(s, m.start(), make_claim("team", seat, None, team, False, True))
        if preds and "as " in s:
            for m in cp.AS_ROLE_RE.finditer(s):
                self._add_predicate(s, m.start(), [self.speaker], m.group("pred"))
        if "co" in s or "claim" in s or "reveal" in s or "came out" in s or "come out" in s or "coming out" in s:
            for m in cp.SELF_CO_RE.finditer(s):
                if not self._blocked(s, m.start(), True):
                    self._add_predicate(s, m.start(), [self.speaker], m.group("pred"))
        if "my " in s and "role" in s:
            for m in cp.MY_ROLE_RE.finditer(s):
                if not self._blocked(s, m.start()):
                    self._add_predicate(s, m.start(), [self.speaker], m.group("pred"))
        if " no " in s:
            for m in cp.NO_ROLE_RE.finditer(s):
                if not self._blocked(s, m.start()):
                    self._emit(s, m.start(), make_claim("role", self.speaker, "villager"))
        if not cp.TRUST_WORDS.isdisjoint(words):
            for m in cp.TRUST_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                verb = m.group("verb")
                distrust = verb in ("distrust", "mistrust") or verb.startswith(("don't", "do not"))
                team = "werewolf" if verb == "suspect" or distrust else "village"
                hedged = "vouch" not in verb and "clear" not in verb
                kind = "seer_result" if verb in ("clear", "cleared") and check_context else "team"
                for seat in cp.seats_in(m.group("group")):
                    if seat != self.speaker:
                        self._emit(s, m.start(), make_claim(kind, seat, None, team, False, hedged))
        if not cp.PROTECT_WORDS.isdisjoint(words):
            for m in cp.PROTECT_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                for seat in cp.seats_in(m.group("group") or m.group("group2") or ""):
                    self._emit(s, m.start(), make_claim("protected", seat))

    def _add_predicate(
        self,
        s: str,
        at: int,
        subjects: list[int],
        pred: str,
        negated: int = 0,
        hedged: bool = False,
        fake: bool = False,
        check_context: bool = False,
        checked: set[int] | frozenset[int] = frozenset(),
    ) -> None:
        kind, value, word_hedged = cp.predicate(pred)
        clause = cp.clause_before(s, at)
        if cp.NEGATED_BELIEF_RE.search(clause):
            negated += 1
            hedged = True
        elif cp.HEDGE_RE.search(clause):
            hedged = True
        hedged = hedged or word_hedged
        negated += int(fake)
        is_negated = negated % 2 == 1
        for seat in subjects:
            if kind == "team":
                result_kind = (
                    "seer_result"
                    if seat != self.speaker and not hedged and (seat in checked or (check_context and not checked))
                    else "team"
                )
                self._emit(s, at, make_claim(result_kind, seat, None, value, is_negated, hedged))
            elif (
                value == "villager"
                and seat != self.speaker
                and not hedged
                and (seat in checked or (check_context and not checked))
            ):
                self._emit(s, at, make_claim("seer_result", seat, None, "village", is_negated))
            else:
                self._emit(s, at, make_claim("role", seat, value, None, is_negated, hedged))

    def _emit(self, s: str, at: int, claim: dict[str, Any]) -> None:
        if claim["player"] is None or not 0 <= claim["player"] < self.n_seats:
            return
        self.found.append(claim)

    def _blocked(self, s: str, at: int, about_self: bool = False) -> bool:
        """A conditional, a supposition or someone else's reported speech governs the text before ``at``.

        After a conditional clause ("if Diana is the cop, Charlie is mafia") only a claim about the
        speaker itself stands ("if you're the investigator, you know I'm not the Mafioso").
        """
        clause = cp.clause_before(s, at)
        markers = list(cp.CONDITIONAL_RE.finditer(clause))
        if markers:
            rest = clause[markers[-1].end() :]
            if "," not in rest and " then " not in rest:
                return True
            if not about_self:
                return True
        for r in cp.REPORTED_RE.finditer(clause):
            if r.group(0).startswith("according"):
                return True
            if r.group(0).startswith("<"):
                return True  # "Midori's divination Shizue=Werewolf": someone else's result
            subject = clause[: r.start()].split()[-3:]  # the reporting verb's subject: the words just before it
            if subject and not cp.OWN_SUBJECT_RE.search(" " + " ".join(subject[-2:])) and "my" not in subject:
                return True
        for r in cp.EVIDENCE_RE.finditer(clause):
            for word in reversed(clause[: r.start()].split()[-4:]):
                if word in cp.OWN_WORDS:
                    break
                if word.startswith("<") or word in cp.OTHER_WORDS:
                    return True
        return False

    def claims(self) -> list[dict[str, Any]]:
        merged: dict[tuple[Any, ...], dict[str, Any]] = {}
        for claim in self.found:
            key = claim_key(claim)
            if key in merged:
                merged[key]["hedged"] = merged[key]["hedged"] and claim["hedged"]
            else:
                merged[key] = claim
        # A seer result about a player also stated as a team claim of the same sentence: keep the result.
        results = {(c["player"], c["team"]) for c in merged.values() if c["kind"] == "seer_result"}
        return [
            c
            for c in merged.values()
            if not (c["kind"] == "team" and not c["hedged"] and (c["player"], c["team"]) in results)
        ]
