"""Briscola matches: a punti, a smazzate, vinco subito, knock-out play-offs, abandon, VP
(BRISCOLA-8, -19 … -26 of seeds/briscola.md)."""

from __future__ import annotations

import random

import msgpack
import pytest

from p2p_burraco.games.base import HandResult, RuleViolation, check_cards_conserved
from p2p_burraco.games.briscola import (
    PRESETS,
    BriscolaHand,
    BriscolaMatch,
    Play,
    card_points,
    forfeit_victory_points,
    mp_for_vp,
    new_match,
    sides_of,
    stacked_order,
    victory_points,
)
from p2p_burraco.selfplay import deal_known

STANDARD = PRESETS["standard"]
KO = PRESETS["torneo-ko"]
VINCO = PRESETS["vinco-subito"]


def res(a: int, b: int, *, n: int = 2, last_by: int = 0, quitter: int | None = None
        ) -> HandResult:
    """A hand result as a finished smazzata reports it."""
    winner = None if a == b else (0 if a > b else 1)
    if quitter is not None:
        winner = 1 - quitter % 2
    return HandResult(sides=sides_of(n), points=(a, b), breakdown=((), ()),
                      reason="abandon" if quitter is not None else "tricks",
                      extra={"winner": winner, "last_trick_by": last_by,
                             "abandoned_by": quitter, "unplayed": 120 - a - b})


def run(m: BriscolaMatch, *results: HandResult) -> BriscolaMatch:
    for r in results:
        assert not m.is_over
        m.new_hand()
        m.record(r)
    return m


def dealt(rules: object, n: int, dealer: int, seed: int) -> BriscolaHand:
    h = BriscolaHand(rules, n, dealer)  # type: ignore[arg-type]
    deal_known(h, random.Random(seed))
    return h


def play_first(h: BriscolaHand, plays: int = 10_000) -> None:
    for _ in range(plays):
        if h.is_over:
            return
        s = h.to_move
        assert s is not None
        h.apply(s, h.parse_action(s, "play 1"))
        check_cards_conserved(h)


# --- BRISCOLA-19: a punti -----------------------------------------------------------------
@pytest.mark.parametrize("opts,results,over_after,winner,how", [
    ({}, [(70, 50)], 1, 0, "punti"),
    ({}, [(40, 80)], 1, 1, "punti"),
    ({}, [(60, 60)], 1, None, "tie"),
    ({"hands": 3}, [(70, 50), (70, 50), (50, 70)], 3, 0, "punti"),
    ({"hands": 3}, [(100, 20), (90, 30)], 2, 0, "punti"),       # 190 >= 181: over early
    ({"hands": 3}, [(60, 60), (70, 50), (50, 70)], 3, None, "tie"),
    ({"target": 121}, [(60, 60), (60, 60)], 2, None, "tie"),     # level one short: a tie
    ({"target": 121}, [(70, 50), (60, 60)], 2, 0, "punti"),
    ({"target": 200}, [(70, 50), (50, 70), (50, 70), (90, 30)], 4, 0, "punti"),
])
def test_briscola_19_match_a_punti(opts: dict, results: list, over_after: int,
                                   winner: int | None, how: str) -> None:
    m = new_match(STANDARD, 2, first_dealer=0, match_kind="punti", **opts)
    for i, (a, b) in enumerate(results, 1):
        run(m, res(a, b))
        assert m.is_over == (i == over_after)
    st = m.standings()
    assert st["winner"] == winner and st["decided_by"] == how and st["over"]
    assert st["totals"] == [sum(r[0] for r in results), sum(r[1] for r in results)]
    assert st["hands"] == over_after
    assert msgpack.unpackb(msgpack.packb(st), raw=False) == st
    with pytest.raises(ValueError, match="over"):
        m.new_hand()


def test_briscola_19_default_target_is_more_than_half() -> None:
    assert new_match(STANDARD, 2, first_dealer=0).standings()["target"] == 61
    assert new_match(STANDARD, 4, first_dealer=0, hands=3).standings()["target"] == 181
    assert new_match(STANDARD, 2, first_dealer=0, target=121).hands_cap is None
    with pytest.raises(ValueError, match="BRISCOLA-19"):
        new_match(STANDARD, 2, first_dealer=0, target=0)


