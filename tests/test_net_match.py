"""Whole matches over the in-memory network (no reactor): the host referees, each peer
deals with its own secrets and learns only its own cards, transcripts and results land in
the data dir and pass the audit."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from loopback import HoldingController, Loopback, start_table

from p2p_burraco.bots import make_strategy
from p2p_burraco.cli import main as cli_main
from p2p_burraco.net.host import HostConfig
from p2p_burraco.table.inprocess import BotController


def bots(game: str, n: int, seed: int = 0) -> list[BotController]:
    return [BotController(make_strategy(game, "random", random.Random(seed + i)))
            for i in range(n)]


def test_briscola_match_ends_with_records_that_verify(tmp_path: Path) -> None:
    net = Loopback()
    cfg = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                     hands=2, seed=3)
    host, peers = start_table(net, cfg, bots("briscola", 2))
    finals = []
    for p in peers:
        assert p.done.called
        p.done.addCallback(finals.append)
    assert finals[0] == finals[1] and finals[0]["hands"] == 2
    (records,) = (tmp_path / "matches").iterdir()       # one directory per match
    assert records.name.endswith(records.name[-32:]) and len(records.name) == 11 + 32
    files = sorted(records.glob("*.p2pb"))
    assert [f.name for f in files] == ["hand-001.p2pb", "hand-002.p2pb"]
    result = json.loads((records / "result.json").read_text())
    assert result["hands"] == 2
    assert result["reason"] in ("hands", "target")   # a best-of-3 may be decided in two
    assert result["standings"]["totals"] == finals[0]["totals"]
    assert cli_main(["verify", str(records)]) == 0
    assert cli_main(["verify", *map(str, files)]) == 0


def test_each_peer_knows_only_its_own_cards_and_the_host_none(tmp_path: Path) -> None:
    net = Loopback()
    ctls = [HoldingController(b) for b in bots("briscola", 4, seed=7)]
    for c in ctls:
        c.hold = True
    host, peers = start_table(net, HostConfig(data_dir=tmp_path, game="briscola", players=4,
                                              hands=1, seed=5), ctls)
    (waiting,) = [c for c in ctls if c.parked is not None]
    hand = host.lobby.tables["t1"].driver.replica.hand
    n = len(hand.deck)
    for seat, peer in enumerate(peers):
        replica = peer.seat_client.hand
        known = {p for p in range(n) if replica.card_at(p) is not None}
        entitled = {p for p in range(n) if seat in hand.audience(p)}
        assert known and known <= entitled, f"seat {seat} knows {sorted(known - entitled)}"
    private = [p for p in range(n) if len(hand.audience(p)) == 1]
    assert private and all(hand.card_at(p) is None for p in private)
    for c in ctls:
        c.hold = False
    waiting.release()
    net.pump()
    assert all(p.done.called for p in peers)


def test_no_reply_leaves_the_host_before_its_event_is_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Group commit: whatever a host connection writes while a match journal holds records
    not yet fsynced waits for that fsync — a peer never sees a reply the host could forget
    in a crash (issue 11's journal). Checked at every write of every host connection."""
    import loopback

    from p2p_burraco.storage.files import AppendLog

    journals: list[AppendLog] = []
    append = AppendLog.append

    def tracked_append(self: AppendLog, body: bytes) -> None:
        if self not in journals:
            journals.append(self)
        append(self, body)
    monkeypatch.setattr(AppendLog, "append", tracked_append)

    servers: set[int] = set()
    connect = loopback.Loopback.connect

    def tracked_connect(self: loopback.Loopback, server_factory: Any, client: Any) -> Any:
        link = connect(self, server_factory, client)
        servers.add(id(link.server_tx))
        return link
    monkeypatch.setattr(loopback.Loopback, "connect", tracked_connect)

    writes = [0]
    write = loopback._Transport.write

    def checked_write(self: Any, data: bytes) -> None:
        if id(self) in servers:
            writes[0] += 1
            unsynced = [j.path.name for j in journals if j.dirty]
            assert not unsynced, f"a reply left before {unsynced} was fsynced"
        write(self, data)
    monkeypatch.setattr(loopback._Transport, "write", checked_write)
    monkeypatch.setattr(loopback._Transport, "writeSequence",
                        lambda self, seq: checked_write(self, b"".join(seq)))

    net = Loopback()
    cfg = HostConfig(data_dir=tmp_path, game="briscola", players=2, hands=1, seed=4)
    host, peers = start_table(net, cfg, bots("briscola", 2, seed=4))
    assert all(p.done.called for p in peers)
    assert journals and writes[0] > 50 and host.syncs > 0


def test_keep_plays_match_after_match_and_leaves_nothing_behind(tmp_path: Path) -> None:
    """`host --keep` (issue 11): a new table opens when a match ends, the host's own bots
    take its seats; finished tables are reaped, finished bots forgotten and their
    directories removed — what grows is only the records of the matches."""
    net = Loopback()
    cfg = HostConfig(data_dir=tmp_path, game="briscola", players=2, hands=1, seed=9,
                     keep=True, bots=2, exit_when_done=False)
    host, _ = start_table(net, cfg, [], bot_controller=lambda: bots("briscola", 1)[0])
    over = host.table_over

    def table_over(room: Any) -> None:           # the 5th match is the last one opened
        if len(host.finished) >= 4:
            host.config.keep = False
        over(room)
    host.table_over = table_over                 # type: ignore[method-assign]
    for _ in range(2):
        host.add_bot("t1", None)
    net.pump()
    net.advance(2.0)                                       # reaping runs a second later
    matches = tmp_path / "matches"
    assert len(list(matches.glob("*/result.json"))) == 5
    assert not host.lobby.tables and not host.bot_peers and not host.own_bots
    left = sorted(d.name for d in host.bots_dir.iterdir()) if host.bots_dir.is_dir() else []
    assert left == [], left
    for d in matches.iterdir():
        if (d / "result.json").exists():
            assert cli_main(["verify", "--quiet", str(d)]) == 0
