"""The host and its disk under real faults, as separate OS processes (issue 46, storage half):

- a byte flipped inside the journal, or its first record damaged: the host refuses to start,
  names the file and the offset, changes nothing, and says `--salvage`; with it, the match
  goes on from the last good checkpoint and the damaged file is kept aside;
- a match directory whose journal is gone but whose hand records are there is reported, never
  silently replaced by a new match;
- a second host on the same data directory refuses in one sentence naming the holder;
- a restart with other options says so and asks for the same ones or `--fresh`;
- the data directory on a small tmpfs that fills during a hand: "disk full: PATH", peers told
  `host.disk_full`, no hand dealt, and the match goes on by itself when space frees (or on a
  restart), every closed hand's record on disk.

Every kill moment and damaged byte comes from a seed the test prints (DURABLE_SEED=N to
replay one). Tests wait on the host's lines and on files, never on a fixed sleep.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prockit import HostProcess, Spawned, cli, private_env, reaper

pytestmark = [pytest.mark.faults, pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]

_SPAWNED = Spawned()
_no_leftover_processes = reaper(_SPAWNED)


def _seed() -> int:
    seed = int(os.environ.get("DURABLE_SEED") or random.SystemRandom().randrange(10**6))
    print(f"DURABLE_SEED={seed}")
    return seed


_cli, _env = cli, private_env


class Host(HostProcess):
    """`p2p-burraco host --no-announce` in a subprocess (tests/prockit.HostProcess)."""

    def __init__(self, tmp: Path, args: list[str], data: Path | None = None,
                 listen: bool = True) -> None:
        super().__init__(_SPAWNED, tmp, ["--no-announce", *args], data, listen=listen)


def join(tmp: Path, port: int, name: str) -> subprocess.Popen[str]:
    """A `join --bot` peer with its own data directory (off the host's disk)."""
    proc = subprocess.Popen(_cli("join", f"127.0.0.1:{port}", "--bot", "--name", name,
                                 "--data-dir", str(tmp / f"peer-{name}")),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(tmp))
    _SPAWNED.append(proc)
    return proc


def match_dirs(data: Path) -> list[Path]:
    root = data / "matches"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def verify(d: Path, tmp: Path) -> tuple[int, str]:
    import io

    from p2p_burraco.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["verify", "--data-dir", str(tmp / "xdg"), str(d)])
    return rc, out.getvalue()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def closed_hands_on_disk(d: Path) -> None:
    """Every hand the result names has its record, and `verify` accepts the directory."""
    result = json.loads((d / "result.json").read_text())
    names = sorted(p.name for p in d.glob("hand-*.p2pb"))
    assert names == [f"hand-{i:03d}.p2pb" for i in range(1, result["hands"] + 1)], names


class Records:
    """The records of an intact journal, walked here (not with the code under test)."""

    def __init__(self, path: Path) -> None:
        import struct

        data = path.read_bytes()
        self.records: list[bytes] = []
        self.offsets: list[int] = []
        pos = 0
        while pos + 8 <= len(data):
            n, _ = struct.unpack_from(">II", data, pos)
            if pos + 8 + n > len(data):
                break
            self.offsets.append(pos)
            self.records.append(data[pos + 8:pos + 8 + n])
            pos += 8 + n


def scan_log(path: Path) -> Records:
    return Records(path)


BRISCOLA = ["--game", "briscola", "--players", "2", "--target", "361", "--clock", "60"]
"""A 2-seat Briscola that runs exactly --hands hands (no side reaches 361)."""


def _stop(peers: list[subprocess.Popen[str]]) -> None:
    for p in peers:
        p.send_signal(signal.SIGSTOP)


def _cont(peers: list[subprocess.Popen[str]]) -> None:
    for p in peers:
        p.send_signal(signal.SIGCONT)


def _finish_peers(peers: list[subprocess.Popen[str]], host: Host) -> None:
    for p in peers:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, out + err + "\n--- host ---\n" + "\n".join(host.lines)


