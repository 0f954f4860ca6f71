"""Writing files that must not lie: secrets, records, append-only journals.

Why one module: every promise the protocol makes about a crash ("the seed is on disk before
the commitment leaves", "nothing a peer saw is lost") is a promise about these few calls.

- `write_private(path, data)`: a new file is written under a fresh name made with O_EXCL
  and O_NOFOLLOW (a planted symlink or file is never followed or truncated), mode 0600,
  fsync'd, renamed over the target, and the directory fsync'd.
- `write_record(path, data)`: the same, mode 0644, for transcripts and results.
- `AppendLog`: length + CRC-framed records appended to one file; `sync()` makes them
  durable; `read_records` stops at the first torn or corrupt record (what a crash in the
  middle of a write leaves) and `AppendLog.open` cuts that tail off.
"""

from __future__ import annotations

import os
import secrets
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

_HEAD = struct.Struct(">II")          # length, crc32
MAX_RECORD = 16 << 20


def ensure_dir(path: Path, private: bool = False) -> Path:
    """Create a directory (0700 when `private`) and refuse one that is a symlink."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700 if private else 0o755)
    if path.is_symlink():
        raise OSError(f"{path} is a symbolic link; refusing to keep data there")
    if private:
        os.chmod(path, 0o700)
    return path


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write(path: Path, data: bytes, mode: int) -> None:
    path = Path(path)
    parent = path.parent
    tmp = parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if path.is_symlink():
            path.unlink()
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    _fsync_dir(parent)


def write_private(path: Path, data: bytes) -> None:
    """A secret: readable by its owner only, durable when this returns."""
    _write(Path(path), data, 0o600)


def write_record(path: Path, data: bytes) -> None:
    """A record others may read (a transcript, a result): atomic and durable."""
    _write(Path(path), data, 0o644)


def read_private(path: Path, size: int | None = None) -> bytes:
    """Read a secret without following a symlink; `size`: the exact length expected."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        data = fh.read()
    if size is not None and len(data) != size:
        raise ValueError(f"{path}: expected {size} bytes, found {len(data)}")
    return data


def read_records(path: Path) -> tuple[list[bytes], int]:
    """Every whole record of an append log, and the byte length they cover (a torn or
    corrupt tail after them is ignored). A symlink is not followed."""
    try:
        data = read_private(Path(path))
    except FileNotFoundError:
        return [], 0
    out: list[bytes] = []
    pos = 0
    while pos + _HEAD.size <= len(data):
        n, crc = _HEAD.unpack_from(data, pos)
        end = pos + _HEAD.size + n
        if n > MAX_RECORD or end > len(data):
            break
        body = data[pos + _HEAD.size:end]
        if zlib.crc32(body) != crc:
            break
        out.append(body)
        pos = end
    return out, pos


def iter_records(path: Path) -> Iterator[bytes]:
    yield from read_records(path)[0]


class AppendLog:
    """An append-only file of records; `append` buffers in the OS, `sync` makes durable."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = Path(path)
        self._fd = fd
        self.dirty = False
        self.size = os.fstat(fd).st_size

    @classmethod
    def open(cls, path: Path) -> AppendLog:
        """Open (creating) the log, cutting off a torn tail left by a crash."""
        path = Path(path)
        _, good = read_records(path)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) \
            | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags, 0o600)
        if os.fstat(fd).st_size != good:
            os.ftruncate(fd, good)
            os.fsync(fd)
        os.lseek(fd, 0, os.SEEK_END)
        log = cls(path, fd)
        _fsync_dir(path.parent)
        return log

    def append(self, body: bytes) -> None:
        if len(body) > MAX_RECORD:
            raise ValueError("a journal record over 16 MiB")
        rec = _HEAD.pack(len(body), zlib.crc32(body)) + body
        view = memoryview(rec)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        self.size += len(rec)
        self.dirty = True

    def sync(self) -> None:
        """Make every appended record durable (fdatasync: the size is part of the data)."""
        if self.dirty:
            os.fdatasync(self._fd) if hasattr(os, "fdatasync") else os.fsync(self._fd)
            self.dirty = False

    def close(self) -> None:
        if self._fd >= 0:
            self.sync()
            os.close(self._fd)
            self._fd = -1
