"""TABLE-15: a pause between hands, so the people at the table can read how the hand ended
(the score sheet the console shows) before the next deal starts and a clock runs again.

A fixed pause kept by the host — not a "ready" message from each seat — so a seat that
never answers cannot hold the table, and nothing new crosses the wire: the peers simply see
the next `hand_start` later. No clock runs in the pause (no hand is in progress), and a
seat away between hands still gets its grace (TABLE-6) as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .roomhost import RoomHost


class HandPause:
    """When the next deal of one table may start: `seconds` after the last hand closed."""

    def __init__(self, node: RoomHost) -> None:
        self.node = node
        config = getattr(node, "config", None)
        self.seconds = max(0.0, float(getattr(config, "pause_between", 0.0) or 0.0))
        self.until_ms: int | None = None
        self.call: Any = None

    def now_ms(self) -> int:
        return int(self.node.now_ms())

    def hand_closed(self) -> None:
        """A hand just ended and the match goes on: the pause starts now."""
        if self.seconds > 0:
            self.until_ms = self.now_ms() + int(self.seconds * 1000)

    def holding(self, retry: Callable[[], None]) -> bool:
        """True while the pause runs (then `retry` is called once it is over)."""
        if self.until_ms is None:
            return False
        left = self.until_ms - self.now_ms()
        if left <= 0:
            self.until_ms = None
            return False
        if self.call is None or not self.call.active():
            self.call = self.node.reactor.callLater(left / 1000, retry)
        return True

    def cancel(self) -> None:
        if self.call is not None and self.call.active():
            self.call.cancel()
        self.call, self.until_ms = None, None
