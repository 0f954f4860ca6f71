"""The seat-controller seam: how a peer (network or in-process) drives one seat.

A controller is told what happens and, when its seat must act, is handed a `submit`
callback. Bots call it at once; the console calls it when the person has decided. If the
table refuses the action, `rejected` is called with the reason and the controller is asked
again. Neither the network layer nor the in-process table imports a concrete controller:
`cli.py` wires them together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .games.base import Action, HandResult, HandState, Seat
from .table.events import SeatEvent

Submit = Callable[[Action], None]


class SeatController(Protocol):
    def hand_started(self, state: HandState, seat: Seat) -> None:
        """A new hand: `state` is this seat's replica (its own cards become known as dealt)."""

    def your_turn(self, state: HandState, seat: Seat, submit: Submit) -> None:
        """`seat` must act now; call `submit(action)` exactly once (now or later)."""

    def rejected(self, state: HandState, seat: Seat, error: str) -> None:
        """The last submitted action was refused (error text names the rule id)."""

    def notify(self, event: SeatEvent) -> None:
        """Something public happened (an action, a progress step, a log line…): one of the
        typed values of `table.events`."""

    def hand_ended(self, state: HandState, result: HandResult, verdict: str) -> None:
        """The hand is over: its score and the audit verdict ('fair' or who deviated)."""

    def match_ended(self, standings: dict[str, Any]) -> None:
        """The match is over."""
