"""The stages of a table, a hosted room and a deal, and every move between them, in one place.

Before, each was a bare string set wherever the code happened to move it on (the table's in
seven places), so the transitions could only be found with grep. Here each machine is a
`StrEnum` (members equal their old strings: `stage == "over"`, journals and JSON are
unchanged) with one table of the moves it has, as h11 keeps its connection states; `advance`
is the only way the owners move a stage on, and a move the table does not list is a bug of
ours (`StageError`), never a person's bad input.

Pure: the standard library only, so every layer may use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TypeVar


class StageError(RuntimeError):
    """A stage moved in a way its table does not list: an internal error."""


class TableStage(StrEnum):
    """`table.host.HostTable.stage`: the host's referee over a whole match."""

    IDLE = "idle"          # the match is set up, no hand dealt yet
    HAND = "hand"          # a hand is being dealt and played
    SIGNOFF = "signoff"    # the hand is over; its seeds are revealed and seats sign it off
    BETWEEN = "between"    # a hand closed, the next not dealt yet
    OVER = "over"          # the match ended (target, hands, abandonment)


class RoomStatus(StrEnum):
    """`net.room.TableRoom.status`: a table as the host's lobby shows it."""

    WAITING = "waiting"    # seats free: no match yet
    PLAYING = "playing"    # the match is under way
    OVER = "over"          # ended, or stopped by a bug; it leaves the host
    STALLED = "stalled"    # its journal could not be written: waits for the disk


class DealPhase(StrEnum):
    """`fairdeal.deal.PublicDeal.phase`: one hand's fair deal."""

    COMMIT = "commit"      # every seat commits to its seed
    SHUFFLE = "shuffle"    # each seat shuffles and encrypts the deck in turn
    LOCK = "lock"          # each seat re-locks every card with its per-card keys
    DEAL = "deal"          # cards are released to whom they belong; the hand is played
    REVEAL = "reveal"      # the hand is over (or void): only seed reveals are accepted
    CLOSED = "closed"      # audited and closed


S = TypeVar("S", TableStage, RoomStatus, DealPhase)

TRANSITIONS: Mapping[type[StrEnum], Mapping[StrEnum, frozenset[StrEnum]]] = {
    TableStage: {
        TableStage.IDLE: frozenset({TableStage.HAND, TableStage.OVER}),
        TableStage.HAND: frozenset({TableStage.SIGNOFF}),
        TableStage.SIGNOFF: frozenset({TableStage.BETWEEN, TableStage.OVER}),
        TableStage.BETWEEN: frozenset({TableStage.HAND, TableStage.OVER}),
        TableStage.OVER: frozenset(),
    },
    RoomStatus: {
        RoomStatus.WAITING: frozenset({RoomStatus.PLAYING, RoomStatus.OVER}),
        RoomStatus.PLAYING: frozenset({RoomStatus.OVER, RoomStatus.STALLED}),
        RoomStatus.STALLED: frozenset({RoomStatus.PLAYING, RoomStatus.OVER}),
        RoomStatus.OVER: frozenset({RoomStatus.OVER}),   # a bug stopping an ended table
    },
    DealPhase: {
        DealPhase.COMMIT: frozenset({DealPhase.SHUFFLE, DealPhase.REVEAL}),
        DealPhase.SHUFFLE: frozenset({DealPhase.LOCK, DealPhase.REVEAL}),
        DealPhase.LOCK: frozenset({DealPhase.DEAL, DealPhase.REVEAL}),
        DealPhase.DEAL: frozenset({DealPhase.REVEAL}),
        DealPhase.REVEAL: frozenset({DealPhase.REVEAL, DealPhase.CLOSED}),
        DealPhase.CLOSED: frozenset({DealPhase.CLOSED}),
    },
}
"""For each machine: the stages each stage may move to (a stage not listed as its own
successor cannot be entered twice)."""


def advance(current: str, new: S) -> S:
    """`new`, if the machine of `new` has the move `current` → `new`; else StageError.

    `current` may be the old bare string (code written before the enums) or the member."""
    machine = type(new)
    try:
        here = machine(current)
    except ValueError:
        raise StageError(f"{current!r} is not a {machine.__name__}") from None
    if new not in TRANSITIONS[machine][here]:
        raise StageError(f"{machine.__name__} cannot move from {here.value!r} to "
                         f"{new.value!r}")
    return new
