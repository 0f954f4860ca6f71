"""Abandonment and forfeits: a side at fault loses the match.

Burraco: `BurracoHand.abandon` (TABLE-9 of seeds/table.md) and forfeits (TABLE-7) end the
match at once; the best of the other sides wins (none if they tie). Briscola: an abandon
keeps BRISCOLA-24's point rule and BRISCOLA-26's victory points; a forfeit is treated like an
abandon but moves no points from its smazzata.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from p2p_burraco.games.base import (
    HandResult,
    RuleViolation,
    check_cards_conserved,
    forfeit_result,
    read_forfeit,
)
from p2p_burraco.games.briscola import PRESETS as BRISCOLA
from p2p_burraco.games.briscola import BriscolaHand, BriscolaMatch, sides_of
from p2p_burraco.games.briscola import new_match as briscola_match
from p2p_burraco.games.briscola import restore_match as briscola_restore
from p2p_burraco.games.burraco import PRESETS as BURRACO
from p2p_burraco.games.burraco import BurracoHand, BurracoMatch
from p2p_burraco.games.burraco import new_match as burraco_match
from p2p_burraco.games.burraco import restore_match as burraco_restore
from p2p_burraco.selfplay import deal_known

FIBUR = BURRACO["fibur"]


def credit(n: int, per_seat: list[int]) -> HandResult:
    """A scored Burraco hand crediting each seat `per_seat[s]`."""
    return HandResult(sides=tuple((s,) for s in range(n)), points=tuple(per_seat),
                      breakdown=tuple(() for _ in range(n)), reason="closed",
                      extra={"credit": list(per_seat)})


def bur(n: int, totals: list[int], **opts: Any) -> BurracoMatch:
    m = burraco_match(FIBUR, n, first_dealer=0, **opts)
    if any(totals):
        m.record(credit(n, totals))
    assert not m.is_over
    return m


def walk(h: BurracoHand, steps: int, rng: random.Random) -> None:
    """A few random legal actions, to abandon a hand in the middle of play."""
    for _ in range(steps):
        seat = h.to_move
        if seat is None:
            return
        acts = list(h.legal_actions(seat))
        h.apply(seat, acts[rng.randrange(len(acts))])
        check_cards_conserved(h)


# ---------------------------------------------------------------- Burraco: abandon (TABLE-9)

def test_burraco_abandon_ends_the_hand_at_once() -> None:
    """TABLE-9: an abandoned hand is over at once, nobody moves, nothing more applies."""
    h = BurracoHand(FIBUR, 4, 0)
    deal_known(h, random.Random(3))
    walk(h, 5, random.Random(3))
    seat = h.to_move
    assert seat is not None
    h.abandon(2)
    assert h.is_over and h.to_move is None and h.phase == "over" and h.abandoned_by == 2
    assert h.legal_kinds(seat) == () and list(h.legal_actions(seat)) == []
    assert h.public_view()["abandoned_by"] == 2 and h.public_view()["end"] == "abandon"
    assert h.audience(h.schedule.stock_start) == frozenset(range(4))
    check_cards_conserved(h)
    with pytest.raises(RuleViolation) as err:
        h.abandon(1)
    assert err.value.rule_id == "TABLE-9"
    with pytest.raises(RuleViolation):
        h.apply(seat, h.parse_action(seat, "draw"))
    with pytest.raises(ValueError):
        BurracoHand(FIBUR, 4, 0).abandon(4)


@pytest.mark.parametrize("variant,n", [("fibur", 2), ("fibur", 3), ("fibur", 4), ("fibur", 5),
                                       ("fibur", 6), ("buraco", 2), ("classic", 4)])
def test_burraco_abandoned_result_scores_nothing_and_needs_no_card(variant: str, n: int) -> None:
    """TABLE-9: the result of an abandoned hand is zero for every side, with a zero credit
    per seat, and is computed without knowing a single card."""
    h = BurracoHand(BURRACO[variant], n, 1)
    h.abandon(n - 1)
    r = h.result()
    assert r.reason == "abandon" and set(r.points) == {0} and r.closed_by is None
    assert r.extra["abandoned_by"] == n - 1 and r.extra["credit"] == [0] * n
    assert all(ln.points == 0 for b in r.breakdown for ln in b)
    assert [ln.label for b in r.breakdown for ln in b] == ["abbandono (abandonment)"]
    r.to_wire()  # msgpack-safe


def test_burraco_abandon_mid_hand_after_sides_formed() -> None:
    """TABLE-9 FIBUR-33: a 3-seat hand abandoned after its sides formed still scores nothing
    and the match is lost by the quitter's standings side (its own seat)."""
    rng = random.Random(11)
    for seed in range(40):
        m = burraco_match(FIBUR, 3, first_dealer=0)
        h = m.new_hand()
        deal_known(h, random.Random(seed))
        walk(h, 200, rng)
        if not h.is_over:
            h.abandon(0)
            r = h.result()
            m.record(r)
            st = m.standings()
            assert st["decided_by"] == "abandon" and st["abandoned_by"] == 0
            assert st["winner"] is None and st["totals"] == [0, 0, 0]  # 1 and 2 level
            return
    pytest.skip("every random hand ended before the walk stopped")


