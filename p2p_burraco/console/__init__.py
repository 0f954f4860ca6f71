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
                         variant=getattr(args, "variant", None))
    model.data_dir = getattr(args, "data_dir", None)
    return model


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
    """
    from .app import create_application

    model = model or model_from_args(args)
    app = create_application(model, input=input, output=output)
    handle: Any = None

    def failed(error: Any) -> None:
        text = getattr(error, "getErrorMessage", lambda: str(error))()
        model.error = f"connection failed: {text}"
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
    finally:
        for name in ("disconnect", "close"):
            fn = getattr(handle, name, None)
            if callable(fn):
                try:
                    fn()
                except Exception:  # noqa: BLE001, S110 — the link may already be gone
                    pass
                break
    return int(result or 0)
