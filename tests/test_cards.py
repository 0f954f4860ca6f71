"""Cards, decks and the text notation (parse ↔ print both ways)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_burraco.games.cards import (
    JOKER,
    Card,
    DeckKind,
    NotationError,
    Suit,
    format_cards,
    make_deck,
    parse_cards,
)


@pytest.mark.parametrize("kind,size,jokers", [
    (DeckKind.FRENCH_108, 108, 4), (DeckKind.FRENCH_162, 162, 6),
    (DeckKind.ITALIAN_40, 40, 0), (DeckKind.FRENCH_40, 40, 0),
])
def test_deck_sizes(kind: DeckKind, size: int, jokers: int) -> None:
    deck = make_deck(kind)
    assert len(deck) == size
    assert sum(c.is_joker for c in deck.cards) == jokers


def test_two_copies_are_two_indices() -> None:
    deck = make_deck("french108")
    ids = deck.copies(Card(7, Suit.HEARTS))
    assert len(ids) == 2 and ids[0] != ids[1]
    assert len(make_deck("french162").copies(Card(7, Suit.HEARTS))) == 3


def test_forty_card_decks_have_no_8_9_10() -> None:
    for kind in ("italian40", "french40"):
        assert {c.rank for c in make_deck(kind).cards} == {1, 2, 3, 4, 5, 6, 7, 11, 12, 13}


@pytest.mark.parametrize("text,expected", [
    ("7h", Card(7, Suit.HEARTS)), ("10h", Card(10, Suit.HEARTS)), ("Th", Card(10, Suit.HEARTS)),
    ("Qs", Card(12, Suit.SPADES)), ("As", Card(1, Suit.SPADES)), ("2c", Card(2, Suit.CLUBS)),
    ("JK", JOKER), ("jolly", JOKER), ("★", JOKER), ("7♥", Card(7, Suit.HEARTS)),
    ("7q", Card(7, Suit.DIAMONDS)), ("7f", Card(7, Suit.CLUBS)), ("7p", Card(7, Suit.SPADES)),
    ("7cu", Card(7, Suit.HEARTS)), ("kd", Card(13, Suit.DIAMONDS)),
])
def test_parse_french(text: str, expected: Card) -> None:
    assert Card.parse(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("Ad", Card(1, Suit.DENARI)), ("3c", Card(3, Suit.COPPE)), ("Kb", Card(13, Suit.BASTONI)),
    ("7s", Card(7, Suit.SPADE)), ("fante di spade", Card(11, Suit.SPADE)),
    ("re denari", Card(13, Suit.DENARI)), ("cavallo coppe", Card(12, Suit.COPPE)),
    ("8d", Card(11, Suit.DENARI)), ("9s", Card(12, Suit.SPADE)), ("10b", Card(13, Suit.BASTONI)),
])
def test_parse_italian(text: str, expected: Card) -> None:
    assert make_deck("italian40").parse_many(text) == [expected]


@pytest.mark.parametrize("bad", ["", "1x", "Zh", "11h", "JKh", "h7", "10"])
def test_parse_errors_name_the_token(bad: str) -> None:
    with pytest.raises(NotationError):
        Card.parse(bad)


def test_deck_refuses_faces_it_lacks() -> None:
    with pytest.raises(NotationError, match="has no"):
        make_deck("french40").parse("9h")
    with pytest.raises(NotationError):
        make_deck("italian40").parse("JK")


def test_display_forms() -> None:
    assert format_cards(parse_cards("7h 10s JK"), display=True) == "7♥ 10♠ ★"
    assert format_cards(parse_cards("7h Th JK")) == "7h 10h JK"


@given(st.sampled_from(list(DeckKind)), st.data())
def test_notation_round_trips(kind: DeckKind, data: st.DataObject) -> None:
    deck = make_deck(kind)
    card = data.draw(st.sampled_from(deck.cards))
    assert deck.parse(str(card)) == card
    assert eval(repr(card), {"Card": Card}) == card
