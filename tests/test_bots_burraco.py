"""The heuristic Burraco bot in the spots a club player knows: take a pile that builds, go
to the pozzetto, close when it can, keep a wild out of the discard, don't feed the next seat;
and it beats the random bot on fixed seeds."""

from __future__ import annotations

import random

import pytest
from burracokit import BURRACO_0, pos

from p2p_burraco import selfplay
from p2p_burraco.benchmarks.bots import play_series
from p2p_burraco.bots.burraco_heuristic import HeuristicBot
from p2p_burraco.games.burraco import BurracoHand, Discard, Take
from p2p_burraco.selfplay import SelfplayConfig, deal_known, make_match, play_hand


def play_turn(state: BurracoHand, seat: int) -> list[str]:
    """Let the bot finish its turn; the steps it took, in console notation."""
    bot = HeuristicBot(random.Random(0))
    steps: list[str] = []
    while not state.is_over and state.to_move == seat and len(steps) < 40:
        action = bot.choose(state, seat)
        steps.append(str(action))
        state.apply(seat, action)
        if isinstance(action, Discard):
            break
    return steps


def test_takes_a_pile_that_builds_a_run() -> None:
    """FIBUR-5: the whole pile is worth taking when it extends the hand's runs."""
    state = pos("fibur 4 | turn 0 draw | hand 7h 8h Kc 4s 6d 10c Qs 3c 5s 9d Jd "
                "| pile 4c 9h 10h Jh")
    action = HeuristicBot(random.Random(0)).choose(state, 0)
    assert isinstance(action, Take)


def test_takes_a_lone_pile_card_only_to_meld_it() -> None:
    """FIBUR-39: a one-card pile is taken to meld it now; a card merely swapped for another
    would let two bots trade single cards forever while the stock never shrinks."""
    bot = HeuristicBot(random.Random(0))
    idle = pos("fibur 2 | turn 0 draw | hand 7h 8h Kc 4s 6d 10c Qs 3c 5s 9d Jd | pile Ks")
    assert str(bot.choose(idle, 0)) == "draw"
    useful = pos("fibur 2 | turn 0 draw | hand 7h 8h Kc 4s 6d 10c Qs 3c 5s 9d Jd | pile 9h")
    assert isinstance(bot.choose(useful, 0), Take)


def test_heuristic_hands_end_head_to_head(monkeypatch: pytest.MonkeyPatch) -> None:
    """FIBUR-25: between two heuristic bots the hand ends — on the deal (game 128 of
    `bench bots --game burraco --players 2 --against heuristic`) where they once swapped
    single pile cards forever."""
    monkeypatch.setattr(selfplay, "MAX_ACTIONS_PER_HAND", 2000)
    deal_rng = random.Random("bench:0:128")
    state = make_match(SelfplayConfig(game="burraco", players=2), deal_rng).new_hand()
    deal_known(state, deal_rng)
    bots = [HeuristicBot(random.Random(f"bench:0:128:{s}")) for s in range(2)]
    result = play_hand(state, bots, check=False)
    assert result.reason in ("closed", "stock")


def test_goes_to_the_pozzetto_al_volo() -> None:
    """FIBUR-20: melding every card takes the pozzetto and the turn goes on."""
    state = pos("fibur 4 | turn 0 play | hand 7h 8h 9h")
    steps = play_turn(state, 0)
    assert steps[0] == "meld 7h 8h 9h"
    assert state.team_pozzetto.get(0) is not None


def test_closes_when_it_can() -> None:
    """FIBUR-22: pozzetto taken, a burraco down: attach, then close with the last card."""
    state = pos(f"fibur 4 | turn 0 play | hand 10d 5c | {BURRACO_0} | pozzetto 0 "
                "| side1 4s 5s 6s | counts 9 9 9")
    play_turn(state, 0)
    assert state.is_over and state.closed_by == 0


def test_does_not_discard_a_wild() -> None:
    """FIBUR-12: a wild goes on a meld or stays in hand; another card is discarded."""
    state = pos("fibur 4 | turn 0 play | hand 5c JK Kd 9s 4h | side0 7h 8h 9h | pile Qs")
    steps = play_turn(state, 0)
    assert steps[-1].startswith("discard") and steps[-1] != "discard JK"


def test_does_not_feed_the_next_seat() -> None:
    """FIBUR-19: the next seat (an opponent) could attach 9c to its run: discard the 4s."""
    state = pos("fibur 4 | turn 0 play | hand 9c 4s | side1 6c 7c 8c | pile Qh 5d")
    steps = play_turn(state, 0)
    assert steps == ["discard 4s"]


def test_fibur_26_does_not_hand_the_next_seat_its_burraco() -> None:
    """FIBUR-26, FIBUR-22: both cards extend a meld of the next seat (an opponent); the 9c
    would make its run of six a burraco — what that side lacks to close — so the cheaper
    6d goes, though the 9c is the bigger debt to be caught with."""
    state = pos("fibur 4 | turn 0 play | hand 9c 6d | side1 3c 4c 5c 6c 7c 8c ; 3d 4d 5d "
                "| pile Qh | counts 9 9 9")
    assert play_turn(state, 0) == ["discard 6d"]


