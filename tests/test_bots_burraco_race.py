"""The race to go out: `out_line` finds this turn's way to the pozzetto or to a closing, only
through the engine's legal steps, and the heuristic bot takes it (a close only when the
finished hand is a win) — the side that closes first wins nearly every hand."""

from __future__ import annotations

import random

import pytest
from burracokit import BURRACO_0, play_to_discard, pos

from p2p_burraco.bots._burraco_race import out_line
from p2p_burraco.bots.burraco_heuristic import HeuristicBot
from p2p_burraco.games.burraco import BurracoHand, Take


def play_line(state: BurracoHand, seat: int) -> list[str]:
    """Apply the line `out_line` offers, step by step; its steps in console notation."""
    line = out_line(state, seat)
    assert line is not None
    steps = []
    for a in line:
        steps.append(str(a))
        state.apply(seat, a)
    return steps


# (rule ids, position, the line's last step, how the hand stands after it)
GOES_OUT = [
    ("FIBUR-22", (f"fibur 4 | turn 0 play | hand 10d 5c | {BURRACO_0} | pozzetto 0 "
     "| side1 4s 5s 6s | counts 9 9 9"), "discard 5c", "closed"),
    ("FIBUR-22 FIBUR-26", ("fibur 4 | turn 0 play | hand 10d Kc | side0 4d 5d 6d 7d 8d 9d "
     "| pozzetto 0 | counts 9 9 9"), "discard Kc", "closed"),
    ("FIBUR-20", "fibur 4 | turn 0 play | hand 7h 8h 9h 5c Jd Qd Kd", "discard 5c",
     "pozzetto waits"),
    ("FIBUR-20", "fibur 4 | turn 0 play | hand 7h 8h 9h Jd Qd Kd", "meld", "al volo"),
    ("FIBUR-20", "fibur 4 | turn 0 play | hand 5c JK | side0 7h 8h 9h", "discard",
     "pozzetto waits"),
    # both cards attach: the last goes on the meld too, and the pozzetto is played this turn
    ("FIBUR-20", "fibur 4 | turn 0 play | hand 4h 10h | side0 5h 6h 7h 8h 9h", "attach",
     "al volo"),
]


@pytest.mark.parametrize("rid,text,last,after", GOES_OUT)
def test_fibur_20_22_out_line_goes_out(rid: str, text: str, last: str, after: str) -> None:
    """FIBUR-20, FIBUR-22, FIBUR-26: melds and attachments that empty the hand this turn,
    then the last discard — a closing with the pozzetto and a burraco (a meld of six the
    hand makes one), else the pozzetto (face down until the next turn after a discard, at
    once when melding empties the hand: preferred, the pozzetto's cards are played a turn
    sooner)."""
    state = pos(text)
    steps = play_line(state, 0)
    assert steps[-1].startswith(last), (rid, steps)
    if after == "closed":
        assert state.is_over and state.closed_by == 0
    elif after == "pozzetto waits":
        assert 0 in state.team_pozzetto and not state.hands[0] and not state.is_over
    else:
        assert 0 in state.team_pozzetto and len(state.hands[0]) == 11 and state.to_move == 0


NO_WAY_OUT = [
    ("FIBUR-22", ("fibur 4 | turn 0 play | hand 10d 5c | side0 3d 4d 5d 6d 7d 8d | pozzetto 0 "
     "| counts 9 9 9")),                       # attaching the 10d makes no burraco
    ("FIBUR-23", (f"fibur 4 | turn 0 play | hand 10d JK | {BURRACO_0} JK | pozzetto 0 "
     "| counts 9 9 9")),                       # the last card would be a wild
    ("FIBUR-22", "fibur 4 | turn 0 play | hand 7h 8h 9h 5c Kd | counts 9 9 9"),
]


@pytest.mark.parametrize("rid,text", NO_WAY_OUT)
def test_fibur_22_23_no_line_where_the_engine_refuses(rid: str, text: str) -> None:
    """FIBUR-22, FIBUR-23: no burraco, a wild last, two loose cards — no line out."""
    assert out_line(pos(text), 0) is None, rid


