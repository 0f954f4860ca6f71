"""Scoring per preset and the match: values, bonuses, penalties, targets, sides, dealer."""

from __future__ import annotations

import pytest

from p2p_burraco.games.base import HandResult, ScoreLine, check_cards_conserved
from p2p_burraco.games.burraco import PRESETS, BurracoHand, new_match
from p2p_burraco.games.burraco.notation import parse_position
from p2p_burraco.games.cards import Card, Suit, parse_cards


def play(text: str, *steps: tuple[int, str]) -> BurracoHand:
    st = parse_position(text)
    for seat, words in steps:
        st.apply(seat, st.parse_action(seat, words))
        check_cards_conserved(st)
    return st


def lines(result: HandResult, side: int) -> dict[str, int]:
    return {ln.label: ln.points for ln in result.breakdown[side]}


@pytest.mark.parametrize("variant,ids,values", [
    ("fibur", "FIBUR-28", {"JK": 30, "2c": 20, "Ah": 15, "Kd": 10, "9s": 10, "8h": 10, "7c": 5, "3d": 5}),
    ("pagat", "PAGAT-21", {"JK": 30, "2c": 20, "Ah": 15, "9s": 10, "8h": 10, "7c": 5}),
    ("buraco", "BURACO-13", {"JK": 50, "2c": 10, "Ah": 15, "9s": 10, "8h": 10, "3d": 5}),
    ("classic", "CLASSIC-12", {"JK": 25, "2c": 20, "Ah": 15, "9s": 10, "8h": 10, "3d": 5}),
    ("modificato", "MODIF-2", {"JK": 20, "2c": 10, "Ah": 15, "9s": 10, "8h": 10, "7d": 5}),
])
def test_card_values_8_and_9_are_ten(variant: str, ids: str, values: dict[str, int]) -> None:
    """FIBUR-28 PAGAT-21 BURACO-13 CLASSIC-12 MODIF-2 — a common mistake scores 8 and 9 as 5."""
    r = PRESETS[variant]
    for text, v in values.items():
        assert r.card_points(parse_cards(text)[0]) == v, (ids, text)


def test_fibur_closing_hand_breakdown() -> None:
    """FIBUR-29 FIBUR-30 FIBUR-35: melds + burraco pulito + closing; the side without its
    pozzetto loses 100 and its hand cards; partners share the side's points."""
    st = play("fibur 4 | turn 0 play | hand 5c | side0 8h 9h 10h Jh Qh Kh Ah | side1 3s 4s 5s "
              "| pozzetto 0 | hand1 9c 8d | counts 0 0", (0, "discard 5c"))
    r = st.result()
    assert r.reason == "closed" and r.closed_by == 0
    assert r.sides == ((0, 2), (1, 3))
    assert lines(r, 0) == {"cards in melds": 75,
                           "burraco pulito (clean, 7 cards, no wild) 8h…Ah": 200,
                           "closing (seat 0 went out)": 100}
    assert lines(r, 1) == {"cards in melds": 15, "cards left in hand": -20,
                           "pozzetto not taken": -100}
    assert r.points == (375, -105)
    assert r.extra["credit"] == [375, -105, 375, -105]


def test_semipuro_and_dirty_bonuses() -> None:
    """FIBUR-27 FIBUR-29: semipuro 150, impuro 100; PAGAT-22 has no semipuro."""
    text = ("{v} 4 | turn 0 play | hand 5c | side0 JK 3h 4h 5h 6h 7h 8h 9h ; Ks Kd Kc JK Kh Kd Kc "
            "| pozzetto 0 | counts 0 0 0")
    r = play(text.format(v="fibur"), (0, "discard 5c")).result()
    semi = "burraco semipuro (semi-clean, 8 cards, 7 or more natural in a row beside the wild)"
    assert lines(r, 0)[f"{semi} JK…9h"] == 150
    assert lines(r, 0)["burraco sporco (dirty, 7 cards with a wild) set of Ks"] == 100
    r = play(text.format(v="pagat"), (0, "discard 5c")).result()
    assert [v for k, v in lines(r, 0).items() if k.startswith("burraco sporco")] == [100, 100]


def test_no_closing_bonus_when_the_stock_ends_the_hand() -> None:
    """PAGAT-22 PAGAT-24 FIBUR-25: nobody closed, nobody gets the 100."""
    st = play("pagat 4 | turn 0 play | hand 5c 6d | side0 3h 4h 5h | stock 2 | counts 0 0 0",
              (0, "discard 5c"))
    r = st.result()
    assert r.reason == "stock" and r.closed_by is None
    assert all("closing" not in lines(r, i) for i in range(2))
    assert lines(r, 0) == {"cards in melds": 15, "cards left in hand": -5,
                           "pozzetto not taken": -100}


