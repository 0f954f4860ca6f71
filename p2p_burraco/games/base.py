"""The contract every game engine keeps, so the host, the bots, the console and the
fair-deal driver can drive Burraco and Briscola through one interface.

Why it looks like this
----------------------
Cards are dealt by a cryptographic protocol, so *no node knows the whole deal*. The engine
therefore tracks **deck positions** (`Pos`, 0..N-1: slots of the shuffled deck) and, beside
them, what this copy of the state *knows* about each position (`card_at(pos)` → `CardId` or
None). Every node keeps its own replica of the hand and applies the same public action
stream:

- a selfplay run knows every position (it `learn`s the whole card order up front);
- the host knows only what has been shown face up;
- a peer knows its own cards plus what has been shown.

The deal is a fixed public schedule (`Pos` ranges → hands, pozzetti, stock, face-up card,
trump), decided by the engine from the rules, the seat count and the dealer. The engine never
shuffles and owns no randomness: the card order, and anything "random" (Briscola's first
dealer) is input.

Actions that show a card carry `CardRef`s — `(pos, card_id)` pairs: the position the card
sits at and the card claimed to be there. The network layer checks the cryptographic proof of
that claim *before* `apply`; `apply` checks the claim against what it already knows, checks
the rules, and then — only if everything is legal — changes the state and learns the cards.
`apply` is atomic: on `RuleViolation` nothing changed.

`audience(pos)` says which seats are entitled to know the card at a position *now*
(its owner after a draw, everybody after it is shown, everybody at the end of the hand, a
partner under Briscola's "carte scoperte"). The fair-deal driver releases keys to make
knowledge match entitlement; it needs nothing else from the game.

A `Match` folds hand results. Its `snapshot()` is a constant-size map of everything it needs
to go on (never the list of past results), so the host can sign it in every `hand_start`
without each hand costing more than the last, and `GameSpec.restore_match` rebuilds it.
A result with reason "forfeit" (`forfeit_result`) or a hand's `abandon` ends the match at
once against the side at fault; a "void" result scores nothing and the same dealer deals.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from .cards import CardId, Deck

Seat = int
"""Seat number 0..n-1, in the direction of play (seat+1 plays after seat)."""
Pos = int
"""A position of the shuffled deck, 0..N-1 (what fair-deal locks and reveals)."""
CardRef = tuple[Pos, CardId]
"""A card shown from a position: (position, the physical card claimed to be there)."""

WireValue = Any
"""msgpack-safe: None, bool, int, str, bytes, list and str-keyed dict of these (no floats)."""


class RuleViolation(ValueError):
    """An action the rules forbid. Names the rule id (e.g. `FIBUR-12`) and what was wrong."""

    def __init__(self, rule_id: str, message: str) -> None:
        self.rule_id = rule_id
        self.message = message
        super().__init__(f"{message} [{rule_id}]")


class ActionSyntaxError(ValueError):
    """Text or wire data that does not even describe an action (before any rule applies)."""


@dataclass(frozen=True)
class Action:
    """Base of every game action. Subclasses are frozen dataclasses with a `kind` tag.

    `to_wire()` gives a msgpack-safe dict `{"kind": ..., ...fields}`; each engine's
    `action_from_wire` reverses it. `str(action)` is the console notation.
    """

    kind: ClassVar[str] = "action"

    def to_wire(self) -> dict[str, WireValue]:
        out: dict[str, WireValue] = {"kind": self.kind}
        for name in self.__dataclass_fields__:
            out[name] = _to_wire_value(getattr(self, name))
        return out

    def shown(self) -> tuple[CardRef, ...]:
        """Hidden cards this action turns face up (the network layer proves each one)."""
        return ()


def _to_wire_value(v: Any) -> WireValue:
    if isinstance(v, tuple | list):
        return [_to_wire_value(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _to_wire_value(x) for k, x in v.items()}
    return v


@dataclass(frozen=True)
class ScoreLine:
    """One line of a hand's score breakdown, e.g. ('burraco pulito', +200)."""

    label: str
    points: int


