"""The expert Briscola bot: deals sampled from the seat's view, every candidate card searched
on each deal (perfect-information Monte Carlo), on a compact simulator (`_briscola_fast`).

- **Head to head**, with at most `_EXACT_2P_STOCK` cards to draw every lie of the unseen cards
  is enumerated; up to `SOLVE_2P_STOCK` cards each sampled deal is solved exactly
  (alpha-beta, `Solver2`); earlier each candidate is played out on each deal by the quick
  policy (`Tables.rollout`) until the stock is down to `TAIL_2P_STOCK` cards, and the rest is
  solved exactly. The candidate with the best total over the deals wins (the heuristic's rule
  of thumb breaks near ties). The other hand is not dealt blindly: `briscola_belief` reads
  it from the opponent's plays so far (Bayes' rule under a model of the rule of thumb,
  mixed with "any card" as the plays tell), sampled deals follow that reading and the
  enumerated ones are weighed by it.
- **Pairs**: the heuristic's playouts, with as many sampled deals as the budget buys (they
  stop sooner by the same rule as head to head), and the sampled exact search once the stock
  is spent.

Deals come only from what the seat has seen (`_seen.unseen_ids` through the heuristic's
`_read`, the plays through `_seen.seen_id`), so the real hidden cards are never read. The
number of deals comes from the time budget (`_think.Budget`, a fixed cost per deal at each
stock size), and the search stops sooner, by a rule on the values alone, once one card is
clearly best: a seed and a `--think` reproduce a game.

Measured head to head against the heuristic, `bench bots` seed 0 at the default budget: 63.7 %
won of 350 games (95 % interval of the score 59.4-69.4), 229 ms a move on average, 852 ms at
most; the same 366 games with the clock's safety net off 65.6 %. On a machine busy enough
that the safety net cuts most searches short (load ~8 on 2 cores) it measured 58.5 %: a busy
machine plays a weaker expert, so compare figures from an idle one.
"""

from __future__ import annotations

import random

from ..games.base import Action, HandState, Seat
from ..games.briscola import BriscolaHand, Play
from ._briscola_fast import Solver2, Tables, bits, mask_of
from ._seen import seen_id
from ._think import CHECK_EVERY, MIN_DEALS, Budget, PairedMeans
from .briscola_belief import HandBelief, OpponentReader
from .briscola_heuristic import _EXACT_2P_STOCK, HeuristicBot, _Table

SOLVE_2P_STOCK = 8           # head to head: each sampled deal solved exactly from this stock
TAIL_2P_STOCK = 2            # earlier: rollouts hand over to the exact solver at this stock
PRIOR_WEIGHT = 0.25          # the rule-of-thumb score beside the search's average
# Seconds per deal (all candidates), measured on the developers' machine: the solver's cost
# grows about 4 times per 2 stock cards (4 cards: 1.5 ms; 8: 20 ms); rollouts with their exact
# tail cost about the same at any stock.
COST_2P_SOLVE_AT_4 = 0.0015
COST_2P_SOLVE_GROWTH = 4.0
COST_2P_ROLLOUT = 0.0019
COST_PLAYOUT = 0.00015       # pairs: seconds per playout deal (all candidates), measured
COST_4P_SAMPLE = 0.003       # pairs: seconds per deal searched once the stock is spent
DEFAULT_THINK = 0.5
"""Seconds a move unless told (`--think`): the 65.5 % against the heuristic was measured
at it."""