# ------------------------------------------------------------------------- damage
def _stopped_mid_match(tmp: Path, hands: int, at: str) -> tuple[Host, list[Any], Path]:
    """A host killed with -9 while its peers are stopped (SIGSTOP) once `at` was said."""
    host = Host(tmp, [*BRISCOLA, "--hands", str(hands)])
    peers = [join(tmp, host.port, n) for n in ("ann", "bob")]
    host.wait_for(at)
    _stop(peers)
    host.kill9()
    assert not any("match over" in line for line in host.lines), "\n".join(host.lines)
    (d,) = match_dirs(host.data)
    return host, peers, d


def test_a_byte_flipped_inside_the_journal_stops_the_host_until_salvage(
        tmp_path: Path) -> None:
    rng = random.Random(_seed())
    host, peers, d = _stopped_mid_match(tmp_path, 4, r"hand 3 dealt")
    journal = d / "journal.p2pj"
    scan = scan_log(journal)
    import msgpack

    events = [msgpack.unpackb(b, raw=False).get("e") for b in scan.records]
    last_cp = max(i for i, e in enumerate(events) if e == "checkpoint")
    i = rng.randrange(1, last_cp)                       # a record with whole ones after it
    at = scan.offsets[i] + 8 + rng.randrange(len(scan.records[i]))
    print(f"flipping byte {at} (record {i} of {len(events)}, at {scan.offsets[i]})")
    data = bytearray(journal.read_bytes())
    data[at] ^= 0x5A
    journal.write_bytes(bytes(data))
    before = digest(journal)

    host.lines.append("--- restarted ---")
    since = len(host.lines)
    host.spawn(listen=False)
    assert host.finish(timeout=60) != 0, "\n".join(host.lines)
    said = "\n".join(host.lines[since:])
    assert str(journal) in said and f"byte {scan.offsets[i]}" in said and "--salvage" in said, said
    assert digest(journal) == before                    # nothing touched
    assert not (d / "result.json").exists()

    host.lines.append("--- restarted with --salvage ---")
    since = len(host.lines)
    host.spawn("--salvage")
    host.wait_for(r"salvage: .*kept as journal\.p2pj\.damaged-", since=since)
    host.wait_for(r"resumed from its journal", since=since)
    (aside,) = d.glob("journal.p2pj.damaged-*")
    assert digest(aside) == before                      # kept, byte for byte
    _cont(peers)
    assert host.finish() == 0, "\n".join(host.lines)
    _finish_peers(peers, host)
    closed_hands_on_disk(d)
    rc, out = verify(d, tmp_path)
    assert rc == 0, out


def test_a_damaged_first_record_or_a_lost_journal_is_reported_never_dropped(
        tmp_path: Path) -> None:
    rng = random.Random(_seed())
    host, peers, d = _stopped_mid_match(tmp_path, 3, r"hand 2 dealt")
    for p in peers:
        p.kill()
    journal = d / "journal.p2pj"
    scan = scan_log(journal)
    at = 8 + rng.randrange(len(scan.records[0]))
    print(f"flipping byte {at} of the first record")
    data = bytearray(journal.read_bytes())
    data[at] ^= 0x01
    journal.write_bytes(bytes(data))
    before = digest(journal)
    host.spawn(listen=False)
    assert host.finish(timeout=60) != 0, "\n".join(host.lines)
    assert f"{journal} is damaged at byte 0" in "\n".join(host.lines), "\n".join(host.lines)
    assert digest(journal) == before and match_dirs(host.data) == [d]   # no new match

    journal.unlink()                                    # now the journal is gone altogether
    since = len(host.lines)
    host.spawn(listen=False)
    assert host.finish(timeout=60) != 0, "\n".join(host.lines)
    said = "\n".join(host.lines[since:])
    assert "journal (journal.p2pj) is missing but 1 hand record(s)" in said, said
    assert str(d) in said and match_dirs(host.data) == [d]

    since = len(host.lines)
    host.spawn("--salvage")                             # set aside, reported; a new table
    host.wait_for(r"salvage: .*set aside with set-aside\.json", since=since)
    host.kill9()
    report = json.loads((d / "set-aside.json").read_text())
    assert report["hand_records"] == ["hand-001.p2pb"]
    rc, out = verify(d, tmp_path)                       # the closed hand still verifies
    assert rc == 0, out


