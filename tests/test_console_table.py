"""A table that tells you what happened (issue 15): the log scrolls (keys and the mouse
wheel), `take` lists what it picked up, the card just drawn is marked until the next move,
a face-down pozzetto is counted, names come first, a score sheet of every hand, a bell and
a title on our turn, and one way of naming cards everywhere."""

from __future__ import annotations

import re

import pytest
from test_console_driver import Driver, SizedOutput, local_table, render_screen, run_driven
from test_console_layout import play_our_turns

from p2p_burraco.console.commands import help_lines, run_command
from p2p_burraco.console.layout import COMPACT_RIGHT, RIGHT_WIDTH, score_lines
from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.table.events import ActionPlayed, ErrorNotice, TableLine


def right_column(screen: list[str], columns: int = 100) -> str:
    width = RIGHT_WIDTH if columns >= 100 else COMPACT_RIGHT
    return "\n".join(r[columns - width:] for r in screen)


def long_log(model: ConsoleModel, n: int = 60) -> None:
    for i in range(n):
        model.log_line(f"line {i:02d}", "log.status")


def test_the_log_scrolls_with_page_keys_and_the_mouse_wheel() -> None:
    model, table = local_table("burraco", seed=4)

    async def script(drv: Driver) -> dict[str, str]:
        long_log(model)
        seen = {"newest": right_column(drv.screen_text())}
        await drv.press("\x1b[5~")                      # PgUp
        seen["back"] = right_column(drv.screen_text())
        await drv.press("\x1b[6~")                      # PgDn
        seen["again"] = right_column(drv.screen_text())
        await drv.press("\x1b[<64;90;20M", "\x1b[<64;90;20M")   # wheel up over the log
        seen["wheel"] = right_column(drv.screen_text())
        seen["scroll"] = str(model.log_scroll)
        return seen

    seen = run_driven(model, table, script)
    assert "line 59" in seen["newest"] and "older · PgUp" in seen["newest"]
    assert "line 59" not in seen["back"] and "line 54" in seen["back"]
    assert "newer · PgDn" in seen["back"]
    assert seen["again"] == seen["newest"]
    assert seen["scroll"] == "6" and "line 53" in seen["wheel"] and "line 59" not in seen["wheel"]


def test_take_lists_the_cards_and_a_drawn_card_is_marked_until_the_next_move() -> None:
    model, table = local_table("burraco", seed=4)
    table.start()
    takes = [ln.text for ln in model.log if ln.action and ln.action.startswith("take")]
    assert takes and all(" ⇐ " in t for t in takes)        # Bot2: take ⇐ ★ …
    pile_before = model.state.player_view(0)["pile"]
    assert run_command(model, "draw")
    assert len(model.fresh) == 1
    (fresh,) = model.fresh
    number = [p for p, _ in model.hand_cards()].index(fresh) + 1
    for columns, rows in ((80, 24), (160, 48)):
        screen = "\n".join(render_screen(model, columns, rows))
        assert f"✦{number}:" in screen and "new card: " in screen
        assert model.card_name(model.hand_cards()[number - 1][1]) in screen
        assert takes[0].split(": ", 1)[1].split(" ⇐")[0] in screen
    assert run_command(model, "set lang it")                   # --lang it: the same, in Italian
    drawn = model.hand_cards()[number - 1][1]
    assert f"✦ carta nuova: {model.card_name(drawn)}" in "\n".join(render_screen(model, 80, 24))
    assert " di " in model.card_name(drawn) or drawn.is_joker
    assert run_command(model, f"discard {1 if number != 1 else 2}")
    assert not model.fresh and "✦" not in "\n".join(render_screen(model, 80, 24))
    assert pile_before                                        # the pile the bots left


def test_a_face_down_pozzetto_is_counted_beside_its_seat() -> None:
    """A pozzetto taken al volo waits face down for its seat's next turn (FIBUR-13): the
    seat shows its cards in hand and the pozzetto's, not 0."""
    model, table = local_table("burraco", seed=4)
    table.start()
    pz = model.state.pozzetti[0]
    pz.taken_by, pz.in_hand = 1, False
    for columns, rows in ((100, 30), (80, 24)):
        right = right_column(render_screen(model, columns, rows), columns)
        row = next(r for r in right.splitlines() if "Bot1" in r)
        assert f"+{len(pz.positions)}▼" in row, row
    assert "+N▼" in "\n".join(help_lines("burraco"))


def test_names_first_and_seat_numbers_only_beside_them() -> None:
    model, table = local_table("burraco", seed=4)
    table.start()
    model.notify(TableLine("seat 2 back"))
    model.notify(TableLine("seat 3 dropped (120 s grace)"))
    model.notify(ErrorNotice("seat 1 sent a bad key"))
    texts = [ln.text for ln in model.log][-3:]
    assert texts == ["Bot2 back", "Bot3 dropped (120 s grace)",   # names, no seat numbers
                     "Bot1 sent a bad key"]
    wide = right_column(render_screen(model, 160, 48), 160)
    assert "Bot2 back" in wide and "Bot1 sent a bad key" in wide and "seat 1" not in wide


