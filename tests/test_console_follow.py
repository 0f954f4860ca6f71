"""Issue 47: the log follows the game — End, and any move of ours, return it to the newest
line after PgUp; the end of a hand stays on screen (the score sheet) until closed or the
next deal; an emoji or an accented name never cuts or shifts a line (display width)."""

from __future__ import annotations

from test_console_driver import Driver, local_table, render_screen, run_driven

from p2p_burraco.console.layout import run_line, scroll_window
from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.console.views import clip, display_width, text_width, wrap_text
from p2p_burraco.table.events import ChatSaid

PGUP = "\x1b[5~"


def test_end_and_our_move_bring_the_log_back_to_the_newest_line() -> None:
    model, table = local_table("burraco", seed=4)
    for i in range(60):
        model.log_line(f"old line {i}")

    async def script(drv: Driver) -> tuple[int, int, int, int]:
        await drv.press(PGUP, PGUP)
        back = model.log_scroll
        await drv.press("end")
        after_end = model.log_scroll
        await drv.press(PGUP)
        scrolled = model.log_scroll
        await drv.type("draw")                   # a move of ours: the log follows it
        return back, after_end, scrolled, model.log_scroll

    back, after_end, scrolled, after_move = run_driven(model, table, script, 80, 24)
    assert back > 0 and after_end == 0 and scrolled > 0 and after_move == 0


def test_the_score_sheet_stays_until_closed_or_the_next_deal() -> None:
    model, table = local_table("briscola", seed=5, hands=2, variant="smazzate")
    held: list[object] = []
    table.schedule = held.append                 # the next deal waits (TABLE-15's pause)
    table.start()
    while model.my_turn:
        run_line(model, "play 1")
    assert model.outcomes and model.panel == "score"
    screen = "\n".join(render_screen(model, 80, 24))
    assert "running totals" in screen and "hand 1:" in screen
    assert held, "the table waits before the next deal"
    held.pop()()                                 # the next deal: the sheet gives way
    assert model.panel is None and model.hand_no == 2


def test_display_width_counts_emoji_and_accents_as_the_terminal_does() -> None:
    assert display_width("💬 Niccolò") == 10           # the emoji takes two columns
    assert display_width("e\u0301") == 1                # a combining accent takes none
    line = [("", "💬 Ann: ciao 🎉🎉🎉 bella mano")]
    clipped = clip(line, 20)
    assert text_width(clipped) == 20 and clipped[-1][1].startswith("…")
    rows = wrap_text("💬 Zoë: 🎉🎉🎉🎉🎉 una mano così bella non si era mai vista", 16)
    assert all(text_width(r) <= 16 for r in rows)
    assert "".join(t for r in rows for _, t in r).replace(" ", "").endswith("vista")
    model = ConsoleModel("Zoë")
    log = [[("", f"{i} 🎉")] for i in range(5)]
    assert len(scroll_window(model, log, 3, 10)) == 3


def test_a_chat_line_with_an_emoji_is_not_cut_in_the_log() -> None:
    model, table = local_table("burraco", seed=4)
    table.start()
    model.notify(ChatSaid(1, "Bot1", "🎉🎉 bravi tutti"))
    right = [r[80 - 26:] for r in render_screen(model, 80, 24)]
    assert any("💬 Bot1: 🎉🎉 bravi tutti" in r for r in right), "\n".join(right)


def test_a_one_hand_match_says_so_where_others_show_their_target() -> None:
    """Issue 47: `--variant buraco` plays one hand (BURACO-16): the title says so."""
    model, table = local_table("burraco", seed=1, variant="buraco")
    table.start()
    assert render_screen(model, 80, 24)[0].rstrip().endswith("→ one hand")
    assert "one hand: the most points win" in model.standings_text()
    fibur, table = local_table("burraco", seed=1, variant="fibur")
    table.start()
    assert render_screen(fibur, 80, 24)[0].rstrip().endswith("→ 2005")