@dataclass(frozen=True)
class HandResult:
    """The outcome of one hand: points per side with the breakdown that produced them."""

    sides: tuple[tuple[Seat, ...], ...]
    points: tuple[int, ...]                      # per side, same order as `sides`
    breakdown: tuple[tuple[ScoreLine, ...], ...]  # per side
    closed_by: Seat | None = None
    reason: str = ""                              # "closed", "stock", "stalemate", "tricks", "void"…
    extra: Mapping[str, WireValue] = field(default_factory=dict)

    def to_wire(self) -> dict[str, WireValue]:
        return {
            "sides": [list(s) for s in self.sides],
            "points": list(self.points),
            "breakdown": [[[ln.label, ln.points] for ln in b] for b in self.breakdown],
            "closed_by": self.closed_by,
            "reason": self.reason,
            "extra": _to_wire_value(dict(self.extra)),
        }


class Knowledge:
    """What one replica knows: the card at each position, and where each known card lies.

    Both engines keep their knowledge here, so a claim is checked the same way everywhere:
    a position holds one card, and a physical card lies at one position.
    """

    __slots__ = ("known", "pos_of")

    def __init__(self, n_positions: int) -> None:
        self.known: list[CardId | None] = [None] * n_positions
        self.pos_of: dict[CardId, Pos] = {}

    def __getitem__(self, pos: Pos) -> CardId | None:
        return self.known[pos]

    get = __getitem__

    def __contains__(self, pos: object) -> bool:
        return isinstance(pos, int) and 0 <= pos < len(self.known) and \
            self.known[pos] is not None

    def conflict(self, pos: Pos, card: CardId) -> str | None:
        """Why claiming `card` at `pos` contradicts what is known, or None if it does not."""
        n = len(self.known)
        if not (0 <= pos < n) or not (0 <= card < n):
            return f"no position {pos} / card #{card} in a {n}-card deck"
        have = self.known[pos]
        if have is not None and have != card:
            return f"position {pos} holds card #{have}, not #{card}"
        other = self.pos_of.get(card)
        if other is not None and other != pos:
            return f"card #{card} is already known at position {other}"
        return None

    def learn(self, pos: Pos, card: CardId) -> None:
        """Record a verified card; ValueError if it contradicts what is known."""
        problem = self.conflict(pos, card)
        if problem is not None:
            raise ValueError(problem)
        self.known[pos] = card
        self.pos_of[card] = pos

    def copy(self) -> Knowledge:
        new = Knowledge(0)
        new.known = list(self.known)
        new.pos_of = dict(self.pos_of)
        return new


