"""A match that ends around a seat's resync loses that seat nothing (issue 46), with no
reactor. Found by tests/test_crash_boundaries.py (the host killed at the last sign-off, and
at the one before it): the seat that came back heard `match_end` before its resync's answer
and stopped without the last hand's record.

- a peer that hears `match_end` while it waits for its resync's answer takes the answer
  (the hand's log, the last `hand_end`) before it stops;
- a match that ends while a seat that is back waits for its answer holds its `match_end`
  until that answer is sent (at most `END_HOLD_S` for a seat that never asks).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_net_resync_order import _two_seats_in_a_row, parked_table

from p2p_burraco import wire
from p2p_burraco.table.seat import SeatClient


def test_a_peer_that_hears_match_end_mid_resync_takes_the_answer_first(
        tmp_path: Path) -> None:
    net, host, peers, ctls = parked_table(tmp_path)
    room = host.lobby.tables["t1"]
    log = list(room.driver.log)
    peer = peers[0]
    old = peer.seat_client
    m = _two_seats_in_a_row(log)
    behind = SeatClient(old.seat, old._identity, ctls[0], store=old.store,
                        host_key=old.host_key, fallback=old.fallback)
    behind.receive_all(log[:m])                     # it held entries 0..m-1 when it dropped
    peer.seat_client = behind
    peer._resyncing = True
    peer._resync_batch = list(map(dict, log))       # the answer, its pong not yet here
    ended: list[Any] = []
    peer.done.addCallback(ended.append)
    peer.frame(peer.conn, wire.Frame("match_end", 1, {
        "table": peer.table, "standings": {"totals": [0, 0]}, "reason": "hands"}))
    assert ended, "the peer did not stop at match_end"
    assert not peer._resyncing
    assert behind.replica.deal.hashes == room.driver.replica.deal.hashes[:len(log)], \
        "the resync answer was dropped at match_end"


def test_a_match_end_of_another_table_leaves_the_resync_waiting(tmp_path: Path) -> None:
    net, host, peers, ctls = parked_table(tmp_path)
    peer = peers[0]
    peer._resyncing = True
    peer._resync_batch = []
    peer.frame(peer.conn, wire.Frame("match_end", 1, {
        "table": "elsewhere", "standings": {"totals": [0, 0]}, "reason": "hands"}))
    assert peer._resyncing and not peer.done.called


def _ended_while_a_seat_resyncs(tmp_path: Path) -> tuple[Any, Any, Any]:
    """A 2-seat, 1-hand table whose hand closed (the last sign-off) while the other seat was
    back, its `resync` not yet in: (the network, the room, that seat's connection)."""
    from test_net_resync_order import Listener

    net, host, peers, ctls = parked_table(tmp_path)        # hands=1
    room = host.lobby.tables["t1"]
    listener = Listener()
    original = room.table_message

    def table_message(seat: int, frame: wire.Frame) -> None:
        closing = frame.type == "sign_off" and room.driver.sign_offs \
            and seat not in room.driver.sign_offs and listener.room is None
        if closing:
            room.reconnect(1 - seat, listener)      # back, its resync not yet asked
            listener.heard.clear()
        original(seat, frame)

    room.table_message = table_message   # type: ignore[method-assign]
    for c in ctls:
        c.hold = False
    (mover,) = [c for c in ctls if c.parked is not None]
    mover.release()                                      # the bots play the hand out
    net.pump()
    assert listener.room is room, "the hand did not reach its last sign-off"
    return net, room, listener


def test_a_match_that_ends_while_a_seat_resyncs_waits_for_its_answer(tmp_path: Path) -> None:
    """The host side: that seat hears nothing before its answer, and the answer (with the
    last hand_end) before the `match_end`."""
    net, room, listener = _ended_while_a_seat_resyncs(tmp_path)
    assert room.status == "playing" and room.end_held, room.status
    assert "match_end" not in [t for t, _ in listener.heard], listener.heard
    assert listener.table_types() == [], listener.table_types()
    away = listener.seat
    assert away is not None
    room.table_message(away, wire.Frame("resync", 1, {"hand_id": room.driver.hand_id}))
    kinds = [t for t, _ in listener.heard]
    assert "hand_end" in kinds and "match_end" in kinds, kinds
    assert kinds.index("hand_end") < kinds.index("match_end"), kinds
    assert room.status == "over"


def test_a_seat_back_but_silent_holds_the_end_for_a_bounded_time(tmp_path: Path) -> None:
    from p2p_burraco.net.room import END_HOLD_S

    net, room, listener = _ended_while_a_seat_resyncs(tmp_path)
    assert room.status == "playing"
    net.clock.advance(END_HOLD_S)
    assert room.status == "over"
    assert "match_end" in [t for t, _ in listener.heard]
