"""The host and its disk, in one process on the in-memory network:

- a seeded host run twice on one data directory (`play --seed N` twice): the second match
  gets an id of its own, so it never collides with the first's directory and journal
  ("journal exists: a match id is never reused" was the crash);
- a journal write that fails when a move clock runs out (a timed call, no request): the
  table stalls with "disk full: PATH" in one line, its seats are told `host.disk_full`, and
  nothing escapes as a traceback; once the disk takes writes, the match goes on."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from loopback import HoldingController, Loopback, start_table

from p2p_burraco.bots import make_strategy
from p2p_burraco.net.host import HostConfig
from p2p_burraco.table.inprocess import BotController


def bot(seed: int) -> BotController:
    return BotController(make_strategy("briscola", "random", random.Random(seed)))


def test_the_same_seed_twice_plays_two_matches_with_two_ids(tmp_path: Path) -> None:
    ids = []
    for _ in range(2):
        net = Loopback()
        cfg = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                         hands=1, seed=7)
        host, peers = start_table(net, cfg, [bot(0), bot(1)])
        for _ in range(200):
            if all(p.done.called for p in peers):
                break
            net.advance(1.0)
        assert all(p.done.called for p in peers)
        # table ids go on across runs on one data directory (ended.msgpack): t1, then t2
        ids.append(host.lobby.tables[f"t{len(ids) + 1}"].match_id)
    assert ids[0] != ids[1]
    dirs = sorted((tmp_path / "matches").iterdir())
    assert len(dirs) == 2 and all((d / "result.json").exists() for d in dirs)


def test_a_new_match_id_is_none_a_directory_has(tmp_path: Path) -> None:
    from p2p_burraco.storage.journal import new_match_id

    a, b = new_match_id(tmp_path), new_match_id(tmp_path)
    assert len(a) == len(b) == 16 and a != b


def test_a_write_failing_on_a_clock_stalls_the_table_in_one_line(tmp_path: Path,
                                                                 caplog: Any) -> None:
    import errno
    import logging

    from p2p_burraco.storage.journal import DiskFull

    net = Loopback()
    ctls = [HoldingController(bot(i)) for i in range(2)]
    for c in ctls:
        c.hold = True                                   # the mover never moves: its clock runs
    cfg = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                     hands=1, seed=5, clock=5.0)
    host, peers = start_table(net, cfg, ctls)
    room = host.lobby.tables["t1"]
    journal = room.journal
    real_append = journal.log.append

    def full(body: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")
    journal.log.append = full
    with caplog.at_level(logging.INFO, logger="p2p_burraco.host"):
        net.advance(6.0)                                # the move clock runs out: a write
    assert "t1" in host.stalled
    said = [r.getMessage() for r in caplog.records if r.name == "p2p_burraco.host"]
    assert any(m == f"disk full: {journal.log.path}" for m in said), said
    assert isinstance(journal.broken, DiskFull)
    codes = [e.get("code") for p in peers for e in p.events if isinstance(e, dict)]
    assert "host.disk_full" in codes, codes
    assert not any(p.done.called for p in peers)        # they wait and come back
    journal.log.append = real_append                   # space again: what start_host runs
    host.watch_disk()
    for c in ctls:
        c.hold = False
        if c.parked is not None:
            c.release()
    for _ in range(300):
        if all(p.done.called for p in peers):
            break
        net.advance(1.0)
    assert all(p.done.called for p in peers) and "t1" not in host.stalled
    (d,) = (tmp_path / "matches").iterdir()
    assert (d / "result.json").exists() and (d / "hand-001.p2pb").exists()


def test_a_match_whose_first_record_cannot_be_written_starts_once_it_can(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The disk fills as the last seat is taken: nobody loses a seat, no error tells a seat
    its seat is gone, and the match starts by itself once the host can write."""
    import errno

    from p2p_burraco.storage import journal as journal_mod

    real = journal_mod.MatchJournal.create
    full = {"on": True}

    def create(cls: Any, root: Path, match_id: bytes, header: Any) -> Any:
        if full["on"]:
            raise journal_mod.DiskFull(Path(root) / "journal.p2pj",
                                       OSError(errno.ENOSPC, "No space left on device"))
        return real.__func__(cls, root, match_id, header)
    monkeypatch.setattr(journal_mod.MatchJournal, "create", classmethod(create))
    net = Loopback()
    cfg = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                     hands=1, seed=3)
    host, peers = start_table(net, cfg, [bot(0), bot(1)])
    room = host.lobby.tables["t1"]
    assert room.status == "waiting" and not room.free_seats()
    assert not any(p.done.called for p in peers)
    host.watch_disk()
    net.advance(2.0)
    assert room.status == "waiting"                    # still full: still waiting
    full["on"] = False
    for _ in range(300):
        if all(p.done.called for p in peers):
            break
        net.advance(1.0)
    assert all(p.done.called for p in peers), room.status
    (d,) = (tmp_path / "matches").iterdir()
    assert (d / "result.json").exists() and (d / "hand-001.p2pb").exists()