@runtime_checkable
class HandState(Protocol):
    """One hand (smazzata) of a game, as one node knows it."""

    game: ClassVar[str]          # "burraco" | "briscola"
    n_seats: int
    deck: Deck
    dealer: Seat

    # --- knowledge -------------------------------------------------------------------
    def card_at(self, pos: Pos) -> CardId | None:
        """The card this replica knows at a position, or None if hidden to it."""
        ...

    def learn(self, pos: Pos, card: CardId) -> None:
        """Record a verified card. Raises ValueError if it contradicts what is known
        (another card at that position, or the same physical card at two positions)."""
        ...

    def audience(self, pos: Pos) -> frozenset[Seat]:
        """Seats entitled to know the card at `pos` right now (all seats = public)."""
        ...

    def audiences(self) -> list[frozenset[Seat]]:
        """`audience(pos)` of every position at once, in position order (asked after every
        move, so a game may share one frozenset among positions of one kind)."""
        ...

    # --- turn and legality -----------------------------------------------------------
    @property
    def to_move(self) -> Seat | None:
        """The seat whose decision it is, or None when the hand is over."""
        ...

    @property
    def phase(self) -> str:
        """A short public name of the phase ('draw', 'play', 'trick', 'over', …)."""
        ...

    def legal_kinds(self, seat: Seat) -> tuple[str, ...]:
        """The kinds of action `seat` may take now (empty when it is not its turn)."""
        ...

    def legal_actions(self, seat: Seat) -> Iterator[Action]:
        """Lazily enumerate legal actions of `seat` (needs `seat`'s own cards known)."""
        ...

    def parse_action(self, seat: Seat, text: str) -> Action:
        """Console notation → an Action for `seat` (resolving typed cards to positions in
        its hand). Raises ActionSyntaxError for unreadable text; legality is `apply`'s."""
        ...

    def action_from_wire(self, data: Mapping[str, WireValue]) -> Action:
        """Inverse of `Action.to_wire`; ActionSyntaxError on a malformed dict."""
        ...

    def apply(self, seat: Seat, action: Action) -> None:
        """Do the action or raise RuleViolation, leaving the state untouched."""
        ...

    def copy(self) -> HandState:
        """An independent copy (the console stages a turn on it; bots look ahead on it)."""
        ...

    # --- views and end ---------------------------------------------------------------
    def player_view(self, seat: Seat) -> dict[str, WireValue]:
        """What `seat` may see (msgpack-safe)."""
        ...

    def public_view(self) -> dict[str, WireValue]:
        """What everyone, the host included, may see (msgpack-safe)."""
        ...

    @property
    def is_over(self) -> bool:
        ...

    def result(self) -> HandResult:
        """Score of a finished hand. Needs the scored positions known (seeds revealed)."""
        ...

    def physical_locations(self) -> list[tuple[str, Pos]]:
        """Every (place, position) pair now — places like 'hand:2', 'stock', 'pile',
        'pozzetto:1', 'meld:0:3', 'trick', 'taken:1': the card-conservation checks use it
        (every position in exactly one place)."""
        ...

    # --- abandonment -----------------------------------------------------------------
    def abandon(self, seat: Seat) -> None:
        """`seat` abandons: the hand ends at once and its `result()` (reason "abandon",
        `extra["abandoned_by"]`) makes `Match.record` end the match, lost by that seat's
        side. RuleViolation if the hand is already over."""
        ...

    @property
    def abandoned_by(self) -> Seat | None:
        """The seat that abandoned this hand, or None."""
        ...


@runtime_checkable
class Match(Protocol):
    """A match: a sequence of hands, dealer rotation, totals, target, winner."""

    n_seats: int

    def new_hand(self) -> HandState:
        """The next hand, with positions dealt by the public schedule and nothing known."""
        ...

    def deck_size(self) -> int:
        ...

    def record(self, result: HandResult) -> None:
        """Add a finished (or voided) hand's result to the match."""
        ...

    @property
    def is_over(self) -> bool:
        ...

    def standings(self) -> dict[str, WireValue]:
        """`{"sides": [[seat, ...], ...], "totals": [int per side], "target": int | None,
        "hands": int played, "over": bool, "winner": side index or None,
        "decided_by": str | None, "abandoned_by": seat | None, "forfeit_by": seat | None,
        "forfeit_cause": str | None}` plus any game-specific keys (msgpack-safe)."""
        ...

    def snapshot(self) -> dict[str, WireValue]:
        """Everything needed to continue the match exactly, as a msgpack-safe map of constant
        size (no past results): the host signs it in each `hand_start`, every peer compares
        it with its own fold, and `GameSpec.restore_match` rebuilds the match from it."""
        ...


@dataclass(frozen=True)
class GameSpec:
    """What the CLI, host and console need to offer a game without knowing its rules."""

    name: str
    presets: Mapping[str, Any]               # variant name → RuleSet
    default_variant: str
    seat_counts: Any                          # Callable[[RuleSet], tuple[int, ...]]
    new_match: Any        # Callable[..., Match]: (rules, n_seats, *, first_dealer, target=None, **opts)
    describe: Any                             # Callable[[RuleSet], str]: rules in plain words
    restore_match: Any    # Callable[..., Match]: (rules, n_seats, snapshot, *, first_dealer,
    #                       target=None, **opts) — new_match's arguments plus Match.snapshot()


