"""Compact card codes and memo tables for the pure meld functions.

Why: move generation asks the same questions over and over — is 7♥ 8♥ 9♥ a run, what does
4♠ do to this meld — while only one or two cards of a hand change between positions. The
answers are pure functions of the faces and the rule set (melds.py), so they are computed once
and looked up afterwards by a tuple of small ints. Nothing here decides a rule: a miss calls
the function in melds.py, and a hit returns what that call returned (or raises the same
MeldError again).

Two tables per rule set, each bounded: `verdicts` holds the meld rules' answers (a few thousand
faces combinations cover what hands ask), `table` the options a hand's cards make (keyed on the
cards, so new keys come with every hand). Apart, the options' turnover never evicts a verdict.

A face's *code* is ``rank * 4 + suit`` (suit 0..3 in `FRENCH_SUITS` order; the joker is 0), so
a hand is also a row of 56 counts and one suit's ranks are a slice of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import islice
from typing import cast

from ..cards import FRENCH_SUITS, JOKER, Card, Suit
from .melds import Arrangement, MeldError, arrange_attach, arrange_new, is_wild
from .rules import RuleSet

N_CODES = 56
_SUIT_INDEX = {s: i for i, s in enumerate(FRENCH_SUITS)}
CODE_CARD: list[Card | None] = [None] * N_CODES
CODE_CARD[0] = JOKER
for _r in range(1, 14):
    for _s, _suit in enumerate(FRENCH_SUITS):
        CODE_CARD[_r * 4 + _s] = Card(_r, _suit)
_CODE_OF: dict[Card, int] = {c: i for i, c in enumerate(CODE_CARD) if c is not None}
FACES: list[Card] = [JOKER if c is None else c for c in CODE_CARD]
"""The face of each code, typed as a face (codes 1 to 3 are never used: they read the
joker here)."""
WILD_CODES: tuple[int, ...] = (0, 8, 9, 10, 11)      # the joker, then 2♥ 2♦ 2♣ 2♠
MAX_ENTRIES = 8192
"""An options table this full forgets its older half: ~900 bytes an entry (a suit's runs, a
rank's sets, a meld's attachments face by face; tracemalloc after 1,500 `bench engine` hands:
7.2 MB at the bound), so at most ~7 MB per rule set. A host runs the engine for every table it
serves; 60,000 entries (36 MB) showed as +85 KB of host RSS a hand at 100 tables (`bench
host`), for ~2 % of `bench engine`'s speed. Forgetting the older half (insertion order)
instead of everything keeps what the current hands keep asking, for the same bound."""
MAX_VERDICTS = 16384
"""The same for a verdicts table (the meld rules' answers and the run clusters built on
them): a few thousand keys cover what hands ask (a long bench: ~3,500 verdicts and ~7,000
clusters after 1,500 hands, 33 MB by tracemalloc, the clusters most of it), so they get their
own bound and are never pushed out by the options, which change with every hand."""


def code(card: Card) -> int:
    """The compact code of a French face (the joker is 0)."""
    return _CODE_OF[card]


def suit_index(suit: Suit) -> int:
    """0..3: the suit's place in `FRENCH_SUITS` (the low two bits of a code)."""
    return _SUIT_INDEX[suit]


def codes_of(cards: Sequence[Card]) -> list[int]:
    """Codes of a sequence of cards, in the same order."""
    return [_CODE_OF[c] for c in cards]


_DECK_CODES: dict[tuple[Card, ...], list[int]] = {}


def deck_codes(cards: tuple[Card, ...]) -> list[int]:
    """The code of every physical card of a deck, indexed by card id."""
    got = _DECK_CODES.get(cards)
    if got is None:
        got = _DECK_CODES[cards] = codes_of(cards)
    return got


_TABLES: dict[int, tuple[RuleSet, dict[object, object]]] = {}
_VERDICTS: dict[int, tuple[RuleSet, dict[object, object]]] = {}


def table(rules: RuleSet) -> dict[object, object]:
    """The options table of one rule set: what a hand's cards can make (move generation's
    per-suit, per-rank and per-meld lists), keyed on the cards that matter. Its keys change
    with every hand; bounded by MAX_ENTRIES."""
    return _bounded(_TABLES, rules, MAX_ENTRIES)


def verdicts(rules: RuleSet) -> dict[object, object]:
    """The verdicts table of one rule set: the meld rules' answer for a meld of these faces
    (and the run clusters made of those answers). Kept apart from `table` so the options'
    turnover never evicts the answers every hand asks again; bounded by MAX_VERDICTS."""
    return _bounded(_VERDICTS, rules, MAX_VERDICTS)


