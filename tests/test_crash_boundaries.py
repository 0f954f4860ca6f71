"""A restart is invisible to peers (issue 46): the host of a recorded 4-seat Burraco hand is
killed (SIGKILL, by itself, `P2P_BURRACO_KILL_AT_RECORD`) right after journal record N is
durable, its replies still held, with four live `join --bot` peers; the same `host` command
again resumes, and the match must end exactly as the uninterrupted one (same hand result,
same standings, same reason) with `verify` exiting 0 on the host's copy and on every peer's.

EVERY boundary of the hand is killed at, by default. A run pays for its peers and its hand
once per chain, not once per kill: chain `c` of `CHAINS` is one match whose host is killed
at every reference boundary b ≡ c (mod CHAINS), in order, started again after each kill with
the next boundary as its kill point (`P2P_BURRACO_KILL_AT_RECORD` counts a record's index in
the journal file, whichever run of the host wrote the ones before it), then left to finish.
The chains are separate tests, so `-n auto` runs them side by side; each ends compared with
the uninterrupted reference. After each kill the journal is read: the host must have died
with exactly the reference's first b records on disk (not counting its own `resume` marks).
Some restarts (seeded) are also killed right after their own `resume` mark, before anything
else: a host killed again while it comes back.

Every run is reproducible (`P2P_BURRACO_TEST_SEED`, 4601 unless set: the host's first
dealer and match id, each peer's secrets; fixed identity keys, fixed seats, seeded bots), so
only the kills differ; the order in which the four peers' concurrent messages reach the journal does vary,
which is why the hand's *result* is compared, not its bytes. The kill-at-resume choice comes
from `P2P_BURRACO_BOUNDARY_SEED` (printed). `P2P_BURRACO_CHAINS=N` splits the boundaries into
N chains (default 4); `P2P_BURRACO_BOUNDARIES=a,b,...` kills at those only (one chain each);
`P2P_BURRACO_HANDS=N` plays an N-hand match (default 1; 2 adds the boundaries between two
hands: a hand's close before its checkpoint, the next deal), about twice the time.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from prockit import Spawned, cli, private_env, reaper

pytestmark = [pytest.mark.faults, pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]

RUN_SEED = int(os.environ.get("P2P_BURRACO_TEST_SEED", "4601"))
"""The match (dealer, match id, identities, every peer's secrets): another seed, another hand."""
NAMES = ["ann", "bea", "cid", "dan"]
CHAINS = int(os.environ.get("P2P_BURRACO_CHAINS", "4"))
HANDS = int(os.environ.get("P2P_BURRACO_HANDS", "1"))
BOUNDARY_SEED = int(os.environ.get("P2P_BURRACO_BOUNDARY_SEED", "46"))
RESUME_KILLS = 8
"""About one restart in this many is killed again right after its own `resume` mark."""

_SPAWNED = Spawned()
_no_leftover_processes = reaper(_SPAWNED)


def _env(tmp: Path, kill_at: int | None = None) -> dict[str, str]:
    env = private_env(tmp)
    env["P2P_BURRACO_TEST_SEED"] = str(RUN_SEED)
    env.pop("P2P_BURRACO_KILL_AT_RECORD", None)
    if kill_at is not None:
        env["P2P_BURRACO_KILL_AT_RECORD"] = str(kill_at)
    return env


def _write_key(path: Path, seed: bytes) -> None:
    from p2p_burraco.net.identity import IDENTITY_FILE

    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    key = path / IDENTITY_FILE
    key.write_bytes(seed)
    os.chmod(key, 0o600)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _journal_kinds(match_dir: Path) -> list[str]:
    """The kind of every record of a match's journal after its header, in order."""
    import msgpack

    from p2p_burraco.storage.files import read_records
    from p2p_burraco.storage.journal import JOURNAL

    raw, _ = read_records(match_dir / JOURNAL)
    return [str(msgpack.unpackb(r, raw=False).get("e")) for r in raw[1:]]


class Match:
    """One recorded match: a host process (started again after every kill, same command and
    port) and four `join --bot` peers that live through all of it."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        rng = random.Random(RUN_SEED)
        _write_key(tmp / "host" / "host", rng.randbytes(32))
        for name in NAMES:
            _write_key(tmp / "peers" / "identities" / name, rng.randbytes(32))
        self.port = _free_port()
        self.lines: list[str] = []
        self.bots: list[subprocess.Popen[str]] = []
        self.host: subprocess.Popen[str] | None = None

    def start_host(self, kill_at: int | None) -> None:
        self.lines.append(f"--- host started, kill at {kill_at} ---")
        proc = _SPAWNED.popen(
            cli("host", "--pause", "0", "--port", str(self.port), "--data-dir",
                str(self.tmp / "host"), "--game", "burraco", "--players", "4", "--hands", str(HANDS),
                "--grace", "120"),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=_env(self.tmp, kill_at))
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)
        self.host = proc
        self.since = len(self.lines)

    def start_peers(self) -> None:
        self.wait(r"listening on")
        for seat, name in enumerate(NAMES):
            self.bots.append(_SPAWNED.popen(
                cli("join", f"127.0.0.1:{self.port}", "--bot", "--name", name, "--seat",
                    str(seat), "--seed", str(seat), "--data-dir", str(self.tmp / "peers")),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(self.tmp)))

    def read(self) -> None:
        assert self.host is not None and self.host.stdout is not None
        try:
            chunk = self.host.stdout.read()
        except (BlockingIOError, TypeError):
            return
        if chunk:
            self.lines.extend(chunk.splitlines())

    def wait(self, pattern: str, timeout: float = 120) -> str:
        """The first line of this run of the host matching `pattern` (polling its output
        as it comes); an AssertionError with everything it said if it exits or `timeout`
        passes first."""
        assert self.host is not None
        deadline = time.monotonic() + timeout
        while True:
            self.read()
            for line in self.lines[self.since:]:
                if re.search(pattern, line):
                    return line
            if self.host.poll() is not None:
                self.read()
                if any(re.search(pattern, line) for line in self.lines[self.since:]):
                    continue
                break
            if time.monotonic() > deadline:
                break
            time.sleep(0.01)
        raise AssertionError(f"no {pattern!r} from the host:\n" + self.log())

    def killed(self, at: int) -> None:
        """The host killed itself at journal record `at`."""
        assert self.host is not None
        self.wait(rf"killed at journal record {at} ")
        rc = self.host.wait(30)
        assert rc == -signal.SIGKILL, f"host exited {rc}, not killed:\n" + self.log()

    def match_dir(self) -> Path:
        (d,) = [p for p in (self.tmp / "host" / "matches").iterdir() if p.is_dir()]
        return d

    def finish(self) -> dict[str, Any]:
        """Let the last run of the host end the match: what it ended with."""
        assert self.host is not None
        try:
            self.host.wait(180)
        except subprocess.TimeoutExpired:
            self.host.kill()
            self.host.wait()
            self.read()
            raise AssertionError("the host did not finish:\n" + self.log()) from None
        self.read()
        assert self.host.returncode == 0, self.log()
        outs = []
        for name, b in zip(NAMES, self.bots, strict=True):
            try:
                out, err = b.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                b.kill()
                out, err = b.communicate()
                raise AssertionError(f"peer {name} did not finish: {out}{err}\n--- host ---\n"
                                     + self.log()) from None
            assert b.returncode == 0 and "match over" in out, \
                f"peer {name}: {out}{err}\n--- host ---\n" + self.log()
            outs.append(out.strip())
        d = self.match_dir()
        result = json.loads((d / "result.json").read_text())
        from p2p_burraco.fairdeal.transcript import Transcript

        hands = [(Transcript.load(str(f)).hand_end or {}).get("result")
                 for f in sorted(d.glob("hand-*.p2pb"))]
        kinds = _journal_kinds(d)
        copies = sorted((self.tmp / "peers" / "identities").glob("*/matches/*"))
        assert len(copies) == len(NAMES), copies
        for copy in [d, *copies]:
            rc, said = _verify(copy, self.tmp)
            assert rc == 0, f"verify {copy}: exit {rc}\n{said}\n--- host ---\n" + self.log()
            theirs = [(Transcript.load(str(f)).hand_end or {}).get("result")
                      for f in sorted(copy.glob("hand-*.p2pb"))]
            assert theirs == hands, f"{copy} holds other hands than the host's:\n" + self.log()
        return {"reason": result["reason"], "standings": result["standings"],
                "hands": hands, "peers": outs, "kinds": kinds}

    def log(self) -> str:
        return "\n".join(self.lines)


def _verify(d: Path, tmp: Path) -> tuple[int, str]:
    import contextlib
    import io

    from p2p_burraco.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["verify", "--data-dir", str(tmp / "peers"), str(d)])
    return rc, out.getvalue()


def _new_dir(base: Path, name: str) -> Path:
    tmp = base / name
    n = 1
    while tmp.exists():
        n += 1
        tmp = base / f"{name}-{n}"
    tmp.mkdir()
    return tmp


def play(base: Path, kills: list[int], rng: random.Random | None = None,
         closings: tuple[int, ...] = ()) -> dict[str, Any]:
    """One run of the recorded match whose host is killed at each reference boundary of
    `kills` (ascending; [] = never): what it ended with. `rng` picks the restarts also
    killed right after their own `resume` mark: not after a record of `closings` (the
    events that closed a hand: the restart first writes the checkpoint the hand's close
    lacks), nor past the last (no hand to resume: no `resume`, the result goes out once
    the seats are back)."""
    m = Match(_new_dir(base, f"run-{kills[0] if kills else 'ref'}"))
    target = kills[0] if kills else None    # the record index in the file to kill at
    m.start_host(target)
    m.start_peers()
    for i, b in enumerate(kills):
        assert target is not None
        m.killed(target)
        kinds = _journal_kinds(m.match_dir())
        on_disk = len(kinds)
        table_records = sum(k != "resume" for k in kinds)
        assert (on_disk, table_records) == (target, b), \
            (f"killed at boundary {b} (record {target}), but {on_disk} records on disk, "
             f"{table_records} of the table's:\n" + m.log())
        if rng is not None and rng.randrange(RESUME_KILLS) == 0 and closings \
                and b < closings[-1] and b not in closings:
            m.start_host(on_disk + 1)          # its `resume` mark, then nothing
            m.killed(on_disk + 1)
            assert _journal_kinds(m.match_dir())[-1] == "resume", m.log()
            on_disk += 1
        nxt = kills[i + 1] if i + 1 < len(kills) else None
        # the restart journals its `resume` mark first (one record more on disk)
        target = None if nxt is None else on_disk + 1 + (nxt - table_records)
        m.start_host(target)
    return m.finish()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    ref = play(tmp_path_factory.mktemp("reference"), [])
    assert ref["hands"] and all(h is not None for h in ref["hands"]), ref
    assert "resume" not in ref["kinds"], ref["kinds"]
    return ref


def _chain(total: int, chain: int) -> list[int]:
    listed = os.environ.get("P2P_BURRACO_BOUNDARIES")
    if listed:
        picked = sorted(int(x) for x in listed.split(","))
        return picked[chain:chain + 1] if chain < len(picked) else []
    return list(range(1 + chain, total + 1, CHAINS))


def _chains() -> int:
    listed = os.environ.get("P2P_BURRACO_BOUNDARIES")
    return len(listed.split(",")) if listed else CHAINS


@pytest.mark.timeout(900)
@pytest.mark.parametrize("chain", range(_chains()))
def test_host_killed_at_every_journal_record_boundary_ends_as_uninterrupted(
        tmp_path: Path, reference: dict[str, Any], chain: int) -> None:
    total = sum(k != "end" for k in reference["kinds"])      # `end` is no table event
    kills = _chain(total, chain)
    if not kills:
        pytest.skip(f"no boundary for chain {chain}")
    rng = random.Random(f"{BOUNDARY_SEED}/{chain}")
    print(f"P2P_BURRACO_BOUNDARY_SEED={BOUNDARY_SEED}, P2P_BURRACO_TEST_SEED={RUN_SEED}: "
          f"chain {chain} of {_chains()} kills the host at journal records {kills} of "
          f"{total}")
    # a hand's closing event is the record before its checkpoint
    closings = tuple(i for i, k in enumerate(reference["kinds"]) if k == "checkpoint")
    run = play(tmp_path, kills, rng, closings)
    for key in ("reason", "standings", "hands"):
        assert run[key] == reference[key], \
            f"chain {chain} ({kills}): {key} {run[key]!r} != {reference[key]!r}"
