"""Lazy candidate generation: melds and attachments a hand could make.

Enumerating every meld of a hand is exponential (copies of the same card, every sub-run, every
wild), so these generators work on *faces* (one position per distinct card face and use) and
yield candidates lazily, longest first; the hand state validates each one with the same code
`apply` uses before offering it. Candidates are tuples of deck positions in typed order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product

from ..base import Pos
from ..cards import FRENCH_SUITS, JOKER, Card, Suit
from .melds import Arrangement, is_wild
from .rules import RuleSet

HandCards = Sequence[tuple[Pos, Card]]


def by_face(hand: HandCards) -> dict[Card, list[Pos]]:
    """Positions of the hand grouped by face (copies of one card are interchangeable)."""
    out: dict[Card, list[Pos]] = {}
    for pos, card in hand:
        out.setdefault(card, []).append(pos)
    return out


_WILDS: tuple[Card, ...] = (JOKER, *(Card(2, s) for s in FRENCH_SUITS))
_BY_SUIT: dict[Suit, tuple[tuple[int, Card], ...]] = {
    s: tuple((r, Card(r, s)) for r in range(1, 14)) for s in FRENCH_SUITS}


def _wild_faces(faces: dict[Card, list[Pos]]) -> list[Card]:
    return [w for w in _WILDS if w in faces]


def run_candidates(hand: HandCards, rules: RuleSet) -> Iterator[tuple[Pos, ...]]:
    """Runs of ≥3 cards: every window of slots with at most one gap or end filled by a wild.

    With a free-wild choice ("either") both placements are offered (wild typed first/last).
    """
    faces = by_face(hand)
    wilds = _wild_faces(faces)
    for suit in FRENCH_SUITS:
        slots: dict[int, Card] = {}
        for r, c in _BY_SUIT[suit]:
            if c in faces:
                if r == 1:
                    slots[1] = c
                    slots[14] = c
                else:
                    slots[r] = c
        natural_count = sum(1 for s in slots if s != 14)
        if natural_count < 2:
            continue
        found: list[tuple[int, tuple[Pos, ...]]] = []
        present = sorted(slots)
        for ia, a in enumerate(present):
            for b in present[ia + 1:]:
                if b - a + 1 > 14:
                    continue
                missing = [s for s in range(a, b + 1) if s not in slots]
                if len(missing) > 1:
                    break
                nat_slots = [s for s in range(a, b + 1) if s in slots]
                if 1 in nat_slots and 14 in nat_slots and not rules.ace_to_ace:
                    continue
                if len(nat_slots) > rules.run_max_naturals:
                    continue
                used: dict[Card, int] = {}
                picked: list[Pos] = []
                ok = True
                for s in nat_slots:
                    c = slots[s]
                    k = used.get(c, 0)
                    if k >= len(faces[c]):
                        ok = False
                        break
                    used[c] = k + 1
                    picked.append(faces[c][k])
                if not ok:
                    continue
                if not missing and len(picked) >= 3:
                    found.append((len(picked), tuple(picked)))
                for w in wilds:
                    k = used.get(w, 0)
                    if k >= len(faces[w]):
                        continue
                    wp = faces[w][k]
                    if missing:
                        order = list(picked)
                        order.insert(missing[0] - a, wp)
                        found.append((len(order), tuple(order)))
                    else:
                        found.append((len(picked) + 1, (wp, *picked)))
                        found.append((len(picked) + 1, (*picked, wp)))
        found.sort(key=lambda t: -t[0])
        for _, cand in found:
            yield cand


def set_candidates(hand: HandCards, rules: RuleSet) -> Iterator[tuple[Pos, ...]]:
    """Sets: every choice of copies of one rank (≥3, or ≥2 with one wild), biggest first."""
    if not rules.sets_allowed:
        return
    faces = by_face(hand)
    wilds = _wild_faces(faces)
    for rank in (1, *range(3, 14)):
        present = [(c, ps) for c, ps in faces.items() if c.rank == rank and not is_wild(c)]
        total = sum(len(ps) for _, ps in present)
        if total < 2:
            continue
        ranges = [range(len(ps) + 1) for _, ps in present]
        combos = []
        for counts in product(*ranges):
            n = sum(counts)
            if n < 2 or n > rules.set_max_naturals:
                continue
            cards = tuple(p for (c, ps), k in zip(present, counts) for p in ps[:k])
            combos.append(cards)
        combos.sort(key=lambda t: -len(t))
        for cards in combos:
            if len(cards) >= 3:
                yield cards
            for w in wilds:
                yield cards + (faces[w][0],)


def meld_candidates(hand: HandCards, rules: RuleSet) -> Iterator[tuple[Pos, ...]]:
    yield from run_candidates(hand, rules)
    yield from set_candidates(hand, rules)


def attach_candidates(hand: HandCards, meld_cards: Sequence[Card], arr: Arrangement,
                      rules: RuleSet) -> Iterator[tuple[tuple[Pos, ...], str | None]]:
    """Cards that might extend one meld: single cards near its ends or in its wild's slot, a
    wild (both ends where that is a choice), and a natural two slots away with a wild between.
    An ace comes with each word (`low`, `high`) where the rules would not offer one anyway.
    Pre-filtered by face only; the state validates each one and keeps distinct results."""
    faces = by_face(hand)
    wilds = _wild_faces(faces)
    has_wild = arr.wild is not None
    either = rules.free_wild_end == "either" or (
        not rules.wild_moves_freely and rules.replaced_wild_end == "either")
    ends: tuple[str | None, ...] = ("low", "high") if either else (None,)
    if arr.kind == "set":
        for c, ps in faces.items():
            if not is_wild(c) and c.rank == arr.start:
                yield (ps[0],), None
        if not has_wild:
            for w in wilds:
                yield (faces[w][0],), None
        return
    suit = arr.suit
    assert suit is not None
    lo, hi = arr.start, arr.end
    near: list[tuple[int, Card]] = []
    for c in faces:
        if c.suit is not suit:  # jokers have no suit; a 2 of the suit may stand natural
            continue
        slots = (1, 14) if c.rank == 1 else (c.rank,)
        for s in slots:
            if lo - 2 <= s <= hi + 2:
                near.append((s, c))
    # an ace that fits at both ends goes where the player says (FIBUR-10): offer both words
    ace_ends = ends if ends != (None,) else (None, "low", "high")
    for s, c in near:
        if s in (lo - 1, hi + 1) or (lo <= s <= hi) or (has_wild and s in (lo - 2, hi + 2)):
            for e in (ace_ends if c.rank == 1 else ends):
                yield (faces[c][0],), e
    if not has_wild:
        for w in wilds:
            for e in ends:
                yield (faces[w][0],), e
        for s, c in near:
            if s in (lo - 2, hi + 2):
                for w in wilds:
                    if w == c and len(faces[w]) < 2:
                        continue
                    wp = faces[w][1] if w == c else faces[w][0]
                    yield (faces[c][0], wp), None