def test_unseen_pozzetto_counts_as_hand_not_as_missing() -> None:
    """PAGAT-23 FIBUR-30: taken by the last discard but never seen."""
    st = play("pagat 4 | turn 1 play | hand 5c | side1 3h 4h 5h | stock 2 | counts 0 0 0",
              (1, "discard 5c"))
    r = st.result()
    side1 = lines(r, 1)
    assert "pozzetto not taken" not in side1
    label = next(k for k in side1 if k.startswith("cards left in hand"))
    assert "unseen" in label and side1[label] < 0
    assert lines(r, 0)["pozzetto not taken"] == -100


def test_classic_unopened_pays_double_and_modificato_300() -> None:
    """CLASSIC-15 CLASSIC-13 CLASSIC-14 MODIF-3."""
    base = ("{v} 4 | turn 0 play | hand 5c | side0 3d 4d 5d 6d 7d 8d 9d | pozzetto 0 "
            "| hand1 9c 8d | counts 0 0")
    r = play(base.format(v="classic"), (0, "discard 5c")).result()
    assert lines(r, 1)["cards left in hand (never opened: double)"] == -40
    assert lines(r, 0)["buracco pulito (clean, 7 cards, no wild) 3d…9d"] == 200
    assert lines(r, 0)["closing (seat 0 went out)"] == 100
    r = play(base.format(v="modificato"), (0, "discard 5c")).result()
    assert lines(r, 1)["never opened"] == -300
    assert lines(r, 1)["cards left in hand"] == -20
    assert lines(r, 1)["morto not taken"] == -100


def test_buraco_canasta_500_in_one_move() -> None:
    """BURACO-14 BURACO-15: A–K clean in one move is worth 500 instead of 200."""
    st = play("buraco 2 | turn 0 play | hand Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh 5c "
              "| pozzetto 0 | counts 0",
              (0, "meld Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh"), (0, "discard 5c"))
    r = st.result()
    assert lines(r, 0) == {"cards in melds": 110, "canasta pulita A–K in una mossa (clean, "
                           "every rank, laid in one move) Ah…Kh": 500,
                           "closing (seat 0 went out)": 100}
    assert lines(r, 1) == {"morto not taken": -100}
    # the same run built by attaching is an ordinary clean canasta
    st = play("buraco 2 | turn 0 play | hand 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh 5c "
              "| side0 Ah 2h 3h | pozzetto 0 | counts 0",
              *[(0, f"attach 0 {c}") for c in ["4h", "5h", "6h", "7h", "8h", "9h", "10h", "Jh", "Qh", "Kh"]],
              (0, "discard 5c"))
    assert lines(st.result(), 0)["canasta pulita (clean, 13 cards, no wild; built in 11 "
                                 "moves, and the 500 is for one move only) Ah…Kh"] == 200


def test_buraco_canasta_reale_1000() -> None:
    """BURACO-14: A–A, both aces, clean, in one move."""
    st = play("buraco 2 | turn 0 play | hand Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah 5c "
              "| pozzetto 0 | counts 0",
              (0, "meld Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah"), (0, "discard 5c"))
    assert lines(st.result(), 0)["canasta reale A–A in una mossa (clean, ace to ace, laid "
                                 "in one move) Ah…Ah"] == 1000


def test_three_seat_pair_splits_the_points() -> None:
    """FIBUR-33: the pair formed at the 18 divides its points (half each, truncated)."""
    st = play("fibur 3 | turn 1 play | hand 7h 8h 9h 5c | side0 3c 4c 5c | side2 Kd Ks Kc "
              "| stock 3 | counts 0 0", (1, "meld 7h 8h 9h"), (1, "discard 5c"))
    st2 = st.copy()
    st2.apply(2, st2.parse_action(2, "draw"))
    last = st2.hands[2][-1]
    st2.apply(2, st2.parse_action(2, f"discard {st2.face(last)}"))
    assert st2.is_over
    r = st2.result()
    assert r.sides == ((0, 2), (1,))
    pair = r.points[0]
    half = pair // 2 if pair >= 0 else -((-pair) // 2)
    assert r.extra["credit"][0] == r.extra["credit"][2] == half
    assert r.extra["credit"][1] == r.points[1]


def test_three_seats_nobody_at_the_18_all_alone() -> None:
    """FIBUR-33: if nobody took the 18, each scores alone, each without a pozzetto."""
    st = play("fibur 3 | turn 0 play | hand 5c 6d | stock 2 | counts 0 0", (0, "discard 5c"))
    r = st.result()
    assert r.sides == ((0,), (1,), (2,))
    assert all(lines(r, i)["pozzetto not taken"] == -100 for i in range(3))