def _bounded(store: dict[int, tuple[RuleSet, dict[object, object]]], rules: RuleSet,
             bound: int) -> dict[object, object]:
    """The rule set's table in `store` (the rule set is kept alive, so its id stays its
    own), its older half forgotten once it holds more than `bound` entries."""
    entry = store.get(id(rules))
    if entry is None or entry[0] is not rules:
        entry = (rules, {})
        store[id(rules)] = entry
    memo = entry[1]
    if len(memo) > bound:
        for k in list(islice(memo, len(memo) // 2)):
            del memo[k]
    return memo


def new_meld(rules: RuleSet, faces: Sequence[Card]) -> Arrangement:
    """`arrange_new` with the wild typed last meaning "above" (what `apply` asks), memoized."""
    return new_meld_codes(rules, tuple(codes_of(faces)))


def new_meld_codes(rules: RuleSet, codes: tuple[int, ...],
                   memo: dict[object, object] | None = None) -> Arrangement:
    """`new_meld` of the faces with these codes (the faces are made only on a miss)."""
    if memo is None:
        memo = verdicts(rules)
    def make() -> Arrangement:
        faces = [FACES[c] for c in codes]
        return arrange_new(faces, rules, prefer_high=is_wild(faces[-1]))
    return _cached(memo, ("new", codes), make)


def attach(rules: RuleSet, old: Sequence[Card], old_arr: Arrangement, new: Sequence[Card],
           wild_end: str | None) -> Arrangement:
    """`arrange_attach`, memoized on the meld's faces and placement and the cards added."""
    return attach_codes(rules, tuple(codes_of(old)), old_arr, tuple(codes_of(new)), wild_end)


def attach_codes(rules: RuleSet, old: tuple[int, ...], old_arr: Arrangement,
                 new: tuple[int, ...], wild_end: str | None,
                 memo: dict[object, object] | None = None) -> Arrangement:
    """`attach` of the faces with these codes (the faces are made only on a miss)."""
    if memo is None:
        memo = verdicts(rules)
    k = ("attach", old, old_arr.kind, old_arr.start, old_arr.wild, old_arr.order, new,
         wild_end)
    return _cached(memo, k, lambda: arrange_attach(
        [FACES[c] for c in old], old_arr,
        [FACES[c] for c in new], rules, wild_end))


def _cached(memo: dict[object, object], key: object,
            make: Callable[[], Arrangement]) -> Arrangement:
    """`make()` once per key; a refusal is kept too, and raised again as a fresh MeldError."""
    hit = memo.get(key)
    if hit is None:
        try:
            hit = make()
        except MeldError as e:
            hit = MeldError(e.key, e.message)  # without its traceback: frames hold positions
        memo[key] = hit
    if isinstance(hit, MeldError):
        raise MeldError(hit.key, hit.message)
    return hit  # type: ignore[return-value]  # memo values are object


# ----------------------------------------------------------------------------------------
# one suit for all: what move generation asks about runs

def _to_suit0(codes: tuple[int, ...], suit: int) -> tuple[int, ...]:
    """The faces of a run of suit index `suit` as the run rules see them: its suit renamed
    the first one, and a 2 of another suit as the joker (in this run it can only be wild,
    and the run rules tell wild cards apart only by whether one is natural somewhere)."""
    return tuple(map(_SUIT0[suit].__getitem__, codes))


_SUIT0: list[list[int]] = [[0 if c < 4 or (8 <= c <= 11 and c != 8 + s)
                            else (c & ~3) | ((c - s) & 3) for c in range(N_CODES)]
                           for s in range(4)]
"""`_to_suit0` of each code, per suit index (one table lookup a card)."""


def resuited(arr: Arrangement, suit: int) -> Arrangement:
    """The same placement in suit index `suit` (a run's answer for suit 0, renamed). Made
    once per answer and suit (`_RESUITED`): every option of a run of another suit asks it."""
    to = FRENCH_SUITS[suit]
    if arr.suit is None or arr.suit is to:
        return arr
    key = (id(arr), suit)
    got = _RESUITED.get(key)
    if got is not None and got[0] is arr:
        return got[1]
    if len(_RESUITED) > MAX_VERDICTS:
        _RESUITED.clear()
    out = Arrangement(arr.kind, arr.order, arr.start, to, arr.wild)
    _RESUITED[key] = (arr, out)
    return out


_RESUITED: dict[tuple[int, int], tuple[Arrangement, Arrangement]] = {}
"""`resuited`'s answers by the answer's id and the suit; each entry holds the answer it was
made from (so an id is never taken for another's), all forgotten past MAX_VERDICTS."""


def new_run_quiet(rules: RuleSet, codes: tuple[int, ...], suit: int,
                  memo: dict[object, object]) -> Arrangement | None:
    """`new_meld_codes` of a candidate run of suit index `suit` (None where it raises),
    memoized once for all four suits: the meld rules treat every suit alike, so the faces
    are renamed into the first suit and the answer renamed back. Only for move generation:
    a refusal's message (which names cards) is not kept."""
    key = ("new~", _to_suit0(codes, suit))
    hit = memo.get(key)
    if hit is None:
        faces = [FACES[c] for c in key[1]]
        try:
            hit = arrange_new(faces, rules, prefer_high=is_wild(faces[-1]))
        except MeldError:
            hit = False
        memo[key] = hit
    return None if hit is False else resuited(hit, suit)  # type: ignore[arg-type]  # memo values are object


def attach_run_quiet(rules: RuleSet, old: tuple[int, ...], old_arr: Arrangement,
                     new: tuple[int, ...], wild_end: str | None, memo: dict[object, object]
                     ) -> Arrangement | None:
    """`attach_codes` onto a run (None where it raises), memoized once for all four suits as
    `new_run_quiet` is."""
    suit, prefix = attach_run_prefix(old, old_arr)
    return attach_run_asked(rules, prefix, suit, old_arr, new, wild_end, memo)


def attach_run_prefix(old: tuple[int, ...], old_arr: Arrangement
                      ) -> tuple[int, tuple[object, ...]]:
    """The run's suit index and what `attach_run_asked` keys on for this run: made once per
    meld when many candidates are asked of it."""
    suit = _SUIT_INDEX[cast(Suit, old_arr.suit)]
    return suit, ("attach~", _to_suit0(old, suit), old_arr.start, old_arr.wild, old_arr.order)


def attach_run_asked(rules: RuleSet, prefix: tuple[object, ...], suit: int,
                     old_arr: Arrangement, new: tuple[int, ...], wild_end: str | None,
                     memo: dict[object, object]) -> Arrangement | None:
    """`attach_run_quiet` of a run given by its `attach_run_prefix`."""
    hit = attach_run_asked0(rules, prefix, suit, old_arr, new, wild_end, memo)
    return None if hit is None else resuited(hit, suit)


def attach_run_asked0(rules: RuleSet, prefix: tuple[object, ...], suit: int,
                      old_arr: Arrangement, new: tuple[int, ...], wild_end: str | None,
                      memo: dict[object, object]) -> Arrangement | None:
    """`attach_run_asked`'s answer as kept, in suit 0 (the caller renames it into the run's
    suit, if it needs the object: move generation keeps only its values)."""
    k = (*prefix, _to_suit0(new, suit), wild_end)
    hit = memo.get(k)
    if hit is None:
        arr0 = Arrangement(old_arr.kind, old_arr.order, old_arr.start, FRENCH_SUITS[0],
                           old_arr.wild)
        try:
            old0, new0 = cast("tuple[int, ...]", k[1]), cast("tuple[int, ...]", k[5])
            hit = arrange_attach([FACES[c] for c in old0], arr0, [FACES[c] for c in new0],
                                 rules, wild_end)
        except MeldError:
            hit = False
        memo[k] = hit
    return None if hit is False else hit  # type: ignore[return-value]  # memo values are object


def new_set_quiet(rules: RuleSet, codes: tuple[int, ...], memo: dict[object, object]
                  ) -> Arrangement | None:
    """`new_meld_codes` of a candidate set (two or more naturals of one rank, any wild after
    them; None where it raises), memoized on what a set's placement depends on: its rank
    and which of its cards are wild (suits never matter to a set). Only for move
    generation: a refusal's message is not kept."""
    wilds = tuple(map(_IS_WILD.__getitem__, codes))
    rank = next(c >> 2 for c, w in zip(codes, wilds) if not w)
    key = ("new-set~", rank, wilds)
    hit = memo.get(key)
    if hit is None:
        faces = [FACES[c] for c in codes]
        try:
            hit = arrange_new(faces, rules, prefer_high=is_wild(faces[-1]))
        except MeldError:
            hit = False
        memo[key] = hit
    return None if hit is False else hit  # type: ignore[return-value]  # memo values are object


_IS_WILD: list[bool] = [c == 0 or 8 <= c <= 11 for c in range(N_CODES)]
"""Is the face of this code a wild card (the joker, a 2)."""


def attach_set_quiet(rules: RuleSet, old: tuple[int, ...], old_arr: Arrangement,
                     new: tuple[int, ...], wild_end: str | None, memo: dict[object, object]
                     ) -> Arrangement | None:
    """`attach_codes` onto a set (None where it raises), memoized on what a set's placement
    depends on: its rank, which of its cards and of the new ones are wild, and whether each
    new natural is of its rank (suits never matter to a set, nor does a word on the end)."""
    rank = old_arr.start
    k = ("attach-set~", rank, tuple(map(_IS_WILD.__getitem__, old)),
         tuple([2 if _IS_WILD[c] else int(c >> 2 == rank) for c in new]))
    hit = memo.get(k)
    if hit is None:
        try:
            hit = arrange_attach([FACES[c] for c in old], old_arr,
                                 [FACES[c] for c in new], rules, wild_end)
        except MeldError:
            hit = False
        memo[k] = hit
    return None if hit is False else hit  # type: ignore[return-value]  # memo values are object
