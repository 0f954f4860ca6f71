"""The host's disk fills exactly as a hand closes (issue 46, "nothing is applied before it is
durable"), as separate OS processes on a real 4 MB tmpfs.

When the last sign-off of a hand comes in, the host writes, in this order: the journal
record of that sign-off (the event that closes the hand), the hand's record
`hand-NNN.p2pb`, a checkpoint, and — after the last hand — `result.json` and the `end`
record; only then does the signed `hand_end` leave. The worst moment is the hand's record:
the journal already holds the event that closed the hand and the disk has no record of it.
A seed picks the hand and whether the disk fills just before its record (the record meets
ENOSPC) or just after it (the checkpoint, or after the last hand `result.json`, does);
tests/diskfill.py fills the disk at that write. Then:

- the host says `disk full: PATH` in one line (no traceback), tells the seats the retryable
  `host.disk_full`, and deals no hand while it waits;
- no seat has the hand's `hand_end` (its copy of the hand) before the host's record is on
  disk: nothing is sent before it is durable;
- when space frees — or on a restart — the host goes on by itself, writing the hand record
  it is missing from the journal; every closed hand's record is then on disk and `verify`
  exits 0 on the host's copy and on every peer's.

DISKCLOSE_SEED=N replays one seed.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
from pathlib import Path

import msgpack
import pytest
from diskfill import FILL, command
from prockit import HostProcess, Spawned, reaper
from test_durable import (
    BRISCOLA,
    closed_hands_on_disk,
    join,
    match_dirs,
    scan_log,
    small_disk,  # noqa: F401  (the tmpfs fixture)
    verify,
)

pytestmark = [pytest.mark.faults, pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]

_SPAWNED = Spawned()
_no_leftover_processes = reaper(_SPAWNED)

HANDS = 3
NAMES = ("ann", "bob")


class FillingHost(HostProcess):
    """`p2p-burraco host` through tests/diskfill.py (its disk fills at the chosen write)."""

    command = staticmethod(command)

    def __init__(self, tmp: Path, data: Path) -> None:
        super().__init__(_SPAWNED, tmp, ["--no-announce", *BRISCOLA, "--hands", str(HANDS)],
                         data)


def _moment() -> tuple[int, str]:
    seed = int(os.environ.get("DISKCLOSE_SEED") or random.SystemRandom().randrange(10**6))
    rng = random.Random(seed)
    hand, moment = rng.randrange(1, HANDS + 1), rng.choice(("before", "after"))
    print(f"DISKCLOSE_SEED={seed}: the disk fills {moment} hand-{hand:03d}.p2pb is written")
    return hand, moment


def _peer_copies(tmp: Path, hand: int) -> list[Path]:
    """Each peer's own copy of hand `hand` (written when its hand_end arrives)."""
    return [p for n in NAMES
            for p in (tmp / f"peer-{n}" / "identities" / n / "matches").glob(
                f"*/hand-{hand:03d}.p2pb")]


def _full_at_close(tmp: Path, disk: Path, monkeypatch: pytest.MonkeyPatch
                   ) -> tuple[FillingHost, list[subprocess.Popen[str]], Path, Path, str]:
    hand, moment = _moment()
    filler = disk / "filler"
    monkeypatch.setenv(FILL, f"{moment}:hand-{hand:03d}.p2pb:{filler}")
    host = FillingHost(tmp, disk / "host")
    peers = [join(tmp, host.port, n) for n in NAMES]
    host.wait_for(rf"diskfill: the disk is full {moment} hand-{hand:03d}")
    line = host.wait_for(r"disk full: ")
    assert re.search(r"disk full: /\S+$", line), line                 # one line, the path
    host.wait_for(r"t1: waits for the disk, no hand is dealt")        # it tried again: full
    assert "Traceback" not in "\n".join(host.lines), "\n".join(host.lines)
    assert all(p.poll() is None for p in peers)                        # the seats wait
    (d,) = match_dirs(host.data)
    if moment == "before":
        # the event that closed the hand is journaled, its record is not on disk: no seat
        # may have heard that hand's end (its hand_end is what the record holds)
        last = msgpack.unpackb(scan_log(d / "journal.p2pj").records[-1], raw=False)
        assert last["e"] == "msg" and last["msg"]["type"] == "sign_off", last
        assert not (d / f"hand-{hand:03d}.p2pb").exists()
        assert not _peer_copies(tmp, hand), _peer_copies(tmp, hand)
    monkeypatch.delenv(FILL)
    missing = f"hand-{hand:03d}.p2pb" if moment == "before" else ""
    return host, peers, d, filler, missing


def _wrote_missing(host: FillingHost, since: int, missing: str) -> None:
    """The record the disk refused was written from the journal once it could be."""
    if missing:
        said = "\n".join(host.lines[since:])
        assert f"wrote the missing record(s) {missing} from the journal" in said, said


def _finish(peers: list[subprocess.Popen[str]], host: FillingHost) -> None:
    """Every peer ends with the match (exit 0), having been told to come back: the host's
    `host.disk_full` is retryable, and the peer said it was retrying."""
    for p in peers:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, out + err + "\n--- host ---\n" + "\n".join(host.lines)
        assert "retrying" in err, err


def _all_verify(tmp: Path, d: Path) -> None:
    closed_hands_on_disk(d)
    rc, out = verify(d, tmp)
    assert rc == 0, out
    for n in NAMES:
        (own,) = (tmp / f"peer-{n}" / "identities" / n / "matches").iterdir()
        assert sorted(p.name for p in own.glob("hand-*.p2pb")) == \
            sorted(p.name for p in d.glob("hand-*.p2pb")), n
        rc, out = verify(own, tmp)
        assert rc == 0, f"{n}: {out}"


def test_disk_full_at_a_hands_close_goes_on_when_space_frees(
        tmp_path: Path, small_disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, peers, d, filler, missing = _full_at_close(tmp_path, small_disk, monkeypatch)
    waits = next(i for i, x in enumerate(host.lines) if "waits for the disk" in x)
    filler.unlink()
    host.wait_for(r"the disk takes writes again; the match goes on")
    back = next(i for i, x in enumerate(host.lines) if "the disk takes writes again" in x)
    assert not [x for x in host.lines[waits:back] if re.search(r"hand \d+ dealt", x)]
    _wrote_missing(host, waits, missing)
    assert host.finish() == 0, "\n".join(host.lines)
    _finish(peers, host)
    _all_verify(tmp_path, d)


def test_disk_full_at_a_hands_close_then_a_restart_writes_the_missing_record(
        tmp_path: Path, small_disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, peers, d, filler, missing = _full_at_close(tmp_path, small_disk, monkeypatch)
    host.kill9()
    filler.unlink()
    since = len(host.lines)
    host.spawn()
    host.wait_for(r"resumed from its journal|had ended", since=since)
    _wrote_missing(host, since, missing)
    assert host.finish() == 0, "\n".join(host.lines)
    _finish(peers, host)
    _all_verify(tmp_path, d)
