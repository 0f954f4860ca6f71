"""Melds as pure functions on card faces: validation, placement of wild cards, classification.

A run is a row of *slots* 1..14 (1 = low ace, 14 = high ace). A card is **natural** at a slot
when it is that rank of the run's suit (an ace at 1 or 14); anything else at a slot must be a
wild card (a joker, or any 2) standing for the missing card. So a 2♥ at slot 2 of a ♥ run is
natural (FIBUR-13), and a 2♥ at slot 5 is a wild. Deriving "natural" from the position keeps
one rule for every seed: the same 2 turns wild or natural as the run changes.

Functions take `Sequence[Card]` and return `Arrangement`s holding *indexes* into the input, so
callers (the hand state) map them back to deck positions. Failures raise `MeldError` with an
abstract rule key that the caller turns into the preset's rule id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..cards import Card, Suit
from .rules import RuleSet

Kind = Literal["run", "set"]


class MeldError(ValueError):
    """A meld the rules refuse; `key` is the abstract rule key (see rules.FIBUR_CITE)."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        self.message = message
        super().__init__(message)


def _again(err: MeldError) -> MeldError:
    """A fresh copy of a refusal kept in a local, to raise: raising the local itself would make
    a reference cycle (the error, its traceback, the frame, the local), freed only by the
    garbage collector, and with it every frame up the stack and what they hold."""
    return MeldError(err.key, err.message)


def is_wild(card: Card) -> bool:
    """Jokers and every 2 can stand for another card."""
    return card.rank == 0 or card.rank == 2


def natural_at(card: Card, slot: int, suit: Suit) -> bool:
    """Is `card` the natural card of `slot` in a run of `suit`?"""
    if card.suit is not suit:
        return False
    return card.rank == slot or (card.rank == 1 and slot == 14)


def card_text(card: Card) -> str:
    return card.display()


@dataclass(frozen=True)
class Arrangement:
    """How cards stand in a meld: `order` indexes the input cards in placed order.

    For a run `start` is the slot of the first card; for a set it is the set's rank.
    `wild` is the input index of the one card standing for another (None if clean).
    """

    kind: Kind
    order: tuple[int, ...]
    start: int
    suit: Suit | None
    wild: int | None

    @property
    def end(self) -> int:
        return self.start + len(self.order) - 1

    def wild_slot(self) -> int | None:
        if self.wild is None or self.kind != "run":
            return None
        return self.start + self.order.index(self.wild)


# ----------------------------------------------------------------------------------------
# runs

def _run_options(cards: Sequence[Card], rules: RuleSet
                 ) -> tuple[list[Arrangement], MeldError | None]:
    """Every valid placement of `cards` as one run (any number of wilds ≤ the limit): a lone
    ace is tried at both ends (slot 1 and slot 14); two aces only where the preset plays runs
    from ace to ace (BURACO-18), and then they stand at both ends. With no placement, the
    error is the first reason met."""
    idx_nat = [i for i, c in enumerate(cards) if not is_wild(c)]
    if not idx_nat:
        return [], MeldError("wild_only", "a meld needs natural cards, not only wild cards")
    suits = {cards[i].suit for i in idx_nat}
    if len(suits) > 1:
        return [], MeldError("run", "a run is made of cards of one suit")
    suit = cards[idx_nat[0]].suit
    assert suit is not None
    aces = [i for i in idx_nat if cards[i].rank == 1]
    twos = [i for i, c in enumerate(cards) if c.rank == 2 and c.suit is suit]
    if len(aces) > 1 and not (rules.ace_to_ace and len(aces) == 2):
        return [], MeldError("ace", "a run holds one ace, low or high, not both (no wrap-around)")
    naturals: dict[int, int] = {}    # slot -> card index, the aces aside
    for i in idx_nat:
        r = cards[i].rank
        if r == 1:
            continue
        if r in naturals:
            return [], MeldError("run", f"a run cannot hold two {cards[i].display()}")
        naturals[r] = i
    ace_choices: list[tuple[int, ...]] = [()]
    if len(aces) == 2:
        ace_choices = [(1, 14)]
    elif aces:
        ace_choices = [(1,), (14,)]
    # copies of the same 2 are interchangeable: one is tried as natural
    two_choices: list[int | None] = [None, *twos[:1]]
    out: list[Arrangement] = []
    err: MeldError | None = None
    for ace_slots in ace_choices:
        for nat_two in two_choices:
            slot_of = dict(naturals)
            for k, i in enumerate(aces):
                slot_of[ace_slots[k]] = i
            if nat_two is not None:
                slot_of[2] = nat_two
            placed, why = _run_placements(cards, rules, slot_of, len(aces), suit)
            out += placed
            err = err or why
    # a 2 standing in its own natural slot is natural, never "the wild"
    fixed: list[Arrangement] = []
    for a in out:
        if a.wild is not None and natural_at(cards[a.wild], a.wild_slot() or 0, suit):
            a = Arrangement(a.kind, a.order, a.start, a.suit, None)
        if a not in fixed:
            fixed.append(a)
    return fixed, err


