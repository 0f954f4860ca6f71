"""Whole hands driven by keystrokes through prompt-toolkit's pipe input (dummy output at
100×30), the person at seat 0 and bots in the other seats of an in-process table."""

from __future__ import annotations

import asyncio
import random

from test_console_driver import Driver, local_table, run_driven

from p2p_burraco.console.model import ConsoleModel


async def wait_turn(drv: Driver, model: ConsoleModel, limit: float = 10.0) -> bool:
    """Wait until it is the person's turn (True) or the hand is over (False)."""
    for _ in range(int(limit / 0.005)):
        if model.outcomes:
            return False
        if model.my_turn:
            return True
        await asyncio.sleep(0.005)
    raise AssertionError(f"neither our turn nor the hand's end: {model.turn_hint()}")


def test_briscola_whole_hand_by_keystrokes() -> None:
    model, table = local_table("briscola", seed=11)
    rng = random.Random(4)

    async def script(drv: Driver) -> list[str]:
        played: list[str] = []
        while await wait_turn(drv, model):
            hand = [c for _, c in model.hand_cards()]
            steps = rng.randrange(len(hand))
            await drv.press("home", *["right"] * steps)
            assert model.cursor == steps
            card = hand[steps]
            if rng.random() < 0.5:
                await drv.press("enter")          # Enter plays the card under the cursor
            else:
                await drv.press(str(steps + 1))   # or its number in the hand as shown
            played.append(str(card))
            assert model.error is None, model.error
            assert any(line.text == f"Ann: play {model.display_text(str(card))}"
                       for line in model.log), [ln.text for ln in list(model.log)[-5:]]
        return played

    played = run_driven(model, table, script)
    assert len(played) == 20           # 40 cards, two players: 20 tricks, one card each
    assert len(model.outcomes) == 1
    result = model.outcomes[0].result
    assert sum(result.points) == 120   # every card point is taken by someone [BRISCOLA-4]
    assert model.match_over and "winner" in model.standings_text() or result.points[0] == 60
