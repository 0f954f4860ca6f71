"""Every terminal from 80×24 up (issue 15): a whole Burraco hand played at 80×24 with the
numbers shown beside the cards, typed only with words `help` shows; nothing cut without a
marker; a compact title, seats and hints; below the minimum the screen says so."""

from __future__ import annotations

import asyncio
import random
import re

from test_console_driver import Driver, local_table, render_screen, run_driven

from p2p_burraco.bots.controller import best_strategy as bot_strategy
from p2p_burraco.console.commands import help_lines, lookup
from p2p_burraco.console.layout import COMPACT_RIGHT, run_line
from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.console.views import CUT
from p2p_burraco.games.base import Action

INDEXED = re.compile(r"✦?(\d+):(\S+)")


def typed(model: ConsoleModel, action: Action) -> str:
    """The bot's choice as a person types it from the help: hand cards by their number on
    screen, pile cards (an opening with the pile) by their name."""
    order = [pos for pos, _ in model.hand_cards()]

    def card(ref: tuple[int, int]) -> str:
        pos, cid = ref
        if pos in order:
            return str(order.index(pos) + 1)
        return str(model.view_state.deck[cid])

    kind = action.kind
    if kind == "meld":
        return "meld " + " / ".join(" ".join(card(r) for r in g)
                                    for g in action.groups)  # type: ignore[attr-defined]
    if kind == "attach":
        end = action.wild_end or ""  # type: ignore[attr-defined]
        return (f"attach {action.meld} " +  # type: ignore[attr-defined]
                " ".join(card(r) for r in action.cards) + f" {end}").strip()  # type: ignore[attr-defined]
    if kind == "discard":
        return f"discard {card(action.card)}"  # type: ignore[attr-defined]
    if kind in ("take", "take_top") and action.opening:  # type: ignore[attr-defined]
        head = "take top" if kind == "take_top" else "take"
        return f"{head} meld " + " / ".join(" ".join(card(r) for r in g)
                                            for g in action.opening)  # type: ignore[attr-defined]
    return str(action)


def check_80x24(model: ConsoleModel) -> None:
    """The whole hand with its numbers, every meld, the newest log line; no cut line."""
    screen = render_screen(model, 80, 24)
    assert len(screen) == 24 and all(len(r) <= 80 for r in screen)
    assert not [r for r in screen if CUT in r or "more line" in r], "\n".join(screen)
    left = [r[:80 - COMPACT_RIGHT - 1] for r in screen]
    right = [r[80 - COMPACT_RIGHT:] for r in screen]
    label = next(i for i, r in enumerate(left) if r.startswith("your hand ("))
    shown = [m for r in left[label + 1:] for m in INDEXED.findall(r)]
    hand = model.hand_cards()
    assert shown == [(str(i + 1), model.card_label(c)) for i, (_, c) in enumerate(hand)]
    text = "\n".join(screen)
    for meld in model.state.player_view(model.seat)["melds"]:
        assert f"#{meld['id']} " in text
    newest = model.log[-1]
    words = (newest.text if newest.action is None else
             f"{model.seat_name(newest.seat)}: {model.display_text(newest.action)}").split()
    assert words[0] in "\n".join(right)


def test_a_whole_hand_at_80x24_typed_from_help_with_card_numbers() -> None:
    """Done-when of issue 15: 80×24, the hand numbered, melds and log uncut, each line typed
    with a verb `help` lists (draw, take, meld 1 2 3, attach N 4, discard 5, send)."""
    model, table = local_table("burraco", seed=3, players=4, variant="fibur")
    table.start()
    helped = "\n".join(help_lines("burraco"))
    brain = bot_strategy("burraco", random.Random(3))
    turns = 0
    lines: list[str] = []
    while model.my_turn:
        if turns % 2 == 0 or model.hand_cards() and len(model.hand_cards()) > 14:
            check_80x24(model)      # every other turn, and whenever the hand is long
        preview = model.view_state
        mine = [p for w, p in preview.physical_locations() if w == f"hand:{model.seat}"]
        if model.staged and (preview.is_over or any(preview.card_at(p) is None for p in mine)):
            line = "send"
        else:
            line = typed(model, brain.choose(preview, model.seat))
        verb = lookup(line.split()[0])
        assert verb is not None and verb.usage() in helped
        run_line(model, line)
        assert model.error is None, (line, model.error)
        lines.append(line)
        turns += 1
    assert turns > 10 and model.outcomes                  # played to the hand's end
    assert any(re.fullmatch(r"discard \d+", ln) for ln in lines)
    assert any(re.fullmatch(r"(meld|attach \d+)( \d+)+", ln) for ln in lines), lines
    assert "audit:" in "\n".join(render_screen(model, 80, 24))


def test_compact_title_seats_and_hint_at_80_columns() -> None:
    model, table = local_table("burraco", seed=4, name="Annamaria Rossi")
    table.start()
    wide = render_screen(model, 160, 48)
    narrow = render_screen(model, 80, 24)
    assert wide[0].startswith(" p2p-burraco ") and "hand 1" in wide[0]
    assert not narrow[0].startswith(" p2p-burraco") and "h1" in narrow[0]
    assert "▶ your turn" in narrow[0] and CUT not in narrow[0]
    seats = [r[80 - COMPACT_RIGHT:] for r in narrow[2:6]]
    assert seats[0].startswith("▶Annamar…") and "11c" in seats[0]   # names cut are marked
    assert any(" D" in r for r in seats)
    assert "11 cards" in "\n".join(wide)
    hint = narrow[-3]
    assert hint.startswith("Enter: draw") and "F1 help" in hint and CUT not in hint


def test_below_80x24_the_screen_asks_for_a_resize_and_comes_back() -> None:
    model, table = local_table("burraco", seed=4)

    async def script(drv: Driver) -> tuple[list[str], list[str]]:
        drv.output.size = drv.output.size._replace(columns=70, rows=20)
        small = drv.screen_text()
        drv.output.size = drv.output.size._replace(columns=80, rows=24)
        await asyncio.sleep(0)
        return small, drv.screen_text()

    small, back = run_driven(model, table, script)
    text = " ".join(small)
    assert "70×20" in text and "at least 80×24" in text and "larger" in text
    assert back[0].lstrip().startswith("Burraco") and back[-1].startswith(">")


def test_the_table_in_italian_with_lang_it() -> None:
    """`--lang it` (or `set lang it`): the title, the table's labels, the hand, the keys, the
    turn hint and the question before leaving, in Italian; the card names too."""
    model, table = local_table("burraco", seed=4)
    model.lang = "it"
    table.start()
    for columns, rows in ((80, 24), (160, 48)):
        text = "\n".join(render_screen(model, columns, rows))
        for words in ("tocca a te", "noi, squadra A", "scarti (", "tallone ", "posti",
                      "la tua mano (11)", "F2 pesca", "F3 raccogli",
                      "tocca a te — puoi pescare o raccogliere gli scarti"):
            assert words in text, (words, text)
        assert "your hand" not in text and "discard pile" not in text
    model.quit()
    assert "Lasciare il tavolo?" in "\n".join(render_screen(model, 80, 24))
