"""A compact head-to-head Briscola simulator for the expert: cards as small ints, hands as
bitmasks.

The expert searches hundreds of deals of the cards its seat has not seen per move; engine
objects (and even lists of `Card`) cost too much for that. Card facts are tabulated once per
decision from the engine's own `beats` and `card_points`, so no rule is re-invented: a trick is
taken by the card that `beats` the one led [BRISCOLA-14], its winner draws first and the other
seat second [BRISCOLA-16], nothing is drawn once the stock is spent [BRISCOLA-17], and under
vinco subito the trick that reaches the side's target ends the smazzata [BRISCOLA-21].

Two tools, both over one *deal* (both hands and the stock order fixed, i.e. perfect
information):

- `Solver2` — the exact minimax value of a position (alpha-beta with a transposition table
  keyed by the two hands as bitmasks, the cards drawn, who leads, the card led and the points);
- `Tables.rollout2` — the smazzata played out with the heuristic bot's own choice on both
  seats (`Tables.heuristic_pick`, the same numbers as `HeuristicBot._score`), handing over to
  `Solver2` for the last tricks as the heuristic does.

The value of an ending is the searcher's margin (its side's points minus the other side's)
plus `WIN_BONUS` for winning the smazzata (minus for losing it): 60–60 is worth 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..games.briscola import beats, card_points, side_of, strength
from ..games.briscola.faces import TOTAL_POINTS, WINNING_POINTS
from ..games.cards import Card, Suit

WIN_BONUS = 40
"""A won smazzata is worth more than its points: the bench (and a match) counts wins."""

_INF = 10 ** 6
# Value of a card kept for later, in card points: what spending it now gives up.
_TRUMP_KEEP_BASE = 3.0      # any briscola is a future trick
_TRUMP_KEEP_PER_STRENGTH = 0.7
_PLAIN_KEEP_PER_STRENGTH = 0.15


def keep_value(card: Card, trump: Suit) -> float:
    """What a card is worth kept in hand rather than played now, in card points: a briscola
    is a future trick, a high card of a plain suit a little protection. The heuristic bot and
    the expert's rollouts weigh cards by the same number."""
    if card.suit == trump:
        return _TRUMP_KEEP_BASE + _TRUMP_KEEP_PER_STRENGTH * strength(card)
    return _PLAIN_KEEP_PER_STRENGTH * strength(card)