# ---------------------------------------------------------------- match

def fake(n: int, credit: list[int], reason: str = "closed") -> HandResult:
    return HandResult(sides=tuple((s,) for s in range(n)), points=tuple(credit),
                      breakdown=tuple(() for _ in range(n)), reason=reason,
                      extra={"credit": credit})


def test_match_target_dealer_rotation_and_winner() -> None:
    """FIBUR-31 FIBUR-4: the deal passes on; the first side reaching the target wins."""
    m = new_match(PRESETS["fibur"], 4, first_dealer=2, target=505)
    assert m.new_hand().dealer == 2
    m.record(fake(4, [300, 100, 300, 100]))
    assert m.dealer == 3 and not m.is_over
    m.record(fake(4, [205, 0, 205, 0]))
    s = m.standings()
    assert s["over"] and s["winner"] == 0 and s["totals"] == [505, 100]
    assert s["sides"] == [[0, 2], [1, 3]] and s["hands"] == 2
    with pytest.raises(ValueError):
        m.new_hand()


def test_fibur_targets_and_tie_at_the_top() -> None:
    """FIBUR-31: 505/1005/2005/3005/5005; a tie at the top plays on."""
    assert PRESETS["fibur"].target == 2005
    assert PRESETS["fibur"].target_choices == (505, 1005, 2005, 3005, 5005)
    m = new_match(PRESETS["fibur"], 2, first_dealer=0, target=1005)
    m.record(fake(2, [1005, 1005]))
    assert not m.is_over
    m.record(fake(2, [10, 0]))
    assert m.is_over and m.standings()["winner"] == 0


def test_pagat_must_exceed_2000() -> None:
    """PAGAT-25: exceeding, not reaching."""
    m = new_match(PRESETS["pagat"], 2, first_dealer=0)
    m.record(fake(2, [2000, 0]))
    assert not m.is_over
    m.record(fake(2, [5, 0]))
    assert m.is_over


@pytest.mark.parametrize("variant,target,ids", [
    ("classic", 2000, "CLASSIC-16"), ("modificato", 3000, "MODIF-1"),
])
def test_classic_targets(variant: str, target: int, ids: str) -> None:
    m = new_match(PRESETS[variant], 2, first_dealer=0)
    assert m.target == target, ids
    m.record(fake(2, [target, 0]))
    assert m.is_over, ids


def test_buraco_one_hand_match() -> None:
    """BURACO-16: the hand's higher score wins."""
    m = new_match(PRESETS["buraco"], 2, first_dealer=0)
    m.record(fake(2, [100, 300]))
    assert m.is_over and m.standings()["winner"] == 1


def test_three_seats_switch_to_three_pozzetti_at_1000() -> None:
    """FIBUR-34: once anyone reaches 1000 the next hands are 3×11, each for himself."""
    m = new_match(PRESETS["fibur"], 3, first_dealer=0)
    assert [len(p.positions) for p in m.new_hand().pozzetti] == [18, 11]
    m.record(fake(3, [1000, 0, 0]))
    h = m.new_hand()
    assert [len(p.positions) for p in h.pozzetti] == [11, 11, 11] and not h.dynamic
    assert m.standings()["three_by_eleven"] is True


def test_each_for_himself_option() -> None:
    """FIBUR-38: 3 or 5 players, one 11-card pozzetto each, from the start."""
    m = new_match(PRESETS["fibur"], 5, first_dealer=0, each_for_himself=True)
    h = m.new_hand()
    assert [len(p.positions) for p in h.pozzetti] == [11] * 5 and not h.dynamic
    assert len(h.deck) == 162
    with pytest.raises(ValueError):
        new_match(PRESETS["fibur"], 4, first_dealer=0, each_for_himself=True)
    with pytest.raises(ValueError):
        new_match(PRESETS["fibur"], 4, first_dealer=0, colour="blue")


def test_void_hand_scores_nothing() -> None:
    m = new_match(PRESETS["fibur"], 4, first_dealer=1)
    m.record(fake(4, [0, 0, 0, 0], reason="void"))
    assert m.standings()["hands"] == 0 and m.dealer == 1


def test_result_needs_every_scored_card_known() -> None:
    st = BurracoHand(PRESETS["fibur"], 4, 0)
    with pytest.raises(ValueError, match="not over"):
        st.result()
    st._finish("stock", None)
    with pytest.raises(ValueError, match="unknown"):
        st.result()
    assert Card(9, Suit.SPADES) in parse_cards("9s")
    assert ScoreLine("x", 1).points == 1
