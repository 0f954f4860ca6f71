"""The typed events a seat's controller is told (`table/events.py`): frozen values, a clock
notice read from the host's message as the console always read it, and a console that
takes every kind of the union."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from p2p_burraco.bots.controller import BotController
from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.table.events import (
    ActionPlayed,
    ChatSaid,
    ClockNotice,
    DealProgress,
    ErrorNotice,
    HandVoided,
    LinkStatus,
    LobbySeat,
    SeatEvent,
    SeatsChanged,
    StandingsChanged,
    TableInfo,
    TableLine,
    TablesListed,
)

ONE_OF_EACH: list[SeatEvent] = [
    SeatsChanged(("Ann", "Bob"), you=0, seats=(LobbySeat(0, "Ann", connected=True),
                                               LobbySeat(1)), table=TableInfo(id="t1")),
    DealProgress("fair deal: shuffle pass 1/2", 2, 8),
    ActionPlayed(1, "draw"),
    ChatSaid(1, "Bob", "ciao"),
    StandingsChanged({"sides": [[0], [1]], "totals": [0, 0], "hands": 0}),
    ClockNotice(1, "turn", 30_000, (600_000, 600_000), 7_500),
    LinkStatus("connected to 127.0.0.1:23001 as seat 0 of t1"),
    TableLine("seat 1 back"),
    ErrorNotice("table.bad_action: nope"),
    HandVoided("the hand is void: bad_card pos 3"),
    TablesListed(()),
]


def test_one_of_each_covers_the_union_and_every_event_is_frozen() -> None:
    kinds = set(typing.get_args(SeatEvent))
    assert {type(e) for e in ONE_OF_EACH} == kinds
    for event in ONE_OF_EACH:
        field = dataclasses.fields(event)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(event, field, None)


def test_the_console_takes_every_kind() -> None:
    """Each kind lands where the screen reads it (none is dropped on the floor)."""
    model = ConsoleModel("Ann", game="briscola")
    for event in ONE_OF_EACH:
        model.notify(event)
    assert model.names == ["Ann", "Bob"] and model.seat == 0
    assert model.free_seats() == [1] and model.lobby_table == TableInfo(id="t1")
    assert model.clock is not None and model.clock.match_ms == [600_000, 600_000]
    assert model.standings == {"sides": [[0], [1]], "totals": [0, 0], "hands": 0}
    assert model.status == "online" and model.error == "table.bad_action: nope"
    texts = [ln.text for ln in model.log]
    assert "Bob: draw" in texts and "💬 Bob: ciao" in texts and "Bob back" in texts
    assert "the hand is void: bad_card pos 3" in texts


def test_a_bot_keeps_only_errors_and_void_hands() -> None:
    bot = BotController(strategy=None)   # no strategy: it is never asked to move
    for event in ONE_OF_EACH:
        bot.notify(event)
    assert bot.events == [ErrorNotice("table.bad_action: nope"),
                          HandVoided("the hand is void: bad_card pos 3")]


def test_a_clock_notice_reads_the_host_message_and_a_wrong_field_as_absent() -> None:
    msg = {"type": "clock", "seat": 2, "kind": "step", "ms": 25_000,
           "match_ms": [1, 2, 3, 4], "warn_ms": 20_000}
    assert ClockNotice.of(msg) == ClockNotice(2, "step", 25_000, (1, 2, 3, 4), 20_000)
    # no clock runs: no ms, whatever the message says; a kind left out reads "none"
    assert ClockNotice.of({"seat": None, "ms": 9, "match_ms": [5]}) == \
        ClockNotice(None, "none", None, (5,), 0)
    assert ClockNotice.of({"seat": "1", "kind": "turn", "ms": "x", "match_ms": "y",
                           "warn_ms": None}) == ClockNotice(None, "turn", None, (), 0)
