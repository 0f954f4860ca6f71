"""The console's clocks (TABLE-1, TABLE-2), the `abandon` command (TABLE-9), the link's state
while the host is unreachable (PROTOCOL.md § 7), timeouts and host faults in the log
(TABLE-3, TABLE-10), and a hand that starts again after a restart — all on the model with
a fake clock, plus the live app driven through pipe input."""

from __future__ import annotations

from typing import Any

from test_console_driver import Driver, local_table, render_screen, run_driven

from p2p_burraco.console.commands import help_lines, lookup, run_command
from p2p_burraco.console.model import ConsoleModel, format_ms
from p2p_burraco.games import get_game
from p2p_burraco.table.events import (
    ActionPlayed,
    ClockNotice,
    ErrorNotice,
    HandVoided,
    LinkStatus,
    SeatsChanged,
    StandingsChanged,
    TableLine,
)


class FakeTime:
    """The event loop's clock, moved by hand."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def clocked(game: str = "burraco", seat: int = 0) -> tuple[ConsoleModel, FakeTime]:
    model = ConsoleModel("Ann", game=game)
    now = FakeTime()
    model.now = now
    n = 4 if game == "burraco" else 2
    model.notify(SeatsChanged(("Ann", "Bob", "Cy", "Di")[:n], you=seat))
    return model, now


def clock(seat: int | None, ms: int | None, kind: str = "turn", warn_ms: int = 20_000,
          match_ms: list[int] | None = None) -> ClockNotice:
    return ClockNotice(seat, kind if seat is not None else "none", ms,
                       tuple(match_ms or ()), warn_ms)


def fresh_hand(game: str = "burraco", players: int = 4) -> Any:
    spec = get_game(game)
    match = spec.new_match(spec.presets[spec.default_variant], players, first_dealer=0)
    return match.new_hand()


# ------------------------------------------------------------------ clocks
def test_move_clock_counts_down_from_the_notice() -> None:
    """TABLE-1: the running move clock, counted down locally from the moment the host's
    `clock` notice arrived (the event loop's clock); no clock when `seat` is None."""
    model, now = clocked()
    assert model.clock_text() is None
    model.notify(clock(1, 42_000))
    assert model.clock_text() == "Bob's move 0:42"
    assert model.clock_text(now.t + 1.5) == "Bob's move 0:41"     # rounded up
    now.t += 30
    assert model.clock_left_ms() == 12_000 and model.clock_text() == "Bob's move 0:12"
    assert model.clock_text(now.t + 100) == "Bob's move 0:00"     # never below zero
    model.notify(clock(0, 90_000))
    assert model.clock_text() == "your move 1:30"
    model.notify(clock(2, 25_000, kind="step"))
    assert model.clock_text() == "Cy: step 0:25"
    model.notify(clock(3, 100_000, kind="grace"))
    assert model.clock_text() == "waiting for Di — reconnecting, 1:40 left"      # TABLE-13
    model.notify(clock(None, None))
    assert model.clock_text() is None and model.clock_warning() is None
    assert format_ms(3_725_000) == "1:02:05" and format_ms(1) == "0:01" and format_ms(0) == "0:00"


def test_warning_only_in_the_last_warn_ms_of_our_own_clock() -> None:
    """TABLE-1: the console warns when less than `warn_ms` is left on OUR move's clock
    (Burraco: then the bot plays the rest of the turn, TABLE-3) — not on another seat's
    clock, nor on an automatic step's."""
    model, now = clocked()
    model.notify(clock(0, 30_000, warn_ms=20_000))
    t0 = now.t
    assert model.clock_warning(t0 + 9.9) is None            # 20.1 s left
    assert model.clock_warning(t0 + 10.0) is None           # exactly warn_ms: not less
    warn = model.clock_warning(t0 + 18.2)
    assert warn is not None and warn.startswith("⚠ 12 s left") and "a bot plays" in warn
    assert "TABLE-" not in warn                     # a player line: no rule id (issue 47)
    now.t = t0 + 18.2
    assert model.banner() == ("banner.warn", warn)
    model.notify(clock(1, 5_000))
    assert model.clock_warning() is None and model.banner() is None
    model.notify(clock(0, 5_000, kind="step"))
    assert model.clock_warning() is None
    bris, _ = clocked("briscola")
    bris.notify(clock(0, 4_000, warn_ms=7_500))
    assert "⚠ 4 s left" in (bris.clock_warning() or "") and "loses the match" in bris.clock_warning()


def test_match_clocks_shown_for_every_seat() -> None:
    """TABLE-2: each seat's match clock; the one of the seat whose move runs is spent as its
    move clock runs, the others stand; a warning when our match clock runs out first."""
    model, now = clocked()
    model.notify(clock(1, 60_000, match_ms=[600_000, 300_000, 480_000, 500_000]))
    now.t += 10
    assert model.match_clock_texts() == [(0, "10:00"), (1, "4:50"), (2, "8:00"), (3, "8:20")]
    model.notify(clock(0, 15_000, kind="match_clock", match_ms=[15_000, 290_000, 0, 0]))
    assert model.clock_text() == "your move 0:15 (match clock)"
    warn = model.clock_warning()
    assert warn is not None and "⚠ 15 s left on your match clock" in warn
    assert "loses the match" in warn and "TABLE-2" not in warn
    model.notify(clock(0, 15_000, match_ms=[]))
    assert model.match_clock_texts() == []


def test_clocks_and_warning_on_the_screen() -> None:
    """TABLE-1, TABLE-2: the running clock in the title and the seats column, the match
    clocks, and the warning banner — drawn from the model."""
    model, table = local_table("burraco", seed=3)
    table.start()
    model.notify(clock(0, 95_000, warn_ms=20_000, match_ms=[1_200_000, 900_000, 800_000,
                                                             700_000]))
    text = "\n".join(render_screen(model))
    assert "⏱ your move 1:35" in text and "match" in text and "20:00" in text
    assert "⚠" not in text
    model.notify(clock(0, 7_000, warn_ms=20_000))
    rows = render_screen(model)
    assert rows[1].lstrip().startswith("⚠ 7 s left for your move"), rows[:3]


# ------------------------------------------------------------------ the link
def test_host_unreachable_pauses_the_clocks_and_shows_a_banner() -> None:
    """PROTOCOL.md § 7, TABLE-1: while the host is unreachable the status says so
    prominently, the clock stops (the host stops it too), and one log line follows the
    retries; back at the table, all returns to normal and the countdown goes on."""
    model, now = clocked()
    model.notify(clock(1, 40_000))
    now.t += 10
    model.notify(LinkStatus("host unreachable, retrying… (0 s so far)"))
    assert model.status == "reconnecting…" and model.clock_paused
    style, text = model.banner() or ("", "")
    assert style == "banner.link" and "host unreachable, retrying" in text and "paused" in text
    now.t += 30
    model.notify(LinkStatus("host unreachable, retrying… (30 s so far)"))
    assert model.clock_text() == "Bob's move 0:30, paused"
    retries = [ln for ln in model.log if "unreachable" in ln.text]
    assert len(retries) == 1 and "30 s so far" in retries[0].text
    assert retries[0].style == "log.link"
    model.notify(LinkStatus("back at t1 as seat 0"))
    assert model.status == "online" and model.link_alert is None and model.banner() is None
    assert model.clock_text() == "Bob's move 0:30"
    now.t += 5
    assert model.clock_text() == "Bob's move 0:25"
    screen = "\n".join(render_screen(model))
    assert "online" in screen and "unreachable" in screen      # the log keeps the story


def test_a_restarted_peer_redraws_the_same_hand() -> None:
    """PROTOCOL.md § 7: a `hand_started` for the hand in progress (the seat's program was
    rebuilt) redraws the table from the new replica; the replayed actions, arriving in a
    burst, are logged once. A new console (the process restarted) numbers the hand as the
    table does."""
    model, table = local_table("burraco", seed=4)
    table.start()
    replayed = [ActionPlayed(s, str(a)) for s, a in table.actions]
    assert replayed, "the bots moved before our turn"
    before = [ln.text for ln in model.log if ln.action is not None]
    hand_no = model.hand_no
    screen = render_screen(model)
    model.hand_started(table.replicas[0], 0)
    for event in replayed:
        model.notify(event)
    assert model.hand_no == hand_no
    # (what a `take` picked up is told against the pile as the replica held it; this test
    # hands over the finished replica, so only the words before "⇐" can be compared)
    assert [ln.text.split(" ⇐")[0] for ln in model.log if ln.action is not None] == \
        [t.split(" ⇐")[0] for t in before]
    assert any("resumed" in ln.text for ln in model.log)
    assert not model.my_turn            # the seat asks again once the replay is through
    after = render_screen(model)
    left = 100 - 34 - 1                  # the table and the hand (the log column differs)
    assert [r[:left] for r in after[1:-3]] == [r[:left] for r in screen[1:-3]]

    fresh = ConsoleModel("Ann", game="burraco")
    fresh.notify(SeatsChanged(tuple(table.names), you=0))
    fresh.notify(StandingsChanged({"sides": [[0, 2], [1, 3]], "totals": [0, 0],
                                   "hands": 2, "voids": 0}))
    fresh.hand_started(table.replicas[0], 0)
    for event in replayed:
        fresh.notify(event)
    assert fresh.hand_no == 3
    assert [ln.text.split(" ⇐")[0] for ln in fresh.log if ln.action is not None] == \
        [t.split(" ⇐")[0] for t in before]


def test_a_new_hand_is_not_taken_for_a_restart() -> None:
    model = ConsoleModel("Ann", game="burraco")
    model.notify(StandingsChanged({"sides": [[0, 2], [1, 3]], "totals": [0, 0], "hands": 0}))
    model.hand_started(fresh_hand(), 0)
    assert model.hand_no == 1
    model.notify(StandingsChanged({"sides": [[0, 2], [1, 3]], "totals": [0, 0], "hands": 1}))
    model.hand_started(fresh_hand(), 0)   # the end of hand 1 never reached us
    assert model.hand_no == 2
    assert not any("resumed" in ln.text for ln in model.log)


# ------------------------------------------------------------------ timeouts, faults
def test_timeouts_and_host_faults_stand_out_in_the_log() -> None:
    """TABLE-3, TABLE-10: timeouts (named, with their rule), the bot playing for us, and a
    host at fault are logged in their own styles; a host at fault also takes the banner."""
    model, _ = clocked()
    model.notify(TableLine("seat 1 ran out of time (turn)"))
    model.notify(TableLine("time ran out: the bot plays draw for you [TABLE-3]"))
    model.notify(TableLine("seat 0 ran out of time (match_clock)"))
    model.notify(HandVoided("the hand is void: bad_card pos 3"))
    lines = {ln.text: ln.style for ln in model.log}
    assert lines["Bob ran out of time (move)"] == "log.timeout"     # names, no seat numbers
    assert lines["time ran out: the bot plays draw for you"] == "log.timeout"
    assert lines["you ran out of time (match clock)"] == "log.timeout"
    assert lines["the hand is void: bad_card pos 3"] == "log.void"
    assert model.message and "your time ran out" in model.message
    fault = "the host is at fault: a timeout of a seat that owed nothing — this match " \
            "stops here [TABLE-10]"
    model.notify(ErrorNotice(fault))
    shown = fault.removesuffix(" [TABLE-10]")               # a player line: no rule id
    assert model.log[-1].text == shown and model.log[-1].style == "log.fault"
    assert model.banner() == ("banner.fault", shown)
    screen = "\n".join(render_screen(model))
    assert "the host is at fault" in screen


def test_our_timeout_ends_our_turn_in_the_console() -> None:
    """TABLE-3: once our move's time ran out the bot plays it; the console stops offering
    the turn (a late move would only be refused as too late)."""
    model, table = local_table("burraco", seed=4)
    table.start()
    assert model.my_turn
    model.notify(TableLine("seat 0 ran out of time (turn)"))
    assert not model.my_turn and not model.staged


# ------------------------------------------------------------------ abandon
def abandon_model(result: bool | None = True) -> tuple[ConsoleModel, list[int]]:
    model, table = local_table("burraco", seed=4)
    table.start()
    calls: list[int] = []

    def hook() -> bool | None:
        calls.append(1)
        return result

    model.on_abandon = hook
    return model, calls


def test_abandon_asks_first_and_calls_the_hook_once() -> None:
    """TABLE-9: `abandon` asks for confirmation; only the confirmation signs it, once."""
    model, calls = abandon_model()
    assert run_command(model, "abandon")
    assert calls == [] and model.confirming == "abandon"
    assert model.message is not None and "Your side loses it" in model.message
    assert model.banner() is not None and model.banner()[0] == "banner.confirm"
    assert run_command(model, "abandon")
    assert calls == [1] and model.abandoned and model.confirming is None
    assert "your side loses it" in (model.message or "")
    assert not run_command(model, "abandon")             # already done: no second question
    assert calls == [1] and "already abandoned" in (model.error or "")
    # the Italian words and `yes` / `sì` confirm too
    for first, second in (("abbandona", "sì"), ("ABANDON", "yes"), ("abbandona", "abbandona")):
        other, more = abandon_model()
        run_command(other, first)
        assert more == []
        run_command(other, second)
        assert more == [1], (first, second)


def test_abandon_cancelled_by_any_other_input() -> None:
    """TABLE-9: anything but the confirmation cancels — and is not run either."""
    model, calls = abandon_model()
    hand = [str(c) for _, c in model.hand_cards()]
    for answer in ("draw", "", "no", "abandon now"):
        run_command(model, "abandon")
        assert model.confirming == "abandon"
        assert not run_command(model, answer)
        assert model.confirming is None and calls == []
        assert "not abandoned" in (model.message or "")
    assert model.my_turn and [str(c) for _, c in model.hand_cards()] == hand  # no draw ran
    run_command(model, "abandon")
    model.cancel_question()                              # Esc
    assert model.confirming is None and calls == []


def test_abandon_refused_offline_and_when_the_peer_says_no() -> None:
    """TABLE-9: offline (`play --offline`) there is no peer, so no abandon; a peer with no
    match to abandon says so and nothing is marked."""
    model, table = local_table("briscola", seed=1)
    table.start()
    assert not run_command(model, "abbandona")
    assert model.confirming is None and "not available offline" in (model.error or "")
    model, calls = abandon_model(result=False)
    run_command(model, "abandon")
    assert not run_command(model, "yes")
    assert calls == [1] and not model.abandoned and "no match to abandon" in (model.error or "")


def test_abandon_is_a_registered_command_with_italian_help() -> None:
    cmd = lookup("abbandona")
    assert cmd is not None and cmd.name == "abandon" and lookup("abandon") is cmd
    assert cmd.games == ("burraco", "briscola") and not cmd.key
    text = "\n".join(help_lines("briscola"))
    assert "abandon" in text and "abbandona" in text
    text = "\n".join(help_lines("briscola", lang="it"))     # --lang it / set lang it
    assert "abbandona" in text and "abbandona la partita" in text
    one = "\n".join(help_lines(None, "abbandona"))
    assert "asks first" in one and "also: abbandona" in one
    one = "\n".join(help_lines(None, "abbandona", "it"))
    assert "chiede conferma" in one and "esempi:\n  abbandona" in one


def test_abandon_typed_and_confirmed_in_the_app() -> None:
    """TABLE-9, TABLE-1: typed through the pipe input: the question shows in the banner,
    the second `abandon` calls the hook exactly once; the running clock is on the screen."""
    model, table = local_table("briscola", seed=2)
    calls: list[int] = []
    model.on_abandon = lambda: calls.append(1) is None

    async def script(drv: Driver) -> tuple[str, str, str]:
        model.notify(clock(0, 30_000, warn_ms=7_500))
        await drv.settle()
        clock_screen = "\n".join(drv.screen_text())
        await drv.type("abandon")
        asked = "\n".join(drv.screen_text())
        assert calls == []
        await drv.type("abandon")
        return clock_screen, asked, "\n".join(drv.screen_text())

    clock_screen, asked, done = run_driven(model, table, script)
    assert "⏱ your move 0:3" in clock_screen
    assert "Abandon the match? Your side loses it" in asked
    assert calls == [1] and model.abandoned
    assert "you abandoned the match" in done


def test_no_move_clock_runs_once_the_hand_is_over() -> None:
    """TABLE-1, TABLE-2: the hand's end stops the move clock shown (the host may say nothing
    more until the next hand); the match clocks stay on the screen."""
    model, table = local_table("briscola", seed=1)
    table.start()
    model.notify(clock(0, 30_000, warn_ms=7_500, match_ms=[300_000, 280_000]))
    assert model.clock_text() is not None
    while not model.outcomes:
        assert run_command(model, "play 1"), model.error
    assert model.clock_text() is None and model.clock_warning() is None
    assert [s for s, _ in model.match_clock_texts()] == [0, 1]
