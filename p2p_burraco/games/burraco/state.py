"""One Burraco hand (smazzata) as a state machine over deck positions.

Phases: ``draw`` (draw from the stock or take the pile), ``play`` (meld, attach, then one
discard ends the turn), ``over``. Every step is validated completely by `_check_*` before
`_do_*` changes anything, so `apply` is atomic and `legal_actions` offers exactly what `apply`
accepts (both call the same checks).

Sides ("teams") are sets of seats sharing melds, identified by their lowest seat. With 3 or 5
seats and an 18-card pozzetto they form during the hand: everyone plays alone until the first
player takes the 18, then the others pair up (FIBUR-33, FIBUR-36).

The deal is the public schedule of `deal_schedule`: this replica learns cards through
`learn(pos, card)`; `legal_actions(seat)` needs only that seat's own cards and the face-up
ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import wraps
from itertools import chain
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar, cast

from ..base import (
    Action,
    ActionSyntaxError,
    CardRef,
    HandResult,
    Knowledge,
    Pos,
    RuleViolation,
    Seat,
    WireValue,
)
from ..cards import Card, CardId, Deck, NotationError, Suit, make_deck
from . import actions as A
from . import memo
from .melds import (
    BURRACO_MIN,
    Arrangement,
    Kind,
    MeldError,
    classify,
    is_wild,
)
from .memo import FACES
from .movegen import (
    HandIndex,
    arrangement,
    attach_parts,
    meld_candidates,
    meld_options,
    touch_mask,
)
from .rules import RuleSet

Pending = list[tuple[list[Card], Arrangement]] | None
Replacing = dict[int, tuple[list[Card], Arrangement]] | None
Groups = list[tuple[Arrangement, list[Pos], list[Card]]]
MeldRow = tuple["MeldState", list[Pos], tuple[int, ...], Arrangement, int, list[Any]]
"""A meld as move generation reads it (`BurracoHand._meld_row`)."""
TeamRows = tuple[int, list[MeldRow], frozenset[int]]
"""A side's melds as move generation reads them (`BurracoHand._team_melds`)."""

_TWOS_MASK = sum(1 << c for c in memo.WILD_CODES[1:])   # the four 2s' bits (HandIndex.dbl)
_PLAIN = ("plain",)   # the plan of a discard that leaves two cards or more
_DRAW, _TAKE, _TAKE_TOP = A.Draw(), A.Take(), A.TakeTop()
"""The draw-phase steps without an opening: values, offered as one object each."""

# owner codes for positions not in a hand
STOCK, PILE, MELD, POZZ, ASIDE, UNDEALT = -1, -2, -3, -4, -5, -6


@dataclass(frozen=True)
class DealSchedule:
    """Public map from deck positions to where the deal puts them."""

    deck_size: int
    hands: tuple[tuple[Pos, ...], ...]      # per seat
    pozzetti: tuple[tuple[Pos, ...], ...]   # top first
    face_up: Pos | None                     # first card of the discard pile
    stock_start: Pos                        # stock = stock_start .. deck_size-1, top first
    first: Seat                             # who plays first


def first_player(rules: RuleSet, n_seats: int, dealer: Seat) -> Seat:
    """The dealer's left (next in the direction of play), or the right under modificato."""
    return (dealer - 1) % n_seats if rules.opener_right_of_dealer else (dealer + 1) % n_seats


def deal_schedule(rules: RuleSet, n_seats: int, dealer: Seat, *, each_for_himself: bool = False,
                  switched: bool = False) -> DealSchedule:
    """11 cards to each seat one at a time starting with the first player, then the pozzetti
    (top first), then the face-up card (unless the preset has none), then the stock."""
    size = len(make_deck(rules.deck_kind(n_seats)))
    first = first_player(rules, n_seats, dealer)
    hands: list[list[Pos]] = [[] for _ in range(n_seats)]
    for i in range(11 * n_seats):
        hands[(first + i) % n_seats].append(i)
    p = 11 * n_seats
    pozz: list[tuple[Pos, ...]] = []
    for k in rules.pozzetto_sizes(n_seats, each_for_himself, switched):
        pozz.append(tuple(range(p, p + k)))
        p += k
    face_up = None
    if rules.initial_discard:
        face_up = p
        p += 1
    return DealSchedule(size, tuple(tuple(h) for h in hands), tuple(pozz), face_up, p, first)


def _cards(codes: tuple[int, ...]) -> list[Card]:
    """The faces of these codes (never the empty code: a meld's codes are faces)."""
    return [FACES[c] for c in codes]


def _norm(arr: Arrangement) -> Arrangement:
    """The same arrangement re-indexed to the placed order (index i = i-th card placed)."""
    return Arrangement(arr.kind, tuple(range(len(arr.order))), arr.start, arr.suit,
                       None if arr.wild is None else arr.order.index(arr.wild))


@dataclass
class MeldState:
    """A meld on the table: positions in placed order plus its arrangement facts, and the
    moves that built it (`moves[0]` the positions laid, then those of each attachment)."""

    id: int
    team: int
    kind: str
    positions: list[Pos]
    start: int
    suit: object
    wild: Pos | None
    by: Seat
    moves: list[tuple[Pos, ...]]

    @property
    def one_move(self) -> bool:
        """Laid in one move (BURACO-14): the step that laid it put down every card it holds."""
        return len(self.moves[0]) == len(self.positions)

    def arrangement(self) -> Arrangement:
        key = (len(self.positions), self.start, self.wild)
        cached = self.__dict__.get("_arr")
        if cached is not None and cached[0] == key:
            return cast(Arrangement, cached[1])
        w = None if self.wild is None else self.positions.index(self.wild)
        arr = Arrangement(cast(Kind, self.kind), tuple(range(len(self.positions))), self.start,
                          cast("Suit | None", self.suit), w)
        self.__dict__["_arr"] = (key, arr)
        return arr

    def attach(self, added: tuple[Pos, ...], arr: Arrangement, positions: list[Pos]) -> None:
        """Cards attached: the meld's new placement, and one more move in its history."""
        self.positions = list(positions)
        self.start = arr.start
        self.wild = None if arr.wild is None else positions[arr.order.index(arr.wild)]
        self.moves.append(added)

    def clone(self) -> MeldState:
        return MeldState(self.id, self.team, self.kind, list(self.positions), self.start,
                         self.suit, self.wild, self.by, list(self.moves))


class _MeldPlan(tuple):  # type: ignore[type-arg]  # a tuple of mixed plan fields
    """A `_plans` entry whose plan is what `_check_meld` would return for one group, kept
    unexpanded until it is applied: (action, seat, arr, refs, codes), `arr` as move
    generation keeps it (an ArrKey), `refs` the cards in placed order. The entry and the
    plan in one object: `legal_actions` makes one for every meld it offers."""

    __slots__ = ()

    def expand(self) -> tuple[Groups]:
        return ([(arrangement(self[2]), [p for p, _ in self[3]],
                  [FACES[c] for c in self[4]])],)


