"""One host per data directory: an exclusive lock taken before anything there is read.

Why: two hosts on one data directory would both resume the same unfinished match, write
into one live journal and replace each other's signed hand records and `result.json`, and
`verify` would then call the host a cheat. `fcntl.flock` on `<data-dir>/host.lock` is held
for the life of the process (the kernel drops it when the process dies, `kill -9`
included, so a crash never leaves a stale lock); the file says who holds it (pid, and the
port once the host listens), so a second host can name the holder in its refusal.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

from .files import ensure_dir

LOCK = "host.lock"


class DataDirBusy(RuntimeError):
    """Another live process holds this data directory's lock."""


class DataDirLock:
    """The held lock of one data directory (see the module docstring)."""

    def __init__(self, directory: Path, fd: int) -> None:
        self.directory = Path(directory)
        self._fd = fd

    @classmethod
    def acquire(cls, directory: Path) -> DataDirLock:
        """Take the lock or raise `DataDirBusy` in one sentence naming the holder."""
        directory = ensure_dir(Path(directory))
        path = directory / LOCK
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) \
            | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe(fd)
            os.close(fd)
            raise DataDirBusy(f"the data directory {directory} is in use by another host "
                              f"({holder}); stop it, or give this one another --data-dir"
                              ) from None
        lock = cls(directory, fd)
        lock.note()
        return lock

    def note(self, port: int | None = None) -> None:
        """Say who holds the lock (this pid, and the port once listening)."""
        if self._fd < 0:
            return
        data = json.dumps({"pid": os.getpid(), "port": port}).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def release(self) -> None:
        if self._fd >= 0:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = -1

    @property
    def held(self) -> bool:
        return self._fd >= 0


def _describe(fd: int) -> str:
    """'pid 1234, port 7777' from a held lock file (what the holder wrote), best effort."""
    try:
        raw = os.pread(fd, 256, 0)
        info = json.loads(raw.decode() or "{}")
    except (OSError, ValueError):
        info = {}
    parts = []
    if isinstance(info, dict) and info.get("pid") is not None:
        parts.append(f"pid {info['pid']}")
    if isinstance(info, dict) and info.get("port") is not None:
        parts.append(f"port {info['port']}")
    return ", ".join(parts) or "holder unknown"
