"""What keeps one client from costing the host more than its share (PROTOCOL.md § 3, Limits).

- `TokenBucket`: `rate` tokens a second up to `burst`, on an injected clock (the reactor, or
  `twisted.internet.task.Clock` in tests).
- `REQUEST_COSTS`: what each request a peer may repeat at will takes from its connection's
  request bucket (lobby queries, `resync`, `ping`); over budget it is refused with
  `host.busy` (not fatal, but it counts toward the refusal limit).
- `HostGuard`: the connection caps (per source address and in all: `conn.too_many`) and the
  time budget each source address shares among its connections: the time the host spends
  handling their frames is taken from it, and while it is negative they are not read.

No frame handling here: `net/host.py` asks, this module counts.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

REQUEST_COSTS: dict[str, float] = {
    "ping": 1.0,
    "join_table": 1.0,
    "rematch": 1.0,
    "leave_table": 1.0,
    "list_tables": 3.0,
    "create_table": 3.0,
    "resync": 10.0,
    "say": 6.0,
}
"""Tokens each request takes from its connection's request bucket (the bigger the answer,
the more it costs: a `tables` answer lists every table, a resync re-sends a hand's log)."""


class TokenBucket:
    """`rate` tokens per second up to `burst`; starts full. The level may go negative when
    a measured cost is charged after the fact (`charge`): it then takes `-level / rate`
    seconds to be positive again."""

    def __init__(self, clock: Any, rate: float, burst: float) -> None:
        if rate < 0 or burst <= 0:
            raise ValueError("a token bucket needs rate >= 0 and burst > 0")
        self.clock = clock
        self.rate = float(rate)
        self.burst = float(burst)
        self._level = float(burst)
        self._at = float(clock.seconds())

    def _refill(self) -> None:
        now = float(self.clock.seconds())
        if now > self._at:
            self._level = min(self.burst, self._level + (now - self._at) * self.rate)
        self._at = now

    @property
    def level(self) -> float:
        self._refill()
        return self._level

    def take(self, cost: float = 1.0) -> bool:
        """Take `cost` tokens if there are that many; False (nothing taken) otherwise."""
        self._refill()
        if self._level + 1e-9 < cost:
            return False
        self._level -= cost
        return True

    def charge(self, cost: float) -> None:
        """Take `cost` tokens whatever the level (a cost measured after the work)."""
        self._refill()
        self._level -= max(0.0, cost)

    def wait(self, level: float = 0.0) -> float:
        """Seconds until the level reaches `level` (0 if it has)."""
        missing = level - self.level
        if missing <= 0:
            return 0.0
        return float("inf") if self.rate == 0 else missing / self.rate


class BufferPool:
    """The bytes every connection holds, all together: what its decoder keeps of frames not
    yet handled, what waits unsent in its transport and what the group commit holds back.
    Past `cap` in all (counted afresh for every connection then, since output drains by
    itself), the connection whose bytes made it pass the cap is told so: one that holds more
    than `small` bytes is dropped (it is what fills the memory: a huge frame in the making,
    or output it does not read), a smaller one is not read until the total is back under
    `cap` (looked at again every `recheck` s). So the host's memory for connections stays
    under `cap` plus one read per connection, whatever the number of connections
    (PROTOCOL.md § 3, Limits)."""

    def __init__(self, cap: int, small: int = 64 * 1024, clock: Any = None,
                 recheck: float = 0.2) -> None:
        if cap <= 0 or small <= 0:
            raise ValueError("a buffer pool needs a positive cap and small size")
        self.cap = cap
        self.small = small
        self.clock = clock
        self.recheck = recheck
        self.total = 0
        self._held: dict[Any, int] = {}
        self.waiting: list[Any] = []
        """Connections not read until the total is back under the cap (in order)."""
        self._call: Any = None

    def held(self, conn: Any) -> int:
        return self._held.get(conn, 0)

    def _put(self, conn: Any, n: int) -> None:
        self.total += n - self._held.get(conn, 0)
        if n:
            self._held[conn] = n
        else:
            self._held.pop(conn, None)

    def set(self, conn: Any, n: int) -> str | None:
        """`conn` now holds `n` bytes: None while the total is under the cap, else what it
        must do — "drop" (it holds more than `small`) or "pause"."""
        old = self._held.get(conn, 0)
        self._put(conn, n)
        if self.total > self.cap and n > old:
            self.refresh()
        if self.total <= self.cap or n <= old:
            if self.total <= self.cap and self.waiting:
                self._wake()
            return None
        return "drop" if n > self.small else "pause"

    def refresh(self) -> None:
        """Count every connection's bytes afresh (output drains without telling us)."""
        for conn in list(self._held):
            self._put(conn, conn.buffered())

    def wait(self, conn: Any) -> None:
        if conn not in self.waiting:
            self.waiting.append(conn)
        if self.clock is not None and (self._call is None or not self._call.active()):
            self._call = self.clock.callLater(self.recheck, self._look_again)

    def _look_again(self) -> None:
        self._call = None
        if not self.waiting:
            return
        self.refresh()
        if self.total <= self.cap:
            self._wake()
        elif self.clock is not None:
            self._call = self.clock.callLater(self.recheck, self._look_again)

    def forget(self, conn: Any) -> None:
        """A connection is gone: its bytes are free."""
        self.total -= self._held.pop(conn, 0)
        if conn in self.waiting:
            self.waiting.remove(conn)
        if self.total <= self.cap and self.waiting:
            self._wake()

    def _wake(self) -> None:
        waiting, self.waiting = self.waiting, []
        for conn in waiting:
            conn.memory_freed()


