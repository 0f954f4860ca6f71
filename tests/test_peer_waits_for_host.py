"""A peer that holds a seat waits for its host (issue 46):

- first connection included: a seat kept on disk for this host is held, so an unreachable
  host is retried for the reconnect window, saying "host not reachable, retrying…" (in
  Italian too in the console), not given up at once;
- a seat returning after its match ended (it was stopped, or away, past the grace) is told
  the result by the host and stops cleanly, rather than retry or be told its seat was
  given away;
- as processes: a host and a peer killed together (kill -9) and started again together,
  the peer first: the peer waits for the host and the match finishes.
"""

from __future__ import annotations

import contextlib
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
from loopback import HoldingController, Loopback, LoopbackConnector, start_table
from prockit import Spawned, cli, private_env, reaper
from twisted.internet.error import ConnectionRefusedError
from twisted.python.failure import Failure

from p2p_burraco.bots import make_strategy
from p2p_burraco.console.words import engine_text
from p2p_burraco.net.host import HostConfig
from p2p_burraco.net.peer import PeerConfig, PeerNode
from p2p_burraco.table.events import LinkStatus, SeatEvent
from p2p_burraco.table.inprocess import BotController


def bot(game: str, seed: int) -> BotController:
    return BotController(make_strategy(game, "random", random.Random(seed)))


class Recorder:
    """A controller that records what it is told."""

    def __init__(self) -> None:
        self.events: list[SeatEvent] = []

    def notify(self, event: SeatEvent) -> None:
        self.events.append(event)

    def __getattr__(self, name: str) -> Any:
        return lambda *a, **k: None


def refusing(net: Loopback) -> Any:
    """A connector to a host that is not there (connection refused)."""
    def connect(factory: Any) -> None:
        net.clock.callLater(0, factory.clientConnectionFailed, None,
                            Failure(ConnectionRefusedError()))
    return connect


def test_a_seat_on_disk_waits_for_its_host_from_the_first_connection(tmp_path: Path) -> None:
    from p2p_burraco.storage.seatstore import FileSeatStore

    home = tmp_path / "identities" / "ann"
    FileSeatStore(home).save_seat({"host": "127.0.0.1", "port": 7777, "table": "t1",
                                   "seat": 2, "host_key": ""})
    net = Loopback()
    ctl = Recorder()
    peer = PeerNode(net.clock, PeerConfig(name="ann", data_dir=home, reconnect_for=60.0),
                    ctl, connector=refusing(net))
    peer.start()
    for _ in range(5):
        net.advance(1.0)
    assert not peer.done.called, "a peer holding a seat on disk gave up on its first try"
    said = [e for e in ctl.events if isinstance(e, LinkStatus)]
    assert said and said[-1].text.startswith("host not reachable, retrying…"), said
    from p2p_burraco.net.peer import UNREACHABLE

    assert said[-1].template == UNREACHABLE
    italian = engine_text("it", said[-1].text)
    assert italian.startswith("host non raggiungibile, nuovo tentativo…"), italian
    net.advance(120.0)
    assert peer.done.called                       # past its window: it stops, saying why
    failures: list[Failure] = []
    peer.done.addErrback(failures.append)
    assert "gave up" in failures[0].getErrorMessage()


def test_no_seat_on_disk_an_unreachable_host_is_reported_at_once(tmp_path: Path) -> None:
    net = Loopback()
    peer = PeerNode(net.clock, PeerConfig(name="new", data_dir=tmp_path / "new"), Recorder(),
                    connector=refusing(net))
    failures: list[Failure] = []
    peer.start().addErrback(failures.append)
    net.advance(0.1)
    assert failures and "cannot reach the host" in failures[0].getErrorMessage()