# --- BRISCOLA-20: a smazzate --------------------------------------------------------------
@pytest.mark.parametrize("hands,results,over_after,winner,totals", [
    (3, [(70, 50), (70, 50)], 2, 0, [2, 0]),
    (3, [(70, 50), (50, 70), (59, 61)], 3, 1, [1, 2]),
    (3, [(60, 60), (70, 50), (60, 60)], 3, 0, [1, 0]),   # more smazzate won after all three
    (3, [(70, 50), (50, 70), (60, 60)], 3, None, [1, 1]),
    (5, [(70, 50), (70, 50), (70, 50)], 3, 0, [3, 0]),
    (1, [(61, 59)], 1, 0, [1, 0]),
])
def test_briscola_20_match_a_smazzate(hands: int, results: list, over_after: int,
                                      winner: int | None, totals: list) -> None:
    m = new_match(STANDARD, 2, first_dealer=1, match_kind="smazzate", hands=hands)
    for i, (a, b) in enumerate(results, 1):
        run(m, res(a, b))
        assert m.is_over == (i == over_after)
    st = m.standings()
    assert st["winner"] == winner and st["totals"] == totals and st["hands_won"] == totals
    assert st["target"] == hands // 2 + 1 and st["smazzate"] == hands
    assert st["points"] == [sum(r[0] for r in results), sum(r[1] for r in results)]


@pytest.mark.parametrize("opts", [{"hands": 2}, {"hands": 4}, {"hands": 0},
                                  {"hands": 3, "target": 61}])
def test_briscola_20_odd_count_only(opts: dict) -> None:
    with pytest.raises(ValueError, match="BRISCOLA-20|at least one"):
        new_match(STANDARD, 2, first_dealer=0, match_kind="smazzate", **opts)


def test_briscola_20_preset_and_unknown_options() -> None:
    m = new_match(PRESETS["smazzate"], 2, first_dealer=0)
    assert m.kind == "smazzate" and m.hands_cap == 3
    with pytest.raises(ValueError, match="unknown match kind"):
        new_match(STANDARD, 2, first_dealer=0, match_kind="partite")
    with pytest.raises(ValueError, match="unknown Briscola match option"):
        new_match(STANDARD, 2, first_dealer=0, colour="blue")


# --- BRISCOLA-21: vinco subito ------------------------------------------------------------
@pytest.mark.parametrize("n,seed", [(2, s) for s in range(6)] + [(4, s) for s in range(6)])
def test_briscola_21_vinco_subito_stops_at_61(n: int, seed: int) -> None:
    fast = dealt(VINCO, n, seed % n, seed)
    slow = dealt(STANDARD, n, seed % n, seed)
    play_first(fast)
    play_first(slow)
    r = fast.result()
    # The same tricks were played up to the stop, and the stop is the first trick that
    # brought a side to 61.
    k = len(fast.tricks)
    assert [t.winner for t in fast.tricks] == [t.winner for t in slow.tricks[:k]]
    first_61 = None
    cumulative = [0, 0]
    for i, t in enumerate(slow.tricks):
        cumulative[t.winner % 2] += sum(_pts(slow, p) for _, p in t.plays)
        if max(cumulative) >= 61:
            first_61 = i + 1
            break
    assert first_61 is not None
    if first_61 == len(slow.tricks):
        assert r.reason == "tricks" and sum(r.points) == 120
    else:
        assert r.reason == "vinco subito" and k == first_61
        w = r.extra["winner"]
        assert r.points[w] >= 61 and r.points[1 - w] < 61
        assert sum(r.points) + r.extra["unplayed"] == 120
        assert any(fast.hand(s) for s in range(n))
    assert fast.to_move is None and fast.audience(fast.schedule.stock[-1]) == frozenset(range(n))


def _pts(h: BriscolaHand, pos: int) -> int:
    return card_points(h.deck[h.card_at(pos)])  # type: ignore[index]


def test_briscola_21_stop_points_follow_the_match() -> None:
    m = new_match(VINCO, 2, first_dealer=0, hands=3)
    assert m.new_hand().stop_at == (181, 181)
    m.record(res(100, 20))
    assert m.new_hand().stop_at == (81, 161)
    s = new_match(VINCO, 4, first_dealer=0, match_kind="smazzate", hands=3)
    assert s.new_hand().stop_at == (61, 61)
    assert new_match(STANDARD, 2, first_dealer=0).new_hand().stop_at is None
    ko = new_match(VINCO.with_options(knockout=True), 2, first_dealer=0)
    ko.record(res(60, 60))
    assert ko.in_playoff and ko.new_hand().stop_at == (61, 61)


