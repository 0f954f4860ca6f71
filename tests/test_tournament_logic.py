"""Pure tournament logic: VP tables row by row, movements, byes, tie-breaks
(seeds/tournament.md)."""

from __future__ import annotations

import itertools

import pytest

from p2p_burraco.tournament import vp as vpt
from p2p_burraco.tournament.movement import (
    Round,
    Table,
    danish_first,
    danish_next,
    individual_round,
    mitchell,
)
from p2p_burraco.tournament.standings import Line, Result, match_result, ranking, tally

# (lowest MP difference of the row, highest, winner's VP) — TOURN-1 (3 hands), TOURN-2 (4)
ROWS_3 = [(0, 50, 10), (55, 150, 11), (155, 250, 12), (255, 350, 13), (355, 500, 14),
          (505, 650, 15), (655, 800, 16), (805, 1000, 17), (1005, 1250, 18),
          (1255, 1500, 19), (1505, 9000, 20)]
ROWS_4 = [(0, 100, 10), (105, 300, 11), (305, 500, 12), (505, 700, 13), (705, 900, 14),
          (905, 1100, 15), (1105, 1300, 16), (1305, 1500, 17), (1505, 1700, 18),
          (1705, 2000, 19), (2005, 9000, 20)]
# TOURN-3: derived, 3-hand bounds x 2/3 to the nearest 5
ROWS_2 = [(0, 35, 10), (40, 100, 11), (105, 165, 12), (170, 235, 13), (240, 335, 14),
          (340, 435, 15), (440, 535, 16), (540, 665, 17), (670, 835, 18), (840, 1000, 19),
          (1005, 9000, 20)]


@pytest.mark.parametrize("hands,low,high,win", [(3, *r) for r in ROWS_3] + [(4, *r) for r in ROWS_4]
                         + [(2, *r) for r in ROWS_2])
def test_tourn_1_2_3_every_burraco_row(hands: int, low: int, high: int, win: int) -> None:
    for d in (low, high):
        assert vpt.burraco_vp(d, hands) == (win, 20 - win)
        assert vpt.burraco_vp(-d, hands) == (20 - win, win)
    if low > 0:
        assert vpt.burraco_vp(low - 5, hands)[0] == win - 1
        assert vpt.burraco_min_mp(win, hands) == low
        assert vpt.burraco_min_mp(20 - win, hands) == -low


def test_tourn_3_other_hand_counts_refused() -> None:
    with pytest.raises(ValueError, match="2, 3 or 4 hands"):
        vpt.burraco_vp(10, 5)
    with pytest.raises(ValueError, match="1, 2 or 3 smazzate"):
        vpt.check_hands("briscola", 4)


# BRISCOLA-25 through the tournament: seed 002's table, every row (lowest MP of the row)
BRISCOLA_ROWS = {1: (0, 2, 4, 8, 14, 20, 26, 32, 38, 44, 50),
                 2: (0, 2, 6, 12, 20, 28, 36, 44, 52, 60, 70),
                 3: (0, 2, 6, 14, 24, 34, 44, 54, 64, 74, 86)}


@pytest.mark.parametrize("smazzate,row", [(s, r) for s in (1, 2, 3) for r in range(11)])
def test_briscola_25_seed_table_every_row(smazzate: int, row: int) -> None:
    low = BRISCOLA_ROWS[smazzate][row]
    assert vpt.table_vp("briscola", low, smazzate) == (10 + row, 10 - row)
    assert vpt.min_mp("briscola", 10 + row, smazzate) == low


def test_briscola_26_abandon_through_match_result() -> None:
    st = {"sides": [[0], [1]], "totals": [1, 0], "victory_points": [0, 14],
          "match_points": [-50, 14], "abandoned_by": 0}
    assert match_result("briscola", 1, st, "abandonment") == Result((0, 14), (-50, 14),
                                                                    "abandonment")


