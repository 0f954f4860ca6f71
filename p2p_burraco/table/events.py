"""What a seat's controller is told (`SeatController.notify`): one small frozen value per kind
of event, in the style of h11's events.

Why typed values and not dicts: the table (`table/seat.py`), the network peer (`net/peer.py`),
the in-process table (`console/localtable.py`) and `commands/play.py` all tell the console and
the bots what happened; with one class per kind, a misspelt key or a missing field is an
error where the event is built, not a silent blank on someone's screen, and a consumer that
`match`es over `SeatEvent` is proven (by mypy's `assert_never`) to handle every kind.

Each value is built once, from trusted code or from a message the wire layer already checked
(`ClockNotice.of`); after that, consumers trust its fields. The English text an event carries
is exactly what the player reads (the console translates it through its catalog).

Pure: no I/O, no Twisted, no prompt-toolkit; imports only the engines' base types, so table/,
net/, console/ and bots/ can all use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from ..games.base import HandState, Seat, WireValue


@dataclass(frozen=True)
class LobbySeat:
    """One seat of a table as the waiting screen shows it: who sits there (None: free),
    person or bot, connected, and their key's fingerprint (None when not known)."""

    seat: int
    name: str | None = None
    bot: bool = False
    connected: bool = False
    key: str | None = None


@dataclass(frozen=True)
class TableInfo:
    """The table a networked seat sits at, as the host describes it (its id, game, variant,
    seat count, status) and whether it lets the console suggest moves."""

    id: str | None = None
    game: str | None = None
    variant: str | None = None
    players: int | None = None
    status: str | None = None
    hints: bool = True


@dataclass(frozen=True)
class SeatsChanged:
    """Who sits where: every seat's name, this controller's own seat when known, and — from
    a host — the waiting screen's seats and the table they are at."""

    names: tuple[str, ...]
    you: Seat | None = None
    seats: tuple[LobbySeat, ...] | None = None
    table: TableInfo | None = None


@dataclass(frozen=True)
class DealProgress:
    """How far the fair deal has got: `done` of `total` steps, `text` saying which step."""

    text: str
    done: int
    total: int


@dataclass(frozen=True)
class ActionPlayed:
    """A seat's action was applied: `action` in the console's notation (`str(action)`, "?"
    when the wire form cannot be read), and `state`, the seat's replica after it when the
    table has one (the console redraws from it)."""

    seat: Seat
    action: str
    state: HandState | None = None


@dataclass(frozen=True)
class ChatSaid:
    """A chat line the seat's own key signed, relayed by the host (checked by the peer)."""

    seat: Seat
    name: str
    text: str


@dataclass(frozen=True)
class StandingsChanged:
    """The match's standings as the table folded them (`Match.standings()`: sides, totals,
    target, hands, voids, winner and game-specific keys)."""

    standings: Mapping[str, WireValue]


@dataclass(frozen=True)
class ClockNotice:
    """The host's clocks, for display only (PROTOCOL.md § 8.11): the seat whose clock runs
    (None: none), its kind (turn, match_clock, step, grace) and the ms it has left, every
    seat's match clock (empty when off), and when to warn."""

    seat: Seat | None
    kind: str
    ms: int | None
    match_ms: tuple[int, ...] = ()
    warn_ms: int = 0

    @classmethod
    def of(cls, msg: Mapping[str, WireValue]) -> ClockNotice:
        """From the host's `clock` message: a field of the wrong type reads as absent (a
        display notice is never worth stopping the seat for)."""
        seat, ms, warn = msg.get("seat"), msg.get("ms"), msg.get("warn_ms")
        match_ms = msg.get("match_ms")
        return cls(
            seat=seat if isinstance(seat, int) else None,
            kind=str(msg.get("kind") or "none"),
            ms=int(ms) if isinstance(ms, (int, float)) and seat is not None else None,
            match_ms=tuple(int(m) for m in match_ms if isinstance(m, (int, float)))
            if isinstance(match_ms, list) else (),
            warn_ms=int(warn) if isinstance(warn, (int, float)) else 0)


@dataclass(frozen=True)
class LinkStatus:
    """A line about the link to the host (connected, unreachable, back, released).
    `template` and `fields`, when given, are the words `text` was made of (the catalog's
    English template and its values)."""

    text: str
    template: str | None = None
    fields: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TableLine:
    """A line for the log from the table or the peer (a timeout, a seat back or dropped, a
    void hand's outcome, a chat line dropped); `style` overrides the console's own choice."""

    text: str
    style: str = ""


@dataclass(frozen=True)
class ErrorNotice:
    """Something went wrong that the player must see: a refusal, an error from the host, or
    the host at fault (TABLE-10)."""

    text: str


@dataclass(frozen=True)
class HandVoided:
    """The host declared the hand void, and why."""

    text: str


@dataclass(frozen=True)
class TablesListed:
    """The host's list of tables (an answer to `list_tables`); not for the table screen."""

    tables: tuple[Mapping[str, WireValue], ...]


SeatEvent: TypeAlias = (SeatsChanged | DealProgress | ActionPlayed | ChatSaid | StandingsChanged
             | ClockNotice | LinkStatus | TableLine | ErrorNotice | HandVoided | TablesListed)
"""Everything `SeatController.notify` is told."""
