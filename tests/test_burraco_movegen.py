"""Move generation's shortcuts give exactly what the meld rules give without them.

The generator memoizes runs per cluster of a suit, asks the meld rules once for all suits (a
run's faces renamed into one suit, another suit's 2 as the joker) and new sets and sets'
attachments by their rank and pattern of wild cards. Each property below compares one shortcut
with the unmemoized meld functions of melds.py on random hands, for every preset: the same
options, in the same order, with the same placements (what keeps the perft counts and every rule
id's verdict).
These are invariants of the generator, not rules: they name no rule id.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_burraco.games.burraco import memo, new_match
from p2p_burraco.games.burraco.melds import (
    Arrangement,
    MeldError,
    arrange_attach,
    arrange_new,
    is_wild,
)
from p2p_burraco.games.burraco.memo import (
    CODE_CARD,
    attach_run_quiet,
    attach_set_quiet,
    new_run_quiet,
    new_set_quiet,
)
from p2p_burraco.games.burraco.movegen import (
    HandIndex,
    Spec,
    _cluster_options,
    _rank_sets,
    _suit_runs,
    arr_key,
    attach_candidates,
    attach_options,
    touch_mask,
)
from p2p_burraco.games.burraco.rules import PRESETS, RuleSet
from p2p_burraco.games.cards import parse_cards
from p2p_burraco.selfplay import deal_known

CODES = [0, *range(4, 56)]
hands = st.lists(st.sampled_from(CODES), min_size=3, max_size=16)
presets = st.sampled_from(sorted(PRESETS))


def _index(codes: list[int]) -> HandIndex:
    by_code: dict[int, list[int]] = {}
    for pos, c in enumerate(codes):
        by_code.setdefault(c, []).append(pos)
    return HandIndex(by_code)


def _faces(codes: tuple[int, ...]) -> list:
    return [CODE_CARD[c] for c in codes]


def _new(rules: RuleSet, codes: tuple[int, ...]) -> Arrangement | None:
    faces = _faces(codes)
    try:
        return arrange_new(faces, rules, prefer_high=is_wild(faces[-1]))
    except MeldError:
        return None


def _hand_runs(idx: HandIndex, rules: RuleSet) -> Iterator[tuple[int, Spec]]:
    """Every run the hand could lay, suit by suit, as the move generator enumerates them."""
    for suit in range(4):
        counts = tuple(idx.run_counts[4 + suit::4])
        for spec in _suit_runs(suit, counts, idx.suit_wilds[suit], rules.ace_to_ace,
                               rules.run_max_naturals):
            yield suit, spec


def _reference_runs(specs: list[Spec], rules: RuleSet) -> list[tuple[Spec, tuple]]:
    """movegen._checked written again on the unmemoized meld rules."""
    out = []
    for spec in specs:
        arr = _new(rules, tuple(c for c, _ in spec))
        if arr is None:
            continue
        placed = tuple(spec[i] for i in arr.order)
        if placed != spec:
            arr = _new(rules, tuple(c for c, _ in placed))
            if arr is None:
                continue
        out.append((spec, placed, arr_key(arr), tuple(c for c, _ in placed)))
    return out


@settings(max_examples=100, deadline=None)
@given(codes=hands, variant=presets)
def test_runs_by_cluster_equal_the_whole_suit(codes: list[int], variant: str) -> None:
    """Property: a suit's runs solved per cluster, through the one-suit memo, are the whole
    suit's runs checked one by one by the meld rules (same specs, order and placements)."""
    rules = PRESETS[variant]
    idx = _index(codes)
    for suit in range(4):
        counts = tuple(idx.run_counts[4 + suit::4])
        wcounts = idx.suit_wilds[suit]
        whole = _suit_runs(suit, counts, wcounts, rules.ace_to_ace, rules.run_max_naturals)
        assert list(_cluster_options(suit, counts, wcounts, rules, {})) == \
            _reference_runs(whole, rules)


