"""Physical cards and decks, and the text notation everyone types and reads.

A *physical* deck is a tuple of `Card` values indexed by `CardId` (0..N-1): two copies of
the 7♥ in a 108-card Burraco deck are two different indices with equal `Card` values.
The fair-deal layer only ever sees those indices; the rules see `Card` values.

Notation (parsed case-insensitively, printed canonically):

- French cards: rank then suit, `7h 10h Th Qs As 2c`; suits h d c s (hearts, diamonds,
  clubs, spades), also the symbols ♥ ♦ ♣ ♠ and the Italian initials q (quadri = ♦),
  f (fiori = ♣), p (picche = ♠), cu (cuori = ♥) — plain `c` always means clubs.
- The joker: `JK` (also `jolly`, `*`, `★`).
- Italian 40-card decks: suits d c b s = denari, coppe, bastoni, spade (on an Italian deck
  `c` is coppe); ranks A 2..7 and the figures J (fante), Q (cavallo), K (re) — also typed
  as the numbers printed on the cards, 8 9 10.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache

CardId = int
"""Index of one physical card in its deck."""

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
JOKER_RANK = 0

RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K", 10: "10", JOKER_RANK: "JK"}
RANK_TEXT.update({r: str(r) for r in range(2, 10)})


class NotationError(ValueError):
    """Text that is not a card, or not a card of this deck."""


class Suit(str, Enum):  # noqa: UP042 - str(Suit.X) is "Suit.X" in messages; a StrEnum prints the letter
    """Suits of both families; the value is the canonical notation letter."""

    HEARTS = "h"
    DIAMONDS = "d"
    CLUBS = "c"
    SPADES = "s"
    # Italian suits (40-card decks): denari, coppe, bastoni, spade.
    DENARI = "D"
    COPPE = "C"
    BASTONI = "B"
    SPADE = "S"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOL[self]

    @property
    def is_red(self) -> bool:
        """Red for French hearts/diamonds, and for denari/coppe in a coloured display."""
        return self in (Suit.HEARTS, Suit.DIAMONDS, Suit.DENARI, Suit.COPPE)

    @property
    def italian(self) -> bool:
        return self in ITALIAN_SUITS

    @property
    def letter(self) -> str:
        return self.value.lower()


FRENCH_SUITS: tuple[Suit, ...] = (Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES)
ITALIAN_SUITS: tuple[Suit, ...] = (Suit.DENARI, Suit.COPPE, Suit.BASTONI, Suit.SPADE)

_SUIT_SYMBOL = {
    Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣", Suit.SPADES: "♠",
    Suit.DENARI: "🪙", Suit.COPPE: "🏆", Suit.BASTONI: "🪵", Suit.SPADE: "🗡",
}
# Plain-width symbols for Italian suits where emoji would break a terminal's columns.
ITALIAN_SUIT_NAME = {
    Suit.DENARI: "denari", Suit.COPPE: "coppe", Suit.BASTONI: "bastoni", Suit.SPADE: "spade",
}

_FRENCH_SUIT_WORDS = {
    "h": Suit.HEARTS, "♥": Suit.HEARTS, "cu": Suit.HEARTS, "cuori": Suit.HEARTS,
    "d": Suit.DIAMONDS, "♦": Suit.DIAMONDS, "q": Suit.DIAMONDS, "quadri": Suit.DIAMONDS,
    "c": Suit.CLUBS, "♣": Suit.CLUBS, "f": Suit.CLUBS, "fiori": Suit.CLUBS,
    "s": Suit.SPADES, "♠": Suit.SPADES, "p": Suit.SPADES, "picche": Suit.SPADES,
}
_ITALIAN_SUIT_WORDS = {
    "d": Suit.DENARI, "denari": Suit.DENARI, "o": Suit.DENARI, "ori": Suit.DENARI,
    "c": Suit.COPPE, "coppe": Suit.COPPE,
    "b": Suit.BASTONI, "bastoni": Suit.BASTONI,
    "s": Suit.SPADE, "spade": Suit.SPADE,
}
_RANK_WORDS = {
    "a": 1, "1": 1, "t": 10, "10": 10, "j": 11, "q": 12, "k": 13,
    # Italian figure names, usable on any deck.
    "fante": 11, "f": 11, "cavallo": 12, "donna": 12, "c": 12, "re": 13, "r": 13,
}
_RANK_WORDS.update({str(r): r for r in range(2, 10)})
# Italian 40-card decks number their figures 8, 9, 10 (fante, cavallo, re), as printed on
# napoletane and piacentine cards; typed on an Italian deck those numbers mean the figures.
ITALIAN_FIGURE_NUMBERS = {8: JACK, 9: QUEEN, 10: KING}
_JOKER_WORDS = {"jk", "jolly", "joker", "*", "★"}

_TOKEN = re.compile(r"^(10|[2-9]|[atjqk1])(.+)$", re.IGNORECASE)
_ITALIAN_TOKEN = re.compile(
    r"^(10|[1-9]|[atjqk]|fante|cavallo|re|f|c|r)(?:\s*di\s*)?(.+)$", re.IGNORECASE
)


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """A card's face: rank 1..13 (1 = ace, 11 J, 12 Q, 13 K) and suit, or the joker (rank 0).

    Physical copies are told apart by their `CardId`, never by the `Card` value.
    """

    rank: int
    suit: Suit | None = None

    def __post_init__(self) -> None:
        if self.rank == JOKER_RANK:
            if self.suit is not None:
                raise NotationError("the joker has no suit")
        elif not (1 <= self.rank <= 13) or self.suit is None:
            raise NotationError(f"no such card: rank {self.rank} suit {self.suit}")

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    @classmethod
    def parse(cls, text: str, italian: bool = False) -> Card:
        """Parse one card token; `italian` selects the 40-card Italian suit letters."""
        t = text.strip()
        if not t:
            raise NotationError("empty card")
        if t.lower() in _JOKER_WORDS:
            if italian:
                raise NotationError("an Italian deck has no joker")
            return cls(JOKER_RANK)
        if italian:
            m = _ITALIAN_TOKEN.match(t)
            words = _ITALIAN_SUIT_WORDS
        else:
            m = _TOKEN.match(t)
            words = _FRENCH_SUIT_WORDS
        if not m:
            raise NotationError(f"{text!r} is not a card (try e.g. 7h, 10s, Qd, JK)")
        rank_s, suit_s = m.group(1).lower(), m.group(2).strip().lower()
        rank = _RANK_WORDS.get(rank_s)
        suit = words.get(suit_s)
        if rank is None:
            raise NotationError(f"{text!r}: unknown rank {m.group(1)!r}")
        if suit is None:
            raise NotationError(f"{text!r}: unknown suit {m.group(2)!r}")
        if italian and rank in ITALIAN_FIGURE_NUMBERS:
            rank = ITALIAN_FIGURE_NUMBERS[rank]
        return cls(rank, suit)

    def __str__(self) -> str:
        """Canonical typed notation: `7h`, `10s`, `JK`, Italian `7D`→ printed `7d`."""
        if self.is_joker:
            return "JK"
        assert self.suit is not None
        return f"{RANK_TEXT[self.rank]}{self.suit.letter}"

    def display(self) -> str:
        """Display form with suit symbols: `7♥`, `10♠`, `★`."""
        if self.is_joker:
            return "★"
        assert self.suit is not None
        if self.suit.italian:
            return f"{RANK_TEXT[self.rank]} {ITALIAN_SUIT_NAME[self.suit]}"
        return f"{RANK_TEXT[self.rank]}{self.suit.symbol}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r}{', italian=True' if self.suit and self.suit.italian else ''})"


JOKER = Card(JOKER_RANK)


class DeckKind(str, Enum):  # noqa: UP042 - as Suit: str() keeps naming the member
    """The physical decks the games use."""

    FRENCH_108 = "french108"  # two French decks with 4 jokers (Burraco, 2-4 seats)
    FRENCH_162 = "french162"  # three French decks with 6 jokers (Burraco, 5-6 seats)
    ITALIAN_40 = "italian40"  # napoletane/piacentine/... (Briscola)
    FRENCH_40 = "french40"    # French deck without jokers, 8, 9, 10 (Briscola)


@dataclass(frozen=True)
class Deck:
    """A physical deck: `cards[i]` is the face of physical card `i`."""

    kind: DeckKind
    cards: tuple[Card, ...]

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, cid: CardId) -> Card:
        return self.cards[cid]

    @property
    def italian(self) -> bool:
        return self.kind is DeckKind.ITALIAN_40

    def copies(self, card: Card) -> tuple[CardId, ...]:
        """Every physical index whose face is `card`."""
        return _copies(self.kind).get(card, ())

    def parse(self, text: str) -> Card:
        """Parse one card of this deck, refusing faces the deck does not hold."""
        card = Card.parse(text, italian=self.italian)
        if not self.copies(card):
            raise NotationError(f"{text!r}: this deck ({self.kind.value}) has no {card.display()}")
        return card

    def parse_many(self, text: str | Iterable[str]) -> list[Card]:
        """Parse a space- or comma-separated list such as `7h 8h 9h` or `JK, 2c`."""
        tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
        return [self.parse(t) for t in _merge_italian_words(tokens)]

    def format(self, cards: Iterable[Card], display: bool = False) -> str:
        return " ".join(c.display() if display else str(c) for c in cards)


def _merge_italian_words(tokens: Sequence[str]) -> list[str]:
    """Join `7 di spade` / `re denari` style tokens back into single card tokens."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if i + 2 < len(tokens) and tokens[i + 1].lower() == "di":
            out.append(t + tokens[i + 2])
            i += 3
            continue
        if t.lower() in _RANK_WORDS and i + 1 < len(tokens) and not _TOKEN.match(t) \
                and tokens[i + 1].lower() in (*_ITALIAN_SUIT_WORDS, *_FRENCH_SUIT_WORDS):
            out.append(t + tokens[i + 1])
            i += 2
            continue
        out.append(t)
        i += 1
    return out


