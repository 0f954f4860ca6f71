"""Cards you can point at (issue 15): the number beside each card names it in every
command, the hand sorts by suit or by rank (Ctrl-S toggles), `help CMD` has examples for
every command, and the console's switches (`set`) refuse what they do not know."""

from __future__ import annotations

import pytest
from test_console_commands import burraco_play_phase
from test_console_driver import Driver, local_table, render_screen, run_driven

from p2p_burraco.cardnames import card_label, card_name, name_cards
from p2p_burraco.console.commands import COMMANDS, help_lines, run_command
from p2p_burraco.console.layout import COMPACT_RIGHT
from p2p_burraco.console.model import ConsoleModel, rank_key, sort_key
from p2p_burraco.games.burraco.melds import MeldError, arrange_set
from p2p_burraco.games.burraco.rules import PRESETS
from p2p_burraco.games.cards import Card, DeckKind, Suit, make_deck, parse_cards


def test_every_command_has_examples_that_name_it() -> None:
    for cmd in COMMANDS.values():
        text = help_lines(cmd.games[0], cmd.name)
        assert cmd.examples(), cmd.name
        assert "examples:" in text
        for example in cmd.examples():
            assert example.split()[0] in cmd.words and f"  {example}" in text
        italian = help_lines(cmd.games[0], cmd.name, "it")
        assert "esempi:" in italian
        for example in cmd.examples("it"):      # Italian help shows Italian examples
            assert example.split()[0] in cmd.aliases and f"  {example}" in italian
    take = "\n".join(help_lines("burraco", "take"))
    assert "take top" in take and "take meld 7h 8h 9h" in take
    raccogli = "\n".join(help_lines("burraco", "raccogli", "it"))
    assert "raccogli cima" in raccogli and "take top" not in raccogli


def test_numbers_name_cards_in_meld_select_and_discard() -> None:
    model, _ = burraco_play_phase()
    meld = next(a for a in model.state.legal_actions(model.seat) if a.kind == "meld")
    order = [p for p, _ in model.hand_cards()]
    numbers = [order.index(p) + 1 for p, _ in meld.groups[0]]   # type: ignore[attr-defined]
    assert run_command(model, "select " + " ".join(map(str, numbers)))
    assert sorted(model.selected) == sorted(p for p, _ in meld.groups[0])  # type: ignore[attr-defined]
    assert run_command(model, "select")                       # clears
    assert not run_command(model, f"meld {numbers[0]} {numbers[0]} {numbers[1]}")
    assert model.error == f"card number {numbers[0]} is typed twice"
    assert not run_command(model, "meld 1 2 99")
    assert "no card number 99" in (model.error or "")
    assert run_command(model, "meld " + " ".join(map(str, numbers))), model.error
    assert len(model.staged) == 1
    n = len(model.hand_cards())
    last = model.hand_cards()[-1][1]
    assert run_command(model, f"discard {n}"), model.error
    assert any(ln.action == f"discard {last}" for ln in model.log)


def test_the_hand_sorts_by_suit_or_by_rank_with_ctrl_s() -> None:
    model, table = local_table("burraco", seed=4)

    async def script(drv: Driver) -> tuple[list[Card], list[Card], list[Card], str]:
        by_suit = [c for _, c in model.hand_cards()]
        await drv.press("right", "right")
        under = model.cursor_card()
        await drv.press("\x13")                               # Ctrl-S
        by_rank = [c for _, c in model.hand_cards()]
        assert model.cursor_card() == under                   # the cursor keeps its card
        message = model.message or ""
        await drv.press("\x13")
        return by_suit, by_rank, [c for _, c in model.hand_cards()], message

    by_suit, by_rank, again, message = run_driven(model, table, script)
    assert by_suit == sorted(by_suit, key=sort_key) and by_rank == sorted(by_rank, key=rank_key)
    assert by_suit != by_rank and again == by_suit and message == "hand sorted by rank"
    assert rank_key(Card(1, Suit.SPADES)) > rank_key(Card(13, Suit.HEARTS))   # aces high
    screen = "\n".join(render_screen(model))
    labels = [model.card_label(c) for c in by_suit]
    assert f"1:{labels[0]}  2:{labels[1]}  3:{labels[2]}" in screen


