"""TABLE-15: between two hands the host waits `pause_between` seconds before the next deal,
so the people can read how the hand ended; no clock runs meanwhile (no hand is dealt)."""

from __future__ import annotations

import random
from pathlib import Path

from loopback import Loopback, start_table

from p2p_burraco.bots import make_strategy
from p2p_burraco.net.host import HostConfig
from p2p_burraco.table.inprocess import BotController


def test_table_15_the_next_deal_waits_for_the_pause(tmp_path: Path) -> None:
    net = Loopback()
    ctls = [BotController(make_strategy("briscola", "random", random.Random(i)))
            for i in range(2)]
    config = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                        hands=2, seed=3, pause_between=8.0)
    host, peers = start_table(net, config, ctls)
    room = host.lobby.tables["t1"]
    net.run_until(lambda: room.driver.stage == "between", step=0.05)
    assert room.driver.hand_no == 1
    ended = net.clock.seconds()
    net.advance(7.5)                                   # still reading the score sheet
    assert room.driver.stage == "between" and room.driver.hand_no == 1
    assert room.driver.next_deadline() is None         # and no clock runs meanwhile
    net.run_until(lambda: room.driver.stage != "between", step=0.1)
    assert net.clock.seconds() - ended >= 8.0          # the deal came after the pause
    net.run_until(lambda: all(p.done.called for p in peers), step=0.5)
    assert room.status == "over" and room.driver.hand_no == 2


def test_table_15_no_pause_by_default(tmp_path: Path) -> None:
    net = Loopback()
    ctls = [BotController(make_strategy("briscola", "random", random.Random(i)))
            for i in range(2)]
    config = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                        hands=2, seed=3)
    host, _ = start_table(net, config, ctls)
    room = host.lobby.tables["t1"]
    start = net.clock.seconds()
    net.run_until(lambda: room.driver.hand_no >= 1, step=0.05)
    # the second hand was dealt at once and played in the same pump: well within a pause
    assert room.driver.hand_no == 2 and net.clock.seconds() - start < 8.0
    assert room.pause.until_ms is None