# --- BRISCOLA-22: knock-out play-offs -----------------------------------------------------
def test_briscola_22_playoff_decides_a_tied_match() -> None:
    m = run(new_match(KO, 2, first_dealer=1), res(60, 60))
    assert not m.is_over and m.in_playoff and m.standings()["winner"] is None
    run(m, res(50, 70))
    st = m.standings()
    assert st["over"] and st["winner"] == 1 and st["decided_by"] == "play-off 1"
    assert st["playoffs"] == [[50, 70]] and st["hands"] == 2 and st["totals"] == [60, 60]
    assert st["next_dealer"] == 1  # two smazzate dealt: 1, 0 (BRISCOLA-8)


@pytest.mark.parametrize("playoffs,winner,how", [
    ([(60, 60), (61, 59)], 0, "play-off 2"),
    ([(60, 60), (60, 60), (20, 100)], 1, "play-off 3"),
])
def test_briscola_22_up_to_three_playoffs(playoffs: list, winner: int, how: str) -> None:
    m = new_match(STANDARD, 2, first_dealer=0, match_kind="smazzate", hands=3, knockout=True)
    run(m, res(70, 50), res(50, 70), res(60, 60))
    assert m.in_playoff
    run(m, *(res(a, b) for a, b in playoffs))
    assert m.is_over and m.winner == winner and m.decided_by == how


def test_briscola_22_no_playoffs_without_knockout() -> None:
    m = run(new_match(STANDARD, 2, first_dealer=0), res(60, 60))
    assert m.is_over and m.winner is None


# --- BRISCOLA-23: after three tied play-offs the last trick loses -------------------------
@pytest.mark.parametrize("n,last_by,winner", [(2, 0, 1), (2, 1, 0), (4, 2, 1), (4, 3, 0)])
def test_briscola_23_last_trick_of_the_third_playoff_loses(n: int, last_by: int,
                                                             winner: int) -> None:
    m = run(new_match(KO, n, first_dealer=0), res(60, 60, n=n))
    run(m, res(60, 60, n=n, last_by=1 - last_by % 2), res(60, 60, n=n, last_by=last_by % 2))
    assert m.in_playoff
    run(m, res(60, 60, n=n, last_by=last_by))
    assert m.is_over and m.winner == winner and m.decided_by == "last trick of play-off 3"
    assert len(m.playoffs) == 3


def test_briscola_23_result_names_the_last_trick_taker() -> None:
    h = dealt(STANDARD, 2, 0, 11)
    play_first(h)
    assert h.result().extra["last_trick_by"] == h.tricks[-1].winner


# --- BRISCOLA-24: abandon and timeout -----------------------------------------------------
def _stacked(n: int = 2) -> BriscolaHand:
    h = BriscolaHand(STANDARD, n, 0)
    for p, c in enumerate(stacked_order(h.deck, h.schedule, {1: "Ac 3c 2b", 0: "2c 4c 4b"},
                                        "7d", stock="5b 6b 7b 5s")):
        h.learn(p, c)
    return h


@pytest.mark.parametrize("plays,quitter,points", [
    ([], 0, (0, 20)),                               # nothing taken: 20 of the 120 in play
    ([], 1, (20, 0)),
    (["Ac", "2c", "3c", "4c"], 1, (20, 20)),        # quitter ahead 21-0: the lead is cut
    (["Ac", "2c", "3c", "4c"], 0, (0, 41)),         # 21 + 20 in play
    (["Ac", "2c"], 0, (0, 31)),                     # an open trick's cards are still in play
])
def test_briscola_24_abandon_point_difference(plays: list, quitter: int, points: tuple) -> None:
    h = _stacked()
    for text in plays:
        s = h.to_move
        h.apply(s, h.parse_action(s, text))  # type: ignore[arg-type]
    h.abandon(quitter)
    assert h.is_over and h.to_move is None and h.phase == "over"
    r = h.result()
    assert r.points == points and r.reason == "abandon"
    assert r.extra["winner"] == 1 - quitter and r.extra["abandoned_by"] == quitter
    assert all(h.audience(p) == frozenset({0, 1}) for p in range(40))
    with pytest.raises(RuleViolation, match="BRISCOLA-24"):
        h.abandon(1 - quitter)
    with pytest.raises(RuleViolation, match="BRISCOLA-18"):
        h.apply(0, Play(h.hand(0)[0], h.card_at(h.hand(0)[0])))  # type: ignore[arg-type]


