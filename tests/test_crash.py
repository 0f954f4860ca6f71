"""Machines that fail, as separate OS processes on 127.0.0.1 (issue 11's acceptance runs):

- `kill -9` of the host mid-hand, then the same `host` command again: the four `--bot` peers
  finish the match without being restarted, every hand verifies, no hand was voided;
- `kill -9` of a peer started without `--data-dir` mid-hand, then the same `join` again: it
  gets its seat back with no flag, the hand finishes and verifies, nobody is blamed;
- a 2-seat Briscola with `--clock 3` where one player (a console nobody types into) never
  moves: the match ends on its own and result.json says the idle player lost by timeout with
  the seed's points and victory points (TABLE-4, BRISCOLA-24, BRISCOLA-26).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prockit import HostProcess, Spawned, cli, private_env, reaper

pytestmark = [pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]


_SPAWNED = Spawned()
"""Every process a test started: none outlives its test, pass or fail."""
_no_leftover_processes = reaper(_SPAWNED)
_popen, _cli, _env = _SPAWNED.popen, cli, private_env


class Host(HostProcess):
    """`p2p-burraco host` in a subprocess, its output followed line by line
    (tests/prockit.HostProcess)."""

    def __init__(self, tmp: Path, args: list[str], port: int = 0) -> None:
        super().__init__(_SPAWNED, tmp, args, port=port)

    def wait_for(self, pattern: str, timeout: float = 30, since: int = 0) -> str:
        return super().wait_for(pattern, timeout, since)

    def restart(self) -> None:
        """The same command again (same port, same data directory)."""
        self.lines.append("--- restarted ---")
        self.spawn()

    def finish(self, timeout: float = 60) -> int:
        return super().finish(timeout)


def join(tmp: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    return _popen(_cli("join", f"127.0.0.1:{port}", *extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(tmp))


def match_dir(tmp: Path) -> Path:
    (d,) = [p for p in (tmp / "host" / "matches").iterdir() if p.is_dir()]
    return d


def verify(paths: list[Path], tmp: Path) -> subprocess.CompletedProcess[str]:
    """`p2p-burraco verify` (in this process: the command's code is the same)."""
    import contextlib
    import io

    from p2p_burraco.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["verify", "--data-dir", str(tmp / "xdg"), *map(str, paths)])
    return subprocess.CompletedProcess(["verify"], rc, out.getvalue(), "")


def outcomes(d: Path) -> list[str]:
    from p2p_burraco.fairdeal.transcript import Transcript

    return [str((Transcript.load(str(f)).hand_end or {}).get("outcome", {}).get("kind"))
            for f in sorted(d.glob("hand-*.p2pb"))]


def kill_seed() -> int:
    """The seed of a random kill moment: P2PB_KILL_SEED, else a fresh one; printed, and
    in every failure message (the host's lines carry it), so a failing moment reruns."""
    given = os.environ.get("P2PB_KILL_SEED")
    return int(given) if given else random.SystemRandom().randrange(2**32)


def test_host_killed_mid_hand_resumes_and_the_bots_finish(tmp_path: Path) -> None:
    host = Host(tmp_path, ["--game", "burraco", "--players", "4", "--hands", "3"])
    bots = [join(tmp_path, host.port, "--bot") for _ in range(4)]
    seed = kill_seed()
    moment = random.Random(seed).uniform(0.0, 0.6)      # somewhere in the deal or the play
    said = (f"--- killed {moment:.3f} s after the first deal "
            f"(P2PB_KILL_SEED={seed} to run this moment again) ---")
    print(said)
    host.wait_for(r"hand 1 dealt")
    host.lines.append(said)
    time.sleep(moment)
    host.kill9()
    assert not any("match over" in line for line in host.lines), \
        "the match ended before the kill: nothing to resume\n" + "\n".join(host.lines)
    host.restart()
    host.wait_for(r"resumed from its journal")
    assert host.finish() == 0, "\n".join(host.lines)
    for b in bots:
        out, err = b.communicate(timeout=60)
        assert b.returncode == 0 and "match over" in out, \
            out + err + "\n--- host ---\n" + "\n".join(host.lines)
    d = match_dir(tmp_path)
    kinds = outcomes(d)
    assert kinds and all(k == "scored" for k in kinds), kinds     # no hand was voided
    result = json.loads((d / "result.json").read_text())
    assert result["reason"] in ("hands", "target")
    proc = verify([d], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_peer_killed_mid_hand_comes_back_with_the_same_command(tmp_path: Path) -> None:
    host = Host(tmp_path, ["--game", "briscola", "--players", "2", "--hands", "3",
                           "--target", "361", "--clock", "60"])     # 3 hands exactly
    other = join(tmp_path, host.port, "--bot", "--name", "steady")
    victim_cmd = ("--bot", "--name", "phoenix")                  # no --data-dir
    victim = join(tmp_path, host.port, *victim_cmd)
    host.wait_for(r"hand 2 dealt")                               # a hand is under way
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    host.wait_for(r"phoenix \(seat \d\) dropped")
    again = join(tmp_path, host.port, *victim_cmd)               # the same command again
    host.wait_for(r"phoenix \(seat \d\) is back")
    assert host.finish() == 0, "\n".join(host.lines)
    for p in (other, again):
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, out + err
    d = match_dir(tmp_path)
    kinds = outcomes(d)
    assert kinds == ["scored"] * 3                               # nobody blamed
    proc = verify([d], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_idle_briscola_player_loses_by_timeout(tmp_path: Path) -> None:
    """TABLE-4, BRISCOLA-24, BRISCOLA-26: a console nobody types into, `--clock 3`."""
    import pty

    host = Host(tmp_path, ["--game", "briscola", "--players", "2", "--clock", "2",
                           "--hands", "1"])
    bot = join(tmp_path, host.port, "--bot", "--name", "busy")
    pid, fd = pty.fork()
    if pid == 0:                                                  # the idle person's console
        os.environ.update(_env(tmp_path))
        os.environ["TERM"] = "xterm"
        os.execv(sys.executable, _cli("join", f"127.0.0.1:{host.port}", "--name", "idle"))
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and host.proc.poll() is None:
            try:
                os.read(fd, 65536)                               # keep the terminal drained
            except OSError:
                break
            time.sleep(0.05)
        assert host.finish(timeout=30) == 0, "\n".join(host.lines)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    bot.communicate(timeout=30)
    result = json.loads((match_dir(tmp_path) / "result.json").read_text())
    assert result["reason"] == "timeout"
    idle = next(s["seat"] for s in result["seats"] if s["name"] == "idle")
    last = result["last_hand"]["outcome"]
    assert last["kind"] == "abandon" and last["seat"] == idle and last["cause"] == "timeout"
    standings = result["standings"]
    assert standings["winner"] == 1 - idle and standings["abandoned_by"] == idle
    vp = standings["victory_points"]
    assert vp[idle] == 0 and vp[1 - idle] >= 14                    # BRISCOLA-26