class _AttachPlan(tuple):  # type: ignore[type-arg]  # a tuple of mixed plan fields
    """The same for an attachment: (action, seat, arr, the meld's positions, the cards
    added); what `_check_attach` would return once expanded."""

    __slots__ = ()

    def expand(self) -> tuple[Arrangement, list[Pos]]:
        arr = self[2]
        allpos = self[3] + [p for p, _ in self[4]]
        return (arrangement(arr), [allpos[i] for i in arr[1]])


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _changes_position(method: Callable[Concatenate[BurracoHand, _P], _R]
                      ) -> Callable[Concatenate[BurracoHand, _P], _R]:
    """Mark a method that changes the position: the one owner of the plans' lifetime.

    `legal_actions` keeps a plan for every action it offers (`_plans`) and `apply` trusts a
    plan it finds there instead of checking the action again, so a plan must never outlive
    the position it was made in. Every method that changes the position carries this mark,
    which forgets the plans when it returns or raises (forgetting is always safe: `apply`
    then checks from scratch). The dict is rebound, never cleared in place: a generator
    still running, or a copy sharing the dict at the old position, keeps its own."""

    @wraps(method)
    def changing(self: BurracoHand, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        finally:
            if self._plans:
                self._plans = {}

    return changing


@dataclass
class PozzettoState:
    positions: tuple[Pos, ...]
    taken_by: Seat | None = None
    in_hand: bool = False      # False while set aside face down (taken by a final discard)


class BurracoHand:
    """One hand of Burraco as this replica knows it (see the module docstring)."""

    game: ClassVar[str] = "burraco"

    def __init__(self, rules: RuleSet, n_seats: int, dealer: Seat, *,
                 each_for_himself: bool = False, switched: bool = False,
                 open_req: tuple[int, ...] | None = None, hand_no: int = 0) -> None:
        if n_seats not in rules.seat_counts:
            raise ValueError(f"{rules.name} is played by {rules.seat_counts} players, not {n_seats}")
        self.rules = rules
        self.n_seats = n_seats
        self.dealer = dealer % n_seats
        self.hand_no = hand_no
        self.deck: Deck = make_deck(rules.deck_kind(n_seats))
        self._codes = memo.deck_codes(self.deck.cards)   # card id -> face code (memo.py)
        self._table = memo.table(rules)   # the rule set's options table (one dict for good)
        self._plans: dict[int, tuple[Any, ...]] = {}
        # ^ (action, seat, plan, ...) by id(action): made by legal_actions, trusted by apply,
        #   forgotten by every method marked `_changes_position`
        self._acts: dict[object, Action] = {}     # action objects by value, shared by copies
        self._discards: dict[Pos, tuple[Action, Seat, object, int]] = {}  # see legal_actions
        self._tm: dict[int, TeamRows] | None = None
        # ^ the sides' melds as move generation reads them (`_team_melds`)
        self.each_for_himself = each_for_himself
        self.dynamic = rules.dynamic_sides(n_seats, each_for_himself, switched)
        self.schedule = deal_schedule(rules, n_seats, self.dealer,
                                      each_for_himself=each_for_himself, switched=switched)
        sch = self.schedule
        n = sch.deck_size
        self.knowledge = Knowledge(n)
        self.owner: list[int] = [STOCK] * n
        self.hands: list[list[Pos]] = [list(h) for h in sch.hands]
        for s, h in enumerate(self.hands):
            for p in h:
                self.owner[p] = s
        self.pozzetti = [PozzettoState(pp) for pp in sch.pozzetti]
        for pz in self.pozzetti:
            for p in pz.positions:
                self.owner[p] = POZZ
        self.pile: list[Pos] = []
        self.exposed: frozenset[Pos] = frozenset()   # see `was_shown`
        if sch.face_up is not None:
            self.pile.append(sch.face_up)
            self.owner[sch.face_up] = PILE
            self.exposed = frozenset((sch.face_up,))
        self.stock_next = sch.stock_start
        # sides
        if n_seats == 4 and not self.dynamic:
            self.team_of = [0, 1, 0, 1]
        elif n_seats == 6:
            self.team_of = [0, 1, 0, 1, 0, 1]
        else:
            self.team_of = list(range(n_seats))
        self.team_pozzetto: dict[int, int] = {}
        self.melds: dict[int, MeldState] = {}
        self.next_meld = 0
        self.open_req: tuple[int, ...] = open_req or (0,) * n_seats
        # turn
        self.turn: Seat = sch.first
        self._phase = "draw"
        self.took_single: Pos | None = None
        self.took_discard_only = False
        self.acted = False
        self.drawn: Pos | None = None
        self.can_redraw = False
        self.first_turn = True
        self.stalemate_count = 0
        self.turns = 0
        self.closed_by: Seat | None = None
        self.end_reason = ""
        self._abandoned_by: Seat | None = None
        self.log: list[tuple[Seat, Action | str]] = []
        # ^ the last steps, each told in the console notation when it is shown (public_view):
        #   formatting every step as it is applied would cost more than the rest of `apply`

    # ------------------------------------------------------------------ knowledge
    def card_at(self, pos: Pos) -> CardId | None:
        return self.known[pos]

    @_changes_position
    def learn(self, pos: Pos, card: CardId) -> None:
        self._learn(pos, card)

    def _learn(self, pos: Pos, card: CardId) -> None:
        """`learn` within a method that already changes the position (`apply`'s steps):
        the mark on that method forgets the plans."""
        self.knowledge.learn(pos, card)
        if self.owner[pos] == MELD:   # a meld's face, read by `_team_melds`
            self._tm = None

    @property
    def known(self) -> list[CardId | None]:
        """The card known at each position (None where hidden to this replica)."""
        return self.knowledge.known

    def audience(self, pos: Pos) -> frozenset[Seat]:
        everyone = frozenset(range(self.n_seats))
        if self._phase == "over":
            return everyone
        o = self.owner[pos]
        if o >= 0:
            return frozenset((o,))
        if o in (PILE, MELD):
            return everyone
        return frozenset()

    def was_shown(self, pos: Pos) -> bool:
        """Has the card at `pos` lain face up on the pile? Every seat has seen it then, and a
        player remembers it wherever it goes next (into the hand of whoever takes the pile),
        even though only that hand may now decrypt it (`audience`)."""
        return pos in self.exposed

    def audiences(self) -> list[frozenset[Seat]]:
        """`audience(pos)` of every position at once (what the fair-deal layer asks after
        every move), with one frozenset per kind instead of one per position."""
        everyone = frozenset(range(self.n_seats))
        if self._phase == "over":
            return [everyone] * len(self.owner)
        singles = [frozenset((s,)) for s in range(self.n_seats)]
        nobody: frozenset[Seat] = frozenset()
        return [singles[o] if o >= 0 else everyone if o in (PILE, MELD) else nobody
                for o in self.owner]

    def face(self, pos: Pos) -> Card:
        """The face at a position; LookupError if this replica does not know it."""
        c = self.known[pos]
        if c is None:
            raise LookupError(f"the card at position {pos} is not known to this replica")
        return self.deck.cards[c]

    def _face_or_none(self, pos: Pos) -> Card | None:
        c = self.known[pos]
        return None if c is None else self.deck.cards[c]

    # ------------------------------------------------------------------ turn facts
    @property
    def to_move(self) -> Seat | None:
        return None if self._phase == "over" else self.turn

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def is_over(self) -> bool:
        return self._phase == "over"

    @property
    def stock_count(self) -> int:
        return len(self.known) - self.stock_next

    def teams(self) -> list[tuple[Seat, ...]]:
        """Current sides, each a tuple of seats, ordered by lowest seat."""
        out: dict[int, list[Seat]] = {}
        for s, t in enumerate(self.team_of):
            out.setdefault(t, []).append(s)
        return [tuple(out[t]) for t in sorted(out)]

    def team_melds(self, team: int) -> list[MeldState]:
        return [m for m in self.melds.values() if m.team == team]

    def opened(self, team: int) -> bool:
        """Has the side laid a meld (asked at every play-phase listing: a plain loop, which
        stops at the first of its melds, costs less than `any` over a generator)."""
        for m in self.melds.values():
            if m.team == team:
                return True
        return False

    def _cite(self, key: str) -> str:
        return self.rules.rid(key)

    def _violation(self, key: str, msg: str) -> RuleViolation:
        return RuleViolation(self._cite(key), msg)

    def _available_pozzetto(self, team: int) -> int | None:
        """The pozzetto this side would take now (top-most untaken), or None if it has one."""
        if team in self.team_pozzetto:
            return None
        for k, pz in enumerate(self.pozzetti):
            if pz.taken_by is None:
                return k
        return None

    def _has_burraco(self, team: int, extra: list[tuple[list[Card], Arrangement]] | None = None,
                     replace: dict[int, tuple[list[Card], Arrangement]] | None = None) -> bool:
        """Does the side hold a burraco (clean one if the preset asks), counting pending changes."""
        need_clean = self.rules.close_needs_clean
        items: list[tuple[list[Card], Arrangement]] = []
        for m in self.team_melds(team):
            if replace and m.id in replace:
                items.append(replace[m.id])
            elif self._meld_class(m) in (("pulito",) if need_clean else ("pulito", "semipuro",
                                                                          "sporco")):
                return True
        items += extra or []
        for cards, arr in items:
            cls = classify(cards, arr, self.rules)
            if cls is not None and (not need_clean or cls == "pulito"):
                return True
        return False

    def _meld_class(self, m: MeldState) -> str | None:
        """`classify` of a meld on the table, kept on the meld until it changes (copies share
        a meld until then): the closing checks ask it for every meld at every near-end step."""
        cached = m.__dict__.get("_class")
        if cached is not None and cached[0] is m.positions:
            return cast("str | None", cached[1])
        cls = classify([self.face(p) for p in m.positions], m.arrangement(), self.rules)
        m.__dict__["_class"] = (m.positions, cls)
        return cls

    # ------------------------------------------------------------------ legality
    def legal_kinds(self, seat: Seat) -> tuple[str, ...]:
        if self._phase == "over" or seat != self.turn:
            return ()
        if self._phase == "draw":
            kinds = ["draw"] if self.stock_count > 0 else []
            if self.pile:
                kinds.append("take")
                if self.rules.take_top_allowed:
                    kinds.append("take_top")
            return tuple(kinds)
        kinds = ["meld", "attach", "discard"]
        if self.can_redraw:
            kinds.insert(0, "redraw")
        return tuple(kinds)

    def _hand_cards(self, seat: Seat) -> list[tuple[Pos, Card]]:
        out = []
        for p in self.hands[seat]:
            c = self.known[p]
            if c is None:
                raise LookupError(f"seat {seat}'s cards are not known to this replica")
            out.append((p, self.deck.cards[c]))
        return out

    def _ref(self, pos: Pos) -> CardRef:
        c = self.known[pos]
        assert c is not None
        return (pos, c)

    def legal_actions(self, seat: Seat) -> Iterator[Action]:
        """Lazily: the steps `seat` may take now (melds and attachments are candidates from
        the hand, each validated exactly as `apply` would). Each action offered keeps its
        plan in `_plans` for `apply`; action objects are shared between positions of the
        hand (`_acts`)."""
        return chain.from_iterable(self._offers(seat))

    def _offers(self, seat: Seat) -> Iterator[Iterable[Action]]:
        """The kinds of step `legal_actions` chains, each made only once the one before is
        used up: in the draw phase, the draws; in play, a redraw, the new melds (or the
        openings), the attachments, the discards. (Chained, not `yield from`: a step then
        passes through one generator, not two, and move generation is the engine's hot
        path.)"""
        if self._phase == "over" or seat != self.turn:
            return
        plans = self._plans   # this position's: a step applied meanwhile leaves them behind
        if self._phase == "draw":
            yield self._draw_offers(seat, plans)
            return
        if self.can_redraw and self.drawn is not None:
            yield (A.Redraw(self._ref(self.drawn)),)
        mine = self.hands[seat]
        known = self.knowledge.known
        try:
            idx = HandIndex.of_known(mine, known, self._codes)
        except TypeError:  # a None: a card of that hand this replica has not been shown
            raise LookupError(f"seat {seat}'s cards are not known to this replica") from None
        if len(self._table) > memo.MAX_ENTRIES:   # past its bound: memo.table halves it
            memo.table(self.rules)
        ids: list[CardId] = known  # type: ignore[assignment]  # the hand's are: the index says so
        n_hand = len(mine)
        tm = self._tm   # the side's rows as kept (`_team_melds` makes them when missing)
        team = self.team_of[seat]
        union, rows, set_ranks_held = (tm.get(team) if tm else None) or self._team_melds(team)
        if rows or not self._open_need(seat):   # rows: the side has opened
            yield self._meld_offers(seat, idx, ids, n_hand, set_ranks_held, plans)
        else:
            yield self._opening_offers(seat)
        if idx.mask & union:
            yield self._attach_offers(seat, idx, ids, n_hand, rows, plans)
        yield self._discard_offers(seat, idx, ids, n_hand, plans)

    def _opening_offers(self, seat: Seat) -> Iterator[Action]:
        """A side that has still to open, from the hand alone: each opening checked whole
        (`_opening_candidates` proposes more than the rules allow)."""
        for groups in self._opening_candidates(seat, None):
            act = A.Meld(groups=groups)
            if self._ok(seat, act):
                yield act

    def _draw_offers(self, seat: Seat, plans: dict[int, tuple[Any, ...]]) -> Iterator[Action]:
        """The draw phase: the stock unless it is empty, and taking the pile (or its top
        card) — with an opening of the cards taken where a side must have opened to take."""
        if self.stock_next < len(self.owner):   # the stock is not empty
            yield _DRAW
        if not self.pile:
            return
        team = self.team_of[seat]
        kinds: tuple[A.Take | A.TakeTop, ...] = (
            (_TAKE, _TAKE_TOP) if self.rules.take_top_allowed else (_TAKE,))
        act: Action
        for plain in kinds:
            if self.rules.take_needs_opened and not self.opened(team):
                for groups in self._opening_candidates(seat, plain is _TAKE_TOP):
                    act = type(plain)(opening=groups)
                    if self._ok(seat, act):
                        yield act
            else:
                try:
                    plan = self._check_take(seat, plain)
                except (RuleViolation, LookupError):
                    continue
                plans[id(plain)] = (plain, seat, plan)
                yield plain

    def _meld_offers(self, seat: Seat, idx: HandIndex, ids: list[CardId], n_hand: int,
                     set_ranks_held: frozenset[int],
                     plans: dict[int, tuple[Any, ...]]) -> Iterator[Action]:
        """New melds of a side that has opened (or needs no points to open).

        Candidates come with their verdict under the meld rules (movegen's memoized
        options: pure functions of the faces). One that leaves the player ≥2 cards needs
        nothing more: _check_after has nothing to say then, and the cards are the seat's own
        by construction. Anything closer to the end of the hand goes through the full
        check."""
        rules, acts, by_code = self.rules, self._acts, idx.by_code
        set_ranks = set_ranks_held if rules.one_set_per_rank else None
        seen: set[tuple[int, ...]] = set()
        twin_twos = idx.dbl & _TWOS_MASK   # the hand holds two copies of some 2
        for _typed, placed_spec, arr, faces_key in meld_options(idx, rules, self._table):
            if faces_key in seen:
                continue
            if set_ranks is not None and arr[0] == "set" and arr[2] in set_ranks:
                continue
            pairs = []   # (a loop, not a comprehension: no function made and called)
            for c, k in placed_spec:
                p = by_code[c][k]
                pairs.append((p, ids[p]))
            refs = tuple(pairs)
            if n_hand - len(refs) < 2 and not self._may_leave(
                    seat, refs, extra=[(_cards(faces_key), _norm(arrangement(arr)))]):
                continue
            act = acts.get(refs)
            if act is None:   # (a meld's key is its refs: a tuple of pairs, no other key's
                act = acts[refs] = A.Meld(groups=(refs,))   # shape)
            seen.add(faces_key)
            if not twin_twos or not any(faces_key.count(w) > 1 for w in memo.WILD_CODES):
                plans[id(act)] = _MeldPlan((act, seat, arr, refs, faces_key))
            else:   # two copies of a 2 (one natural, one a pinella of its suit): which
                # copy stands in is arrange_new's choice, so `apply` checks it whole and
                # every replica, wire or object, places the same card as the wild
                plans.pop(id(act), None)
            yield act

    def _attach_offers(self, seat: Seat, idx: HandIndex, ids: list[CardId], n_hand: int,
                       rows: list[MeldRow],
                       plans: dict[int, tuple[Any, ...]]) -> Iterator[Action]:
        """Attachments to the side's melds that some card of the hand could touch, from
        each meld's attach options face by face (kept on its row, made when first needed)."""
        rules, acts, by_code = self.rules, self._acts, idx.by_code
        for m, mpos, mcodes, marr, touch, held in rows:
            near = idx.mask & touch
            if not near:  # no card of the hand could touch this meld
                continue
            parts = held[0]   # the meld's attach options face by face (attach_options)
            if parts is None or parts.rules is not rules:
                parts = held[0] = attach_parts(mcodes, marr, rules, self._table)
            done: set[tuple[int, ...]] = set()
            for spec, end, arr2, k2 in parts.options(idx, near):
                if k2 in done:
                    continue
                pairs = []
                for c, k in spec:
                    p = by_code[c][k]
                    pairs.append((p, ids[p]))
                refs = tuple(pairs)
                key = ("attach", m.id, refs, end)
                act = acts.get(key)
                if act is None:
                    act = acts[key] = A.Attach(m.id, refs, end)
                if n_hand - len(refs) < 2 and not self._may_leave(
                        seat, refs, replace={m.id: (_cards(k2), _norm(arrangement(arr2)))}):
                    continue
                done.add(k2)
                plans[id(act)] = _AttachPlan((act, seat, arr2, mpos, refs))
                yield act

    def _discard_offers(self, seat: Seat, idx: HandIndex, ids: list[CardId], n_hand: int,
                        plans: dict[int, tuple[Any, ...]]) -> Iterator[Action]:
        """One discard per face, its first copy in hand (not a one-card pile's card just
        taken); with one card left, only one that may go (`_check_discard` says)."""
        acts, by_code = self._acts, idx.by_code
        single = self.took_single if self.rules.single_card_pile else None
        if n_hand >= 2:
            # each position's discard and its plan entry, kept by position (a position holds
            # one card, and one seat's while it is in hand) and shared like `_acts`
            discards = self._discards
            for ps in by_code.values():
                p = ps[0]
                if p == single:
                    if len(ps) < 2:
                        continue
                    p = ps[1]
                got = discards.get(p)
                if got is None or got[1] != seat:
                    ref = (p, ids[p])
                    act = acts.get(ref)
                    if act is None:  # (a discard's key is its card ref: no other key is a pair)
                        act = acts[ref] = A.Discard(ref)
                    got = discards[p] = (act, seat, _PLAIN, id(act))   # (its key in _plans)
                plans[got[3]] = got
                yield got[0]
            return
        for ps in by_code.values():  # the last card: it must be one that may go
            p = ps[0]
            ref = (p, ids[p])
            act = acts.get(ref)
            if act is None:
                act = acts[ref] = A.Discard(ref)
            plan3 = self._try(seat, act)
            if plan3 is not None:
                plans[id(act)] = (act, seat, plan3)
                yield act

    def _team_melds(self, team: int) -> TeamRows:
        """The side's melds in id order as `_meld_row`s, the union of their touch masks (a
        hand that touches none skips the loop over the melds at once) and the ranks of its
        sets (FIBUR's one set a rank, asked at every listing). Made once, then
        kept up to date as melds are laid and changed (`_melds_laid`, `_meld_changed`).
        `_tm` is never changed in place, only rebound: copies share it, and their melds part
        when one of them moves."""
        tm = self._tm
        got = tm.get(team) if tm else None
        if got is None:
            # in id order: the dict is filled by increasing id
            rows = [self._meld_row(m) for m in self.melds.values() if m.team == team]
            union = 0
            for row in rows:
                union |= row[4]
            got = (union, rows, frozenset([r[3].start for r in rows if r[3].kind == "set"]))
            self._tm = {**tm, team: got} if tm else {team: got}
        return got

    def _meld_row(self, m: MeldState) -> MeldRow:
        """A meld as move generation reads it: itself, its positions, its face codes, its
        arrangement and `touch_mask` (kept on the meld until it changes: copies share it),
        and a place for its attach options face by face (`attach_parts`, made when a hand
        first touches it).

        What the meld keeps leaves the meld itself out: a meld that held itself would be a
        reference cycle, freed only by the garbage collector, whose passes cost the bench more
        than the row's tuple does."""
        mpos = m.positions
        cached = m.__dict__.get("_codes")
        if cached is not None and cached[0] is mpos:
            return (m, *cached)
        known = self.known
        cid_code = self._codes
        marr = m.arrangement()
        mcodes = tuple(map(cid_code.__getitem__, map(known.__getitem__, mpos)))  # type: ignore[arg-type]  # known: a meld's cards are
        got = (mpos, mcodes, marr, touch_mask(marr, mcodes), [None])
        m.__dict__["_codes"] = got
        return (m, *got)

    def _melds_laid(self, team: int, laid: list[MeldState]) -> None:
        """New melds of the side (the newest ids): their rows go after the side's others."""
        tm = self._tm
        got = tm.get(team) if tm else None
        if got is None:
            return
        union, rows, set_ranks = got
        new = [self._meld_row(m) for m in laid]
        for row in new:
            union |= row[4]
        set_ranks |= {r[3].start for r in new if r[3].kind == "set"}
        self._tm = {**(tm or {}), team: (union, rows + new, set_ranks)}   # tm: got's

    def _meld_changed(self, m: MeldState) -> None:
        """A meld of the side took cards: its row is made again."""
        tm = self._tm
        got = tm.get(m.team) if tm else None
        if got is None:
            return
        rows = [self._meld_row(m) if row[0].id == m.id else row for row in got[1]]
        union = 0
        for row in rows:
            union |= row[4]
        self._tm = {**(tm or {}), m.team: (union, rows, got[2])}  # a set keeps its rank

    def _refs(self, positions: tuple[Pos, ...]) -> tuple[CardRef, ...]:
        return tuple(self._ref(p) for p in positions)

    def _open_need(self, seat: Seat) -> int:
        """Points the side's opening must reach (0: any meld)."""
        return self.open_req[seat] if not self.opened(self.team_of[seat]) else 0

    def _opening_candidates(self, seat: Seat, top_only: bool | None
                            ) -> Iterator[tuple[tuple[CardRef, ...], ...]]:
        """Openings: one meld, or up to three disjoint melds reaching the points needed;
        with a take, from the hand plus the cards taken."""
        hand = self._hand_cards(seat)
        if top_only is not None:
            taken = self.pile[-1:] if top_only else list(self.pile)
            hand = hand + [(p, self.face(p)) for p in taken]
        need = self.open_req[seat]
        cands: list[tuple[tuple[Pos, ...], int]] = []
        for cand in meld_candidates(hand, self.rules):
            pts = sum(self.rules.card_points(self.face(p)) for p in cand)
            cands.append((cand, pts))
            if len(cands) > 60:
                break
        for cand, pts in cands:
            if need == 0 or pts >= need or len(cand) >= BURRACO_MIN:
                yield (tuple(self._ref(p) for p in cand),)
        if need == 0:
            return
        for i, (c1, p1) in enumerate(cands):
            for c2, p2 in cands[i + 1:]:
                if set(c1) & set(c2):
                    continue
                if p1 + p2 >= need:
                    yield (tuple(self._ref(p) for p in c1), tuple(self._ref(p) for p in c2))

    def _ok(self, seat: Seat, action: Action) -> bool:
        try:
            self._check(seat, action)
        except (RuleViolation, LookupError):
            return False
        return True

    def _may_leave(self, seat: Seat, used: tuple[CardRef, ...], extra: Pending = None,
                   replace: Replacing = None) -> bool:
        """Would a meld or attachment already checked against the meld rules, putting down
        the cards `used`, leave a hand that may stand (`_check_after`: two cards or
        more, on to the pozzetto, or a closing)? What `apply` would decide, without checking
        the meld again: move generation asks it near the end of a hand, where it is most of
        the work."""
        gone = {p for p, _ in used}
        try:
            self._check_after(seat, [p for p in self.hands[seat] if p not in gone],
                              extra=extra, replace=replace, single=self.took_single)
        except RuleViolation:
            return False
        return True

    def _try(self, seat: Seat, action: Action) -> object | None:
        try:
            return self._check(seat, action)
        except (RuleViolation, LookupError):
            return None

    # ------------------------------------------------------------------ apply
    @_changes_position
    def apply(self, seat: Seat, action: Action) -> None:
        """Do the step or raise RuleViolation naming the rule; nothing changes on failure.

        An action object that `legal_actions` just offered for this position is done with the
        plan made when it was validated there, not checked a second time (any change to the
        state forgets those plans)."""
        entry = self._plans.get(id(action))
        if entry is not None and entry[0] is action and entry[1] == seat:
            # (action, seat, plan), or a meld's or an attachment's entry, its plan unexpanded
            plan = entry.expand() if type(entry) is not tuple else entry[2]  # type: ignore[attr-defined]  # a plan entry, not a tuple
        else:
            plan = self._check(seat, action)
        self._do(seat, action, plan)
        self.log.append((seat, action))
        if len(self.log) > 40:
            del self.log[:-40]

    def _check(self, seat: Seat, action: Action) -> object:
        if self._phase == "over":
            raise self._violation("turn_draw", "the hand is over")
        if not (0 <= seat < self.n_seats):
            raise self._violation("turn_draw", f"there is no seat {seat}")
        if seat != self.turn:
            raise self._violation("turn_draw", f"it is seat {self.turn}'s turn, not seat {seat}'s")
        if isinstance(action, A.Draw):
            if self._phase != "draw":
                raise self._violation("turn_draw", "you have already drawn this turn")
            if self.stock_count <= 0:
                raise self._violation("stock_end", "the stock is empty")
            return None
        if isinstance(action, (A.Take, A.TakeTop)):
            return self._check_take(seat, action)
        if self._phase != "play":
            raise self._violation("turn_draw", "first draw from the stock or take the pile")
        if isinstance(action, A.Meld):
            return self._check_meld(seat, action)
        if isinstance(action, A.Attach):
            return self._check_attach(seat, action)
        if isinstance(action, A.Discard):
            return self._check_discard(seat, action)
        if isinstance(action, A.Redraw):
            if not self.can_redraw or self.drawn is None:
                raise self._violation("first_turn", "only the first player's first draw may be "
                                      "put back on the pile")
            self._check_refs(seat, (action.card,))
            if action.card[0] != self.drawn:
                raise self._violation("first_turn", "only the card just drawn may be put back")
            if self.stock_count <= 0:
                raise self._violation("stock_end", "the stock is empty")
            return None
        raise ActionSyntaxError(f"not a Burraco action: {action!r}")

    def _check_refs(self, seat: Seat, refs: tuple[CardRef, ...],
                    extra: frozenset[Pos] = frozenset()) -> list[Card]:
        """Each ref is a distinct card of `seat`'s hand (or of `extra`); returns the faces."""
        faces: list[Card] = []
        seen: set[Pos] = set()
        for pos, cid in refs:
            if not (0 <= pos < len(self.known)) or not (0 <= cid < len(self.deck)):
                raise self._violation("own_cards", f"no card #{cid} at position {pos}")
            problem = self.knowledge.conflict(pos, cid)
            card = self.deck.cards[cid]
            if pos in seen:
                raise self._violation("own_cards", f"{card} is named twice")
            seen.add(pos)
            if self.owner[pos] != seat and pos not in extra:
                raise self._violation("own_cards", f"{card} is not in your hand")
            if problem is not None:
                raise self._violation("own_cards", f"{card} is not the card you hold there "
                                                   f"({problem})")
            faces.append(card)
        return faces

    def _check_groups(self, seat: Seat, groups: tuple[tuple[CardRef, ...], ...],
                      extra: frozenset[Pos] = frozenset()
                      ) -> list[tuple[Arrangement, list[Pos], list[Card]]]:
        if not groups:
            raise self._violation("turn_meld", "name the cards to meld")
        allrefs = tuple(r for g in groups for r in g)
        self._check_refs(seat, allrefs, extra)
        team = self.team_of[seat]
        set_ranks = {m.start for m in self.team_melds(team) if m.kind == "set"}
        out = []
        points = 0
        burraco = False
        for g in groups:
            faces = [self.deck.cards[c] for _, c in g]
            try:
                arr = memo.new_meld(self.rules, faces)
            except MeldError as e:
                raise self._violation(e.key, f"{' '.join(map(str, faces))}: {e.message}") from None
            if arr.kind == "set" and self.rules.one_set_per_rank:
                if arr.start in set_ranks:
                    raise self._violation("one_set_rank", "your side already has a set of "
                                          f"{faces[arr.order[0]].display()[:-1]}s")
                set_ranks.add(arr.start)
            positions = [g[i][0] for i in arr.order]
            placed = [faces[i] for i in arr.order]
            points += sum(self.rules.card_points(c) for c in faces)
            burraco = burraco or len(g) >= BURRACO_MIN
            out.append((arr, positions, placed))
        need = self._open_need(seat)
        if need and not burraco and points < need:
            raise self._violation("opening", f"your side must open with melds worth at least "
                                  f"{need} points or a {self.rules.names['burraco']} "
                                  f"(these are worth {points})")
        return out

    def _check_take(self, seat: Seat, action: A.Take | A.TakeTop) -> object:
        if self._phase != "draw":
            raise self._violation("turn_draw", "you have already drawn or taken this turn")
        if not self.pile:
            raise self._violation("turn_draw", "the discard pile is empty")
        top_only = isinstance(action, A.TakeTop)
        if top_only and not self.rules.take_top_allowed:
            raise self._violation("take_top", "the whole pile must be taken, not only its top card")
        taken = self.pile[-1:] if top_only else list(self.pile)
        team = self.team_of[seat]
        groups: list[tuple[Arrangement, list[Pos], list[Card]]] = []
        if self.rules.take_needs_opened and not self.opened(team):
            if not action.opening:
                raise self._violation("take_opened", "your side has not opened: take the pile "
                                      "only together with your opening (take meld …)")
            groups = self._check_groups(seat, action.opening, frozenset(taken))
        elif action.opening:
            raise self._violation("take_opened", "take first, then meld in separate steps")
        if groups:
            used = {p for _, ps, _ in groups for p in ps}
            hand_after = [p for p in self.hands[seat] + taken if p not in used]
            self._check_after(seat, hand_after, extra=[(c, _norm(a)) for a, _, c in groups],
                              single=None)
        return (taken, groups)

    def _check_meld(self, seat: Seat, action: A.Meld) -> object:
        groups = self._check_groups(seat, action.groups)
        used = {p for _, ps, _ in groups for p in ps}
        hand_after = [p for p in self.hands[seat] if p not in used]
        self._check_after(seat, hand_after, extra=[(c, _norm(a)) for a, _, c in groups],
                          single=self.took_single)
        return (groups,)

    def _check_attach(self, seat: Seat, action: A.Attach) -> object:
        m = self.melds.get(action.meld)
        if m is None:
            raise self._violation("attach_own", f"there is no meld {action.meld}")
        if m.team != self.team_of[seat]:
            raise self._violation("attach_own", f"meld {action.meld} belongs to the other side")
        faces = self._check_refs(seat, action.cards)
        old = [self.face(p) for p in m.positions]
        try:
            arr = memo.attach(self.rules, old, m.arrangement(), faces, action.wild_end)
        except MeldError as e:
            raise self._violation(e.key, f"{' '.join(map(str, faces))} on meld {m.id}: "
                                  f"{e.message}") from None
        allpos = list(m.positions) + [r[0] for r in action.cards]
        allcards = old + faces
        positions = [allpos[i] for i in arr.order]
        placed = [allcards[i] for i in arr.order]
        used = {r[0] for r in action.cards}
        hand_after = [p for p in self.hands[seat] if p not in used]
        self._check_after(seat, hand_after, replace={m.id: (placed, _norm(arr))},
                          single=self.took_single)
        return (arr, positions)

    def _close_blocker(self, seat: Seat, last: Card | None, extra: Pending = None,
                       replace: Replacing = None, by_discard: bool = True) -> str | None:
        """Why this seat could not close now (None if it could)."""
        team = self.team_of[seat]
        if team not in self.team_pozzetto:
            return "pozzetto"
        if not self._has_burraco(team, extra, replace):
            return "close_clean" if self.rules.close_needs_clean else "close"
        if by_discard and last is not None and is_wild(last) and self.rules.close_discard_not_wild:
            return "close_wild"
        if not by_discard and self.rules.close_needs_discard:
            return "close_discard"
        return None

    _CLOSE_MSG: ClassVar[dict[str, str]] = {
        "close": "your side needs a {b} (7 cards or more) before closing",
        "close_clean": "your side needs a clean {b} before closing",
        "close_wild": "you cannot close by discarding a wild card",
        "close_discard": "you must keep a card: closing needs a final discard",
    }

    def _check_after(self, seat: Seat, hand_after: list[Pos], extra: Pending = None,
                     replace: Replacing = None, single: Pos | None = None) -> None:
        """A meld/attach may not leave the player stuck: an empty hand must go to the
        pozzetto or close, and a single card left must be one it may discard."""
        team = self.team_of[seat]
        n = len(hand_after)
        if n >= 2:
            return
        if n == 0:
            if self._available_pozzetto(team) is not None:
                return  # al volo
            why = self._close_blocker(seat, None, extra, replace, by_discard=False)
            if why:
                raise self._violation(why, self._CLOSE_MSG.get(why, "{b}").format(
                    b=self.rules.names["burraco"]))
            return
        last = hand_after[0]
        if single is not None and last == single:
            raise self._violation("single_pile", "the card you took from a one-card pile would "
                                  "be your only discard, and it may not go straight back")
        if self._available_pozzetto(team) is not None:
            return
        why = self._close_blocker(seat, self._face_or_none(last), extra, replace)
        if why:
            raise self._violation(why, "you would be left with a card you cannot discard: "
                                  + self._CLOSE_MSG[why].format(b=self.rules.names["burraco"]))

    def _check_discard(self, seat: Seat, action: A.Discard) -> object:
        (card,) = self._check_refs(seat, (action.card,))
        pos = action.card[0]
        if self.rules.single_card_pile and self.took_single == pos:
            raise self._violation("single_pile", f"{card} was the only card of the pile: it "
                                  "cannot be discarded this turn (another copy may)")
        team = self.team_of[seat]
        if len(self.hands[seat]) == 1:
            if self._available_pozzetto(team) is not None:
                return ("pozzetto",)
            why = self._close_blocker(seat, card)
            if why:
                raise self._violation(why, self._CLOSE_MSG[why].format(
                    b=self.rules.names["burraco"]))
            return ("close",)
        return ("plain",)

    # ------------------------------------------------------------------ mutation
    def _to_pile(self, seat: Seat, ref: CardRef) -> None:
        """A card of `seat`'s hand goes face up on the discard pile (a discard, or
        modificato's first-turn put-back)."""
        self._learn(*ref)
        self.hands[seat].remove(ref[0])
        self.pile.append(ref[0])
        self.exposed = self.exposed.union((ref[0],))   # a new set: copies share the old one
        self.owner[ref[0]] = PILE

    def _do(self, seat: Seat, action: Action, plan: Any) -> None:
        if isinstance(action, A.Draw):
            self._draw_to(seat)
            self._phase = "play"
            if self.first_turn and self.rules.first_turn_redraw and not self.pile:
                self.can_redraw = True
            return
        if isinstance(action, A.Redraw):
            self._to_pile(seat, action.card)
            self.can_redraw = False
            self._draw_to(seat)
            return
        self.can_redraw = False
        if isinstance(action, (A.Take, A.TakeTop)):
            taken, groups = plan
            if isinstance(action, A.Take) and len(taken) == 1:
                self.took_single = taken[0] if self.rules.single_card_pile else None
            # only the previous player's discard: a one-card pile, or the top card alone
            self.took_discard_only = len(taken) == 1
            del self.pile[len(self.pile) - len(taken):]
            for p in taken:
                self.hands[seat].append(p)
                self.owner[p] = seat
            self._phase = "play"
            if groups:
                for r in action.shown():
                    self._learn(*r)
                self._lay(seat, groups)
                self.acted = True
            return
        if isinstance(action, A.Meld):
            (groups,) = plan
            for r in action.shown():
                self._learn(*r)
            self._lay(seat, groups)
            self.acted = True
            return
        if isinstance(action, A.Attach):
            arr, positions = plan
            for r in action.cards:
                self._learn(*r)
            m = self.melds[action.meld] = self.melds[action.meld].clone()  # copies share melds
            for r in action.cards:
                self.hands[seat].remove(r[0])
                self.owner[r[0]] = MELD
            m.attach(tuple(r[0] for r in action.cards), arr, positions)
            self._meld_changed(m)
            self.acted = True
            self._after_meld(seat)
            return
        if isinstance(action, A.Discard):
            self._to_pile(seat, action.card)
            what = plan[0]
            if what == "pozzetto":
                self._claim_pozzetto(seat, al_volo=False)
            elif what == "close":
                self._finish("closed", seat)
                return
            self._end_turn()
            return
        raise ActionSyntaxError(f"not a Burraco action: {action!r}")

    def _draw_to(self, seat: Seat) -> None:
        pos = self.stock_next
        self.stock_next += 1
        self.hands[seat].append(pos)
        self.owner[pos] = seat
        self.drawn = pos

    def _lay(self, seat: Seat, groups: list[tuple[Arrangement, list[Pos], list[Card]]]) -> None:
        team = self.team_of[seat]
        laid = []
        for arr, positions, _placed in groups:
            for p in positions:
                if self.owner[p] == PILE:
                    self.pile.remove(p)
                elif self.owner[p] == seat:
                    self.hands[seat].remove(p)
                self.owner[p] = MELD
            wild = None if arr.wild is None else positions[arr.order.index(arr.wild)]
            m = self.melds[self.next_meld] = MeldState(
                self.next_meld, team, arr.kind, list(positions), arr.start, arr.suit, wild, seat,
                moves=[tuple(positions)])
            laid.append(m)
            self.next_meld += 1
        self._melds_laid(team, laid)
        self._after_meld(seat)

    def _after_meld(self, seat: Seat) -> None:
        if self.hands[seat]:
            return
        team = self.team_of[seat]
        if self._available_pozzetto(team) is not None:
            self._claim_pozzetto(seat, al_volo=True)
            return
        self._finish("closed", seat)

    def _claim_pozzetto(self, seat: Seat, al_volo: bool) -> None:
        team = self.team_of[seat]
        k = self._available_pozzetto(team)
        assert k is not None
        pz = self.pozzetti[k]
        pz.taken_by = seat
        first_claim = not self.team_pozzetto
        if self.dynamic and first_claim:
            self._form_sides(seat)
            team = self.team_of[seat]
        self.team_pozzetto[team] = k
        if al_volo:
            self._pick_pozzetto(seat, k)
        else:
            for p in pz.positions:
                self.owner[p] = ASIDE

    def _pick_pozzetto(self, seat: Seat, k: int) -> None:
        pz = self.pozzetti[k]
        pz.in_hand = True
        for p in pz.positions:
            self.owner[p] = seat
            self.hands[seat].append(p)

    def _form_sides(self, solo: Seat) -> None:
        """The first to the 18-card pozzetto plays alone; the others pair up (opposite seats
        with 5 players)."""
        self._tm = None
        n = self.n_seats
        if n == 3:
            pairs = [((solo + 1) % 3, (solo + 2) % 3)]
        else:
            pairs = [((solo + 1) % 5, (solo + 3) % 5), ((solo + 2) % 5, (solo + 4) % 5)]
        for a, b in pairs:
            new = min(a, b)
            for s in (a, b):
                old = self.team_of[s]
                for k, m in self.melds.items():
                    if m.team == old:
                        m = self.melds[k] = m.clone()  # copies share melds
                        m.team = new
                self.team_of[s] = new

    def _finish(self, reason: str, closer: Seat | None) -> None:
        self._phase = "over"
        self.end_reason = reason
        self.closed_by = closer

    @_changes_position
    def abandon(self, seat: Seat) -> None:
        """`seat` abandons (or the table declares it abandoned): the hand ends at once and
        scores nothing; `result()` names the seat, so the match ends lost by its side
        (TABLE-9). The engine keeps no clock: when a seat is abandoned is the table's call."""
        if not 0 <= seat < self.n_seats:
            raise ValueError(f"no seat {seat} at a table of {self.n_seats}")
        if self._phase == "over":
            raise RuleViolation("TABLE-9", "the hand is already over")
        self._abandoned_by = seat
        self._finish("abandon", None)
        self.log.append((seat, "abandon"))

    @property
    def abandoned_by(self) -> Seat | None:
        """The seat that abandoned this hand, or None."""
        return self._abandoned_by

    def _end_turn(self) -> None:
        # stalemate (PAGAT-20, ours elsewhere as TABLE-12): a whole orbit of turns that only
        # took the previous discard and laid nothing ends the hand
        idle = self.took_discard_only and not self.acted
        self.stalemate_count = self.stalemate_count + 1 if idle else 0
        if self.stalemate_count >= self.n_seats:
            self._finish("stalemate", None)
            return
        if self.stock_count <= self.rules.stock_end:
            self._finish("stock", None)
            return
        self.turns += 1
        self.first_turn = False
        self.turn = (self.turn + 1) % self.n_seats
        self._phase = "draw"
        self.took_single = None
        self.took_discard_only = False
        self.acted = False
        self.drawn = None
        self.can_redraw = False
        for k, pz in enumerate(self.pozzetti):
            if pz.taken_by == self.turn and not pz.in_hand:
                self._pick_pozzetto(self.turn, k)

    # ------------------------------------------------------------------ console notation
    def parse_action(self, seat: Seat, text: str) -> Action:
        """Console words → an action for `seat` (see actions.py for the notation). Typed faces
        resolve to positions of the seat's hand (any copy); a face the hand lacks raises
        RuleViolation naming the card."""
        words = text.replace(",", " ").split()
        if not words:
            raise ActionSyntaxError("type an action: draw, take, meld …, attach N …, discard …")
        verb = words[0].lower()
        rest = words[1:]
        if verb in ("draw", "pesca", "pesco"):
            if rest:
                raise ActionSyntaxError("draw takes no cards")
            return A.Draw()
        if verb in ("take", "raccogli", "raccolgo", "prendi"):
            top = False
            if rest and rest[0].lower() in ("top", "cima", "prima"):
                top = True
                rest = rest[1:]
            opening: tuple[tuple[CardRef, ...], ...] = ()
            if rest:
                if rest[0].lower() not in ("meld", "cala", "+"):
                    raise ActionSyntaxError("after take: nothing, 'top', or 'meld <cards>'")
                taken = self.pile[-1:] if top else list(self.pile)
                opening = self._parse_groups(seat, rest[1:], taken)
            return A.TakeTop(opening=opening) if top else A.Take(opening=opening)
        if verb in ("meld", "cala", "calo"):
            return A.Meld(groups=self._parse_groups(seat, rest, []))
        if verb in ("attach", "attacca", "attacco", "lega"):
            if len(rest) < 2:
                raise ActionSyntaxError("attach <meld number> <cards> [low|high]")
            try:
                mid = int(rest[0].lstrip("#"))
            except ValueError:
                raise ActionSyntaxError(f"{rest[0]!r} is not a meld number") from None
            end = None
            if rest[-1].lower() in ("low", "high", "basso", "alto"):
                end = "low" if rest[-1].lower() in ("low", "basso") else "high"
                rest = rest[:-1]
            refs = self._resolve(seat, rest[1:], [])
            return A.Attach(mid, refs, end)
        if verb in ("discard", "scarta", "scarto"):
            if len(rest) != 1:
                raise ActionSyntaxError("discard one card, e.g. discard Qs")
            return A.Discard(self._resolve(seat, rest, [])[0])
        if verb in ("redraw", "ripesca", "ripesco"):
            if self.drawn is None or self.known[self.drawn] is None:
                raise self._violation("first_turn", "there is no card just drawn to put back")
            return A.Redraw(self._ref(self.drawn))
        raise ActionSyntaxError(f"unknown action {verb!r}; try draw, take, meld, attach, "
                                "discard")

    def _parse_groups(self, seat: Seat, words: list[str], extra: list[Pos]
                      ) -> tuple[tuple[CardRef, ...], ...]:
        groups: list[list[str]] = [[]]
        for w in words:
            if w in ("/", "|", ";"):
                groups.append([])
            else:
                groups[-1].append(w)
        if any(not g for g in groups):
            raise ActionSyntaxError("each group of a meld needs cards, e.g. meld 7h 8h 9h")
        used: set[Pos] = set()
        return tuple(self._resolve(seat, g, extra, used) for g in groups)

    def _resolve(self, seat: Seat, words: list[str], extra: list[Pos],
                 used: set[Pos] | None = None) -> tuple[CardRef, ...]:
        used = set() if used is None else used
        try:
            faces = self.deck.parse_many(words)
        except NotationError as e:
            raise ActionSyntaxError(str(e)) from None
        pool = list(self.hands[seat]) + [p for p in extra if p not in self.hands[seat]]
        out: list[CardRef] = []
        for card in faces:
            for p in pool:
                if p in used:
                    continue
                c = self.known[p]
                if c is not None and self.deck.cards[c] == card:
                    used.add(p)
                    out.append((p, c))
                    break
            else:
                raise self._violation("own_cards", f"{card} is not in your hand")
        return tuple(out)

    def action_from_wire(self, data: Mapping[str, WireValue]) -> Action:
        return A.action_from_wire(data)

    # ------------------------------------------------------------------ copy, views
    def copy(self) -> BurracoHand:
        """An independent position in microseconds (a search explores copies): lists are
        copied, melds are shared until one changes (`_do` clones it first)."""
        new = object.__new__(BurracoHand)
        new.__dict__.update(self.__dict__)
        new.knowledge = self.knowledge.copy()
        new.owner = list(self.owner)
        new.hands = [list(h) for h in self.hands]
        new.pozzetti = [PozzettoState(p.positions, p.taken_by, p.in_hand) for p in self.pozzetti]
        new.pile = list(self.pile)
        new.team_of = list(self.team_of)
        new.team_pozzetto = dict(self.team_pozzetto)
        new.melds = dict(self.melds)  # shared: a meld is cloned before it changes (`_do`)
        new.log = list(self.log)
        return new

    def with_cards(self, cards: Mapping[Pos, CardId]) -> BurracoHand:
        """A copy that knows exactly `cards` (position -> card id) and nothing else: what a
        search builds from one seat's view plus a guess at the cards it cannot see (a
        determinization). ValueError if the map claims one card at two positions."""
        new = self.copy()
        new._know_exactly(cards)
        return new

    @_changes_position
    def _know_exactly(self, cards: Mapping[Pos, CardId]) -> None:
        """Forget every card known and learn exactly `cards` (see `with_cards`)."""
        self.knowledge = Knowledge(len(self.known))
        for pos, cid in cards.items():
            self.knowledge.learn(pos, cid)
        self._acts = {}     # its cards differ: its actions are its own
        self._discards = {}
        self._tm = None

    def snapshot(self) -> tuple[object, ...]:
        """Everything that makes this position, as plain values: two states with equal
        snapshots offer the same actions and score the same (a search's copy-restore and the
        tests compare positions with it)."""
        melds = tuple((m.id, m.team, m.kind, tuple(m.positions), m.start, m.suit, m.wild, m.by,
                       tuple(m.moves)) for m in sorted(self.melds.values(), key=lambda m: m.id))
        return (tuple(self.known), tuple(self.owner), tuple(tuple(h) for h in self.hands),
                tuple(self.pile), self.stock_next, melds, self.next_meld,
                tuple((pz.positions, pz.taken_by, pz.in_hand) for pz in self.pozzetti),
                tuple(self.team_of), tuple(sorted(self.team_pozzetto.items())), self.open_req,
                self.turn, self._phase, self.took_single, self.took_discard_only, self.acted,
                self.drawn, self.can_redraw, self.first_turn, self.stalemate_count, self.turns,
                self.closed_by, self.end_reason, self._abandoned_by, tuple(self.log),
                tuple(sorted(self.exposed)))

    def hand_refs(self, seat: Seat) -> list[tuple[Pos, CardId | None]]:
        """The seat's hand as (position, card or None): cheaper than a whole view (bots)."""
        known = self.known
        return [(p, known[p]) for p in self.hands[seat]]

    def pile_refs(self) -> list[tuple[Pos, CardId | None]]:
        """The discard pile, bottom first (face up: public)."""
        known = self.known
        return [(p, known[p]) for p in self.pile]

    def meld_view(self, m: MeldState) -> dict[str, WireValue]:
        faces = [self._face_or_none(p) for p in m.positions]
        cls = None
        if all(f is not None for f in faces):
            cls = classify(cast("list[Card]", faces), m.arrangement(), self.rules)
        wild_index = None if m.wild is None else m.positions.index(m.wild)
        return {"id": m.id, "side": m.team, "by": m.by, "kind": m.kind,
                "cards": [None if f is None else str(f) for f in faces],
                "positions": list(m.positions), "wild": wild_index, "class": cls,
                "length": len(m.positions)}

    def public_view(self) -> dict[str, WireValue]:
        pile = [[p, None if self._face_or_none(p) is None else str(self._face_or_none(p))]
                for p in self.pile]
        return {
            "game": "burraco", "variant": self.rules.name, "n_seats": self.n_seats,
            "dealer": self.dealer, "hand_no": self.hand_no, "to_move": self.to_move,
            "phase": self._phase, "sides": [list(t) for t in self.teams()],
            "side_of": list(self.team_of),
            "hand_counts": [len(h) for h in self.hands],
            "melds": [self.meld_view(m) for m in sorted(self.melds.values(), key=lambda m: m.id)],
            "pile": pile, "stock": self.stock_count,
            "pozzetti": [{"size": len(pz.positions), "taken_by": pz.taken_by,
                          "seen": pz.in_hand} for pz in self.pozzetti],
            "opened": [self.opened(self.team_of[s]) for s in range(self.n_seats)],
            "closed_by": self.closed_by, "end": self.end_reason,
            "abandoned_by": self._abandoned_by,
            "log": [[s, str(t)] for s, t in self.log[-12:]],
        }

    def player_view(self, seat: Seat) -> dict[str, WireValue]:
        view = self.public_view()
        view["seat"] = seat
        view["hand"] = [[p, None if self._face_or_none(p) is None else str(self._face_or_none(p))]
                        for p in self.hands[seat]]
        view["legal_kinds"] = list(self.legal_kinds(seat))
        return view

    # ------------------------------------------------------------------ end
    def result(self) -> HandResult:
        from .scoring import score_hand
        return score_hand(self)

    def physical_locations(self) -> list[tuple[str, Pos]]:
        out: list[tuple[str, Pos]] = []
        for s, h in enumerate(self.hands):
            place = f"hand:{s}"
            out += [(place, p) for p in h]
        out += [("stock", p) for p in range(self.stock_next, len(self.known))]
        out += [("pile", p) for p in self.pile]
        for k, pz in enumerate(self.pozzetti):
            if pz.taken_by is None:
                place = f"pozzetto:{k}"
                out += [(place, p) for p in pz.positions]
            elif not pz.in_hand:
                place = f"aside:{pz.taken_by}"
                out += [(place, p) for p in pz.positions]
        for m in self.melds.values():
            place = f"meld:{m.team}:{m.id}"
            out += [(place, p) for p in m.positions]
        return out
