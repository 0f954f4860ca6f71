"""A restart is invisible to peers (issue 46), deterministically, with no reactor:

- the room exposes a returning seat to no table message before its `resync` is answered
  (the answer then holds everything relayed so far, in log order);
- a peer builds its log by index from a resync answer: an entry that reached it ahead of
  the answer is dropped (it is in the answer at its place), duplicates are skipped, and a
  log that differs from the one it holds stops it with a clear message.

The subprocess counterpart (kill -9 at journal record boundaries with live peers) is
tests/test_crash_boundaries.py.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from loopback import HoldingController, Loopback, start_table

from p2p_burraco import wire
from p2p_burraco.bots import make_strategy
from p2p_burraco.fairdeal import signing
from p2p_burraco.net.host import HostConfig
from p2p_burraco.table import messages as tm
from p2p_burraco.table.inprocess import BotController
from p2p_burraco.table.seat import SeatClient


def bot(game: str, seed: int) -> BotController:
    return BotController(make_strategy(game, "random", random.Random(seed)))


def parked_table(tmp: Path, game: str = "burraco") -> tuple[Any, Any, list[Any], list[Any]]:
    """A 2-seat table stopped at the first turn of the first hand (the mover is parked)."""
    net = Loopback()
    ctls = [HoldingController(bot(game, i)) for i in range(2)]
    for c in ctls:
        c.hold = True
    config = HostConfig(data_dir=tmp, game=game, players=2, hands=1, seed=11)
    host, peers = start_table(net, config, ctls)
    return net, host, peers, ctls


class Listener:
    """A connection that only records what the room sends it."""

    role = wire.HOST

    def __init__(self) -> None:
        self.registry = wire.registry()
        self.heard: list[tuple[str, dict[str, Any]]] = []
        self.room: Any = None
        self.seat: int | None = None
        self.peer_name = "listener"

    def send(self, mtype: str, body: dict[str, Any] | None = None) -> int:
        self.heard.append((mtype, dict(body or {})))
        return len(self.heard)

    def send_prepared(self, prepared: wire.PreparedFrame) -> int:
        import msgpack

        self.heard.append((prepared.mtype, msgpack.unpackb(prepared.packed_body)))
        return len(self.heard)

    def table_types(self) -> list[str]:
        reg = wire.registry()
        return [t for t, _ in self.heard if reg.get(t).layer == "table" and t != "clock"]


def test_a_returning_seat_hears_no_table_message_before_its_resync_is_answered(
        tmp_path: Path) -> None:
    net, host, peers, ctls = parked_table(tmp_path)
    room = host.lobby.tables["t1"]
    (mover,) = [i for i, c in enumerate(ctls) if c.parked is not None]
    away = 1 - mover
    peers[away].disconnect()                       # gone; its seat comes back below
    net.pump()
    assert room.slots[away].conn is None
    listener = Listener()
    room.reconnect(away, listener)                 # authenticated, resync not yet asked
    before = len(room.driver.log)
    ctls[mover].release()                          # the mover plays: its action is relayed
    net.pump()
    assert len(room.driver.log) > before, "the mover's action was not logged"
    assert listener.table_types() == [], listener.table_types()
    room.table_message(away, wire.Frame("resync", 1, {"hand_id": room.driver.hand_id}))
    answer = [(t, b) for t, b in listener.heard if t != "clock"
              and wire.registry().get(t).layer == "table"]
    hashes = [signing.entry_hash(tm.from_body(t, b)) for t, b in answer]
    assert hashes == room.driver.replica.deal.hashes[:room.driver.relayed]


def _two_seats_in_a_row(log: list[Any]) -> int:
    """An index m where entries m and m+1 are two different seats' statements."""
    for m in range(1, len(log) - 1):
        a, b = log[m], log[m + 1]
        if "at" not in a and "at" not in b and a.get("seat") != b.get("seat"):
            return m
    raise AssertionError("no two seats' statements in a row in this log")


def test_a_peer_places_a_resync_answer_by_index_whatever_arrived_before_it(
        tmp_path: Path) -> None:
    net, host, peers, ctls = parked_table(tmp_path)
    room = host.lobby.tables["t1"]
    log = list(room.driver.log)
    peer = peers[0]
    old = peer.seat_client
    m = _two_seats_in_a_row(log)
    behind = SeatClient(old.seat, old._identity, ctls[0], store=old.store,
                        host_key=old.host_key, fallback=old.fallback)
    behind.receive_all(log[:m])                     # a seat that holds entries 0..m-1
    assert len(behind.replica.deal.log) == m
    peer.seat_client = behind
    peer._resyncing = True
    # entry m+1 reached it live before the answer (log[0..]) was sent
    peer._resync_batch = [dict(log[m + 1]), *map(dict, log)]
    peer._finish_resync()
    assert behind.replica.deal.hashes == room.driver.replica.deal.hashes[:len(log)]
    assert not behind.halted and not peer.done.called


def test_a_resync_answer_that_differs_from_the_held_log_stops_the_peer(
        tmp_path: Path) -> None:
    net, host, peers, ctls = parked_table(tmp_path)
    room = host.lobby.tables["t1"]
    log = list(room.driver.log)
    peer = peers[0]
    m = _two_seats_in_a_row(log)
    swapped = [*log[:m], log[m + 1], log[m], *log[m + 2:]]
    peer._resyncing = True
    peer._resync_batch = list(map(dict, swapped))
    failures: list[Any] = []
    peer.done.addErrback(failures.append)
    peer._finish_resync()
    assert failures and "differs at entry" in failures[0].getErrorMessage(), failures
