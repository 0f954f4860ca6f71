"""TABLE-13 (issue 46): while the hand waits on an absent seat, no other seat's clock runs
— the table is sans-IO, so this is a fold over events with a virtual clock: the only
deadline is the absent seat's grace, every console is told whom the table waits for
("waiting for Bob — reconnecting, 1:45 left") and the seats panel marks the seat away; back
in time, the mover's move clock starts whole, the time held not counted."""

from __future__ import annotations

from test_table_clocks import timeouts
from test_table_host import actions_in_log, make_table, reconnect

from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.table.rules import TableRules


def test_table_13_no_clock_runs_while_the_hand_waits_on_an_absent_seat() -> None:
    rules = TableRules(turn_ms=30_000, step_ms=10_000, grace_ms=120_000)
    t = make_table("burraco", 4, seed=21, audit=False, bots=("greedy",), rules=rules)
    t.step({"e": "deal"})

    def mover_waits_on_keys() -> bool:
        r = t.host.replica
        if r is None or r.stage != "play" or actions_in_log(t) < 1:
            return False
        m = r.hand.to_move
        return m is not None and r.due(m) is None and any(
            r.due(s) in ("release", "sealed") for s in range(4) if s != m)
    t.pump(until=mover_waits_on_keys)
    replica = t.host.replica
    assert replica is not None
    mover = replica.hand.to_move
    assert mover is not None
    owing = next(s for s in range(4) if s != mover and replica.due(s) in ("release", "sealed"))
    t.disconnected.add(owing)
    out = t.host.set_connected(owing, False, t.now)            # it vanishes
    t.post(out)
    t.pump()
    assert t.host.next_deadline() == (t.now + 120_000, owing, "grace")   # nothing else runs
    (notice,) = [o.msg for o in out if o.msg.get("type") == "clock"]
    assert (notice["seat"], notice["kind"], notice["ms"]) == (owing, "grace", 120_000)
    t.advance(100_000)
    assert not timeouts(t)
    reconnect(t, owing)
    t.pump(until=lambda: replica.due(mover) == "move")
    assert t.host.next_deadline() == (t.now + 30_000, mover, "turn")   # its whole clock
    assert t.host.waiting_on() == []


def test_every_console_says_whom_the_table_waits_for_and_marks_the_seat_away() -> None:
    model = ConsoleModel()
    model.notify({"type": "seats", "names": ["Ann", "Bob", "Cy", "Di"], "you": 0,
                  "seats": [{"seat": i, "name": n, "connected": i != 1}
                            for i, n in enumerate(["Ann", "Bob", "Cy", "Di"])]})
    model.notify({"type": "clock", "seat": 1, "kind": "grace", "ms": 105_000,
                  "match_ms": [], "warn_ms": 20_000})
    assert model.clock_text() == "waiting for Bob — reconnecting, 1:45 left"
    assert model.seat_away(1) and not model.seat_away(0)
    model.lang = "it"
    assert model.clock_text() == "si aspetta Bob — si sta ricollegando, ancora 1:45"