@dataclass
class GuardLimits:
    """The numbers (HostConfig carries them; PROTOCOL.md § 3 states the defaults)."""

    max_connections: int = 512
    max_per_address: int = 16
    address_share: float = 0.10
    """Fraction of the host's time one source address may take (0: no limit)."""
    address_burst: float = 0.5
    """Seconds of host time an address may take at once before the share applies."""
    exempt_loopback: bool = True
    """Connections from this machine are not held to the share (the caps still apply)."""
    max_buffered: int = 32 * 1024 * 1024
    """Bytes all connections' buffers may hold together (BufferPool)."""


def is_loopback(host: str) -> bool:
    """An address (or the name "localhost") of this machine: a peer from it is exempt from
    the time share, and a host bound to it has no LAN to announce on (DISC-1)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


class HostGuard:
    """Connections per source address and in all, and each address's time budget."""

    def __init__(self, clock: Any, limits: GuardLimits) -> None:
        self.clock = clock
        self.limits = limits
        self.by_address: dict[str, int] = {}
        self.total = 0
        self._budgets: dict[str, TokenBucket] = {}
        self.pool = BufferPool(limits.max_buffered, clock=clock)
        """Every connection's buffers together (BufferPool)."""

    def admit(self, address: str) -> str | None:
        """Count a new connection from `address`; or say why it is refused (not counted)."""
        lim = self.limits
        if self.total >= lim.max_connections:
            return f"this host serves at most {lim.max_connections} connections"
        if self.by_address.get(address, 0) >= lim.max_per_address:
            return f"at most {lim.max_per_address} connections from one address"
        self.total += 1
        self.by_address[address] = self.by_address.get(address, 0) + 1
        return None

    def release(self, address: str) -> None:
        """A connection counted by `admit` is gone."""
        n = self.by_address.get(address, 0)
        if n <= 0:
            return
        self.total -= 1
        if n == 1:
            del self.by_address[address]
            bucket = self._budgets.get(address)
            if bucket is not None and bucket.level >= bucket.burst:
                del self._budgets[address]    # else kept: reconnecting does not refill it
        else:
            self.by_address[address] = n - 1

    def spent(self, address: str) -> bool:
        """The address's time budget is spent: a new connection from it is not even
        accepted until it refills (accepting and refusing cost the host time too)."""
        bucket = self._budgets.get(address)
        return bucket is not None and bucket.level < 0

    def budget(self, address: str) -> TokenBucket | None:
        """The time budget shared by every connection from `address` (None: not limited)."""
        lim = self.limits
        if lim.address_share <= 0 or (lim.exempt_loopback and is_loopback(address)):
            return None
        bucket = self._budgets.get(address)
        if bucket is None:
            if len(self._budgets) > 2 * lim.max_connections:   # forget the refilled ones
                for addr in [a for a, b in self._budgets.items()
                             if a not in self.by_address and b.level >= b.burst]:
                    del self._budgets[addr]
            bucket = TokenBucket(self.clock, lim.address_share, lim.address_burst)
            self._budgets[address] = bucket
        return bucket
