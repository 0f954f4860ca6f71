"""Writing files that must not lie: secrets, records, append-only journals.

Why one module: every promise the protocol makes about a crash ("the seed is on disk before
the commitment leaves", "nothing a peer saw is lost") is a promise about these few calls.

- `write_private(path, data)`: a new file is written under a fresh name made with O_EXCL
  and O_NOFOLLOW (a planted symlink or file is never followed or truncated), mode 0600,
  fsync'd, renamed over the target, and the directory fsync'd.
- `write_record(path, data)`: the same, mode 0644, for transcripts and results.
- `AppendLog`: length + CRC-framed records appended to one file; `sync()` makes them
  durable; `scan_log` tells a torn tail (an incomplete *last* record: what a crash in the
  middle of a write leaves, and the only damage that may be cut off) from damage inside the
  file (a bad record followed by a whole one, or a bad first record), which is never cut:
  `AppendLog.open(strict=True)` refuses such a file with `LogDamaged`, naming the offset.
"""

from __future__ import annotations

import os
import secrets
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
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
    except BaseException as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = str(path)        # "disk full: PATH" names the file, not "?"
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


class LogDamaged(ValueError):
    """An append log damaged before its last record: cutting it would destroy records that
    were durable (and that peers may have acted on), so nothing is cut or changed."""

    def __init__(self, path: Path, offset: int, reason: str) -> None:
        self.path = Path(path)
        self.offset = offset
        self.reason = reason
        super().__init__(f"{path} is damaged at byte {offset}: {reason}")


@dataclass
class LogScan:
    """What an append log holds: its whole records (with their offsets), the bytes they
    cover, a torn tail after them, and where damage inside the file begins (None: none)."""

    records: list[bytes] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    good: int = 0
    size: int = 0
    damage: int | None = None
    reason: str = ""


def _whole_record_at(data: bytes, pos: int, empty: bool = True) -> int | None:
    """The end of a whole, CRC-valid record starting at `pos` (an empty one only if
    `empty`: a run of zero bytes would read as empty records), or None."""
    if pos + _HEAD.size > len(data):
        return None
    n: int
    crc: int
    n, crc = _HEAD.unpack_from(data, pos)
    end: int = pos + _HEAD.size + n
    if (n == 0 and not empty) or n > MAX_RECORD or end > len(data):
        return None
    if zlib.crc32(data[pos + _HEAD.size:end]) != crc:
        return None
    return end


def _later_record(data: bytes, start: int) -> int | None:
    """The offset of the first whole record at or after `start` (a resynchronising search:
    run only where a record is bad, so its cost is paid on recovery, never while playing)."""
    for p in range(start, len(data) - _HEAD.size):
        if _whole_record_at(data, p, empty=False) is not None:
            return p
    return None


def scan_data(data: bytes) -> LogScan:
    """Walk the records of `data` (see `LogScan`). A bad record is a torn tail only when it
    is incomplete (its length runs past the end of the file, or its header is cut) and no
    whole record follows it anywhere in the file; otherwise it is damage."""
    scan = LogScan(size=len(data))
    pos = 0
    while pos < len(data):
        end = _whole_record_at(data, pos)
        if end is not None:
            scan.records.append(data[pos + _HEAD.size:end])
            scan.offsets.append(pos)
            pos = end
            continue
        later = _later_record(data, pos + 1)
        if later is not None:
            scan.damage = pos
            scan.reason = (f"the record at byte {pos} is corrupt (bad length or checksum) "
                           f"and whole records follow it from byte {later}")
        elif pos + _HEAD.size <= len(data):
            n, _ = _HEAD.unpack_from(data, pos)
            if n > 0 and pos + _HEAD.size + n == len(data):   # whole, yet its CRC is wrong
                scan.damage = pos
                scan.reason = (f"the last record (byte {pos}) is whole but its checksum is "
                               "wrong: damaged after it was written, not torn")
        break
    scan.good = pos
    return scan


def salvage_scan(data: bytes) -> tuple[list[tuple[int, bytes]], list[int]]:
    """Every whole record of a damaged log, past the damage too (resynchronising after each
    bad stretch), with its offset; and where each bad stretch begins. For `--salvage` only."""
    found: list[tuple[int, bytes]] = []
    bad: list[int] = []
    pos = 0
    while pos < len(data):
        end = _whole_record_at(data, pos)
        if end is not None:
            found.append((pos, data[pos + _HEAD.size:end]))
            pos = end
            continue
        later = _later_record(data, pos + 1)
        bad.append(pos)
        if later is None:
            break
        pos = later
    return found, bad


def scan_log(path: Path) -> LogScan:
    """`scan_data` of the file at `path` (an empty scan if there is none; no symlink)."""
    try:
        data = read_private(Path(path))
    except FileNotFoundError:
        return LogScan()
    return scan_data(data)


def frame_record(body: bytes) -> bytes:
    """One record as `AppendLog` writes it (length, CRC, body)."""
    return _HEAD.pack(len(body), zlib.crc32(body)) + body


def read_records(path: Path) -> tuple[list[bytes], int]:
    """Every whole record of an append log before the first bad one, and the byte length
    they cover. A symlink is not followed."""
    scan = scan_log(path)
    return scan.records, scan.good


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
    def open(cls, path: Path, strict: bool = False) -> AppendLog:
        """Open (creating) the log, cutting off a torn tail left by a crash. `strict`: a log
        damaged before its last record raises `LogDamaged` and is left exactly as it is
        (not strict: cut at the first bad record, as a seat's own small logs are)."""
        path = Path(path)
        scan = scan_log(path)
        if strict and scan.damage is not None:
            raise LogDamaged(path, scan.damage, scan.reason)
        good = scan.good
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
        rec = frame_record(body)
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