def test_a_seat_back_after_its_match_ended_hears_the_result_and_stops(tmp_path: Path) -> None:
    """The SIGSTOP case: away past the grace, the match ends by abandonment (no bot
    replaces it); when it comes back the host answers with the result."""
    net = Loopback()
    ctls = [HoldingController(bot("briscola", i)) for i in range(2)]
    for c in ctls:
        c.hold = True
    cfg = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                     hands=2, seed=4, grace=10.0, replace_lost_with_bot=False)
    host, peers = start_table(net, cfg, ctls)
    room = host.lobby.tables["t1"]
    (mover,) = [i for i, c in enumerate(ctls) if c.parked is not None]
    away = 1 - mover
    peers[away].connector = refusing(net)         # stopped: it reaches nobody for now
    link = next(lk for lk in net.links if lk.client is peers[away].conn)
    link.close()
    net.pump()
    ctls[mover].hold = False
    ctls[mover].release()
    for _ in range(40):
        net.advance(1.0)
        if room.status == "over":
            break
    assert room.status == "over" and room.reason == "abandonment"
    assert not peers[away].done.called
    peers[away].connector = LoopbackConnector(net, host)     # it runs again
    results: list[Any] = []
    peers[away].done.addBoth(results.append)
    for _ in range(30):
        net.advance(1.0)
        if results:
            break
    assert results and isinstance(results[0], dict), results
    assert results[0]["winner"] == mover


# --------------------------------------------------------------------------- processes
_SPAWNED = Spawned()
_reaper = reaper(_SPAWNED, autouse=False)


def _spawn(tmp: Path, *args: str) -> subprocess.Popen[str]:
    proc = _SPAWNED.popen(cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=private_env(tmp))
    os.set_blocking(proc.stdout.fileno(), False)   # type: ignore[union-attr]
    os.set_blocking(proc.stderr.fileno(), False)   # type: ignore[union-attr]
    return proc


def _read(stream: Any, into: list[str]) -> None:
    try:
        chunk = stream.read()
    except (BlockingIOError, TypeError):
        return
    if chunk:
        into.extend(chunk.splitlines())


