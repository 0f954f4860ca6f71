"""The expert Briscola bot: the heuristic's counting and rules of thumb, with deals sampled
from the seat's view and searched perfectly (perfect-information Monte Carlo).

- **Head to head**, once the stock is down to `SEARCH_2P_STOCK` cards: deals of the unseen
  cards (the opponent's hand, the stock order, the face-up briscola last) are sampled and each
  candidate card is searched to the end of the smazzata with alpha-beta on every deal (the
  heuristic's `_Search`); the best total wins. Earlier, the heuristic's playouts decide, with
  as many sampled deals as the budget buys (the heuristic alone plays rules of thumb there:
  its 80 playouts measured worse; a thousand and more measured 56 % against it over 100
  games, within the noise); with two cards or fewer to draw every deal is enumerated.
- **Pairs**: the heuristic's playouts, with as many sampled deals as the budget buys, and the
  sampled exact search once the stock is spent.

Deals come only from what the seat has seen (`_seen.unseen_ids` through the heuristic's
`_read`), so the real hidden cards are never read. The number of deals comes from the time
budget (`_think.Budget`): a seed and a `--think` reproduce a game.
"""

from __future__ import annotations

import random

from ..games.base import Action, HandState, Seat
from ..games.briscola import BriscolaHand, Play
from ._think import DEFAULT_THINK, Budget
from .briscola_heuristic import _EXACT_2P_STOCK, HeuristicBot, _Search

SEARCH_2P_STOCK = 8          # head to head: sampled exact search from this many stock cards
COST_2P_DEAL_AT_4 = 0.003    # seconds per deal searched (all candidates) with 4 stock cards;
                             # each 2 more cards cost 4 times as much (measured: 6 → 11 ms,
                             # 8 → 44 ms)
COST_PLAYOUT = 0.00015       # seconds per playout deal (all candidates), measured
COST_4P_SAMPLE = 0.003       # seconds per deal searched once the stock is spent, measured


class ExpertBot(HeuristicBot):
    """See the module docstring."""

    name = "expert"
    thinks = True

    def __init__(self, rng: random.Random, think: float = DEFAULT_THINK) -> None:
        super().__init__(rng)
        self.think = think
        self.last_iterations = 0

    def choose(self, state: HandState, seat: Seat) -> Action:
        if not isinstance(state, BriscolaHand):
            raise TypeError("the Briscola expert bot plays Briscola only")
        plays = [a for a in state.legal_actions(seat) if isinstance(a, Play)]
        if len(plays) <= 1:
            return super().choose(state, seat)
        table = self._read(state, seat)
        stock = state.stock_count
        if table.n == 2 and _EXACT_2P_STOCK < stock <= SEARCH_2P_STOCK:
            budget = Budget(self.think, COST_2P_DEAL_AT_4 * 4 ** ((stock - 4) / 2))
            return self._sampled_search(table, plays, budget)
        if table.n == 2 and stock > SEARCH_2P_STOCK:
            self.playouts = self.last_iterations = Budget(self.think, COST_PLAYOUT).iterations
            return self._playout_choice(table, plays)
        if table.n == 4:
            self.playouts = Budget(self.think, COST_PLAYOUT).iterations
            self.samples = Budget(self.think, COST_4P_SAMPLE).iterations
            self.last_iterations = self.samples if stock == 0 else self.playouts
        return super().choose(state, seat)

    def _sampled_search(self, table: object, plays: list[Play], budget: Budget) -> Play:
        """Alpha-beta on each sampled deal (the heuristic's `_Search`), totals per card."""
        search = _Search(table)  # type: ignore[arg-type]
        totals = [0.0] * len(plays)
        done = 0
        for _ in range(budget.iterations):
            if budget.out_of_time(done):
                break
            hands, stock = self._random_deal(table)  # type: ignore[arg-type]
            for i, play in enumerate(plays):
                totals[i] += search.after_play(hands, stock, play.card)
            done += 1
        self.last_iterations = done
        scored = [(totals[i] / done + 0.25 * self._score(table, a), -i, a)  # type: ignore[arg-type]
                  for i, a in enumerate(plays)]
        return max(scored, key=lambda t: (t[0], t[1]))[2]