def test_set_switches_and_refusals() -> None:
    model, table = local_table("burraco", seed=4)
    table.start()
    for line, attr, value in (("set bell off", "bell", False), ("set title off",
                              "title_alert", False), ("set mouse off", "mouse", False),
                              ("set lang it", "lang", "it"), ("set sort rank", "sort_by",
                              "rank"), ("imposta campanello on", "bell", True),
                              ("set panel off", "side_panel", False)):
        assert run_command(model, line), model.error
        assert getattr(model, attr) == value
    folded = render_screen(model, 80, 24)            # the table takes the whole width
    bar = 80 - COMPACT_RIGHT - 1                     # where the column's rule would be
    assert not any(len(r) > bar and r[bar] == "│" for r in folded[1:-4])
    assert any(r.startswith("scarti (") for r in folded)           # `set lang it` above
    assert run_command(model, "set panel on") and "posti" in "\n".join(render_screen(model))
    assert run_command(model, "set lang en") and "seats" in "\n".join(render_screen(model))
    for line, error in (("set bell loud", "set bell takes on or off, not 'loud'"),
                        ("set colour red", "nothing called 'colour' to set"),
                        ("set lang fr", "set lang takes it or en, not 'fr'"),
                        ("set bell", "set takes two words")):
        before = (model.bell, model.lang, model.sort_by)
        assert not run_command(model, line)
        assert error in (model.error or "") and (model.bell, model.lang, model.sort_by) == before


def test_card_names_per_game_and_language() -> None:
    seven, joker, two = Card(7, Suit.HEARTS), Card(0), Card(2, Suit.SPADES)
    assert card_label(seven, "burraco") == "7♥" and card_label(joker, "burraco") == "★"
    assert card_name(seven, "burraco", "en") == "7 of hearts"
    assert card_name(seven, "burraco", "it") == "7 di cuori"
    assert card_name(joker, "burraco", "it") == "jolly" and card_name(joker, "burraco") == "joker"
    assert card_name(two, "burraco", "it") == "2 di picche (pinella)"
    cavallo = Card(12, Suit.COPPE)
    assert card_label(cavallo, "briscola") == "9 coppe"
    assert card_name(cavallo, "briscola", "en") == card_name(cavallo, "briscola", "it") == \
        "Cavallo di coppe"


def test_engine_prose_keeps_its_words_and_only_card_notation_is_renamed() -> None:
    """`As` and `2s` are card words and English words: the engine's refusals keep their
    meaning (`As the pile …` is not the ace of spades, wilds are `twos`), and a card the
    engine names is still shown as on the table."""
    parse = make_deck(DeckKind.FRENCH_108).parse
    with pytest.raises(MeldError) as refused:
        arrange_set(parse_cards("2c 2d 2h"), PRESETS["fibur"])
    wild_only = refused.value.message
    unchanged = [wild_only,
                 "As the pile is empty, draw from the stock",
                 "As you have not opened, take the pile with your opening",
                 "the discard pile is empty", "you have already drawn or taken this turn",
                 "7H and jk are typed words, not the engine's cards"]
    for text in unchanged:
        assert name_cards(text, parse, "burraco") == text, text
    assert "twos" in wild_only
    assert name_cards("As is not in your hand", parse, "burraco") == "A♠ is not in your hand"
    assert name_cards("meld As 2s 3s", parse, "burraco") == "meld A♠ 2♠ 3♠"
    assert name_cards("Kc was the only card of the pile", parse, "burraco") == \
        "K♣ was the only card of the pile"


def test_card_names_follow_the_rule_set_words() -> None:
    """Modificato calls a 2 `jolly` and the joker `jollone` (RuleSet.names): the console
    names them so once it knows the rule set (the hand's rules, or the variant asked for)."""
    joker, two = Card(0), Card(2, Suit.SPADES)
    told = ConsoleModel("Ann", game="burraco", variant="modificato", lang="it")
    assert told.card_name(joker) == "jollone"
    assert told.card_name(two) == "2 di picche (jolly)"
    model, table = local_table("burraco", seed=2, players=2, variant="modificato")
    table.start()
    assert model.view_state is not None and model.view_state.rules.name == "modificato"
    assert model.card_name(joker) == "joker (jollone)"
    assert model.card_name(two) == "2 of spades (jolly)"
    unknown = ConsoleModel("Ann", game="burraco")                 # rule set not known yet
    assert unknown.card_name(joker) == "joker" and unknown.card_name(two).endswith("(pinella)")
    assert card_name(two, "burraco", names=PRESETS["buraco"].names) == "2 of spades"
