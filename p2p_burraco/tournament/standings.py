"""Results of meetings, and the standings with their tie-breaks [TOURN-5, TOURN-12].

A meeting's result is what one table's match is worth to each side: VP and MP difference.
It is computed from the match's final standings (the engine's: side totals, who abandoned),
which `tournament verify` recomputes from the signed hands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import vp as vpt
from .movement import Round


@dataclass(frozen=True)
class Result:
    """What one table's match is worth: VP and MP difference of side A and of side B, and
    why it ended (`hands`, `abandonment`, `timeout`, … or `bye`)."""

    vp: tuple[int, int]
    mp: tuple[int, int]
    reason: str = "hands"

    def to_json(self) -> dict[str, Any]:
        return {"vp": list(self.vp), "mp": list(self.mp), "reason": self.reason}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Result:
        return cls((int(d["vp"][0]), int(d["vp"][1])), (int(d["mp"][0]), int(d["mp"][1])),
                   str(d.get("reason", "hands")))


def _seat_side(sides: Sequence[Sequence[int]], seat: int) -> int:
    for i, side in enumerate(sides):
        if seat in side:
            return i
    raise ValueError(f"seat {seat} is on no side of {list(map(list, sides))}")


def match_result(game: str, hands: int, standings: Mapping[str, Any], reason: str = "hands",
                 a_side: int = 0) -> Result:
    """The result of a finished match for side A = the match's side `a_side` [TOURN-4/5].

    Briscola's engine already reports seed 002's VP and MP (BRISCOLA-25/26). For Burraco the
    MP difference is the side totals' difference, mapped by the hands' table; a match ended
    by an abandonment (or a forfeit: a player's clock, or a seat left empty) gives the
    quitting side 0 VP and the other at least 14 (TOURN-4)."""
    sides = standings.get("sides")
    if not isinstance(sides, list) or len(sides) != 2:
        raise ValueError(f"a tournament table has two sides, the standings show {sides!r}")
    b_side = 1 - a_side
    if game == "briscola" and standings.get("victory_points") is not None:
        v, m = standings["victory_points"], standings["match_points"]
        return Result((int(v[a_side]), int(v[b_side])), (int(m[a_side]), int(m[b_side])),
                      reason)
    totals = standings.get("totals")
    if not isinstance(totals, list) or len(totals) != 2:
        raise ValueError(f"the standings show no two side totals: {totals!r}")
    diff = int(totals[a_side]) - int(totals[b_side])
    quitter = standings.get("abandoned_by")
    if quitter is None:
        quitter = standings.get("forfeit_by")
    if quitter is not None:
        q = _seat_side(sides, int(quitter))
        stay, gone = vpt.forfeit_vp(game, diff if q == b_side else -diff, hands)
        if q == b_side:
            return Result((stay[0], gone[0]), (stay[1], gone[1]), reason)
        return Result((gone[0], stay[0]), (gone[1], stay[1]), reason)
    a, b = vpt.table_vp(game, diff, hands)
    return Result((a, b), (diff, -diff), reason)


@dataclass
class Line:
    """One entrant's running totals."""

    entrant: int
    vp: int = 0
    mp: int = 0
    played: int = 0
    byes: int = 0
    against: dict[int, int] = field(default_factory=dict)
    """Opponent → VP this entrant scored against them (head to head)."""


def tally(entrants: int, rounds: Sequence[Round],
          results: Sequence[Sequence[Result | None]], game: str, hands: int) -> list[Line]:
    """Every entrant's VP, MP difference, byes and head-to-head VP over the rounds so far
    (a table with no result yet counts nothing)."""
    lines = [Line(i) for i in range(entrants)]
    for rnd, res in zip(rounds, results, strict=True):
        for b in rnd.byes:
            v, m = vpt.bye_score(game, hands)
            lines[b].vp += v
            lines[b].mp += m
            lines[b].byes += 1
        for tb, r in zip(rnd.tables, res, strict=True):
            if r is None:
                continue
            for side, other, v, m in ((tb.a, tb.b, r.vp[0], r.mp[0]),
                                      (tb.b, tb.a, r.vp[1], r.mp[1])):
                for x in side:
                    ln = lines[x]
                    ln.vp += v
                    ln.mp += m
                    ln.played += 1
                    for y in other:
                        ln.against[y] = ln.against.get(y, 0) + v
    return lines


def ranking(lines: Sequence[Line]) -> list[Line]:
    """TOURN-12: by VP; then by MP difference; then, among the entrants still level, by the
    VP each scored against the others of that group (head to head); then by entrant number
    (the order of registration), so the order is always total and reproducible."""
    groups: dict[tuple[int, int], list[Line]] = {}
    for ln in lines:
        groups.setdefault((ln.vp, ln.mp), []).append(ln)
    out: list[Line] = []
    for key in sorted(groups, reverse=True):
        group = groups[key]
        ids = {ln.entrant for ln in group}

        def h2h(ln: Line, ids: set[int] = ids) -> int:
            return sum(v for opp, v in ln.against.items() if opp in ids)

        out.extend(sorted(group, key=lambda ln: (-h2h(ln), ln.entrant)))
    return out
