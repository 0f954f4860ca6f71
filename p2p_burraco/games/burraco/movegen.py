"""Lazy candidate generation: melds and attachments a hand could make.

Enumerating every meld of a hand is exponential (copies of the same card, every sub-run, every
wild), so these generators work on *faces* (one position per distinct card face and use) and
yield candidates lazily, longest first; the hand state validates each one with the same code
`apply` uses before offering it. Candidates are tuples of deck positions in typed order.

Incremental by construction: the runs of one suit depend only on that suit's cards and the wild
cards in hand, the sets of one rank only on that rank's cards and the wilds. Those lists are
computed once per distinct content (as (face code, copy) pairs, see memo.py) and only mapped
back to this hand's positions afterwards, so a draw or a discard recomputes at most one suit.
A hand is indexed as bit masks over the face codes (`HandIndex`), so a key is a few ints.
A suit's content not seen before is solved per cluster of nearby ranks (`_suit_options`), one
solved cluster serving all four suits (`_rotation`); a meld's attachments are memoized face by
face (`attach_options`), so a hand holding a new combination next to it costs lookups only;
the meld rules are asked once for all four suits (memo.new_run_quiet, memo.attach_run_quiet),
and a meld none of whose touchable faces (`touch_mask`) the hand holds is not asked at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from itertools import product
from operator import itemgetter
from typing import Any, cast

from ..base import Pos
from ..cards import FRENCH_SUITS, Card, Suit
from .melds import Arrangement, MeldError
from .memo import (
    _IS_WILD,
    _SUIT0,
    WILD_CODES,
    attach_run_asked0,
    attach_run_prefix,
    attach_set_quiet,
    code,
    new_meld_codes,
    new_run_quiet,
    new_set_quiet,
    suit_index,
    table,
    verdicts,
)
from .rules import RuleSet

HandCards = Sequence[tuple[Pos, Card]]
_FIRST: Callable[[Any], int] = itemgetter(0)   # a spec's face code: C-level in map()
Spec = tuple[tuple[int, int], ...]          # (face code, which copy) in typed order


_WILD_FACTS: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]] = {}


def _wild_facts(w: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Which wilds a meld can use, from the hand's capped wild counts (WILD_CODES order): a
    set any one copy of each; a run of suit s the same but its own 2 twice (natural at its
    slot and wild elsewhere). Made once per combination (at most 3^5) and shared, since
    every position would otherwise rebuild the same five tuples."""
    got = _WILD_FACTS.get(w)
    if got is None:
        _, w1, w2, w3, w4 = w
        o0, o1, o2, o3, o4 = ones = tuple([1 if x else 0 for x in w])
        got = _WILD_FACTS[w] = (ones, ((o0, w1, o2, o3, o4), (o0, o1, w2, o3, o4),
                                       (o0, o1, o2, w3, o4), (o0, o1, o2, o3, w4)))
    return got


def _by_code(positions: Sequence[Pos], codes: Iterable[int]) -> dict[int, list[Pos]]:
    """Positions grouped by face code, in hand order."""
    by_code: dict[int, list[Pos]] = {}
    for pos, c in zip(positions, codes):
        ps = by_code.get(c)
        if ps is None:
            by_code[c] = [pos]
        else:
            ps.append(pos)
    return by_code


_BIT: list[int] = [1 << c for c in range(56)]
_PAIR: list[tuple[tuple[int, int], ...]] = [tuple([(c, k) for k in range(4)]) for c in range(56)]
"""The (face code, copy) pair of every spec, made once: `_PAIR[c][k]`. The options tables
hold tens of thousands of specs; made of these shared pairs, a new spec holds no object the
garbage collector still tracks, so the collector stops tracking it at its first pass (a
tuple is let go only once what it holds has been, one level a pass) and, with it, each
option one pass sooner, and a spec costs one object instead of one per card."""
_SUIT_BITS: tuple[int, ...] = tuple(sum(1 << (r * 4 + s) for r in range(1, 14)) for s in range(4))
"""Per suit, the bits of its 13 faces (ace to king, its 2 included)."""
_RUN_DOUBLES: tuple[int, ...] = tuple((1 << (4 + s)) | (1 << (8 + s)) for s in range(4))
"""Per suit, the faces a run may use twice: its ace (both ends) and its 2 (natural and wild)."""
_WILD_MASK = sum(1 << w for w in WILD_CODES)
_WILDS_HELD: dict[int, tuple[int, ...]] = {
    m: tuple([w for w in WILD_CODES if m >> w & 1])
    for m in range(_WILD_MASK + 1) if not m & ~_WILD_MASK}
"""The wild faces held (WILD_CODES order), by the hand's mask of wild bits."""
_RANK_FACES: list[list[tuple[int, ...]]] = [
    [tuple([r * 4 + k for k in range(4) if f >> k & 1]) for f in range(16)] for r in range(14)]
"""The codes of rank r whose bits (one per suit) are set in f, lowest first."""
_NIBBLE0 = sum(1 << (4 * r) for r in range(14))
_SET_RANKS = _NIBBLE0 & ~1 & ~(1 << 8)       # bit 4r for every rank a set can be of (not 0, 2)


