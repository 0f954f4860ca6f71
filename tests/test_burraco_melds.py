"""Meld validation, wild placement and classification, table-driven per rule id, with the
seeds' own examples."""

from __future__ import annotations

import pytest

from p2p_burraco.games.burraco.melds import (
    Arrangement,
    MeldError,
    arrange_attach,
    arrange_new,
    classify,
    royal_kind,
)
from p2p_burraco.games.burraco.rules import PRESETS
from p2p_burraco.games.cards import format_cards, parse_cards


def placed(text: str, variant: str) -> tuple[str, Arrangement, list]:
    cards = parse_cards(text)
    arr = arrange_new(cards, PRESETS[variant], prefer_high=cards[-1].rank in (0, 2))
    order = [cards[i] for i in arr.order]
    norm = Arrangement(arr.kind, tuple(range(len(order))), arr.start, arr.suit,
                       None if arr.wild is None else arr.order.index(arr.wild))
    return format_cards(order), norm, order


def attach(old: str, new: str, variant: str, end: str | None = None) -> str:
    _, arr, cards = placed(old, variant)
    more = parse_cards(new)
    out = arrange_attach(cards, arr, more, PRESETS[variant], end)
    allc = cards + more
    return format_cards([allc[i] for i in out.order])


VALID = [
    # (rule ids, variant, typed, placed)
    ("FIBUR-9 PAGAT-6", "fibur", "7s 8s 9s", "7s 8s 9s"),
    ("PAGAT-13", "pagat", "7s JK 9s", "7s JK 9s"),
    ("PAGAT-13 FIBUR-14", "pagat", "7s 8s JK", "JK 7s 8s"),
    ("FIBUR-14", "fibur", "7s 8s JK", "JK 7s 8s"),
    ("FIBUR-14 PAGAT-13", "fibur", "Ah 2h 3h JK", "Ah 2h 3h JK"),
    ("FIBUR-10 PAGAT-8", "fibur", "Qh Kh Ah", "Qh Kh Ah"),
    ("FIBUR-10", "fibur", "Ah 2h 3h", "Ah 2h 3h"),
    ("FIBUR-13 PAGAT-11", "pagat", "2h 3h 4h", "2h 3h 4h"),
    ("FIBUR-13 PAGAT-11", "pagat", "2h 3h 4h JK", "JK 2h 3h 4h"),
    ("FIBUR-11 PAGAT-6", "fibur", "Ks Kd Kc", "Ks Kd Kc"),
    ("FIBUR-11 FIBUR-14", "fibur", "Ks JK Kd", "Ks Kd JK"),
    ("CLASSIC-6", "classic", "Ks Ks Kd", "Ks Ks Kd"),
    ("CLASSIC-4", "classic", "Qh Kh Ah", "Qh Kh Ah"),
    ("FIBUR-12", "fibur", "9d 2c Jd", "9d 2c Jd"),
    ("BURACO-6", "buraco", "7s 8s JK", "7s 8s JK"),
    ("BURACO-6 CLASSIC-5", "buraco", "JK 7s 8s", "JK 7s 8s"),
    ("CLASSIC-5", "classic", "7s 8s JK", "7s 8s JK"),
    ("FIBUR-17", "fibur", "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh JK",
     "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh JK"),
    ("FIBUR-17", "fibur", "Ks Kd Kc Kh Ks Kd Kc Kh JK", "Ks Kd Kc Kh Ks Kd Kc Kh JK"),
    ("BURACO-14", "buraco", "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah",
     "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah"),
]


@pytest.mark.parametrize("ids,variant,typed,expected", VALID)
def test_valid_melds_and_their_placement(ids: str, variant: str, typed: str, expected: str) -> None:
    assert placed(typed, variant)[0] == expected, ids


INVALID = [
    ("FIBUR-9", "fibur", "7s 8h 9s", "run"),
    ("FIBUR-9", "fibur", "7s 9s 10s", "run"),
    ("FIBUR-10 PAGAT-8", "fibur", "Kh Ah 2h 3h", "run"),  # no wrap-around
    ("FIBUR-10", "fibur", "Ah 2h 3h Ah", "ace"),
    ("FIBUR-12 PAGAT-10 CLASSIC-7", "fibur", "7s JK 9s 2c", "wild_limit"),
    ("FIBUR-12 BURACO-9", "buraco", "7s JK 9s 2c", "wild_limit"),
    ("FIBUR-15 PAGAT-9", "fibur", "2c 2d 2h", "wild_only"),
    ("FIBUR-15", "fibur", "JK JK 2c", "wild_only"),
    ("FIBUR-11", "fibur", "Ks Kd Qc", "run"),
    ("FIBUR-17", "fibur", "Ks Kd Kc Kh Ks Kd Kc Kh Ks", "max_len"),
    ("BURACO-4 MODIF-7", "buraco", "Ks Kd Kc", "sets_forbidden"),
    ("MODIF-7", "modificato", "Ks Kd Kc", "sets_forbidden"),
    ("FIBUR-9", "fibur", "7s 8s", "run"),
    ("CLASSIC-4", "classic", "Ks Kd", "set"),
    ("BURACO-14 FIBUR-10", "fibur", "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah", "ace"),
    ("BURACO-18", "buraco", "Ah 2h 3h Ah", "ace"),          # two aces only from ace to ace
    ("PAGAT-27", "pagat", "Ks Kd Kc Kh Ks Kd Kc Kh Ks", "max_len"),
]


