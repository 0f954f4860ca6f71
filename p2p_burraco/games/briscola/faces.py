"""Briscola card values: trick strength, card points and the names players use.

Both 40-card decks play by the same rules; the French one (no jokers, 8, 9, 10) only changes
how cards look. The suit correspondence is denari = quadri (♦), coppe = cuori (♥),
bastoni = fiori (♣), spade = picche (♠) [BRISCOLA-2].
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..cards import ACE, JACK, KING, QUEEN, Card, Suit

# Trick strength, high to low: Asso, 3, Re, Cavallo, Fante, 7, 6, 5, 4, 2 [BRISCOLA-3].
STRENGTH_ORDER: tuple[int, ...] = (ACE, 3, KING, QUEEN, JACK, 7, 6, 5, 4, 2)
_STRENGTH: dict[int, int] = {r: len(STRENGTH_ORDER) - i for i, r in enumerate(STRENGTH_ORDER)}

# Card points: carichi (Asso 11, 3 10), figure (Re 4, Cavallo 3, Fante 2), lisci 0
# [BRISCOLA-4]. Forty cards hold 120 points in all.
POINTS: dict[int, int] = {ACE: 11, 3: 10, KING: 4, QUEEN: 3, JACK: 2}
TOTAL_POINTS = 120
WINNING_POINTS = 61

DISPLAY_STYLES: tuple[str, ...] = ("napoletane", "piacentine", "french")

# Rank names. Napoletane call the fante "Donna" (the figure looks like a woman);
# piacentine say "Fante". On a French deck the figures are Fante, Donna, Re (J, Q, K).
_NUMBER_NAMES = {1: "Asso", 2: "Due", 3: "Tre", 4: "Quattro", 5: "Cinque", 6: "Sei",
                 7: "Sette"}
_FACE_NAMES: dict[str, dict[int, str]] = {
    "napoletane": {JACK: "Donna", QUEEN: "Cavallo", KING: "Re"},
    "piacentine": {JACK: "Fante", QUEEN: "Cavallo", KING: "Re"},
    "french": {JACK: "Fante", QUEEN: "Donna", KING: "Re"},
}
# Short rank marks as printed in the corner (Italian decks number the figures 8, 9, 10).
_SHORT_FACE: dict[str, dict[int, str]] = {
    "napoletane": {JACK: "8", QUEEN: "9", KING: "10"},
    "piacentine": {JACK: "8", QUEEN: "9", KING: "10"},
    "french": {JACK: "J", QUEEN: "Q", KING: "K"},
}
_SUIT_NAMES: dict[Suit, str] = {
    Suit.DENARI: "denari", Suit.COPPE: "coppe", Suit.BASTONI: "bastoni", Suit.SPADE: "spade",
    Suit.DIAMONDS: "quadri", Suit.HEARTS: "cuori", Suit.CLUBS: "fiori", Suit.SPADES: "picche",
}
# The French suit that stands for each Italian one, and back [BRISCOLA-2].
ITALIAN_TO_FRENCH: dict[Suit, Suit] = {
    Suit.DENARI: Suit.DIAMONDS, Suit.COPPE: Suit.HEARTS,
    Suit.BASTONI: Suit.CLUBS, Suit.SPADE: Suit.SPADES,
}
FRENCH_TO_ITALIAN: dict[Suit, Suit] = {f: i for i, f in ITALIAN_TO_FRENCH.items()}


def card_points(card: Card) -> int:
    """Points a card is worth when taken (0 for a liscio)."""
    return POINTS.get(card.rank, 0)


def points_of(cards: Iterable[Card]) -> int:
    return sum(POINTS.get(c.rank, 0) for c in cards)


def strength(card: Card) -> int:
    """Trick strength inside a suit: 10 for the Asso down to 1 for the 2."""
    return _STRENGTH[card.rank]


def is_liscio(card: Card) -> bool:
    """A card worth no points (7, 6, 5, 4, 2)."""
    return card.rank not in POINTS


def beats(challenger: Card, best: Card, trump: Suit) -> bool:
    """Does `challenger`, played later, take the trick from the card now winning it?

    A trump beats any non-trump; otherwise only a higher card of the same suit wins: a
    different non-trump suit never takes the trick [BRISCOLA-14].
    """
    if challenger.suit == best.suit:
        return strength(challenger) > strength(best)
    return challenger.suit == trump


def trick_winner(cards: Sequence[Card], trump: Suit) -> int:
    """Index (in play order) of the card that takes the trick [BRISCOLA-14]."""
    if not cards:
        raise ValueError("an empty trick has no winner")
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best], trump):
            best = i
    return best


def draw_order(winner: int, n_seats: int) -> tuple[int, ...]:
    """Who draws after a trick, in order: its winner first, then round in play order
    [BRISCOLA-16]. The engine deals by it, and the bots' look-ahead replays it."""
    return tuple((winner + k) % n_seats for k in range(n_seats))


def check_style(style: str) -> str:
    if style not in DISPLAY_STYLES:
        raise ValueError(f"unknown card display {style!r}; choose one of: "
                         f"{', '.join(DISPLAY_STYLES)}")
    return style


def rank_name(rank: int, style: str) -> str:
    """'Asso', 'Tre', 'Donna' (napoletane fante), 'Cavallo', 'Re'…"""
    check_style(style)
    return _FACE_NAMES[style].get(rank) or _NUMBER_NAMES[rank]


def suit_name(suit: Suit) -> str:
    return _SUIT_NAMES[suit]


def card_name(card: Card, style: str) -> str:
    """The spoken name of a card: 'Asso di denari', 'Donna di spade', 'Re di picche'."""
    assert card.suit is not None
    return f"{rank_name(card.rank, style)} di {suit_name(card.suit)}"


def card_label(card: Card, style: str) -> str:
    """A short label for a table: '9 coppe' (napoletane cavallo), 'Q♥' (French)."""
    assert card.suit is not None
    check_style(style)
    rank = _SHORT_FACE[style].get(card.rank) or ("A" if card.rank == ACE else str(card.rank))
    if card.suit.italian:
        return f"{rank} {suit_name(card.suit)}"
    return f"{rank}{card.suit.symbol}"
