"""Who meets whom each round: Mitchell, Danish and individual movements [TOURN-7..11].

An *entrant* is a line (a pair, or one player in head-to-head Briscola) in the Mitchell and
Danish formats, and one player in the individual format. A round is a list of `Table`s (two
sides of entrants) and the entrants with a bye. Everything here is a pure function of its
arguments: the Danish first round and the individual draw take an explicit seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import UsageError

FORMATS = ("mitchell", "danish", "individual")


@dataclass(frozen=True)
class Table:
    """One table of a round: side A (NS in Mitchell) against side B (EW)."""

    a: tuple[int, ...]
    b: tuple[int, ...]

    def to_json(self) -> dict[str, list[int]]:
        return {"a": list(self.a), "b": list(self.b)}

    @classmethod
    def from_json(cls, d: dict[str, Sequence[int]]) -> Table:
        return cls(tuple(int(x) for x in d["a"]), tuple(int(x) for x in d["b"]))


@dataclass(frozen=True)
class Round:
    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"tables": [t.to_json() for t in self.tables], "byes": list(self.byes)}

    @classmethod
    def from_json(cls, d: dict[str, object]) -> Round:
        tables = d["tables"]
        byes = d["byes"]
        assert isinstance(tables, list) and isinstance(byes, list)
        return cls(tuple(Table.from_json(t) for t in tables), tuple(int(x) for x in byes))


def mitchell(entrants: int, rounds: int) -> list[Round]:
    """TOURN-7/8: T = ceil(E/2) tables; lines 0..T-1 sit North-South and stay, lines T..2T-1
    sit East-West at table (j - T + r) mod T in round r (one table up each round). With an
    odd number of lines the last East-West place is empty: the line that would meet it has a
    bye. Every East-West line meets every North-South line at most once, so at most T rounds.
    """
    if entrants < 2:
        raise UsageError(f"a Mitchell needs at least 2 lines, not {entrants}")
    t = (entrants + 1) // 2
    if not 1 <= rounds <= t:
        raise UsageError(f"a Mitchell of {entrants} lines ({t} tables) has at most {t} rounds "
                         f"without two lines meeting twice, not {rounds} [TOURN-7]")
    out = []
    for r in range(rounds):
        tables: list[Table] = []
        byes: list[int] = []
        for table in range(t):
            ns = table
            ew = t + (table - r) % t
            if ew >= entrants:
                byes.append(ns)
            else:
                tables.append(Table((ns,), (ew,)))
        out.append(Round(tuple(tables), tuple(byes)))
    return out


def _met(history: Sequence[Round]) -> dict[frozenset[int], int]:
    met: dict[frozenset[int], int] = {}
    for rnd in history:
        for tb in rnd.tables:
            for x in tb.a:
                for y in tb.b:
                    key = frozenset((x, y))
                    met[key] = met.get(key, 0) + 1
    return met


def danish_first(entrants: int, seed: int) -> Round:
    """TOURN-9: the first round by a draw (the seed printed and recorded): the drawn order
    is paired 1-2, 3-4, …; with an odd number the last drawn has the bye."""
    if entrants < 2:
        raise UsageError(f"a Danish needs at least 2 lines, not {entrants}")
    order = list(range(entrants))
    random.Random(seed).shuffle(order)
    byes = (order.pop(),) if len(order) % 2 else ()
    tables = tuple(Table((order[i],), (order[i + 1],)) for i in range(0, len(order), 2))
    return Round(tables, byes)


def danish_next(ranking: Sequence[int], history: Sequence[Round],
                budget: int = 20000) -> Round:
    """TOURN-10: `ranking` is the entrants best first. With an odd number the lowest-ranked
    line that has had no bye yet (else the lowest) has the bye. Then 1st against 2nd, 3rd
    against 4th…, except that a line meets the best-ranked line it has not met yet when a
    pairing of everyone without a repeat exists (a search of at most `budget` steps); when
    none does, the fewest repeats, each line taking the best-ranked of those it met least."""
    order = list(ranking)
    byes: tuple[int, ...] = ()
    if len(order) % 2:
        had = {b for rnd in history for b in rnd.byes}
        pick = next((x for x in reversed(order) if x not in had), order[-1])
        order.remove(pick)
        byes = (pick,)
    met = _met(history)
    steps = [0]

    def search(rest: list[int]) -> list[tuple[int, int]] | None:
        if not rest:
            return []
        steps[0] += 1
        if steps[0] > budget:
            return None
        first, others = rest[0], rest[1:]
        for i, cand in enumerate(others):
            if met.get(frozenset((first, cand)), 0):
                continue
            tail = search(others[:i] + others[i + 1:])
            if tail is not None:
                return [(first, cand), *tail]
        return None

    pairs = search(order)
    if pairs is None:
        pairs = []
        rest = list(order)
        while rest:
            first = rest.pop(0)
            cand = min(rest, key=lambda c: (met.get(frozenset((first, c)), 0), rest.index(c)))
            rest.remove(cand)
            pairs.append((first, cand))
    return Round(tuple(Table((x,), (y,)) for x, y in pairs), byes)


def individual_round(players: int, history: Sequence[Round], seed: int,
                     tries: int = 400) -> Round:
    """TOURN-11: four players a table, two partners against two. The players with the most
    rounds played sit out when the count is not a multiple of four (ties: the higher number).
    The tables are the draw (seeded by `seed`, `tries` draws) with the fewest partners who
    partnered before, then the fewest opponents met before; the first such draw wins."""
    if players < 4:
        raise UsageError(f"an individual needs at least 4 players, not {players}")
    byes_had = dict.fromkeys(range(players), 0)
    partnered: dict[frozenset[int], int] = {}
    opposed = _met(history)
    for rnd in history:
        for b in rnd.byes:
            byes_had[b] += 1
        for tb in rnd.tables:
            for side in (tb.a, tb.b):
                key = frozenset(side)
                partnered[key] = partnered.get(key, 0) + 1
    n_out = players % 4
    sitting = sorted(range(players), key=lambda p: (byes_had[p], -p))
    out = tuple(sorted(sitting[:n_out]))
    playing = [p for p in range(players) if p not in out]
    rng = random.Random(seed)
    best: tuple[tuple[int, int], list[Table]] | None = None
    for _ in range(tries):
        order = list(playing)
        rng.shuffle(order)
        tables = [Table((order[i], order[i + 2]), (order[i + 1], order[i + 3]))
                  for i in range(0, len(order), 4)]
        cost = (sum(partnered.get(frozenset(s), 0) for t in tables for s in (t.a, t.b)),
                sum(opposed.get(frozenset((x, y)), 0) for t in tables for x in t.a
                    for y in t.b))
        if best is None or cost < best[0]:
            best = (cost, tables)
            if cost == (0, 0):
                break
    assert best is not None
    return Round(tuple(best[1]), out)
