"""The heuristic Briscola bot: card counting, trump management, and an exact endgame.

How it thinks, in the order a club player would:

- **Counting.** Every card played is public; what the seat has not seen (`_seen.unseen_ids`)
  is spread over the other hands and the stock. From that it estimates the chance that a
  later player holds a card taking the trick (a hypergeometric "at least one of k").
- **Following** (a trick is on the table). Each card of the hand is weighed by what the trick
  would then be worth to the side (the engine says who would be taking it,
  `winning_seat_if`), discounted by the chance a later opponent takes it back or a later
  partner saves it, minus what the card is worth *kept*: a briscola is a future trick, a
  carico (asso, tre) is points to protect. So a liscio trick is let go with a liscio, a
  loaded one is taken — with the cheapest card of the suit if possible (the asso "strozza"
  a lone figure), else with the lowest briscola; a partner's safe trick gets loaded.
- **Leading.** The card that gives the least away: a low liscio of a plain suit, never a
  carico while briscole are still out, figures before briscole.
- **Pairs: playouts.** With four at the table the seat also samples deals of the cards it
  has not seen (hidden hand slots, then the stock, the face-up briscola last) and plays each
  of its cards out to the end of the smazzata with a quick player on every seat (cheapest
  liscio, load a partner's sure trick, take points with the cheapest card that does); the
  average result plus the rule-of-thumb score above picks the card. In those playouts the
  opponents slip (play a card at random) half the time: assuming they always find the
  sensible card made the bot too timid against real, fallible players. Head to head the
  rules of thumb alone measured better, so playouts are for pairs only. Up to `_PLAYOUTS`
  (800) deals are played, and the search stops from the 48th on once one card is clearly
  ahead (`_think.PairedMeans`: 3 standard errors of the paired differences, the rule of
  thumb included): against random pairs, seeds 0-3 of 400 games each, 80 deals won 86.5 /
  90.2 / 86.5 / 88.8 % (mean margin +45.1 points, 5.4 ms a move); 800 deals every time 88.8
  / 89.0 / 89.0 / 89.0 % (+48.0, 42 ms); 800 with the early stop 90.5 / 90.2 / 89.5 / 89.2 %
  (+48.2, 31 ms); 2 000 every time, seeds 0-1, 90.0 / 88.5 % (+46.5, 98 ms). The earlier
  trial below (160 deals, no gain) looked at too few deals to see it; the figures below were
  taken with 80 deals.
- **Endgame.** When what is left is small, it stops guessing and searches: head to head with
  at most two cards to draw it enumerates every way the unseen cards can lie (opponent's hand,
  last stock card) and plays every line out exactly; in pairs with the stock spent it samples
  deals of the unseen cards consistent with the hand sizes. Trick resolution and card points
  come from the engine's `faces` module; the search only models the draw order (the winner
  first, the face-up briscola last) to look ahead.

Measured and left out (pairs vs random, 400-900 games on the bench's deals, seeds 0-2, each
compared game by game with this bot's 88.5-88.7 % on the same games): 160 playouts 88.6 %;
opponents who slip half the time in the stock-spent search too 88.2 %; the rule-of-thumb score
as our side's playout policy 87.3 % (for leads only 88.6 %); figures discarded before briscola
lisci in playouts 86.1 %; a win worth 100 points instead of 40 88.9 %. About one game in ten
comes out differently under any of these changes, so a gain under ~2 points needs thousands of
paired games to show.

Where the ceiling is (same deals, seeds 0-2, 600 games; this bot 88.7 % won, 89.0 % with ties as
½; seeds 3-8, 1 200 more games, 87.2 %). A scratch copy that *sees* every other hand, with these
same playouts, wins 93.3 %; seeing the stock order too, 96.5 %; seeing only the partner's hand,
88.2 %. What is missing is the opponents' cards, and against a random player nothing can be
inferred about them (its card is drawn uniformly from its hand, so the rest of the hand is as
unknown after it as before). Measured and left out on those 600 games, each within ±1.8 points
of this bot game by game: playouts scored as a win or loss (±60, margin × ¼) 87.7 %, or as
60·tanh(margin / 15) 87.2 %; the stock-spent search with 40 deals 88.2 %, or with opponents who
take the best reply half the time and any card otherwise 88.7 %; the rule-of-thumb score at
weight 0.3 89.5 % (1 800 games: +0.5 points of score), at 0 89.0 %; each opponent's slip rate
read from its own plays (a Beta(2, 2) posterior over how often its card is the quick policy's)
86.5 %: by the 6th trick it has only moved from 0.5 to about 0.6 against a random player. Even
treating the opponents as always random gains only ~1 point (1 800 games, +1.1 of score).

A second round, game by game against this bot on the bench's deals (200 a seed): treating the
opponents as always random, seeds 10-13, 87.8 % against 88.9 % (−1.3 ± 2.2 of score); the same
with 240 playouts (random opponents make a playout noisier), seeds 0-3, 88.5 % against 88.6 %
(+0.0 ± 2.4), though 90.5 % against 85.0 % on seed 0 alone, the bench's default, and 73.5 %
against 77.0 % versus the greedy bot there; with the stock-spent search an expectimax over
opponents playing any card on top (seed 0) 87.5 %; each opponent's slip rate read by Bayes over
a grid of rates, P(card) = q / k + (1 − q) · P(the quick policy's card from it and k − 1
unplayed cards), seed 0 85.0 %: by the end of a smazzata its mean sits at 0.4-0.7 for random
and heuristic opponents alike, too little evidence to tell them apart. Seed 0 is a hard one:
this bot 85.0 %, the scratch copy that sees every other hand 93.0 %.

It reads cards only through `_seen` (what its seat is entitled to know), every candidate is one
of the engine's legal plays, and all randomness is its own `rng` (the deal samples).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..games.base import Action, HandState, Seat
from ..games.briscola import BriscolaHand, Play, beats, card_points, side_of, strength
from ..games.briscola.faces import TOTAL_POINTS, WINNING_POINTS, draw_order
from ..games.cards import Card, CardId, Suit
from ._briscola_fast import keep_value
from ._seen import seen_id, unseen_ids
from ._think import CHECK_EVERY, MIN_DEALS, PairedMeans

# Search settings.
_EXACT_2P_STOCK = 2          # head to head: search exactly with at most this many cards to draw
_PAIRS_SAMPLES = 12          # pairs, stock spent: deals of the unseen cards sampled
_SAVE_TRUST = 1.0            # a later partner may take the trick back: how far to count on it
_PLAYOUTS = 800              # pairs: at most this many deals sampled and played out per decision
_PRIOR_WEIGHT = 1.0          # weight of the rule-of-thumb score beside the playouts
_WIN_BONUS = 40              # a won smazzata is worth more than its points
_OPP_NOISE = 0.5             # playouts: share of opponents' plays drawn at random (opponents
                             # are not assumed to play the quick policy perfectly)


@dataclass
class _Table:
    """The facts one seat has, read once per decision."""

    state: BriscolaHand
    seat: Seat
    n: int
    trump: Suit
    trick: list[tuple[Seat, CardId]]
    unseen: list[CardId]
    known_in_hand: dict[Seat, list[CardId]]     # cards of other hands this seat may see
    unknown_count: dict[Seat, int]              # hidden cards in each other hand
    points: list[int]

    def card(self, cid: CardId) -> Card:
        return self.state.deck[cid]

    def p_holds(self, other: Seat, wanted: Sequence[CardId]) -> float:
        """Chance that `other` holds at least one of `wanted` (ids of unseen cards or of
        cards known to be in its hand)."""
        if any(c in self.known_in_hand[other] for c in wanted):
            return 1.0
        k = sum(1 for c in wanted if c in self._unseen_set)
        h = self.unknown_count[other]
        u = len(self.unseen)
        if k == 0 or h == 0 or u == 0:
            return 0.0
        if u - k < h:
            return 1.0
        return 1.0 - math.comb(u - k, h) / math.comb(u, h)

    def __post_init__(self) -> None:
        self._unseen_set = frozenset(self.unseen)
        # read once, not once per sampled deal: the seat's own cards, and the face-up
        # briscola if it is still the last card of the stock
        own = [seen_id(self.state, self.seat, p) for p in self.state.hand(self.seat)]
        self.own: list[CardId] = [c for c in own if c is not None]
        in_stock = not HeuristicBot._trump_drawn(self.state)
        self.trump_in_stock = seen_id(self.state, self.seat, self.state.trump_pos) \
            if in_stock else None

    def beaters(self, best: Card, among: Sequence[CardId]) -> list[CardId]:
        return [c for c in among if beats(self.card(c), best, self.trump)]


class HeuristicBot:
    """Counts cards, manages briscole, and searches the endgame (see the module doc)."""

    name = "heuristic"

    def __init__(self, rng: random.Random, samples: int | None = None,
                 playouts: int | None = None) -> None:
        self.rng = rng
        self.samples = _PAIRS_SAMPLES if samples is None else samples
        self.playouts = _PLAYOUTS if playouts is None else playouts
        self.last_playouts = 0

    # --- entry -------------------------------------------------------------------------
    def choose(self, state: HandState, seat: Seat) -> Action:
        if not isinstance(state, BriscolaHand):
            raise TypeError("the Briscola heuristic bot plays Briscola only")
        plays = [a for a in state.legal_actions(seat) if isinstance(a, Play)]
        if not plays:
            raise RuntimeError(f"seat {seat} has no legal play in phase {state.phase}")
        self.last_playouts = 0
        if len(plays) == 1:
            return plays[0]
        table = self._read(state, seat)
        stock = state.stock_count
        if table.n == 2 and stock <= _EXACT_2P_STOCK:
            return self._search_choice(table, plays, self._exact_deals(table))
        if table.n == 4 and stock == 0:
            return self._search_choice(table, plays, self._sampled_deals(table))
        if table.n == 4 and self.playouts:
            return self._playout_choice(table, plays)
        scored = [(self._score(table, a), -i, a) for i, a in enumerate(plays)]
        return max(scored, key=lambda t: (t[0], t[1]))[2]

    def _playout_choice(self, table: _Table, plays: list[Play]) -> Play:
        """Sample deals of the unseen cards (hidden hand slots, then the stock in a random
        order, the face-up briscola last) and play each candidate out with the quick policy;
        the card with the best average plus the rule-of-thumb score wins. Every candidate of
        a deal meets the same opponents' slips (one noise seed per deal, drawn from the bot's
        rng): the comparison then measures the card, not the luck. The search stops before
        `playouts` deals once one card is clearly ahead (`_think.PairedMeans`, on the values
        alone, so a seed replays the same game)."""
        noise = random.Random()
        search = _Search(table, noise)
        prior = [_PRIOR_WEIGHT * self._score(table, a) for a in plays]
        acc = PairedMeans(len(plays))
        for i in range(self.playouts):
            if i >= MIN_DEALS and i % CHECK_EVERY == 0 and acc.clear(prior):
                break
            hands, stock = self._random_deal(table)
            seed = self.rng.getrandbits(32)
            row = []
            for play in plays:
                noise.seed(seed)
                row.append(search.rollout_after_play(hands, stock, play.card))
            acc.add(row)
        self.last_playouts = acc.n
        scored = [(m + p, -i, a) for i, (m, p, a) in enumerate(zip(acc.means(), prior, plays))]
        return max(scored, key=lambda t: (t[0], t[1]))[2]

    def _random_deal(self, table: _Table) -> tuple[list[list[CardId]], list[CardId]]:
        pool = list(table.unseen)
        self.rng.shuffle(pool)
        give: dict[Seat, list[CardId]] = {}
        for s, k in sorted(table.unknown_count.items()):
            give[s], pool = pool[:k], pool[k:]
        return self._deal(table, give, pool)

    def _read(self, state: BriscolaHand, seat: Seat) -> _Table:
        trump = state.trump_suit
        if trump is None:
            raise RuntimeError("the briscola has not been shown to this replica yet")
        trick: list[tuple[Seat, CardId]] = []
        for s, p in state.current_trick():
            cid = seen_id(state, seat, p)
            if cid is None:
                raise RuntimeError(f"a card on the table (position {p}) is not known here")
            trick.append((s, cid))
        known: dict[Seat, list[CardId]] = {}
        unknown: dict[Seat, int] = {}
        for s in range(state.n_seats):
            if s == seat:
                continue
            ids = [seen_id(state, seat, p) for p in state.hand(s)]
            known[s] = [c for c in ids if c is not None]
            unknown[s] = sum(1 for c in ids if c is None)
        return _Table(state, seat, state.n_seats, trump, trick, unseen_ids(state, seat),
                      known, unknown, [state.side_points(0), state.side_points(1)])

    # --- heuristic ---------------------------------------------------------------------
    def _keep(self, table: _Table, card: Card) -> float:
        """What a card is worth kept in hand rather than played now (`keep_value`)."""
        return keep_value(card, table.trump)

    def _score(self, table: _Table, play: Play) -> float:
        state, seat, n = table.state, table.seat, table.n
        card = table.card(play.card)
        me = side_of(seat)
        if not table.trick:
            return self._lead_score(table, card) - self._keep(table, card)
        on_table = sum(card_points(table.card(c)) for _, c in table.trick) + card_points(card)
        taker = state.winning_seat_if(play.pos)
        best = table.card(play.card if taker == seat else
                          next(c for s, c in table.trick if s == taker))
        later = [(seat + i) % n for i in range(1, n - len(table.trick))]
        if side_of(taker) == me:
            p_lost = _p_any(table.p_holds(s, table.beaters(best, table.unseen +
                                                           table.known_in_hand[s]))
                            for s in later if side_of(s) != me)
            value = on_table * (1 - 2 * p_lost)
        else:
            p_saved = _p_any(table.p_holds(s, table.beaters(best, table.unseen +
                                                            table.known_in_hand[s]))
                             for s in later if side_of(s) == me)
            value = -on_table * (1 - 2 * _SAVE_TRUST * p_saved)
        return value - self._keep(table, card)

    def _lead_score(self, table: _Table, card: Card) -> float:
        """Expected points of leading `card`: taken back by a beater the opponents may hold
        (plus the carico they can 'strozzare' it with), or kept by the side."""
        me = side_of(table.seat)
        opponents = [s for s in range(table.n) if side_of(s) != me]
        p_beaten = _p_any(
            table.p_holds(s, table.beaters(card, table.unseen + table.known_in_hand[s]))
            for s in opponents)
        hidden_opp = sum(table.unknown_count[s] for s in opponents)
        u = max(1, len(table.unseen))
        gift = 0.0
        for c in table.unseen:
            other = table.card(c)
            if other.suit == card.suit and beats(other, card, table.trump):
                gift += card_points(other) * min(1.0, hidden_opp / u)
        return card_points(card) * (1 - 2 * p_beaten) - gift

    # --- endgame search ----------------------------------------------------------------
    def _exact_deals(self, table: _Table) -> list[tuple[list[list[CardId]], list[CardId]]]:
        """Every lie of the unseen cards, head to head: which go to the opponent's hand,
        in what order the hidden stock cards come. Each deal is (hands, stock draw order)."""
        state, seat = table.state, table.seat
        opp = 1 - seat
        stock_hidden = state.stock_count - (0 if self._trump_drawn(state) else 1)
        deals = []
        need = table.unknown_count[opp]
        for chosen in itertools.combinations(table.unseen, need):
            rest = [c for c in table.unseen if c not in chosen]
            for order in itertools.permutations(rest, stock_hidden):
                deals.append(self._deal(table, {opp: list(chosen)}, list(order)))
        return deals

    def _sampled_deals(self, table: _Table) -> list[tuple[list[list[CardId]], list[CardId]]]:
        """Random deals of the unseen cards over the hidden hand slots (stock spent)."""
        deals = []
        for _ in range(self.samples):
            pool = list(table.unseen)
            self.rng.shuffle(pool)
            give: dict[Seat, list[CardId]] = {}
            for s, k in sorted(table.unknown_count.items()):
                give[s], pool = pool[:k], pool[k:]
            deals.append(self._deal(table, give, []))
        return deals

    @staticmethod
    def _trump_drawn(state: BriscolaHand) -> bool:
        return not any(place == "trump" for place, _ in state.physical_locations())

    def _deal(self, table: _Table, give: dict[Seat, list[CardId]], stock_order: list[CardId]
              ) -> tuple[list[list[CardId]], list[CardId]]:
        hands: list[list[CardId]] = []
        for s in range(table.n):
            if s == table.seat:
                hands.append(list(table.own))
            else:
                hands.append(list(table.known_in_hand[s]) + give.get(s, []))
        stock = list(stock_order)
        if table.trump_in_stock is not None:
            stock.append(table.trump_in_stock)
        return hands, stock

    def _search_choice(self, table: _Table, plays: list[Play],
                       deals: list[tuple[list[list[CardId]], list[CardId]]]) -> Play:
        totals = [0.0] * len(plays)
        search = _Search(table)
        for hands, stock in deals:
            for i, play in enumerate(plays):
                totals[i] += search.after_play(hands, stock, play.card)
        best = max(range(len(plays)), key=lambda i: (totals[i], -i))
        return plays[best]


def _p_any(ps: Iterable[float]) -> float:
    """Chance that at least one of independent events happens."""
    miss = 1.0
    for p in ps:
        miss *= 1.0 - p
    return 1.0 - miss


def _never() -> float:
    """The opponents' slip draw of a search with no rng: never a slip (its noise is 0, so it
    is not even asked)."""
    return 1.0


class _Search:
    """Perfect-information alpha-beta over one deal of the remaining cards.

    The value is the searching side's margin at the end of the smazzata (its points minus
    the opponents'), plus a bonus for winning it. Uses the engine's `beats` and
    `card_points`; models drawing (winner first, in play order, briscola last) and the
    vinco-subito stop."""

    def __init__(self, table: _Table, rng: random.Random | None = None) -> None:
        self.rng = rng
        self.n = table.n
        self.me = side_of(table.seat)
        self.seat = table.seat
        self.trump = table.trump
        deck = table.state.deck
        self.card = [deck[c] for c in range(len(deck))]
        self.pts = [card_points(c) for c in self.card]
        self.st = [strength(c) for c in self.card]
        self.is_trump = [c.suit == self.trump for c in self.card]
        # beat[a][b]: card a, played after b, takes the trick from it (the engine's rule,
        # tabulated once per decision so the playouts stay quick)
        self.beat = [[beats(a, b, self.trump) for b in self.card] for a in self.card]
        self.side = [side_of(s) for s in range(self.n)]
        self.order = [draw_order(w, self.n) for w in range(self.n)]
        # playout preferences as sortable numbers (lower = rather play it, for k_cheap/k_take)
        self.k_cheap = [(p > 0) * 1000 + t * 500 + p * 20 + s
                        for p, t, s in zip(self.pts, self.is_trump, self.st)]
        self.k_load = [(not t) * 1000 + p * 20 + (10 - s)
                       for p, t, s in zip(self.pts, self.is_trump, self.st)]
        self.k_take = [p * 20 + s for p, s in zip(self.pts, self.st)]
        self.k_strozzo = [p * 20 + (10 - s) for p, s in zip(self.pts, self.st)]
        self.trick = list(table.trick)
        self.points = tuple(table.points)
        stop = table.state.stop_at
        self.stop_at = None if stop is None else tuple(stop)

    def after_play(self, hands: list[list[CardId]], stock: list[CardId], cid: CardId) -> float:
        """Value for the searching side if its seat plays `cid` now in this deal."""
        hands = [list(h) for h in hands]
        hands[self.seat].remove(cid)
        return self._after(hands, list(stock), self.trick + [(self.seat, cid)], self.seat,
                           self.points, -math.inf, math.inf)

    def rollout_after_play(self, hands: list[list[CardId]], stock: list[CardId],
                           cid: CardId) -> float:
        """Value for the searching side if its seat plays `cid` now and then every seat
        follows the quick playout policy to the end of this deal: lead or throw the cheapest
        liscio, load a partner's trick when last, take points with the cheapest card that
        does (the asso of the suit on a figure, a briscola on a carico). Given an rng, each
        opponent's play is instead a random card of its hand with chance `_OPP_NOISE`."""
        n, beat, pts, side = self.n, self.beat, self.pts, self.side
        cheap, load, take, strozzo = self.k_cheap, self.k_load, self.k_take, self.k_strozzo
        trump = self.is_trump
        me = self.me
        order = self.order
        noise = _OPP_NOISE if self.rng is not None else 0.0
        rand = self.rng.random if self.rng is not None else _never   # noise is 0 then
        hands = [list(h) for h in hands]
        hands[self.seat].remove(cid)
        stock = list(stock)
        points = list(self.points)
        trick = self.trick + [(self.seat, cid)]
        # the trick so far: who is taking it, with which card, and its points
        best_seat, best_card = trick[0]
        for s_, c_ in trick[1:]:
            if beat[c_][best_card]:
                best_seat, best_card = s_, c_
        on_table = sum(pts[c_] for _, c_ in trick)
        played = len(trick)
        seat = self.seat
        while True:
            if played == n:
                sd = side[best_seat]
                points[sd] += on_table
                if self.stop_at is not None and points[sd] >= self.stop_at[sd]:
                    return self._final(points, stopped_by=sd)
                for s_ in order[best_seat]:
                    if stock:
                        hands[s_].append(stock.pop(0))
                if not hands[best_seat]:
                    return self._final(points, stopped_by=None)
                seat = best_seat
                hand = hands[seat]
                if side[seat] != me and noise and rand() < noise:
                    c = hand[int(rand() * len(hand))]
                else:
                    c = min(hand, key=cheap.__getitem__)
                hand.remove(c)
                best_card, on_table, played = c, pts[c], 1
                continue
            seat = (seat + 1) % n
            hand = hands[seat]
            last = played == n - 1
            if side[seat] != me and noise and rand() < noise:
                c = hand[int(rand() * len(hand))]
            elif side[best_seat] == side[seat]:
                c = max(hand, key=load.__getitem__) if last else min(hand, key=cheap.__getitem__)
            else:
                winners = [x for x in hand if beat[x][best_card]]
                plain = [x for x in winners if not trump[x]]
                if plain and (on_table > 0 or any(pts[x] > 0 for x in plain)):
                    c = max(plain, key=strozzo.__getitem__) if last else \
                        min(plain, key=take.__getitem__)
                elif winners and on_table >= (6 if last else 10):
                    c = min(winners, key=take.__getitem__)
                else:
                    c = min(hand, key=cheap.__getitem__)
            hand.remove(c)
            if beat[c][best_card]:
                best_seat, best_card = seat, c
            on_table += pts[c]
            played += 1

    def _after(self, hands: list[list[CardId]], stock: list[CardId],
               trick: list[tuple[Seat, CardId]], last: Seat, points: tuple[int, ...],
               alpha: float, beta: float) -> float:
        if len(trick) < self.n:
            return self._node(hands, stock, trick, (last + 1) % self.n, points, alpha, beta)
        best = 0
        for i in range(1, len(trick)):
            if self.beat[trick[i][1]][trick[best][1]]:
                best = i
        winner = trick[best][0]
        side = side_of(winner)
        gained = sum(self.pts[c] for _, c in trick)
        pts = list(points)
        pts[side] += gained
        if self.stop_at is not None and pts[side] >= self.stop_at[side]:
            return self._final(pts, stopped_by=side)
        if stock:
            hands = [list(h) for h in hands]
            stock = list(stock)
            for s_ in self.order[winner]:
                if stock:
                    hands[s_].append(stock.pop(0))
        if not any(hands):
            return self._final(pts, stopped_by=None)
        return self._node(hands, stock, [], winner, tuple(pts), alpha, beta)

    def _node(self, hands: list[list[CardId]], stock: list[CardId],
              trick: list[tuple[Seat, CardId]], seat: Seat, points: tuple[int, ...],
              alpha: float, beta: float) -> float:
        maximize = side_of(seat) == self.me
        hand = hands[seat]
        value = -math.inf if maximize else math.inf
        for cid in hand:
            rest = [c for c in hand if c != cid]
            child = hands[:seat] + [rest] + hands[seat + 1:]
            v = self._after(child, stock, trick + [(seat, cid)], seat, points, alpha, beta)
            if maximize:
                value = max(value, v)
                alpha = max(alpha, v)
            else:
                value = min(value, v)
                beta = min(beta, v)
            if alpha >= beta:
                break
        return value

    def _final(self, pts: list[int], stopped_by: int | None) -> float:
        mine, theirs = pts[self.me], pts[1 - self.me]
        margin = float(mine - theirs)
        if stopped_by is not None:
            won = stopped_by == self.me
            return margin + (_WIN_BONUS if won else -_WIN_BONUS)
        if mine >= WINNING_POINTS:
            return margin + _WIN_BONUS
        if mine * 2 < TOTAL_POINTS:
            return margin - _WIN_BONUS
        return margin