BURRACO_ENDS = [
    # (seats, totals before, seat at fault, winner, note)
    (2, [300, 500], 0, 1, "the other side"),
    (2, [300, 500], 1, 0, "even from behind"),
    (3, [100, 400, 400], 0, None, "the others level: no winner"),
    (3, [100, 400, 300], 1, 2, "best of the others"),
    (3, [900, 400, 300], 0, 1, "the leader quits"),
    (4, [200, 700, 200, 700], 3, 0, "partners lose together"),
    (4, [200, 700, 200, 700], 0, 1, "partners lose together"),
    (5, [50, 10, 20, 30, 40], 0, 4, "best of four others"),
    (6, [1, 2, 1, 2, 1, 2], 4, 1, "three partners lose together"),
]


@pytest.mark.parametrize("n,totals,seat,winner,note", BURRACO_ENDS)
def test_burraco_table_9_abandon_loses_the_match(n: int, totals: list[int], seat: int,
                                                 winner: int | None, note: str) -> None:
    """TABLE-9: the abandoning seat's side (its side in the standings) loses the match; the
    best of the other sides wins, none if they tie."""
    m = bur(n, totals)
    before = m.standings()
    h = m.new_hand()
    h.abandon(seat)
    m.record(h.result())
    st = m.standings()
    assert m.is_over and st["over"], note
    assert st["winner"] == winner, note
    assert st["decided_by"] == "abandon" and st["abandoned_by"] == seat
    assert st["forfeit_by"] is None and st["forfeit_cause"] is None
    assert st["totals"] == before["totals"] and st["hands"] == before["hands"] + 1
    with pytest.raises(ValueError):
        m.new_hand()
    with pytest.raises(ValueError):
        m.record(credit(n, [0] * n))
    again = burraco_restore(FIBUR, n, m.snapshot(), first_dealer=0)
    assert again.standings() == st and again.is_over


@pytest.mark.parametrize("n,totals,seat,winner,note", BURRACO_ENDS)
@pytest.mark.parametrize("cause", ["cheat", "stall", "timeout", "abandon"])
def test_burraco_table_7_forfeit_loses_the_match(n: int, totals: list[int], seat: int,
                                                 winner: int | None, note: str,
                                                 cause: str) -> None:
    """TABLE-7: a forfeit scores nothing and ends the match against the seat's side; the
    best other side wins (none on a tie), whatever the cause."""
    m = bur(n, totals)
    before = m.standings()
    r = forfeit_result(before["sides"], seat, cause, n)
    m.record(r)
    st = m.standings()
    assert m.is_over and st["winner"] == winner, note
    assert st["decided_by"] == "forfeit" and st["forfeit_by"] == seat
    assert st["forfeit_cause"] == cause and st["abandoned_by"] is None
    assert st["totals"] == before["totals"] and st["per_seat"] == before["per_seat"]
    assert st["hands"] == before["hands"] + 1 and st["dealer"] == (before["dealer"] + 1) % n
    again = burraco_restore(FIBUR, n, m.snapshot(), first_dealer=0)
    assert again.standings() == st


