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
