"""What a seat may know, as bots read it (`bots/_seen.py`): its own cards and the face-up
ones, and a pile card it saw face up (FIBUR-2, FIBUR-5) even after another seat took the pile
— but never a card drawn from the stock into another hand."""

from __future__ import annotations

import random

import pytest

from p2p_burraco.bots import make_strategy
from p2p_burraco.bots._seen import seen_id, seen_ids, unseen_ids
from p2p_burraco.games.burraco import PRESETS, BurracoHand, Discard, Draw, Take
from p2p_burraco.selfplay import SelfplayConfig, deal_known, make_match


def _hand() -> BurracoHand:
    state = BurracoHand(PRESETS["fibur"], 4, dealer=0)
    deal_known(state, random.Random(11))
    return state


def test_a_taken_pile_card_stays_seen_a_drawn_one_does_not() -> None:
    """FIBUR-2 FIBUR-5: the face-up card and each discard are seen by every seat; the seat
    that takes the pile holds them privately, yet the others still know them."""
    state = _hand()
    first = state.turn
    face_up = state.pile[0]
    watcher = (first + 1) % 4
    assert seen_id(state, watcher, face_up) == state.card_at(face_up)
    state.apply(first, Take())
    assert state.owner[face_up] == first
    assert state.audience(face_up) == frozenset((first,))
    assert seen_id(state, watcher, face_up) == state.card_at(face_up)   # remembered
    assert face_up in seen_ids(state, watcher)
    assert state.card_at(face_up) not in unseen_ids(state, watcher)
    # a discard, then a draw by the next seat: the discard is seen, the drawn card is not
    gone = next(a for a in state.legal_actions(first) if isinstance(a, Discard))
    state.apply(first, gone)
    nxt = state.turn
    drawn = state.stock_next
    state.apply(nxt, Draw())
    assert state.owner[drawn] == nxt
    assert seen_id(state, watcher if watcher != nxt else first, drawn) is None
    assert seen_id(state, nxt, drawn) == state.card_at(drawn)
    assert seen_id(state, watcher, gone.card[0]) == gone.card[1]


def test_copies_share_what_was_shown_until_one_moves() -> None:
    """A copy remembers the same shown cards; a discard on the copy is its own."""
    state = _hand()
    seat = state.turn
    state.apply(seat, Draw())
    trial = state.copy()
    act = next(a for a in trial.legal_actions(seat) if isinstance(a, Discard))
    trial.apply(seat, act)
    assert trial.was_shown(act.card[0])
    assert not state.was_shown(act.card[0])


@pytest.mark.parametrize("game,players", [("burraco", 4), ("burraco", 2), ("briscola", 2),
                                          ("briscola", 4)])
def test_seen_ids_agrees_with_seen_id_at_every_position(game: str, players: int) -> None:
    """`seen_ids` asks the state for every audience at once (a bot does it at every
    decision); it must know exactly the cards `seen_id` knows, position by position, for
    every seat, all through a hand (pile taken, melds laid, pozzetti, the hand over)."""
    rng = random.Random(5)
    cfg = SelfplayConfig(game=game, players=players)
    state = make_match(cfg, rng).new_hand()
    deal_known(state, rng)
    bots = [make_strategy(game, "greedy", random.Random(s)) for s in range(players)]
    checked = 0
    while True:
        for seat in range(players):
            expected = {p: c for p in range(len(state.deck))
                        if (c := seen_id(state, seat, p)) is not None}
            assert seen_ids(state, seat) == expected
            checked += 1
        if state.to_move is None:
            break
        state.apply(state.to_move, bots[state.to_move].choose(state, state.to_move))
    assert checked > 20
