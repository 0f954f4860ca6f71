"""The full-screen console (prompt-toolkit): one person's seat at a table.

Structure after pyvim/ptpython: `ConsoleModel` (model.py) is the root state and the seat's
`SeatController`; `create_layout(model)` (layout.py) and `create_key_bindings(model)`
(keys.py) read it; `create_application(model, input, output)` (app.py) ties them together;
commands are registered once in commands.py, where help and completion come from.

This package never imports Twisted: the network side hands it a `connect` callable, and the
caller runs Twisted's asyncio reactor on the same event loop as the app.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from ..controller import SeatController
from .model import ConsoleModel

__all__ = [
    "ConsoleModel",
    "create_application",
    "create_key_bindings",
    "create_layout",
    "run_console_peer",
]


def __getattr__(name: str) -> Any:
    # The prompt-toolkit parts load on first use, so importing the model stays light.
    if name == "create_application":
        from .app import create_application
        return create_application
    if name == "create_layout":
        from .layout import create_layout
        return create_layout
    if name == "create_key_bindings":
        from .keys import create_key_bindings
        return create_key_bindings
    raise AttributeError(name)


def model_from_args(args: argparse.Namespace) -> ConsoleModel:
    """A console model named and configured from `play`/`join` options (missing ones are
    simply unknown until the table tells us)."""
    model = ConsoleModel(getattr(args, "name", None), game=getattr(args, "game", None),
                         target=getattr(args, "target", None),
                         variant=getattr(args, "variant", None),
                         lang=getattr(args, "lang", None))
    model.data_dir = getattr(args, "data_dir", None)
    return model


ABANDON_SETTLE_S = 3.0
"""How long a confirmed quit mid-match waits for the signed `abandon` to reach the host and
the match to end, before the link is closed anyway."""


async def settle_abandon(handle: Any, limit: float = ABANDON_SETTLE_S) -> None:
    """After `abandon` is signed: wait (a little) until the peer's `done` fires, so the
    statement leaves before we hang up and the others see an abandonment, not a fault."""
    done = getattr(handle, "done", None)
    if done is None or not hasattr(done, "called"):
        return
    loop = asyncio.get_running_loop()
    until = loop.time() + limit
    while not done.called and loop.time() < until:
        await asyncio.sleep(0.05)


async def run_console_peer(args: argparse.Namespace,
                           connect: Callable[[SeatController], Any],
                           *, model: ConsoleModel | None = None,
                           input: Any = None, output: Any = None) -> int:
    """Run the console for one seat until the person quits; returns the exit code.

    A coroutine, to be run on the event loop that Twisted's asyncio reactor also uses (the
    caller installs and runs that reactor). `connect(controller)` is called once the app is
    up; it starts the peer with the console model as its SeatController. It may return
    None, an awaitable, a Deferred, or an object with a `done` Deferred; a failure is shown
    in the console, which stays open so the person can read it. On quit, a returned object
    with `disconnect()` (or `close()`) is told to leave. A returned object with
    `request_abandon()` (a `PeerNode`) becomes the model's `on_abandon` hook: the console's
    `abandon` command, once confirmed, signs the seat's abandonment through it (TABLE-9).
    A connection that failed makes the exit code 1 (`model.failure` says why).
    """
    from .app import create_application

    model = model or model_from_args(args)
    app = create_application(model, input=input, output=output)
    handle: Any = None

    def failed(error: Any) -> None:
        text = getattr(error, "getErrorMessage", lambda: str(error))()
        model.failure = text or type(error).__name__
        model.error = f"connection failed: {model.failure}"
        model.status = "disconnected"
        model.link_alert = model.error if model.link_alert else None  # no more retrying
        model.log_line(model.error, "log.error")
        model.invalidate()

    def finished(_: Any) -> None:
        model.status = "match over" if model.match_over else "disconnected"
        model.link_alert = None
        model.invalidate()

    def start() -> None:
        nonlocal handle
        model.status = "connecting…"
        try:
            handle = connect(model)
        except Exception as exc:  # noqa: BLE001 — refused config, unreachable host: shown, not raised
            failed(exc)
            return
        abandon = getattr(handle, "request_abandon", None)
        if callable(abandon) and model.on_abandon is None:
            model.on_abandon = abandon
        say = getattr(handle, "say", None)
        if callable(say) and model.on_say is None:
            model.on_say = say           # the `say` command: a signed chat line
        waitable = getattr(handle, "done", handle)
        if hasattr(waitable, "addCallbacks"):
            waitable.addCallbacks(finished, failed)
        elif inspect.isawaitable(waitable):
            async def watch() -> None:
                try:
                    finished(await waitable)
                except Exception as exc:  # noqa: BLE001 — shown to the person
                    failed(exc)
            asyncio.ensure_future(watch())

    try:
        def pre_run() -> None:
            asyncio.get_running_loop().call_soon(start)

        result = await app.run_async(pre_run=pre_run)
        if model.abandoned:
            await settle_abandon(handle)
    finally:
        for name in ("disconnect", "close"):
            fn = getattr(handle, name, None)
            if callable(fn):
                try:
                    fn()
                except Exception:  # noqa: BLE001 — the link may already be gone
                    pass
                break
    return 1 if model.failure is not None else int(result or 0)