@cache
def make_deck(kind: DeckKind | str) -> Deck:
    """The physical deck of a kind, in a fixed canonical order (deck index = CardId)."""
    kind = DeckKind(kind)
    cards: list[Card] = []
    if kind in (DeckKind.FRENCH_108, DeckKind.FRENCH_162):
        copies = 2 if kind is DeckKind.FRENCH_108 else 3
        for _ in range(copies):
            for suit in FRENCH_SUITS:
                cards.extend(Card(r, suit) for r in range(1, 14))
            cards.extend((JOKER, JOKER))
    else:
        suits = ITALIAN_SUITS if kind is DeckKind.ITALIAN_40 else FRENCH_SUITS
        for suit in suits:
            cards.extend(Card(r, suit) for r in (1, 2, 3, 4, 5, 6, 7, 11, 12, 13))
    return Deck(kind, tuple(cards))


@cache
def _copies(kind: DeckKind) -> dict[Card, tuple[CardId, ...]]:
    out: dict[Card, list[CardId]] = {}
    for i, c in enumerate(make_deck(kind).cards):
        out.setdefault(c, []).append(i)
    return {c: tuple(v) for c, v in out.items()}


def parse_cards(text: str, italian: bool = False) -> list[Card]:
    """Parse card faces without a deck (tests, fixtures): `"7h 8h JK"`."""
    return [Card.parse(t, italian=italian) for t in _merge_italian_words(text.replace(",", " ").split())]


def format_cards(cards: Iterable[Card], display: bool = False) -> str:
    return " ".join(c.display() if display else str(c) for c in cards)