def bits(mask: int) -> list[int]:
    """Card ids set in a hand bitmask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Sequence[int]) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


class Tables:
    """Per-decision constants of a head-to-head smazzata: card points, who beats whom, the
    heuristic's numbers, and the searching seat's view of the end (`final`)."""

    def __init__(self, deck: Sequence[Card], trump: Suit, n_seats: int, me: int,
                 stop_at: tuple[int, int] | None, trump_card: int = -1) -> None:
        self.n = n_seats
        self.trump_card = trump_card
        self.me = side_of(me)
        self.pts = [card_points(c) for c in deck]
        st = [strength(c) for c in deck]
        is_trump = [c.suit == trump for c in deck]
        # beat[a][b]: card a, played after b, takes the trick from it (the engine's `beats`)
        self.beat = [[beats(a, b, trump) for b in deck] for a in deck]
        self.beaten_by = [mask_of([a for a in range(len(deck)) if self.beat[a][b]])
                          for b in range(len(deck))]
        self.stop_at = stop_at
        self.side = [side_of(s) for s in range(n_seats)]
        # the solver tries leads cheapest first: a liscio, a figure, a carico; briscole last
        self.k_cheap = [(p > 0) * 1000 + t * 500 + p * 20 + s
                        for p, t, s in zip(self.pts, is_trump, st)]
        # the heuristic's numbers: value kept, higher cards of the same suit, hypergeometric
        self.keep = [keep_value(c, trump) for c in deck]
        self.higher = [[a for a in range(len(deck)) if deck[a].suit == deck[b].suit
                        and self.beat[a][b]] for b in range(len(deck))]
        self.comb = [[math.comb(u, h) for h in range(4)] for u in range(len(deck) + 1)]
        self.all = (1 << len(deck)) - 1
        # the solver's move order per (hand bitmask, card led or -1), kept across deals
        self.move_order: dict[tuple[int, int], list[int]] = {}

    def final(self, mine: int, theirs: int, stopped_by: int | None) -> int:
        """The searcher's value of an ending: margin, plus or minus `WIN_BONUS`."""
        margin = mine - theirs
        if stopped_by is not None:
            return margin + (WIN_BONUS if stopped_by == self.me else -WIN_BONUS)
        if mine >= WINNING_POINTS:
            return margin + WIN_BONUS
        if mine * 2 < TOTAL_POINTS:
            return margin - WIN_BONUS
        return margin

    # --- head to head: the heuristic bot's own choice, on bitmasks --------------------------
    def heuristic_pick(self, hand: list[int], opp_hand: list[int], led: int, gone: int) -> int:
        """The card the heuristic bot plays head to head with the stock still up (its
        `_score`): following, the trick's points won or lost less the card's keep value;
        leading, the card's points weighed by the chance the opponent holds a card that takes
        it (all it has not seen: the other hand and the stock, the face-up briscola known),
        less what a higher card of the suit would gain, less the keep value."""
        keep, pts = self.keep, self.pts
        best_c, best_v = hand[0], -math.inf
        if led >= 0:
            for c in hand:
                on = pts[led] + pts[c]
                v = (on if self.beat[c][led] else -on) - keep[c]
                if v > best_v:
                    best_c, best_v = c, v
            return best_c
        tc = self.trump_card
        opp_mask = mask_of(opp_hand)
        tc_known = tc >= 0 and (opp_mask >> tc) & 1
        unseen = self.all & ~mask_of(hand) & ~gone & ~(1 << tc if tc >= 0 else 0)
        u = unseen.bit_count()
        h = len(opp_hand) - (1 if tc_known else 0)
        share = min(1.0, h / max(1, u))
        comb = self.comb
        for c in hand:
            bm = self.beaten_by[c]
            if tc_known and (bm >> tc) & 1:
                p = 1.0
            else:
                p = beaten_chance(comb, u, (bm & unseen).bit_count(), h)
            gift = sum(pts[x] for x in self.higher[c] if (unseen >> x) & 1) * share
            v = pts[c] * (1 - 2 * p) - gift - keep[c]
            if v > best_v:
                best_c, best_v = c, v
        return best_c

    def rollout2(self, hands: list[list[int]], stock: list[int], leader: int, led: int,
                 points: Sequence[int], gone: int, first: int, solve_at: int = 2) -> int:
        """Head to head: play one deal out with the heuristic bot's choice on both seats
        (`heuristic_pick`) and, once a trick leaves at most `solve_at` cards to draw, solve
        the rest exactly — as the heuristic bot itself does. `led`: the card on the table
        (played by `leader`, already in `gone`) or -1; `first`: the card the seat to move plays
        now (the candidate searched). Consumes the lists it is given."""
        beat, pts = self.beat, self.pts
        p = list(points)
        while True:
            if led < 0:
                c = first if first >= 0 else \
                    self.heuristic_pick(hands[leader], hands[1 - leader], -1, gone)
                first = -1
                hands[leader].remove(c)
                gone |= 1 << c
                led = c
                continue
            follower = 1 - leader
            c = first if first >= 0 else \
                self.heuristic_pick(hands[follower], hands[leader], led, gone)
            first = -1
            hands[follower].remove(c)
            gone |= 1 << c
            winner = follower if beat[c][led] else leader
            p[winner] += pts[c] + pts[led]
            if self.stop_at is not None and p[winner] >= self.stop_at[winner]:
                return self.final(p[self.me], p[1 - self.me], winner)
            if stock:
                hands[winner].append(stock.pop(0))
                hands[1 - winner].append(stock.pop(0))
            if not hands[winner]:
                return self.final(p[self.me], p[1 - self.me], None)
            leader, led = winner, -1
            if len(stock) <= solve_at:
                return Solver2(self, stock).value(mask_of(hands[0]), mask_of(hands[1]),
                                                  leader, -1, p[0], p[1])