def test_burraco_forfeit_of_a_single_hand_match() -> None:
    """TABLE-7 BURACO-16: a one-hand match forfeited is decided by the forfeit."""
    m = burraco_match(BURRACO["buraco"], 4, first_dealer=1)
    m.record(forfeit_result([[0, 2], [1, 3]], 2, "cheat", 4))
    assert m.standings()["winner"] == 1 and m.standings()["decided_by"] == "forfeit"


def test_burraco_decided_by_otherwise() -> None:
    """TABLE-7 TABLE-9 FIBUR-31 BURACO-16: without a fault the decision is the target, or
    the hand of a one-hand match; None while the match goes on."""
    m = burraco_match(FIBUR, 2, first_dealer=0, target=505)
    assert m.standings()["decided_by"] is None and m.standings()["forfeit_by"] is None
    m.record(credit(2, [600, 0]))
    assert m.standings()["decided_by"] == "target"
    one = burraco_match(BURRACO["buraco"], 2, first_dealer=0)
    one.record(credit(2, [100, 100]))
    assert one.standings()["decided_by"] == "hands" and one.standings()["winner"] is None


@pytest.mark.parametrize("result,message", [
    (HandResult(sides=((0,), (1,)), points=(0, 0), breakdown=((), ()), reason="forfeit",
                extra={"credit": [0, 0], "cause": "cheat"}), "seat at fault"),
    (HandResult(sides=((0,), (1,)), points=(0, 0), breakdown=((), ()), reason="forfeit",
                extra={"credit": [0, 0], "forfeit_by": 2, "cause": "cheat"}), "seat at fault"),
    (HandResult(sides=((0,), (1,)), points=(0, 0), breakdown=((), ()), reason="forfeit",
                extra={"credit": [0, 0], "forfeit_by": 1, "cause": ""}), "cause"),
    (HandResult(sides=((0,), (1,)), points=(0, 0), breakdown=((), ()), reason="forfeit",
                extra={"forfeit_by": 1, "cause": "stall"}), "credit"),
    (HandResult(sides=((0,), (1,)), points=(50, 0), breakdown=((), ()), reason="forfeit",
                extra={"credit": [50, 0], "forfeit_by": 1, "cause": "stall"}), "nothing"),
    (HandResult(sides=((0,), (1,)), points=(0, 0), breakdown=((), ()), reason="abandon",
                extra={"credit": [30, 0], "abandoned_by": 1}), "nothing"),
    (HandResult(sides=((0,), (1,)), points=(0, 0), breakdown=((), ()), reason="abandon",
                extra={"credit": [0, 0], "abandoned_by": 5}), "seat"),
])
def test_burraco_malformed_fault_results_change_nothing(result: HandResult,
                                                        message: str) -> None:
    """TABLE-7 TABLE-9: a forfeit or abandon that does not say who, why, or scores points is
    refused, and the match is left exactly as it was."""
    m = bur(2, [100, 200])
    before = m.snapshot()
    with pytest.raises(ValueError, match=message):
        m.record(result)
    assert m.snapshot() == before and not m.is_over


def test_void_keeps_the_dealer_in_both_games() -> None:
    """FIBUR-4 BRISCOLA-8: a void hand scores nothing and the same dealer deals again."""
    m = bur(4, [0, 0, 0, 0])
    m.record(HandResult(sides=((0, 2), (1, 3)), points=(0, 0), breakdown=((), ()),
                        reason="void"))
    assert m.new_hand().dealer == 0 and m.standings()["hands"] == 0
    b = briscola_match(BRISCOLA["standard"], 2, first_dealer=1)
    b.record(HandResult(sides=sides_of(2), points=(0, 0), breakdown=((), ()), reason="void"))
    assert b.new_hand().dealer == 1 and b.standings()["hands"] == 0


# ---------------------------------------------------------------- forfeit_result

