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

from ..base import Knowledge
from ..cards import Card, parse_cards
from .melds import arrange_new, is_wild
from .rules import PRESETS
from .state import MELD, PILE, POZZ, STOCK, BurracoHand, MeldState


class PositionError(ValueError):
    """A position text that cannot be built (unknown variant, too many copies of a card …)."""


def parse_position(text: str) -> BurracoHand:
    """Build the hand state a position line describes (every position known)."""
    parts = [p.strip() for p in text.split("|") if p.strip()]
    if not parts:
        raise PositionError("empty position")
    head = parts[0].split()
    if len(head) != 2 or head[0] not in PRESETS:
        raise PositionError(f"position starts with '<variant> <seats>', not {parts[0]!r}")
    rules = PRESETS[head[0]]
    n = int(head[1])
    seat, phase = 0, "draw"
    hand: list[Card] = []
    sides: dict[int, list[list[Card]]] = {}
    pile: list[Card] = []
    pozz: list[int] = []
    counts: list[int] | None = None
    stock: int | None = None
    single = False
    other_hands: dict[int, list[Card]] = {}
    for part in parts[1:]:
        word, _, rest = part.partition(" ")
        if word == "turn":
            a = rest.split()
            seat, phase = int(a[0]), (a[1] if len(a) > 1 else "draw")
        elif word == "hand":
            hand = parse_cards(rest)
        elif word.startswith("hand") and word[4:].isdigit():
            other_hands[int(word[4:])] = parse_cards(rest)
        elif word.startswith("side"):
            sides[int(word[4:])] = [parse_cards(m) for m in rest.split(";") if m.strip()]
        elif word == "pile":
            pile = parse_cards(rest)
        elif word == "pozzetto":
            pozz = [int(x) for x in rest.split()]
        elif word == "counts":
            counts = [int(x) for x in rest.split()]
        elif word == "stock":
            stock = int(rest)
        elif word == "single":
            single = True
        else:
            raise PositionError(f"unknown section {word!r}")
    opener_shift = -1 if rules.opener_right_of_dealer else 1
    st = BurracoHand(rules, n, (seat - opener_shift) % n)
    N = len(st.deck)
    free: dict[Card, list[int]] = {}
    for cid, c in enumerate(st.deck.cards):
        free.setdefault(c, []).append(cid)

    def take(c: Card) -> int:
        if not free.get(c):
            raise PositionError(f"too many copies of {c} in this position")
        return free[c].pop(0)

    # positions are labels: the stock keeps the last ones (it is drawn from its start);
    # the untaken pozzetti and everything named are relabelled from the rest
    taken_k = {}
    for i, t in enumerate(sorted(pozz)):
        taken_k[t] = i
    untaken = [k for k in range(len(st.pozzetti)) if k not in taken_k.values()]
    n_untaken = sum(len(st.pozzetti[k].positions) for k in untaken)
    others = [s for s in range(n) if s != seat]
    named = len(hand) + sum(len(m) for ms in sides.values() for m in ms) + len(pile)
    named += sum(len(h) for h in other_hands.values())
    others = [s for s in others if s not in other_hands]
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
    stock_pos = list(range(N - stock, N))
    pool = list(range(N - stock))
    untaken_pos: list[int] = []
    for k in untaken:
        size = len(st.pozzetti[k].positions)
        st.pozzetti[k].positions = tuple(pool[:size])
        untaken_pos += pool[:size]
        del pool[:size]
    st.owner = [STOCK] * N
    st.knowledge = Knowledge(N)
    st.hands = [[] for _ in range(n)]
    assign: list[tuple[int, Card]] = []
    it = iter(pool)
    for c in hand:
        p = next(it)
        st.hands[seat].append(p)
        st.owner[p] = seat
        assign.append((p, c))
    for team, ms in sorted(sides.items()):
        for cards in ms:
            arr = arrange_new(cards, rules, prefer_high=is_wild(cards[-1]))
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
    for c in pile:
        p = next(it)
        st.pile.append(p)
        st.owner[p] = PILE
        assign.append((p, c))
    for s, cards in sorted(other_hands.items()):
        for c in cards:
            p = next(it)
            st.hands[s].append(p)
            st.owner[p] = s
            assign.append((p, c))
    for cid_card, p in ((c, p) for p, c in assign):
        st.learn(p, take(cid_card))
    for s, k in zip(others, counts):
        for _ in range(k):
            p = next(it)
            st.hands[s].append(p)
            st.owner[p] = s
    under_pos = [next(it) for _ in range(under)]
    st.pile[:0] = under_pos
    for p in under_pos:
        st.owner[p] = PILE
    rest_cards = [cid for c in free for cid in free[c]]
    rest_cards.sort()
    rest_pos = [p for s in others for p in st.hands[s]] + under_pos + untaken_pos + stock_pos
    for p, cid in zip(rest_pos, rest_cards):
        st.learn(p, cid)
    for p in untaken_pos:
        st.owner[p] = POZZ
    st.stock_next = N - stock
    for k, pz in enumerate(st.pozzetti):
        pz.taken_by = None
        pz.in_hand = False
    for t, k in taken_k.items():
        st.pozzetti[k].taken_by = t
        st.pozzetti[k].in_hand = True
        st.team_pozzetto[t] = k
    st.turn = seat
    st._phase = phase
    st.first_turn = False
    if single and st.pile:
        st.took_single = None
    if single:
        # the card taken from a one-card pile is the last card of the hand as written
        st.took_single = st.hands[seat][-1] if rules.single_card_pile else None
        st.took_discard_only = True
    return st