# ------------------------------------------------------------------------- one host
def test_a_second_host_on_the_same_data_dir_refuses_naming_the_holder(tmp_path: Path) -> None:
    host = Host(tmp_path, [*BRISCOLA, "--hands", "2"])
    second = Host(tmp_path, [*BRISCOLA, "--hands", "2"], listen=False)
    assert second.finish(timeout=60) == 1, "\n".join(second.lines)
    said = "\n".join(second.lines)
    assert len(second.lines) == 1, said                 # one sentence
    assert str(host.data) in said and f"pid {host.proc.pid}" in said \
        and f"port {host.port}" in said, said
    assert not (host.data / "matches").exists() or not match_dirs(host.data)
    peers = [join(tmp_path, host.port, n) for n in ("ann", "bob")]
    assert host.finish() == 0, "\n".join(host.lines)
    _finish_peers(peers, host)
    (d,) = match_dirs(host.data)
    closed_hands_on_disk(d)
    rc, out = verify(d, tmp_path)
    assert rc == 0, out


def test_a_restart_with_other_options_says_so(tmp_path: Path) -> None:
    host, peers, d = _stopped_mid_match(tmp_path, 3, r"hand 2 dealt")
    before = digest(d / "journal.p2pj")
    args = host.args
    host.args = ["--game", "briscola", "--players", "4", "--hands", "3"]
    host.spawn(listen=False)
    assert host.finish(timeout=60) == 1, "\n".join(host.lines)
    said = host.lines[-1]
    assert str(d) in said and "--players 2" in said and "--players 4" in said \
        and "--fresh" in said, said
    assert digest(d / "journal.p2pj") == before and match_dirs(host.data) == [d]
    host.args = args                                    # the same options: it resumes
    since = len(host.lines)
    host.spawn()
    host.wait_for(r"resumed from its journal", since=since)
    _cont(peers)
    assert host.finish() == 0, "\n".join(host.lines)
    _finish_peers(peers, host)
    closed_hands_on_disk(d)
    rc, out = verify(d, tmp_path)
    assert rc == 0, out


