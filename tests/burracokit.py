"""Burraco positions for tests: typed in the console notation, checked on the way in.

Shared by the rules and bot tests so a position means the same thing in every file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2p_burraco.games.base import check_cards_conserved
from p2p_burraco.games.burraco import BurracoHand, Discard
from p2p_burraco.games.burraco.notation import parse_position

if TYPE_CHECKING:
    from p2p_burraco.bots.burraco_heuristic import HeuristicBot

BURRACO_0 = "side0 3d 4d 5d 6d 7d 8d 9d"
"""A burraco pulito (clean burraco) of side 0: what a side needs down to close (FIBUR-22)."""


def pos(text: str) -> BurracoHand:
    """The position `text` describes (notation.py), its 108 cards all accounted for."""
    state = parse_position(text)
    check_cards_conserved(state)
    return state


def play_to_discard(state: BurracoHand, bot: HeuristicBot, seat: int = 0,
                    steps: int = 5) -> None:
    """Let `bot` play `seat`'s turn until it discards (or the hand ends), at most `steps`."""
    for _ in range(steps):
        if state.is_over:
            return
        action = bot.choose(state, seat)
        state.apply(seat, action)
        if isinstance(action, Discard):
            return