def _run_placements(cards: Sequence[Card], rules: RuleSet, slot_of: dict[int, int],
                    n_aces: int, suit: Suit) -> tuple[list[Arrangement], MeldError | None]:
    """The run's placements once each natural card has its slot (`slot_of`: the aces at
    the ends chosen, a 2 as natural or not): the other cards are wild and fill the gaps,
    or, with none, stand at either free end. None, and why, when the rule set's limits
    (wilds, gaps, naturals, length) leave no placement."""
    wilds = [i for i in range(len(cards)) if i not in slot_of.values()]
    if len(wilds) > rules.max_wilds:
        return [], MeldError("wild_limit", "a meld holds at most one wild card "
                             "(a 2 counts as natural only in its own place of its own suit's run)")
    slots = sorted(slot_of)
    lo, hi = slots[0], slots[-1]
    gaps = [s for s in range(lo, hi + 1) if s not in slot_of]
    if len(gaps) > len(wilds) and n_aces == 2:
        return [], MeldError("ace", "two aces stand only at both ends of a run from "
                             "ace to ace (A-2-…-K-A)")
    if len(gaps) > len(wilds):
        return [], MeldError("run", "the cards of a run must follow each other "
                             "(one wild card may fill one gap)")
    if len(slot_of) > rules.run_max_naturals:
        return [], MeldError("max_len", f"a run holds at most "
                             f"{rules.run_max_naturals} natural cards plus one wild")
    if not wilds:
        return [Arrangement("run", tuple(slot_of[s] for s in range(lo, hi + 1)),
                            lo, suit, None)], None
    w = wilds[0]
    if gaps:
        filled = dict(slot_of)
        filled[gaps[0]] = w
        return [Arrangement("run", tuple(filled[s] for s in range(lo, hi + 1)),
                            lo, suit, w)], None
    if lo == 1 and hi == 14:
        return [], MeldError("max_len", "this run has no room left for a wild card")
    out = []
    if lo > 1:
        out.append(Arrangement("run", (w,) + tuple(slot_of[s] for s in range(lo, hi + 1)),
                               lo - 1, suit, w))
    if hi < 14:
        out.append(Arrangement("run", tuple(slot_of[s] for s in range(lo, hi + 1)) + (w,),
                               lo, suit, w))
    return out, None


def _wild_is_free(a: Arrangement) -> bool:
    return a.wild is not None and (a.order[0] == a.wild or a.order[-1] == a.wild)


def _free_end_ok(a: Arrangement, end: str) -> bool:
    """Placement rule for a wild not standing inside the run.

    "low": it stands below the lowest card, or above the highest when the run already starts
    at the low ace (FIBUR-14, PAGAT-13). "either": the player chooses (BURACO-6, CLASSIC-5).
    """
    if not _wild_is_free(a) or end == "either":
        return True
    if a.order[0] == a.wild:
        return True
    return a.start == 1  # wild on top only when a low ace closes the bottom


def _ace_high(a: Arrangement, cards: Sequence[Card]) -> bool | None:
    """Where the run's one ace stands: True after the king, False before the 2; None for a
    run without an ace (or from ace to ace, where both ends are taken)."""
    if a.kind != "run":
        return None
    low = a.start == 1 and cards[a.order[0]].rank == 1
    high = a.end == 14 and cards[a.order[-1]].rank == 1
    return None if low == high else high


def _typed_ace_end(cards: Sequence[Card]) -> bool | None:
    """The player's word on the ace of a new run, read from the order typed: the ace typed
    after every other natural card goes high, typed before them all goes low (FIBUR-10)."""
    nat = [c for c in cards if not is_wild(c)]
    aces = [i for i, c in enumerate(nat) if c.rank == 1]
    if len(aces) != 1 or len(nat) < 2:
        return None
    return True if aces[0] == len(nat) - 1 else False if aces[0] == 0 else None


