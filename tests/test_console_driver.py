"""Helpers that drive the console app the way a person does — keystrokes into prompt-toolkit's
pipe input, a dummy output of a fixed size — plus the checks that the driver itself works.

Other console tests import from here (pytest puts tests/ on sys.path)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import DummyOutput

from p2p_burraco.bots.controller import BotController
from p2p_burraco.bots.controller import best_strategy as bot_strategy
from p2p_burraco.console.app import create_application
from p2p_burraco.console.localtable import LocalTable
from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.selfplay import SelfplayConfig

KEYS = {
    "left": "\x1b[D", "right": "\x1b[C", "up": "\x1b[A", "down": "\x1b[B",
    "enter": "\r", "tab": "\t", "space": " ", "escape": "\x1b", "c-q": "\x11",
    "home": "\x1b[H", "end": "\x1b[F",
    "f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS", "f5": "\x1b[15~",
    "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~", "f9": "\x1b[20~", "f10": "\x1b[21~",
}


class SizedOutput(DummyOutput):
    """A dummy terminal of a chosen size (DummyOutput alone is always 80×40)."""

    def __init__(self, columns: int = 100, rows: int = 30) -> None:
        super().__init__()
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def local_table(game: str, seed: int = 0, players: int | None = None, hands: int = 1,
                variant: str | None = None, name: str = "Ann"
                ) -> tuple[ConsoleModel, LocalTable]:
    """The console model at seat 0 of an in-process table; bots in the other seats."""
    players = players or (4 if game == "burraco" else 2)
    cfg = SelfplayConfig(game=game, variant=variant, players=players, seed=seed, hands=hands)
    model = ConsoleModel(name, game=game)
    rng = random.Random(seed + 1)
    bots = [BotController(bot_strategy(game, rng)) for _ in range(players - 1)]
    names = [name] + [f"Bot{i}" for i in range(1, players)]
    table = LocalTable(cfg, [model, *bots], names=names)
    return model, table


class Keys:
    """Feeds keys and text through a pipe input, letting the app settle after each."""

    def __init__(self, inp: PipeInput) -> None:
        self.input = inp

    async def settle(self) -> None:
        for _ in range(4):
            await asyncio.sleep(0.003)

    async def press(self, *keys: str) -> None:
        for key in keys:
            self.input.send_text(KEYS.get(key, key))
            await self.settle()

    async def type(self, text: str, enter: bool = True) -> None:
        self.input.send_text(text)
        await self.settle()
        if enter:
            await self.press("enter")


class Driver(Keys):
    """Runs the real Application on pipe input; `press` feeds keys and lets them land."""

    def __init__(self, model: ConsoleModel, inp: PipeInput, columns: int = 100,
                 rows: int = 30, output: SizedOutput | None = None) -> None:
        self.model = model
        self.input = inp
        self.output = output or SizedOutput(columns, rows)
        self.app = create_application(model, input=inp, output=self.output)
        self.task: asyncio.Task[int] | None = None

    async def start(self) -> None:
        self.task = asyncio.ensure_future(self.app.run_async())
        for _ in range(100):
            if self.app.is_running:
                break
            await asyncio.sleep(0.005)
        await self.settle()

    async def settle(self) -> None:
        """Give the loop time to read the pipe, run the handlers and redraw."""
        for _ in range(3):
            await asyncio.sleep(0.002)
        if self.app.is_running:
            # the redraw is scheduled; wait for it so rendering errors surface here
            self.app._redraw()

    async def stop(self) -> int:
        if self.app.is_running:
            await self.press("c-q")
        if self.app.is_running and self.model.confirming == "quit":
            await self.press("c-q")   # mid-match, leaving asks first
        assert self.task is not None
        return await asyncio.wait_for(self.task, 5)

    def buffer_text(self) -> str:
        return self.app.current_buffer.text

    def screen_text(self) -> list[str]:
        """The layout drawn at the output's size, as plain text rows."""
        size = self.output.get_size()
        screen = Screen()
        self.app.layout.container.write_to_screen(
            screen, MouseHandlers(), WritePosition(0, 0, size.columns, size.rows),
            parent_style="", erase_bg=False, z_index=None)
        screen.draw_all_floats()
        rows = []
        for y in range(size.rows):
            line = screen.data_buffer[y]
            rows.append("".join(line[x].char for x in range(size.columns)).rstrip())
        return rows


def run_driven(model: ConsoleModel, table: LocalTable | None,
               script: Callable[[Driver], Any], columns: int = 100, rows: int = 30,
               output: SizedOutput | None = None) -> Any:
    """Run `script(driver)` (a coroutine function) against a live app; the table starts
    once the app runs, as on a real network."""

    async def main() -> Any:
        with create_pipe_input() as inp:
            drv = Driver(model, inp, columns, rows, output)
            await drv.start()
            if table is not None:
                table.start()
                await drv.settle()
            try:
                return await script(drv)
            finally:
                if drv.app.is_running:
                    await drv.stop()

    return asyncio.run(asyncio.wait_for(main(), 120))


def test_driver_moves_the_cursor_and_selects_by_keys() -> None:
    model, table = local_table("briscola", seed=5)

    async def script(drv: Driver) -> None:
        assert len(model.hand_cards()) == 3
        assert model.cursor == 0
        await drv.press("right", "right")
        assert model.cursor == 2
        await drv.press("right")
        assert model.cursor == 0  # wraps around
        await drv.press("space")
        assert len(model.selected) == 1 and model.cursor == 1
        await drv.press("space")
        assert len(model.selected) == 2
        # typed text goes to the command line; arrows then edit it, not the hand
        await drv.type("pla", enter=False)
        await drv.press("left")
        assert model.cursor == 2 and drv.buffer_text() == "pla"

    run_driven(model, table, script)


def test_layout_draws_every_part_at_100x30() -> None:
    model, table = local_table("briscola", seed=2)

    async def script(drv: Driver) -> list[str]:
        return drv.screen_text()

    rows = run_driven(model, table, script)
    text = "\n".join(rows)
    assert len(rows) == 30 and all(len(r) <= 100 for r in rows)
    for needle in ("p2p-burraco", "briscola (trump)", "on the table", "your hand (3)",
                   "points taken", "seats", "Enter"):
        assert needle in text, f"{needle!r} missing from the screen:\n{text}"
    assert rows[-1].startswith(">")


def render_screen(model: ConsoleModel, columns: int = 100, rows: int = 30) -> list[str]:
    """Draw the console for `model` once, off-line, at a given size (no app running)."""
    from prompt_toolkit.application.current import set_app
    from prompt_toolkit.input import DummyInput

    app = create_application(model, input=DummyInput(), output=SizedOutput(columns, rows))
    screen = Screen()

    async def draw() -> None:  # the command line's history loads on the running loop
        with set_app(app):
            app.layout.container.write_to_screen(
                screen, MouseHandlers(), WritePosition(0, 0, columns, rows),
                parent_style="", erase_bg=False, z_index=None)
            screen.draw_all_floats()

    asyncio.run(draw())
    out = []
    for y in range(rows):
        line = screen.data_buffer[y]
        out.append("".join(line[x].char for x in range(columns)).rstrip())
    return out
