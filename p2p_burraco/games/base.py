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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator, Mapping, Protocol, Sequence, runtime_checkable

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

    def copy(self) -> "Knowledge":
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

    def copy(self) -> "HandState":
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
        "hands": int played, "over": bool, "winner": side index or None}` plus any
        game-specific keys (msgpack-safe)."""
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


def check_cards_conserved(state: HandState) -> None:
    """Every position is in exactly one place (raise AssertionError otherwise)."""
    seen: dict[Pos, str] = {}
    for place, pos in state.physical_locations():
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
