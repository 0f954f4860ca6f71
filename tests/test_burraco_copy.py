"""Copies a search can explore: a copy costs microseconds and shares melds with its original
until one changes, so these properties check that nothing leaks between them, and that an
action applied with the plan `legal_actions` made for it does exactly what a re-validated
equal action does."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from p2p_burraco.games.burraco import PRESETS, new_match
from p2p_burraco.games.burraco.actions import action_from_wire
from p2p_burraco.games.burraco.state import BurracoHand
from p2p_burraco.selfplay import deal_known


def _dealt(seed: int, variant: str, n: int) -> tuple[BurracoHand, random.Random]:
    rng = random.Random(seed)
    match = new_match(PRESETS[variant], n, first_dealer=rng.randrange(n), target=10**9)
    state = match.new_hand()
    deal_known(state, rng)
    return state, rng


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(sorted(PRESETS)),
       four=st.booleans())
def test_random_walk_on_copies_restores_every_position(seed: int, variant: str,
                                                       four: bool) -> None:
    """Property: walk a hand with random legal actions, saving a copy before each one; every
    saved copy still equals the position it was taken from (copy-restore) and offers what a
    fresh replica of that position offers, and the dealt state the walk started from is
    untouched."""
    start, rng = _dealt(seed, variant, 4 if four else 2)
    first = start.snapshot()
    state = start.copy()
    saved: list[tuple[BurracoHand, tuple[object, ...]]] = []
    for _ in range(80):
        seat = state.to_move
        if seat is None:
            break
        acts = list(state.legal_actions(seat))[:40]
        saved.append((state.copy(), state.snapshot()))
        state.apply(seat, rng.choice(acts))
    assert start.snapshot() == first
    for copy, snap in saved:
        assert copy.snapshot() == snap
    # what a saved copy offers depends on its position only, not on what the copies it
    # shares caches with did since
    for copy, _ in saved[::3]:
        seat = copy.to_move
        if seat is not None:
            assert list(map(repr, copy.legal_actions(seat))) == _fresh_listing(copy, seat)
    # restore: going back to a saved copy and walking another way leaves the others alone
    back, snap = saved[len(saved) // 2]
    seat = back.to_move
    if seat is not None:
        acts = list(back.legal_actions(seat))
        back.apply(seat, acts[-1])
    assert all(c.snapshot() == s for c, s in saved if c is not back)


def _fresh_listing(state: BurracoHand, seat: int) -> list[str]:
    """What a replica of `state` with nothing cached offers `seat`."""
    fresh = state.with_cards({p: c for p, c in enumerate(state.known) if c is not None})
    return list(map(repr, fresh.legal_actions(seat)))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(sorted(PRESETS)),
       four=st.booleans())
def test_trials_on_copies_leave_the_original_alone(seed: int, variant: str,
                                                   four: bool) -> None:
    """Property: what a bot's trials do on copies (apply an offered action, list what
    follows) never shows in what the original offers: at every step of a random walk the
    walker offers what a fresh replica of its position offers (copies share cached melds
    until one of them moves)."""
    state, rng = _dealt(seed, variant, 4 if four else 2)
    for _ in range(80):
        seat = state.to_move
        if seat is None:
            break
        acts = list(state.legal_actions(seat))
        assert list(map(repr, acts)) == _fresh_listing(state, seat)
        for act in rng.sample(acts, min(3, len(acts))):
            trial = state.copy()
            trial.apply(seat, act)
            if trial.to_move is not None:
                list(trial.legal_actions(trial.to_move))
        state.apply(seat, rng.choice(acts[:40]))


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(sorted(PRESETS)))
@example(seed=3819874, variant="fibur")   # 2♥ 2♥ 3♥: which 2 stands in (FIBUR-12, FIBUR-26)
def test_offered_action_applies_like_a_revalidated_one(seed: int, variant: str) -> None:
    """Property: an action object offered by `legal_actions` (applied with the plan made when
    it was offered) and an equal action rebuilt from its wire form (checked again from
    scratch) lead to equal positions."""
    state, rng = _dealt(seed, variant, 2)
    for _ in range(60):
        seat = state.to_move
        if seat is None:
            break
        act = rng.choice(list(state.legal_actions(seat))[:40])
        twin = state.copy()
        twin._plans = {}  # forget the plans: the twin validates from scratch
        twin.apply(seat, action_from_wire(act.to_wire()))
        state.apply(seat, act)
        assert state.snapshot() == twin.snapshot()
