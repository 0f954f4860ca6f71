"""Briscola rules, one block per rule id of seeds/briscola.md (BRISCOLA-1 … BRISCOLA-18, -30)."""

from __future__ import annotations

import pytest

from p2p_burraco.games import get_game
from p2p_burraco.games.base import ActionSyntaxError, RuleViolation, check_cards_conserved
from p2p_burraco.games.briscola import (
    PRESETS,
    BriscolaHand,
    Play,
    RuleSet,
    beats,
    card_label,
    card_name,
    card_points,
    deal_schedule,
    new_match,
    sides_of,
    stacked_order,
    trick_winner,
)
from p2p_burraco.games.briscola.faces import FRENCH_TO_ITALIAN, ITALIAN_TO_FRENCH
from p2p_burraco.games.cards import Card, DeckKind, Suit, make_deck

STANDARD = PRESETS["standard"]
# A deal (2 seats, seat 0 deals) that ends 60-60 when every seat always plays its 1st card.
TIE_ORDER = ("4b 2b Kc 7s 6s 3b 4s Ac Qb Ab 7c Qc 6b Ad Ks Jb As 5c Jd 6c 7d Jc Qs 2c 5d 3s "
             "2d 7b 5s Kd Js 3c 4c 4d 3d 5b Qd 6d Kb 2s")


def dealt(n: int = 2, dealer: int = 0, rules: RuleSet = STANDARD, *,
          hands: dict[int, str] | None = None, trump: str | None = None, stock: str = "",
          order: list[int] | None = None) -> BriscolaHand:
    """A hand whose replica knows every card (stacked as asked, the rest in deck order)."""
    h = BriscolaHand(rules, n, dealer)
    if order is None:
        order = stacked_order(h.deck, h.schedule, hands or {}, trump, stock)
    for pos, cid in enumerate(order):
        h.learn(pos, cid)
    return h


def order_of(text: str, deck_kind: DeckKind = DeckKind.ITALIAN_40) -> list[int]:
    deck = make_deck(deck_kind)
    return [deck.copies(c)[0] for c in deck.parse_many(text)]


def play(h: BriscolaHand, text: str) -> None:
    seat = h.to_move
    assert seat is not None
    h.apply(seat, h.parse_action(seat, text))


def play_first_cards(h: BriscolaHand) -> None:
    while not h.is_over:
        play(h, "play 1")
        check_cards_conserved(h)


def names(h: BriscolaHand, seat: int) -> list[str]:
    return [str(h.deck[h.card_at(p)]) for p in h.hand(seat)]  # type: ignore[index]


# --- BRISCOLA-1: the Italian deck and its two picture styles ------------------------------
@pytest.mark.parametrize("text,style,name", [
    ("Ad", "napoletane", "Asso di denari"),
    ("3c", "napoletane", "Tre di coppe"),
    ("Js", "napoletane", "Donna di spade"),
    ("Js", "piacentine", "Fante di spade"),
    ("Qb", "napoletane", "Cavallo di bastoni"),
    ("Kb", "piacentine", "Re di bastoni"),
    ("7d", "piacentine", "Sette di denari"),
])
def test_briscola_1_italian_names(text: str, style: str, name: str) -> None:
    card = make_deck("italian40").parse(text)
    assert card_name(card, style) == name


def test_briscola_1_forty_italian_cards() -> None:
    deck = make_deck(STANDARD.deck)
    assert len(deck) == 40 and STANDARD.deck is DeckKind.ITALIAN_40
    assert {c.suit for c in deck.cards} == {Suit.DENARI, Suit.COPPE, Suit.BASTONI, Suit.SPADE}
    assert card_label(deck.parse("Qc"), "napoletane") == "9 coppe"
    assert PRESETS["piacentine"].display == "piacentine"


# --- BRISCOLA-2: the French deck, same rules ----------------------------------------------
@pytest.mark.parametrize("italian,french", [
    (Suit.DENARI, Suit.DIAMONDS), (Suit.COPPE, Suit.HEARTS),
    (Suit.BASTONI, Suit.CLUBS), (Suit.SPADE, Suit.SPADES),
])
def test_briscola_2_suit_correspondence(italian: Suit, french: Suit) -> None:
    assert ITALIAN_TO_FRENCH[italian] is french and FRENCH_TO_ITALIAN[french] is italian


