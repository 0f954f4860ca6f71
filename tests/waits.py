"""Waiting on an event a test can observe, never on a fixed sleep.

A fixed `sleep(0.05)` "for the app to settle" holds on a quiet machine and fails on a busy
one; a loop that stops polling at its deadline and carries on silently turns the real
failure into a confusing one further down. These wait until the condition holds, for as
long as a loaded machine may need, and fail loudly, naming what never happened.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

PATIENCE = 60.0
"""Seconds before a wait gives up: far beyond any quiet run, well within pytest-timeout."""


def wait_until(predicate: Callable[[], object], what: str, timeout: float = PATIENCE,
               poll: float = 0.005) -> None:
    """Block until `predicate()` is true; AssertionError naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting for {what}")
        time.sleep(poll)


async def until(predicate: Callable[[], object], what: str,
                timeout: float = PATIENCE) -> None:
    """`wait_until` for a test running on the event loop: the loop keeps running."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.002)


def load_scale() -> float:
    """How much longer than on a quiet machine a real-time step may take now: the load
    average per core, at least 1 (two copies of the suite and others on 2 cores: 6 or
    more). For tests that must give the system a fixed time (a bench run, a deadline the
    host is configured with); the figure is printed by the tests that use it."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
