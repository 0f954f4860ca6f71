"""A bug is never dressed up as bad input, and always reaches the person it affects.

The command line: a `UsageError` is one sentence and exit 2; the system refusing (an
OSError) one sentence and exit 1; anything else (a `RuleViolation`, a `WireError` or a
`TableError` reaching it included, though they are ValueErrors) says it is a bug, where its
traceback was written, and exits 70. The host: a table whose handling raised tells every
seat connected to it, in one sentence, and leaves; the host goes on serving. A peer that
raised while handling the host's frame stops with that sentence (its console shows it).
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path
from typing import Any

import pytest
from loopback import Loopback, ScriptedPeer, start_table

from p2p_burraco import cli
from p2p_burraco.bots import make_strategy
from p2p_burraco.errors import EX_SOFTWARE, UsageError
from p2p_burraco.games.base import RuleViolation
from p2p_burraco.net.host import HostConfig, HostNode
from p2p_burraco.table.inprocess import BotController
from p2p_burraco.table.replica import ReplicaError, TableError
from p2p_burraco.wire import WireError


def run_raising(monkeypatch: pytest.MonkeyPatch, exc: BaseException,
                argv: list[str]) -> int:
    """`main(argv)` with the command's `run` replaced by one that raises `exc`."""
    real = cli.build_parser

    def parser() -> argparse.ArgumentParser:
        p = real()
        sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))

        def boom(args: argparse.Namespace) -> int:
            raise exc
        sub.choices[argv[0]].set_defaults(_run=boom)
        return p

    monkeypatch.setattr(cli, "build_parser", parser)
    return cli.main(argv)


@pytest.mark.parametrize("exc", [
    RuleViolation("FIBUR-1", "not your turn"),
    ReplicaError("a hand this software cannot rebuild"),
    WireError("msg.bad_value", "a field"),
    TableError("table.bad_deck", "a deck"),
    KeyError("seat"),
    ValueError("a plain ValueError deep inside"),
], ids=lambda e: type(e).__name__)
def test_an_internal_error_says_bug_names_its_traceback_and_exits_70(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        exc: Exception) -> None:
    rc = run_raising(monkeypatch, exc, ["rules", "--game", "burraco"])
    err = capsys.readouterr().err
    assert rc == EX_SOFTWARE == 70, err
    assert err.count("\n") == 1 and "bug" in err and "Traceback" not in err, err
    found = re.search(r"the traceback is in (\S+\.txt)$", err.strip())
    assert found, err
    written = Path(found.group(1)).read_text()
    assert "Traceback" in written and type(exc).__name__ in written


