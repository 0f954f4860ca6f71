"""The prompt-toolkit application: model + layout + key bindings, input/output injectable
(pipe input and a dummy output in the tests, the terminal otherwise)."""

from __future__ import annotations

from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from .keys import create_key_bindings
from .layout import create_layout
from .model import ConsoleModel
from .style import STYLE


def create_application(model: ConsoleModel, input: Input | None = None,
                       output: Output | None = None) -> Application[int]:
    """Build the full-screen app around `model`. The model's `invalidate` and `on_quit`
    are pointed at this app, so table events redraw the screen and `quit` ends it."""
    app: Application[int] = Application(
        layout=create_layout(model),
        key_bindings=create_key_bindings(model),
        style=STYLE,
        full_screen=True,
        mouse_support=Condition(lambda: model.mouse),   # the wheel scrolls the log
        # redraw twice a second: the clocks count down (TABLE-1/2) and cards unlock
        # while the deal runs, without any event arriving
        refresh_interval=0.5,
        # a burst of table events (a resync, a bot's quick turn) is one redraw, not one each
        min_redraw_interval=0.05,
        input=input,
        output=output,
    )

    def invalidate() -> None:
        if app.is_running:
            app.invalidate()

    def on_quit() -> None:
        if app.is_running and not app.is_done:
            if model.title_alert:
                app.output.clear_title()   # no "your turn" left in the terminal's title
            app.exit(result=0)

    def alert(kind: str) -> None:
        """Our turn: the bell and the terminal's title (each switchable with `set`)."""
        out = app.output
        if kind == "turn":
            if model.bell:
                out.bell()
            if model.title_alert:
                out.set_title(f"▶ {model.t('title.your_turn')} — "
                              f"{model.seat_name(model.seat)} — p2p-burraco")
        elif model.title_alert:
            out.set_title("p2p-burraco")
        out.flush()

    model.on_alert = alert
    app.ttimeoutlen = 0.1   # a lone Esc closes a panel without the default half-second wait
    app.timeoutlen = 0.4
    model.invalidate = invalidate
    model.on_quit = on_quit
    return app


async def run_console(model: ConsoleModel, input: Input | None = None,
                      output: Output | None = None, **run_kw: Any) -> int:
    """Run the console until the person quits; the exit code (0 on quit)."""
    app = create_application(model, input=input, output=output)
    result = await app.run_async(**run_kw)
    return int(result or 0)