class Solver2:
    """Exact head-to-head value of one deal (perfect information), from the searcher's side.

    Alpha-beta over plays, the draws following the stock order; a transposition table keyed
    by (hand masks, cards drawn, leader, card led, seat 0's points) — the other side's points
    follow from the cards gone."""

    def __init__(self, tables: Tables, stock: Sequence[int]) -> None:
        if tables.n != 2:
            raise ValueError("the exact solver is for head to head (2 seats)")
        self.t = tables
        self.stock = list(stock)
        self.tt: dict[tuple[int, int, int, int, int, int], tuple[int, int]] = {}
        self.nodes = 0

    def value(self, h0: int, h1: int, leader: int, led: int, p0: int, p1: int) -> int:
        """The searcher's value with the stock still whole: `h0`/`h1` hand bitmasks (a led
        card already out of its hand), `led` the card on the table or -1. Positions met
        before in this deal are remembered, so asking once per candidate card costs little
        more than one search."""
        return self._node(h0, h1, 0, leader, led, p0, p1, -_INF, _INF)

    def after_play(self, h0: int, h1: int, leader: int, led: int, p0: int, p1: int,
                   card: int) -> int:
        """The searcher's value if the seat to move plays `card` (in its hand) now."""
        mover = leader if led < 0 else 1 - leader
        b = 1 << card
        if mover == 0:
            h0 ^= b
        else:
            h1 ^= b
        if led < 0:
            return self._node(h0, h1, 0, leader, card, p0, p1, -_INF, _INF)
        winner = mover if self.t.beat[card][led] else leader
        gained = self.t.pts[card] + self.t.pts[led]
        if winner == 0:
            p0 += gained
        else:
            p1 += gained
        return self._after_trick(h0, h1, 0, winner, p0, p1, -_INF, _INF)

    def _node(self, h0: int, h1: int, k: int, leader: int, led: int, p0: int, p1: int,
              alpha: int, beta: int) -> int:
        self.nodes += 1
        t = self.t
        key = (h0, h1, k, leader, led, p0)
        hit = self.tt.get(key)
        if hit is not None:
            v, flag = hit
            if flag == 0 or (flag > 0 and v >= beta) or (flag < 0 and v <= alpha):
                return v
        a0 = alpha
        mover = leader if led < 0 else 1 - leader
        maximize = t.side[mover] == t.me
        hand = h0 if mover == 0 else h1
        okey = (hand, led)
        cards = self.t.move_order.get(okey)
        if cards is None:
            cards = bits(hand)
            if led >= 0:   # the cards that take the trick first: cuts come sooner
                beat = t.beat
                cards.sort(key=lambda c: (not beat[c][led], t.pts[c]))
            else:
                cards.sort(key=t.k_cheap.__getitem__)
            self.t.move_order[okey] = cards
        pts = t.pts
        best = -_INF if maximize else _INF
        for c in cards:
            b = 1 << c
            n0, n1 = (h0 ^ b, h1) if mover == 0 else (h0, h1 ^ b)
            if led < 0:
                v = self._node(n0, n1, k, leader, c, p0, p1, alpha, beta)
            else:
                winner = mover if t.beat[c][led] else leader
                gained = pts[c] + pts[led]
                q0, q1 = (p0 + gained, p1) if winner == 0 else (p0, p1 + gained)
                v = self._after_trick(n0, n1, k, winner, q0, q1, alpha, beta)
            if maximize:
                if v > best:
                    best = v
                if best > alpha:
                    alpha = best
            else:
                if v < best:
                    best = v
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        flag = 0
        if best <= a0:
            flag = -1
        elif best >= beta:
            flag = 1
        self.tt[key] = (best, flag)
        return best

    def _after_trick(self, h0: int, h1: int, k: int, winner: int, p0: int, p1: int,
                     alpha: int, beta: int) -> int:
        t = self.t
        me = t.me
        if t.stop_at is not None:
            got = p0 if winner == 0 else p1
            if got >= t.stop_at[winner]:
                return t.final(p0 if me == 0 else p1, p1 if me == 0 else p0, winner)
        stock = self.stock
        if k < len(stock):
            first, second = stock[k], stock[k + 1]
            if winner == 0:
                h0 |= 1 << first
                h1 |= 1 << second
            else:
                h1 |= 1 << first
                h0 |= 1 << second
            k += 2
        if not h0 and not h1:
            return t.final(p0 if me == 0 else p1, p1 if me == 0 else p0, None)
        return self._node(h0, h1, k, winner, -1, p0, p1, alpha, beta)


def beaten_chance(comb: list[list[int]], u: int, k: int, h: int) -> float:
    """The chance that a hand of `h` cards dealt from `u` unseen ones holds at least one of the
    `k` that beat a card (hypergeometric: one minus the chance it holds none of them); `comb`
    is `Tables.comb`, binomials made once."""
    if k == 0 or h == 0 or u == 0:
        return 0.0
    if u - k < h:
        return 1.0
    return 1.0 - comb[u - k][h] / comb[u][h]
