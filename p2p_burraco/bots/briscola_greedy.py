"""A simple greedy Briscola bot: take points cheaply, otherwise throw away a liscio.

Every fact it uses comes from the engine: the legal plays, who would be taking the trick
with a given card (`winning_seat_if`), card points and strength. It sees only its own
cards and the table.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..games.base import Action, HandState, Seat
from ..games.briscola import BriscolaHand, Play, card_points, side_of, strength


class GreedyBot:
    """When the trick on the table holds points and an opponent is taking it, win it with
    the cheapest card that does (in suit first, the weakest; else the briscola worth least,
    the weakest). In every other
    case throw the lowest liscio (a non-briscola 0-point card if any), else the cheapest
    card. Ties between equal choices are broken by the bot's own random stream."""

    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: HandState, seat: Seat) -> Action:
        if not isinstance(state, BriscolaHand):
            raise TypeError("the Briscola greedy bot plays Briscola only")
        plays = [a for a in state.legal_actions(seat) if isinstance(a, Play)]
        if not plays:
            raise RuntimeError(f"seat {seat} has no legal play in phase {state.phase}")
        trump = state.trump_suit

        def cost(a: Play) -> tuple[int, int, int]:
            """Cheapest way to win: in suit if possible (the weakest card that does), else the
            briscola worth least."""
            card = state.deck[a.card]
            if card.suit == trump:
                return (1, card_points(card), strength(card))
            return (0, 0, strength(card))

        def discard(a: Play) -> tuple[int, int, int, int]:
            """Lowest liscio first: 0-point, non-briscola, weakest."""
            card = state.deck[a.card]
            pts = card_points(card)
            return (int(pts > 0), int(card.suit == trump), pts, strength(card))

        trick = state.current_trick()
        if trick:
            on_table = sum(card_points(state.deck[c]) for c in
                           (state.card_at(p) for _, p in trick) if c is not None)
            taker = state.current_winner()
            if on_table > 0 and taker is not None and side_of(taker) != side_of(seat):
                winning = [a for a in plays if state.winning_seat_if(a.pos) == seat]
                if winning:
                    return self._cheapest(winning, cost)
        return self._cheapest(plays, discard)

    def _cheapest(self, plays: list[Play], key: Callable[[Play], tuple[int, ...]]) -> Play:
        keyed = [(key(a), a) for a in plays]
        best = min(k for k, _ in keyed)
        return self.rng.choice([a for k, a in keyed if k == best])