@pytest.mark.parametrize("ids,variant,typed,key", INVALID)
def test_invalid_melds_name_the_rule(ids: str, variant: str, typed: str, key: str) -> None:
    with pytest.raises(MeldError) as info:
        placed(typed, variant)
    assert info.value.key == key, ids
    assert PRESETS[variant].rid(key) in ids.split() or variant == "fibur" or ids.startswith(
        "FIBUR"), (ids, PRESETS[variant].rid(key))  # the preset's own id for the rule


ATTACH = [
    # PAGAT-12: a natural 2 pressed into service as the wild
    ("PAGAT-12 FIBUR-16", "pagat", "2h 3h 4h", "6h", None, "3h 4h 2h 6h"),
    # PAGAT-13: the wild moves up to extend the run
    ("PAGAT-13 FIBUR-16", "pagat", "7s 8s JK", "10s", None, "7s 8s JK 10s"),
    # PAGAT-14: the replaced wild goes to the low end, still in the meld
    ("PAGAT-14 FIBUR-16", "pagat", "7s 8s JK 10s", "9s", None, "JK 7s 8s 9s 10s"),
    # BURACO-7: J-2-K + Q → 2-J-Q-K
    ("BURACO-7", "buraco", "Js 2s Ks", "Qs", None, "2s Js Qs Ks"),
    # BURACO-8: 3-2-5 + 4 → 2-3-4-5, clean again
    ("BURACO-8", "buraco", "3s 2s 5s", "4s", None, "2s 3s 4s 5s"),
    # CLASSIC-5: the replaced wild goes to the end the player names
    ("CLASSIC-5", "classic", "7s 8s JK", "9s", "high", "7s 8s 9s JK"),
    ("CLASSIC-5", "classic", "7s 8s JK", "9s", "low", "JK 7s 8s 9s"),
    ("CLASSIC-5", "classic", "7s 8s JK", "6s", None, "6s 7s 8s JK"),
    ("CLASSIC-5", "classic", "7s 8s JK", "10s", None, "7s 8s JK 10s"),
    ("FIBUR-11", "fibur", "Ks Kd Kc", "JK", None, "Ks Kd Kc JK"),
    ("FIBUR-13", "fibur", "3h 4h 5h", "2h", None, "2h 3h 4h 5h"),
]


@pytest.mark.parametrize("ids,variant,old,new,end,expected", ATTACH)
def test_attach_moves_the_wild_by_the_rules(ids: str, variant: str, old: str, new: str,
                                             end: str | None, expected: str) -> None:
    assert attach(old, new, variant, end) == expected, ids


ATTACH_BAD = [
    ("PAGAT-14 FIBUR-16", "pagat", "3h 4h 2h 6h", "JK", "wild_stays"),
    ("CLASSIC-5", "classic", "7s 8s JK", "5s", "wild_moves"),
    ("FIBUR-12", "fibur", "Ks Kd Kc JK", "2c", "wild_limit"),
    ("FIBUR-11", "fibur", "Ks Kd Kc", "Qs", "set"),
    ("FIBUR-10", "fibur", "Jh Qh Kh Ah", "Ah", "ace"),
    ("FIBUR-17", "fibur", "Ks Kd Kc Kh Ks Kd Kc Kh", "Kc", "max_len"),
]


@pytest.mark.parametrize("ids,variant,old,new,key", ATTACH_BAD)
def test_bad_attachments_are_refused(ids: str, variant: str, old: str, new: str, key: str) -> None:
    with pytest.raises(MeldError) as info:
        attach(old, new, variant)
    assert info.value.key == key, ids


CLASSES = [
    ("FIBUR-26 PAGAT-15", "fibur", "3h 4h 5h 6h 7h 8h 9h", "pulito"),
    ("FIBUR-26 FIBUR-13", "fibur", "2h 3h 4h 5h 6h 7h 8h", "pulito"),
    ("FIBUR-27", "fibur", "JK 3h 4h 5h 6h 7h 8h 9h", "semipuro"),   # a semipuro of 8 cards
    ("FIBUR-27", "fibur", "Ks Kd Kc Kh Ks Kd Kc JK", "semipuro"),
    ("FIBUR-27", "fibur", "3h 4h 5h JK 7h 8h 9h", "sporco"),
    ("FIBUR-27", "fibur", "3h 4h 5h JK 7h 8h 9h 10h", "sporco"),
    ("PAGAT-15", "pagat", "JK 3h 4h 5h 6h 7h 8h 9h", "sporco"),
    ("BURACO-5", "buraco", "3h 4h 5h 6h 7h 8h 9h", "pulito"),
    ("CLASSIC-7", "classic", "3h 4h 5h 6h 7h 8h JK", "sporco"),
    ("FIBUR-26", "fibur", "3h 4h 5h 6h 7h 8h", None),
]


@pytest.mark.parametrize("ids,variant,typed,cls", CLASSES)
def test_burraco_classification(ids: str, variant: str, typed: str, cls: str | None) -> None:
    _, arr, cards = placed(typed, variant)
    assert classify(cards, arr, PRESETS[variant]) == cls, ids


def test_royal_canastas_only_in_one_move() -> None:
    """BURACO-14: A–K clean is the 500, A–A the 1000, only when melded at once; BURACO-18:
    the second ace may also come by attaching (an ordinary canasta then)."""
    _, arr, cards = placed("Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh", "buraco")
    assert royal_kind(cards, arr, one_move=True) == 13
    assert royal_kind(cards, arr, one_move=False) == 0
    _, arr, cards = placed("Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah", "buraco")
    assert royal_kind(cards, arr, one_move=True) == 14
    assert attach("Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh", "Ah", "buraco").split()[-1] == "Ah"
    with pytest.raises(MeldError) as info:  # FIBUR-10: never two aces
        attach("Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh", "Ah", "fibur")
    assert info.value.key == "ace"