def _wait(proc: subprocess.Popen[str], lines: list[str], pattern: str, stream: str = "stdout",
          timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _read(getattr(proc, stream), lines)
        if any(re.search(pattern, line) for line in lines):
            return
        if proc.poll() is not None:
            _read(getattr(proc, stream), lines)
            if any(re.search(pattern, line) for line in lines):
                return
            break
        time.sleep(0.02)
    raise AssertionError(f"no {pattern!r}:\n" + "\n".join(lines))


@pytest.mark.faults
@pytest.mark.slow
@pytest.mark.subprocess
@pytest.mark.network
def test_host_and_peer_killed_together_the_peer_started_first_waits(
        tmp_path: Path, _reaper: None) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    host_args = ("host", "--pause", "0", "--port", str(port), "--data-dir", str(tmp_path / "host"),
                 "--game", "burraco", "--players", "4", "--hands", "2")
    host = _spawn(tmp_path, *host_args)
    out: list[str] = []
    _wait(host, out, r"listening on")
    peer_args = ("join", f"127.0.0.1:{port}", "--bot", "--name", "phoenix",
                 "--data-dir", str(tmp_path / "peers"))
    victim = _spawn(tmp_path, *peer_args)
    others = [_spawn(tmp_path, "join", f"127.0.0.1:{port}", "--bot", "--name", f"b{i}",
                     "--data-dir", str(tmp_path / "peers")) for i in range(3)]
    _wait(host, out, r"hand 1 dealt")
    moment = random.Random(46).uniform(0.0, 0.5)
    print(f"killing host and peer {moment:.3f} s after hand 1 was dealt (seed 46)")
    time.sleep(moment)
    for proc in (host, victim):
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    _read(host.stdout, out)
    assert not any("match over" in line for line in out), "\n".join(out)
    again = _spawn(tmp_path, *peer_args)                     # the peer first
    err: list[str] = []
    _wait(again, err, r"host not reachable, retrying", stream="stderr")
    assert again.poll() is None, "\n".join(err)
    host = _spawn(tmp_path, *host_args)
    out.append("--- restarted ---")
    with contextlib.suppress(subprocess.TimeoutExpired):
        host.wait(150)
    _read(host.stdout, out)
    assert host.returncode == 0, "\n".join(out)
    for proc in (again, *others):
        proc.wait(60)
        assert proc.returncode == 0, (proc.stdout.read() or "") + (proc.stderr.read() or "") \
            + "\n--- host ---\n" + "\n".join(out)
    (d,) = [p for p in (tmp_path / "host" / "matches").iterdir() if p.is_dir()]
    result = json.loads((d / "result.json").read_text())
    assert result["reason"] in ("hands", "target"), result


@pytest.mark.faults
@pytest.mark.slow
@pytest.mark.subprocess
@pytest.mark.network
def test_a_peer_stopped_past_the_grace_hears_the_result_and_exits(
        tmp_path: Path, _reaper: None) -> None:
    """SIGSTOP a player mid-hand: the host drops it once it is silent (45 s), holds its
    seat for the grace (2 s), then ends the match (--no-bot-replace); SIGCONT: the player
    comes back, is told the match is over with the result and exits 0 at once — it does not
    retry for 600 s, nor say its seat was given away."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    host = _spawn(tmp_path, "host", "--pause", "0", "--port", str(port), "--data-dir", str(tmp_path / "host"),
                  "--game", "briscola", "--players", "2", "--grace", "2", "--clock", "300",
                  "--step-deadline", "300", "--no-bot-replace")
    out: list[str] = []
    _wait(host, out, r"listening on")
    steady = _spawn(tmp_path, "join", f"127.0.0.1:{port}", "--bot", "--name", "steady",
                    "--data-dir", str(tmp_path / "peers"))
    sleeper = _spawn(tmp_path, "join", f"127.0.0.1:{port}", "--bot", "--name", "sleeper",
                     "--data-dir", str(tmp_path / "peers"))
    _wait(host, out, r"hand 1 dealt")
    sleeper.send_signal(signal.SIGSTOP)
    _wait(host, out, r"sleeper \(seat \d\) dropped", timeout=120)
    _wait(host, out, r"match over", timeout=60)
    sleeper.send_signal(signal.SIGCONT)
    try:
        sleeper.wait(60)
    except subprocess.TimeoutExpired:
        raise AssertionError("the stopped peer keeps retrying a host whose match ended\n"
                             + "\n".join(out)) from None
    err: list[str] = []
    so: list[str] = []
    _read(sleeper.stderr, err)
    _read(sleeper.stdout, so)
    assert sleeper.returncode == 0, "\n".join(so + err)
    assert any("match over" in line for line in so), so
    steady.wait(30)
    assert steady.returncode == 0


def test_a_player_whose_match_ended_sits_down_anew_at_a_keep_host(tmp_path: Path) -> None:
    """The result a host gives a returning seat does not stop a peer that sits down anew
    with the same identity (a `--keep` host's next match): it sits at no ended table."""
    net = Loopback()
    ctls = [bot("briscola", i) for i in range(2)]
    cfg = HostConfig(data_dir=tmp_path, game="briscola", players=2, hands=1, seed=3,
                     keep=True)
    host, peers = start_table(net, cfg, ctls)
    for _ in range(60):
        if all(p.done.called for p in peers):
            break
        net.advance(1.0)
    assert all(p.done.called for p in peers)
    net.advance(2.0)                                   # the ended table is reaped
    again = PeerNode(net.clock, PeerConfig(name="seat0", reconnect_delay=0.5), bot("briscola", 7),
                     identity=peers[0].identity, connector=LoopbackConnector(net, host))
    again.start()
    net.pump()
    assert again.seat is not None and again.table not in (None, "t1"), again.table
    assert not again.done.called
