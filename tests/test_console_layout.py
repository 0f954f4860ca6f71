"""The screen fits 100×30 (and up) with every part readable: seats, melds by side, the
whole discard pile, stock, pozzetti, scores, turn, log, the sorted hand; Briscola's trump,
trick and points. Checked at every one of our turns through whole hands."""

from __future__ import annotations

import random
import re

import pytest
from test_console_driver import local_table, render_screen

from p2p_burraco.bots.controller import best_strategy as bot_strategy
from p2p_burraco.console.commands import run_command
from p2p_burraco.console.layout import RIGHT_WIDTH, panel_scrolled, scroll_window
from p2p_burraco.console.model import ConsoleModel, sort_key

CARD = re.compile(r"(?:10|[2-9AJQK])[♥♦♣♠]|★")


def play_our_turns(model: ConsoleModel, check: object, seed: int) -> int:
    """Play our seat with a bot's choices through the command line; `check` at each turn."""
    brain = bot_strategy(model.game, random.Random(seed))
    turns = 0
    while model.my_turn:
        check(model)  # type: ignore[operator]
        turns += 1
        preview = model.view_state
        if model.staged and preview.is_over or model.staged and any(preview.card_at(p) is None
                                for where, p in preview.physical_locations()
                                if where == f"hand:{model.seat}"):
            assert run_command(model, "send"), model.error   # pozzetto came in, or closed
            continue
        action = brain.choose(preview, model.seat)
        assert run_command(model, str(action)), model.error
    return turns


def check_burraco_screen(model: ConsoleModel, columns: int = 100, rows: int = 30) -> None:
    screen = render_screen(model, columns, rows)
    assert len(screen) == rows and all(len(r) <= columns for r in screen)
    text = "\n".join(screen)
    left = [r[:columns - RIGHT_WIDTH - 1] for r in screen]
    right = [r[columns - RIGHT_WIDTH:] for r in screen]
    view = model.state.player_view(model.seat)
    assert "p2p-burraco" in screen[0] and "your turn" in screen[0] and "score" in screen[0]
    # every seat with its cards in hand
    for seat, n in enumerate(view["hand_counts"]):
        row = next(r for r in right if model.seat_name(seat) in r and "cards" in r)
        assert f"{n:>2} cards" in row
    # every meld of every side, by number
    for meld in view["melds"]:
        assert f"#{meld['id']} " in text, f"meld #{meld['id']} not on screen:\n{text}"
    # the whole discard pile
    head = next(i for i, r in enumerate(left) if r.startswith("discard pile ("))
    assert f"discard pile ({len(view['pile'])})" in left[head]
    stock = next(i for i, r in enumerate(left) if r.startswith("stock "))
    shown = [c for r in left[head + 1:stock] for c in CARD.findall(r)]
    assert len(shown) == len(view["pile"]) and f"stock {view['stock']} " in left[stock]
    assert "pozzetti left" in left[stock]
    # our hand, every card, in suit-then-rank order
    hand = model.hand_cards()
    label = next(i for i, r in enumerate(left) if r.startswith("your hand ("))
    cards = [c for r in left[label + 1:rows - 3] for c in CARD.findall(r)]  # up to the hint
    assert cards == [c.display() for _, c in hand]
    assert [sort_key(c) for _, c in hand] == sorted(sort_key(c) for _, c in hand)
    assert screen[-1].startswith(">")


@pytest.mark.parametrize("players, variant, seed", [(4, "fibur", 3), (2, "pagat", 5),
                                                     (6, "fibur", 8), (3, "fibur", 2)])
def test_burraco_screen_fits_100x30_through_a_hand(players: int, variant: str,
                                                    seed: int) -> None:
    model, table = local_table("burraco", seed=seed, players=players, variant=variant)
    table.start()
    turns = play_our_turns(model, check_burraco_screen, seed)
    assert turns > 3 and model.outcomes
    final = "\n".join(render_screen(model))
    assert "score" in final and "audit:" in final      # the breakdown and the verdict


def test_burraco_screen_at_larger_sizes() -> None:
    model, table = local_table("burraco", seed=4)
    table.start()
    for cols, rows in ((120, 40), (160, 50)):
        check_burraco_screen(model, cols, rows)


def check_briscola_screen(model: ConsoleModel) -> None:
    screen = render_screen(model)
    assert len(screen) == 30 and all(len(r) <= 100 for r in screen)
    text = "\n".join(screen)
    view = model.state.player_view(model.seat)
    for needle in ("briscola (trump):", f"stock: {view['stock']} left", "on the table:",
                   "points taken:", "your hand ("):
        assert needle in text, f"{needle!r} not on screen:\n{text}"
    for seat, _pos, _card in view["trick"]:
        assert model.seat_name(seat) + ":" in text


@pytest.mark.parametrize("players", [2, 4])
def test_briscola_screen_fits_100x30_through_a_hand(players: int) -> None:
    model, table = local_table("briscola", seed=6, players=players)
    table.start()
    assert play_our_turns(model, check_briscola_screen, 6) == 40 // players
    final = "\n".join(render_screen(model))
    assert "audit:" in final


def _texts(lines: list[list[tuple[str, str]]]) -> list[str]:
    return ["".join(t for _, t in line) for line in lines]


def test_scroll_markers_count_the_lines_they_hide() -> None:
    """`↑ N older`, `↓ N newer`, `↑ N line(s) above`: N is the number of lines not shown."""
    model = ConsoleModel("Ann", game="burraco")
    log = [[("", f"line {i:02d}")] for i in range(20)]
    for back in (0, 3):
        model.log_scroll = back
        shown = _texts(scroll_window(model, log, 8, 40))
        assert len(shown) == 8
        lines = [t for t in shown if t.startswith("line")]
        first, last = int(lines[0][5:]), int(lines[-1][5:])
        assert shown[0] == f"↑ {first} older · PgUp"              # lines 00 … first-1
        if back:
            assert shown[-1] == f"↓ {19 - last} newer · PgDn · End" and 19 - last == back
        else:
            assert last == 19
    model.panel_scroll = 4
    shown = _texts(panel_scrolled(model, [[("", f"row {i}")] for i in range(10)]))
    assert shown[0] == "↑ 5 line(s) above · PgUp" and shown[1] == "row 5"