def test_tourn_4_burraco_abandon_gives_zero_and_at_least_14() -> None:
    """TOURN-4."""
    st = {"sides": [[0, 2], [1, 3]], "totals": [900, 100], "abandoned_by": 2}
    r = match_result("burraco", 3, st, "abandonment")
    assert r.vp == (0, 14) and r.mp == (-1505, 355)
    st = {"sides": [[0, 2], [1, 3]], "totals": [100, 1700], "abandoned_by": 0}
    assert match_result("burraco", 3, st).vp == (0, 20)
    st = {"sides": [[0, 2], [1, 3]], "totals": [100, 1700], "forfeit_by": 3}
    assert match_result("burraco", 3, st).vp == (14, 0)


def test_tourn_5_result_from_side_totals() -> None:
    """TOURN-5."""
    st = {"sides": [[0, 2], [1, 3]], "totals": [1205, 900]}
    assert match_result("burraco", 3, st) == Result((13, 7), (305, -305))
    assert match_result("burraco", 3, st, a_side=1) == Result((7, 13), (-305, 305))


def test_tourn_6_bye_score() -> None:
    """TOURN-6."""
    assert vpt.bye_score("burraco", 3) == (12, 155)
    assert vpt.bye_score("burraco", 4) == (12, 305)
    assert vpt.bye_score("briscola", 3) == (12, 6)


def _meetings(rounds: list[Round]) -> list[frozenset[int]]:
    return [frozenset((x, y)) for r in rounds for t in r.tables for x in t.a for y in t.b]


@pytest.mark.parametrize("entrants,rounds", [(8, 3), (8, 4), (6, 3), (7, 4), (10, 5), (2, 1)])
def test_tourn_7_8_mitchell_no_pair_meets_twice(entrants: int, rounds: int) -> None:
    """TOURN-8."""
    sched = mitchell(entrants, rounds)
    meets = _meetings(sched)
    assert len(meets) == len(set(meets))
    t = (entrants + 1) // 2
    for r, rnd in enumerate(sched):
        seen = sorted([x for tb in rnd.tables for x in (*tb.a, *tb.b)] + list(rnd.byes))
        assert seen == list(range(entrants))
        for tb in rnd.tables:
            assert tb.a[0] < t <= tb.b[0]           # NS fixed, EW moving
        for tb in rnd.tables:                       # EW one table up each round
            assert (tb.b[0] - t + r) % t == tb.a[0]
    if entrants % 2:
        assert all(len(r.byes) == 1 for r in sched)
        byes = [r.byes[0] for r in sched]
        assert len(set(byes)) == len(byes)


def test_tourn_7_mitchell_refuses_rounds_that_repeat() -> None:
    with pytest.raises(ValueError, match="at most 4 rounds"):
        mitchell(8, 5)


def test_tourn_9_danish_first_round_is_a_seeded_draw() -> None:
    """TOURN-9."""
    a, b = danish_first(9, seed=7), danish_first(9, seed=7)
    assert a == b and len(a.tables) == 4 and len(a.byes) == 1
    assert danish_first(9, seed=8) != a


def test_tourn_10_danish_1v2_then_avoids_repeats() -> None:
    first = Round((Table((0,), (1,)), Table((2,), (3,))))
    # 0 and 1 are top but met: 0 meets 2, 1 meets 3
    nxt = danish_next([0, 1, 2, 3], [first])
    assert nxt.tables == (Table((0,), (2,)), Table((1,), (3,)))
    # no history: 1st v 2nd, 3rd v 4th
    assert danish_next([3, 1, 0, 2], []).tables == (Table((3,), (1,)), Table((0,), (2,)))


def test_tourn_10_danish_repeats_only_when_it_must() -> None:
    hist = [Round((Table((0,), (1,)),))]
    assert danish_next([0, 1], hist).tables == (Table((0,), (1,)),)
    hist = []
    for _ in range(3):
        rnd = danish_next([0, 1, 2, 3], hist)
        hist.append(rnd)
    meets = _meetings(hist)
    assert len(meets) == len(set(meets)) == 6