def test_briscola_2_french_deck_plays_the_same() -> None:
    rules = PRESETS["francesi"]
    deck = make_deck(rules.deck)
    assert rules.deck is DeckKind.FRENCH_40 and rules.display == "french"
    assert not any(c.is_joker or c.rank in (8, 9, 10) for c in deck.cards)
    assert card_name(deck.parse("Qh"), "french") == "Donna di cuori"
    assert card_label(deck.parse("Qh"), "french") == "Q♥"
    italian = make_deck("italian40")
    french_order = [deck.copies(Card(italian[c].rank, ITALIAN_TO_FRENCH[italian[c].suit]))[0]
                    for c in order_of(TIE_ORDER)]  # type: ignore[index]
    h_it = dealt(order=order_of(TIE_ORDER))
    h_fr = dealt(rules=rules, order=french_order)
    play_first_cards(h_it)
    play_first_cards(h_fr)
    assert h_it.result().points == h_fr.result().points == (60, 60)
    assert [t.winner for t in h_it.tricks] == [t.winner for t in h_fr.tricks]


@pytest.mark.parametrize("deck,display", [
    (DeckKind.ITALIAN_40, "french"), (DeckKind.FRENCH_40, "napoletane"),
    (DeckKind.FRENCH_108, "french"),
])
def test_briscola_2_display_must_fit_the_deck(deck: DeckKind, display: str) -> None:
    with pytest.raises(ValueError, match="BRISCOLA-"):
        RuleSet(deck=deck, display=display)


# --- BRISCOLA-3: taking strength ----------------------------------------------------------
ORDER = ["A", "3", "K", "Q", "J", "7", "6", "5", "4", "2"]


@pytest.mark.parametrize("high,low", list(zip(ORDER, ORDER[1:])))
def test_briscola_3_strength_order(high: str, low: str) -> None:
    deck = make_deck("italian40")
    hi, lo = deck.parse(high + "b"), deck.parse(low + "b")
    assert beats(hi, lo, Suit.DENARI) and not beats(lo, hi, Suit.DENARI)


# --- BRISCOLA-4: card points ---------------------------------------------------------------
@pytest.mark.parametrize("rank,points", [
    ("A", 11), ("3", 10), ("K", 4), ("Q", 3), ("J", 2),
    ("7", 0), ("6", 0), ("5", 0), ("4", 0), ("2", 0),
])
def test_briscola_4_card_points(rank: str, points: int) -> None:
    assert card_points(make_deck("italian40").parse(rank + "s")) == points
    assert card_points(make_deck("french40").parse(rank + "s")) == points


@pytest.mark.parametrize("kind", ["italian40", "french40"])
def test_briscola_4_deck_holds_120(kind: str) -> None:
    assert sum(card_points(c) for c in make_deck(kind).cards) == 120


# --- BRISCOLA-5: head to head or pairs ----------------------------------------------------
@pytest.mark.parametrize("n", [1, 3, 5, 6])
def test_briscola_5_refuses_other_seat_counts(n: int) -> None:
    with pytest.raises(ValueError, match="BRISCOLA-5"):
        BriscolaHand(STANDARD, n, 0)
    with pytest.raises(ValueError):
        new_match(STANDARD, n, first_dealer=0)


def test_briscola_5_sides() -> None:
    assert get_game("briscola").seat_counts(STANDARD) == (2, 4)
    assert sides_of(2) == ((0,), (1,)) and sides_of(4) == ((0, 2), (1, 3))
    assert new_match(STANDARD, 4, first_dealer=0).standings()["sides"] == [[0, 2], [1, 3]]


# --- BRISCOLA-6: counter-clockwise = seat+1 -----------------------------------------------
@pytest.mark.parametrize("n,dealer", [(2, 0), (2, 1), (4, 0), (4, 2), (4, 3)])
def test_briscola_6_play_goes_to_the_next_seat(n: int, dealer: int) -> None:
    h = dealt(n, dealer)
    order = []
    for _ in range(n):
        order.append(h.to_move)
        play(h, "play 1")
    assert order == [(dealer + 1 + k) % n for k in range(n)]


# --- BRISCOLA-7: the first dealer is an input ---------------------------------------------
@pytest.mark.parametrize("n,first", [(2, 0), (2, 1), (4, 0), (4, 3)])
def test_briscola_7_first_dealer_is_input(n: int, first: int) -> None:
    a = new_match(STANDARD, n, first_dealer=first).new_hand()
    b = new_match(STANDARD, n, first_dealer=first).new_hand()
    assert a.dealer == b.dealer == first and a.schedule == b.schedule
    assert all(a.card_at(p) is None for p in range(40))  # nothing known until dealt
    with pytest.raises(ValueError):
        new_match(STANDARD, n, first_dealer=n)