def test_beats_random() -> None:
    """10 fixed-seed hands in pairs (fibur): the bench measures about 99 %; 8 is the floor."""
    s = play_series("burraco", 4, 10, opponent="random", seed=7)
    assert s.wins >= 8, s.line()


@pytest.mark.parametrize("hand,run,pozzetto,expect", [
    ("2c Kc 9d", "3h 4h 5h 6h 7h 8h", "| pozzetto 0 ", "attach 0 2c"),  # the wild makes it
    ("JK Kc 9d 5c", "3h 4h 5h 6h 7h 8h", "| pozzetto 0 ", "attach 0 JK"),  # on the longest
    ("2c Kc 9d 8h", "3h 4h 5h 6h 7h", "| pozzetto 0 ", "attach 0 8h"),  # a natural goes on
    ("2c Kc 9d", "3h 4h 5h 6h 7h", "| pozzetto 0 ", "discard Kc"),  # the wild waits for six
    ("2c Kc 9d", "3h 4h 5h 6h 7h", "", "discard Kc"),  # before the pozzetto the wild waits
])
def test_fibur_22_26_a_side_with_its_pozzetto_builds_its_first_burraco(
        hand: str, run: str, pozzetto: str, expect: str) -> None:
    """FIBUR-22, FIBUR-26: a side that has its pozzetto closes only with a burraco down, so
    its cards go on its longest meld (the heart run) to make one, naturals as they come; a
    wild (FIBUR-12: one a meld) is kept for the card that makes the run seven long rather
    than spent on a run of five, and before the pozzetto it is kept for when it is needed."""
    state = pos(f"fibur 4 | turn 0 play | hand {hand} | side0 {run} ; 4s 5s 6s 7s "
                f"{pozzetto}| pile Qh | counts 9 9 9")
    assert str(HeuristicBot(random.Random(0)).choose(state, 0)) == expect


@pytest.mark.parametrize("pile,expect", [
    ("Kd 9c Qs 7d", "draw"),       # 7d runs with 3d…6d, three loose cards come with it
    ("4c 9h 10h Jh", "take"),      # nearly every card melds
])
def test_fibur_5_a_pile_that_loads_the_hand_is_left(pile: str, expect: str) -> None:
    """FIBUR-5, FIBUR-20: the whole pile comes into the hand; one that melds a card and
    leaves three loose ones holds the seat back from its pozzetto more than its points are
    worth, so the seat draws."""
    state = pos(f"fibur 4 | turn 0 draw | hand 7h 8h Kc 4s 6d | side0 3d 4d 5d "
                f"| pile {pile} | counts 9 9 9")
    assert str(HeuristicBot(random.Random(0)).choose(state, 0)) == expect


@pytest.mark.parametrize("variant,players", [("fibur", 4), ("modificato", 2)])
def test_the_estimate_memo_never_changes_a_score(variant: str, players: int) -> None:
    """The evaluator remembers each side's value for one decision (`Evaluator._side`) and
    which faces extend a meld for the deck: a position scored after many others must score
    exactly as a fresh evaluator scores it, or the heuristic would play differently."""
    from p2p_burraco.bots._burraco_eval import Evaluator

    rng = random.Random(3)
    state = make_match(SelfplayConfig(variant=variant, players=players), rng).new_hand()
    deal_known(state, rng)
    bots = [HeuristicBot(random.Random(s)) for s in range(players)]
    scored = 0
    while state.to_move is not None:
        seat = state.to_move
        shared = Evaluator(state, seat)
        for a in list(state.legal_actions(seat))[:25]:
            trial = state.copy()
            trial.apply(seat, a)
            assert shared.margin(trial) == Evaluator(state, seat).margin(trial), a
            scored += 1
        state.apply(seat, bots[seat].choose(state, seat))
    assert scored > 100


def test_outs_tell_a_set_with_a_wild_from_one_without() -> None:
    """FIBUR-12: a meld holds one wild at most, so any wild drawn is an out only while some
    meld of the side holds none. A set's wild has no slot: the remembered outs must still
    tell the two sets apart, whichever the evaluator scored first."""
    from p2p_burraco.bots._burraco_eval import Evaluator, MeldFacts
    from p2p_burraco.games.burraco.notation import parse_position
    from p2p_burraco.games.cards import Card, Suit

    state = parse_position("fibur 4 | turn 0 play | hand 7h 8h 9h 4s Kc")
    five = [Card(5, s) for s in (Suit.HEARTS, Suit.SPADES, Suit.CLUBS)]
    plain = MeldFacts(0, "set", five, None, 5, 5, False, None, 3, None, 15.0)
    dirty = MeldFacts(0, "set", five + [Card(2, Suit.CLUBS)], None, 5, 5, True, None, 4,
                      None, 35.0)
    ev = Evaluator(state, 0)
    assert ev.unseen_wilds > 0
    first, second = ev.outs([plain]), ev.outs([dirty])
    assert first > second
    assert second == Evaluator(state, 0).outs([dirty])
    assert first == Evaluator(state, 0).outs([plain])
