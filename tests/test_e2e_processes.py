"""End to end, as separate OS processes on 127.0.0.1: `p2p-burraco host` and `join --bot`
peers finish whole matches; every transcript the host wrote passes `p2p-burraco verify`.
(Four `join --bot` peers finishing a Burraco match, through a `kill -9` of the host even,
is tests/test_crash.py.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]

TIMEOUT = 90.0


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "p2p_burraco", *args]


def spawn_host(data_dir: Path, *args: str) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(_cli("host", "--pause", "0", "--port", "0", "--data-dir", str(data_dir), *args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    proc.kill()
    raise AssertionError(f"host did not start: {proc.stderr.read() if proc.stderr else ''}")


def spawn_bot(port: int, data_dir: Path, name: str) -> subprocess.Popen[str]:
    return subprocess.Popen(_cli("join", f"127.0.0.1:{port}", "--bot", "--name", name,
                                 "--data-dir", str(data_dir)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(procs: list[subprocess.Popen[str]]) -> list[tuple[int, str, str]]:
    deadline = time.monotonic() + TIMEOUT
    out = []
    try:
        for p in procs:
            o, e = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
            out.append((p.returncode, o, e))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return out


def match_dirs(data_dir: Path) -> list[Path]:
    """Each match's own directory (`<date>-<match id>`)."""
    return sorted(d for d in (data_dir / "matches").iterdir() if d.is_dir())


def verify_all(data_dir: Path) -> list[Path]:
    files = sorted((data_dir / "matches").rglob("hand-*.p2pb"))
    assert files, f"no transcript under {data_dir}"
    proc = subprocess.run(_cli("verify", *map(str, files)), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return files


def run_match(tmp_path: Path, host_args: list[str], n_bots: int) -> list[tuple[int, str, str]]:
    host_dir = tmp_path / "host"
    host, port = spawn_host(host_dir, *host_args)
    bots = [spawn_bot(port, tmp_path / f"bot{i}", f"bot{i}") for i in range(n_bots)]
    results = finish([*bots, host])
    for rc, out, err in results:
        assert rc == 0, f"exit {rc}\n{out}\n{err[-3000:]}"
    (match,) = match_dirs(host_dir)
    assert (match / "result.json").exists() and (match / "journal.p2pj").exists()
    verify_all(host_dir)
    return results


def test_briscola_two_bots_finish_a_game(tmp_path: Path) -> None:
    results = run_match(tmp_path, ["--game", "briscola", "--players", "2", "--hands", "1"], 2)
    assert all("match over" in out for _, out, _ in results[:2])


def test_host_seats_its_own_bots_over_loopback(tmp_path: Path) -> None:
    host_dir = tmp_path / "host"
    host, _port = spawn_host(host_dir, "--game", "briscola", "--players", "2", "--bots", "2",
                             "--hands", "1")
    ((rc, out, err),) = finish([host])
    assert rc == 0, err[-2000:]
    assert "table t1: 1 hand(s)" in out
    (match,) = match_dirs(host_dir)
    result = json.loads((match / "result.json").read_text())
    assert [s["bot"] for s in result["seats"]] == [True, True]
    verify_all(host_dir)


def test_join_with_no_host_fails_clearly(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]       # a port nobody listens on once closed
    proc = subprocess.run(_cli("join", f"127.0.0.1:{port}", "--bot"), capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 1 and "cannot reach the host" in proc.stderr


def test_join_refuses_a_bad_address() -> None:
    proc = subprocess.run(_cli("join", "127.0.0.1:notaport", "--bot"), capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2 and "HOST[:PORT]" in proc.stderr