@settings(max_examples=100, deadline=None)
@given(codes=hands, more=hands, variant=presets)
def test_one_suit_memo_answers_as_the_meld_rules(codes: list[int], more: list[int],
                                                 variant: str) -> None:
    """Property: `new_run_quiet`, `new_set_quiet`, `attach_run_quiet` and `attach_set_quiet`
    (asked once for all suits, or by a set's rank and pattern of wilds) answer every
    candidate as arrange_new and arrange_attach do, on melds laid from one random hand and
    cards from another; and a meld `touch_mask` says the other hand cannot touch has no
    attach option from it."""
    rules = PRESETS[variant]
    table: dict[object, object] = {}
    idx = _index(codes)
    melds: list[tuple[tuple[int, ...], Arrangement]] = []
    for suit, spec in _hand_runs(idx, rules):
        typed = tuple(c for c, _ in spec)
        want = _new(rules, typed)
        assert new_run_quiet(rules, typed, suit, table) == want
        if want is not None:
            melds.append((tuple(typed[i] for i in want.order), want))
    wilds = tuple(w for w in memo.WILD_CODES if idx.counts[w])
    for present in idx.rank_items.values():
        for spec in _rank_sets(tuple(present), wilds, rules.set_max_naturals):
            typed = tuple(c for c, _ in spec)
            got = _new(rules, typed)
            assert new_set_quiet(rules, typed, table) == got
            if got is not None and got.kind == "set":
                melds.append((tuple(typed[i] for i in got.order), got))
    sub: dict[int, list[int]] = {}
    for pos, c in enumerate(more):
        sub.setdefault(c, []).append(pos)
    hand2 = _index(more)
    for old, arr in melds[:12]:
        norm = Arrangement(arr.kind, tuple(range(len(old))), arr.start, arr.suit,
                           None if arr.wild is None else arr.order.index(arr.wild))
        if not hand2.mask & touch_mask(norm, old):   # the generator skips the meld: rightly
            assert attach_options(hand2, old, norm, rules, {}) == []
        quiet = attach_run_quiet if arr.kind == "run" else attach_set_quiet
        for cand, end in attach_candidates(sub, norm, rules):
            new = tuple(more[p] for p in cand)
            try:
                want = arrange_attach(_faces(old), norm, _faces(new), rules, end)
            except MeldError:
                want = None
            assert quiet(rules, old, norm, new, end, table) == want


def _reference_attach(hand: list[int], old: tuple[int, ...], norm: Arrangement,
                      rules: RuleSet) -> list[tuple]:
    """attach_options written again on the unmemoized meld rules: `attach_candidates` on the
    whole hand (a run's faces in code order, a set's as first seen), each candidate asked
    of arrange_attach, in order."""
    by_code: dict[int, list[int]] = {}
    for pos, c in enumerate(hand):
        by_code.setdefault(c, []).append(pos)
    faces = by_code if norm.kind == "set" else {c: by_code[c] for c in sorted(by_code)}
    out = []
    for cand, end in attach_candidates(faces, norm, rules):
        spec = tuple((hand[p], by_code[hand[p]].index(p)) for p in cand)
        new = tuple(c for c, _ in spec)
        try:
            arr2 = arrange_attach(_faces(old), norm, _faces(new), rules, end)
        except MeldError:
            continue
        allc = old + new
        out.append((spec, end, arr_key(arr2), tuple(allc[i] for i in arr2.order)))
    return out


@settings(max_examples=150, deadline=None)
@given(codes=hands, more=hands, variant=presets)
def test_attach_options_face_by_face_equal_the_meld_rules(codes: list[int], more: list[int],
                                                          variant: str) -> None:
    """Property: a meld's attach options put together face by face (memoized per meld and
    face, `attach_options`) are the whole hand's candidates asked one by one of the meld
    rules: the same options in the same order, on runs and sets laid from one random hand
    and cards from another, asked twice (the second time from the memo)."""
    rules = PRESETS[variant]
    table: dict[object, object] = {}
    idx = _index(codes)
    melds: list[tuple[tuple[int, ...], Arrangement]] = []
    for _, spec in _hand_runs(idx, rules):
        got = _new(rules, tuple(c for c, _ in spec))
        if got is not None:
            melds.append((tuple(spec[i][0] for i in got.order), got))
    wilds = tuple(w for w in memo.WILD_CODES if idx.counts[w])
    for present in idx.rank_items.values():
        for spec in _rank_sets(tuple(present), wilds, rules.set_max_naturals):
            got = _new(rules, tuple(c for c, _ in spec))
            if got is not None and got.kind == "set":
                melds.append((tuple(spec[i][0] for i in got.order), got))
    hand2 = _index(more)
    for old, arr in melds[:6] + melds[-6:]:
        norm = Arrangement(arr.kind, tuple(range(len(old))), arr.start, arr.suit,
                           None if arr.wild is None else arr.order.index(arr.wild))
        want = _reference_attach(more, old, norm, rules)
        assert attach_options(hand2, old, norm, rules, table) == want
        assert attach_options(hand2, old, norm, rules, table) == want