class ExpertBot(HeuristicBot):
    """See the module docstring."""

    name = "expert"
    thinks = True

    def __init__(self, rng: random.Random, think: float = DEFAULT_THINK) -> None:
        super().__init__(rng)
        self.think = think
        self.last_iterations = 0
        self.reader = self.make_reader()

    def make_reader(self) -> OpponentReader | None:
        """Head to head, what reads the other hand from its plays (None: deal it blindly)."""
        return OpponentReader()

    def choose(self, state: HandState, seat: Seat) -> Action:
        if not isinstance(state, BriscolaHand):
            raise TypeError("the Briscola expert bot plays Briscola only")
        plays = [a for a in state.legal_actions(seat) if isinstance(a, Play)]
        if len(plays) <= 1:
            return super().choose(state, seat)
        table = self._read(state, seat)
        stock = state.stock_count
        if table.n == 2:
            return self._head_to_head(table, plays)
        self.playouts = Budget(self.think, COST_PLAYOUT).iterations
        self.samples = Budget(self.think, COST_4P_SAMPLE).iterations
        choice = super().choose(state, seat)
        self.last_iterations = self.samples if stock == 0 else self.last_playouts
        return choice

    # --- head to head ----------------------------------------------------------------------
    def _head_to_head(self, table: _Table, plays: list[Play]) -> Play:
        state = table.state
        stock = state.stock_count
        trump_card = seen_id(state, table.seat, state.trump_pos)
        assert trump_card is not None     # the briscola is face up from the deal
        tables = Tables(state.deck.cards, table.trump, 2, table.seat, state.stop_at, trump_card)
        led = table.trick[0][1] if table.trick else -1
        leader = state.leader
        p0, p1 = table.points
        cards = [a.card for a in plays]
        seat = table.seat

        gone = mask_of([c for _, c in table.trick])     # every card played is face up
        for trick in state.tricks:
            for _, pos in trick.plays:
                cid = seen_id(state, seat, pos)
                if cid is None:
                    raise RuntimeError(f"a played card (position {pos}) is not known here")
                gone |= 1 << cid

        def values(hands: list[list[int]], order: list[int]) -> list[float]:
            if stock <= SOLVE_2P_STOCK:
                solver = Solver2(tables, order)
                m0, m1 = mask_of(hands[0]), mask_of(hands[1])
                return [float(solver.after_play(m0, m1, leader, led, p0, p1, c)) for c in cards]
            return [float(tables.rollout2([list(h) for h in hands], list(order), leader, led,
                                          (p0, p1), gone, c, solve_at=TAIL_2P_STOCK))
                    for c in cards]

        belief = self.reader.belief(state, seat, tables) if self.reader else None
        rows: list[list[float]] = []
        if stock <= _EXACT_2P_STOCK:
            weights: list[float] = []
            for h, o in self._exact_deals(table):
                w = belief.weight(mask_of(h[1 - seat])) if belief else 1.0
                if w > 0:
                    rows.append(values(h, o))
                    weights.append(w)
            self.last_iterations = len(rows)
            return self._best(table, plays, rows, weights)
        if stock <= SOLVE_2P_STOCK:
            cost = COST_2P_SOLVE_AT_4 * COST_2P_SOLVE_GROWTH ** ((stock - 4) / 2)
        else:
            cost = COST_2P_ROLLOUT
        budget = Budget(self.think, cost)
        acc = PairedMeans(len(plays))
        for i in range(budget.iterations):
            if budget.out_of_time(i):
                break
            if i >= MIN_DEALS and i % CHECK_EVERY == 0 and acc.clear():
                break
            deal = self._read_deal(table, belief) if belief else self._random_deal(table)
            rows.append(values(*deal))
            acc.add(rows[-1])
        self.last_iterations = len(rows)
        return self._best(table, plays, rows)

    def _read_deal(self, table: _Table, belief: HandBelief
                   ) -> tuple[list[list[int]], list[int]]:
        """A deal whose other hand is drawn from what its plays say (`belief`), the rest of
        the unseen cards shuffled into the stock."""
        opp = 1 - table.seat
        hand = belief.sample(self.rng)
        hidden = [c for c in bits(hand) if c not in table.known_in_hand[opp]]
        pool = [c for c in table.unseen if not (hand >> c) & 1]
        self.rng.shuffle(pool)
        return self._deal(table, {opp: hidden}, pool)

    def _best(self, table: _Table, plays: list[Play], rows: list[list[float]],
              weights: list[float] | None = None) -> Play:
        """The card with the best (weighted) average over the deals, plus a little of the
        rule of thumb (it only matters between cards the search finds about equal)."""
        ws = weights or [1.0] * len(rows)
        n = sum(ws) or 1.0
        scored = [(sum(w * r[i] for w, r in zip(ws, rows)) / n +
                   PRIOR_WEIGHT * self._score(table, a), -i, a)
                  for i, a in enumerate(plays)]
        return max(scored, key=lambda t: (t[0], t[1]))[2]
