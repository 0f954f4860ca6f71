"""A match that ends around a seat's resync loses that seat nothing (issue 46), with no
reactor: a peer that hears `match_end` while it waits for its resync's answer takes the
answer (the hand's log, the last `hand_end`) before it stops. Found by the host killed at
the last sign-off of tests/test_crash_boundaries.py: the seat whose sign-off closed the hand
came back, heard the result first and stopped without the hand's record. The host side (a
match that ends while a seat that is back waits for its answer holds its `match_end` until
that answer is sent) is the subprocess test's: it needs a hand played to its end.
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
