"""Burraco actions: single steps of a turn, each a frozen dataclass with a console notation.

Notation (what `str(action)` prints and `BurracoHand.parse_action` reads; Italian words too):

- ``draw`` / ``pesca`` — the top card of the stock.
- ``take`` / ``raccogli`` — the whole discard pile; ``take top`` / ``raccogli cima`` — only its
  top card (classic). A side that must still open (classic) opens with the same step:
  ``take meld 7h 8h 9h / Ks Kd Kc`` (groups separated by ``/``; pile cards may be used).
- ``meld 7h 8h 9h`` / ``cala …`` — one new meld; several groups at once: ``meld 7h 8h 9h / Ks Kd Kc``.
  The order typed places a free wild where it is a choice: ``meld JK 7s 8s`` puts the joker
  below, ``meld 7s 8s JK`` above (only where the rules let the player choose; under FIBUR and
  pagat a free wild always stands at the low end and the engine places it there). The order
  typed also places an ace that fits at both ends: ``meld 2h … Kh Ah`` puts it after the K,
  ``meld Ah 2h … Kh`` before the 2 (FIBUR-10).
- ``attach 3 10h`` / ``attacca 3 10h`` — cards onto the side's meld number 3; add ``low`` or
  ``high`` (``basso``/``alto``) to say where an attached ace goes when it fits at both ends
  (``attach 3 Ah high``: after the K), or else a wild, when the rules leave it to you.
- ``discard Qs`` / ``scarta Qs``.
- ``redraw`` / ``ripesca`` — modificato's first turn: the card just drawn goes face up on the
  pile and another is drawn.

Cards travel as `CardRef` pairs (deck position, physical card): `shown()` lists those a step
turns face up. Positions already face up (pile cards used in an opening) are listed too; they
are public already, so the network layer has nothing more to prove for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from ..base import Action, ActionSyntaxError, CardRef, WireValue
from ..cards import Card, DeckKind, make_deck


@cache
def _faces() -> tuple[Card, ...]:
    # The 162-card deck starts with the 108-card one: one table serves both.
    return make_deck(DeckKind.FRENCH_162).cards


def face(ref: CardRef) -> Card:
    """The face of a CardRef's physical card (same ids in the 108 and 162 decks)."""
    return _faces()[ref[1]]


def _fmt(refs: tuple[CardRef, ...]) -> str:
    return " ".join(str(face(r)) for r in refs)


def _groups_text(groups: tuple[tuple[CardRef, ...], ...]) -> str:
    return " / ".join(_fmt(g) for g in groups)


@dataclass(frozen=True)
class Draw(Action):
    kind: ClassVar[str] = "draw"

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True)
class _TakeWithOpening(Action):
    """Taking from the pile, with the melds that open a side still to open (classic)."""

    verb: ClassVar[str] = "take"
    opening: tuple[tuple[CardRef, ...], ...] = ()

    def __str__(self) -> str:
        return self.verb + (f" meld {_groups_text(self.opening)}" if self.opening else "")

    def shown(self) -> tuple[CardRef, ...]:
        return tuple(r for g in self.opening for r in g)


@dataclass(frozen=True)
class Take(_TakeWithOpening):
    """Take the whole discard pile (and, for a side still to open, open at once)."""

    kind: ClassVar[str] = "take"


@dataclass(frozen=True)
class TakeTop(_TakeWithOpening):
    """Take only the top card of the pile (classic Buracco)."""

    kind: ClassVar[str] = "take_top"
    verb: ClassVar[str] = "take top"


@dataclass(frozen=True)
class Meld(Action):
    """Lay one or more new melds (several only matter for classic's opening)."""

    kind: ClassVar[str] = "meld"
    groups: tuple[tuple[CardRef, ...], ...]

    def __str__(self) -> str:
        return f"meld {_groups_text(self.groups)}"

    def shown(self) -> tuple[CardRef, ...]:
        return tuple(r for g in self.groups for r in g)