def test_out_line_gives_up_past_its_budget() -> None:
    """A search that may look at no position finds nothing (the budget bounds its time)."""
    state = pos("fibur 4 | turn 0 play | hand 7h 8h 9h 5c Jd Qd Kd")
    assert out_line(state, 0, max_nodes=0) is None
    assert out_line(state, 0, max_nodes=2) is None
    assert out_line(state, 0, max_nodes=3) is not None  # meld, meld, discard


def test_out_line_only_in_the_seats_play_phase() -> None:
    """Drawing comes first, and another seat's turn is not this seat's to plan."""
    assert out_line(pos("fibur 4 | turn 0 draw | hand 7h 8h 9h 5c"), 0) is None
    assert out_line(pos("fibur 4 | turn 1 play | hand 7h 8h 9h 5c"), 0) is None


def test_fibur_20_heuristic_races_to_the_pozzetto() -> None:
    """FIBUR-20: with a way to the pozzetto this turn the bot goes — the wild goes down
    rather than waiting in hand for a burraco (it kept it before)."""
    state = pos("fibur 4 | turn 0 play | hand 5c JK 10h | side0 7h 8h 9h")
    play_to_discard(state, HeuristicBot(random.Random(0)))
    assert 0 in state.team_pozzetto and not state.hands[0]


def test_fibur_22_heuristic_takes_the_pile_that_closes_a_won_hand() -> None:
    """FIBUR-22: one card in hand, a burraco down; the pile's card goes on a meld and the
    hand card closes: take it, and the hand is won."""
    state = pos(f"fibur 4 | turn 0 draw | hand Kc | {BURRACO_0} ; 4h 5h 6h | pozzetto 0 "
                "| pile 7h | counts 9 9 9")
    bot = HeuristicBot(random.Random(0))
    assert isinstance(bot.choose(state, 0), Take)
    play_to_discard(state, bot)
    assert state.is_over and state.closed_by == 0


def test_fibur_20_heuristic_takes_the_pile_that_reaches_the_pozzetto() -> None:
    """FIBUR-20: one card in hand, no pozzetto yet; the pile's card goes on a meld and the
    hand card is the last discard: the pozzetto this turn, rather than a draw's chance."""
    state = pos("fibur 4 | turn 0 draw | hand Kc 9s | side0 4h 5h 6h ; 9c 9d 9h "
                "| pile 7h | counts 9 9 9")
    bot = HeuristicBot(random.Random(0))
    assert isinstance(bot.choose(state, 0), Take)
    play_to_discard(state, bot)
    assert 0 in state.team_pozzetto and not state.hands[0]


@pytest.mark.parametrize("hand,expect", [("Kc 4s", "draw"), ("Kc 4s 5d", "draw"),
                                         ("Kc 4s 5d 8h", "take")])
def test_fibur_22_a_closer_draws_rather_than_take_a_pile_that_does_not_close(
        hand: str, expect: str) -> None:
    """FIBUR-22: pozzetto and a burraco down, two or three cards in hand (CLOSER_HAND): three
    nines on the pile make a meld but no closing, and would leave the seat as far from going
    out — it draws. With a fourth card in hand it is no closer yet, and the pile is worth its
    points."""
    state = pos(f"fibur 4 | turn 0 draw | hand {hand} | {BURRACO_0} | pozzetto 0 "
                "| pile 9h 9c 9s | counts 9 9 9")
    action = HeuristicBot(random.Random(0)).choose(state, 0)
    assert str(action) == expect, action


@pytest.mark.parametrize("hand,discard", [("4c 7c 8c", "discard 4c"), ("Js Ad As", "discard Js"),
                                          ("7h 10s 7s", "discard 10s")])
def test_fibur_20_keeps_two_cards_a_third_can_meld(hand: str, discard: str) -> None:
    """FIBUR-20: before the pozzetto, two cards left are kept so that one more card melds all
    three (a pair, neighbours in a suit) and takes the seat to the pozzetto al volo — not two
    loose cards that are merely cheaper to be caught with."""
    state = pos(f"fibur 4 | turn 0 play | hand {hand} | side0 Jh Qh Kh | pile 4d 9s "
                "| counts 9 9 9")
    assert str(HeuristicBot(random.Random(0)).choose(state, 0)) == discard
