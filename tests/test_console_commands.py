"""The console's command table (help, completion, Italian words), the staging area, and
refusals: a refused action shows the engine's message with its rule id and changes nothing."""

from __future__ import annotations

import random

import pytest
from test_console_driver import Driver, local_table, run_driven

from p2p_burraco.bots.controller import best_strategy as bot_strategy
from p2p_burraco.console.commands import (
    COMMANDS,
    commands_for,
    complete_line,
    help_lines,
    lookup,
    run_command,
    short_help,
)
from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.games.base import RuleViolation


def snapshot(model: ConsoleModel) -> tuple[object, ...]:
    """Everything a refused action must leave as it was."""
    st = model.state
    assert st is not None and model.seat is not None
    return (st.player_view(model.seat), [str(c) for _, c in model.hand_cards()],
            [s.text for s in model.staged], [s.text for s in model.outbox])


def burraco_play_phase(seed: int = 7) -> tuple[ConsoleModel, object]:
    """A Burraco table where it is our turn, after our draw, with a legal meld in hand."""
    for s in range(seed, seed + 40):
        model, table = local_table("burraco", seed=s)
        table.start()
        if not model.my_turn:
            continue
        run_command(model, "draw")
        assert model.error is None, model.error
        if model.my_turn and any(a.kind == "meld" for a in
                                 model.state.legal_actions(model.seat)):
            return model, table
    raise AssertionError("no seed gives a meld on the first turn")


# ------------------------------------------------------------------ the command table
def test_every_command_has_help_and_words_are_unique() -> None:
    words: list[str] = []
    for cmd in COMMANDS.values():
        assert cmd.help and cmd.games
        words += cmd.words
        assert lookup(cmd.name) is cmd
    assert len(words) == len(set(words))
    for word, name in [("pesca", "draw"), ("raccogli", "take"), ("cala", "meld"),
                       ("attacca", "attach"), ("scarta", "discard"), ("gioca", "play"),
                       ("aiuto", "help"), ("esci", "quit"), ("PESCA", "draw"),
                       ("abbandona", "abandon")]:
        assert lookup(word) is COMMANDS[name], word


def test_help_and_completion_come_from_the_table() -> None:
    model = ConsoleModel("Ann", game="burraco")
    text = "\n".join(help_lines("burraco"))
    for cmd in commands_for("burraco"):   # the list has each help's first clause; help CMD all
        assert cmd.usage() in text and short_help(cmd) in text and cmd.help.startswith(
            short_help(cmd))
        assert cmd.help in "\n".join(help_lines("burraco", cmd.name))
        if cmd.key:
            assert cmd.key in text
    assert "play" not in [c.name for c in commands_for("burraco")]
    firsts = {w for w, _ in complete_line(model, "")}
    assert firsts == {w for c in commands_for("burraco") for w in c.words}
    assert [w for w, _ in complete_line(model, "pe")] == ["pesca", "pesco", "perché", "perche"]
    assert [w for w, _ in complete_line(model, "disc")] == ["discard"]
    bris = ConsoleModel("Ann", game="briscola")
    assert "gioca" in {w for w, _ in complete_line(bris, "g")}
    assert not complete_line(bris, "pesc")  # not a Briscola word


def test_card_and_meld_completion_offer_what_is_in_hand() -> None:
    model, _ = burraco_play_phase()
    hand = [str(c) for _, c in model.hand_cards()]
    offered = [w for w, _ in complete_line(model, "meld ")]
    assert sorted(offered) == sorted(dict.fromkeys(hand))
    first = hand[0]
    after = [w for w, _ in complete_line(model, f"meld {first} ")]
    assert after.count(first) == (1 if hand.count(first) > 1 else 0)
    assert [w for w, _ in complete_line(model, "discard 7h ")] == []  # one card only


def test_tab_completes_a_command_in_the_app() -> None:
    model, table = local_table("burraco", seed=1)

    async def script(drv: Driver) -> list[str]:
        got = []
        for typed in ("disc", "racc", "scar"):
            await drv.type(typed, enter=False)
            await drv.press("tab")
            got.append(drv.buffer_text())
            drv.app.current_buffer.reset()
        await drv.type("scar", enter=False)   # scarta / scarto: the common part first,
        await drv.press("tab", "tab")          # then the first choice
        got.append(drv.buffer_text())
        return got

    assert run_driven(model, table, script) == ["discard", "raccogli", "scart", "scarta"]