def test_forfeit_result_shape() -> None:
    """TABLE-7: zero points, reason 'forfeit', the seat, the cause and a zero credit."""
    r = forfeit_result([[0, 2], [1, 3]], 3, "stall", 4)
    assert r.sides == ((0, 2), (1, 3)) and r.points == (0, 0) and r.reason == "forfeit"
    assert r.extra == {"forfeit_by": 3, "cause": "stall", "credit": [0, 0, 0, 0]}
    assert read_forfeit(r, 4) == (3, "stall")
    assert forfeit_result([[0], [1], [2]], 1, "cheat").extra["credit"] == [0, 0, 0]
    assert read_forfeit(HandResult(((0,), (1,)), (1, 2), ((), ())), 2) is None
    wire = r.to_wire()
    assert wire["extra"]["forfeit_by"] == 3 and wire["reason"] == "forfeit"


@pytest.mark.parametrize("sides,seat,cause,n", [
    ([[0], [1]], 2, "cheat", 2),
    ([[0], [1]], 0, "", 2),
    ([[0], [0]], 0, "cheat", 2),
    ([[0, 2], [1, 3]], 1, "cheat", 3),
])
def test_forfeit_result_refuses_nonsense(sides: list[list[int]], seat: int, cause: str,
                                         n: int) -> None:
    with pytest.raises(ValueError):
        forfeit_result(sides, seat, cause, n)


# ---------------------------------------------------------------- Briscola

STANDARD = BRISCOLA["standard"]


def bres(a: int, b: int, n: int = 2, quitter: int | None = None) -> HandResult:
    return HandResult(sides=sides_of(n), points=(a, b), breakdown=((), ()),
                      reason="abandon" if quitter is not None else "tricks",
                      extra={"abandoned_by": quitter, "last_trick_by": 0})


def test_briscola_24_abandon_through_the_hand_ends_the_match_and_is_in_the_snapshot() -> None:
    """BRISCOLA-24 BRISCOLA-26: BriscolaHand.abandon still ends the match through
    `extra["abandoned_by"]`; the snapshot keeps who abandoned and how it was decided."""
    m = briscola_match(STANDARD, 2, first_dealer=0, hands=3)
    m.record(bres(70, 50))
    h = m.new_hand()
    deal_known(h, random.Random(5))
    for _ in range(6):
        seat = h.to_move
        assert seat is not None
        h.apply(seat, next(iter(h.legal_actions(seat))))
    h.abandon(0)
    m.record(h.result())
    st = m.standings()
    assert st["decided_by"] == "abandon" and st["abandoned_by"] == 0 and st["winner"] == 1
    assert st["points"][0] <= st["points"][1]  # a lead left to the quitter counts as none
    snap = m.snapshot()
    assert snap["abandoned_by"] == 0 and snap["decided_by"] == "abandon" and snap["over"]
    again = briscola_restore(STANDARD, 2, snap, first_dealer=0, hands=3)
    assert again.standings() == st and again.victory_points() == m.victory_points()
    assert st["victory_points"][0] == 0 and st["victory_points"][1] >= 14


BRISCOLA_FORFEITS = [
    # (preset, seats, options, results before, seat, winner, points after, VP, MP, note)
    ("standard", 2, {}, [], 0, 1, [0, 0], [0, 14], [-50, 14], "first smazzata"),
    ("standard", 2, {}, [], 1, 0, [0, 0], [14, 0], [14, -50], "first smazzata"),
    ("standard", 4, {"hands": 3}, [(70, 50)], 2, 1, [50, 50], [0, 14], [-70, 20],
     "the leader forfeits: its lead counts as none"),
    ("standard", 2, {"hands": 3}, [(100, 20)], 1, 0, [100, 20], [20, 0], [70, -70],
     "a rout keeps its VP"),
    ("smazzate", 2, {}, [(61, 59), (30, 90)], 1, 0, [91, 91], [14, 0], [24, -86],
     "third smazzata of three"),
    ("torneo-ko", 2, {}, [(60, 60)], 1, 0, [60, 60], [14, 0], [14, -50],
     "in a play-off: no play-off result"),
]