# --- BRISCOLA-8: the deal moves to the right ----------------------------------------------
@pytest.mark.parametrize("n,first", [(2, 1), (4, 2)])
def test_briscola_8_dealer_rotates(n: int, first: int) -> None:
    m = new_match(STANDARD, n, first_dealer=first, match_kind="smazzate", hands=7)
    dealers = []
    while not m.is_over:
        h = m.new_hand()
        dealers.append(h.dealer)
        for p, c in enumerate(range(40) if len(dealers) % 2 else reversed(range(40))):
            h.learn(p, c)
        play_first_cards(h)
        m.record(h.result())
    assert dealers == [(first + k) % n for k in range(len(dealers))]
    assert m.next_dealer == (first + len(dealers)) % n


# --- BRISCOLA-9: the deal schedule --------------------------------------------------------
@pytest.mark.parametrize("n,dealer,hands", [
    (2, 0, ((1, 3, 5), (0, 2, 4))),
    (2, 1, ((0, 2, 4), (1, 3, 5))),
    (4, 0, ((3, 7, 11), (0, 4, 8), (1, 5, 9), (2, 6, 10))),
    (4, 3, ((0, 4, 8), (1, 5, 9), (2, 6, 10), (3, 7, 11))),
])
def test_briscola_9_three_cards_one_at_a_time_from_the_dealers_right(
        n: int, dealer: int, hands: tuple[tuple[int, ...], ...]) -> None:
    s = deal_schedule(n, dealer)
    assert s.hands == hands
    assert s.trump == 3 * n and s.stock == tuple(range(3 * n + 1, 40))
    assert s.draw_order[-1] == s.trump


# --- BRISCOLA-10: the briscola, face up, drawn last ---------------------------------------
@pytest.mark.parametrize("n", [2, 4])
def test_briscola_10_trump_is_public_and_drawn_last(n: int) -> None:
    h = dealt(n, 0, trump="5s")
    assert h.trump_suit is Suit.SPADE and h.trump_pos == 3 * n
    assert h.audience(h.trump_pos) == frozenset(range(n))
    assert h.public_view()["trump"]["card"] == "5s"  # type: ignore[index]
    while h.stock_count > n:
        play(h, "play 1")
    assert not h.current_trick() and h.stock_count == n
    assert ("trump", h.trump_pos) in h.physical_locations()
    for _ in range(n):
        play(h, "play 1")
    holder = next(s for s in range(n) if h.trump_pos in h.hand(s))
    assert h.hand(holder)[-1] == h.trump_pos  # the very last card drawn
    assert holder == (h.tricks[-1].winner - 1) % n  # the last in drawing order
    assert h.audience(h.trump_pos) == frozenset(range(n))


def test_briscola_10_unrevealed_trump_blocks_the_trick_and_changes_nothing() -> None:
    full = dealt(2, 0)
    h = BriscolaHand(STANDARD, 2, 0)
    for p in list(h.hand(0)) + list(h.hand(1)):
        h.learn(p, full.card_at(p))  # type: ignore[arg-type]
    play(h, "play 1")
    before = (h.public_view(), h.physical_locations())
    with pytest.raises(RuleViolation, match="BRISCOLA-10"):
        play(h, "play 1")
    assert (h.public_view(), h.physical_locations()) == before
    h.learn(h.trump_pos, full.card_at(h.trump_pos))  # type: ignore[arg-type]
    play(h, "play 1")
    assert len(h.tricks) == 1


# --- BRISCOLA-11: who leads -----------------------------------------------------------------
def test_briscola_11_first_lead_then_the_winner_leads() -> None:
    h = dealt(2, 0, hands={1: "Ad 2c 4c", 0: "3d 5c 6c"}, trump="7s")
    assert h.to_move == 1 and h.leader == 1
    play(h, "play Ad")
    play(h, "play 3d")
    assert h.tricks[-1].winner == 1 and h.to_move == 1
    play(h, "play 2c")
    play(h, "play 5c")  # 5c beats 2c: seat 0 takes, seat 0 leads
    assert h.tricks[-1].winner == 0 and h.to_move == 0 and h.leader == 0


# --- BRISCOLA-12: in turn only --------------------------------------------------------------
def test_briscola_12_not_your_turn() -> None:
    h = dealt(4, 0)
    pos = h.hand(2)[0]
    with pytest.raises(RuleViolation, match=r"not your turn.*\[BRISCOLA-12\]") as exc:
        h.apply(2, Play(pos, h.card_at(pos)))  # type: ignore[arg-type]
    assert exc.value.rule_id == "BRISCOLA-12"
    assert h.legal_kinds(2) == () and list(h.legal_actions(2)) == []
    assert h.legal_kinds(1) == ("play",)


