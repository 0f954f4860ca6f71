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
            assert any(line.text == f"Ann: play {card}" and line.seat == 0
                       for line in model.log), [ln.text for ln in list(model.log)[-5:]]
        return played

    played = run_driven(model, table, script)
    assert len(played) == 20           # 40 cards, two players: 20 tricks, one card each
    assert len(model.outcomes) == 1
    result = model.outcomes[0].result
    assert sum(result.points) == 120   # every card point is taken by someone [BRISCOLA-4]
    assert model.match_over and "winner" in model.standings_text() or result.points[0] == 60


async def select_positions(drv: Driver, model: ConsoleModel, positions: list[int]) -> None:
    """Select exactly these hand positions with ←/→ and Space."""
    for pos in positions:
        order = [p for p, _ in model.hand_cards()]
        target = order.index(pos)
        await drv.press("home", *["right"] * target)
        assert model.cursor == target
        await drv.press("space")
    assert model.selected == set(positions), (model.selected, positions)


async def play_burraco_action(drv: Driver, model: ConsoleModel, action: object) -> str:
    """Do what the strategy chose, the way a person would: keys, selection, typing."""
    from p2p_burraco.games.burraco import Attach, Discard, Draw, Meld, Take

    if isinstance(action, Draw):
        await drv.press("f2")
        return "keys"
    if isinstance(action, Take) and not action.opening:
        await drv.press("f3")
        return "keys"
    if isinstance(action, Meld) and len(action.groups) == 1:
        await select_positions(drv, model, [p for p, _ in action.groups[0]])
        await drv.press("f4")
        return "staged"
    if isinstance(action, Attach) and action.wild_end is None:
        await select_positions(drv, model, [p for p, _ in action.cards])
        await drv.type(f"attach {action.meld}")   # the selection supplies the cards
        return "staged"
    if isinstance(action, Discard):
        order = [p for p, _ in model.hand_cards()]
        await drv.press("home", *["right"] * order.index(action.card[0]), "f6")
        return "keys"
    await drv.type(str(action))                   # anything else: typed in full
    return "typed"


def test_burraco_whole_hand_by_keystrokes() -> None:
    from p2p_burraco.bots.controller import best_strategy as bot_strategy

    model, table = local_table("burraco", seed=7)
    brain = bot_strategy("burraco", random.Random(3))
    counts = {"keys": 0, "staged": 0, "typed": 0, "sent": 0}

    async def script(drv: Driver) -> None:
        while await wait_turn(drv, model):
            preview = model.view_state
            hand_known = all(c is not None for c in
                             (preview.card_at(p) for p in preview.hands[model.seat]))
            if model.staged and (not hand_known or preview.is_over):
                await drv.press("f7")           # the pozzetto came in: send, then look again
                counts["sent"] += 1
                continue
            action = brain.choose(preview, model.seat)
            how = await play_burraco_action(drv, model, action)
            counts[how] += 1
            assert model.error is None, f"{action}: {model.error}"
        assert model.outcomes

    run_driven(model, table, script)
    result = model.outcomes[0].result
    assert result.reason
    print(counts, result.reason, result.points)
    assert counts["staged"] > 0 and counts["keys"] > 0, counts
    assert not model.staged and not model.outbox
    # every action of ours reached the table and the log
    mine = [ln.text for ln in model.log if ln.text.startswith("Ann: ")]
    assert mine and any(t.startswith("Ann: meld") for t in mine), mine
