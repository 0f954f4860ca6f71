"""What a host keeps of its ended matches across a restart (net/ended.py, TABLE-16), in one
process on the in-memory network: the seats of an ended match with its `match_end`, the
rematch offer with when it lapses, and the next table id come back in a new HostNode on the
same data directory; a lapsed offer does not; a rematch whose offer cannot be written is
refused with `host.disk_full` and changes nothing. (The processes version, with `kill -9`,
is tests/test_ended_restart.py.)"""

from __future__ import annotations

import errno
import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from loopback import Loopback, start_table

from p2p_burraco.bots import make_strategy
from p2p_burraco.net.host import HostConfig, HostNode
from p2p_burraco.net.rematch import OFFER_S
from p2p_burraco.storage.journal import DiskFull
from p2p_burraco.table.inprocess import BotController


def bot(seed: int) -> BotController:
    return BotController(make_strategy("briscola", "random", random.Random(seed)))


def _ended_match(tmp_path: Path) -> tuple[HostNode, list[bytes], dict[str, object]]:
    net = Loopback()
    cfg = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                     hands=1, seed=3)
    host, peers = start_table(net, cfg, [bot(0), bot(1)])
    for _ in range(200):
        if all(p.done.called for p in peers):
            break
        net.advance(1.0)
    assert all(p.done.called for p in peers)
    net.advance(0)                                   # the turn's group commit
    keys = [p.public_key for p in peers]
    return host, keys, host.ended[keys[0]][2]


def _restarted(tmp_path: Path, now: float = 0.0) -> HostNode:
    net = Loopback()
    net.clock.advance(now)
    return HostNode(net.clock, HostConfig(data_dir=tmp_path, game="briscola",
                                          variant="smazzate", players=2, hands=1))


def test_table_16_the_ended_seats_the_offer_and_the_next_id_outlive_a_restart(
        tmp_path: Path) -> None:
    first, keys, end = _ended_match(tmp_path)
    assert (tmp_path / "ended.msgpack").exists()
    again = _restarted(tmp_path)
    for key in keys:
        table, at, body = again.ended[key]
        assert (table, body) == ("t1", end)
        assert at == first.ended[key][1]
    offer = again.rematches.offers["t1"]
    assert offer.identities == first.rematches.offers["t1"].identities
    assert offer.expires == first.rematches.offers["t1"].expires
    assert again.default_room is not None and again.default_room.id == "t2"


def test_table_16_a_lapsed_offer_is_not_restored(tmp_path: Path) -> None:
    _ended_match(tmp_path)
    later = _restarted(tmp_path, now=OFFER_S + 5)
    assert "t1" not in later.rematches.offers
    assert later.ended                               # the seats are still remembered


def test_table_16_a_rematch_that_cannot_be_written_is_refused_and_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, keys, _ = _ended_match(tmp_path)
    host = _restarted(tmp_path)
    tables = dict(host.lobby.tables)

    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("p2p_burraco.net.ended.save_ended", full)
    conn = SimpleNamespace(room=None, seat=None, peer_identity=keys[0])
    with pytest.raises(DiskFull) as caught:
        host.rematches.ask(conn, "t1", 7)  # type: ignore[arg-type]
    assert caught.value.path == tmp_path / "ended.msgpack"
    assert host.lobby.tables == tables and host.rematches.offers["t1"].new_table is None


@pytest.mark.parametrize("name", ["ended.msgpack", "lobby.json"])
def test_fresh_keeps_a_file_that_does_not_read_under_another_name(
        tmp_path: Path, name: str, caplog: pytest.LogCaptureFixture) -> None:
    """`--fresh` reads neither file; one that does not read is moved aside and said, never
    overwritten by the run's first write (a damaged file is kept)."""
    damaged = tmp_path / name
    damaged.write_bytes(b"\x93not what it should be")
    net = Loopback()
    with caplog.at_level("INFO"):
        HostNode(net.clock, HostConfig(data_dir=tmp_path, game="briscola", players=2,
                                       hands=1, resume=False))
    assert not damaged.exists()
    (aside,) = tmp_path.glob(f"{name}.damaged-*")
    assert aside.read_bytes() == b"\x93not what it should be"
    assert aside.name in caplog.text, caplog.text