@dataclass(frozen=True)
class Attach(Action):
    """Add cards to a meld of the player's side; `wild_end` 'low'/'high' places an ace that
    fits at both ends, else a wild, where it is a choice (the wire name stays `wild_end`)."""

    kind: ClassVar[str] = "attach"
    meld: int
    cards: tuple[CardRef, ...]
    wild_end: str | None = None

    def __str__(self) -> str:
        return f"attach {self.meld} {_fmt(self.cards)}" + (f" {self.wild_end}" if self.wild_end else "")

    def shown(self) -> tuple[CardRef, ...]:
        return self.cards


@dataclass(frozen=True)
class Discard(Action):
    kind: ClassVar[str] = "discard"
    card: CardRef

    def __str__(self) -> str:
        return f"discard {face(self.card)}"

    def shown(self) -> tuple[CardRef, ...]:
        return (self.card,)


@dataclass(frozen=True)
class Redraw(Action):
    """Modificato's first turn: the drawn card goes face up on the pile, draw another."""

    kind: ClassVar[str] = "redraw"
    card: CardRef

    def __str__(self) -> str:
        return f"redraw {face(self.card)}"

    def shown(self) -> tuple[CardRef, ...]:
        return (self.card,)


ACTION_TYPES: dict[str, type[Action]] = {
    t.kind: t for t in (Draw, Take, TakeTop, Meld, Attach, Discard, Redraw)
}


def _ref(v: WireValue) -> CardRef:
    if not (isinstance(v, (list, tuple)) and len(v) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
        raise ActionSyntaxError(f"a card reference is [position, card id], not {v!r}")
    return (int(v[0]), int(v[1]))


def _refs(v: WireValue) -> tuple[CardRef, ...]:
    if not isinstance(v, (list, tuple)):
        raise ActionSyntaxError(f"expected a list of card references, not {v!r}")
    return tuple(_ref(x) for x in v)


def _groups(v: WireValue) -> tuple[tuple[CardRef, ...], ...]:
    if not isinstance(v, (list, tuple)):
        raise ActionSyntaxError(f"expected a list of groups of card references, not {v!r}")
    return tuple(_refs(g) for g in v)


def action_from_wire(data: Mapping[str, WireValue]) -> Action:
    """Inverse of `Action.to_wire` for Burraco actions (ActionSyntaxError if malformed)."""
    if not isinstance(data, Mapping):
        raise ActionSyntaxError("an action is a map with a 'kind'")
    kind = data.get("kind")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ActionSyntaxError(f"unknown Burraco action kind {kind!r}; "
                                f"expected one of {', '.join(ACTION_TYPES)}")
    extra = set(data) - {"kind"} - set(cls.__dataclass_fields__)
    if extra:
        raise ActionSyntaxError(f"unexpected fields for {kind}: {', '.join(sorted(extra))}")
    try:
        if cls is Draw:
            return Draw()
        if cls in (Take, TakeTop):
            return cls(opening=_groups(data.get("opening", [])))
        if cls is Meld:
            groups = _groups(data["groups"])
            if not groups or any(not g for g in groups):
                raise ActionSyntaxError("a meld needs at least one non-empty group")
            return Meld(groups=groups)
        if cls is Attach:
            m = data["meld"]
            if not isinstance(m, int) or isinstance(m, bool):
                raise ActionSyntaxError(f"meld id must be an integer, not {m!r}")
            we = data.get("wild_end")
            if we not in (None, "low", "high"):
                raise ActionSyntaxError(f"wild_end is 'low', 'high' or absent, not {we!r}")
            cards = _refs(data["cards"])
            if not cards:
                raise ActionSyntaxError("attach needs at least one card")
            return Attach(meld=m, cards=cards, wild_end=we)
        if cls is Discard:
            return Discard(card=_ref(data["card"]))
        return Redraw(card=_ref(data["card"]))
    except KeyError as exc:
        raise ActionSyntaxError(f"{kind} is missing field {exc.args[0]!r}") from None
