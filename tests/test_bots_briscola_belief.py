"""The expert's reading of the other hand head to head (`bots/briscola_belief.py`): Bayes'
rule over the opponent's hands, from its plays under a model of the rule of thumb."""

from __future__ import annotations

import random

import pytest

from p2p_burraco.bots._briscola_fast import Tables, bits, mask_of
from p2p_burraco.bots.briscola_belief import OpponentReader, _follow_values, _lead_values
from p2p_burraco.bots.briscola_heuristic import HeuristicBot
from p2p_burraco.bots.random_bot import RandomBot
from p2p_burraco.games.briscola import PRESETS, BriscolaHand, Play, stacked_order
from p2p_burraco.selfplay import SelfplayConfig, deal_known, make_match


def _tables(state: BriscolaHand, seat: int) -> Tables:
    trump, tc = state.trump_suit, state.card_at(state.trump_pos)
    assert trump is not None and tc is not None
    return Tables(state.deck.cards, trump, 2, seat, None, tc)


def _p_briscola(state: BriscolaHand) -> tuple[float, float, list[float]]:
    """Seat 0's posterior chances that seat 1 holds a briscola — in its whole hand, and
    among the cards it had before its last draw — and the models' weights."""
    reader = OpponentReader()
    belief = reader.belief(state, 0, _tables(state, 0))

    def trumped(h: int) -> bool:
        return any(state.deck[c].suit == state.trump_suit for c in bits(h))

    hands = list(belief.weights)
    if belief.pending:
        hands = list({h | (1 << x) for h in hands for x in bits(belief.candidates & ~h)})
    assert sum(belief.weight(h) for h in hands) == pytest.approx(1.0)
    whole = sum(belief.weight(h) for h in hands if trumped(h))
    kept = sum(w for h, w in belief.weights.items() if trumped(h))
    return whole, kept, reader.model_weights


def test_an_asso_let_go_says_no_briscola() -> None:
    """BRISCOLA-14 BRISCOLA-16: seat 0 leads the asso di coppe and seat 1 lets it go with a
    liscio, where the rule of thumb takes an asso with any briscola. The chance that its two
    cards kept hold a briscola falls to about 0.2 (any two unknown cards: 0.42); its whole
    hand, the card just drawn included, from 0.59 to about 0.4."""
    state = BriscolaHand(PRESETS["standard"], 2, 1)
    order = stacked_order(state.deck, state.schedule, {0: "Ac 4s 5b", 1: "4b 5s Kc"},
                          trump="7d")
    for pos, cid in enumerate(order):
        state.learn(pos, cid)
    before, _, _ = _p_briscola(state)
    state.apply(0, state.parse_action(0, "play Ac"))
    state.apply(1, state.parse_action(1, "play 4b"))
    after, kept, models = _p_briscola(state)
    assert before > 0.55 and after < 0.45 and kept < 0.25, (before, after, kept)
    assert models[0] > 0.5        # the play fits the rule of thumb better than "any card"


@pytest.mark.parametrize("opponent,sharp", [("heuristic", True), ("random", False)])
def test_reading_a_whole_smazzata(opponent: str, sharp: bool) -> None:
    """BRISCOLA-10 BRISCOLA-16 BRISCOLA-17: over a whole smazzata read move by move (each
    reading resumed from the last), the true hand always keeps a weight, the resumed reading
    equals one made from scratch, the model is the heuristic's own choice at every play it
    reads, and the models' weights learn who sits opposite: the rule of thumb against the
    heuristic bot, "any card" against the random one."""
    rng = random.Random(4)
    state = make_match(SelfplayConfig(game="briscola", players=2), rng).new_hand()
    assert isinstance(state, BriscolaHand)
    deal_known(state, rng)
    other = HeuristicBot(random.Random(1)) if opponent == "heuristic" \
        else RandomBot(random.Random(1))
    me = HeuristicBot(random.Random(2))
    reader = OpponentReader()
    checked = 0
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        if seat == 0:
            tables = _tables(state, 0)
            belief = reader.belief(state, 0, tables)
            truth = mask_of([c for c in (state.card_at(p) for p in state.hand(1))
                             if c is not None])
            assert belief.weight(truth) > 0
            if checked % 5 == 0:
                fresh = OpponentReader().belief(state, 0, tables)
                assert fresh.weights == pytest.approx(belief.weights)
                assert (fresh.pending, fresh.candidates) == (belief.pending, belief.candidates)
            checked += 1
            action = me.choose(state, 0)
        else:
            action = other.choose(state, 1)
            if opponent == "heuristic" and state.stock_count > 2:
                assert isinstance(action, Play)
                tables = _tables(state, 0)
                hand = [c for c in (state.card_at(p) for p in state.hand(1)) if c is not None]
                gone = mask_of([c for t in state.tricks for _, p in t.plays
                                if (c := state.card_at(p)) is not None])
                led = [state.card_at(p) for _, p in state.current_trick()]
                values = _follow_values(tables, led[0] or 0) if led else \
                    _lead_values(tables, gone, 3)
                vals = values(mask_of(hand), sorted(hand))
                assert vals[sorted(hand).index(action.card)] == max(vals)
        state.apply(seat, action)
        if state.stock_count == 4 and seat == 1:
            weight = reader.model_weights[0]
            assert (weight > 0.8) if sharp else (weight < 0.4), weight
    assert checked >= 15
