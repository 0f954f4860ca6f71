"""What every test that starts `p2p-burraco` processes needs, said once: the command line, a
private user data directory, and a reaper so that no process outlives its test."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


def cli(*args: str) -> list[str]:
    """`p2p-burraco ARGS` as this interpreter runs it."""
    return [sys.executable, "-m", "p2p_burraco", *args]


def private_env(home: Path) -> dict[str, str]:
    """The environment with a private user data directory under `home` (platformdirs follows
    XDG_DATA_HOME) and unbuffered output, so lines arrive as they are printed."""
    env = dict(os.environ)
    env["XDG_DATA_HOME"] = str(home / "xdg")
    env["HOME"] = str(home)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Spawned(list[subprocess.Popen[Any]]):
    """Every process a test module started."""

    def popen(self, args: list[str], **kw: Any) -> subprocess.Popen[Any]:
        proc: subprocess.Popen[Any] = subprocess.Popen(args, **kw)
        self.append(proc)
        return proc

    def reap(self) -> None:
        """Kill what is still running (a stopped one is continued first, so it dies)."""
        while self:
            proc = self.pop()
            if proc.poll() is None:
                with contextlib.suppress(OSError):
                    proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.wait(10)


def reaper(spawned: Spawned, autouse: bool = True) -> Callable[[], Iterator[None]]:
    """A fixture that reaps `spawned` after each test, pass or fail."""
    @pytest.fixture(autouse=autouse)
    def _reap() -> Iterator[None]:
        yield
        spawned.reap()
    return _reap


LISTENING = r"listening on 127\.0\.0\.1:(\d+)"


class HostProcess:
    """`p2p-burraco host` in a subprocess (stdout and stderr together), its output followed
    line by line without blocking; started again with the same command and data directory by
    `spawn()` (the port it first took is kept)."""

    command: Callable[..., list[str]] = staticmethod(cli)
    """The command line of `p2p-burraco ARGS` (a test may run it through a launcher)."""

    def __init__(self, spawned: Spawned, tmp: Path, args: list[str], data: Path | None = None,
                 port: int = 0, listen: bool = True) -> None:
        self.spawned = spawned
        self.tmp = tmp
        self.data = data or tmp / "host"
        self.args = args
        self.lines: list[str] = []
        self._tail = ""                          # an unfinished last line, until it ends
        self.port = port
        self.spawn(listen=listen)

    def spawn(self, *extra: str, listen: bool = True) -> None:
        proc = self.spawned.popen(
            self.command("host", "--pause", "0", "--port", str(self.port), "--data-dir", str(self.data),
                *self.args, *extra),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=private_env(self.tmp))
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)
        self.proc = proc
        if listen:
            import re

            m = re.search(LISTENING, self.wait_for(LISTENING, since=len(self.lines)))
            assert m is not None
            self.port = int(m.group(1))

    def read(self) -> None:
        """What the process printed since: whole lines only (a line that came in two reads
        is one line), and its last, unfinished one once it has exited."""
        stream = self.proc.stdout
        exited = self.proc.poll() is not None
        try:
            chunk = stream.read() if stream is not None else None
        except (BlockingIOError, TypeError):
            chunk = None
        if chunk:
            *whole, self._tail = (self._tail + chunk).split("\n")
            self.lines.extend(line.rstrip("\r") for line in whole)
        if exited and self._tail:
            self.lines.append(self._tail)
            self._tail = ""

    def wait_for(self, pattern: str, timeout: float = 60, since: int = 0) -> str:
        """The first line from `since` on matching `pattern`; an AssertionError with the
        whole output if none comes in `timeout` seconds or the host exits first."""
        import re
        import time

        deadline = time.monotonic() + timeout
        seen = since
        while time.monotonic() < deadline:
            self.read()
            for line in self.lines[seen:]:
                if re.search(pattern, line):
                    return line
            seen = len(self.lines)
            if self.proc.poll() is not None:
                self.read()
                for line in self.lines[seen:]:
                    if re.search(pattern, line):
                        return line
                break
            time.sleep(0.02)
        raise AssertionError(f"no {pattern!r} in host output:\n" + "\n".join(self.lines))

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.read()                              # what it printed before it died

    def finish(self, timeout: float = 120) -> int:
        """Its exit status; an AssertionError with its output if it runs past `timeout`."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self.read()
            raise AssertionError("host did not finish:\n" + "\n".join(self.lines)) from None
        self.read()
        return self.proc.returncode