_CLASS_RANK = {"pulito": 3, "semipuro": 2, "sporco": 1, None: 0}


def _pick(options: list[Arrangement], cards: Sequence[Card], rules: RuleSet,
          wild_high: bool | None, ace_high: bool | None = None) -> Arrangement:
    """The placement the player gets among the legal ones: fewest wilds first; then where the
    player asked the ace to go, then the free wild; then the better burraco (FIBUR-27: the
    ace after the king may make a semipuro); then low (the ace before the 2, the wild below).
    """
    if len(options) == 1:
        return options[0]

    def key(ia: tuple[int, Arrangement]) -> tuple[int, ...]:
        i, a = ia
        free_top = _wild_is_free(a) and a.order[-1] == a.wild
        ace = _ace_high(a, cards)
        return (
            0 if a.wild is None else 1,
            int(ace_high is not None and ace is not None and ace != ace_high),
            int(wild_high is not None and not (_wild_is_free(a) and free_top == wild_high)),
            -_CLASS_RANK[classify(cards, a, rules)],
            int(free_top),
            int(bool(ace)),
            i,
        )

    return min(enumerate(options), key=key)[1]


def arrange_run(cards: Sequence[Card], rules: RuleSet, prefer_high: bool | None = None,
                ace_high: bool | None = None) -> Arrangement:
    """Place `cards` as a new run, or raise MeldError. `prefer_high` / `ace_high`: the
    player's word on where a free wild / the ace goes, where the rules leave a choice."""
    if len(cards) < 3:
        raise MeldError("run", "a meld needs at least three cards")
    options, err = _run_options(cards, rules)
    options = [a for a in options if _free_end_ok(a, rules.free_wild_end)]
    if not options:
        raise _again(err) if err else MeldError("wild_place", "a free wild card must stand at the low end")
    return _pick(options, cards, rules, prefer_high, ace_high)


# ----------------------------------------------------------------------------------------
# sets

def arrange_set(cards: Sequence[Card], rules: RuleSet) -> Arrangement:
    """Place `cards` as a set (naturals in the given order, the wild last), or raise."""
    if len(cards) < 3:
        raise MeldError("set", "a meld needs at least three cards")
    nat = [i for i, c in enumerate(cards) if not is_wild(c)]
    wild = [i for i, c in enumerate(cards) if is_wild(c)]
    if not nat:
        raise MeldError("wild_only", "a set of wild cards (jokers or twos) is not allowed")
    ranks = {cards[i].rank for i in nat}
    if len(ranks) > 1:
        raise MeldError("set", "a set is made of cards of one rank")
    if len(wild) > rules.max_wilds:
        raise MeldError("wild_limit", "a meld holds at most one wild card")
    if len(nat) > rules.set_max_naturals:
        raise MeldError("max_len", f"a set holds at most {rules.set_max_naturals} natural "
                        "cards plus one wild")
    return Arrangement("set", tuple(nat) + tuple(wild), cards[nat[0]].rank, None,
                       wild[0] if wild else None)


def looks_like_set(cards: Sequence[Card]) -> bool:
    """Two or more naturals, all of one rank: meant as a set (a run could not hold them)."""
    nat = [c for c in cards if not is_wild(c)]
    return len(nat) >= 2 and len({c.rank for c in nat}) == 1


def arrange_new(cards: Sequence[Card], rules: RuleSet, prefer_high: bool | None = None
                ) -> Arrangement:
    """Place a new meld (run or set), or raise MeldError naming the rule broken."""
    if looks_like_set(cards):
        if not rules.sets_allowed:
            raise MeldError("sets_forbidden", "only runs may be melded in this game "
                            "(sets of one rank are not played)")
        return arrange_set(cards, rules)
    return arrange_run(cards, rules, prefer_high, _typed_ace_end(cards))


# ----------------------------------------------------------------------------------------
# attaching