class HandIndex:
    """A hand as positions per face code (`by_code`, codes in first-seen order) and two bit
    masks over the 56 codes: `mask`, the faces held, and `dbl`, the faces held twice or more;
    `hand` lists the positions in hand order (at least each face's first).

    The generators key their memo tables on masked bits of these (a suit's faces, the faces
    near a meld): a key is a few ints, built without a loop over the hand, and the lists,
    tuples and counts a miss needs are made from the bits only then (`suit_counts`, and the
    properties below, which the tests and the opening search read)."""

    __slots__ = ("by_code", "dbl", "hand", "mask")

    def __init__(self, by_code: dict[int, list[Pos]]) -> None:
        """`by_code`: the hand's positions per face code, codes in first-seen order."""
        self.by_code = by_code
        self.hand: Sequence[Pos] = [ps[0] for ps in by_code.values()]  # hand order, firsts
        self.mask = sum(map(_BIT.__getitem__, by_code))   # distinct bits: a sum is an or
        self.dbl = sum([_BIT[c] for c, ps in by_code.items() if len(ps) > 1])

    @classmethod
    def of_codes(cls, positions: Sequence[Pos], code_at: Callable[[Pos], int]) -> HandIndex:
        """The index of a hand given as positions (in hand order) and each one's face code."""
        return cls(_by_code(positions, map(code_at, positions)))

    @classmethod
    def of_known(cls, positions: Sequence[Pos], known: Sequence[int | None],
                 code_of: Sequence[int]) -> HandIndex:
        """`of_codes` for a hand whose card ids are `known[pos]` and whose face codes are
        `code_of[card id]` (the hand state's tables), in one pass: asked at every play-phase
        listing. TypeError if a card of the hand is not known."""
        by_code: dict[int, list[Pos]] = {}
        dbl = mask = 0
        bit = _BIT
        for p in positions:
            c = code_of[known[p]]  # type: ignore[index]  # known: every position here is
            ps = by_code.get(c)
            if ps is None:
                by_code[c] = [p]
                mask |= bit[c]
            else:
                ps.append(p)
                dbl |= bit[c]
        idx = object.__new__(cls)
        idx.by_code = by_code
        idx.hand = positions
        idx.mask = mask
        idx.dbl = dbl
        return idx

    @classmethod
    def of_cards(cls, hand: HandCards) -> HandIndex:
        faces = {p: code(card) for p, card in hand}
        return cls.of_codes([p for p, _ in hand], faces.__getitem__)

    def positions(self, spec: Spec) -> tuple[Pos, ...]:
        by_code = self.by_code
        return tuple([by_code[c][k] for c, k in spec])

    # What a miss (and a test) reads, made from the bits. Copies beyond what one run or one
    # attachment can use change no candidate: runs see counts capped there (an ace or a 2
    # twice, anything else once), so more positions share one memo entry.

    def _wcounts(self) -> tuple[int, ...]:
        """The capped counts of the wild cards (WILD_CODES order)."""
        mask, dbl = self.mask, self.dbl
        return tuple([0 if not mask >> w & 1 else 2 if w and dbl >> w & 1 else 1
                      for w in WILD_CODES])

    def suit_counts(self, suit: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """A suit's capped counts of ranks 1..13 and the wild counts its runs see."""
        mask, dbl = self.mask, self.dbl
        ranks = tuple([0 if not mask >> c & 1 else 2 if c < 12 and dbl >> c & 1 else 1
                       for c in range(4 + suit, 56, 4)])
        return ranks, _wild_facts(self._wcounts())[1][suit]

    @property
    def counts(self) -> list[int]:
        """Copies held per face code."""
        counts = [0] * 56
        for c, ps in self.by_code.items():
            counts[c] = len(ps)
        return counts

    @property
    def run_counts(self) -> list[int]:
        """Copies per face code, capped at what a run can use."""
        mask, dbl = self.mask, self.dbl
        return [0 if not mask >> c & 1 else 2 if 4 <= c < 12 and dbl >> c & 1 else 1
                for c in range(56)]

    @property
    def wild_ones(self) -> tuple[int, ...]:
        """1 for each wild face held (WILD_CODES order): what a set may use."""
        return _wild_facts(self._wcounts())[0]

    @property
    def suit_wilds(self) -> tuple[tuple[int, ...], ...]:
        """Per suit, the wild counts its runs see (`_wild_facts`)."""
        return _wild_facts(self._wcounts())[1]

    @property
    def rank_items(self) -> dict[int, list[tuple[int, int]]]:
        """(code, copies) per rank, the 2s and the joker left out, in first-seen order."""
        out: dict[int, list[tuple[int, int]]] = {}
        for c, ps in self.by_code.items():
            if c > 3 and c >> 2 != 2:
                out.setdefault(c >> 2, []).append((c, len(ps)))
        return out


def _suit_slots(suit: int, counts: tuple[int, ...]) -> dict[int, int]:
    """The slots (1..14) the suit's naturals can stand at, each with its face code: an ace
    at both 1 and 14."""
    slots: dict[int, int] = {}
    for r in range(1, 14):
        if counts[r - 1]:
            c = r * 4 + suit
            if r == 1:
                slots[1] = c
                slots[14] = c
            else:
                slots[r] = c
    return slots


def _suit_have(suit: int, counts: tuple[int, ...], wcounts: tuple[int, ...]) -> dict[int, int]:
    """How many copies of each face (the suit's, and the wild cards) a run may use."""
    have = {c: n for c, n in zip(WILD_CODES, wcounts) if n}
    for r in range(1, 14):
        if counts[r - 1]:
            have[r * 4 + suit] = counts[r - 1]
    return have


def _window_runs(slots: dict[int, int], have: dict[int, int], ace_to_ace: bool, run_max: int
                 ) -> list[tuple[int, Spec]]:
    """Every window of the present `slots` with at most one gap or end filled by a wild, as
    (length, spec) in window order (lowest first slot, then shortest)."""
    wilds = [w for w in WILD_CODES if w in have]
    found: list[tuple[int, Spec]] = []
    present = sorted(slots)
    for ia, a in enumerate(present):
        # the window a..b grows one present slot at a time, counting the slots it misses
        missing: list[int] = []
        for ib in range(ia + 1, len(present)):
            b, before = present[ib], present[ib - 1]
            missing += range(before + 1, b)
            if len(missing) > 1:
                break
            nat_slots = present[ia:ib + 1]
            if a == 1 and b == 14 and not ace_to_ace:
                continue
            if len(nat_slots) > run_max:
                continue
            used: dict[int, int] = {}
            picked: list[tuple[int, int]] = []
            ok = True
            for s in nat_slots:
                c = slots[s]
                k = used.get(c, 0)
                if k >= have[c]:
                    ok = False
                    break
                used[c] = k + 1
                picked.append(_PAIR[c][k])
            if not ok:
                continue
            if not missing and len(picked) >= 3:
                found.append((len(picked), tuple(picked)))
            for w in wilds:
                k = used.get(w, 0)
                if k >= have[w]:
                    continue
                wp = _PAIR[w][k]
                if missing:
                    order = list(picked)
                    order.insert(missing[0] - a, wp)
                    found.append((len(order), tuple(order)))
                else:
                    found.append((len(picked) + 1, (wp, *picked)))
                    found.append((len(picked) + 1, (*picked, wp)))
    return found


def _suit_runs(suit: int, counts: tuple[int, ...], wcounts: tuple[int, ...], ace_to_ace: bool,
               run_max: int) -> list[Spec]:
    """Runs of one suit, longest first, from the counts of its ranks (1..13) and of the wild
    cards (WILD_CODES order): every window of slots with at most one gap or end filled by a
    wild, with a free wild typed first and last (both placements offered)."""
    slots = _suit_slots(suit, counts)
    if sum(1 for s in slots if s != 14) < 2:
        return []
    found = _window_runs(slots, _suit_have(suit, counts, wcounts), ace_to_ace, run_max)
    found.sort(key=lambda t: -t[0])
    return [spec for _, spec in found]


_SET_SHAPES: dict[tuple[tuple[int, ...], int], list[tuple[int, ...]]] = {}


def _set_shapes(held: tuple[int, ...], set_max: int) -> list[tuple[int, ...]]:
    """How many copies of each face held (`held`: copies per face) a set of naturals takes:
    every choice of 2 to `set_max` cards, biggest first (ties in `product` order). Depends
    on the counts only, so it is made once per shape (a few dozen shapes) and kept."""
    got = _SET_SHAPES.get((held, set_max))
    if got is None:
        got = [counts for counts in product(*[range(n + 1) for n in held])
               if 2 <= sum(counts) <= set_max]
        got.sort(key=lambda t: -sum(t))
        _SET_SHAPES[(held, set_max)] = got
    return got


def _rank_sets(present: tuple[tuple[int, int], ...], wilds: tuple[int, ...],
               set_max: int) -> list[Spec]:
    """Sets of one rank from its faces present (code, count) in first-seen order: every
    choice of copies (≥3, or ≥2 with one wild), biggest first."""
    combos = [tuple([(c, k) for (c, _), m in zip(present, counts) for k in range(m)])
              for counts in _set_shapes(tuple([n for _, n in present]), set_max)]
    out: list[Spec] = []
    for spec in combos:
        if len(spec) >= 3:
            out.append(spec)
        for w in wilds:
            out.append(spec + ((w, 0),))
    return out


def run_candidates(hand: HandCards | HandIndex, rules: RuleSet) -> Iterator[tuple[Pos, ...]]:
    """Runs of ≥3 cards: every window of slots with at most one gap or end filled by a wild.

    With a free-wild choice ("either") both placements are offered (wild typed first/last).
    """
    idx = hand if isinstance(hand, HandIndex) else HandIndex.of_cards(hand)
    memo = table(rules)
    for suit in range(4):
        ranks, wcounts = idx.suit_counts(suit)
        key = ("runs", suit, ranks, wcounts)
        specs = memo.get(key)
        if specs is None:
            specs = _suit_runs(suit, ranks, wcounts, rules.ace_to_ace, rules.run_max_naturals)
            memo[key] = specs
        for spec in specs:  # type: ignore[attr-defined]  # memo values are object; key says
            yield idx.positions(spec)


def set_candidates(hand: HandCards | HandIndex, rules: RuleSet) -> Iterator[tuple[Pos, ...]]:
    """Sets: every choice of copies of one rank (≥3, or ≥2 with one wild), biggest first."""
    if not rules.sets_allowed:
        return
    idx = hand if isinstance(hand, HandIndex) else HandIndex.of_cards(hand)
    memo = table(rules)
    wilds = _WILDS_HELD[idx.mask & _WILD_MASK]
    per_rank = idx.rank_items              # (code, count) per rank, the 2s left out
    for rank in (1, *range(3, 14)):
        got = per_rank.get(rank)
        if got is None or sum(n for _, n in got) < 2:
            continue
        present = tuple(got)
        key = ("sets", present, wilds)
        specs = memo.get(key)
        if specs is None:
            specs = _rank_sets(present, wilds, rules.set_max_naturals)
            memo[key] = specs
        for spec in specs:  # type: ignore[attr-defined]  # memo values are object; key says
            yield idx.positions(spec)


def meld_candidates(hand: HandCards | HandIndex, rules: RuleSet) -> Iterator[tuple[Pos, ...]]:
    idx = hand if isinstance(hand, HandIndex) else HandIndex.of_cards(hand)
    yield from run_candidates(idx, rules)
    yield from set_candidates(idx, rules)


def _ends(rules: RuleSet) -> tuple[tuple[str | None, ...], tuple[str | None, ...]]:
    """The words a wild attached to a run comes with (both ends where the player chooses),
    and those an ace comes with: an ace that fits at both ends goes where the player says
    (FIBUR-10), so it is offered with both words where the rules would not offer one."""
    either = rules.free_wild_end == "either" or (
        not rules.wild_moves_freely and rules.replaced_wild_end == "either")
    ends: tuple[str | None, ...] = ("low", "high") if either else (None,)
    return ends, (ends if ends != (None,) else (None, "low", "high"))


def _run_singles(c: int, first: object, lo: int, hi: int, has_wild: bool,
                 ends: tuple[str | None, ...], ace_ends: tuple[str | None, ...]
                 ) -> Iterator[tuple[tuple[object, ...], str | None]]:
    """The candidates of one face `c` of a run's suit alone (`first`: its first copy): at a
    slot next to the run's ends or inside it, or two slots away when the run holds a wild
    (an ace at each of its slots, 1 and 14)."""
    r = c >> 2
    for s in ((1, 14) if r == 1 else (r,)):
        if lo - 2 <= s <= hi + 2 and (s in (lo - 1, hi + 1) or (lo <= s <= hi) or (
                has_wild and s in (lo - 2, hi + 2))):
            for e in (ace_ends if r == 1 else ends):
                yield (first,), e


def _run_pairs(c: int, first: object, wild_copies: list[object], lo: int, hi: int
               ) -> Iterator[tuple[tuple[object, ...], str | None]]:
    """The candidates of one face `c` of a run's suit two slots away from its ends, with
    each wild held between (`wild_copies`: the copy of each wild to use), for a run
    holding no wild yet."""
    r = c >> 2
    for s in ((1, 14) if r == 1 else (r,)):
        if s in (lo - 2, hi + 2):
            for wp in wild_copies:
                yield (first, wp), None


def _wild_copies(faces: Mapping[int, Sequence[object]], c: int, wilds: list[int]
                 ) -> list[object]:
    """The copy of each wild in `wilds` that can go with face `c`: its second copy when the
    wild is `c` itself (a run's own 2, natural and wild), none if there is only one."""
    return [faces[w][1] if w == c else faces[w][0] for w in wilds
            if w != c or len(faces[w]) >= 2]


def attach_candidates(faces: dict[int, list[Pos]], arr: Arrangement, rules: RuleSet
                      ) -> Iterator[tuple[tuple[Pos, ...], str | None]]:
    """Cards that might extend one meld: single cards near its ends or in its wild's slot, a
    wild (both ends where that is a choice), and a natural two slots away with a wild between.
    An ace comes with each word (`low`, `high`) where the rules would not offer one anyway.
    Pre-filtered by face only (`faces`: positions per face code); `attach_options` checks
    each one against the meld rules. A run's candidates come face by face (`_run_singles`,
    `_run_pairs`), which is how `attach_options` memoizes them."""
    wilds = [w for w in WILD_CODES if w in faces]
    has_wild = arr.wild is not None
    ends, ace_ends = _ends(rules)
    if arr.kind == "set":
        for c, ps in faces.items():
            if c > 3 and not 8 <= c <= 11 and c >> 2 == arr.start:
                yield (ps[0],), None
        if not has_wild:
            for w in wilds:
                yield (faces[w][0],), None
        return
    assert arr.suit is not None
    suit = suit_index(arr.suit)
    lo, hi = arr.start, arr.end
    # jokers have no suit; a 2 of the suit may stand natural
    mine = [c for c in faces if c >= 4 and c & 3 == suit]
    for c in mine:
        yield from _run_singles(c, faces[c][0], lo, hi, has_wild, ends, ace_ends)  # type: ignore[misc]  # yields MeldOption tuples
    if not has_wild:
        for w in wilds:
            for e in ends:
                yield (faces[w][0],), e
        for c in mine:
            yield from _run_pairs(c, faces[c][0], _wild_copies(faces, c, wilds),  # type: ignore[misc]  # yields MeldOption tuples
                                  lo, hi)


# ----------------------------------------------------------------------------------------
# candidates already checked against the meld rules (melds.py), memoized like the above

ArrKey = tuple[str, tuple[int, ...], int, "int | None", "int | None"]
"""An `Arrangement` as plain values: kind, order, start, suit *index* (None for a set), wild.
What the options tables hold instead of the object: an option made of ints, strings and
tuples of them is one the garbage collector stops tracking after its first pass, while one
holding an Arrangement (and the list and table entry holding it) is traversed again at every
collection of its generation. The tables hold tens of thousands of options, so those passes
cost `legal_actions` more than building the object for the few options applied
(`arrangement`)."""


def arr_key(arr: Arrangement) -> ArrKey:
    """`arr` as an `ArrKey`."""
    return (arr.kind, arr.order, arr.start,
            None if arr.suit is None else suit_index(arr.suit), arr.wild)


def arrangement(key: ArrKey) -> Arrangement:
    """The `Arrangement` an `ArrKey` stands for (equal to the one it was made from)."""
    kind, order, start, suit, wild = key
    return Arrangement(kind, order, start,  # type: ignore[arg-type]  # an ArrKey's fields are typed loosely
                       None if suit is None else FRENCH_SUITS[suit], wild)


def _in_suit(key: ArrKey, suit: int) -> ArrKey:
    """A run's `ArrKey` renamed into suit index `suit` (the placement is the same)."""
    return (key[0], key[1], key[2], suit, key[4])


MeldOption = tuple[Spec, Spec, ArrKey, tuple[int, ...]]
"""A new meld the meld rules accept: its cards as typed, in placed order, their arrangement,
and the codes of its faces in placed order (two options with equal codes are the same
play). One flat tuple: a level of nesting less is one object less an option, and one pass
less before the collector stops tracking it."""

AttachOption = tuple[Spec, "str | None", ArrKey, tuple[int, ...]]
"""Cards a meld accepts: the cards, the player's word, the meld's new arrangement (indexes into
old + new cards) and the codes of the meld's faces afterwards."""

MeldOptions = tuple[MeldOption, ...]
"""What a table keeps for a suit, a cluster or a rank: a tuple, not a list, so that it too
drops out of the collector's sight once its options have."""


def _checked(specs: list[Spec], rules: RuleSet, memo: dict[object, object],
             suit: int | None = None, sets: bool = False) -> MeldOptions:
    """Each typed candidate with the option it makes (its cards placed), if the meld rules
    accept both the typed and the placed order. `suit`: the candidates are runs of that suit
    (asked once for all suits, see memo.new_run_quiet); `sets`: the candidates are sets
    (asked once per rank and wild pattern, see memo.new_set_quiet). Runs and sets take
    their placement from `_template` (one lookup a candidate)."""
    out: list[MeldOption] = []
    if suit is None and not sets:
        for spec in specs:
            arr = _verdict(rules, tuple(map(_FIRST, spec)), memo, suit, sets)
            if arr is None:
                continue
            placed = tuple(map(spec.__getitem__, arr.order))
            if placed != spec:
                arr = _verdict(rules, tuple(map(_FIRST, placed)), memo, suit, sets)
                if arr is None:  # a placed order is a valid typing: kept for safety
                    continue
            out.append((spec, placed, arr_key(arr), tuple(map(_FIRST, placed))))
        return tuple(out)
    to0 = _SUIT0[suit or 0]
    for spec in specs:
        codes = tuple(map(_FIRST, spec))
        if sets:
            pattern = tuple(map(_IS_WILD.__getitem__, codes))
            key: tuple[object, ...] = ("set-option~", codes[pattern.index(False)] >> 2
                                       if False in pattern else -1, pattern)
        else:
            key = ("run-option~", tuple(map(to0.__getitem__, codes)))
        t = memo.get(key)
        if t is None:
            t = memo[key] = _template(rules, codes, memo, suit, sets)
        if t is False:
            continue
        order, ak = cast("tuple[tuple[int, ...] | None, ArrKey]", t)
        if order is None:
            placed = spec
        else:
            placed = tuple(map(spec.__getitem__, order))
            codes = tuple(map(_FIRST, placed))
        out.append((spec, placed, ak if not suit else _in_suit(ak, suit), codes))
    return tuple(out)


def _template(rules: RuleSet, codes: tuple[int, ...], memo: dict[object, object],
              suit: int | None, sets: bool) -> tuple[tuple[int, ...] | None, ArrKey] | bool:
    """What `_checked` makes of a run or set typed as `codes`: False if the meld rules refuse
    the typed or the placed order, else the placing order (None: as typed) and the placed
    order's arrangement (an `ArrKey`, a run's in suit 0). Depends only on what the verdict keys hold (a
    run's faces renamed into suit 0, a set's rank and wild pattern), so kept under that key:
    one lookup a candidate instead of one or two verdicts."""
    arr = _verdict(rules, codes, memo, suit, sets)
    if arr is None:
        return False
    order: tuple[int, ...] | None = arr.order
    if order != tuple(range(len(codes))):
        arr = _verdict(rules, tuple(map(codes.__getitem__, order)), memo, suit, sets)  # type: ignore[arg-type]  # order is not None here
        if arr is None:  # a placed order is a valid typing: kept for safety
            return False
    else:
        order = None
    key = arr_key(arr)
    return order, (key if not suit else _in_suit(key, 0))


def _verdict(rules: RuleSet, codes: tuple[int, ...], memo: dict[object, object],
             suit: int | None, sets: bool = False) -> Arrangement | None:
    """The placement of a new meld typed as `codes`, or None if the meld rules refuse it.
    `suit`: a run of that suit; `sets`: a set (`_rank_sets`' candidates)."""
    if suit is not None:
        return new_run_quiet(rules, codes, suit, memo)
    if sets:
        return new_set_quiet(rules, codes, memo)
    try:
        return new_meld_codes(rules, codes, memo)
    except MeldError:
        return None


def meld_options(idx: HandIndex, rules: RuleSet, memo: dict[object, object] | None = None
                 ) -> Iterator[MeldOption]:
    """`meld_candidates` (as specs of `idx`), each with its checked option; those the meld
    rules refuse are left out. Memoized per suit (runs) and per rank (sets); `memo` is
    `table(rules)` when the caller has it.

    A suit's runs are keyed on the bits of its faces and of the wild cards held, with the
    copies a run can use twice (its ace, its 2), as one int. They are memoized twice: on the
    suit's whole content (what a position asks) and, behind that, per *cluster*
    (`_suit_options`), so a suit held in a combination not seen before is solved from groups
    that were. A rank's sets are keyed on its faces in the order first seen (the order they
    are typed in), their copies and the wild cards held."""
    if memo is None:
        memo = table(rules)
    mask, dbl = idx.mask, idx.dbl
    wild_bits = mask & _WILD_MASK
    for suit in range(4):
        x = mask & _SUIT_BITS[suit]
        if not x & (x - 1):   # a run needs two natural slots of its suit
            continue
        # the key is the bare int (the table's only int keys; every other key is a tuple)
        key = x | wild_bits | (dbl & _RUN_DOUBLES[suit]) << 56
        opts = memo.get(key)
        if opts is None:
            opts = memo[key] = _suit_options(suit, x, dbl & _RUN_DOUBLES[suit], wild_bits,
                                             rules, verdicts(rules))
        yield from opts  # type: ignore[misc]  # memo values are object
    if not rules.sets_allowed:
        return
    # the ranks held twice or more (two faces of the rank, or one face twice), lowest first:
    # ace, then 3 to king (2s are wild, never a set)
    pairs = mask & (mask >> 1)
    either = mask | (mask >> 1)
    multi = (pairs | (pairs >> 2) | (either & (either >> 2))
             | dbl | (dbl >> 1) | (dbl >> 2) | (dbl >> 3)) & _SET_RANKS
    if not multi:
        return
    wilds = _WILDS_HELD[wild_bits]
    by_code = idx.by_code
    present: tuple[tuple[int, int], ...]
    while multi:
        low = multi & -multi
        multi ^= low
        rank = low.bit_length() >> 2
        faces = mask >> (rank * 4) & 15
        if faces & (faces - 1):   # two faces of the rank or more: in the order first seen
            pair = _RANK_FACES[rank][faces]
            if len(pair) == 2:
                a, b = pair
                pa, pb = by_code[a], by_code[b]
                if idx.hand.index(pa[0]) > idx.hand.index(pb[0]):
                    a, b, pa, pb = b, a, pb, pa
                present = ((a, len(pa)), (b, len(pb)))
            else:
                present = tuple([(c, len(ps)) for c, ps in by_code.items() if c >> 2 == rank])
        else:
            c = rank * 4 + faces.bit_length() - 1
            present = ((c, len(by_code[c])),)
        key2 = ("sets+", present, wilds)
        opts = memo.get(key2)
        if opts is None:
            opts = memo[key2] = _rank_options(rank, present, wilds, rules, verdicts(rules))
        yield from opts  # type: ignore[misc]  # memo values are object


_SET_PATTERNS: list[tuple[tuple[bool, ...], tuple[bool, ...]]] = [
    ((False,) * n, (False,) * n + (True,)) for n in range(16)]
"""The wild pattern of a set of n naturals, without and with a wild typed last."""


def _rank_options(rank: int, present: tuple[tuple[int, int], ...], wilds: tuple[int, ...],
                  rules: RuleSet, memo: dict[object, object]) -> MeldOptions:
    """`_checked(_rank_sets(...), sets=True)` without the list between: a set's template
    (`_template`) depends on its rank and wild pattern only, and `_rank_sets` types the
    naturals first and at most one wild last, so each choice of naturals asks at most two
    templates, whatever the suits (`memo`: the verdicts table). The choices of naturals,
    each with its option without a wild, are kept per rank's faces held
    (`_rank_naturals`): only the wilds change between hands holding them."""
    key = ("set-naturals~", present)
    base = memo.get(key)
    if base is None:
        base = memo[key] = _rank_naturals(rank, present, rules, memo)
    out: list[MeldOption] = []
    for spec, plain, with_wild in base:  # type: ignore[attr-defined]  # memo values are object
        if plain is not None:
            out.append(plain)
        if with_wild is False:
            continue
        order, arr = with_wild
        for w in wilds:
            spec2 = (*spec, _PAIR[w][0])
            placed = spec2 if order is None else tuple(map(spec2.__getitem__, order))
            out.append((spec2, placed, arr, tuple(map(_FIRST, placed))))
    return tuple(out)


def _rank_naturals(rank: int, present: tuple[tuple[int, int], ...], rules: RuleSet,
                   memo: dict[object, object]
                   ) -> tuple[tuple[Spec, MeldOption | None, object], ...]:
    """Each choice of a rank's naturals (`_set_shapes`' order): its spec, its option as a
    set without a wild (None if the meld rules refuse it or it is under three cards), and
    the template of it with a wild typed last (False if refused; the joker stands for any
    wild: a set's placement tells wilds apart by being wild only, memo.new_set_quiet)."""
    out: list[tuple[Spec, MeldOption | None, object]] = []
    for counts in _set_shapes(tuple([n for _, n in present]), rules.set_max_naturals):
        spec = tuple([_PAIR[c][k] if k < 4 else (c, k)   # (no deck holds 5 copies of a face)
                      for (c, _), m in zip(present, counts) for k in range(m)])
        n = len(spec)
        plain_key, wild_key = _SET_PATTERNS[n]
        plain = None
        if n >= 3:
            t = memo.get(("set-option~", rank, plain_key))
            if t is None:
                t = memo[("set-option~", rank, plain_key)] = _template(
                    rules, tuple(map(_FIRST, spec)), memo, None, True)
            if t is not False:
                order, arr = cast(tuple[tuple[int, ...] | None, ArrKey], t)   # _template's
                placed = spec if order is None else tuple(map(spec.__getitem__, order))
                plain = (spec, placed, arr, tuple(map(_FIRST, placed)))
        t = memo.get(("set-option~", rank, wild_key))
        if t is None:
            t = memo[("set-option~", rank, wild_key)] = _template(
                rules, (*map(_FIRST, spec), 0), memo, None, True)
        out.append((spec, plain, t))
    return tuple(out)


def _cluster_options(suit: int, counts: tuple[int, ...], wcounts: tuple[int, ...],
                     rules: RuleSet, memo: dict[object, object]
                     ) -> MeldOptions:
    """The runs of one suit with these counts (ranks 1..13, capped) and wild counts
    (WILD_CODES order), in `_suit_runs`' order, each with its checked option: `_suit_options`
    of the same cards given as bits."""
    x = dbl = 0
    for r, n in enumerate(counts, 1):
        if n:
            x |= _BIT[r * 4 + suit]
            if n > 1:
                dbl |= _BIT[r * 4 + suit]
    wild_bits = sum(_BIT[w] for w, n in zip(WILD_CODES, wcounts) if n)
    return _suit_options(suit, x, dbl, wild_bits, rules, memo)


def _rotation(suit: int) -> list[int]:
    """The codes of suit 0's faces renamed into `suit` (the other suits and their 2s turn
    with it; the joker stays): a run of suit 0 made of the faces `c` is, in `suit`, the run
    of the faces `rot[c]`, placed alike (the meld rules treat every suit alike)."""
    return [c if c < 4 else (c & ~3) | ((c + suit) & 3) for c in range(56)]


_ROT = [_rotation(s) for s in range(4)]
_ROT_PAIRS: list[dict[tuple[int, int], tuple[int, int]]] = [
    {(c, k): _PAIR[rot[c]][k] for c in range(56) for k in (0, 1)} for rot in _ROT]
"""`_rotation` of a spec's (code, copy) pairs, one lookup a card."""
_SUIT0_WILDS: list[dict[int, int | None]] = [
    {m: (sum(_BIT[_ROT[(4 - s) & 3][w]] for w in WILD_CODES if m >> w & 1)
         if not (m >> 8 & ((1 << s) - 1) and m >> (8 + s)) else None)
     for m in _WILDS_HELD} for s in range(4)]
"""Per suit, the bits of the wild faces held as suit 0 sees them (`_rotation`), or None where
the renaming would change their order (WILD_CODES order, the order a run's wild choices come
in): 2s on both sides of the suit's own 2, say 2♥ and 2♣ in a ♦ run."""


def _suit_options(suit: int, x: int, dbl: int, wild_bits: int, rules: RuleSet,
                  memo: dict[object, object]) -> MeldOptions:
    """The runs of one suit (`_suit_runs`' order), each with its checked option, from bits:
    `x` the suit's faces held, `dbl` those held twice (only its ace and 2 count), `wild_bits`
    the wild faces held. Solved per cluster: a run never crosses two missing slots, so the
    suit's present slots fall into groups solved alone and memoized (a hand with many cards
    of one suit rarely repeats, its clusters do), merged by length (a stable sort keeps the
    order). Two slots three or more apart are never in one run (a single wild fills one
    gap); a group of one slot makes no run."""
    slots: list[int] = []   # present slots, lowest first; an ace at 1 and at 14
    y = x >> suit
    while y:
        low = y & -y
        y ^= low
        slots.append(low.bit_length() >> 2)
    if not slots:
        return ()
    if slots[0] == 1:
        slots.append(14)
    ace2 = dbl >> (4 + suit) & 1
    own2 = (dbl >> (8 + suit) & 1) if wild_bits >> (8 + suit) & 1 else 0
    parts: list[MeldOptions] = []
    group: list[int] = []
    for sl in [*slots, 99]:   # a sentinel closes the last group
        if group and sl - group[-1] >= 3:
            if len(group) > 1:
                g = tuple(group)
                aces = ace2 if g[0] == 1 or g[-1] == 14 else 0
                key = ("run-cluster", suit, g, aces, own2, wild_bits)
                opts = memo.get(key)
                if opts is None:
                    opts = memo[key] = _cluster_in(suit, g, aces, own2, wild_bits, rules,
                                                   memo)
                parts.append(opts)  # type: ignore[arg-type]  # memo values are object
            group = []
        group.append(sl)
    if not parts:
        return ()
    if len(parts) == 1:
        return parts[0]
    return tuple(sorted([o for part in parts for o in part], key=lambda o: -len(o[0])))


def _cluster_in(suit: int, group: tuple[int, ...], aces: int, own2: int, wild_bits: int,
                rules: RuleSet, memo: dict[object, object]) -> MeldOptions:
    """One cluster's runs in `suit` (`group`: its slots; `aces`, `own2`: the suit's ace, its
    2 held twice). Those of suit 0 renamed (`_rotation`), memoized under suit 0's key, so one
    solved cluster serves all four suits; solved in `suit` itself where the renaming would
    reorder the wild cards (`_SUIT0_WILDS`)."""
    wild0 = _SUIT0_WILDS[suit][wild_bits]
    if suit == 0 or wild0 is None:
        return _solve_cluster(suit, group, aces, own2, wild_bits, rules, memo)
    key = ("run-cluster", 0, group, aces, own2, wild0)
    opts0 = cast("MeldOptions | None", memo.get(key))
    if opts0 is None:
        opts0 = memo[key] = _solve_cluster(0, group, aces, own2, wild0, rules, memo)
    rot, pairs = _ROT[suit], _ROT_PAIRS[suit]
    out: list[MeldOption] = []
    for spec, placed, arr, codes in opts0:
        spec_s = tuple(map(pairs.__getitem__, spec))
        out.append((spec_s, spec_s if placed is spec else tuple(map(pairs.__getitem__, placed)),
                    _in_suit(arr, suit), tuple(map(rot.__getitem__, codes))))
    return tuple(out)


def _solve_cluster(suit: int, group: tuple[int, ...], aces: int, own2: int, wild_bits: int,
                   rules: RuleSet, memo: dict[object, object]
                   ) -> MeldOptions:
    """`_cluster_in` not memoized: the windows of the cluster's slots (`_window_runs`), each
    asked of the meld rules (`_checked`)."""
    slots = {s: (4 if s in (1, 14) else s * 4) + suit for s in group}
    have = {w: 2 if w == 8 + suit and own2 else 1 for w in WILD_CODES if wild_bits >> w & 1}
    for c in slots.values():
        have[c] = 2 if (c == 4 + suit and aces) or (c == 8 + suit and own2) else 1
    found = _window_runs(slots, have, rules.ace_to_ace, rules.run_max_naturals)
    found.sort(key=lambda t: -t[0])
    return _checked([spec for _, spec in found], rules, memo, suit)


def touch_mask(arr: Arrangement, codes: Sequence[int] = ()) -> int:
    """The face codes (as bits) that could join a meld of this arrangement, a superset of
    what `attach_options` looks at: a set's rank, a run's suit within two slots of its ends
    (an ace near either end), and the wild cards while the meld holds none (once it holds
    one, a run's own 2 at slot 2 only). A hand holding none of them attaches nothing.
    Given the meld's face `codes`, a run's faces of rank 3 to king that it holds already are
    left out too: a run never holds two of one rank (melds.py), so such a face attaches
    nothing, and asking the meld rules about it was most of what a new meld cost."""
    if arr.kind == "set":
        mask = 0xF << (arr.start * 4)
        return mask | (_WILD_MASK if arr.wild is None else 0)
    s = suit_index(cast(Suit, arr.suit))
    mask = _run_reach(s, arr.start - 2, arr.end + 2)
    if arr.wild is None:
        mask |= _WILD_MASK
    for c in codes:
        if c >= 12 and c & 3 == s:
            mask &= ~_BIT[c]
    return mask


@cache
def _run_reach(s: int, lo: int, hi: int) -> int:
    """The faces of suit `s` at slots lo..hi (an ace at 1 or 14), as bits."""
    mask = sum(1 << (r * 4 + s) for r in range(max(lo, 1), min(hi, 13) + 1))
    if lo <= 1 or hi >= 14:
        mask |= 1 << (4 + s)
    return mask


def attach_options(idx: HandIndex, meld_codes: tuple[int, ...], arr: Arrangement,
                   rules: RuleSet, memo: dict[object, object] | None = None,
                   touch: int | None = None) -> list[AttachOption]:
    """`attach_candidates` of one meld (as specs of `idx`) that the meld rules accept, in the
    same order. `touch`: `touch_mask(arr)`, which the caller may pass; `memo`: `table(rules)`
    when the caller has it.

    Memoized per meld and *face*: a meld's candidates come face by face (a face of its suit
    or rank alone, the wild cards held, a face two slots away with each wild held), so the
    options of one face are computed once per meld (`_attach_parts`) and a hand's options
    are those of the faces it holds, concatenated in `attach_candidates`' order. A hand
    holding a combination of faces not seen before next to this meld costs lookups only."""
    if touch is None:
        touch = touch_mask(arr)
    near = idx.mask & touch
    if not near:
        return []
    return attach_parts(meld_codes, arr, rules, memo).options(idx, near)


def attach_parts(meld_codes: tuple[int, ...], arr: Arrangement, rules: RuleSet,
                 memo: dict[object, object] | None = None) -> _AttachParts:
    """One meld's attach options face by face (what `attach_options` asks), from the table
    or made: a caller asking the same meld at listing after listing keeps it (the hand
    state does, with the meld's row), and skips the lookup."""
    if memo is None:
        memo = table(rules)
    pkey = ("attach-parts", meld_codes, arr.kind, arr.start, arr.wild)
    parts = memo.get(pkey)
    if parts is None:
        parts = memo[pkey] = _AttachParts(meld_codes, arr, rules)
    return parts  # type: ignore[return-value]  # memo values are object


class _AttachParts:
    """One meld's attach options, face by face (see `attach_options`), filled as hands ask."""

    __slots__ = ("arr", "codes", "end_words", "far", "has_wild", "hi", "lo", "own2", "parts",
                 "prefix", "rules", "suit", "vmemo")

    def __init__(self, meld_codes: tuple[int, ...], arr: Arrangement, rules: RuleSet) -> None:
        self.codes, self.arr, self.rules = meld_codes, arr, rules
        self.vmemo = verdicts(rules)   # one dict for good (bounded in place: memo._bounded)
        self.has_wild = arr.wild is not None
        self.end_words = _ends(rules)
        self.parts: dict[object, tuple[AttachOption, ...]] = {}
        self.lo, self.hi = arr.start, arr.end
        self.suit = self.own2 = self.far = 0
        self.prefix: tuple[object, ...] = ()
        if arr.kind == "run":
            s, self.prefix = attach_run_prefix(meld_codes, arr)
            self.suit = s
            self.own2 = 8 + s
            # the faces two slots off the run's ends: each may come with a wild between
            far = 0
            for slot in (self.lo - 2, self.hi + 2):
                if 1 <= slot <= 13:
                    far |= _BIT[slot * 4 + s]
                if slot in (1, 14):
                    far |= _BIT[4 + s]
            self.far = far

    def options(self, idx: HandIndex, near: int) -> list[AttachOption]:
        """The options of a hand holding the faces `near` (its mask and the meld's touch)."""
        parts = self.parts
        out: list[AttachOption] = []
        if self.arr.kind == "set":
            start = self.arr.start
            mine = near & (0xF << (start * 4))
            if mine & (mine - 1):   # two faces of the rank or more: in the order first seen
                order = [c for c in idx.by_code if c >> 2 == start]
            else:
                order = [mine.bit_length() - 1] if mine else []
            for c in order:
                got = parts.get(c)
                if got is None:
                    got = parts[c] = self._checked([((_PAIR[c][0],), None)])
                out += got
            wb = near & _WILD_MASK
            if wb and not self.has_wild:
                got = parts.get(-wb)
                if got is None:
                    got = parts[-wb] = self._checked(
                        [((_PAIR[w][0],), None) for w in _WILDS_HELD[wb]])
                out += got
            return out
        mine = near & _SUIT_BITS[self.suit]
        x = mine
        while x:
            low = x & -x
            x ^= low
            c = low.bit_length() - 1
            got = parts.get(c)
            if got is None:
                ends, ace_ends = self.end_words
                got = parts[c] = self._checked(list(_run_singles(
                    c, _PAIR[c][0], self.lo, self.hi, self.has_wild, ends, ace_ends)))
            out += got
        if self.has_wild:
            return out
        wb = near & _WILD_MASK
        if not wb:
            return out
        got = parts.get(-wb)
        if got is None:
            ends = self.end_words[0]
            got = parts[-wb] = self._checked(
                [((_PAIR[w][0],), e) for w in _WILDS_HELD[wb] for e in ends])
        out += got
        x = mine & self.far
        while x:
            low = x & -x
            x ^= low
            c = low.bit_length() - 1
            two = c == self.own2 and idx.dbl >> c & 1
            key = (c, wb, two)
            got = parts.get(key)
            if got is None:
                stand_in = {w: [_PAIR[w][0]] for w in _WILDS_HELD[wb]}
                stand_in[c] = [_PAIR[c][0], _PAIR[c][1]] if two else [_PAIR[c][0]]
                got = parts[key] = self._checked(list(_run_pairs(
                    c, _PAIR[c][0], _wild_copies(stand_in, c, list(_WILDS_HELD[wb])),
                    self.lo, self.hi)))
            out += got
        return out

    def _checked(self, cands: list[tuple[tuple[object, ...], str | None]]
                 ) -> tuple[AttachOption, ...]:
        """Each candidate (as a spec) with the option it makes, if the meld rules accept it."""
        meld_codes, arr, rules = self.codes, self.arr, self.rules
        vmemo = self.vmemo
        run = arr.kind == "run"
        found: list[AttachOption] = []
        suit = self.suit
        for spec, end in cands:
            new = tuple(map(_FIRST, spec))
            if run:   # the answer in suit 0: its values, in the run's suit
                a0 = attach_run_asked0(rules, self.prefix, suit, arr, new, end, vmemo)
                if a0 is None:
                    continue
                ak = _in_suit(arr_key(a0), suit)
            else:
                arr2 = attach_set_quiet(rules, meld_codes, arr, new, end, vmemo)
                if arr2 is None:
                    continue
                ak = arr_key(arr2)
            allc = meld_codes + new
            found.append((spec, end, ak,  # type: ignore[arg-type]  # ArrKey, typed loosely
                          tuple(map(allc.__getitem__, ak[1]))))
        return tuple(found)