# ------------------------------------------------------------------------- the lobby
def _wait_file(path: Path, text: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if text in path.read_text():
                return
        except OSError:
            pass
        time.sleep(0.02)
    raise AssertionError(f"{path} never said {text}")


def test_a_host_killed_while_the_lobby_fills_keeps_who_sat_where(tmp_path: Path) -> None:
    host = Host(tmp_path, [*BRISCOLA, "--hands", "2"])
    first = join(tmp_path, host.port, "ann")
    host.wait_for(r"ann sits at seat (\d)")
    seat = re.search(r"ann sits at seat (\d)", "\n".join(host.lines))
    assert seat is not None
    _wait_file(host.data / "lobby.json", '"ann"')          # durable: now the kill
    host.kill9()
    since = len(host.lines)
    host.spawn()
    host.wait_for(r"t1: lobby restored", since=since)
    host.wait_for(rf"ann \(seat {seat.group(1)}\) is back", since=since)
    second = join(tmp_path, host.port, "bob")
    assert host.finish() == 0, "\n".join(host.lines)
    _finish_peers([first, second], host)
    (d,) = match_dirs(host.data)
    result = json.loads((d / "result.json").read_text())
    assert [s["name"] for s in result["seats"]][int(seat.group(1))] == "ann"
    closed_hands_on_disk(d)
    rc, out = verify(d, tmp_path)
    assert rc == 0, out


# ------------------------------------------------------------------------- missing record
def test_a_hand_closed_in_the_journal_gets_its_record_back_on_restart(tmp_path: Path) -> None:
    """The journal has the event that closed hand 2, the disk has no record of it (the host
    died, or its disk filled, between the two): the restart writes it, byte for byte, and
    the match's result.json."""
    import msgpack

    host = Host(tmp_path, [*BRISCOLA, "--hands", "2", "--grace", "2"])
    peers = [join(tmp_path, host.port, n) for n in ("ann", "bob")]
    assert host.finish() == 0, "\n".join(host.lines)
    _finish_peers(peers, host)
    (d,) = match_dirs(host.data)
    record = (d / "hand-002.p2pb").read_bytes()
    journal = d / "journal.p2pj"
    scan = scan_log(journal)
    kinds = [msgpack.unpackb(b, raw=False).get("e") for b in scan.records]
    assert kinds[-2:] == ["checkpoint", "end"], kinds
    with open(journal, "r+b") as fh:                  # as the record write found it
        fh.truncate(scan.offsets[-2])
    (d / "hand-002.p2pb").unlink()
    (d / "result.json").unlink()
    since = len(host.lines)
    # the restored match had ended: it waits for its seats to hear the last hand_end (they
    # have gone), for the match's grace (2 s here), then writes its result
    host.spawn()
    assert host.finish() == 0, "\n".join(host.lines)
    assert "wrote the missing record(s) hand-002.p2pb" in "\n".join(host.lines[since:])
    assert (d / "hand-002.p2pb").read_bytes() == record
    closed_hands_on_disk(d)
    rc, out = verify(d, tmp_path)
    assert rc == 0, out


# ------------------------------------------------------------------------- disk full
@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs for the host's data directory (skipped where it cannot be mounted)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def _fill(disk: Path, leave: int) -> Path:
    """Fill the disk but `leave` bytes (a file that can be removed to free it)."""
    from diskfill import fill

    filler = disk / "filler"
    os.truncate(filler, max(0, fill(filler) - leave))
    return filler


def _disk_full_at_hand_two(tmp: Path, disk: Path, hands: int
                           ) -> tuple[Host, list[subprocess.Popen[str]], Path, Path]:
    leave = random.Random(_seed()).randrange(0, 12 * 1024)   # hand 2's journal cannot be
    print(f"leaving {leave} bytes free")                      # written to its end
    host = Host(tmp, [*BRISCOLA, "--hands", str(hands)], data=disk / "host")
    peers = [join(tmp, host.port, n) for n in ("ann", "bob")]
    host.wait_for(r"hand 2 dealt")
    filler = _fill(disk, leave)
    host.wait_for(r"disk full: " + re.escape(str(disk)))
    host.wait_for(r"t1: waits for the disk, no hand is dealt")      # it tried again: full
    (d,) = match_dirs(host.data)
    return host, peers, d, filler


def test_a_full_disk_stalls_the_table_and_it_goes_on_when_space_frees(
        tmp_path: Path, small_disk: Path) -> None:
    host, peers, d, filler = _disk_full_at_hand_two(tmp_path, small_disk, 3)
    line = next(x for x in host.lines if "disk full: " in x)
    assert "Traceback" not in "\n".join(host.lines)
    assert re.search(r"disk full: \S+$", line), line                   # one line, the path
    assert all(p.poll() is None for p in peers)                          # peers wait
    waits = next(i for i, x in enumerate(host.lines) if "waits for the disk" in x)
    filler.unlink()
    host.wait_for(r"the disk takes writes again; the match goes on")
    back = next(i for i, x in enumerate(host.lines) if "the disk takes writes again" in x)
    dealt = [x for x in host.lines[waits:back] if re.search(r"hand \d+ dealt", x)]
    assert not dealt, "\n".join(host.lines)                           # no hand dealt
    assert host.finish() == 0, "\n".join(host.lines)
    _finish_peers(peers, host)
    closed_hands_on_disk(d)
    rc, out = verify(d, tmp_path)
    assert rc == 0, out


def test_a_full_disk_then_a_restart_writes_the_missing_hand_record(
        tmp_path: Path, small_disk: Path) -> None:
    host, peers, d, filler = _disk_full_at_hand_two(tmp_path, small_disk, 3)
    host.kill9()
    filler.unlink()
    since = len(host.lines)
    host.spawn()
    host.wait_for(r"resumed from its journal", since=since)
    assert host.finish() == 0, "\n".join(host.lines)
    _finish_peers(peers, host)
    closed_hands_on_disk(d)
    rc, out = verify(d, tmp_path)
    assert rc == 0, out
