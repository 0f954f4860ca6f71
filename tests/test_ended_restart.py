"""A restarted host remembers its ended matches: a seat of a match that ended before the
restart, coming back, is told the match is over (`match_end`: the peer stops at once, exit
0) — never "our seat was given away" — and a pending rematch offer (TABLE-16) survives the
restart, as does the rematch table it opened, its seats kept for their people.

As separate OS processes: `kill -9` of the host, a peer stopped with SIGSTOP while its match
ends without it. Durable then visible: the offer is on disk before the `match_end` leaves,
and a rematch request is answered only once the table it opened is on disk, so a host
killed right after it answered still has them. Tests wait on the host's lines and files.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path

import msgpack
import pytest
from prockit import HostProcess, Spawned, cli, private_env, reaper
from test_durable import BRISCOLA, closed_hands_on_disk, match_dirs, verify

pytestmark = [pytest.mark.faults, pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]

_SPAWNED = Spawned()
_no_leftover_processes = reaper(_SPAWNED)

ARGS = ["--no-announce", *BRISCOLA, "--hands", "1", "--grace", "1", "--no-bot-replace"]
"""One hand of 2-seat Briscola; a seat away 1 s has abandoned (TABLE-9: the match ends)."""


def join(tmp: Path, port: int, name: str, *extra: str) -> subprocess.Popen[str]:
    return _SPAWNED.popen(cli("join", f"127.0.0.1:{port}", "--bot", "--name", name,
                              "--data-dir", str(tmp / f"peer-{name}"), *extra),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=private_env(tmp))


def _wait(cond: object, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():  # type: ignore[operator]
            return
        time.sleep(0.02)
    raise AssertionError(f"never: {what}")


def _ended_file(data: Path) -> dict[str, object]:
    try:
        return dict(msgpack.unpackb((data / "ended.msgpack").read_bytes(), raw=False,
                                    strict_map_key=False))
    except (OSError, ValueError):
        return {}


def test_table_16_a_restarted_host_tells_an_ended_seat_and_keeps_the_rematch_offer(
        tmp_path: Path) -> None:
    host = HostProcess(_SPAWNED, tmp_path, ARGS)
    ann = join(tmp_path, host.port, "ann")
    bob = join(tmp_path, host.port, "bob")
    host.wait_for(r"hand 1 dealt")
    mine = tmp_path / "peer-bob" / "identities" / "bob"
    _wait(lambda: any(mine.glob("matches/*/seeds/*.seed")), "bob holds its seat and hand")
    bob.send_signal(signal.SIGSTOP)              # away, its seat on its disk
    host.kill9()                                 # mid-hand: bob's connection is cut
    since = len(host.lines)
    host.spawn()                                 # the match resumes; bob does not come back
    host.wait_for(r"resumed from its journal", since=since)
    host.wait_for(r"t1: match over", since=since)
    assert host.finish() == 0, "\n".join(host.lines)
    out, err = ann.communicate(timeout=60)
    assert ann.returncode == 0, out + err
    (d,) = match_dirs(host.data)
    result = json.loads((d / "result.json").read_text())
    assert result["reason"] != "hands", result    # it ended without bob

    # a new run of the host, with a new table: bob, stopped all along, comes back to it
    since = len(host.lines)
    host.spawn()
    host.wait_for(r"remembers 2 seat\(s\) of ended matches and 1 open rematch offer",
                  since=since)
    bob.send_signal(signal.SIGCONT)
    out, err = bob.communicate(timeout=90)
    assert bob.returncode == 0 and "bob: match over" in out, out + err
    assert "given away" not in out + err, out + err

    # the offer outlived the restart: ann asks first (a new table, her old seat kept), the
    # host dies right after answering, and a third run still has the table and the offer
    ann2 = join(tmp_path, host.port, "ann", "--rematch", "t1")
    line = host.wait_for(r"t\d+: a rematch of t1", since=since)
    table = line.split(": a rematch")[0].split()[-1]
    assert table not in ("t1", "t2"), "\n".join(host.lines)   # t1 ended; t2 is the new default
    seat = [s["name"] for s in result["seats"]].index("ann")
    host.wait_for(rf"{table}: ann sits at seat {seat}", since=since)
    offers = _ended_file(host.data)["offers"]
    assert [o["new_table"] for o in offers] == [table], offers   # type: ignore[index]
    _wait(lambda: '"ann"' in (host.data / "lobby.json").read_text(), "lobby.json holds ann")
    host.kill9()
    since = len(host.lines)
    host.spawn()
    host.wait_for(rf"{table}: lobby restored", since=since)
    host.wait_for(rf"{table}: ann \(seat \d\) is back", since=since)
    intruder = join(tmp_path, host.port, "eve", "--table", table, "--seat", str(1 - seat))
    out, err = intruder.communicate(timeout=60)  # bob's seat is kept for bob
    assert intruder.returncode != 0 and "kept for a rematch" in out + err, out + err
    bob2 = join(tmp_path, host.port, "bob", "--rematch", "t1")
    assert host.finish() == 0, "\n".join(host.lines)
    for p in (ann2, bob2):
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, out + err + "\n--- host ---\n" + "\n".join(host.lines)
    rematch = [x for x in match_dirs(host.data) if x != d]
    assert len(rematch) == 1
    again = json.loads((rematch[0] / "result.json").read_text())
    assert again["table"] == table
    assert [s["name"] for s in again["seats"]] == [s["name"] for s in result["seats"]]
    closed_hands_on_disk(rematch[0])
    rc, out = verify(rematch[0], tmp_path)
    assert rc == 0, out
    assert not re.search(r"Traceback", "\n".join(host.lines))