def arrange_attach(old: Sequence[Card], old_arr: Arrangement, new: Sequence[Card],
                   rules: RuleSet, wild_end: str | None = None) -> Arrangement:
    """Placement after attaching `new` to a meld whose cards (in placed order) are `old`.

    Returned indexes refer to `list(old) + list(new)`. `wild_end` ('low'/'high') is the
    player's word: it places an attached ace where it fits at both ends (FIBUR-10), otherwise
    a wild where the rules leave a choice. The old wild never leaves the meld
    (FIBUR-16); no new wild may take over from it (PAGAT-14); with sticky wilds (classic,
    Brazilian) it moves only when its own card arrives (CLASSIC-5, BURACO-7).
    """
    if not new:
        raise MeldError("attach_own", "attach at least one card")
    cards = list(old) + list(new)
    n_old = len(old)
    old_wild = None if old_arr.wild is None else old_arr.order.index(old_arr.wild)
    if old_arr.kind == "set":
        for c in new:
            if not is_wild(c) and c.rank != old_arr.start:
                raise MeldError("set", f"{c.display()} does not belong to a set of "
                                f"{Card(old_arr.start, Suit.SPADES).display()[:-1]}s")
        arr = arrange_set(cards, rules)
        return arr
    options, err = _run_options(cards, rules)
    if not options:
        raise _again(err) if err else MeldError("run", "these cards do not extend this run")
    old_slot = None if old_wild is None else old_arr.start + old_wild
    kept: list[Arrangement] = []
    why: MeldError | None = None
    for a in options:
        if old_wild is not None and a.wild is not None and a.wild != old_wild:
            why = why or MeldError("wild_stays", "a wild card cannot be replaced by another "
                                   "wild card; the one already there stays")
            continue
        if old_wild is not None and a.wild is None and not _natural_card_arrived(
                cards, a, old_slot, n_old):
            # the old wild became natural (a 2 at its own slot) without its card arriving
            why = why or MeldError("wild_stays", "a wild card stays wild until the card it "
                                   "stands for is attached")
            continue
        replaced = old_slot is not None and _natural_card_arrived(cards, a, old_slot, n_old)
        if rules.wild_moves_freely:
            if not _free_end_ok(a, rules.free_wild_end):
                continue
        else:
            if old_wild is not None and not replaced:
                if a.wild_slot() != old_slot:
                    why = why or MeldError("wild_moves", "the wild card moves only when the "
                                           "card it stands for is attached")
                    continue
            elif old_wild is not None and replaced:
                if not _free_end_ok(a, rules.replaced_wild_end):
                    continue
            elif not _free_end_ok(a, rules.free_wild_end):
                continue
        kept.append(a)
    if not kept:
        raise _again(why) if why else MeldError("wild_place", "the wild card cannot stand there")
    # one word, `low` or `high`: it places an attached ace where both ends fit, else the wild
    prefer = None if wild_end is None else wild_end == "high"
    ace_varies = len({_ace_high(a, cards) for a in kept}) > 1
    if ace_varies and any(c.rank == 1 for c in new):
        return _pick(kept, cards, rules, None, prefer)
    return _pick(kept, cards, rules, prefer)


def _natural_card_arrived(cards: Sequence[Card], a: Arrangement, slot: int | None,
                          n_old: int) -> bool:
    """Did a newly attached natural card take `slot` (the old wild's place)?"""
    if slot is None or not (a.start <= slot <= a.end):
        return False
    i = a.order[slot - a.start]
    return i >= n_old and a.suit is not None and natural_at(cards[i], slot, a.suit)


# ----------------------------------------------------------------------------------------
# classification

Classification = Literal["pulito", "semipuro", "sporco"]

BURRACO_MIN = 7
"""FIBUR-26: a meld of seven cards or more is a burraco."""


def classify(cards: Sequence[Card], arr: Arrangement, rules: RuleSet) -> Classification | None:
    """None below BURRACO_MIN (7) cards; pulito (no wild standing in), semipuro (FIBUR: ≥8 cards and 7
    naturals in a row on one side of the wild), else sporco."""
    n = len(arr.order)
    if n < BURRACO_MIN:
        return None
    if arr.wild is None:
        return "pulito"
    if rules.semipuro_bonus is not None and n >= 8:
        k = arr.order.index(arr.wild)
        if k >= 7 or n - k - 1 >= 7:
            return "semipuro"
    return "sporco"


def royal_kind(cards: Sequence[Card], arr: Arrangement, one_move: bool) -> int:
    """Brazilian canastas laid in one move (BURACO-14): 13 clean cards — every rank once, A to
    K, whichever end the ace stands at — or 14 (A–A, both aces); else 0."""
    if not one_move or arr.kind != "run" or arr.wild is not None:
        return 0
    n = len(arr.order)
    return n if n in (13, 14) else 0
