"""The expert's compact head-to-head simulator (`bots/_briscola_fast.py`) agrees with what it
stands in for: its exact solver with the heuristic's independent alpha-beta (`_Search`, which
walks lists of cards), its rollout policy with the heuristic bot's own choice, and the
solver's value is zero-sum between the two seats."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_burraco.bots._briscola_fast import Solver2, Tables, mask_of
from p2p_burraco.bots._think import PairedMeans
from p2p_burraco.bots.briscola_expert import ExpertBot
from p2p_burraco.bots.briscola_heuristic import HeuristicBot, _Search, _Table
from p2p_burraco.games.briscola import Play
from p2p_burraco.games.cards import DeckKind, make_deck
from p2p_burraco.selfplay import SelfplayConfig, deal_known, make_match

DECK = make_deck(DeckKind.ITALIAN_40)
TRUMP = DECK[0].suit
assert TRUMP is not None


def _old_search(stop_at: tuple[int, int] | None, points: list[int]) -> _Search:
    """The heuristic's list-walking alpha-beta, set up for seat 0 leading an empty table."""
    table = _Table.__new__(_Table)
    table.state = type("S", (), {"deck": DECK, "stop_at": stop_at})()  # type: ignore[assignment]
    table.seat, table.n, table.trump, table.trick, table.points = 0, 2, TRUMP, [], points
    return _Search(table)


def _random_deal(seed: int, stock: int) -> tuple[list[int], list[int], list[int]]:
    ids = list(range(40))
    random.Random(seed).shuffle(ids)
    return ids[:3], ids[3:6], ids[6:6 + stock]


@pytest.mark.parametrize("stock,stop_at,points", [
    (0, None, [0, 0]), (0, None, [40, 45]), (2, None, [30, 20]), (4, None, [10, 12]),
    (4, (61, 61), [50, 30]), (2, (61, 61), [55, 58]),
])
def test_solver_agrees_with_the_heuristics_search(stock: int, stop_at: tuple[int, int] | None,
                                                  points: list[int]) -> None:
    """BRISCOLA-14 BRISCOLA-16 BRISCOLA-17 BRISCOLA-21: on deals with 0 to 4 cards to draw (and
    with vinco subito), the bitmask solver's value of every first card equals the
    independent search's: the same trick winners, draws, last hand and stop."""
    tables = Tables(DECK, TRUMP, 2, 0, stop_at)
    for seed in range(4):
        h0, h1, order = _random_deal(seed, stock)
        old = _old_search(stop_at, points)
        solver = Solver2(tables, order)
        for card in h0:
            want = old.after_play([h0, h1], order, card)
            got = solver.after_play(mask_of(h0), mask_of(h1), 0, -1, points[0], points[1], card)
            assert got == want, (seed, card)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10 ** 6), stock=st.sampled_from([0, 2]),
       share=st.floats(0, 1), leader=st.integers(0, 1))
def test_solver_is_zero_sum(seed: int, stock: int, share: float, leader: int) -> None:
    """The same deal solved from either seat: the values are opposite (margin and win bonus
    alike; 60–60 is worth 0 to both). The points already taken are those of the cards gone."""
    h0, h1, order = _random_deal(seed, stock)
    tables = Tables(DECK, TRUMP, 2, 0, None)
    taken = 120 - sum(tables.pts[c] for c in h0 + h1 + order)
    p0 = round(share * taken)
    mine = Solver2(tables, order)
    theirs = Solver2(Tables(DECK, TRUMP, 2, 1, None), order)
    args = (mask_of(h0), mask_of(h1), leader, -1, p0, taken - p0)
    assert mine.value(*args) == -theirs.value(*args)