@pytest.mark.parametrize("preset,n,opts,before,seat,winner,points,vp,mp,note",
                         BRISCOLA_FORFEITS)
@pytest.mark.parametrize("cause", ["cheat", "timeout"])
def test_briscola_26_forfeit_loses_the_match(preset: str, n: int, opts: dict[str, Any],
                                             before: list[tuple[int, int]], seat: int,
                                             winner: int, points: list[int], vp: list[int],
                                             mp: list[int], note: str, cause: str) -> None:
    """BRISCOLA-24 BRISCOLA-26: a forfeit loses the match like an abandon (0 VP against at
    least 14, MP the table's minima) but moves no points from its smazzata."""
    rules = BRISCOLA[preset]
    m = briscola_match(rules, n, first_dealer=0, **opts)
    for a, b in before:
        m.record(bres(a, b, n))
    assert not m.is_over
    playoffs = list(m.playoffs)
    m.record(forfeit_result(sides_of(n), seat, cause, n))
    st = m.standings()
    assert m.is_over and st["winner"] == winner, note
    assert st["decided_by"] == "forfeit" and st["forfeit_by"] == seat, note
    assert st["forfeit_cause"] == cause and st["abandoned_by"] is None
    assert st["points"] == points, note
    assert st["victory_points"] == vp and st["match_points"] == mp, note
    assert [tuple(p) for p in st["playoffs"]] == playoffs, note
    assert st["hands"] == len(before) + 1 and st["next_dealer"] == (len(before) + 1) % n
    again = briscola_restore(rules, n, m.snapshot(), first_dealer=0, **opts)
    assert again.standings() == st


def test_briscola_forfeit_ignores_credit_and_refuses_points() -> None:
    """BRISCOLA-24: a forfeit carries Burraco's zero `credit` (ignored here) and scores
    nothing: one with points is refused, leaving the match as it was."""
    m = briscola_match(STANDARD, 2, first_dealer=0)
    bad = HandResult(sides=sides_of(2), points=(0, 30), breakdown=((), ()), reason="forfeit",
                     extra={"forfeit_by": 0, "cause": "cheat", "credit": [0, 0]})
    before = m.snapshot()
    with pytest.raises(ValueError, match="nothing"):
        m.record(bad)
    with pytest.raises(ValueError, match="seat"):
        m.record(HandResult(sides=sides_of(2), points=(0, 0), breakdown=((), ()),
                            reason="forfeit", extra={"cause": "cheat"}))
    with pytest.raises(ValueError, match="sides"):
        m.record(forfeit_result([[0, 2], [1, 3]], 0, "cheat", 4))
    assert m.snapshot() == before
    m.record(forfeit_result([[0], [1]], 0, "cheat"))
    assert m.standings()["winner"] == 1


def test_briscola_24_abandon_in_a_playoff_cuts_the_quitters_lead() -> None:
    """BRISCOLA-24 BRISCOLA-26: in a play-off too, a lead left to the quitter counts as none
    (a smazzate match level on smazzate won may be ahead on points)."""
    m = briscola_match(BRISCOLA["torneo-ko"], 2, first_dealer=0, match_kind="smazzate",
                       hands=3)
    for a, b in [(61, 59), (60, 60), (20, 100)]:
        m.record(bres(a, b))
    assert m.in_playoff and m.points == [141, 219]
    m.record(bres(10, 20, quitter=1))
    st = m.standings()
    assert st["winner"] == 0 and st["decided_by"] == "abandon"
    assert st["points"] == [141, 141] and st["victory_points"] == [14, 0]


def test_briscola_hand_abandon_is_refused_once_over() -> None:
    """BRISCOLA-24: only a smazzata still in play can be abandoned."""
    h = BriscolaHand(STANDARD, 2, 0)
    h.abandon(1)
    with pytest.raises(RuleViolation):
        h.abandon(0)
    assert isinstance(briscola_match(STANDARD, 2, first_dealer=0), BriscolaMatch)
