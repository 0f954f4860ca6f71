"""Key bindings, built from the model and the command table (pyvim's `key_bindings.py`).

Typing goes to the command line. While it is empty, ←/→ move over the hand, Space selects,
digits play a Briscola card, and Enter runs the action the hint line shows. Function keys
come from the `key` column of the command table, so `help` lists exactly what is bound.
"""

from __future__ import annotations

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from .commands import COMMANDS, run_command
from .layout import buffer_empty
from .model import ConsoleModel


def create_key_bindings(model: ConsoleModel) -> KeyBindings:
    kb = KeyBindings()
    empty = buffer_empty()
    panel_open = Condition(lambda: model.panel is not None)
    asking = Condition(lambda: model.confirming is not None)
    briscola = Condition(lambda: model.game == "briscola")

    @kb.add("left", filter=empty)
    def _left(event: KeyPressEvent) -> None:
        model.move_cursor(-1)

    @kb.add("right", filter=empty)
    def _right(event: KeyPressEvent) -> None:
        model.move_cursor(1)

    @kb.add("home", filter=empty)
    def _home(event: KeyPressEvent) -> None:
        model.cursor = 0

    @kb.add("end", filter=empty)
    def _end(event: KeyPressEvent) -> None:
        """The log back at its newest line when scrolled back; else the hand's last card."""
        if model.log_scroll:
            model.log_scroll = 0
        else:
            model.cursor = max(0, len(model.hand_cards()) - 1)

    @kb.add("space", filter=empty)
    def _select(event: KeyPressEvent) -> None:
        model.toggle_selected()

    for digit in "123456789":
        @kb.add(digit, filter=empty & briscola)
        def _play_n(event: KeyPressEvent, n: str = digit) -> None:
            run_command(model, f"play {n}")

    @kb.add("escape", filter=asking)
    def _cancel(event: KeyPressEvent) -> None:
        model.cancel_question()

    @kb.add("escape", filter=panel_open & ~asking)
    def _close(event: KeyPressEvent) -> None:
        model.panel = None

    for cmd in COMMANDS.values():
        if not cmd.key or cmd.key == "Enter":
            continue
        key = cmd.key.lower()

        @kb.add(key)
        def _run(event: KeyPressEvent, name: str = cmd.name) -> None:
            if name == "quit":
                leave()
                return
            if name == "help" and model.panel == "help" or name == "score" and model.panel == "score":
                model.panel = None
            else:
                run_command(model, name)

    def leave() -> None:
        """Ctrl-Q: ask (mid-match), and a second Ctrl-Q confirms."""
        if model.confirming == "quit":
            model.answer("yes")
            return
        model.cancel_question()   # another question (abandon?) gives way to leaving
        run_command(model, "quit")

    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        leave()

    @kb.add("pageup")
    def _page_up(event: KeyPressEvent) -> None:
        """The open panel (help, score) scrolls; else the log goes back."""
        if model.panel is not None:
            model.panel_scroll = max(0, model.panel_scroll - 8)
        else:
            model.scroll_log(5)

    @kb.add("pagedown")
    def _page_down(event: KeyPressEvent) -> None:
        if model.panel is not None:
            model.panel_scroll += 8
        else:
            model.scroll_log(-5)

    return kb
