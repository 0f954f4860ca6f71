"""Running Twisted's reactor for a command, so that only `net/` imports Twisted.

Each command hands over one `start(reactor)` function that sets its nodes going and returns
what marks the end (a Deferred, a coroutine or an awaitable). The reactor runs until that
fires, then stops; the command gets `(result, error)` back with no Twisted type in sight.
`with_asyncio=True` runs on Twisted's asyncio reactor on a fresh event loop, so that
prompt-toolkit's full-screen application shares the loop with the network.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from twisted.internet.defer import CancelledError, Deferred, ensureDeferred, maybeDeferred
from twisted.internet.error import ConnectError, ConnectionClosed
from twisted.python.failure import Failure

from ..errors import UsageError
from .peer import PeerError

Start = Callable[[Any], Any]

EXPECTED: tuple[type[BaseException], ...] = (
    PeerError, OSError, TimeoutError, CancelledError, ConnectError, ConnectionClosed)
"""Failures that are an outcome a person is told in one sentence (the host is unreachable,
the connection dropped, a port is taken). A `UsageError` is raised to the command line (exit
2), and anything else too, as the bug it is (exit 70 with its traceback in a file)."""


def install_asyncio_reactor() -> Any:
    """Twisted's asyncio reactor on a fresh loop (once per process; must run before anything
    imports `twisted.internet.reactor`). Returns the reactor."""
    import sys

    from twisted.internet import asyncioreactor

    installed = sys.modules.get("twisted.internet.reactor")
    if installed is not None:  # already installed (e.g. `join` started under `play`)
        if not isinstance(installed, asyncioreactor.AsyncioSelectorReactor):
            raise RuntimeError(f"Twisted's {type(installed).__name__} was installed before "
                               "the asyncio reactor the console needs")
        return installed
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    asyncioreactor.install(loop)  # type: ignore[no-untyped-call]  # Twisted leaves it untyped
    from twisted.internet import reactor

    return reactor


def as_deferred(value: Any) -> Deferred[Any]:
    """A Deferred for whatever `start` returned: a Deferred, a coroutine, an asyncio future
    or awaitable, or a plain value."""
    if isinstance(value, Deferred):
        return value
    if inspect.iscoroutine(value):
        return Deferred.fromFuture(asyncio.ensure_future(value))
    if inspect.isawaitable(value):
        return ensureDeferred(value)  # type: ignore[arg-type]  # any awaitable; typed for coroutines
    return maybeDeferred(lambda: value)


def run_reactor(start: Start, *, with_asyncio: bool = False, stop_delay: float = 0.05,
                timeout: float | None = None) -> tuple[Any, str | None]:
    """Run the reactor until what `start(reactor)` returned fires; stop it `stop_delay`
    seconds later (so sockets close cleanly). Returns (result, None), (None, error text) for
    an expected failure (`EXPECTED`), or (None, None) when the reactor was stopped from
    outside (Ctrl-C) before the end; a `UsageError` or a bug is raised once it stopped.
    `timeout` stops a run that never finishes, as an error."""
    if with_asyncio:
        reactor: Any = install_asyncio_reactor()
    else:
        from twisted.internet import reactor as default

        reactor = default
    outcome: dict[str, Any] = {}

    def finish(result: Any) -> None:
        error = result.value if isinstance(result, Failure) else result
        if not isinstance(error, BaseException):
            outcome.setdefault("result", result)
        elif isinstance(error, EXPECTED) and not isinstance(error, UsageError):
            outcome.setdefault("error", str(error) or type(error).__name__)
        else:  # bad input, or a bug: raised to the command line once the reactor stops
            if isinstance(result, Failure) and error.__traceback__ is None:
                error.add_note(result.getTraceback())   # where it was raised, for the bug file
            outcome.setdefault("raise", error)
        if reactor.running:
            reactor.callLater(stop_delay, reactor.stop)

    def begin() -> None:
        try:
            d = as_deferred(start(reactor))
        except Exception as exc:  # noqa: BLE001 - bad input or a bug: raised once stopped
            finish(exc)
            return
        d.addBoth(finish)

    reactor.callWhenRunning(begin)
    if timeout is not None:
        reactor.callLater(timeout, lambda: finish(TimeoutError(
            f"did not finish within {timeout:.0f} s")))
    reactor.run()
    if "raise" in outcome:
        raise outcome["raise"]
    if "error" in outcome:
        return None, str(outcome["error"])
    return outcome.get("result"), None
