"""What the Burraco expert weighs with its rollouts: besides draw/take and the discard, every
meld the heuristic proposes against stopping there, and the meld the heuristic passed up
against its discard."""

from __future__ import annotations

import random

import pytest

from p2p_burraco.bots._burraco_eval import Evaluator
from p2p_burraco.bots.burraco_expert import ExpertBot
from p2p_burraco.bots.burraco_heuristic import HeuristicBot
from p2p_burraco.games.base import check_cards_conserved
from p2p_burraco.games.burraco import Attach, BurracoHand, Discard, Meld
from p2p_burraco.games.burraco.notation import parse_position
from p2p_burraco.selfplay import SelfplayConfig, deal_known, make_match


def _legal(state: BurracoHand, seat: int) -> set[str]:
    return {str(a) for a in state.legal_actions(seat)}


def test_a_meld_is_weighed_against_stopping() -> None:
    """FIBUR-6 FIBUR-7: melding is optional and a turn ends with a discard, so when the
    heuristic would meld, the other candidate is discarding now (its own best discard)."""
    state = parse_position("fibur 4 | turn 0 play | hand 7h 8h 9h 4s Kc")
    check_cards_conserved(state)
    bot = ExpertBot(random.Random(0), think=0.01)
    hunch = bot.heuristic.choose(state, 0)
    candidates = bot._candidates(state, 0, hunch)
    assert isinstance(hunch, Meld) and candidates[0] == hunch
    assert len(candidates) == 2 and isinstance(candidates[1], Discard)
    assert str(candidates[1]) in _legal(state, 0)
    assert str(bot.choose(state, 0)) in {str(a) for a in candidates}


def test_a_discard_is_weighed_against_the_meld_passed_up() -> None:
    """FIBUR-6: where the heuristic would discard although a meld was open to it (keeping
    cards for a burraco), that meld is among the expert's candidates — found in a seeded
    4-seat hand between heuristic bots."""
    deal_rng = random.Random("expert-candidates")
    state = make_match(SelfplayConfig(game="burraco", players=4), deal_rng).new_hand()
    deal_known(state, deal_rng)
    bots = [HeuristicBot(random.Random(s)) for s in range(4)]
    found = 0
    while not state.is_over and found < 2:
        seat = state.to_move
        assert seat is not None
        if state.phase == "play":
            probe = ExpertBot(random.Random(1), think=0.01)
            hunch = probe.heuristic.choose(state, seat)
            step = probe.heuristic.best_meld(state, seat, Evaluator(state, seat))
            if isinstance(hunch, Discard) and step is not None:
                candidates = probe._candidates(state, seat, hunch)
                assert candidates[0] == hunch
                assert isinstance(candidates[-1], (Meld, Attach))
                assert str(candidates[-1]) == str(step[0])
                assert all(str(a) in _legal(state, seat) for a in candidates)
                found += 1
        state.apply(seat, bots[seat].choose(state, seat))
    assert found >= 1, "no decision where the heuristic passed up a meld in this hand"


@pytest.mark.parametrize("mine,base,gain", [
    ([100.0, -50.0, 30.0], [90.0, -70.0, 10.0], (10 + 20 + 20) / 3),   # ahead, clearly
    ([100.0, -50.0], [96.0, -54.0], 0.0),     # ahead by 4 points a deal: under PRIOR
    ([500.0, -400.0], [0.0, 0.0], 0.0),       # ahead on average, within the noise
    ([60.0, 40.0, 50.0], [0.0, 0.0, 0.0], 50.0),   # ahead by many standard errors
    ([-10.0, 0.0], [0.0, 0.0], 0.0),          # behind
    ([50.0], [0.0], 0.0),                     # one deal says nothing about the spread
    ([], [], 0.0),
])
def test_a_candidate_replaces_the_heuristic_only_on_clear_evidence(
        mine: list[float], base: list[float], gain: float) -> None:
    """The rule that picks between the heuristic's choice and a candidate: the mean paired
    difference over the same deals, if it beats PRIOR points and SIGMAS standard errors
    (module doc: why a bar at all)."""
    from p2p_burraco.bots.burraco_expert import PRIOR, SIGMAS, _clear_gain

    assert (PRIOR, SIGMAS) == (5.0, 2.0)
    assert _clear_gain(mine, base) == pytest.approx(gain)
