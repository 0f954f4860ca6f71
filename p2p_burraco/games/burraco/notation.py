"""Positions as one line of text, for fixtures and tests (like a chess FEN).

    fibur 4 | turn 0 play | hand 7h 8h 9h JK Ks Kd 2c | side0 7s 8s 9s ; Kh Kc Kd | side1 5d 6d 7d
      | pile Qs 4d | pozzetto 0 | opened 1 | counts 11 11 11 | single

Sections, separated by ``|``, after the header ``<variant> <seats>``:

- ``turn <seat> <draw|play>`` — who moves and in which phase (default ``turn 0 draw``);
- ``hand <cards>`` — the hand of the seat to move (the other hands get arbitrary cards);
- ``side<T> <meld> ; <meld> …`` — melds of the side whose lowest seat is T, each in placed
  order (a wild typed last stands at the high end where the rules allow it), each as laid in
  one move (BURACO-14);
- ``pile <cards>`` — the discard pile, bottom first;
- ``pozzetto <T> …`` — sides that have already taken (and picked up) their pozzetto;
- ``hand<k> <cards>`` — the hand of another seat k;
- ``counts <n> …`` — hand sizes of the other seats not named, in seat order (default 11);
- ``stock <n>`` — cards left in the stock (default: whatever is left over; given without
  ``counts``, the other hands share what is left; with ``counts`` too, what is left lies
  under the discard pile);
- ``single`` — the seat to move took a one-card pile this turn (its top card stays).

Every physical card stays in exactly one place: the builder fills the other hands and the
stock with the cards not named, so the state passes `check_cards_conserved`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..base import Knowledge
from ..cards import Card, parse_cards
from .melds import arrange_new, is_wild
from .rules import PRESETS, RuleSet
from .state import MELD, PILE, POZZ, STOCK, BurracoHand, MeldState


class PositionError(ValueError):
    """A position text that cannot be built (unknown variant, too many copies of a card …)."""


@dataclass
class _Sections:
    """What a position line says, section by section, before any card is placed."""

    rules: RuleSet
    n: int
    seat: int = 0
    phase: str = "draw"
    hand: list[Card] = field(default_factory=list)
    sides: dict[int, list[list[Card]]] = field(default_factory=dict)
    pile: list[Card] = field(default_factory=list)
    pozz: list[int] = field(default_factory=list)
    counts: list[int] | None = None
    stock: int | None = None
    single: bool = False
    other_hands: dict[int, list[Card]] = field(default_factory=dict)


@dataclass
class _Layout:
    """Which positions each group of cards takes (positions are labels: the stock keeps
    the last ones, since it is drawn from its start)."""

    others: list[int]         # the seats whose hands are counted, not named
    counts: list[int]         # their hand sizes
    taken_k: dict[int, int]   # side → the pozzetto it has taken
    pool: list[int]           # positions for the named cards and the counted hands
    untaken_pos: list[int]    # the pozzetti not taken yet
    stock_pos: list[int]
    under: int                # cards under the discard pile


def parse_position(text: str) -> BurracoHand:
    """Build the hand state a position line describes (every position known)."""
    sec = _read_sections(text)
    opener_shift = -1 if sec.rules.opener_right_of_dealer else 1
    st = BurracoHand(sec.rules, sec.n, (sec.seat - opener_shift) % sec.n)
    free: dict[Card, list[int]] = {}
    for cid, c in enumerate(st.deck.cards):
        free.setdefault(c, []).append(cid)
    lay = _lay_out(st, sec)
    st.owner = [STOCK] * len(st.deck)
    st.knowledge = Knowledge(len(st.deck))
    st.hands = [[] for _ in range(sec.n)]
    it = iter(lay.pool)
    for p, c in _place_named(st, sec, it):   # then each learns its card
        if not free.get(c):
            raise PositionError(f"too many copies of {c} in this position")
        st.learn(p, free[c].pop(0))
    _place_the_rest(st, lay, it, free)
    _set_turn(st, sec, lay)
    return st


def _read_sections(text: str) -> _Sections:
    """The header and every section of a position line (see the module docstring)."""
    parts = [p.strip() for p in text.split("|") if p.strip()]
    if not parts:
        raise PositionError("empty position")
    head = parts[0].split()
    if len(head) != 2 or head[0] not in PRESETS:
        raise PositionError(f"position starts with '<variant> <seats>', not {parts[0]!r}")
    sec = _Sections(PRESETS[head[0]], int(head[1]))
    for part in parts[1:]:
        word, _, rest = part.partition(" ")
        if word == "turn":
            a = rest.split()
            sec.seat, sec.phase = int(a[0]), (a[1] if len(a) > 1 else "draw")
        elif word == "hand":
            sec.hand = parse_cards(rest)
        elif word.startswith("hand") and word[4:].isdigit():
            sec.other_hands[int(word[4:])] = parse_cards(rest)
        elif word.startswith("side"):
            sec.sides[int(word[4:])] = [parse_cards(m) for m in rest.split(";") if m.strip()]
        elif word == "pile":
            sec.pile = parse_cards(rest)
        elif word == "pozzetto":
            sec.pozz = [int(x) for x in rest.split()]
        elif word == "counts":
            sec.counts = [int(x) for x in rest.split()]
        elif word == "stock":
            sec.stock = int(rest)
        elif word == "single":
            sec.single = True
        else:
            raise PositionError(f"unknown section {word!r}")
    return sec


def _lay_out(st: BurracoHand, sec: _Sections) -> _Layout:
    """How many cards each place gets, checked to add up to the deck; the untaken pozzetti
    are relabelled from the front of the positions, the stock keeps the last ones."""
    N = len(st.deck)
    taken_k = {t: i for i, t in enumerate(sorted(sec.pozz))}
    untaken = [k for k in range(len(st.pozzetti)) if k not in taken_k.values()]
    n_untaken = sum(len(st.pozzetti[k].positions) for k in untaken)
    named = len(sec.hand) + sum(len(m) for ms in sec.sides.values() for m in ms) + len(sec.pile)
    named += sum(len(h) for h in sec.other_hands.values())
    others = [s for s in range(sec.n) if s != sec.seat and s not in sec.other_hands]
    counts, stock = sec.counts, sec.stock
    if counts is None and stock is not None:  # the other hands hold whatever is left
        left = N - named - n_untaken - stock
        counts = [left // len(others) + (1 if i < left % len(others) else 0)
                  for i in range(len(others))]
    counts = counts or [11] * len(others)
    under = 0
    if stock is None:
        stock = N - named - sum(counts) - n_untaken
    else:  # what is left over lies under the discard pile (a late-hand pile is big)
        under = N - named - sum(counts) - n_untaken - stock
    if stock < 0 or under < 0 or named + sum(counts) + n_untaken + stock + under != N:
        raise PositionError("the cards named, the hand counts and the stock do not add up "
                            f"to the {N}-card deck")
    pool = list(range(N - stock))
    untaken_pos: list[int] = []
    for k in untaken:
        size = len(st.pozzetti[k].positions)
        st.pozzetti[k].positions = tuple(pool[:size])
        untaken_pos += pool[:size]
        del pool[:size]
    return _Layout(others, counts, taken_k, pool, untaken_pos, list(range(N - stock, N)),
                   under)


def _place_named(st: BurracoHand, sec: _Sections, it: Iterator[int]) -> list[tuple[int, Card]]:
    """Put every card the line names in its place (the hand to move, the melds, the pile,
    the other hands named); returns (position, card) for each, in that order."""
    assign: list[tuple[int, Card]] = []
    for c in sec.hand:
        p = next(it)
        st.hands[sec.seat].append(p)
        st.owner[p] = sec.seat
        assign.append((p, c))
    for team, ms in sorted(sec.sides.items()):
        for cards in ms:
            arr = arrange_new(cards, sec.rules, prefer_high=is_wild(cards[-1]))
            ps = [next(it) for _ in cards]
            placed = [ps[i] for i in arr.order]
            for p, c in zip(ps, cards):
                assign.append((p, c))
                st.owner[p] = MELD
            wild = None if arr.wild is None else placed[arr.order.index(arr.wild)]
            st.melds[st.next_meld] = MeldState(st.next_meld, team, arr.kind, placed, arr.start,
                                               arr.suit, wild, team, moves=[tuple(placed)])
            st.next_meld += 1
    st.pile = []
    for c in sec.pile:
        p = next(it)
        st.pile.append(p)
        st.owner[p] = PILE
        assign.append((p, c))
    for s, cards in sorted(sec.other_hands.items()):
        for c in cards:
            p = next(it)
            st.hands[s].append(p)
            st.owner[p] = s
            assign.append((p, c))
    return assign


def _place_the_rest(st: BurracoHand, lay: _Layout, it: Iterator[int],
                    free: dict[Card, list[int]]) -> None:
    """The counted hands, the cards under the pile, the untaken pozzetti and the stock get
    the cards not named, in deck order."""
    for s, k in zip(lay.others, lay.counts):
        for _ in range(k):
            p = next(it)
            st.hands[s].append(p)
            st.owner[p] = s
    under_pos = [next(it) for _ in range(lay.under)]
    st.pile[:0] = under_pos
    for p in under_pos:
        st.owner[p] = PILE
    rest_cards = sorted(cid for c in free for cid in free[c])
    rest_pos = [p for s in lay.others for p in st.hands[s]] + under_pos + lay.untaken_pos \
        + lay.stock_pos
    for p, cid in zip(rest_pos, rest_cards):
        st.learn(p, cid)
    for p in lay.untaken_pos:
        st.owner[p] = POZZ
    st.stock_next = len(st.deck) - len(lay.stock_pos)
    for pz in st.pozzetti:
        pz.taken_by = None
        pz.in_hand = False
    for t, k in lay.taken_k.items():
        st.pozzetti[k].taken_by = t
        st.pozzetti[k].in_hand = True
        st.team_pozzetto[t] = k


def _set_turn(st: BurracoHand, sec: _Sections, lay: _Layout) -> None:
    """Who moves, in which phase, and whether a one-card pile was just taken."""
    st.turn = sec.seat
    st._phase = sec.phase
    st.first_turn = False
    if sec.single and st.pile:
        st.took_single = None
    if sec.single:
        # the card taken from a one-card pile is the last card of the hand as written
        st.took_single = st.hands[sec.seat][-1] if sec.rules.single_card_pile else None
        st.took_discard_only = True
