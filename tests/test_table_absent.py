"""TABLE-13 (issue 46): while the hand waits on an absent seat, no other seat's clock runs
— the table is sans-IO, so this is a fold over events with a virtual clock: the only
deadline is the absent seat's grace, every console is told whom the table waits for
("waiting for Bob — reconnecting, 1:45 left") and the seats panel marks the seat away; back
in time, the mover's move clock starts whole, the time held not counted."""

from __future__ import annotations

from typing import Any

from test_table_clocks import dropped, expect_deadline, fair_record, seats_agree, timeouts
from test_table_host import actions_in_log, deal_to_first_move, make_table, reconnect

from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.table.events import ClockNotice, LobbySeat, SeatsChanged
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
    model.notify(SeatsChanged(("Ann", "Bob", "Cy", "Di"), you=0,
                              seats=tuple(LobbySeat(i, n, connected=i != 1)
                                          for i, n in enumerate(["Ann", "Bob", "Cy", "Di"]))))
    model.notify(ClockNotice(1, "grace", 105_000, match_ms=(), warn_ms=20_000))
    assert model.clock_text() == "waiting for Bob — reconnecting, 1:45 left"
    assert model.seat_away(1) and not model.seat_away(0)
    model.lang = "it"
    assert model.clock_text() == "si aspetta Bob — si sta ricollegando, ancora 1:45"


def _gone_past_grace(bots: bool) -> tuple[Any, int]:
    """A 4-seat Burraco match whose first mover vanishes and stays away past its grace."""
    rules = TableRules(step_ms=10_000, grace_ms=120_000, bots=bots)
    t = make_table("burraco", 4, seed=8, audit=True, rules=rules,
                   sleeps={s: (lambda n: True) for s in range(4)})
    _, mover = deal_to_first_move(t)
    dropped(t, mover)
    t.pump()
    expect_deadline(t, 120_000, mover, "grace")
    t.pump()
    return t, mover


def test_table_14_past_its_grace_the_hand_ends_by_abandonment_and_the_match_goes_on() -> None:
    """TABLE-14: the hand ends by the seat's abandonment, nothing scored, the match goes on."""
    t, gone = _gone_past_grace(bots=True)
    record = fair_record(t, [s for s in range(4) if s != gone])
    outcome = record.outcome
    assert (outcome.kind, outcome.seat, outcome.cause) == ("abandon", gone, "grace")
    assert outcome.result.extra.get("replaced") == gone and not any(outcome.result.points)
    assert not t.host.match_over and t.host.stage == "between"     # a bot sits down next
    standings = t.host.standings()
    assert standings.get("winner") is None and standings.get("abandoned_by") is None
    seats_agree(t)


def test_table_9_without_bots_past_its_grace_the_side_loses_the_match() -> None:
    """TABLE-9 (TABLE-14's other branch): without bots the side loses the match."""
    t, gone = _gone_past_grace(bots=False)
    record = fair_record(t, [s for s in range(4) if s != gone])
    assert (record.outcome.kind, record.outcome.cause) == ("abandon", "grace")
    assert t.host.match_over and t.host.end_reason == "abandonment"
    standings = t.host.standings()
    assert standings["abandoned_by"] == gone and standings["winner"] is not None


def test_table_14_on_the_network_a_host_bot_takes_the_seat_and_the_match_goes_on(
        tmp_path: Any) -> None:
    """TABLE-14 through the room: a person vanishes for good mid-hand; past its grace
    the hand ends by abandonment, a host bot sits down at once and the match is played to
    its end (--hands 2) — it does not end "abandonment, winner none"."""
    import json
    import random

    from loopback import HoldingController, Loopback, start_table

    from p2p_burraco.bots import make_strategy
    from p2p_burraco.net.host import HostConfig
    from p2p_burraco.table.inprocess import BotController

    def bot(seed: int) -> BotController:
        return BotController(make_strategy("burraco", "random", random.Random(seed)))

    net = Loopback()
    ctls = [HoldingController(bot(i)) for i in range(4)]
    for c in ctls:
        c.hold = True
    cfg = HostConfig(data_dir=tmp_path, game="burraco", players=4, hands=2, seed=5,
                     grace=10.0)
    host, peers = start_table(net, cfg, ctls, bot_controller=lambda: bot(9))
    room = host.lobby.tables["t1"]
    (mover,) = [i for i, c in enumerate(ctls) if c.parked is not None]
    gone = (mover + 1) % 4
    peers[gone].disconnect()                            # vanished for good
    net.pump()
    for c in ctls:
        c.hold = False
        if c.parked is not None:
            c.release()
    for _ in range(400):
        net.advance(1.0)
        if room.status == "over":
            break
    assert room.status == "over", (room.status, room.driver.stage if room.driver else None)
    (d,) = list((tmp_path / "matches").iterdir())
    result = json.loads((d / "result.json").read_text())
    assert result["reason"] == "hands" and result["hands"] == 2, result
    assert result["seats"][gone]["bot"] is True
    from p2p_burraco.fairdeal.transcript import Transcript

    first = Transcript.load(str(d / "hand-001.p2pb")).hand_end or {}
    assert (first["outcome"]["kind"], first["outcome"]["cause"]) == ("abandon", "grace")
    import contextlib
    import io

    from p2p_burraco.cli import main as cli_main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = cli_main(["verify", "--data-dir", str(tmp_path / "nobody"), str(d)])
    # the vanished seat owes no sign-off of the hand a signed grace timeout put it out of
    # (AUDIT-2): the host's copy proves the match on its own
    assert rc == 0, out.getvalue()
    assert f"seat {gone} (seat{gone}) did not sign off: a signed timeout put it out" \
        in out.getvalue()
    assert "match verdict: FAIR" in out.getvalue()
