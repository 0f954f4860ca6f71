"""Issue 47: a whole hand at 80×24, played by keys and typed lines through prompt-toolkit's
pipe input, shows every word in the chosen language — title, clock, hint and key lines,
staged steps, refusals of the engine, the log, the score sheet at the hand's end, help
with examples. The check: no word of the other language from a list of the console's own
words appears on any screen drawn along the way."""

from __future__ import annotations

import random
import re

import pytest
from test_console_driver import Driver, local_table, run_driven
from test_console_screen import typed

from p2p_burraco.bots.controller import best_strategy as bot_strategy
from p2p_burraco.console.model import ConsoleModel

ENGLISH = ("your", "turn", "hand", "draw", "take", "discard", "meld", "attach", "send",
           "undo", "help", "quit", "score", "staged", "stock", "pile", "side", "seats",
           "cards", "refused", "audit", "fair", "starts", "over", "waiting", "move", "left",
           "running totals", "closing", "never", "select", "choose", "you may", "points",
           "trick", "dealer", "match", "new card", "Enter", "played", "not audited", "wild",
           "examples", "also", "key", "top", "seat")
"""The console's own English words: none may show on an Italian screen."""
ITALIAN = ("tocca", "mano", "pesca", "scarta", "cala", "attacca", "invia", "annulla",
           "aiuto", "esci", "punti", "squadra", "tallone", "scarti", "posti", "carte",
           "preparate", "verifica", "regolare", "abbandono", "rimaste", "calate", "chiusura",
           "Invio", "si aspetta", "puoi", "rifiutata", "esempi", "briscola:", "presa",
           "prese", "in tavola", "gioca", "partita")
"""Italian words of the console: none may show on an English screen."""
ITALIAN_VERBS = {"draw": "pesca", "take": "raccogli", "top": "cima", "meld": "cala",
                 "attach": "attacca", "discard": "scarta", "send": "invia", "play": "gioca",
                 "high": "alto", "low": "basso"}


def foreign(screen: list[str], words: tuple[str, ...]) -> list[str]:
    """The listed words found on the screen (as whole words), with the row they are on."""
    found = []
    for row in screen:
        for word in words:
            if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", row):
                found.append(f"{word!r} in {row!r}")
    return found


def in_lang(line: str, lang: str) -> str:
    if lang == "en":
        return line
    return " ".join(ITALIAN_VERBS.get(w, w) for w in line.split())


def play_burraco_hand(lang: str, seed: int) -> tuple[list[list[str]], ConsoleModel]:
    """A whole Burraco hand at 80×24, every line typed in `lang`; the screens drawn."""
    model, table = local_table("burraco", seed=seed, players=4, variant="fibur")
    model.lang = lang
    brain = bot_strategy("burraco", random.Random(seed))
    screens: list[list[str]] = []

    async def script(drv: Driver) -> None:
        screens.append(drv.screen_text())
        await drv.type(in_lang("discard 1", lang))          # before drawing: a refusal
        assert model.error, "the engine should refuse a discard before the draw"
        screens.append(drv.screen_text())
        await drv.type(in_lang("help take", lang))
        screens.append(drv.screen_text())
        await drv.press("f1")                               # F1 closes help
        assert model.panel is None
        turns = 0
        while model.my_turn and turns < 200:
            preview = model.view_state
            mine = [p for w, p in preview.physical_locations() if w == f"hand:{model.seat}"]
            if model.staged and (preview.is_over or any(preview.card_at(p) is None
                                                        for p in mine)):
                line = "send"
            else:
                line = typed(model, brain.choose(preview, model.seat))
            if line.split()[0] == "meld":       # staged first, seen, then sent with the rest
                await drv.type(in_lang(line, lang))
                screens.append(drv.screen_text())
                turns += 1
                continue
            await drv.type(in_lang(line, lang), enter=False)
            screens.append(drv.screen_text())            # the live check of the typed line
            await drv.press("enter")
            assert model.error is None, (line, model.error)
            screens.append(drv.screen_text())
            turns += 1
        assert model.outcomes, "the hand was played to its end"
        screens.append(drv.screen_text())                # the score sheet, up by itself
        await drv.press("f10")                              # F10 closes the score sheet
        assert model.panel is None
        screens.append(drv.screen_text())                # the log with how it ended

    run_driven(model, table, script, columns=80, rows=24)
    return screens, model


@pytest.mark.parametrize("lang, other", [("it", ENGLISH), ("en", ITALIAN)])
def test_a_burraco_hand_at_80x24_speaks_one_language(lang: str, other: tuple[str, ...]
                                                     ) -> None:
    screens, model = play_burraco_hand(lang, seed=3)
    assert len(screens) > 20
    found = sorted({f for s in screens for f in foreign(s, other)})
    assert not found, "\n".join(found[:40])
    text = "\n".join("\n".join(s) for s in screens)
    if lang == "it":
        for words in ("tocca a te", "rifiutata:", "esempi:", "raccogli cima", "totali progressivi",
                      "verifica:", "mano 1 finita"):
            assert words in text, words
    else:
        for words in ("your turn", "refused:", "examples:", "take top", "running totals",
                      "audit:", "hand 1 over"):
            assert words in text, words


def play_briscola_match(lang: str, seed: int) -> list[list[str]]:
    model, table = local_table("briscola", seed=seed, players=2)
    model.lang = lang
    screens: list[list[str]] = []

    async def script(drv: Driver) -> None:
        screens.append(drv.screen_text())
        await drv.type(in_lang("play 7", lang))              # no card 7: refused
        screens.append(drv.screen_text())
        turns = 0
        while model.my_turn and turns < 40:
            await drv.press("enter")                        # Enter plays the hinted card
            screens.append(drv.screen_text())
            turns += 1
        assert model.outcomes
        screens.append(drv.screen_text())

    run_driven(model, table, script, columns=80, rows=24)
    return screens


@pytest.mark.parametrize("lang, other", [("it", ENGLISH), ("en", ITALIAN)])
def test_a_briscola_smazzata_at_80x24_speaks_one_language(lang: str, other: tuple[str, ...]
                                                          ) -> None:
    screens = play_briscola_match(lang, seed=5)
    found = sorted({f for s in screens for f in foreign(s, other)})
    assert not found, "\n".join(found[:40])