# --- BRISCOLA-13: any card of your hand, none other ----------------------------------------
def test_briscola_13_free_play_every_card_is_legal() -> None:
    h = dealt(2, 0, hands={1: "Ad", 0: "2d Ab 7s"}, trump="4s")
    play(h, "play Ad")  # seat 0 holds a denari, yet may throw anything
    legal = {str(a) for a in h.legal_actions(0)}
    assert legal == {"play 2d", "play Ab", "play 7s"}
    play(h, "play 7s")  # trumping is never compulsory either, but allowed
    assert h.tricks[-1].winner == 0


def test_briscola_13_card_not_in_hand() -> None:
    h = dealt(2, 0, hands={1: "Ad 2c 4c", 0: "3d 5c 6c"})
    with pytest.raises(RuleViolation, match=r"3d is not in your hand \[BRISCOLA-13\]"):
        h.parse_action(1, "play 3d")
    pos0 = h.hand(0)[0]
    with pytest.raises(RuleViolation, match=r"3d is not in your hand \[BRISCOLA-13\]"):
        h.apply(1, Play(pos0, h.card_at(pos0)))  # type: ignore[arg-type]
    own = h.hand(1)[0]
    other = h.card_at(h.hand(1)[1])
    with pytest.raises(RuleViolation, match="BRISCOLA-13"):
        h.apply(1, Play(own, other))  # type: ignore[arg-type]  # wrong card claimed
    with pytest.raises(RuleViolation, match="BRISCOLA-13"):
        h.apply(1, Play(own, 99))
    check_cards_conserved(h)
    assert h.hand(1) == (0, 2, 4) and not h.current_trick()


# --- BRISCOLA-14: who takes the trick ------------------------------------------------------
@pytest.mark.parametrize("trump,cards,winner", [
    ("d", "2c Ac", 1),          # higher of the suit led
    ("d", "Ac 3c", 0),          # the Asso beats the Tre
    ("d", "3c Kc", 0),          # Tre beats Re
    ("d", "Ac 2d", 1),          # any briscola beats the suit led
    ("d", "2d Ac", 0),          # a lower briscola still wins against a non-briscola
    ("d", "4c Ab", 0),          # another suit never wins
    ("d", "4c Ab 5c 2s", 2),    # four seats: highest of the suit led
    ("d", "4c Ab 2d 7d", 3),    # four seats: highest briscola
    ("c", "Kc 3c Ac 2c", 2),    # all briscole: highest briscola
])
def test_briscola_14_trick_winner(trump: str, cards: str, winner: int) -> None:
    deck = make_deck("italian40")
    assert trick_winner(deck.parse_many(cards), deck.parse("2" + trump).suit) == winner  # type: ignore[arg-type]


# --- BRISCOLA-15: the winner's side takes the cards ----------------------------------------
def test_briscola_15_partners_share_the_taken_cards() -> None:
    h = dealt(4, 3, hands={0: "2c", 1: "Ac", 2: "3c", 3: "Kc"}, trump="7d")
    for text in ("2c", "Ac", "3c", "Kc"):
        play(h, text)
    assert h.tricks[-1].winner == 1
    assert len(h.taken(1)) == 4 and h.taken(0) == ()
    assert h.public_view()["taken"][1]["points"] == 25  # type: ignore[index]


# --- BRISCOLA-16: drawing after a trick ----------------------------------------------------
@pytest.mark.parametrize("n", [2, 4])
def test_briscola_16_winner_draws_first(n: int) -> None:
    h = dealt(n, 0, hands={1: "Ac"}, trump="7d")
    stock = h.schedule.stock
    while True:  # one whole trick
        play(h, "play 1")
        if h.tricks:
            break
    w = h.tricks[-1].winner
    for k in range(n):
        assert h.hand((w + k) % n)[-1] == stock[k]
    assert h.stock_count == 40 - 3 * n - n


