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

    def __init__(
        self, speaker: int, n_seats: int, known: dict[str, int] | None = None, claimed: dict[int, str] | None = None
    ) -> None:
        self.speaker = speaker
        self.n_seats = n_seats
        self.known = known or {}
        self.claimed = claimed or {}  # seat -> the role it claimed in public before this statement
        self.named_before = ""  # the last sentence that named anyone: what pronouns and remarks may refer to
        self._previous: tuple[str, list[tuple[int, ...]]] = ("", [])
        self.found: list[dict[str, Any]] = []
        self.addressee: int | None = None
        self.pending_check: frozenset[int] = frozenset()
        self.check_context = False
        self.sentence_start = 0  # where the previous sentence's claims start in ``found``
        self.medium = False  # the statement speaks of the medium: "X=Human" lists are execution results

    # ------------------------------------------------------------------ pronouns and vocatives
    @property
    def previous(self) -> list[tuple[int, ...]]:
        """The names (groups) of the last sentence that named anyone; worked out only when a pronoun needs them."""
        if self._previous[0] is not self.named_before:
            self._previous = (self.named_before, cp.mention_groups(self.named_before) if self.named_before else [])
        return self._previous[1]

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
            target: tuple[int, ...] | None = None
            if m.group("you") or m.group("poss") == "your":
                # The player addressed last before the pronoun ("@Victoria your votes ... but @George your focus").
                called = [int(a or b) for a, b in cp.ADDRESSED_BEFORE_RE.findall(before)] if "<" in before else None
                seat = called[-1] if called and called[-1] != self.speaker else self.addressee
                target = (seat,) if seat is not None else None
                if target is None:
                    continue
                out.append(sentence[last : m.start()])
                out.append(f"<{seat}>'s" if m.group("poss") else f"<{seat}>")
                last = m.end()
                continue
            mentions = (cp.mention_groups(before) if "<" in before else None) or self.previous
            if m.group("they") or m.group("poss") == "their":
                if len(mentions) == 1:
                    target = mentions[0]
            else:
                singles = {g[0] for g in mentions if len(g) == 1 and g[0] != self.speaker}
                groups = [g for g in mentions if len(g) > 1]
                if len(singles) == 1 and not groups:
                    target = (next(iter(singles)),)
            if target is None or (m.group("poss") and len(target) != 1):
                continue
            out.append(sentence[last : m.start()])
            out.append(f"<{target[0]}>'s" if m.group("poss") else " and ".join(f"<{s}>" for s in target))
            last = m.end()
        out.append(sentence[last:])
        return "".join(out)

    # ------------------------------------------------------------------ claims
    def read(self, raw: str) -> None:
        words = set(cp.WORD_RE.findall(raw))
        if cp.TRIGGER_WORDS.isdisjoint(words) or (
            # Every claim has a subject: a name, "I" / "my", a pronoun, or a role everyone knows the holder of.
            "<" not in raw
            and cp.SUBJECT_WORDS.isdisjoint(words)
            and not (self.known and ("the" in words or "our" in words))
            and not (self.named_before and not cp.PLAY_WORDS.isdisjoint(words) and cp.WOLF_PLAY_RE.search(raw))
        ):
            # Nothing to read here; only what later pronouns may refer to changes.
            if "<" in raw and cp.SEAT_RE.search(raw):
                self.named_before = raw
                self._note_address(raw)
            self.pending_check = frozenset()
            self.check_context = False
            self.sentence_start = len(self.found)
            return
        self.medium = self.medium or "medium" in words
        has_pronoun = not cp.PRONOUN_WORDS.isdisjoint(words)
        sentence = self._resolve(raw, has_pronoun) if has_pronoun or "<" in raw else raw
        topics_before = self.named_before
        if "<" in sentence and cp.SEAT_RE.search(sentence):
            self.named_before = sentence
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
        self._read_patterns(sentence, words, check_context, checked, topics_before)
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

    def _read_patterns(
        self, s: str, words: set[str], check_context: bool, checked: set[int], topics_before: str
    ) -> None:
        preds = not cp.PRED_WORDS.isdisjoint(words)
        labels = not cp.LABEL_WORDS.isdisjoint(words)
        if self.known and labels and not cp.DEATH_WORDS.isdisjoint(words):
            # "the doctor is gone", "our late seer": a role everyone knows the holder of names that player. Roles
            # become known on death, so only where the sentence speaks of it: "watch the doctor" means the living one.
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
        subject_after = not cp.SUBJECT_AFTER_WORDS.isdisjoint(words) and not cp.SUBJECT_AFTER_PRE.isdisjoint(words)
        for m in cp.SUBJECT_AFTER_RE.finditer(s) if subject_after else ():
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
                # "I will vote George as the last wolf" asserts; "I see Bob as a wolf" is a belief.
                hedged = not verb.startswith(("rule", "ruled", "ruling", "with", "vot", "lynch", "elimin", "exec"))
                self._add_predicate(
                    s, m.start(), cp.seats_in(m.group("group")), m.group("pred"), negated=negated, hedged=hedged
                )
        if "role" in words and "'s" in s:
            for m in cp.ROLE_OF_RE.finditer(s):
                if not self._blocked(s, m.start()):
                    self._add_predicate(s, m.start(), cp.seats_in(m.group("seat")), m.group("pred"))
        if "suspicious" in words:
            for m in cp.SUSPICIOUS_BARE_RE.finditer(s):
                before = s[: m.start()]
                targets = cp.topic_seats(before if "<" in before else topics_before, self.speaker)
                if len(targets) == 1 and not self._blocked(s, m.start()):
                    self._emit(s, m.start(), make_claim("team", targets[0], None, "werewolf", False, True))
            for m in cp.SUSPICIOUS_OF_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                for seat in cp.seats_in(m.group("group")):
                    if seat != self.speaker:
                        self._emit(s, m.start(), make_claim("team", seat, None, "werewolf", False, True))
        if preds and "<" in s and not cp.INFERENCE_WORDS.isdisjoint(words):
            for m in cp.TELEGRAPHIC_RE.finditer(s):
                if self._blocked(s, m.start()) or cp.disjunction(m.group("group")):
                    continue
                negated = 1 if m.group("neg") else 0
                self._add_predicate(s, m.start(), cp.seats_in(m.group("group")), m.group("pred"), negated=negated)
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
        if not cp.SELF_CO_WORDS.isdisjoint(words):
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
        if not cp.DISPUTE_WORDS.isdisjoint(words):
            self._read_disputes(s, words)
        if preds and not cp.PLAY_WORDS.isdisjoint(words):
            for m in cp.WOLF_PLAY_RE.finditer(s):
                self._read_wolf_play(s, m, topics_before)
        if not cp.PROTECT_WORDS.isdisjoint(words):
            for m in cp.PROTECT_RE.finditer(s):
                if self._blocked(s, m.start()):
                    continue
                for seat in cp.seats_in(m.group("group") or m.group("group2") or ""):
                    self._emit(s, m.start(), make_claim("protected", seat))

    def _read_disputes(self, s: str, words: set[str]) -> None:
        """Someone's role claim called false: a negated claim of the role named, or of the one claimed before."""
        found: list[tuple[int, int, str | None, bool]] = []  # (at, seat, role word, weak)
        if not cp.CLAIM_WORDS.isdisjoint(words):
            for m in cp.DISPUTED_CLAIM_RE.finditer(s):
                found.append((m.start(), cp.seats_in(m.group("seat"))[0], m.group("pred"), bool(m.group("weak"))))
        if self.claimed and not cp.LIAR_WORDS.isdisjoint(words):  # whose role "lying" denies: one claimed before
            for m in cp.LIAR_RE.finditer(s):
                seat = m.group("seat") or m.group("seat2") or m.group("seat3")
                found.append((m.start(), cp.seats_in(seat)[0], None, False))
        if self.claimed and ("that" in words or "this" in words) and not cp.FALSE_WORDS.isdisjoint(words):
            for m in cp.THAT_IS_FALSE_RE.finditer(s):
                found.append((m.start(), cp.seats_in(m.group("seat"))[0], None, False))
        if not cp.CHECK_WORDS.isdisjoint(words):
            for m in cp.CANNOT_HAVE_CHECKED_RE.finditer(s):
                found.append((m.start(), cp.seats_in(m.group("seat"))[0], "seer", False))
        for at, seat, word, weak in found:
            role = cp.predicate(word)[1] if word else self.claimed.get(seat)
            if role is None or seat == self.speaker or self._blocked(s, at, disputing=True) or cp.disjunction(s[:at]):
                continue
            hedged = weak or bool(cp.HEDGE_RE.search(s[at : at + 60].split(",")[0]))
            self._add_predicate(s, at, [seat], role, negated=1, hedged=hedged)

    def _read_wolf_play(self, s: str, m: Any, topics_before: str) -> None:
        """A hedged accusation of whoever's play is called a werewolf's (named in this sentence, else the last)."""
        if self._blocked(s, m.start()) or cp.count_negations(cp.clause_before(s, m.start())) % 2:
            return
        before = s[: m.start()]
        together = m.group(0).split()[-1] in ("teamwork", "coordination")
        if together:
            # Teamwork is the work of everyone named with it, here or just before.
            named = cp.seats_in(before) or [seat for group in self.previous for seat in group]
            targets = [x for x in dict.fromkeys(named) if x != self.speaker]
        else:
            targets = cp.topic_seats(before, self.speaker, object_if_alone=False) if "<" in before else []
            if not targets and not cp.SEAT_RE.search(before):
                targets = cp.topic_seats(topics_before, self.speaker) if topics_before else []
        if not targets or len(targets) > 2:
            return
        for seat in targets:
            self._emit(s, m.start(), make_claim("team", seat, None, "werewolf", False, True))

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
        if check_context and "my" in clause:
            # "I investigated last night and my read is that Bob is the mafioso": the read is the check's result.
            clause = cp.MY_RESULT_RE.sub(" ", clause)
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

    def _blocked(self, s: str, at: int, about_self: bool = False, disputing: bool = False) -> bool:
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
                if disputing:
                    continue  # "Alice's claim is blatant and I think she's lying": the claim is what is disputed
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