@pytest.mark.parametrize("moment", [0, 7, 21, 33, 38])
def test_briscola_24_gift_is_capped_at_20(moment: int) -> None:
    h = dealt(STANDARD, 2, 1, moment)
    play_first(h, moment)
    taken = [h.side_points(0), h.side_points(1)]
    quitter = h.to_move
    assert quitter is not None
    h.abandon(quitter)
    other = 1 - quitter
    expected = list(taken)
    expected[other] += min(20, 120 - sum(taken))
    expected[quitter] = min(expected[quitter], expected[other])
    assert list(h.result().points) == expected


def test_briscola_24_abandon_loses_the_match() -> None:
    m = new_match(STANDARD, 2, first_dealer=0, hands=3)
    run(m, res(100, 20), res(0, 20, quitter=0))
    st = m.standings()
    assert st["over"] and st["winner"] == 1 and st["decided_by"] == "abandon"
    assert st["abandoned_by"] == 0
    assert st["points"] == [40, 40]  # over the match the quitter's lead counts as none
    four = run(new_match(KO, 4, first_dealer=0), res(60, 60, n=4), res(30, 50, n=4, quitter=3))
    assert four.is_over and four.winner == 0  # seat 3 quit: side 1 loses, even in a play-off


# --- BRISCOLA-25: victory points ----------------------------------------------------------
@pytest.mark.parametrize("diff,smazzate,vp", [
    (0, 1, (10, 10)), (1, 1, (10, 10)), (2, 1, (11, 9)), (4, 1, (12, 8)), (6, 1, (12, 8)),
    (8, 1, (13, 7)), (18, 1, (14, 6)), (20, 1, (15, 5)), (48, 1, (19, 1)), (50, 1, (20, 0)),
    (120, 1, (20, 0)), (-14, 1, (6, 14)), (-2, 1, (9, 11)),
    (4, 2, (11, 9)), (6, 2, (12, 8)), (26, 2, (14, 6)), (68, 2, (19, 1)), (70, 2, (20, 0)),
    (12, 3, (12, 8)), (14, 3, (13, 7)), (52, 3, (16, 4)), (54, 3, (17, 3)),  # 54: see digest
    (62, 3, (17, 3)), (64, 3, (18, 2)), (85, 3, (19, 1)), (86, 3, (20, 0)),
])
def test_briscola_25_victory_point_table(diff: int, smazzate: int, vp: tuple) -> None:
    assert victory_points(diff, smazzate) == vp


@pytest.mark.parametrize("smazzate", [1, 2, 3])
def test_briscola_25_table_rises_and_splits_twenty(smazzate: int) -> None:
    row = [victory_points(d, smazzate)[0] for d in range(361)]
    assert row == sorted(row) and row[0] == 10 and row[-1] == 20
    assert all(sum(victory_points(d, smazzate)) == 20 for d in range(-360, 361, 7))
    assert all(victory_points(mp_for_vp(v, smazzate), smazzate)[0] == v for v in range(10, 21))


def test_briscola_25_match_reports_vp() -> None:
    st = run(new_match(STANDARD, 2, first_dealer=0), res(70, 50)).standings()
    assert st["victory_points"] == [15, 5] and st["match_points"] == [20, -20]
    with pytest.raises(ValueError, match="BRISCOLA-25"):
        victory_points(10, 4)


# --- BRISCOLA-26: VP after an abandon -----------------------------------------------------
@pytest.mark.parametrize("diff,smazzate,vp,mp", [
    (0, 1, (14, 0), (14, -50)),
    (20, 1, (15, 0), (20, -50)),
    (30, 1, (16, 0), (26, -50)),
    (0, 2, (14, 0), (20, -70)),
    (0, 3, (14, 0), (24, -86)),
])
def test_briscola_26_forfeit_victory_points(diff: int, smazzate: int, vp: tuple,
                                            mp: tuple) -> None:
    f = forfeit_victory_points(diff, smazzate)
    assert f["vp"] == vp and f["mp"] == mp


def test_briscola_26_match_reports_forfeit_vp() -> None:
    st = run(new_match(STANDARD, 2, first_dealer=0), res(0, 20, quitter=0)).standings()
    assert st["victory_points"] == [0, 15] and st["match_points"] == [-50, 20]
    st = run(new_match(STANDARD, 2, first_dealer=0), res(20, 20, quitter=1)).standings()
    assert st["victory_points"] == [14, 0] and st["match_points"] == [14, -50]
