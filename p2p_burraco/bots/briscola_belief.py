"""What a head-to-head opponent probably holds, read from how it has played so far.

Every card played is public, so the seat can replay the smazzata from its own side and ask,
at each of the opponent's plays, "how likely was that card from this hand?" under a model of
a sensible player. A hand that would have taken a rich trick with a low briscola, yet let it
go, is made less likely; a hand whose cheapest lead was the card actually led, more likely.
Bayes' rule over the hands then gives the deals the expert samples.

The model of a sensible player is the heuristic bot's rule of thumb (`_briscola_fast`'s
`Tables.heuristic_pick` numbers, seen from the opponent's seat: what *it* knew then), turned
into chances by a softmax (`temperature`) and mixed with a uniform slip (`slip`): an opponent
who plays otherwise than the model only makes the reading flatter, never impossible. Plays
made with at most `MODELLED_STOCK_ABOVE` cards to draw are not read (a player then searches
the ending, not the rule of thumb).

The filter runs forward over the smazzata's events as the seat saw them (all through
`_seen`): the opponent's plays (weight by the model, keep only hands holding the card), the
seat's own draws (the card was in the stock, so not in the other hand), the opponent's draws
(one card from the stock, uniform over what the seat could not place then; the face-up
briscola when it is the card drawn). Positions of the deck, not cards, say who drew what
(`DealSchedule.draw_order`, the seat's own positions): no rule is re-derived beyond the draw
pairs of `_briscola_fast` [BRISCOLA-16].
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..games.base import Seat
from ..games.briscola import BriscolaHand
from ._briscola_fast import Tables, beaten_chance, bits, mask_of
from ._seen import seen_id

MODELLED_STOCK_ABOVE = 2     # the heuristic searches exactly from 2 cards to draw on
TEMPERATURE = 0.0            # softmax temperature in card points (0: the model's best card)
SLIPS = (0.1, 1.0)           # the models read side by side: chance of any card instead


@dataclass
class HandBelief:
    """Posterior over the other seat's hand: `weights` maps hand bitmasks (cards the seat
    cannot place plus any it knows there, e.g. the drawn briscola) to weights summing to 1;
    with `pending` one more card, drawn since, is uniform over `candidates` not in the mask."""

    weights: dict[int, float]
    pending: bool
    candidates: int

    def __post_init__(self) -> None:
        self._keys = list(self.weights)
        self._cum = list(itertools.accumulate(self.weights.values()))

    def sample(self, rng: random.Random) -> int:
        """One hand (bitmask) drawn from the posterior."""
        i = bisect.bisect_right(self._cum, rng.random() * self._cum[-1])
        hand = self._keys[min(i, len(self._keys) - 1)]
        if self.pending:
            free = bits(self.candidates & ~hand)
            hand |= 1 << free[int(rng.random() * len(free))]
        return hand

    def weight(self, hand: int) -> float:
        """Posterior weight of one whole hand (bitmask)."""
        if not self.pending:
            return self.weights.get(hand, 0.0)
        out = 0.0
        for x in bits(hand & self.candidates):
            rest = hand ^ (1 << x)
            w = self.weights.get(rest)
            if w:
                out += w / max(1, (self.candidates & ~rest).bit_count())
        return out


class OpponentReader:
    """Builds the `HandBelief` of the seat opposite, head to head (see the module doc).

    Several models of the opponent are read side by side, one per `slips` (the chance it
    plays any card rather than the rule of thumb's), each weighed by how well it foretold
    the plays seen (its evidence): against a player who follows the rule of thumb the sharp
    model soon takes over, against one who does not the reading flattens towards "any card
    of any hand" — learned from this smazzata's plays, not assumed."""

    def __init__(self, temperature: float = TEMPERATURE,
                 slips: tuple[float, ...] = SLIPS) -> None:
        self.temperature = temperature
        self.slips = slips
        self.model_weights: list[float] = []     # the last reading's P(model | plays)
        # the reading after the last finished trick of the last call: each call only reads
        # what happened since (the same numbers as reading it all again)
        self._saved: _Reading | None = None

    def belief(self, state: BriscolaHand, seat: Seat, tables: Tables) -> HandBelief:
        """The posterior over the other hand now, from what `seat` has seen."""
        if state.n_seats != 2:
            raise ValueError("the opponent reader is for head to head (2 seats)")
        sched = state.schedule

        def card(pos: int) -> int:
            cid = seen_id(state, seat, pos)
            if cid is None:
                raise RuntimeError(f"a card this seat has seen (position {pos}) is not known")
            return cid

        mine_pos = set(state.hand(seat))
        for trick in state.tricks:
            mine_pos.update(p for s, p in trick.plays if s == seat)
        mine_pos.update(p for s, p in state.current_trick() if s == seat)
        tc_bit = 1 << tables.trump_card
        first = tc_bit | sum(1 << card(p) for p in sched.hands[seat])
        key = (seat, state.dealer, first, tables.trump_card)
        tricks = [tuple((s, card(p)) for s, p in t.plays) for t in state.tricks]
        r = self._saved
        if r is None or r.key != key or tuple(tricks[:len(r.tricks)]) != r.tricks:
            r = self._start(key, tables.all & ~first, first, len(sched.hands[seat]))
        # the seat's own draws, by round: the positions it received (drawn in deck order)
        draw_pos = sched.draw_order
        for k in range(len(r.tricks), len(tricks)):
            r = self._trick(r, tables, seat, tricks[k], len(draw_pos))
            if 2 * k < len(draw_pos):
                ours = [p for p in draw_pos[2 * k:2 * k + 2] if p in mine_pos]
                theirs = [p for p in draw_pos[2 * k:2 * k + 2] if p not in mine_pos]
                r = self._draws(r, card(ours[0]), theirs[0] == sched.trump)
            r.tricks = tuple(tricks[:k + 1])
        self._saved = r
        now = tuple((s, card(p)) for s, p in state.current_trick())
        if now:
            r = self._trick(r, tables, seat, now, len(draw_pos))
        top = max(r.log_ev)
        post = [math.exp(e - top) for e in r.log_ev]
        norm = sum(post)
        self.model_weights = [p / norm for p in post]
        mixed: dict[int, float] = {}
        for share, weights in zip(self.model_weights, r.weights):
            for h, w in weights.items():
                mixed[h] = mixed.get(h, 0.0) + share * w
        return HandBelief(mixed, r.pending, r.pool & ~r.known)

    def _start(self, key: tuple[int, ...], pool: int, known: int, my_size: int) -> _Reading:
        """Before any play: any three of the cards the seat cannot place (`pool`), alike."""
        start: dict[int, float] = {}
        pool_cards = bits(pool)
        share = 1.0 / math.comb(len(pool_cards), 3)
        for i, a in enumerate(pool_cards):
            for j in range(i + 1, len(pool_cards)):
                ab = (1 << a) | (1 << pool_cards[j])
                for c in pool_cards[j + 1:]:
                    start[ab | (1 << c)] = share
        n = len(self.slips)
        return _Reading(key, (), [start] * n, [0.0] * n, False, pool, known, 0, my_size)

    def _trick(self, r: _Reading, t: Tables, seat: Seat, plays: tuple[tuple[int, int], ...],
               deck_stock: int) -> _Reading:
        """The plays of one trick (whole or under way): the opponent's are read."""
        r = r.copy()
        stock_now = max(0, deck_stock - 2 * len(r.tricks))
        led = -1
        for s, c in plays:
            if s != seat:
                values = self._values(t, r.gone, led, r.my_size, stock_now)
                choose = None if values is None else _chooser(values, c, self.temperature)
                free = bits(r.pool & ~r.known)
                for m, slip in enumerate(self.slips):
                    model = None if choose is None else _slipping(choose, slip)
                    r.settle(m, _after_play(r.weights[m], r.pending, free, c, model))
                r.pending = False
            else:
                r.my_size -= 1
            r.known |= 1 << c
            r.gone |= 1 << c
            if led < 0:
                led = c
        return r

    @staticmethod
    def _draws(r: _Reading, mine: int, theirs_is_trump: bool) -> _Reading:
        """The draws after a trick: the seat's own card (it was in the stock, so not in the
        other hand), then the other's — the face-up briscola or one card unknown."""
        r = r.copy()
        for m in range(len(r.weights)):
            r.settle(m, {h: w for h, w in r.weights[m].items() if not (h >> mine) & 1})
        r.known |= 1 << mine
        r.my_size += 1
        tc_bit = 1 << r.key[3]
        for m in range(len(r.weights)):
            w = _expand(r.weights[m], r.pending, r.pool & ~r.known)
            r.weights[m] = {h | tc_bit: v for h, v in w.items()} if theirs_is_trump else w
        r.pending = not theirs_is_trump
        return r

    # --- the model of a sensible player ---------------------------------------------------
    @staticmethod
    def _values(t: Tables, gone: int, led: int, other_size: int, stock: int
                ) -> Callable[[int, list[int]], list[float]] | None:
        """The rule of thumb's numbers for each card of a hand at the opponent's play now,
        or None when that play is not read. (With more than two cards to draw the face-up
        briscola is still under the stock, so the opponent knows no card of this seat's.)"""
        if stock <= MODELLED_STOCK_ABOVE:
            return None
        return _lead_values(t, gone, other_size) if led < 0 else _follow_values(t, led)


@dataclass
class _Reading:
    """The filter between two events: one posterior per model and its log evidence, the
    pending draw, and what the seat had placed by then (`known`, `gone`: played)."""

    key: tuple[int, ...]
    tricks: tuple[tuple[tuple[int, int], ...], ...]
    weights: list[dict[int, float]]
    log_ev: list[float]
    pending: bool
    pool: int
    known: int
    gone: int
    my_size: int

    def copy(self) -> _Reading:
        return replace(self, weights=list(self.weights), log_ev=list(self.log_ev))

    def settle(self, m: int, weights: dict[int, float]) -> None:
        self.weights[m], total = _normalised(weights)
        self.log_ev[m] += math.log(total)


def _chooser(values: Callable[[int, list[int]], list[float]], c: int, temp: float
             ) -> Callable[[int], float]:
    """P(the rule of thumb plays `c` | hand): a softmax at `temp` over its numbers, or its
    best card at 0 (ties shared). Remembered per hand: every model asks the same."""
    memo: dict[int, float] = {}

    def prob(hand: int) -> float:
        p = memo.get(hand)
        if p is not None:
            return p
        cards = bits(hand)
        vals = values(hand, cards)
        i = cards.index(c)
        top = max(vals)
        if temp <= 0:
            p = (vals[i] == top) / sum(1 for v in vals if v == top)
        else:
            es = [math.exp((v - top) / temp) for v in vals]
            p = es[i] / sum(es)
        memo[hand] = p
        return p

    return prob


def _slipping(choose: Callable[[int], float], slip: float) -> Callable[[int], float]:
    """P(the card played | hand) for a player who follows `choose` but for a uniform slip."""
    if slip >= 1.0:
        return lambda hand: 1.0 / hand.bit_count()
    return lambda hand: (1 - slip) * choose(hand) + slip / hand.bit_count()


def _follow_values(t: Tables, led: int) -> Callable[[int, list[int]], list[float]]:
    """The heuristic's following numbers: the trick won or lost, less the card kept."""
    beat, pts, keep = t.beat, t.pts, t.keep

    def values(hand: int, cards: list[int]) -> list[float]:
        out = []
        for c in cards:
            on = pts[led] + pts[c]
            out.append((on if beat[c][led] else -on) - keep[c])
        return out

    return values


def _lead_values(t: Tables, gone: int, other_size: int
                 ) -> Callable[[int, list[int]], list[float]]:
    """The heuristic's leading numbers (`Tables.heuristic_pick`) from the opponent's seat:
    what it had not seen is everything but its hand, the cards gone and the briscola. The
    counts over "not seen" are made once over `base` and corrected by the hand's cards."""
    tc = t.trump_card
    base = t.all & ~gone & ~(1 << tc if tc >= 0 else 0)
    h = other_size
    pts, keep, comb, beaten_by = t.pts, t.keep, t.comb, t.beaten_by
    n_base = base.bit_count()
    higher = [mask_of(t.higher[c]) for c in range(len(pts))]
    k0 = [(beaten_by[c] & base).bit_count() for c in range(len(pts))]
    g0 = [sum(pts[x] for x in t.higher[c] if (base >> x) & 1) for c in range(len(pts))]

    def values(hand: int, cards: list[int]) -> list[float]:
        u = n_base - len(cards)
        share = min(1.0, h / max(1, u))
        out = []
        for c in cards:
            p = beaten_chance(comb, u, k0[c] - (beaten_by[c] & hand).bit_count(), h)
            gift = g0[c]
            for x in cards:
                if (higher[c] >> x) & 1:
                    gift -= pts[x]
            out.append(pts[c] * (1 - 2 * p) - gift * share - keep[c])
        return out

    return values


def _after_play(weights: dict[int, float], pending: bool, free: list[int], c: int,
                model: Callable[[int], float] | None) -> dict[int, float]:
    """The opponent played `c`: keep the hands that held it, weighed by `model` (P(c |
    hand); None: not read), less `c`. With a pending draw the hand is each state plus one
    card of `free`."""
    out: dict[int, float] = {}
    cb = 1 << c
    like = model if model is not None else _one
    free_mask = sum(1 << x for x in free)

    for h, w in weights.items():
        if not pending:
            if h & cb:
                rest = h ^ cb
                out[rest] = out.get(rest, 0.0) + w * like(h)
            continue
        if h & cb:
            rest = h ^ cb
            for x in free:
                xb = 1 << x
                if h & xb:
                    continue
                nxt = rest | xb
                out[nxt] = out.get(nxt, 0.0) + w * like(h | xb)
        elif free_mask & cb:
            out[h] = out.get(h, 0.0) + w * like(h | cb)
    return out


def _one(hand: int) -> float:
    return 1.0


def _expand(weights: dict[int, float], pending: bool, free: int) -> dict[int, float]:
    """Make a pending uniform draw explicit (before another card comes in)."""
    if not pending:
        return weights
    out: dict[int, float] = {}
    for h, w in weights.items():
        xs = bits(free & ~h)
        share = w / max(1, len(xs))
        for x in xs:
            nxt = h | (1 << x)
            out[nxt] = out.get(nxt, 0.0) + share
    return out


def _normalised(weights: dict[int, float]) -> tuple[dict[int, float], float]:
    """The weights scaled to sum to 1, and what they summed to."""
    total = sum(weights.values())
    if total <= 0:
        raise RuntimeError("no hand of the opponent fits what has been seen")
    return {h: w / total for h, w in weights.items()}, total
