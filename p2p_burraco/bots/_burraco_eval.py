"""How the heuristic Burraco bot weighs a position: an estimate of its side's margin.

`Evaluator` is built once per decision from what the seat may know (its own cards and the
face-up ones, through `_seen`); it then scores the real state and any hypothetical copy the
bot made by applying one of the engine's legal actions. A card the seat did not know in the
real state (the pozzetto it would pick up, a partner's hand) stays an *unknown card* in every
copy, worth the average — so the estimate never depends on a hidden card.

The estimate, for each side, is

- **table**: the points of its melds, the burraco bonus of those of seven cards or more
  (the engine's `classify`), and for shorter melds a share of the bonus they may still
  reach — a clean one counts toward the burraco pulito, a dirty one only toward the sporco;
- **hands**: a known card is raw material early (worth a little, more if it links to others
  or extends one of the side's melds) and a liability late (its points count against the side
  when the hand ends); a wild kept in hand is worth a bonus until the very end;
- **pozzetto**: a side that has not taken it is pushed to empty a hand (each card left costs,
  up to the pozzetto penalty);
- **the race**: two cards kept before the pozzetto are worth more when one more card melds
  them (a pair, suit neighbours, a wild): that card takes the seat out al volo;
- **the first burraco**: a side with its pozzetto but no burraco pays for each card its
  longest meld lacks to be one — without it the side cannot close, however few cards it holds
  (a wild it holds counts as one card of a clean longest meld);
- **outs**: a side with its pozzetto gains with the share of unseen cards that would go on
  one of its melds — the chance that a hand of one card closes on its next draw;

and the margin is the seat's side minus the average of the others. "Late" (`urgency`) grows as
the stock runs down and when an opposing side could close (pozzetto taken and a burraco down).
Card points, bonuses and penalties all come from the preset's `RuleSet`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..games.base import Pos, Seat
from ..games.burraco import BURRACO_MIN, BurracoHand, classify
from ..games.burraco.scoring import estimate_side
from ..games.burraco.state import MeldState
from ..games.cards import Card, CardId
from ._seen import seen_ids

# --- weights (card points unless said otherwise) ----------------------------------------
MATERIAL = 2.0             # an early known card is worth this much as raw material
                           # (4 before: see need_burraco for the measure)
LINK = 3.0                 # per neighbour in a possible run / copy for a set (at most 2)
EXTENDS_OWN = 6.0          # a card that extends one of the side's melds
WILD_OPTION = 15.0         # a wild kept for the right moment is worth more than its points
LIABILITY_EARLY = 0.3      # share of a hand card's points counted against early …
LIABILITY_LATE = 1.0       # … and late
POTENTIAL_RUN = {3: 0.14, 4: 0.22, 5: 0.35, 6: 0.55}   # share of the bonus still to come
POTENTIAL_SET = {3: 0.06, 4: 0.12, 5: 0.22, 6: 0.40}
PAIR_OUT = 25.0            # two cards left before the pozzetto that one more card melds
POZZETTO_PER_CARD = 15.0   # a side short of its pozzetto: per card of its emptiest hand
CLOSE_PER_CARD = 10.0      # a side able to close soon: per card between it and the closing
THREAT_POZZETTO = 0.25     # urgency when an opposing side has its pozzetto …
THREAT_CLOSE = 0.4         # … and a burraco too (it may close any turn; 0.6 before)
NEED_BURRACO_PER_CARD = 50.0  # a side with its pozzetto but no burraco: per card its
                              # longest meld lacks to be one
NEED_BURRACO_NOPOZ = 0.0      # the same before the pozzetto (measured: worse at 8 and 15)
OWN_POZZETTO = 0.3         # urgency once the side has its own pozzetto (closing is next)
OUTS = 200.0               # a side with its pozzetto: times the share of unseen cards that
                           # would go on one of its melds (see outs)


@dataclass(frozen=True)
class MeldFacts:
    """A meld as the evaluation reads it (all of it is face up). Frozen: one decision's
    copies share these (`Evaluator.melds`)."""

    team: int
    kind: str
    cards: list[Card]
    suit: object
    start: int
    end: int
    wild: bool
    wild_slot: int | None
    length: int
    cls: str | None        # the engine's classification: pulito / semipuro / sporco / None
    points: float          # the cards' points (FIBUR-28), summed once


def _wild(card: Card) -> bool:
    return card.rank in (0, 2)


_Cache = dict[tuple[object, ...], frozenset[Card]]
_DECKS: dict[tuple[int, object], tuple[object, float, dict[Card, int], _Cache, _Cache]] = {}
_UNIONS_MAX = 50_000       # sets of melds remembered per deck (`Evaluator._extended`)


def _deck_facts(state: BurracoHand) -> tuple[float, dict[Card, int], _Cache, _Cache]:
    """The deck's average card points, its copies of each face, and the caches of which
    faces extend a meld (`Evaluator._extenders`, `_extended`): the same for every decision
    under one rule set, so worked out once (they were a fifth of a decision's time). Keyed
    by the rule set's identity (it holds a dict, so it has no hash); the entry keeps the
    rule set alive, so the identity cannot be reused while it is cached."""
    rules = state.rules
    key = (id(rules), state.deck.kind)
    facts = _DECKS.get(key)
    if facts is None or facts[0] is not rules:
        if len(_DECKS) > 64:
            _DECKS.clear()
        faces = state.deck.cards
        points = [rules.card_points(c) for c in faces]
        counts: dict[Card, int] = {}
        for c in faces:
            counts[c] = counts.get(c, 0) + 1
        facts = _DECKS[key] = (rules, sum(points) / len(points), counts, {}, {})
    if len(facts[4]) > _UNIONS_MAX:
        facts[4].clear()
    return facts[1], facts[2], facts[3], facts[4]


class Evaluator:
    """A side-margin estimate for one seat, fixed to what that seat knew at decision time."""

    def __init__(self, state: BurracoHand, seat: Seat) -> None:
        self.seat = seat
        self.rules = state.rules
        self.n = state.n_seats
        self.known: dict[Pos, CardId] = seen_ids(state, seat)
        self.faces = faces = state.deck.cards
        # which faces extend a meld is the same for every decision with this deck: the
        # caches of `_extenders` and `_extended` are the deck's, not the decision's
        self.avg_points, counts, self._accepts, self._union = _deck_facts(state)
        self.start_stock = max(1, len(faces) - state.schedule.stock_start)
        unseen = dict(counts)
        for cid in set(self.known.values()):
            c = faces[cid]
            left = unseen[c] - 1
            if left:
                unseen[c] = left
            else:
                del unseen[c]
        self.unseen = unseen
        self.n_unseen = max(1, sum(unseen.values()))
        self.unseen_wilds = sum(n for c, n in unseen.items() if _wild(c))
        self._facts: dict[tuple[object, ...], MeldFacts] = {}
        self._teams = sorted(set(state.team_of))
        self._seats = {t: [s for s in range(self.n) if state.team_of[s] == t]
                       for t in self._teams}
        self._sides: dict[tuple[object, ...], float] = {}
        self._outs: dict[tuple[object, ...], float] = {}
        self.distinct = list(counts)

    # --- reading ------------------------------------------------------------------------
    def card(self, pos: Pos) -> Card | None:
        cid = self.known.get(pos)
        return None if cid is None else self.faces[cid]

    def melds(self, state: BurracoHand) -> list[MeldFacts]:
        """The table's melds as the estimate reads them. A decision scores many copies that
        share all melds but one, so each meld's facts are worked out once per decision, keyed
        by what fixes them: its side, kind, suit, placement and cards (positions, whose faces
        this seat knows: melds are face up)."""
        out = []
        facts = self._facts
        for m in state.melds.values():
            key = (m.team, m.kind, m.suit, m.start, m.wild, *m.positions)
            f = facts.get(key)
            if f is None:
                f = self._meld_facts(m)
                if f is None:  # cannot happen: melds are face up
                    continue
                facts[key] = f
            out.append(f)
        return out

    def _meld_facts(self, m: MeldState) -> MeldFacts | None:
        cards = [self.card(p) for p in m.positions]
        if any(c is None for c in cards):
            return None
        faces = [c for c in cards if c is not None]
        arr = m.arrangement()
        cls = classify(faces, arr, self.rules)
        points = float(sum(self.rules.card_points(c) for c in faces))
        return MeldFacts(m.team, m.kind, faces, m.suit, arr.start, arr.end, arr.wild is not None,
                         arr.wild_slot(), len(faces), cls, points)

    # --- the estimate -------------------------------------------------------------------
    def urgency(self, state: BurracoHand, team: int, melds: Sequence[MeldFacts]) -> float:
        """0 early … 1 at the end: how much hand cards are a liability rather than material."""
        time = 1.0 - min(1.0, state.stock_count / self.start_stock)
        threat = OWN_POZZETTO if team in state.team_pozzetto else 0.0
        for other in {t for t in state.team_of if t != team}:
            if other in state.team_pozzetto:
                has_b = any(m.team == other and m.length >= BURRACO_MIN for m in melds)
                threat = max(threat, THREAT_CLOSE if has_b else THREAT_POZZETTO)
        return max(time, threat)

    def margin(self, state: BurracoHand) -> float:
        """The seat's side minus the average opposing side (see the module doc)."""
        melds = self.melds(state)
        my_team = state.team_of[self.seat]
        teams = sorted(set(state.team_of))
        others = [t for t in teams if t != my_team]
        if state.is_over:
            mine = self._final(state, my_team)
            theirs = [self._final(state, t) for t in others]
            return mine - (sum(theirs) / len(theirs) if theirs else 0.0)
        mine = self._side(state, my_team, melds)
        theirs = [self._side(state, t, melds) for t in others]
        return mine - (sum(theirs) / len(theirs) if theirs else 0.0)

    def _side(self, state: BurracoHand, team: int, melds: Sequence[MeldFacts]) -> float:
        """One side's estimate, memoized for the decision: the copies a decision scores
        differ in one side's hand and melds, so the other side's value is looked up, not
        worked out again. The key holds everything the estimate reads of the state."""
        own = [m for m in melds if m.team == team]
        seats = self._seats[team]
        pozzetti = state.team_pozzetto
        key = (team, state.phase, state.stock_count, tuple(pozzetti),
               tuple(map(id, own)),
               tuple(any(m.team == t and m.length >= BURRACO_MIN for m in melds)
                     for t in self._teams if t != team),
               tuple(tuple(state.hands[s]) for s in seats),
               tuple((pz.taken_by, pz.in_hand, len(pz.positions)) for pz in state.pozzetti))
        value = self._sides.get(key)
        if value is None:
            value = self._sides[key] = self._side_value(state, team, melds, own, seats)
        return value

    def _side_value(self, state: BurracoHand, team: int, melds: Sequence[MeldFacts],
                    own: list[MeldFacts], seats: list[Seat]) -> float:
        k = self.urgency(state, team, melds)
        value = sum(self.meld_value(m, k) for m in own)
        wilds = 0
        for s in seats:
            cards: list[Card] = []
            unknown = 0
            for p in state.hands[s]:
                c = self.card(p) if s == self.seat or self.seat in state.audience(p) else None
                if c is None:
                    unknown += 1
                else:
                    cards.append(c)
            value += self.hand_value(cards, unknown, own, k)
            wilds += sum(1 for c in cards if _wild(c))
            if len(cards) == 2 and not unknown and team not in state.team_pozzetto:
                value += self.pair_out(cards[0], cards[1])
        # a pozzetto taken by a final discard waits face down: count it as unknown hand cards
        for pz in state.pozzetti:
            if pz.taken_by in seats and not pz.in_hand:
                value += self.hand_value([], len(pz.positions), own, k)
        emptiest = min(len(state.hands[s]) for s in seats)
        if team not in state.team_pozzetto:
            value -= min(float(self.rules.no_pozzetto_penalty), POZZETTO_PER_CARD * emptiest)
        elif any(m.cls is not None for m in own):
            value -= min(float(self.rules.closing_bonus), CLOSE_PER_CARD * emptiest)
        if not any(m.cls is not None for m in own):
            value -= self.need_burraco(team in state.team_pozzetto, own, wilds)
        if team in state.team_pozzetto:
            value += OUTS * self.outs(own)
        return value

    def outs(self, own: Sequence[MeldFacts]) -> float:
        """The share of unseen cards that would go on one of the side's melds (a natural that
        extends one, any wild while a meld holds none): with its pozzetto taken, a seat holding
        one card closes when it draws one (FIBUR-22), and before the burraco such a card is what
        lengthens the melds. Measured against greedy, from one card our draws closed 48 % of
        turns (outs 0.45: 3.4 sets of 7.4 melds), greedy's 63 % (outs 0.54: 4.7 sets of 8.2)."""
        keys = tuple(_reach(m) for m in own)
        share = self._outs.get(keys)
        if share is None:
            faces: set[Card] = set()
            for m, key in zip(own, keys):
                faces |= self._extenders(m, key)
            n = sum(self.unseen.get(c, 0) for c in faces)
            if any(not m.wild for m in own):
                n += self.unseen_wilds
            share = self._outs[keys] = n / self.n_unseen
        return share

    def _extenders(self, m: MeldFacts, key: tuple[object, ...]) -> frozenset[Card]:
        """The natural faces of the deck that would go on `m` (`extends`), worked out once
        for each meld's reach."""
        acc = self._accepts.get(key)
        if acc is None:
            acc = self._accepts[key] = frozenset(
                c for c in self.distinct if not _wild(c) and extends(c, m))
        return acc

    def _extended(self, own: Sequence[MeldFacts]) -> frozenset[Card]:
        """The natural faces that would go on one of `own` (a hand card that extends one of
        the side's melds), once for each set of melds."""
        keys = tuple(_reach(m) for m in own)
        acc = self._union.get(keys)
        if acc is None:
            acc = frozenset().union(*(self._extenders(m, k) for m, k in zip(own, keys)))
            self._union[keys] = acc
        return acc

    @staticmethod
    def need_burraco(has_pozzetto: bool, own: Sequence[MeldFacts], wilds: int = 0) -> float:
        """A side with its pozzetto and no burraco cannot close (FIBUR-22) however few cards
        it holds: each card its longest meld lacks to be a burraco (FIBUR-26) costs, so the
        cards go on one meld until it is seven long rather than spread over many short ones
        (hands lost with the pozzetto taken but no burraco down had 8.5 melds, the longest
        5.7 cards). Measured vs greedy, seeds 0-7 x 400: +1.9 points at 30, every seed up;
        after TAKE_HURDLE, 50 with MATERIAL 2 (was 4): 70.0 -> 71.3 % (50 alone 70.5, MATERIAL
        2 alone 70.5)."""
        per = NEED_BURRACO_PER_CARD if has_pozzetto else NEED_BURRACO_NOPOZ
        longest = max((m.length for m in own), default=0)
        if wilds and any(m.length == longest and not m.wild for m in own):
            longest += 1  # a wild the side holds can lengthen a clean longest meld (FIBUR-12)
        return per * max(0, BURRACO_MIN - longest)

    def pair_out(self, a: Card, b: Card) -> float:
        """Two cards kept before the pozzetto: a third card that melds them (another copy,
        a neighbour in the suit, any wild) takes the seat to its pozzetto al volo next turn
        (FIBUR-20); two loose cards need two draws that fit. Measured: the heuristic got out
        from two cards 7 % of turns against greedy's 12 %, and this term is worth +1.5
        points against greedy over 4 seeds of 400 paired hands, every seed up."""
        if _wild(a) or _wild(b) or self.links(a, [b]) > 0:
            return PAIR_OUT
        return 0.0

    def meld_value(self, m: MeldFacts, urgency: float) -> float:
        pts = m.points
        if m.cls is not None:
            return pts + self._bonus(m)
        table = POTENTIAL_RUN if m.kind == "run" else POTENTIAL_SET
        share = table.get(m.length, 0.0) * (1.0 - 0.8 * urgency)
        target = self.rules.dirty_bonus if m.wild else self.rules.clean_bonus
        return pts + share * target

    def _bonus(self, m: MeldFacts) -> float:
        """The preset's bonus for a burraco of the engine's class."""
        if m.cls == "pulito":
            return float(self.rules.clean_bonus)
        if m.cls == "semipuro" and self.rules.semipuro_bonus is not None:
            return float(self.rules.semipuro_bonus)
        return float(self.rules.dirty_bonus) if m.cls else 0.0

    def hand_value(self, cards: list[Card], unknown: int, own: Sequence[MeldFacts],
                   urgency: float) -> float:
        """Known cards by their links; unknown ones at the average."""
        lia = LIABILITY_EARLY + (LIABILITY_LATE - LIABILITY_EARLY) * urgency
        material = MATERIAL * (1.0 - urgency)
        value = unknown * (material - lia * self.avg_points)
        naturals = [c for c in cards if not _wild(c)]
        extended = self._extended(own) if naturals else frozenset()
        for c in cards:
            pts = self.rules.card_points(c)
            if _wild(c):
                # early: its points (it will go down) plus the choice of when; late: a debt
                value += pts * (1.0 - 2.0 * urgency) + WILD_OPTION * (1.0 - urgency)
                continue
            if c in extended:
                value += EXTENDS_OWN + material - lia * pts * 0.5
                continue
            value += material + LINK * min(2.0, self.links(c, naturals)) * (1.0 - 0.5 * urgency) \
                - lia * pts
        return value

    def links(self, c: Card, others: Iterable[Card]) -> float:
        """Neighbours of a card in a hand: same suit one or two ranks away, same rank."""
        n = 0.0
        ranks = _slots(c)
        seen_run: set[int] = set()
        for o in others:
            if o is c:
                continue
            if o.suit is c.suit and o.rank != c.rank:
                for a in ranks:
                    for b in _slots(o):
                        d = abs(a - b)
                        if d in (1, 2) and b not in seen_run:
                            seen_run.add(b)
                            n += 1.0 if d == 1 else 0.5
            elif o.rank == c.rank and self.rules.sets_allowed:
                n += 0.7
        return n

    def _final(self, state: BurracoHand, team: int) -> float:
        """A finished hand, scored by the engine's rules with what this seat knows (a card
        it cannot see counts the deck's average)."""
        seats = tuple(s for s in range(self.n) if state.team_of[s] == team)
        return estimate_side(state, team, seats, self.card, self.avg_points)

def _reach(m: MeldFacts) -> tuple[object, ...]:
    """What fixes which naturals extend a meld (`extends`), and whether it holds a wild
    (`outs`: a set's wild has no slot, so `wild_slot` alone does not tell)."""
    return (m.kind, m.suit, m.start, m.end, m.wild_slot, m.wild)


def _slots(c: Card) -> tuple[int, ...]:
    return (1, 14) if c.rank == 1 else (c.rank,)


def extends(c: Card, m: MeldFacts) -> bool:
    """Would this natural card plausibly go on this meld (an end of a run of its suit, the
    slot its wild holds, or a set of its rank)? An estimate for weighing a hand — whether the
    engine accepts it is asked separately when the bot actually attaches."""
    if _wild(c) and not (m.kind == "run" and c.suit is m.suit):
        return False
    if m.kind == "set":
        return c.rank == m.start
    if c.suit is not m.suit:
        return False
    for s in _slots(c):
        if s in (m.start - 1, m.end + 1) or (m.wild_slot is not None and s == m.wild_slot):
            return True
    return False