def test_the_traceback_goes_under_the_data_dir_given(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    rc = run_raising(monkeypatch, RuntimeError("boom"),
                     ["history", "--data-dir", str(tmp_path)])
    assert rc == 70
    (written,) = (tmp_path / "bugs").iterdir()
    assert str(written) in capsys.readouterr().err


def test_bad_input_is_exit_2_and_the_system_refusing_exit_1(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_raising(monkeypatch, UsageError("--limit must be at least 1"),
                       ["rules"]) == 2
    err = capsys.readouterr().err
    assert "--limit must be at least 1" in err and "bug" not in err
    assert run_raising(monkeypatch, PermissionError(13, "Permission denied", "/x"),
                       ["rules"]) == 1
    err = capsys.readouterr().err
    assert "Permission denied" in err and "bug" not in err


def test_a_table_whose_handling_raised_tells_every_seat_and_the_host_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second `play --seed N` of issue 50: the match could not start (its journal
    existed). Before, the seat whose join raised got `host.internal` and the other waited
    for good."""
    from p2p_burraco.storage import journal

    def exists(*_: Any, **__: Any) -> Any:
        raise FileExistsError("journal.p2pj exists: a match id is never reused")

    monkeypatch.setattr(journal.MatchJournal, "create", exists)
    net = Loopback()
    host = HostNode(net.clock, HostConfig(data_dir=tmp_path, game="briscola", players=2,
                                          hands=1, seed=3))
    seated = [ScriptedPeer(name=n, join={"table": "t1", "seat": None}) for n in ("A", "B")]
    for p in seated:
        net.connect(host, p)
        net.pump()
    for p in seated:
        (err,) = [e for e in p.errors if e["code"] == "host.internal"]
        assert err["fatal"] and "bug" in err["message"] and "table is closed" in err["message"]
        path = re.search(r"the traceback is in (\S+\.txt)", err["message"])
        assert path and "FileExistsError" in Path(path.group(1)).read_text()
        assert p.closed
    assert "t1" not in host.lobby.tables
    later = ScriptedPeer(name="C")
    net.connect(host, later)
    net.pump()
    later.send("list_tables", {})
    net.pump()
    assert later.of_type("tables") and not later.errors    # the host still serves


def test_a_peer_that_raised_stops_with_one_sentence(tmp_path: Path) -> None:
    class Broken(BotController):
        def hand_started(self, state: Any, seat: int) -> None:
            raise KeyError("a bug in the seat's controller")

    net = Loopback()
    good = BotController(make_strategy("briscola", "random", random.Random(1)))
    cfg = HostConfig(data_dir=tmp_path, game="briscola", players=2, hands=1, seed=4)
    _, peers = start_table(net, cfg, [Broken(make_strategy("briscola", "random",
                                                            random.Random(2))), good])
    failures: list[Any] = []
    peers[0].done.addErrback(failures.append)
    net.pump()
    (failure,) = failures
    text = failure.getErrorMessage()
    assert "bug" in text and "KeyError" in text and "the traceback is in" in text


def test_a_bug_in_a_table_timer_stops_that_table_in_one_sentence(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move clock whose expiry raised used to leave the table waiting on nothing."""
    from loopback import HoldingController

    from p2p_burraco.net.room import TableRoom

    def boom(self: TableRoom) -> None:
        raise AssertionError("a deadline the referee did not expect")

    monkeypatch.setattr(TableRoom, "_expire", boom)
    net = Loopback()
    held = [HoldingController(BotController(make_strategy("briscola", "random",
                                                          random.Random(s))))
            for s in (5, 6)]
    for h in held:
        h.hold = True
    cfg = HostConfig(data_dir=tmp_path, game="briscola", players=2, hands=1, seed=5)
    host, peers = start_table(net, cfg, held)
    failures: list[Any] = []
    for p in peers:
        p.done.addErrback(failures.append)
    net.run_until(lambda: len(failures) == 2, step=1.0)   # the move clock (30 s) runs out
    for f in failures:
        text = f.getErrorMessage()
        assert "host.internal" in text and "bug" in text and "AssertionError" in text, text
    assert not host.lobby.tables


@pytest.mark.subprocess
@pytest.mark.parametrize("raised, expect", [
    ("PeerError('the host refused us')", "error: the host refused us"),
    ("UsageError('--variant nope')", "raised UsageError"),
    ("RuleViolation('FIBUR-1', 'not your turn')", "raised RuleViolation"),
    ("KeyError('seat')", "raised KeyError"),
])
def test_run_reactor_says_an_outcome_and_raises_bad_input_or_a_bug(raised: str,
                                                                   expect: str) -> None:
    """net.runtime: an expected failure (peer refused, connection lost) comes back as one
    sentence; bad input and bugs are raised once the reactor stopped, for the CLI to tell
    apart (exit 2 / exit 70). In a child: a reactor runs once per process."""
    import subprocess
    import sys

    code = f"""
from twisted.internet.defer import fail
from p2p_burraco.errors import UsageError
from p2p_burraco.games.base import RuleViolation
from p2p_burraco.net.peer import PeerError
from p2p_burraco.net.runtime import run_reactor
try:
    result, error = run_reactor(lambda reactor: fail({raised}), stop_delay=0)
    print("error:", error)
except Exception as exc:
    print("raised", type(exc).__name__)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert expect in proc.stdout, proc.stdout + proc.stderr


def test_a_session_that_ended_on_a_bug_exits_70_else_1() -> None:
    """`play` and `join` end on the peer's last sentence: a bug's, here or relayed from the
    host, is exit 70 like the CLI's own; an unreachable or refusing host stays exit 1."""
    from p2p_burraco.errors import bug_sentence, exit_status_of

    relayed = f"host.internal: the host hit an {bug_sentence(KeyError('x'), Path('/t'))}"
    assert exit_status_of(relayed) == 70
    assert exit_status_of(bug_sentence(RuntimeError("y"), None)) == 70
    assert exit_status_of("cannot reach the host at 127.0.0.1:1 (refused)") == 1
    assert exit_status_of("auth.bad_signature: the host's key changed") == 1


def test_a_bug_when_a_seat_drops_stops_that_table_in_one_sentence(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A room that raised while a connection of it was lost used to be logged by Twisted
    and leave the other seat waiting on a grace period that never started."""
    from p2p_burraco.net.room import TableRoom

    def boom(self: TableRoom, conn: Any) -> None:
        raise IndexError("a seat the room did not expect")

    net = Loopback()
    cfg = HostConfig(data_dir=tmp_path, game="briscola", players=2, hands=1, seed=6)
    seated = [ScriptedPeer(name=n, join={"table": "t1", "seat": None}) for n in ("A", "B")]
    host = HostNode(net.clock, cfg)
    links = []
    for p in seated:
        links.append(net.connect(host, p))
        net.pump()
    monkeypatch.setattr(TableRoom, "disconnected", boom)
    links[0].close()
    net.pump()
    (err,) = [e for e in seated[1].errors if e["code"] == "host.internal"]
    assert err["fatal"] and "IndexError" in err["message"] and "bug" in err["message"]
    assert seated[1].closed and "t1" not in host.lobby.tables
