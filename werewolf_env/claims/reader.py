"""Reading one statement sentence by sentence (``Reader``), for ``claim_text.ClaimExtractor``.

The reader keeps what pronouns may refer to (``claim_pronouns``: the players named in the previous
sentence, the player addressed) and a check whose result is still to come, and applies the patterns in
turn: roles and teams (``claim_patterns``), night results (``claim_night``), disputed claims and play
called a werewolf's (``claim_disputes``). Each match is dropped when a conditional, a question or someone
else's reported speech governs it, and hedged or negated by the words around it (``claim_context``; see
``claim_text``'s docstring for the rules).
"""

from __future__ import annotations

from typing import Any

from werewolf_env.claims import context as cc
from werewolf_env.claims import disputes as cd
from werewolf_env.claims import night as cn
from werewolf_env.claims import patterns as cp
from werewolf_env.claims import reads as cr
from werewolf_env.claims import tokens as ct
from werewolf_env.claims.model import claim_key, make_claim
from werewolf_env.claims.pronouns import Pronouns


class Reader(Pronouns):
    """Reads one statement sentence by sentence, keeping what pronouns may refer to."""

    def __init__(
        self,
        speaker: int,
        n_seats: int,
        vocab: cp.Vocabulary,
        known: dict[str, int] | None = None,
        claimed: dict[int, str] | None = None,
    ) -> None:
        super().__init__(speaker)
        self.n_seats = n_seats
        self.vocab = vocab  # the game's ruleset's words and patterns (``claim_patterns.vocabulary``)
        self._known = known or {}
        self._claimed = claimed or {}  # seat -> the role it claimed in public before this statement
        # Whether the reading looked at ``known`` or ``claimed`` at all (even at whether they are empty): when it
        # did not, what it read depends on the text and the speaker alone (``ClaimExtractor.scan`` memoises so).
        self.context_used = False
        self.found: list[dict[str, Any]] = []
        self.pending_check: frozenset[int] = frozenset()
        self.check_context = False
        self.sentence_start = 0  # where the previous sentence's claims start in ``found``
        self.medium = False  # the statement speaks of the medium: "X=Human" lists are execution results

    @property
    def known(self) -> dict[str, int]:
        """Role -> seat of the roles everyone knows the holder of (revealed on death)."""
        self.context_used = True
        return self._known

    @property
    def claimed(self) -> dict[int, str]:
        """Seat -> the role it claimed in public before this statement."""
        self.context_used = True
        return self._claimed

    def read(self, raw: str) -> None:
        words = set(ct.WORD_RE.findall(raw))
        vocab = self.vocab
        if vocab.roles.trigger_words.isdisjoint(words) or (
            # Every claim has a subject: a name, "I" / "my", a pronoun, or a role everyone knows the holder of.
            "<" not in raw
            and ct.SUBJECT_WORDS.isdisjoint(words)
            and not (("the" in words or "our" in words) and self.known)
            and not (
                self.named_before and not cd.PLAY_WORDS.isdisjoint(words) and vocab.disputes.wolf_play_re.search(raw)
            )
        ):
            # Nothing to read here; only what later pronouns may refer to changes.
            if "<" in raw and ct.SEAT_RE.search(raw):
                self.named_before = raw
                self._note_address(raw)
            self.pending_check = frozenset()
            self.check_context = False
            self.sentence_start = len(self.found)
            return
        self.medium = self.medium or "medium" in words
        has_pronoun = not ct.PRONOUN_WORDS.isdisjoint(words)
        sentence = self._resolve(raw, has_pronoun) if has_pronoun or "<" in raw else raw
        topics_before = self.named_before
        if "<" in sentence and ct.SEAT_RE.search(sentence):
            self.named_before = sentence
        if sentence.rstrip().endswith("?") or sentence.split(" ", 1)[0] in cc.QUESTION_START:
            # A question asserts nothing; a statement before it in the same sentence still does ("I suspect
            # Bob — are you the seer?").
            breaks = list(cc.CLAUSE_BREAK_RE.finditer(sentence))
            if not breaks or sentence.split(" ", 1)[0] in cc.QUESTION_START:
                self.pending_check = frozenset()
                self.check_context = False
                return
            sentence = sentence[: breaks[-1].start()]
        hints_check = not cn.CHECK_WORDS.isdisjoint(words) or "(me)" in sentence
        own_check = hints_check and bool(cn.CHECK_CONTEXT_RE.search(sentence))  # the sentence speaks of a check
        check_context = self.check_context or own_check
        checked = set(self.pending_check)
        found_before = len(self.found)
        checks = list(cn.CHECK_RE.finditer(sentence)) if hints_check else []
        for m in checks:
            if cc.blocked(sentence, m.start()):
                continue
            targets = ct.seats_in(m.group("group"))
            checked.update(targets)
            vocab.night.result_after(self, sentence, m.end(), targets)
        if self.pending_check:
            vocab.night.result_after(self, sentence, 0, sorted(self.pending_check))
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
        self.pending_check = frozenset(checked - results) if checks else frozenset()
        # "I stand by my investigation. Diana is the Mafioso.": the reference carries one sentence on.
        self.check_context = own_check and not new

    def _read_patterns(
        self, s: str, words: set[str], check_context: bool, checked: set[int], topics_before: str
    ) -> None:
        v = self.vocab
        preds = not v.words.pred_words.isdisjoint(words)
        labels = not v.words.label_words.isdisjoint(words)
        if labels and not cp.DEATH_WORDS.isdisjoint(words) and self.known:
            # "the doctor is gone", "our late seer": a role everyone knows the holder of names that player. Roles
            # become known on death, so only where the sentence speaks of it: "watch the doctor" means the living one.
            for m in v.roles.role_reference_re.finditer(s):
                role = v.words.predicate(m.group("pred"))[1]
                seat = self.known.get(role)
                if seat is not None and seat != self.speaker and not cc.blocked(s, m.start()):
                    self.emit(make_claim("role", seat, role))
        if "retract" in words or "withdraw" in words or "fake" in words or "bluff" in words:
            for m in v.disputes.retract_re.finditer(s):
                if not cc.blocked(s, m.start(), True):
                    pred = m.group("pred") or m.group("pred2")
                    self.add_predicate(s, m.start(), [self.speaker], pred, negated=1)
        for m in v.roles.claim_re.finditer(s) if preds else ():
            subjects = ct.subject_seats(m.group("subj"), self.speaker)
            if not subjects or cc.blocked(s, m.start(), subjects == [self.speaker]) or ct.disjunction(m.group("subj")):
                continue
            if m.group("cop").strip() == "'s" and not m.group("mods") and not ct.CLAUSE_END_RE.match(s, m.end()):
                continue  # "Rin's medium info": a possessive, not "Rin is a medium"
            subject = m.group("subj")
            vocative = "," in subject and not ct.AND_RE.search(subject)  # "vote Bob, he's mafia": the last is it
            if ct.object_of_previous_word(s, m.start("subj") + subject.rfind(",") + 1 if vocative else m.start()):
                continue  # "whoever keeps defending Cal is on the wolf side": Cal is not the subject
            negated = cc.count_negations(m.group("cop") + m.group("mods"))
            mods = m.group("mods")
            fake = "fake" in mods or "false" in mods
            hedged = bool(cc.HEDGE_RE.search((m.group("adv") or "") + m.group("cop") + mods))
            self.add_predicate(
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
                like = "like" in s and ct.LIKE_RE.match(s, m.end())
                if like:
                    others = ct.seats_in(like.group("group"))
                    self.add_predicate(s, m.start(), others, m.group("pred"), negated=negated, hedged=hedged, fake=fake)
        for m in v.roles.label_before_re.finditer(s) if labels and "<" in s else ():
            if m.start() and (s[m.start() - 1].isalnum() or s[m.start() - 1] == "-"):
                continue  # inside a word ("werewolf" holds "wolf")
            if cp.PLAY_OF_RE.search(s, max(0, m.start() - 40), m.start()):
                continue  # "not the play of a real villager, Bob": a remark on Bob's play, not his role
            pre_m = cp.LABEL_PRE_RE.search(s, max(0, m.start() - 24), m.start())
            pre = pre_m.group("pre") if pre_m else ""
            if pre in ("self-proclaimed", "so-called", "alleged", "claimed", "supposed") or cc.blocked(s, m.start()):
                continue
            hedged = pre in ("suspected", "possible", "potential", "likely", "obvious")
            self.add_predicate(
                s,
                m.start(),
                ct.seats_in(m.group("seat") or m.group("seat2")),
                m.group("pred"),
                hedged=hedged,
                fake=pre in ("fake", "false"),
            )
        if labels and ("," in s or "(" in s):
            for m in v.roles.label_after_re.finditer(s):
                if cc.blocked(s, m.start()):
                    continue
                fake = "fake" in m.group("mods")
                self.add_predicate(s, m.start(), ct.seats_in(m.group("seat")), m.group("pred"), fake=fake)
        subject_after = not v.words.subject_after_words.isdisjoint(words) and not cp.SUBJECT_AFTER_PRE.isdisjoint(words)
        for m in v.roles.subject_after_re.finditer(s) if subject_after and "<" in s else ():
            if m.group("either") or cc.blocked(s, m.start()) or ct.disjunction(m.group("group")):
                continue
            negated = cc.count_negations(m.group("cop"))
            hedged = bool(cc.HEDGE_RE.search(m.group("cop")))
            subjects = ct.seats_in(m.group("group"))
            self.add_predicate(
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
            for m in v.roles.equals_re.finditer(s):
                if cc.blocked(s, m.start()):
                    continue
                # "N1: Eve=Werewolf" reports a check, unless the speaker speaks as the medium (executions' results).
                as_result = not self.medium and (check_context or bool(m.group("night")))
                seats = ct.seats_in(m.group("seat"))
                self.add_predicate(
                    s,
                    m.start(),
                    seats,
                    m.group("pred"),
                    negated=1 if m.group("neg") else 0,
                    check_context=as_result,
                    checked=checked | set(seats) if as_result else set(),
                )
        if "'s" in s and ("claim" in s or " co" in s):
            for m in v.disputes.false_claim_re.finditer(s):
                if not cc.blocked(s, m.start()):
                    self.add_predicate(s, m.start(), ct.seats_in(m.group("seat")), m.group("pred"), negated=1)
        if preds and ("as " in s or "being " in s or "to be " in s):
            for m in v.roles.as_predicate_re.finditer(s):
                if cc.blocked(s, m.start()) or ct.disjunction(m.group("group")):
                    continue
                verb = m.group("verb")
                negated = int(bool(m.group("neg"))) + int(verb.startswith(("rule", "ruled", "ruling")))
                # "I will vote George as the last wolf" asserts; "I see Bob as a wolf" is a belief.
                hedged = not verb.startswith(("rule", "ruled", "ruling", "with", "vot", "lynch", "elimin", "exec"))
                self.add_predicate(
                    s, m.start(), ct.seats_in(m.group("group")), m.group("pred"), negated=negated, hedged=hedged
                )
        if "role" in words and "'s" in s:
            for m in v.roles.role_of_re.finditer(s):
                if not cc.blocked(s, m.start()):
                    self.add_predicate(s, m.start(), ct.seats_in(m.group("seat")), m.group("pred"))
        if "suspicious" in words:
            for m in cp.SUSPICIOUS_BARE_RE.finditer(s):
                before = s[: m.start()]
                targets = ct.topic_seats(before if "<" in before else topics_before, self.speaker)
                if len(targets) == 1 and not cc.blocked(s, m.start()):
                    self.emit(make_claim("team", targets[0], None, "werewolf", False, True))
            for m in cp.SUSPICIOUS_OF_RE.finditer(s):
                if cc.blocked(s, m.start()):
                    continue
                for seat in ct.seats_in(m.group("group")):
                    if seat != self.speaker:
                        self.emit(make_claim("team", seat, None, "werewolf", False, True))
        if preds and "<" in s and not cp.INFERENCE_WORDS.isdisjoint(words):
            for m in v.roles.telegraphic_re.finditer(s):
                if cc.blocked(s, m.start()) or ct.disjunction(m.group("group")):
                    continue
                negated = 1 if m.group("neg") else 0
                self.add_predicate(s, m.start(), ct.seats_in(m.group("group")), m.group("pred"), negated=negated)
        if "lean" in s or "read" in s:
            for m in cp.READ_LIST_RE.finditer(s):
                if cc.blocked(s, m.start()):
                    continue
                team = "werewolf" if m.group("side") in ("wolf", "scum", "mafia") else "village"
                for seat in ct.seats_in(m.group("group")):
                    self.emit(make_claim("team", seat, None, team, False, True))
        if preds and "as " in s:
            for m in v.roles.as_role_re.finditer(s):
                self.add_predicate(s, m.start(), [self.speaker], m.group("pred"))
        if not cp.SELF_CO_WORDS.isdisjoint(words):
            for m in v.roles.self_co_re.finditer(s):
                if not cc.blocked(s, m.start(), True):
                    self.add_predicate(s, m.start(), [self.speaker], m.group("pred"))
        if "my " in s and "role" in s:
            for m in v.roles.my_role_re.finditer(s):
                if not cc.blocked(s, m.start()):
                    self.add_predicate(s, m.start(), [self.speaker], m.group("pred"))
        if " no " in s:
            for m in cp.NO_ROLE_RE.finditer(s):
                if not cc.blocked(s, m.start()):
                    self.emit(make_claim("role", self.speaker, "villager"))
        if not cp.TRUST_WORDS.isdisjoint(words):
            for m in cp.TRUST_RE.finditer(s):
                if cc.blocked(s, m.start()):
                    continue
                verb = m.group("verb")
                distrust = verb in ("distrust", "mistrust") or verb.startswith(("don't", "do not"))
                team = "werewolf" if verb == "suspect" or distrust else "village"
                hedged = "vouch" not in verb and "clear" not in verb
                kind = "seer_result" if verb in ("clear", "cleared") and check_context else "team"
                for seat in ct.seats_in(m.group("group")):
                    if seat != self.speaker:
                        self.emit(make_claim(kind, seat, None, team, False, hedged))
        if not cr.READ_WORDS.isdisjoint(words) or "+" in s:
            cr.read_reads(self, v.reads, s, words)
        if not cd.DISPUTE_WORDS.isdisjoint(words):
            cd.read_disputes(self, v.disputes, s, words)
        if (preds and not cd.PLAY_WORDS.isdisjoint(words)) or not cd.TACTIC_WORDS.isdisjoint(words):
            for m in v.disputes.wolf_play_re.finditer(s):
                cd.read_wolf_play(self, s, m, topics_before)
        if not cn.NIGHT_WORDS.isdisjoint(words):
            cn.read_night_actions(self, s, words)

    def add_predicate(
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
        kind, value, word_hedged = self.vocab.words.predicate(pred)
        clause = cc.clause_before(s, at)
        if check_context and "my" in clause:
            # "I investigated last night and my read is that Bob is the mafioso": the read is the check's result.
            clause = cc.MY_RESULT_RE.sub(" ", clause)
        if cc.NEGATED_BELIEF_RE.search(clause):
            negated += 1
            hedged = True
        elif cc.HEDGE_RE.search(clause):
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
                self.emit(make_claim(result_kind, seat, None, value, is_negated, hedged))
            elif (
                value == "villager"
                and seat != self.speaker
                and not hedged
                and (seat in checked or (check_context and not checked))
            ):
                self.emit(make_claim("seer_result", seat, None, "village", is_negated))
            else:
                self.emit(make_claim("role", seat, value, None, is_negated, hedged))

    def emit(self, claim: dict[str, Any]) -> None:
        if claim["player"] is None or not 0 <= claim["player"] < self.n_seats:
            return
        self.found.append(claim)

    def claims(self) -> list[dict[str, Any]]:
        merged: dict[tuple[Any, ...], dict[str, Any]] = {}
        for claim in self.found:
            key = claim_key(claim)
            if key in merged:
                merged[key]["hedged"] = merged[key]["hedged"] and claim["hedged"]
            else:
                merged[key] = claim
        # A seer result about a player also stated as a team claim (or read as one: "so Alice is our prime
        # suspect") in the same statement: keep the result.
        results = {(c["player"], c["team"]) for c in merged.values() if c["kind"] == "seer_result"}
        return [c for c in merged.values() if not (c["kind"] == "team" and (c["player"], c["team"]) in results)]
