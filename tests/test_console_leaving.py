"""Lobby and leaving (issue 15): the waiting screen lists who is seated (names, person or
bot, key fingerprints) and which seats are free; quitting mid-match asks first, says what
it costs, and a confirmed quit is a signed `abandon` (TABLE-9), never a silent fault."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from test_console_driver import Driver, local_table, render_screen, run_driven

from p2p_burraco.console import settle_abandon
from p2p_burraco.console.catalog import t
from p2p_burraco.console.model import QUIT_QUESTION, QUIT_QUESTION_OFFLINE, ConsoleModel
from p2p_burraco.table.events import LobbySeat, SeatsChanged, TableInfo


def test_table_9_a_confirmed_quit_mid_match_is_an_abandon() -> None:
    """Ctrl-Q mid-match: the banner asks and names the consequence [TABLE-9]; anything
    else keeps the seat; a second Ctrl-Q signs `abandon` through the peer, then leaves."""
    model, table = local_table("burraco", seed=4)
    calls: list[int] = []
    model.on_abandon = lambda: calls.append(1) or True

    async def script(drv: Driver) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        await drv.press("c-q")
        seen["asked"] = drv.screen_text()[1]
        await drv.type("no")
        seen["stayed"] = (drv.app.is_running, model.message, list(calls))
        await drv.press("c-q")
        await drv.press("c-q")
        seen["left"] = not drv.app.is_running
        return seen

    seen = run_driven(model, table, script)
    assert "Leave mid-match?" in seen["asked"] and "by abandonment" in seen["asked"]
    assert "TABLE-9" not in seen["asked"]
    assert seen["stayed"] == (True, "you stay at the table", [])
    assert seen["left"] and calls == [1] and model.abandoned and model.quit_requested
    assert t("en", QUIT_QUESTION).startswith("Leave mid-match?")


def test_quitting_offline_asks_too_and_after_the_match_it_does_not() -> None:
    model, table = local_table("burraco", seed=4)
    table.start()
    model.quit()
    assert model.confirming == "quit" and model.banner() == ("banner.confirm",
                                                             t("en", QUIT_QUESTION_OFFLINE))
    assert not model.quit_requested
    assert model.answer("yes") and model.quit_requested and not model.abandoned
    done = ConsoleModel("Ann", game="burraco")
    done.hand_no, done.match_over = 3, True
    done.quit()
    assert done.quit_requested and done.confirming is None      # nothing at stake: no question


def test_a_confirmed_quit_waits_for_the_abandon_to_reach_the_host() -> None:
    class Done:
        called = False

    class Handle:
        done = Done()

    async def main() -> tuple[bool, float]:
        loop = asyncio.get_running_loop()
        handle = Handle()
        loop.call_later(0.1, lambda: setattr(handle.done, "called", True))
        start = loop.time()
        await settle_abandon(handle, limit=2.0)
        return handle.done.called, loop.time() - start

    called, waited = asyncio.run(main())
    assert called and waited < 1.0


LOBBY = [
    LobbySeat(0, "Ann", bot=False, connected=True, key="1a2b3c4d"),
    LobbySeat(1, "heuristic bot", bot=True, connected=True, key="99aa00ff"),
    LobbySeat(2, None, bot=False, connected=False, key=None),
    LobbySeat(3, "Bob", bot=False, connected=False, key="beefcafe"),
]


def test_the_waiting_screen_lists_who_is_seated_and_the_free_seats() -> None:
    model = ConsoleModel("Ann", game="burraco")
    model.status = "online"
    model.notify(SeatsChanged(("Ann", "heuristic bot", "seat 2", "Bob"), you=0,
                              seats=tuple(LOBBY),
                              table=TableInfo(id="t1", game="burraco", variant="fibur")))
    for columns, rows in ((80, 24), (160, 48)):
        text = "\n".join(render_screen(model, columns, rows))
        assert "table t1 · burraco · fibur" in text
        assert "seat 0  Ann  (you, person)  key 1a2b3c4d" in text
        assert "seat 1  heuristic bot  (bot)  key 99aa00ff" in text
        assert "seat 2  free" in text
        assert "seat 3  Bob  (person, away)  key beefcafe" in text
        assert "waiting for 1 more player(s): seat(s) 2 free" in text
        assert "waiting for -" not in text
    model.notify(SeatsChanged(("Ann", "b", "Cy", "Bob"), you=0,
                              seats=tuple(replace(s, name=s.name or "Cy") for s in LOBBY)))
    assert model.turn_hint() == "everyone is seated: waiting for the deal"


def test_the_peer_tells_the_console_who_sits_where_with_fingerprints() -> None:
    from p2p_burraco.net.identity import fingerprint
    from p2p_burraco.net.peer import lobby_seat

    key = bytes(range(32))
    assert lobby_seat({"seat": 1, "name": "Bob", "identity": key, "bot": False,
                       "connected": True}) == LobbySeat(1, "Bob", bot=False, connected=True,
                                                        key=fingerprint(key))
    assert lobby_seat({"seat": 2, "name": None, "identity": None}).key is None
