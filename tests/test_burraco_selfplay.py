"""Whole hands between bots: every preset at every seat count it allows (200+ hands), card
conservation after every action, score sums, determinism, and hypothesis properties."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_burraco.bots.random_bot import RandomBot
from p2p_burraco.games.base import check_cards_conserved
from p2p_burraco.games.burraco import PRESETS
from p2p_burraco.selfplay import SelfplayConfig, deal_known, run_selfplay

CONFIGS = [(v, n) for v, r in PRESETS.items() for n in r.seat_counts]
HANDS = {2: 18, 3: 16, 4: 16, 5: 12, 6: 12}


def _check_result(result, n: int) -> None:  # type: ignore[no-untyped-def]
    for pts, lines in zip(result.points, result.breakdown):
        assert pts == sum(ln.points for ln in lines)
    seats = sorted(s for side in result.sides for s in side)
    assert seats == list(range(n))
    assert len(result.extra["credit"]) == n


@pytest.mark.slow
@pytest.mark.parametrize("variant,n", CONFIGS)
def test_selfplay_every_preset_and_seat_count(variant: str, n: int) -> None:
    """FIBUR-32 FIBUR-33 FIBUR-35 FIBUR-36 FIBUR-37 PAGAT-1 BURACO-1 CLASSIC-1: whole hands
    with greedy and random bots; conservation is checked after every action."""
    cfg = SelfplayConfig(game="burraco", variant=variant, players=n, hands=HANDS[n],
                         seed=7 * n + len(variant), bots=("greedy", "random"), target=10**9)
    match, results = run_selfplay(cfg)
    assert len(results) == HANDS[n]
    for r in results:
        _check_result(r, n)
        assert r.reason in ("closed", "stock", "stalemate")
    s = match.standings()
    assert sum(s["per_seat"]) == sum(sum(r.extra["credit"]) for r in results)


def test_selfplay_hand_count_is_over_200() -> None:
    assert sum(HANDS[n] for _, n in CONFIGS) >= 200


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 5])
def test_selfplay_each_for_himself(n: int) -> None:
    """FIBUR-38: 3 and 5 players each for himself."""
    cfg = SelfplayConfig(game="burraco", variant="fibur", players=n, hands=3, seed=n,
                         options={"each_for_himself": True}, target=10**9)
    _, results = run_selfplay(cfg)
    for r in results:
        assert r.sides == tuple((s,) for s in range(n))


def test_greedy_bots_close_hands() -> None:
    """FIBUR-22: greedy bots reach closings (not only stock ends)."""
    cfg = SelfplayConfig(game="burraco", variant="fibur", players=4, hands=6, seed=3,
                         bots=("greedy",), target=10**9)
    _, results = run_selfplay(cfg)
    assert any(r.reason == "closed" for r in results)


def test_determinism_even_with_global_random_disturbed() -> None:
    cfg = SelfplayConfig(game="burraco", variant="pagat", players=4, hands=3, seed=11,
                         target=10**9)
    random.seed(1)
    _, first = run_selfplay(cfg)
    random.seed(99)
    for _ in range(17):
        random.random()
    _, second = run_selfplay(cfg)
    assert [r.to_wire() for r in first] == [r.to_wire() for r in second]


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(sorted(PRESETS)),
       four=st.booleans())
def test_no_legal_action_leads_to_an_invalid_state(seed: int, variant: str, four: bool) -> None:
    """Property: every offered action applies; cards are conserved; the hand always ends
    with a legal move available until then (FIBUR-18 FIBUR-23)."""
    rng = random.Random(seed)
    n = 4 if four else 2
    from p2p_burraco.games.burraco import new_match
    match = new_match(PRESETS[variant], n, first_dealer=rng.randrange(n), target=10**9)
    state = match.new_hand()
    deal_known(state, rng)
    bot = RandomBot(rng, cap=16)
    for _ in range(3000):
        seat = state.to_move
        if seat is None:
            break
        acts = list(state.legal_actions(seat))[:60]
        assert acts, f"seat {seat} stuck in phase {state.phase}"
        for a in rng.sample(acts, min(4, len(acts))):
            trial = state.copy()
            trial.apply(seat, a)
            check_cards_conserved(trial)
        state.apply(seat, bot.choose(state, seat))
        check_cards_conserved(state)
    assert state.is_over
    r = state.result()
    for pts, lines in zip(r.points, r.breakdown):
        assert pts == sum(ln.points for ln in lines)