def test_help_panel_opens_from_the_command_and_the_key() -> None:
    model, table = local_table("briscola", seed=1)

    async def script(drv: Driver) -> tuple[object, ...]:
        await drv.type("aiuto")
        opened = model.panel
        screen = "\n".join(drv.screen_text())
        await drv.press("f1")
        closed = model.panel
        await drv.press("f10")
        return opened, screen, closed, model.panel

    opened, screen, closed, score = run_driven(model, table, script)
    assert opened == "help" and "play CARD|N" in screen
    assert "gioca=play" in "\n".join(help_lines("briscola"))    # further down: PgDn
    assert closed is None and score == "score"


# ------------------------------------------------------------------ staging
def test_staging_validates_on_a_copy_and_sends_only_on_request() -> None:
    model, table = burraco_play_phase()
    seat = model.seat
    meld = next(a for a in model.state.legal_actions(seat) if a.kind == "meld")
    before_table = len(table.actions)
    before = snapshot(model)
    assert run_command(model, str(meld))
    assert [s.text for s in model.staged] == [str(meld)]
    # the replica and the table are untouched; the preview lacks the melded cards
    assert model.state.player_view(seat) == before[0]
    assert len(table.actions) == before_table
    assert len(model.hand_cards()) == len(before[1]) - sum(len(g) for g in meld.groups)
    assert run_command(model, "annulla")
    assert snapshot(model) == before
    assert run_command(model, str(meld)) and run_command(model, "svuota")
    assert snapshot(model) == before
    assert run_command(model, str(meld)) and run_command(model, "send")
    assert len(table.actions) == before_table + 1 and not model.staged
    assert [str(a) for _, a in table.actions][-1] == str(meld)


def test_rejected_by_the_table_drops_the_queue_and_says_why() -> None:
    model, _ = burraco_play_phase()
    model.rejected(model.state, model.seat, "refused: nope [FIBUR-12]")
    assert model.error == "refused: nope"            # a player line: the rule waits for why
    assert not model.outbox and any("nope" in ln.text for ln in model.log)
    assert run_command(model, "why") and model.panel == "help"
    assert "FIBUR-12" in "\n".join(model.help_text) and "Wild" in "\n".join(model.help_text)


# ------------------------------------------------------------------ refusals
def test_refused_meld_shows_the_rule_id_and_changes_nothing() -> None:
    model, table = burraco_play_phase()
    hand = [c for _, c in model.hand_cards()]
    # three cards the engine refuses as a meld (asked of the engine, not decided here)
    bad = None
    rng = random.Random(0)
    for _ in range(200):
        trio = rng.sample(hand, 3)
        text = "meld " + " ".join(map(str, trio))
        trial = model.state.copy()
        try:
            trial.apply(model.seat, trial.parse_action(model.seat, text))
        except RuleViolation:
            bad = text
            break
    assert bad is not None
    before, n_actions = snapshot(model), len(table.actions)
    assert not run_command(model, bad)
    assert model.error.startswith("refused: ") and "[" not in model.error
    rule_id = model.last_refusal.rule_id
    assert rule_id.split("-")[0] in ("FIBUR",) and rule_id.split("-")[1].isdigit()
    assert snapshot(model) == before and len(table.actions) == n_actions


@pytest.mark.parametrize("keys, rule", [(["f6"], "FIBUR-5"), (["f4"], None)])
def test_refused_keys_in_the_draw_phase(keys: list[str], rule: str | None) -> None:
    """Discarding before drawing is refused by the engine (rule id shown); F4 with nothing
    selected is refused by the console itself. Neither changes anything."""
    model, table = local_table("burraco", seed=3)

    async def script(drv: Driver) -> tuple[object, ...]:
        for _ in range(200):
            if model.my_turn:
                break
            await drv.settle()
        assert "draw" in model.legal_kinds()
        before, n = snapshot(model), len(table.actions)
        await drv.press(*keys)
        return before, n, snapshot(model), len(table.actions), model.error

    before, n, after, n_after, error = run_driven(model, table, script)
    assert before == after and n == n_after and error
    if rule:
        assert error.startswith("refused:") and "[" not in error
        assert model.last_refusal is not None and model.last_refusal.rule_id == rule
    else:
        assert "select" in error


def test_briscola_refusals_name_the_rule() -> None:
    model, table = local_table("briscola", seed=4)
    table.start()
    before = snapshot(model)
    assert not run_command(model, "gioca 7")
    assert "no card number 7" in model.error
    assert not run_command(model, "play 2h 3h")
    assert model.error
    not_mine = next(c for c in model.state.deck.cards
                    if c not in [c2 for _, c2 in model.hand_cards()])
    assert not run_command(model, f"play {not_mine}")
    assert model.error.startswith("refused:") and "[BRISCOLA-13]" not in model.error
    assert run_command(model, "perché") and "BRISCOLA-13" in "\n".join(model.help_text)
    assert not run_command(model, "pesca")
    assert "not a briscola command" in model.error
    assert snapshot(model) == before