def check_cards_conserved(state: HandState) -> None:
    """Every position is in exactly one place (raise AssertionError otherwise). The usual
    answer (all is well) is found on positions alone; the places are named only to say
    what went wrong."""
    locations = state.physical_locations()
    n = len(state.deck)
    positions = {pos for _, pos in locations}
    if len(locations) == n and len(positions) == n and min(positions, default=0) >= 0 \
            and max(positions, default=-1) < n:
        ids = [c for c in (state.card_at(p) for p in range(n)) if c is not None]
        if len(ids) == len(set(ids)):
            return
    seen: dict[Pos, str] = {}
    for place, pos in locations:
        if pos in seen:
            raise AssertionError(f"position {pos} is both in {seen[pos]} and in {place}")
        seen[pos] = place
    missing = sorted(set(range(len(state.deck))) - set(seen))
    if missing or len(seen) != len(state.deck):
        raise AssertionError(f"positions not accounted for: {missing[:10]}")
    known = [state.card_at(p) for p in seen]
    ids = [c for c in known if c is not None]
    if len(ids) != len(set(ids)):
        raise AssertionError("one physical card is known at two positions")


def seat_list(n: int) -> Sequence[Seat]:
    return tuple(range(n))


# --- forfeits ---------------------------------------------------------------------------

FORFEIT = "forfeit"
"""`HandResult.reason` of a hand that ended with a seat at fault: its side loses the match."""


def forfeit_result(sides: Sequence[Sequence[Seat]], seat: Seat, cause: str,
                   n_seats: int | None = None) -> HandResult:
    """The result that ends a match against `seat`'s side (cheat, stall, timeout, abandon…).

    It scores nothing for anyone: a forfeit decides the match, not the points. `sides` are
    the match's standings sides; `extra` carries `forfeit_by`, `cause` and a per-seat
    `credit` of zeros (Burraco's `record` needs one, Briscola's ignores it). `n_seats`
    defaults to the number of seats in `sides`. ValueError on a seat not in `sides`.
    """
    side_t = tuple(tuple(int(s) for s in side) for side in sides)
    seats = [s for side in side_t for s in side]
    n = len(seats) if n_seats is None else n_seats
    if len(set(seats)) != len(seats) or any(not 0 <= s < n for s in seats):
        raise ValueError(f"sides {side_t} are not disjoint seats of a table of {n}")
    if seat not in seats:
        raise ValueError(f"seat {seat} is in none of the sides {side_t}")
    if not isinstance(cause, str) or not cause:
        raise ValueError("a forfeit names its cause (e.g. 'cheat', 'stall', 'timeout')")
    breakdown = tuple((ScoreLine(f"forfeit ({cause})", 0),) if seat in side else ()
                      for side in side_t)
    return HandResult(sides=side_t, points=(0,) * len(side_t), breakdown=breakdown,
                      reason=FORFEIT,
                      extra={"forfeit_by": seat, "cause": cause, "credit": [0] * n})


def read_forfeit(result: HandResult, n_seats: int) -> tuple[Seat, str] | None:
    """(seat at fault, cause) of a forfeit result, None for any other result.

    Both engines read forfeits through this, so they accept and refuse the same ones:
    ValueError if a "forfeit" result lacks a valid seat or cause, or scores any points.
    """
    if result.reason != FORFEIT:
        return None
    seat = result.extra.get("forfeit_by")
    cause = result.extra.get("cause")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n_seats:
        raise ValueError(f"a forfeit names the seat at fault (0..{n_seats - 1}), not {seat!r}")
    if not isinstance(cause, str) or not cause:
        raise ValueError(f"a forfeit names its cause, not {cause!r}")
    if any(p != 0 for p in result.points):
        raise ValueError(f"a forfeit scores nothing, not {list(result.points)}")
    return seat, cause


# --- snapshots --------------------------------------------------------------------------

