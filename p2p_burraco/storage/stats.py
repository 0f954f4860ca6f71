"""`p2p-burraco stats`: per player and per partnership, folded from the history (HIST-4).

What each figure counts (one definition, used by the command and checked by the tests
against the transcripts):

- matches, wins: finished matches sat in; those the player's side won (a match with no
  winner — unplayable, a tie — is neither won nor lost);
- points a hand: the points of the player's side in each hand that was not void, averaged;
- burraco by kind (pulito/clean, semipuro, sporco/dirty, the canaste): the score lines
  "<kind> ×N" of the player's side in each hand — the side's burraco, so partners share
  them;
- closings: hands the player (a partnership: either partner) closed;
- against bots: for a person, matches won and lost against sides the host's bots held, by
  the bots' strategy.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..games.burraco import PRESETS
from .history import MatchRecord

# A score line of one burraco names its kind before its reasons: "burraco pulito (clean, …)
# 7h…Kh", "canasta pulita A–K in una mossa (…)"; records from before issue 13 counted them
# ("burraco pulito ×2"). Both read to the same kinds.
_NAMES = "|".join(sorted({r.names["burraco"] for r in PRESETS.values()}))   # per rule set
_ONE = re.compile(rf"^(?:{_NAMES}) (?P<kind>(?:pulit[oa]|reale)(?: A–[AK] in una mossa)?"
                  r"|semipuro|sporc[oa]) \(")
_COUNTED = re.compile(r"^(?P<kind>.+) ×(?P<n>\d+)$")
KINDS = ("reale A–A (1000)", "pulito A–K (500)", "pulito (clean)", "semipuro (semi-clean)",
         "sporco (dirty)")


def _kind(text: str) -> str | None:
    if "1000" in text or "A–A" in text:
        return KINDS[0]
    if "500" in text or "A–K" in text:
        return KINDS[1]
    for word, kind in (("semipuro", KINDS[3]), ("pulit", KINDS[2]), ("sporc", KINDS[4])):
        if word in text:
            return kind
    return None


@dataclass
class Line:
    """One player's or partnership's figures."""

    who: str
    matches: int = 0
    wins: int = 0
    hands: int = 0
    points: int = 0
    burraco: Counter[str] = field(default_factory=Counter)
    closings: int = 0
    against_bots: dict[str, list[int]] = field(default_factory=dict)   # strategy → [won, lost]

    @property
    def per_hand(self) -> float:
        return self.points / self.hands if self.hands else 0.0


@dataclass
class Stats:
    players: dict[str, Line] = field(default_factory=dict)
    partnerships: dict[str, Line] = field(default_factory=dict)


def burraco_kinds(lines: Iterable[tuple[str, int]]) -> Counter[str]:
    """The burraco of one side's score lines, by kind (one of KINDS): a line per burraco, or
    an older record's count ("burraco pulito ×2" → 2)."""
    out: Counter[str] = Counter()
    for label, _ in lines:
        one, counted = _ONE.match(label), _COUNTED.match(label)
        kind = _kind(one.group("kind")) if one else _kind(counted.group("kind")) if counted \
            else None
        if kind is not None:
            out[kind] += int(counted.group("n")) if counted and not one else 1
    return out


def _fold_hands(line: Line, rec: MatchRecord, seats: set[int]) -> None:
    for h in rec.hands:
        if h.kind == "void":
            continue
        side = next((i for i, s in enumerate(h.sides) if seats & set(s)), None)
        if side is None:
            continue
        line.hands += 1
        line.points += h.points[side] if side < len(h.points) else 0
        if side < len(h.breakdown):
            line.burraco.update(burraco_kinds(h.breakdown[side]))
        if h.closed_by is not None and h.closed_by in seats:
            line.closings += 1


def labels(records: Iterable[MatchRecord]) -> dict[tuple[str, str], str]:
    """(name, key) → how the player is listed: the name, or — when players with different
    keys share it (the host bots of two machines are both `bot 1`) — the name and the
    start of the key, so they are told apart, not added up."""
    keys: dict[str, set[str]] = {}
    for rec in records:
        for seat in rec.seats:
            keys.setdefault(seat.name, set()).add(seat.key)
    return {(name, key): name if len(found) == 1 else f"{name} [{key[:8]}]"
            for name, found in keys.items() for key in found}


def compute(records: Iterable[MatchRecord]) -> Stats:
    """Stats over the given matches (HIST-4); a player is a key, listed by name."""
    st = Stats()
    records = list(records)
    label = labels(records)
    for rec in records:
        listed = {s.seat: label[(s.name, s.key)] for s in rec.seats}
        for seat in rec.seats:
            side = rec.side_of(seat.seat)
            who = listed[seat.seat]
            line = st.players.setdefault(who, Line(who))
            line.matches += 1
            won = rec.winner is not None and rec.winner == side
            line.wins += won
            _fold_hands(line, rec, {seat.seat})
            if seat.bot is None and side is not None and rec.winner is not None:
                opponents = {s.bot for s in rec.seats
                             if s.bot is not None and rec.side_of(s.seat) != side}
                for strategy in opponents:
                    assert strategy is not None
                    wl = line.against_bots.setdefault(strategy, [0, 0])
                    wl[0 if won else 1] += 1
        for i, side_seats in enumerate(rec.sides):
            if len(side_seats) < 2:
                continue
            who = "+".join(sorted(listed.get(x, f"seat {x}") for x in side_seats))
            line = st.partnerships.setdefault(who, Line(who))
            line.matches += 1
            line.wins += rec.winner == i
            _fold_hands(line, rec, set(side_seats))
    return st


def format_stats(st: Stats) -> list[str]:
    """The lines `p2p-burraco stats` prints."""
    out: list[str] = []

    def row(line: Line) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(line.burraco.items())) or "none"
        text = (f"  {line.who}: {line.matches} match(es), {line.wins} won, "
                f"{line.per_hand:.1f} points a hand over {line.hands} hand(s), "
                f"burraco: {kinds}, closings {line.closings}")
        if line.against_bots:
            text += "; against bots: " + ", ".join(
                f"{k} {w}-{lost}" for k, (w, lost) in sorted(line.against_bots.items()))
        return text

    out.append("players:")
    out.extend(row(st.players[k]) for k in sorted(st.players))
    if st.partnerships:
        out.append("partnerships:")
        out.extend(row(st.partnerships[k]) for k in sorted(st.partnerships))
    return out
