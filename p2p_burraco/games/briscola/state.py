"""One smazzata of Briscola as one node knows it: positions, knowledge, tricks, draws.

Seats and direction. The seed plays counter-clockwise, each player after the one at their
left; in our numbering seat n+1 is the seat at seat n's right, so "counter-clockwise" is
simply seat+1 [BRISCOLA-6]. The first to receive a card and to lead is the seat after the
dealer [BRISCOLA-9, BRISCOLA-11]. Pairs are seats 0+2 and 1+3; side = seat % 2 in both
head-to-head and pairs play [BRISCOLA-5].

The deal is a public schedule of deck positions (see `deal_schedule`); the engine never
shuffles. Drawing after a trick is an automatic state change: positions move from the stock
to hands and the drawer's replica learns the card through the fair-deal layer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from ..base import (
    Action,
    ActionSyntaxError,
    CardRef,
    HandResult,
    Knowledge,
    Pos,
    RuleViolation,
    ScoreLine,
    Seat,
    WireValue,
)
from ..cards import ACE, JACK, KING, QUEEN, Card, CardId, Deck, NotationError, Suit, make_deck
from .faces import (
    TOTAL_POINTS,
    WINNING_POINTS,
    card_name,
    card_points,
    draw_order,
    points_of,
    trick_winner,
)
from .rules import RuleSet

HAND_SIZE = 3
ABANDON_GIFT_CAP = 20  # points still in play handed to the opponents at most [BRISCOLA-24]


@dataclass(frozen=True)
class DealSchedule:
    """Where every deck position goes, fixed by the seat count and the dealer alone.

    Positions 0..3n-1 are dealt one at a time from the dealer's right: position i goes to
    seat (dealer + 1 + i) mod n [BRISCOLA-9]. Position 3n is the briscola, face up under the
    stock [BRISCOLA-10]; positions 3n+1..39 are the stock, drawn in increasing order, and the
    briscola is drawn after all of them.
    """

    n_seats: int
    dealer: Seat
    hands: tuple[tuple[Pos, ...], ...]
    trump: Pos
    stock: tuple[Pos, ...]

    @property
    def draw_order(self) -> tuple[Pos, ...]:
        return self.stock + (self.trump,)


def deal_schedule(n_seats: int, dealer: Seat, deck_size: int = 40) -> DealSchedule:
    """The public deal of a smazzata [BRISCOLA-9, BRISCOLA-10]."""
    if n_seats not in (2, 4):
        raise ValueError(f"Briscola is played by 2 or 4, not {n_seats} [BRISCOLA-5]")
    if not 0 <= dealer < n_seats:
        raise ValueError(f"no seat {dealer} at a table of {n_seats}")
    hands: list[list[Pos]] = [[] for _ in range(n_seats)]
    for i in range(HAND_SIZE * n_seats):
        hands[(dealer + 1 + i) % n_seats].append(i)
    trump = HAND_SIZE * n_seats
    return DealSchedule(n_seats, dealer, tuple(tuple(h) for h in hands), trump,
                        tuple(range(trump + 1, deck_size)))


def stacked_order(deck: Deck, schedule: DealSchedule, hands: Mapping[Seat, str],
                  trump: str | None = None, stock: str = "") -> list[CardId]:
    """A card order (position → card id) that puts chosen cards in chosen places.

    For worked examples and tests: `hands[seat]` lists a seat's cards in the order it
    receives them, `trump` the face-up card, `stock` the first cards to draw; every other
    card fills the remaining positions in deck order."""
    order: dict[Pos, CardId] = {}

    def put(pos: Pos, text: str) -> None:
        cid = deck.copies(deck.parse(text))[0]
        if cid in order.values():
            raise ValueError(f"{text} is placed twice")
        order[pos] = cid

    for seat, text in hands.items():
        cards = text.split()
        if len(cards) > len(schedule.hands[seat]):
            raise ValueError(f"seat {seat} gets {len(schedule.hands[seat])} cards, "
                             f"not {len(cards)}")
        for pos, t in zip(schedule.hands[seat], cards):
            put(pos, t)
    if trump is not None:
        put(schedule.trump, trump)
    for pos, t in zip(schedule.stock, stock.split()):
        put(pos, t)
    rest = iter(c for c in range(len(deck)) if c not in set(order.values()))
    return [order[p] if p in order else next(rest) for p in range(len(deck))]


def side_of(seat: Seat) -> int:
    """0 for seats 0 and 2, 1 for seats 1 and 3 [BRISCOLA-5]."""
    return seat % 2


def sides_of(n_seats: int) -> tuple[tuple[Seat, ...], ...]:
    return ((0,), (1,)) if n_seats == 2 else ((0, 2), (1, 3))


@dataclass(frozen=True)
class Play(Action):
    """Play one card of your hand face up: the position and the card claimed to be there.

    `text` is the card's notation, kept for `str()` and never sent on the wire (the deck
    that reads the id gives it back).
    """

    kind: ClassVar[str] = "play"
    pos: Pos
    card: CardId
    text: str = field(default="", compare=False)

    def to_wire(self) -> dict[str, WireValue]:
        return {"kind": self.kind, "pos": self.pos, "card": self.card}

    def shown(self) -> tuple[CardRef, ...]:
        return ((self.pos, self.card),)

    def __str__(self) -> str:
        return f"play {self.text or '#' + str(self.card)}"


@dataclass(frozen=True)
class Trick:
    """A finished trick: who led, the cards in play order, who took it."""

    leader: Seat
    plays: tuple[tuple[Seat, Pos], ...]
    winner: Seat


_RANK_LABELS = ((ACE, "assi"), (3, "tre"), (KING, "re"), (QUEEN, "cavalli"), (JACK, "fanti"))


class BriscolaHand:
    """One smazzata. Satisfies `games.base.HandState`.

    `stop_at` gives, per side, the hand points at which taking a trick ends the smazzata
    at once ("vinco subito", BRISCOLA-21); the match sets it (61, or what a side still
    needs for the points target). None plays every trick.
    """

    game: ClassVar[str] = "briscola"

    def __init__(self, rules: RuleSet, n_seats: int, dealer: Seat,
                 stop_at: tuple[int, int] | None = None) -> None:
        if n_seats not in rules.seat_counts:
            raise ValueError(f"rule set {rules.name!r} is played by "
                             f"{' or '.join(map(str, rules.seat_counts))}, not {n_seats} "
                             f"[{'BRISCOLA-29' if rules.carte_scoperte else 'BRISCOLA-5'}]")
        self.rules = rules
        self.n_seats = n_seats
        self.dealer = dealer
        self.deck: Deck = make_deck(rules.deck)
        self.schedule = deal_schedule(n_seats, dealer, len(self.deck))
        if stop_at is None and rules.vinco_subito:
            stop_at = (WINNING_POINTS, WINNING_POINTS)
        self.stop_at = stop_at if rules.vinco_subito else None
        self._hands: list[list[Pos]] = [list(h) for h in self.schedule.hands]
        self._stock: list[Pos] = list(self.schedule.stock)
        self._trump_drawn = False
        self._trick: list[tuple[Seat, Pos]] = []
        self._taken: list[list[Pos]] = [[], []]
        self._tricks: list[Trick] = []
        self._leader: Seat = (dealer + 1) % n_seats  # [BRISCOLA-11]
        self._turn: Seat | None = self._leader
        self._known = Knowledge(len(self.deck))
        self._end: str | None = None  # "tricks" | "vinco subito" | "abandon"
        self._abandoned_by: Seat | None = None

    # --- knowledge -----------------------------------------------------------------------
    def card_at(self, pos: Pos) -> CardId | None:
        return self._known.get(pos)

    def learn(self, pos: Pos, card: CardId) -> None:
        self._known.learn(pos, card)

    def audience(self, pos: Pos) -> frozenset[Seat]:
        """Who may know the card at `pos` now.

        Everyone: the briscola (face up from the deal, BRISCOLA-10), played cards, and every
        card once the hand is over. The owner: a hand card — plus the partner under carte
        scoperte (BRISCOLA-29), plus everyone in the head-to-head last hand under carte viste
        (BRISCOLA-28). Nobody: a card still in the stock.
        """
        everyone = frozenset(range(self.n_seats))
        if self._end is not None or pos == self.schedule.trump:
            return everyone
        for seat, hand in enumerate(self._hands):
            if pos in hand:
                return self._hand_audience(seat)
        if pos in self._stock:
            return frozenset()
        return everyone  # on the table or taken: played face up

    def audiences(self) -> list[frozenset[Seat]]:
        """`audience(pos)` of every position at once: what the fair-deal layer asks after
        every move, in one pass instead of one search of the hands per position."""
        n_pos = len(self.deck)
        everyone = frozenset(range(self.n_seats))
        if self._end is not None:
            return [everyone] * n_pos
        out = [everyone] * n_pos            # on the table or taken: played face up
        nobody: frozenset[Seat] = frozenset()
        for pos in self._stock:
            out[pos] = nobody
        for seat, hand in enumerate(self._hands):
            aud = self._hand_audience(seat)
            for pos in hand:
                out[pos] = aud
        out[self.schedule.trump] = everyone
        return out

    def _hand_audience(self, seat: Seat) -> frozenset[Seat]:
        if self._end is not None or (self.rules.carte_viste and self.n_seats == 2
                                     and self.last_hand):
            return frozenset(range(self.n_seats))
        if self.rules.carte_scoperte and self.n_seats == 4:
            return frozenset({seat, (seat + 2) % 4})
        return frozenset({seat})

    # --- public facts --------------------------------------------------------------------
    @property
    def trump_pos(self) -> Pos:
        return self.schedule.trump

    @property
    def trump_card(self) -> Card | None:
        cid = self._known.get(self.schedule.trump)
        return None if cid is None else self.deck[cid]

    @property
    def trump_suit(self) -> Suit | None:
        card = self.trump_card
        return None if card is None else card.suit

    @property
    def stock_count(self) -> int:
        """Cards still to draw, the face-up briscola included."""
        return len(self._stock) + (0 if self._trump_drawn else 1)

    @property
    def last_hand(self) -> bool:
        """The stock is spent: the last three tricks, played without drawing [BRISCOLA-17]."""
        return self.stock_count == 0

    @property
    def leader(self) -> Seat:
        return self._leader

    def hand(self, seat: Seat) -> tuple[Pos, ...]:
        """The positions in a seat's hand, in the order shown (dealt, then drawn)."""
        return tuple(self._hands[seat])

    def current_trick(self) -> tuple[tuple[Seat, Pos], ...]:
        return tuple(self._trick)

    @property
    def tricks(self) -> tuple[Trick, ...]:
        return tuple(self._tricks)

    def taken(self, side: int) -> tuple[Pos, ...]:
        return tuple(self._taken[side])

    def side_points(self, side: int) -> int:
        """Points a side has taken so far (its cards were all played face up)."""
        known = (self._known[p] for p in self._taken[side])
        return points_of(self.deck[c] for c in known if c is not None)

    def current_winner(self) -> Seat | None:
        """The seat whose card is taking the trick on the table so far (None if empty)."""
        return self._winner_of(self._trick) if self._trick else None

    def winning_seat_if(self, pos: Pos) -> Seat:
        """Which seat would be taking the trick if the seat to move played `pos` now.

        Lets a bot weigh a card without re-implementing trick resolution."""
        if self._turn is None:
            raise ValueError("the hand is over")
        return self._winner_of(self._trick + [(self._turn, pos)])

    def _winner_of(self, plays: list[tuple[Seat, Pos]]) -> Seat:
        trump = self.trump_suit
        if trump is None:
            raise RuleViolation("BRISCOLA-10", "the briscola has not been shown yet")
        cards = []
        for _, p in plays:
            cid = self._known.get(p)
            if cid is None:
                raise ValueError(f"the card at position {p} is not known to this replica")
            cards.append(self.deck[cid])
        return plays[trick_winner(cards, trump)][0]

    # --- turn and legality ---------------------------------------------------------------
    @property
    def to_move(self) -> Seat | None:
        return None if self._end is not None else self._turn

    @property
    def phase(self) -> str:
        return "over" if self._end is not None else "play"

    @property
    def is_over(self) -> bool:
        return self._end is not None

    def legal_kinds(self, seat: Seat) -> tuple[str, ...]:
        return ("play",) if self.to_move == seat else ()

    def legal_actions(self, seat: Seat) -> Iterator[Action]:
        """Every card of the hand may be played: no duty to follow suit [BRISCOLA-13]."""
        if self.to_move != seat:
            return
        for pos in self._hands[seat]:
            cid = self._known.get(pos)
            if cid is not None:
                yield Play(pos, cid, str(self.deck[cid]))

    def parse_action(self, seat: Seat, text: str) -> Action:
        """`play 3d` (a card) or `play 2` (the 2nd card of the hand as shown); the word
        `play` may be left out [BRISCOLA-30]."""
        if not 0 <= seat < self.n_seats:
            raise ActionSyntaxError(f"no seat {seat} at this table")
        words = text.split()
        if words and words[0].lower() in ("play", "gioca", "p"):
            words = words[1:]
        if not words:
            raise ActionSyntaxError("play what? type e.g. `play 3d` or `play 2` "
                                    "(the 2nd card of your hand)")
        hand = self._hands[seat]
        if len(words) == 1 and words[0].isdigit():
            n = int(words[0])
            if not 1 <= n <= len(hand):
                raise RuleViolation("BRISCOLA-30", f"there is no card {n} in your hand: you hold "
                                    f"{len(hand)}" + (f" (1-{len(hand)})" if hand else ""))
            pos = hand[n - 1]
            cid = self._known.get(pos)
            if cid is None:
                raise ActionSyntaxError(f"card {n} of your hand is not known here yet")
            return Play(pos, cid, str(self.deck[cid]))
        try:
            cards = self.deck.parse_many(" ".join(words))
        except NotationError as exc:
            raise ActionSyntaxError(f"{exc} — type e.g. `play 3d` or `play 2`") from None
        if len(cards) != 1:
            raise ActionSyntaxError(f"play one card at a time, not {len(cards)}")
        card = cards[0]
        for pos in hand:
            cid = self._known.get(pos)
            if cid is not None and self.deck[cid] == card:
                return Play(pos, cid, str(card))
        raise RuleViolation("BRISCOLA-13", f"{card} is not in your hand")

    def action_from_wire(self, data: Mapping[str, WireValue]) -> Action:
        if not isinstance(data, Mapping):
            raise ActionSyntaxError(f"an action is a map, not {type(data).__name__}")
        kind = data.get("kind")
        if kind != Play.kind:
            raise ActionSyntaxError(f"unknown Briscola action kind {kind!r} (only 'play')")
        extra = set(data) - {"kind", "pos", "card"}
        if extra:
            raise ActionSyntaxError(f"unexpected fields in a play: {', '.join(sorted(extra))}")
        pos, card = data.get("pos"), data.get("card")
        for name, v in (("pos", pos), ("card", card)):
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < len(self.deck):
                raise ActionSyntaxError(f"play: {name} must be an integer 0..{len(self.deck) - 1},"
                                        f" not {v!r}")
        assert isinstance(pos, int) and isinstance(card, int)
        return Play(pos, card, str(self.deck[card]))

    def apply(self, seat: Seat, action: Action) -> None:
        """Play a card; when the trick is complete, resolve it, hand it to the winner's side,
        draw (winner first) while the stock lasts, and check the end. Atomic."""
        if not isinstance(action, Play):
            raise ActionSyntaxError(f"Briscola has no action {getattr(action, 'kind', action)!r}")
        self._check_play(seat, action)
        pos, cid = action.pos, action.card
        completes = len(self._trick) + 1 == self.n_seats
        winner: Seat | None = None
        if completes:
            # Resolve before changing anything, so a missing briscola leaves the state as is.
            plays = self._trick + [(seat, pos)]
            saved = self._known.known[pos]
            self._known.known[pos] = cid
            try:
                winner = self._winner_of(plays)
            finally:
                self._known.known[pos] = saved
        self.learn(pos, cid)
        self._hands[seat].remove(pos)
        self._trick.append((seat, pos))
        if winner is None:
            self._turn = (seat + 1) % self.n_seats  # [BRISCOLA-12]
            return
        self._finish_trick(winner)

    def _check_play(self, seat: Seat, action: Play) -> None:
        if self._end is not None:
            raise RuleViolation("BRISCOLA-18", "the smazzata is over: no more cards to play")
        if not 0 <= seat < self.n_seats:
            raise RuleViolation("BRISCOLA-12", f"no seat {seat} at this table")
        if seat != self._turn:
            raise RuleViolation("BRISCOLA-12", f"not your turn: seat {self._turn} plays now")
        if not 0 <= action.card < len(self.deck):
            raise RuleViolation("BRISCOLA-13", f"no card #{action.card} in this deck")
        name = str(self.deck[action.card])
        if action.pos not in self._hands[seat]:
            raise RuleViolation("BRISCOLA-13", f"{name} is not in your hand")
        problem = self._known.conflict(action.pos, action.card)
        if problem is not None:
            raise RuleViolation("BRISCOLA-13", f"{name} is not in your hand ({problem})")

    def _finish_trick(self, winner: Seat) -> None:
        plays = tuple(self._trick)
        self._tricks.append(Trick(self._leader, plays, winner))
        self._taken[side_of(winner)].extend(p for _, p in plays)  # [BRISCOLA-15]
        self._trick = []
        self._draw_round(winner)
        self._leader = self._turn = winner
        side = side_of(winner)
        if not any(self._hands):
            self._end = "tricks"  # [BRISCOLA-18]
        elif self.stop_at is not None and self.side_points(side) >= self.stop_at[side]:
            self._end = "vinco subito"  # [BRISCOLA-21]

    def _draw_round(self, winner: Seat) -> None:
        """Winner first, then in play order; the briscola is the very last card [BRISCOLA-16].
        Nothing is drawn once the stock is spent [BRISCOLA-17]."""
        if self.last_hand:
            return
        for seat in draw_order(winner, self.n_seats):
            if self._stock:
                self._hands[seat].append(self._stock.pop(0))
            elif not self._trump_drawn:
                self._trump_drawn = True
                self._hands[seat].append(self.schedule.trump)

    def abandon(self, seat: Seat) -> None:
        """`seat` abandons or lets its clock run out: the smazzata ends, its side loses the
        match, and the result applies the point-difference rule [BRISCOLA-24]."""
        if not 0 <= seat < self.n_seats:
            raise ValueError(f"no seat {seat} at a table of {self.n_seats}")
        if self._end is not None:
            raise RuleViolation("BRISCOLA-24", "the smazzata is already over")
        self._abandoned_by = seat
        self._end = "abandon"

    @property
    def abandoned_by(self) -> Seat | None:
        return self._abandoned_by

    def copy(self) -> BriscolaHand:
        new = object.__new__(BriscolaHand)
        new.__dict__.update(self.__dict__)
        new._hands = [list(h) for h in self._hands]
        new._stock = list(self._stock)
        new._trick = list(self._trick)
        new._taken = [list(t) for t in self._taken]
        new._tricks = list(self._tricks)
        new._known = self._known.copy()
        return new

    # --- views ---------------------------------------------------------------------------
    def _card_text(self, pos: Pos) -> str | None:
        cid = self._known.get(pos)
        return None if cid is None else str(self.deck[cid])

    def _view(self, viewer: Seat | None) -> dict[str, WireValue]:
        trump = self.trump_card
        everyone = frozenset(range(self.n_seats))
        shown: dict[str, WireValue] = {}
        for s in range(self.n_seats):
            if s == viewer:
                continue
            aud = self._hand_audience(s)
            if (viewer is not None and viewer in aud) or (viewer is None and aud == everyone):
                shown[str(s)] = [[p, self._card_text(p)] for p in self._hands[s]]
        last = self._tricks[-1] if self._tricks else None
        view: dict[str, WireValue] = {
            "game": self.game,
            "rules": self.rules.name,
            "display": self.rules.display,
            "n_seats": self.n_seats,
            "sides": [list(s) for s in sides_of(self.n_seats)],
            "dealer": self.dealer,
            "leader": self._leader,
            "to_move": self.to_move,
            "phase": self.phase,
            "last_hand": self.last_hand,
            "trump": {"pos": self.schedule.trump, "card": None if trump is None else str(trump),
                      "suit": None if trump is None or trump.suit is None else trump.suit.letter,
                      "drawn": self._trump_drawn},
            "stock": self.stock_count,
            "hand_sizes": [len(h) for h in self._hands],
            "trick": [[s, p, self._card_text(p)] for s, p in self._trick],
            "last_trick": None if last is None else {
                "leader": last.leader, "winner": last.winner,
                "plays": [[s, p, self._card_text(p)] for s, p in last.plays]},
            "tricks_played": len(self._tricks),
            "taken": [{"cards": len(t), "points": self.side_points(i), "tricks":
                       sum(1 for tr in self._tricks if side_of(tr.winner) == i)}
                      for i, t in enumerate(self._taken)],
            "shown_hands": shown,
            "stop_at": None if self.stop_at is None else list(self.stop_at),
            "over": self.is_over,
            "end": self._end,
            "abandoned_by": self._abandoned_by,
        }
        if self.rules.carte_viste:  # [BRISCOLA-27]
            view["seen"] = [[s, self._card_text(p)] for tr in self._tricks for s, p in tr.plays]
        if viewer is not None:
            view["seat"] = viewer
            view["side"] = side_of(viewer)
            view["hand"] = [[p, self._card_text(p)] for p in self._hands[viewer]]
            if self.rules.carte_scoperte and self.n_seats == 4:  # [BRISCOLA-29]
                partner = (viewer + 2) % 4
                view["partner_hand"] = [[p, self._card_text(p)] for p in self._hands[partner]]
        return view

    def player_view(self, seat: Seat) -> dict[str, WireValue]:
        if not 0 <= seat < self.n_seats:
            raise ValueError(f"no seat {seat} at a table of {self.n_seats}")
        return self._view(seat)

    def public_view(self) -> dict[str, WireValue]:
        return self._view(None)

    # --- end -----------------------------------------------------------------------------
    def result(self) -> HandResult:
        """Points per side from the cards taken; 61 wins the smazzata, 60-60 is a tie
        [BRISCOLA-18]; after an abandon, the BRISCOLA-24 adjustment."""
        if self._end is None:
            raise ValueError("the smazzata is not over yet")
        sides = sides_of(self.n_seats)
        breakdown: list[list[ScoreLine]] = []
        points: list[int] = []
        for side in range(2):
            missing = [p for p in self._taken[side] if p not in self._known]
            if missing:
                raise ValueError(f"taken cards not known to this replica: positions {missing}")
            cards = [self.deck[c] for c in (self._known[p] for p in self._taken[side])
                     if c is not None]
            lines = [ScoreLine(label, sum(card_points(c) for c in cards if c.rank == rank))
                     for rank, label in _RANK_LABELS if any(c.rank == rank for c in cards)]
            breakdown.append(lines)
            points.append(points_of(cards))
        unplayed = TOTAL_POINTS - sum(points)
        winner: int | None
        if self._abandoned_by is not None:
            quitter = side_of(self._abandoned_by)
            other = 1 - quitter
            gift = min(unplayed, ABANDON_GIFT_CAP)
            if gift:
                breakdown[other].append(ScoreLine("abbandono: punti in gioco (max 20)", gift))
                points[other] += gift
            if points[quitter] > points[other]:
                cut = points[quitter] - points[other]
                breakdown[quitter].append(ScoreLine("abbandono: vantaggio annullato", -cut))
                points[quitter] -= cut
            winner = other
        elif points[0] != points[1]:
            winner = 0 if points[0] > points[1] else 1
        else:
            winner = None
        last_by = self._tricks[-1].winner if self._tricks else None
        extra: dict[str, WireValue] = {
            "summary": self._summary(points, winner, last_by),
            "winner": winner,
            "tricks": [sum(1 for t in self._tricks if side_of(t.winner) == s) for s in range(2)],
            "last_trick_by": last_by,
            "abandoned_by": self._abandoned_by,
            "unplayed": unplayed,
            "dealer": self.dealer,
        }
        return HandResult(sides=sides, points=tuple(points),
                          breakdown=tuple(tuple(b) for b in breakdown),
                          closed_by=None, reason=self._end, extra=extra)

    def _summary(self, points: list[int], winner: int | None, last_by: Seat | None) -> str:
        """One line for a log: dealer, briscola by name, tricks, outcome."""
        trump = self.trump_card
        named = "?" if trump is None else card_name(trump, self.rules.display)
        tricks = [sum(1 for t in self._tricks if side_of(t.winner) == s) for s in range(2)]
        if self._abandoned_by is not None:
            outcome = f"seat {self._abandoned_by} abandoned"
        elif winner is None:
            outcome = "tie 60-60" if points == [60, 60] else "tie"
        else:
            outcome = f"{'+'.join(f'seat {s}' for s in sides_of(self.n_seats)[winner])} wins"
        last = "" if last_by is None else f", last trick seat {last_by}"
        return (f"dealer seat {self.dealer}, briscola {named}; tricks {tricks[0]}-{tricks[1]}"
                f"{last}; {'' if self._end == 'tricks' else f'{self._end}: '}{outcome}")

    def physical_locations(self) -> list[tuple[str, Pos]]:
        out: list[tuple[str, Pos]] = []
        for seat, hand in enumerate(self._hands):
            out.extend((f"hand:{seat}", p) for p in hand)
        out.extend(("stock", p) for p in self._stock)
        if not self._trump_drawn:
            out.append(("trump", self.schedule.trump))
        out.extend(("trick", p) for _, p in self._trick)
        for side, taken in enumerate(self._taken):
            out.extend((f"taken:{side}", p) for p in taken)
        return out