class SnapshotReader:
    """Typed reads from a `Match.snapshot()` map, for `restore_match`.

    A snapshot arrives from the network, so every read checks the type (an int is never a
    bool) and range, and fails with a ValueError naming the key; `finish()` refuses keys
    nobody read, so two versions of a snapshot cannot silently disagree.
    """

    def __init__(self, data: object, game: str) -> None:
        if not isinstance(data, Mapping) or not all(isinstance(k, str) for k in data):
            raise ValueError(f"a {game} match snapshot is a map with text keys, "
                             f"not {type(data).__name__}")
        self.data: Mapping[str, object] = data
        self.game = game
        self.read: set[str] = set()

    def fail(self, key: str, why: str) -> ValueError:
        """The error to raise for `key`, naming the game and the key."""
        return ValueError(f"{self.game} match snapshot: {key!r} {why}")

    def _get(self, key: str) -> object:
        if key not in self.data:
            raise self.fail(key, "is missing")
        self.read.add(key)
        return self.data[key]

    def integer(self, key: str, lo: int | None = None, hi: int | None = None) -> int:
        """An int in lo..hi (inclusive)."""
        v = self._get(key)
        return self._check_int(key, v, lo, hi)

    def _check_int(self, key: str, v: object, lo: int | None, hi: int | None) -> int:
        if not isinstance(v, int) or isinstance(v, bool):
            raise self.fail(key, f"must be an integer, not {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            span = f"{'' if lo is None else lo}..{'' if hi is None else hi}"
            raise self.fail(key, f"must be in {span}, not {v}")
        return v

    def opt_integer(self, key: str, lo: int | None = None, hi: int | None = None) -> int | None:
        """None or an int in lo..hi."""
        v = self._get(key)
        return None if v is None else self._check_int(key, v, lo, hi)

    def flag(self, key: str) -> bool:
        """A bool (never an int standing for one)."""
        v = self._get(key)
        if not isinstance(v, bool):
            raise self.fail(key, f"must be true or false, not {v!r}")
        return v

    def text(self, key: str, choices: Sequence[str] | None = None) -> str:
        """A non-empty str, one of `choices` when given."""
        v = self._get(key)
        if not isinstance(v, str) or not v:
            raise self.fail(key, f"must be a non-empty text, not {v!r}")
        if choices is not None and v not in choices:
            raise self.fail(key, f"must be one of {', '.join(choices)}, not {v!r}")
        return v

    def opt_text(self, key: str) -> str | None:
        """None or a non-empty str."""
        v = self._get(key)
        if v is not None and (not isinstance(v, str) or not v):
            raise self.fail(key, f"must be a non-empty text or null, not {v!r}")
        return v

    def integers(self, key: str, n: int | None = None, lo: int | None = None,
             hi: int | None = None) -> list[int]:
        """A list of ints in lo..hi, of length `n` when given."""
        v = self._get(key)
        if not isinstance(v, list | tuple):
            raise self.fail(key, f"must be a list, not {v!r}")
        if n is not None and len(v) != n:
            raise self.fail(key, f"must have {n} entries, not {len(v)}")
        return [self._check_int(key, x, lo, hi) for x in v]

    def pairs(self, key: str, max_len: int, lo: int | None = None) -> list[tuple[int, int]]:
        """A list of at most `max_len` pairs of ints (each at least `lo`)."""
        v = self._get(key)
        if not isinstance(v, list | tuple) or len(v) > max_len:
            raise self.fail(key, f"must be a list of at most {max_len} pairs, not {v!r}")
        out: list[tuple[int, int]] = []
        for x in v:
            if not isinstance(x, list | tuple) or len(x) != 2:
                raise self.fail(key, f"must hold pairs, not {x!r}")
            out.append((self._check_int(key, x[0], lo, None),
                        self._check_int(key, x[1], lo, None)))
        return out

    def expect(self, key: str, want: object) -> None:
        """The key must equal what the constructor arguments give (rules, seats, options)."""
        v = self._get(key)
        if v != want or isinstance(v, bool) != isinstance(want, bool):
            raise self.fail(key, f"is {v!r}, but this match has {want!r} (another rule set, "
                                 "table or option?)")

    def finish(self) -> None:
        """Refuse keys nobody read."""
        extra = sorted(set(self.data) - self.read)
        if extra:
            raise ValueError(f"{self.game} match snapshot: unknown key(s) {', '.join(extra)}")