@pytest.mark.parametrize("which,bound", [("table", "MAX_ENTRIES"),
                                         ("verdicts", "MAX_VERDICTS")])
def test_a_full_memo_table_forgets_its_older_half(which: str, bound: str) -> None:
    """A table past its bound keeps its newer half only: memory stays bounded (issue 12)
    while what the current hands keep asking stays. The two tables are apart: filling the
    options table never evicts a verdict of the meld rules."""
    rules = PRESETS["pagat"]
    get = getattr(memo, which)
    other = memo.verdicts if which == "table" else memo.table
    n = getattr(memo, bound)
    table = get(rules)
    saved, saved_other = dict(table), dict(other(rules))
    try:
        table.clear()
        other(rules).clear()
        other(rules)[("kept", 0)] = 0
        for i in range(n + 1):
            table[("test", i)] = i
        assert get(rules) is table
        assert len(table) <= n // 2 + 1
        assert ("test", n) in table and ("test", 0) not in table
        assert other(rules) == {("kept", 0): 0}
    finally:
        table.clear()
        table.update(saved)
        other(rules).clear()
        other(rules).update(saved_other)


def test_a_listing_keeps_the_options_table_within_its_bound() -> None:
    """A hand state holds on to its rule set's options table (no lookup per listing) and
    still has it halved when a listing finds it past its bound (issue 12): a long search
    within one hand cannot grow it without end."""
    rules = PRESETS["fibur"]
    match = new_match(rules, 4, first_dealer=0, target=10**9)
    state = match.new_hand()
    deal_known(state, random.Random(5))
    seat = cast(int, state.to_move)
    state.apply(seat, next(iter(state.legal_actions(seat))))   # draw: now the play phase
    table = memo.table(rules)
    saved = dict(table)
    try:
        table.clear()
        for i in range(memo.MAX_ENTRIES + 1):
            table[("test", i)] = i
        list(state.legal_actions(seat))
        assert len(table) <= memo.MAX_ENTRIES // 2 + 50
        assert ("test", memo.MAX_ENTRIES) in table and ("test", 0) not in table
        assert memo.table(rules) is table
    finally:
        table.clear()
        table.update(saved)


MELDS = ["5h 6h 7h", "5h 6h JK 8h 9h", "Ah 2h 3h", "Qh Kh Ah", "3s 4s 2c", "Ks Kd Kc",
         "Ks Kd JK", "10d Jd Qd Kd", "5h 6h JK", "JK 5h 6h", "Jd Qd 2s",
         "3h 4h 5h 6h 7h 8h 9h", "10c Jc Qc Kc Ac", "2d 3d 4d JK 6d", "Ac 2c 3c 4c 5c 6c 2h"]


def _refused(old: tuple[int, ...], norm: Arrangement, new: list[int], rules: RuleSet) -> bool:
    for end in (None, "low", "high"):
        try:
            arrange_attach(_faces(old), norm, _faces(tuple(new)), rules, end)
        except MeldError:
            continue
        return False
    return True


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_touch_mask_leaves_out_only_cards_that_attach_nothing(variant: str) -> None:
    """Every face `touch_mask` leaves out of a meld (given its faces: a run's own faces of rank
    3 to king too), held alone or twice, has no attach option on it (the generator skips
    such melds without asking `attach_options`), and the meld rules themselves refuse it,
    alone or with any wild card when the meld holds one (why `attach_options` drops wilds
    that cannot join such a meld)."""
    rules = PRESETS[variant]
    table: dict[object, object] = {}
    for text in MELDS:
        faces = parse_cards(text)
        try:
            arr = arrange_new(faces, rules, prefer_high=is_wild(faces[-1]))
        except MeldError:
            continue
        old = tuple(memo.code(faces[i]) for i in arr.order)
        norm = Arrangement(arr.kind, tuple(range(len(old))), arr.start, arr.suit,
                           None if arr.wild is None else arr.order.index(arr.wild))
        touch = touch_mask(norm, old)
        for c in CODES:
            if touch >> c & 1:
                continue
            for held in ([c], [c, c]):
                assert attach_options(_index(held), old, norm, rules, table) == [], (text, c)
            assert _refused(old, norm, [c], rules), (text, c)
            if norm.wild is not None:
                for w in memo.WILD_CODES:
                    assert _refused(old, norm, [c, w], rules), (text, c, w)