def test_the_score_sheet_shows_every_hand_and_the_running_totals() -> None:
    model, table = local_table("burraco", seed=3, hands=2)
    table.start()
    play_our_turns(model, lambda m: None, 3)
    assert len(model.outcomes) == 2
    text = "\n".join("".join(t for _, t in ln) for ln in score_lines(model, 60))
    total = [0, 0]
    for outcome in model.outcomes:
        total = [t + p for t, p in zip(total, outcome.result.points)]
        assert f"h{outcome.number} " in text and f"hand {outcome.number}:" in text
        assert f"= {total[0]}" in text and f"= {total[1]}" in text
        for label in (ln.label for lines in outcome.result.breakdown for ln in lines):
            shown = " ".join(model.player_text(label).split())   # wrapped; names, not seats
            assert shown in " ".join(text.split())   # every line of the breakdown, by kind
    assert text.index("hand 2:") < text.index("hand 1:")          # the newest first
    for part in ("running totals", "cards in melds", "cards left in hand", "audit:"):
        assert part in text, text
    assert not re.search(r"(?<![\w#])(?:10|[2-9AJQK])[hdcs](?![\w])", text)  # cards named


class RecordingOutput(SizedOutput):
    """A dummy terminal that remembers bells and titles."""

    def __init__(self) -> None:
        super().__init__(100, 30)
        self.events: list[str] = []

    def bell(self) -> None:
        self.events.append("bell")

    def set_title(self, title: str) -> None:
        self.events.append("title:" + title)


def test_bell_and_title_on_our_turn_both_switchable() -> None:
    model, table = local_table("briscola", seed=5)

    async def script(drv: Driver) -> list[str]:
        out: list[str] = list(drv.output.events)   # type: ignore[attr-defined]
        await drv.press("1")                        # we play; the bot plays; our turn again
        out += ["|"] + drv.output.events[len(out):]  # type: ignore[attr-defined]
        await drv.type("set bell off")
        mark = len(drv.output.events)  # type: ignore[attr-defined]
        await drv.press("1")
        return out + ["|"] + drv.output.events[mark:]  # type: ignore[attr-defined]

    events = run_driven(model, table, script, output=RecordingOutput())
    first, second, third = " ".join(events).split("|")
    assert first.split() == ["bell", "title:▶", "your", "turn", "—", "Ann", "—", "p2p-burraco"]
    assert "title:p2p-burraco" in second and "bell" in second and "title:▶" in second
    assert "bell" not in third and "title:▶" in third


def test_one_card_naming_on_screen_in_the_log_in_help_and_in_refusals() -> None:
    """Briscola's cards: the hand, the log, the hint and a refusal all say `9 coppe`, never
    `Qc`; typed as shown, by number, or short."""
    model, table = local_table("briscola", seed=2)
    table.start()
    labels = [model.card_label(c) for _, c in model.hand_cards()]
    assert labels == ["8 denari", "10 denari", "9 coppe"]
    screen = "\n".join(render_screen(model))
    assert "1:8 denari" in screen and "Enter: play 1 (8 denari)" in screen
    assert not run_command(model, "play 1d")
    assert model.error == "refused: A denari is not in your hand"
    assert model.display_text("play 4b · play Jd · play 10s · play Qc") == \
        "play 4 bastoni · play 8 denari · play 10 spade · play 9 coppe"   # every suit letter
    assert run_command(model, "play 9 coppe")
    for columns, rows in ((80, 24), (160, 48)):
        screen = "\n".join(render_screen(model, columns, rows))
        assert "Ann: play 9 coppe" in screen
        assert not re.search(r"play (?:10|[2-9AJQK])[hdcsb]\b", screen), screen   # no `Qc`, `4b`
    assert "play 9 coppe" in "\n".join(help_lines("briscola", "play"))
    burraco = ConsoleModel("Ann", game="burraco", lang="it")
    assert "Jolly: JK" in "\n".join(help_lines("burraco", lang=burraco.lang))
    assert "Joker: JK" in "\n".join(help_lines("burraco"))
    assert "pinella" in "\n".join(help_lines("burraco")).lower()


class _PileOnly:
    """Just enough of a hand for the log: a discard pile the table changes under us."""

    def __init__(self, pile: list[str]) -> None:
        self.deck = pile
        self.pile = list(range(len(pile)))

    def player_view(self, seat: int) -> dict[str, object]:
        return {}

    def pile_refs(self) -> list[tuple[int, int]]:
        return [(i, c) for i, c in enumerate(self.pile)]


@pytest.mark.parametrize("words, left, shown", [
    ("take top", 3, "5♣"),                       # the top card alone left the pile
    ("take", 0, "7♥ Q♠ 7♥ 5♣"),                  # the whole pile did
    ("take meld 1 2", 0, "7♥ Q♠ 7♥ 5♣"),
])
def test_a_take_shows_the_cards_that_left_the_pile(words: str, left: int, shown: str) -> None:
    """What a take picked up is read off the pile before and after, not off its words
    (which cards go is the engine's rule, per rule set)."""
    model = ConsoleModel("Ann", game="burraco")
    before = _PileOnly(["7♥", "Q♠", "7♥", "5♣"])
    model.notify(ActionPlayed(2, "draw", before))      # the replica before (a pile only)
    after = _PileOnly(before.deck)
    after.pile = before.pile[:left]
    model.notify(ActionPlayed(1, words, after))
    assert model.log[-1].text.endswith(f"{words} ⇐ {shown}")
