"""Whom pronouns and "you" refer to in a statement, for the claim reader (``claim_reader.Reader``'s base).

"he" / "she" / "him" / "her" is the one player named just before (the same sentence so far, else the
previous one that named anyone), "they" / "them" a group named just before ("Sakura and Yumi ... They
have to be wolves"), "you" / "your" the player addressed ("@Misaki", "Bob, ...", "..., Bob.") last
before it. An ambiguous pronoun stays as it is: no claim is read through it. Nothing here names a role.
"""

from __future__ import annotations

from werewolf_env.claims import tokens as ct


class Pronouns:
    """What pronouns may refer to while a statement is read, sentence by sentence."""

    def __init__(self, speaker: int) -> None:
        self.speaker = speaker
        self.named_before = ""  # the last sentence that named anyone: what pronouns and remarks may refer to
        self._previous: tuple[str, list[tuple[int, ...]]] = ("", [])
        self.addressee: int | None = None

    @property
    def previous(self) -> list[tuple[int, ...]]:
        """The names (groups) of the last sentence that named anyone; worked out only when a pronoun needs them."""
        if self._previous[0] is not self.named_before:
            self._previous = (self.named_before, ct.mention_groups(self.named_before) if self.named_before else [])
        return self._previous[1]

    def _note_address(self, sentence: str) -> None:
        """Remember the last player this sentence addresses by name."""
        found = []
        lead = ct.LEAD_ADDRESS_RE.match(sentence)
        if lead:
            found.append(lead.group(1))
        if "@>" in sentence:
            found += ct.AT_ADDRESS_RE.findall(sentence)
        if "," in sentence:
            end = ct.END_ADDRESS_RE.search(sentence)
            if end:
                found.append(end.group(1))
        for seat in map(int, found):
            if seat != self.speaker:
                self.addressee = seat

    def _resolve(self, sentence: str, has_pronoun: bool = True) -> str:
        self._note_address(sentence)
        you = "you" in sentence and ct.YOU_RE.search(sentence)
        mid = you and ct.MID_VOCATIVE_RE.search(sentence)
        if mid and int(mid.group(1)) != self.speaker:
            self.addressee = int(mid.group(1))
        lead = you and ct.LEAD_VOCATIVE_RE.match(sentence)
        if lead and int(lead.group(1)) != self.speaker:
            self.addressee = int(lead.group(1))
        pronouns = list(ct.PRONOUN_RE.finditer(sentence)) if has_pronoun else None
        if not pronouns:
            return sentence
        out, last = [], 0
        for m in pronouns:
            before = sentence[: m.start()]
            target: tuple[int, ...] | None = None
            if m.group("you") or m.group("poss") == "your":
                # The player addressed last before the pronoun ("@Victoria your votes ... but @George your focus").
                called = [int(a or b) for a, b in ct.ADDRESSED_BEFORE_RE.findall(before)] if "<" in before else None
                seat = called[-1] if called and called[-1] != self.speaker else self.addressee
                target = (seat,) if seat is not None else None
                if target is None:
                    continue
                out.append(sentence[last : m.start()])
                out.append(f"<{seat}>'s" if m.group("poss") else f"<{seat}>")
                last = m.end()
                continue
            mentions = (ct.mention_groups(before) if "<" in before else None) or self.previous
            if len(mentions) > 1 and "<" in before:
                # "Eve is innocent - vote Bob, they're mafia": the players of the pronoun's own clause come first.
                breaks = list(ct.PRONOUN_CLAUSE_BREAK_RE.finditer(before))
                clause = before[breaks[-1].end() :] if breaks else ""
                nearest = ct.mention_groups(clause) if "<" in clause else []
                mentions = nearest or mentions
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