# --- BRISCOLA-17: the last three tricks without drawing ------------------------------------
@pytest.mark.parametrize("n,drawing_tricks,tricks", [(2, 17, 20), (4, 7, 10)])
def test_briscola_17_last_hand_without_drawing(n: int, drawing_tricks: int, tricks: int) -> None:
    h = dealt(n, 1)
    sizes = []
    while not h.is_over:
        play(h, "play 1")
        if not h.current_trick():
            sizes.append((h.stock_count, [len(h.hand(s)) for s in range(n)]))
    assert len(sizes) == tricks
    assert sizes[drawing_tricks - 1] == (0, [3] * n)
    assert [sz for _, sz in sizes[drawing_tricks:]] == [[2] * n, [1] * n, [0] * n]
    assert all(sz == [3] * n for _, sz in sizes[:drawing_tricks])


# --- BRISCOLA-18: 61 wins the smazzata, 60-60 is a tie -------------------------------------
def test_briscola_18_sixty_sixty_is_a_tie() -> None:
    h = dealt(order=order_of(TIE_ORDER))
    play_first_cards(h)
    r = h.result()
    assert r.points == (60, 60) and r.extra["winner"] is None and r.reason == "tricks"
    with pytest.raises(RuleViolation, match="BRISCOLA-18"):
        h.apply(0, Play(0, 0))


@pytest.mark.parametrize("n,dealer", [(2, 0), (4, 1)])
def test_briscola_18_all_points_counted_and_61_wins(n: int, dealer: int) -> None:
    h = dealt(n, dealer)
    with pytest.raises(ValueError):
        h.result()
    play_first_cards(h)
    r = h.result()
    assert sum(r.points) == 120 and r.extra["unplayed"] == 0
    w = r.extra["winner"]
    assert w is not None and r.points[w] >= 61
    assert sum(ln.points for ln in r.breakdown[w]) == r.points[w]


# --- BRISCOLA-30: notation ----------------------------------------------------------------
@pytest.mark.parametrize("text,card", [
    ("play 3d", "3d"), ("3d", "3d"), ("PLAY 3D", "3d"), ("play 2", "5c"), ("2", "5c"),
    ("gioca 3", "6c"), ("play 3 di denari", "3d"),
])
def test_briscola_30_play_by_card_or_by_place(text: str, card: str) -> None:
    h = dealt(2, 1, hands={0: "3d 5c 6c", 1: "Ad 2c 4c"})
    action = h.parse_action(0, text)
    assert isinstance(action, Play) and str(action) == f"play {card}"
    assert h.action_from_wire(action.to_wire()) == action


@pytest.mark.parametrize("text,error", [
    ("", ActionSyntaxError), ("play", ActionSyntaxError), ("play 9z", ActionSyntaxError),
    ("play 3d 5c", ActionSyntaxError), ("play 4", RuleViolation), ("play 0", RuleViolation),
    ("play 8h", ActionSyntaxError),  # no hearts on an Italian deck
])
def test_briscola_30_bad_input_is_named(text: str, error: type) -> None:
    h = dealt(2, 1, hands={0: "3d 5c 6c"})
    with pytest.raises(error) as exc:
        h.parse_action(0, text)
    assert str(exc.value)
    if error is RuleViolation:
        assert exc.value.rule_id == "BRISCOLA-30"


def test_briscola_30_figures_typed_by_their_printed_number() -> None:
    """BRISCOLA-30: on Italian decks 8, 9, 10 are the fante, cavallo and re as printed."""
    h = dealt(2, 1, hands={0: "3d Jd 6c", 1: "Ad 2c 4c"})
    assert str(h.parse_action(0, "play 8d")) == "play Jd"
    with pytest.raises(RuleViolation) as exc:
        h.parse_action(0, "play 10d")  # the re di denari: not in this hand
    assert exc.value.rule_id == "BRISCOLA-13"


@pytest.mark.parametrize("data", [
    {"kind": "meld", "pos": 0, "card": 0}, {"kind": "play", "pos": -1, "card": 0},
    {"kind": "play", "pos": 0, "card": 40}, {"kind": "play", "pos": True, "card": 0},
    {"kind": "play", "pos": 0}, {"kind": "play", "pos": 0, "card": 0, "x": 1}, [1, 2],
])
def test_briscola_30_bad_wire_actions(data: object) -> None:
    with pytest.raises(ActionSyntaxError):
        dealt().action_from_wire(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("winner,n,expected", [
    (0, 2, (0, 1)), (1, 2, (1, 0)), (2, 4, (2, 3, 0, 1)), (3, 4, (3, 0, 1, 2)),
])
def test_draw_order_winner_first_then_play_order(winner: int, n: int,
                                                 expected: tuple[int, ...]) -> None:
    """BRISCOLA-16: after a trick its winner draws first, then the others in play order."""
    from p2p_burraco.games.briscola.faces import draw_order
    assert draw_order(winner, n) == expected