def test_rollout_policy_is_the_heuristic_bots_choice() -> None:
    """The expert's rollouts play each seat as the heuristic bot would: at every decision of
    whole hands head to head with cards still to draw, `heuristic_pick` names the bot's card."""
    cfg = SelfplayConfig(game="briscola", players=2)
    compared = 0
    for game in range(3):
        rng = random.Random(game)
        state = make_match(cfg, rng).new_hand()
        deal_known(state, rng)
        bot = HeuristicBot(random.Random(0))
        while not state.is_over:
            seat = state.to_move
            assert seat is not None
            action = bot.choose(state, seat)
            assert isinstance(action, Play)
            if state.stock_count > 2:
                known = state.card_at       # selfplay: this replica knows every card
                trump_suit, trump_card = state.trump_suit, known(state.trump_pos)
                assert trump_suit is not None and trump_card is not None
                tables = Tables(state.deck, trump_suit, 2, seat, None, trump_card)
                hand = [known(p) or 0 for p in state.hand(seat)]
                other = [known(p) or 0 for p in state.hand(1 - seat)]
                played = [known(p) or 0 for t in state.tricks for _, p in t.plays]
                led = [known(p) or 0 for _, p in state.current_trick()]
                pick = tables.heuristic_pick(hand, other, led[0] if led else -1,
                                             mask_of(played + led))
                assert pick == action.card
                compared += 1
            state.apply(seat, action)
    assert compared > 60


def _expert_log(seed: int, disturb: bool) -> list[tuple[int, int, int]]:
    cfg = SelfplayConfig(game="briscola", players=2)
    rng = random.Random(seed)
    state = make_match(cfg, rng).new_hand()
    deal_known(state, rng)
    expert = ExpertBot(random.Random(f"e:{seed}"), think=0.004)
    heuristic = HeuristicBot(random.Random(f"h:{seed}"))
    log = []
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        if disturb:
            random.random()
        action = (expert if seat == 0 else heuristic).choose(state, seat)
        assert isinstance(action, Play)
        log.append((seat, action.card, expert.last_iterations if seat == 0 else 0))
        state.apply(seat, action)
    return log


def test_expert_is_reproducible_from_its_seed_and_think() -> None:
    """The expert's number of deals comes from `--think` (a fixed cost per deal) and its early
    stop from the values alone, never from the clock: the same seed and budget replay the same
    smazzata, deal counts included, whatever else draws from the global random module."""
    first = _expert_log(3, disturb=False)
    assert first == _expert_log(3, disturb=True)
    assert len(first) == 40 and any(n > 2 for _, _, n in first)


@pytest.mark.parametrize("rows,clear,why", [
    ([[10.0, 0.0, 2.0]] * 48, True, "one card better on every deal"),
    ([[5.0, 5.0]] * 48, True, "the same on every deal: more deals tell nothing"),
    ([[40.0, 0.0], [-40.0, 0.0]] * 24, False, "better on average 0, noisy: keep searching"),
    ([[3.0 + (i % 3), 0.0 + 6 * (i % 2)] for i in range(48)], False, "ahead, not by 3 errors"),
])
def test_early_stop_only_when_one_card_is_clearly_best(rows: list[list[float]], clear: bool,
                                                       why: str) -> None:
    """The expert stops before its budget only when the values themselves say so (paired
    differences over the same deals): the stop never depends on the clock."""
    assert _paired(rows).clear() is clear, why


def _paired(rows: list[list[float]]) -> PairedMeans:
    acc = PairedMeans(len(rows[0]))
    for row in rows:
        acc.add(row)
    return acc


@pytest.mark.parametrize("offsets,clear", [
    ([0.0, 0.0], False), ([100.0, 0.0], True), ([0.0, 100.0], True), ([10.0, 0.0], False),
])
def test_early_stop_counts_the_rule_of_thumb(offsets: list[float], clear: bool) -> None:
    """The heuristic's playouts add its rule-of-thumb score to each card's average: a card
    that the score puts far ahead of noisy, even playouts is clearly best; a small lead is
    not (3 standard errors of ±40 over 48 deals is about 17 points)."""
    rows = [[40.0, 0.0], [-40.0, 0.0]] * 24
    assert _paired(rows).clear(offsets) is clear
