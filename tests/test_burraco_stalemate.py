"""A hand that cannot progress ends (issue 13): PAGAT-20's stalemate in pagat, and TABLE-12
— the same rule adopted as ours — in every preset whose seed has none; a hypothesis property
that any sequence of legal actions ends the hand within TABLE-12's bound of turns."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_burraco.games.base import RuleViolation, check_cards_conserved
from p2p_burraco.games.burraco import PRESETS, BurracoHand, new_match
from p2p_burraco.games.burraco import actions as A
from p2p_burraco.games.burraco.notation import parse_position
from p2p_burraco.selfplay import deal_known

ORBIT = "{v} 4 | turn 0 draw | hand 4c 9d | side0 3h 4h 5h | side1 3s 4s 5s | counts 2 2 2 | pile {pile}"


def discard(st: BurracoHand, pos: int) -> A.Discard:
    """Discarding the card at `pos` (known to this replica)."""
    cid = st.known[pos]
    assert cid is not None
    return A.Discard((pos, cid))


def idle_turn(st: BurracoHand, seat: int, take: str) -> None:
    """Take only the previous discard, meld nothing, discard another card."""
    st.apply(seat, st.parse_action(seat, take))
    taken = st.hands[seat][-1]
    other = next(p for p in st.hands[seat] if p != taken)
    st.apply(seat, discard(st, other))
    check_cards_conserved(st)


@pytest.mark.parametrize("ids,variant,take,pile", [
    ("PAGAT-20", "pagat", "take", "Qs"),
    ("TABLE-12 FIBUR-39", "fibur", "take", "Qs"),
    ("TABLE-12", "buraco", "take", "Qs"),
    ("TABLE-12 CLASSIC-8", "classic", "take", "Qs"),
    ("TABLE-12 MODIF-5", "modificato", "take", "Qs"),
    ("TABLE-12 CLASSIC-8", "classic", "take top", "5d 6d Qs"),
    ("TABLE-12 MODIF-8", "modificato", "take top", "5d 6d Qs"),
])
def test_an_orbit_of_take_and_discard_ends_the_hand(ids: str, variant: str, take: str,
                                                    pile: str) -> None:
    """PAGAT-20 TABLE-12: every seat in turn takes only the previous discard and discards:
    after a whole orbit the hand ends as a stalemate, nobody closing."""
    st = parse_position(ORBIT.format(v=variant, pile=pile))
    for seat in range(3):
        idle_turn(st, seat, take)
        assert not st.is_over, ids
    idle_turn(st, 3, take)
    assert st.is_over and st.end_reason == "stalemate", ids
    r = st.result()
    assert r.reason == "stalemate" and r.closed_by is None
    assert not any(ln.label.startswith("closing") for side in r.breakdown for ln in side)


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_a_draw_or_a_meld_starts_the_orbit_again(variant: str) -> None:
    """TABLE-12 PAGAT-20: a turn that draws from the stock, takes a bigger pile or lays a
    card is progress: the orbit counts again from there."""
    st = parse_position(ORBIT.format(v=variant, pile="Qs").replace("hand 4c 9d", "hand 4c 9d 6h"))
    six = st.hands[0][-1]
    idle_turn(st, 0, "take")
    idle_turn(st, 1, "take")
    st.apply(2, A.Draw())                                   # progress: a stock card
    st.apply(2, discard(st, st.hands[2][0]))
    st.apply(3, st.parse_action(3, "take"))                 # progress: a pile of two
    st.apply(3, discard(st, st.hands[3][0]))
    st.apply(0, st.parse_action(0, "take"))                 # progress: a card laid
    st.apply(0, st.parse_action(0, "attach 0 6h"))
    assert six not in st.hands[0]
    idle_discard = next(p for p in st.hands[0] if p != st.hands[0][-1])
    st.apply(0, discard(st, idle_discard))
    for seat in (1, 2, 3):
        idle_turn(st, seat, "take")
        assert not st.is_over
    idle_turn(st, 0, "take")
    assert st.end_reason == "stalemate"


def turn_bound(st: BurracoHand) -> int:
    """TABLE-12's bound: n × (2·stock + deck + 2) turns."""
    return st.n_seats * (2 * st.stock_count + len(st.deck) + 2)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(sorted(PRESETS)),
       four=st.booleans(), take=st.integers(0, 10), lay=st.integers(0, 10))
def test_any_legal_sequence_ends_within_the_bound(seed: int, variant: str, four: bool,
                                                   take: int, lay: int) -> None:
    """TABLE-12 PAGAT-20 FIBUR-25 BURACO-12 CLASSIC-18: whatever legal steps the players
    choose — here at random, leaning to taking the pile (`take`/10) and to laying cards
    (`lay`/10) — the hand ends within n × (2·stock + deck + 2) turns."""
    rng = random.Random(seed)
    n = 4 if four else 2
    state = new_match(PRESETS[variant], n, first_dealer=rng.randrange(n), target=10**9).new_hand()
    deal_known(state, rng)
    bound = turn_bound(state)
    turns = 0
    while not state.is_over:
        turns += 1
        assert turns <= bound, (variant, n, bound)
        seat = state.to_move
        assert seat is not None
        _one_turn(state, seat, rng, take / 10, lay / 10)
    assert state.end_reason in ("closed", "stock", "stalemate")


def _one_turn(state: BurracoHand, seat: int, rng: random.Random, take: float,
              lay: float) -> None:
    """One whole turn of legal steps chosen at random (the full list of legal steps is built
    only when laying cards: drawing and discarding try a step and keep it if legal)."""
    first = list(state.legal_actions(seat))
    takes = [a for a in first if a.kind in ("take", "take_top")]
    draws = [a for a in first if a.kind not in ("take", "take_top")]
    pick = takes if takes and (rng.random() < take or not draws) else draws
    state.apply(seat, rng.choice(pick))
    while state.to_move == seat and state.phase == "play":
        if rng.random() < lay:
            acts = [a for a in state.legal_actions(seat) if a.kind in ("meld", "attach")]
            if acts:
                state.apply(seat, rng.choice(acts))
                continue
        hand = list(state.hands[seat])
        rng.shuffle(hand)
        for p in hand:
            try:
                state.apply(seat, discard(state, p))
                break
            except RuleViolation:
                continue
        else:  # no plain discard is legal: whatever is
            state.apply(seat, rng.choice(list(state.legal_actions(seat))))