def test_tourn_10_danish_bye_lowest_without_one() -> None:
    hist = [Round((Table((0,), (1,)), Table((2,), (3,))), byes=(4,))]
    nxt = danish_next([0, 1, 2, 3, 4], hist)
    assert nxt.byes == (3,)
    assert not {frozenset((x, y)) for t in nxt.tables for x in t.a for y in t.b} & \
        set(_meetings(hist))


def test_tourn_11_individual_partners_change() -> None:
    """TOURN-11."""
    hist: list[Round] = []
    for r in range(3):
        hist.append(individual_round(8, hist, seed=100 + r))
    partners = [frozenset(s) for rnd in hist for t in rnd.tables for s in (t.a, t.b)]
    assert len(partners) == len(set(partners)) == 12
    rnd = individual_round(9, [], seed=1)
    assert len(rnd.byes) == 1 and len(rnd.tables) == 2


def _lines(rows: list[tuple[int, int, int, dict[int, int]]]) -> list[Line]:
    return [Line(e, vp, mp, against=dict(h)) for e, vp, mp, h in rows]


def test_tourn_12_ranking_by_vp_first() -> None:
    """TOURN-12."""
    order = ranking(_lines([(0, 20, -100, {}), (1, 30, -500, {})]))
    assert [ln.entrant for ln in order] == [1, 0]


def test_tourn_12_then_by_mp_difference() -> None:
    order = ranking(_lines([(0, 30, 100, {}), (1, 30, 400, {})]))
    assert [ln.entrant for ln in order] == [1, 0]


def test_tourn_12_then_head_to_head() -> None:
    order = ranking(_lines([(0, 30, 100, {1: 8}), (1, 30, 100, {0: 12})]))
    assert [ln.entrant for ln in order] == [1, 0]


def test_tourn_12_then_entrant_number() -> None:
    order = ranking(_lines([(1, 30, 100, {}), (0, 30, 100, {})]))
    assert [ln.entrant for ln in order] == [0, 1]


def test_tally_counts_byes_and_head_to_head() -> None:
    rounds = mitchell(3, 2)
    results = [[Result((15, 5), (505, -505))], [Result((10, 10), (0, 0))]]
    lines = tally(3, rounds, results, "burraco", 3)
    total = sum(ln.vp for ln in lines)
    assert total == 20 * 2 + 12 * 2
    assert sum(ln.byes for ln in lines) == 2
    assert all(ln.played + ln.byes == 2 for ln in lines)
    assert lines[0].against == {2: 15}


def test_every_pairing_is_a_permutation() -> None:
    for e, r in itertools.product((4, 5, 6), (1, 2)):
        for rnd in mitchell(e, r):
            ids = [x for t in rnd.tables for x in (*t.a, *t.b)] + list(rnd.byes)
            assert sorted(ids) == list(range(e))


def test_every_tourn_id_is_listed_and_named_by_a_test() -> None:
    """tests/test_seed_ids.py knows the older prefixes; the TOURN ids get the same checks."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    ids = set(re.findall(r"^- \*\*(TOURN-\d+)\*\*", (root / "seeds" / "tournament.md")
                         .read_text(encoding="utf-8"), re.MULTILINE))
    assert len(ids) == 15
    readme = (root / "seeds" / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| (TOURN-\d+) \|", readme, re.MULTILINE))
    assert ids == listed
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (root / "tests").glob("test_*.py"))
    named = {f"TOURN-{n}" for n in re.findall(r"tourn_(\d+)", tests)}
    named |= {f"TOURN-{n}" for m in re.findall(r"tourn((?:_\d+)+)", tests)
              for n in m.strip("_").split("_")}
    assert ids <= named, sorted(ids - named)
