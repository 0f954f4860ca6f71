"""A club night end to end over loopback TCP, as OS processes: the director's
`p2p-burraco tournament`, players registering with `join --bot` (and `tournament bots`, N bot
players in one process, to keep the suite within its time), every round played, and
`tournament verify` exit 0 on the directory (TOURN-13, TOURN-15).

Two sizes: small ones (Mitchell: 4 pairs, 2 rounds of 2 hands; Danish: 3 pairs, 2 rounds of
2 hands, greedy bots) and the issue's full size (`test_full_size_*`: a 4-table Mitchell of 8
pairs, and a Danish of 9 pairs with a bye, each 3 rounds of 3 hands), all in the fault tier
(`-m faults`), where time is not counted against the quick suite.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.faults, pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]

TIMEOUT = 150.0


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "p2p_burraco", *args]


def spawn_director(tmp: Path, *args: str) -> tuple[subprocess.Popen[str], int, int | None]:
    proc = subprocess.Popen(_cli("tournament", "--port", "0", "--data-dir", str(tmp / "host"),
                                 "--dir", str(tmp / "event"), "--auto-next", "--seed", "11",
                                 *args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    port = web = None
    seen_records = False
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"join 127\.0\.0\.1:(\d+)", line)
        if m:
            port = int(m.group(1))
        m = re.search(r"standings page: http://127\.0\.0\.1:(\d+)/", line)
        if m:
            web = int(m.group(1))
        seen_records = seen_records or "records in" in line
        if seen_records and port is not None and (web is not None or "--web" not in args):
            return proc, port, web
    proc.kill()
    raise AssertionError(f"director did not start: {proc.stderr.read() if proc.stderr else ''}")


def finish(procs: list[subprocess.Popen[str]],
           timeout: float = TIMEOUT) -> list[tuple[int, str, str]]:
    deadline = time.monotonic() + timeout
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


def verify(tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_cli("tournament", "verify", str(tmp / "event"), "--data-dir",
                               str(tmp / "host"), "--csv", str(tmp / "standings.csv")),
                          capture_output=True, text=True, timeout=120)


def test_tourn_13_15_mitchell_with_join_bot_peers_verifies(tmp_path: Path) -> None:
    director, port, web = spawn_director(tmp_path, "--format", "mitchell", "--rounds", "2",
                                         "--hands", "2", "--start-when", "8", "--web", "0",
                                         "--strategy", "greedy")
    assert web is not None
    page = urllib.request.urlopen(f"http://127.0.0.1:{web}/", timeout=10).read().decode()
    assert "Classifica" in page and 'http-equiv="refresh"' in page
    state = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{web}/standings.json",
                                              timeout=10).read())
    assert state["state"] == "registering" and "registration open" in state["status"][0]
    joins = [subprocess.Popen(_cli("join", f"127.0.0.1:{port}", "--bot", "--strategy", "greedy",
                                   "--name", name, "--table", "AnnBob", "--data-dir",
                                   str(tmp_path / name)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("Ann", "Bob")]
    others = subprocess.Popen(_cli("tournament", "bots", f"127.0.0.1:{port}", "6",
                                   "--strategy", "greedy", "--seed", "5"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = finish([director, *joins, others])
    for rc, out, err in results:
        assert rc == 0, out + err
    d_out = results[0][1]
    assert "the tournament is over" in d_out
    assert "AnnBob" in d_out                       # the named line played as one
    for _rc, out, _ in results[1:3]:
        assert "match over" in out
    signed = json.loads((tmp_path / "event" / "standings.json").read_text())
    body = signed["body"]
    assert body["complete"] and len(body["rounds"]) == 2
    meets = [frozenset((t["a"][0], t["b"][0])) for r in body["rounds"] for t in r["tables"]]
    assert len(meets) == len(set(meets)) == 4       # no line met another twice (TOURN-7)
    proc = verify(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "every match fair" in proc.stdout
    rows = (tmp_path / "standings.csv").read_text().splitlines()
    assert rows[0].startswith("rank,entrant,name,vp,mp") and len(rows) == 5
    # a changed result no longer matches its signature
    signed["body"]["standings"][0]["vp"] += 1
    (tmp_path / "event" / "standings.json").write_text(json.dumps(signed))
    assert verify(tmp_path).returncode == 1


def test_tourn_6_15_danish_with_a_bye_verifies(tmp_path: Path) -> None:
    director, port, _ = spawn_director(tmp_path, "--format", "danish", "--rounds", "2",
                                       "--hands", "2", "--start-when", "6")
    bots = subprocess.Popen(_cli("tournament", "bots", f"127.0.0.1:{port}", "6",
                                 "--strategy", "greedy", "--seed", "9"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = finish([director, bots])
    for rc, out, err in results:
        assert rc == 0, out + err
    body = json.loads((tmp_path / "event" / "standings.json").read_text())["body"]
    assert all(len(r["byes"]) == 1 for r in body["rounds"])
    byes = [r["byes"][0] for r in body["rounds"]]
    assert len(set(byes)) == 2                      # no line has two byes (TOURN-10)
    for row in body["standings"]:
        assert row["played"] + row["byes"] == 2
    proc = verify(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_verify_says_what_is_not_a_tournament(tmp_path: Path) -> None:
    proc = subprocess.run(_cli("tournament", "verify", str(tmp_path)), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 3 and "not a tournament directory" in proc.stdout


def test_standings_page_screenshot_with_headless_chromium(tmp_path: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no `chromium` on this machine (Debian's chromium package): no screenshot")
    director, port, web = spawn_director(tmp_path, "--format", "mitchell", "--rounds", "1",
                                         "--hands", "2", "--start-when", "4", "--web", "0",
                                         "--players", "2", "--game", "briscola",
                                         "--hands", "1")
    try:
        shot = tmp_path / "standings.png"
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        f"--screenshot={shot}", "--window-size=1280,720",
                        f"http://127.0.0.1:{web}/"], capture_output=True, timeout=60)
        assert shot.exists() and shot.stat().st_size > 1000
    finally:
        director.kill()
        director.communicate()


@pytest.mark.timeout(900)
def test_tourn_13_15_full_size_mitchell_8_pairs_3_rounds_of_3_hands(tmp_path: Path) -> None:
    """The issue's Mitchell: 4 tables, 8 pairs of `join --bot` players (two real `join`
    processes forming one named line, the other 14 from `tournament bots`), 3 rounds of 3
    hands; no line meets another twice; `tournament verify` exits 0 (TOURN-7, TOURN-13)."""
    director, port, _ = spawn_director(tmp_path, "--format", "mitchell", "--rounds", "3",
                                       "--hands", "3", "--start-when", "16",
                                       "--strategy", "greedy")
    joins = [subprocess.Popen(_cli("join", f"127.0.0.1:{port}", "--bot", "--strategy", "greedy",
                                   "--name", name, "--table", "AnnBob", "--data-dir",
                                   str(tmp_path / name)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("Ann", "Bob")]
    others = subprocess.Popen(_cli("tournament", "bots", f"127.0.0.1:{port}", "14",
                                   "--strategy", "greedy", "--seed", "5"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = finish([director, *joins, others], timeout=800)
    for rc, out, err in results:
        assert rc == 0, out + err
    body = json.loads((tmp_path / "event" / "standings.json").read_text())["body"]
    assert body["complete"] and len(body["rounds"]) == 3
    assert all(len(r["tables"]) == 4 for r in body["rounds"])
    meets = [frozenset((t["a"][0], t["b"][0])) for r in body["rounds"] for t in r["tables"]]
    assert len(meets) == len(set(meets)) == 12
    proc = verify(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.timeout(900)
def test_tourn_6_15_full_size_danish_9_pairs_with_a_bye(tmp_path: Path) -> None:
    """The issue's Danish with an odd number of pairs: 9 pairs, 3 rounds of 3 hands, a bye
    each round and never twice to one line; `tournament verify` exits 0 (TOURN-6, TOURN-10)."""
    director, port, _ = spawn_director(tmp_path, "--format", "danish", "--rounds", "3",
                                       "--hands", "3", "--start-when", "18",
                                       "--strategy", "greedy")
    bots = subprocess.Popen(_cli("tournament", "bots", f"127.0.0.1:{port}", "18",
                                 "--strategy", "greedy", "--seed", "9"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = finish([director, bots], timeout=800)
    for rc, out, err in results:
        assert rc == 0, out + err
    body = json.loads((tmp_path / "event" / "standings.json").read_text())["body"]
    assert len(body["rounds"]) == 3 and all(len(r["byes"]) == 1 for r in body["rounds"])
    assert len({r["byes"][0] for r in body["rounds"]}) == 3
    proc = verify(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
