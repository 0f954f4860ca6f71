"""The host's own bots on a full disk (`host --bots N`), as separate OS processes on a real
4 MB tmpfs.

A host bot is a real peer inside the host process whose identity, per-hand seeds, signed
statements and copies of the hands live under `<data-dir>/host/bots/<name>/` — on the host's
disk, beside the journal. We keep them there (not in memory): a host killed mid-hand brings
its bots back where they were, seeds included, and a seed held only in memory would be lost
with the process, leaving the hand unable to finish. So a full disk must stall them with
their table: a seed a bot cannot write is never committed to, the bot stops as a crash
would leave it (no traceback, no "bug"), the host says `disk full: PATH` in one line, stalls
the table (no clock runs, no hand is dealt), and once the disk takes writes it rebuilds the
table from its journal and restarts the bot from its own files; the match ends as any other,
every closed hand's record on disk, `verify` exit 0 on the host's copy and the peer's.

A seed picks the hand and the bot's write that meets ENOSPC: its seed for that hand (before
its commitment), its match record as the hand closes (its sign-off already saved: the
restarted bot sends it again and folds the hand in), or its own copy of the hand's record
(after the host wrote its own). DISKBOTS_SEED=N replays one.
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest
from diskfill import FILL, command
from prockit import HostProcess, Spawned, reaper
from test_durable import (
    BRISCOLA,
    _finish_peers,
    closed_hands_on_disk,
    join,
    match_dirs,
    small_disk,  # noqa: F401  (the tmpfs fixture)
    verify,
)

pytestmark = [pytest.mark.faults, pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]

_SPAWNED = Spawned()
_no_leftover_processes = reaper(_SPAWNED)

HANDS = 3


class FillingHost(HostProcess):
    """`p2p-burraco host --bots 1` through tests/diskfill.py."""

    command = staticmethod(command)

    def __init__(self, tmp: Path, data: Path) -> None:
        super().__init__(_SPAWNED, tmp, ["--no-announce", *BRISCOLA, "--hands", str(HANDS),
                                         "--bots", "1"], data)


def _moment() -> str:
    seed = int(os.environ.get("DISKBOTS_SEED") or random.SystemRandom().randrange(10**6))
    rng = random.Random(seed)
    hand = rng.randrange(2, HANDS + 1)
    # its seed (before the commitment), its match record as the hand closes (after its
    # sign-off is saved: the restarted bot must fold the hand in), its copy of the record
    # (not the last hand's copy: that one is written after the match is over, with
    # nothing left to stall)
    copy = min(hand, HANDS - 1)
    which = rng.choice((f"*.seed#{hand}", f"record.bin#{2 * hand}", f"hand-{copy:03d}.p2pb#2"))
    print(f"DISKBOTS_SEED={seed}: the disk fills before the bot writes {which}")
    return which


def test_a_full_disk_stalls_the_hosts_bots_with_their_table_and_they_resume_with_it(
        tmp_path: Path, small_disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    which = _moment()
    filler = small_disk / "filler"
    monkeypatch.setenv(FILL, f"before:{which}:{filler}")
    host = FillingHost(tmp_path, small_disk / "host")
    peer = join(tmp_path, host.port, "ann")
    host.wait_for(r"diskfill: the disk is full before")
    line = host.wait_for(r"disk full: ")
    bots = re.escape(str(small_disk / "host"))
    assert re.search(rf"disk full: {bots}/\S+$", line), line       # one line, the path
    host.wait_for(r"t1: waits for the disk, no hand is dealt")
    said = "\n".join(host.lines)
    assert "Traceback" not in said and "internal error" not in said and "bug" not in said, said
    assert peer.poll() is None                                      # the person waits
    waits = next(i for i, x in enumerate(host.lines) if "waits for the disk" in x)
    filler.unlink()
    host.wait_for(r"the disk takes writes again; the match goes on")
    back = next(i for i, x in enumerate(host.lines) if "the disk takes writes again" in x)
    assert not [x for x in host.lines[waits:back] if re.search(r"hand \d+ dealt", x)]
    assert host.finish() == 0, "\n".join(host.lines)
    _finish_peers([peer], host)                  # type: ignore[arg-type]
    assert "stopped" not in "\n".join(host.lines[back:]), "\n".join(host.lines)
    (d,) = match_dirs(host.data)
    closed_hands_on_disk(d)
    rc, out = verify(d, tmp_path)
    assert rc == 0, out
    (own,) = (tmp_path / "peer-ann" / "identities" / "ann" / "matches").iterdir()
    rc, out = verify(own, tmp_path)
    assert rc == 0, out


def test_a_host_bot_that_cannot_sit_down_for_the_disk_sits_down_once_it_can(
        tmp_path: Path, small_disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Before the match: no journal to stall, the table waits for its seats anyway. The bot
    whose seat the disk refused to note (seat.json) leaves the seat in one line, and the same
    bot takes it again once the disk takes writes; then the match plays as any other."""
    filler = small_disk / "filler"
    monkeypatch.setenv(FILL, f"before:seat.json:{filler}")
    host = FillingHost(tmp_path, small_disk / "host")
    host.wait_for(r"diskfill: the disk is full before seat\.json")
    line = host.wait_for(r"disk full: ")
    assert re.search(r"disk full: \S+/host/bots/bot-1/seat\.json$", line), line
    since = len(host.lines)
    filler.unlink()
    host.wait_for(r"t1: bot-1 sits at seat 0 \(a host bot\)", since=since)
    said = "\n".join(host.lines)
    assert "Traceback" not in said and "internal error" not in said, said
    peer = join(tmp_path, host.port, "ann")
    assert host.finish() == 0, "\n".join(host.lines)
    _finish_peers([peer], host)                  # type: ignore[arg-type]
    (d,) = match_dirs(host.data)
    closed_hands_on_disk(d)
    rc, out = verify(d, tmp_path)
    assert rc == 0, out