# ------------------------------------------------------------------ Italian
def test_whole_burraco_hand_typed_in_italian() -> None:
    """pesca / raccogli / cala / attacca / scarta, typed, for a whole hand."""
    from p2p_burraco.games.burraco import Attach, Discard, Draw, Meld, Take

    model, table = local_table("burraco", seed=21)
    brain = bot_strategy("burraco", random.Random(8))
    used: set[str] = set()

    def italian(action: object) -> str:
        if isinstance(action, Draw):
            return "pesca"
        if isinstance(action, Take) and not action.opening:
            return "raccogli"
        text = str(action)
        for en, it in (("meld", "cala"), ("attach", "attacca"), ("discard", "scarta")):
            if text.startswith(en + " "):
                return it + text[len(en):]
        return text

    async def script(drv: Driver) -> None:
        from test_console_hands import wait_turn
        while await wait_turn(drv, model):
            preview = model.view_state
            if model.staged and (preview.is_over or any(preview.card_at(p) is None
                                                        for p in preview.hands[model.seat])):
                await drv.type("invia")
                continue
            action = brain.choose(preview, model.seat)
            line = italian(action)
            used.add(line.split()[0])
            await drv.type(line)
            assert model.error is None, f"{line}: {model.error}"
            if isinstance(action, (Meld, Attach)):
                assert model.staged and model.staged[-1].text == str(action)
            if isinstance(action, Discard):
                assert not model.staged

    run_driven(model, table, script)
    assert model.outcomes
    assert {"pesca", "cala", "scarta"} <= used, used


def test_briscola_typed_in_italian() -> None:
    model, table = local_table("briscola", seed=9)

    async def script(drv: Driver) -> int:
        from test_console_hands import wait_turn
        n = 0
        while await wait_turn(drv, model):
            await drv.type(f"gioca {1 + n % len(model.hand_cards())}")
            assert model.error is None, model.error
            n += 1
        return n

    assert run_driven(model, table, script) == 20
    assert sum(model.outcomes[0].result.points) == 120


def test_typed_line_is_validated_live_and_history_recalls_it() -> None:
    """While typing, the message line says whether the engine would take the step (rule id
    when not); nothing is staged until Enter. ↑ brings back an earlier line."""
    model, _ = burraco_play_phase()
    meld = next(a for a in model.state.legal_actions(model.seat) if a.kind == "meld")
    hand = [c for _, c in model.hand_cards()]

    async def script(drv: Driver) -> tuple[object, ...]:
        await drv.type("cala " + " ".join(map(str, hand[:1])) + " ", enter=False)
        one_card = "\n".join(drv.screen_text())
        drv.app.current_buffer.reset()
        await drv.type(str(meld), enter=False)
        good = "\n".join(drv.screen_text())
        staged_while_typing = list(model.staged)
        await drv.press("enter")
        staged = [s.text for s in model.staged]
        await drv.press("up")
        return one_card, good, staged_while_typing, staged, drv.buffer_text()

    one_card, good, before, staged, recalled = run_driven(model, None, script)
    assert "refused:" in one_card and "[FIBUR-" not in one_card
    assert "✓ meld" in good and "Enter stages it" in good
    assert before == [] and staged == [str(meld)] and recalled == str(meld)


def test_take_leaves_its_words_to_the_engine_and_only_numbers_cards() -> None:
    """`raccogli cima`, `take cala 1 2 3`: the engine reads top/cima and meld/cala/+; the
    console only turns the hand's numbers into cards."""
    model, table = local_table("burraco", seed=4)
    table.start()
    take = COMMANDS["take"].handler
    first = [str(c) for _, c in model.hand_cards()[:3]]
    assert take(model, ["cima"]).text == "take cima"
    assert take(model, ["prima", "+", "1", "2", "3"]).text == "take prima + " + " ".join(first)
    assert take(model, ["cala", "1", "2", "/", "3"]).text == \
        f"take cala {first[0]} {first[1]} / {first[2]}"
    st = model.state
    assert st is not None and model.seat is not None
    for words in ("take cima", "take prima", "take top"):   # the engine knows these words
        assert type(st.parse_action(model.seat, words)).__name__ == "TakeTop"
