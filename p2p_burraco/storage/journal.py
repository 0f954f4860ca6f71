"""A match's journal on the host: the list of events its `HostTable` is the fold of.

One directory per match, named by date and match id so nothing is ever overwritten:

    <data-dir>/matches/<YYYY-MM-DD>-<match id>/journal.p2pj     the events (append-only)
    <data-dir>/matches/<YYYY-MM-DD>-<match id>/hand-NNN.p2pb    each hand's transcript
    <data-dir>/matches/<YYYY-MM-DD>-<match id>/result.json      why and how it ended

The journal's first record is the match itself (`{"e": "match", ...}`: the configuration,
the table id); then every event the table journaled, in order; after each closed hand a
`checkpoint` (the table's whole state between hands, constant size), so a restart replays
at most one hand's events; a final `end` record once `result.json` is written. `sync()` is
called before any reply leaves the host, so a peer never saw what a restart would forget.

Damage (PROTOCOL § 10, "The host's journal"): only an incomplete *last* record is cut (a
crash mid-write). A journal damaged anywhere else, or whose first record is unreadable, is
never touched: `survey` reports it (`MatchProblem`) with the file and the byte offset, and so
is a match directory whose journal is gone while its hand records are there; the host then
refuses to start until told `--salvage` (`salvage`: resume from the last good checkpoint,
the damaged file moved aside, never deleted). A write that fails (ENOSPC, EIO) raises
`DiskFull` naming the file, and the journal takes no more events until it is reopened.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from .files import (
    AppendLog,
    LogDamaged,
    ensure_dir,
    frame_record,
    read_private,
    salvage_scan,
    scan_log,
    write_private,
    write_record,
)

JOURNAL = "journal.p2pj"
RESULT = "result.json"
SET_ASIDE = "set-aside.json"
"""Written by `--salvage` in a match directory that cannot be resumed (no readable first
record): what was found, so the directory is never taken for a live match again."""

DISK_ERRORS = frozenset({errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EROFS, errno.EFBIG})


class DiskFull(OSError):
    """The journal or a record could not be written (no space, an I/O error): nothing that
    depends on it may be applied or sent. `path`: the file that could not be written."""

    def __init__(self, path: Path, cause: OSError) -> None:
        super().__init__(cause.errno, f"disk full: {path} ({os.strerror(cause.errno or 0)})")
        self.path = Path(path)
        self.cause = cause


def _disk_error(path: Path, exc: OSError) -> OSError:
    return DiskFull(path, exc) if exc.errno in DISK_ERRORS else exc


class JournalDamaged(ValueError):
    """A journal damaged inside (not a torn tail): the host leaves it exactly as it is."""

    def __init__(self, path: Path, offset: int, reason: str) -> None:
        self.path = Path(path)
        self.offset = offset
        self.reason = reason
        super().__init__(f"{path} is damaged at byte {offset}: {reason}")


def _pack(value: Mapping[str, Any]) -> bytes:
    out: bytes = msgpack.packb(dict(value), use_bin_type=True)
    return out


def _unpack(data: bytes) -> dict[str, Any]:
    value = msgpack.unpackb(data, raw=False, strict_map_key=True)
    if not isinstance(value, dict):
        raise ValueError("a journal record is not a map")
    return value


def new_match_id(root: Path,
                 draw: Callable[[int], bytes] = secrets.token_bytes) -> bytes:
    """A match id none of the directories under `root` has: `draw(16)` (the host's seeded
    generator under `--seed`, so a seeded run in a fresh data directory is reproducible byte
    for byte), drawn again while the id is taken — a seeded run repeated on the same data
    directory (`play --seed N` twice) gets a new match, never the old one's directory and
    journal ("a match id is never reused")."""
    root = Path(root)
    while True:
        match_id = draw(16)
        if not root.is_dir() or not any(root.glob(f"*-{match_id.hex()}")):
            return match_id


def match_dir_name(match_id: bytes, when: _dt.datetime | None = None) -> str:
    when = when or _dt.datetime.now(_dt.UTC)
    return f"{when:%Y-%m-%d}-{match_id.hex()}"


class MatchJournal:
    """The open journal of one match (see the module docstring)."""

    def __init__(self, directory: Path, log: AppendLog) -> None:
        self.dir = directory
        self.log = log

    @classmethod
    def create(cls, root: Path, match_id: bytes, header: Mapping[str, Any]) -> MatchJournal:
        directory = ensure_dir(Path(root) / match_dir_name(match_id))
        path = directory / JOURNAL
        if path.exists() and path.stat().st_size > 0:
            raise FileExistsError(f"{path} exists: a match id is never reused")
        try:
            journal = cls(directory, AppendLog.open(path))
            journal.append({"e": "match", **header})
            journal.sync()
        except DiskFull:
            raise
        except OSError as exc:
            raise _disk_error(path, exc) from exc
        return journal

    @classmethod
    def reopen(cls, directory: Path) -> MatchJournal:
        """The journal of a match being resumed: a torn tail is cut, damage raises."""
        path = Path(directory) / JOURNAL
        try:
            return cls(Path(directory), AppendLog.open(path, strict=True))
        except LogDamaged as exc:
            raise JournalDamaged(exc.path, exc.offset, exc.reason) from None

    broken: DiskFull | None = None
    """The write that failed: the journal takes nothing more until reopened."""

    def append(self, event: Mapping[str, Any]) -> None:
        if self.broken is not None:
            raise self.broken
        try:
            self.log.append(_pack(event))
        except OSError as exc:
            err = _disk_error(self.log.path, exc)
            if isinstance(err, DiskFull):
                self.broken = err
            raise err from exc

    def sync(self) -> None:
        if self.broken is not None:
            raise self.broken
        try:
            self.log.sync()
        except OSError as exc:
            err = _disk_error(self.log.path, exc)
            if isinstance(err, DiskFull):
                self.broken = err
            raise err from exc

    @property
    def dirty(self) -> bool:
        return self.log.dirty

    def close(self) -> None:
        with contextlib.suppress(OSError):   # a broken journal: a restart reads the disk
            self.log.close()

    def write_record(self, name: str, data: bytes) -> Path:
        if self.broken is not None:
            raise self.broken
        path = self.dir / name
        try:
            write_record(path, data)
        except OSError as exc:
            err = _disk_error(path, exc)
            if isinstance(err, DiskFull):
                self.broken = err
            raise err from exc
        return path


@dataclass
class LoadedMatch:
    """What a journal holds: the header, the last checkpoint and the events after it."""

    directory: Path
    header: dict[str, Any]
    checkpoint: dict[str, Any] | None
    events: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False


def load(directory: Path) -> LoadedMatch | None:
    """Read a match's journal (None if it has none, or an empty one); a torn tail is
    ignored; damage inside, or an unreadable first record, raises `JournalDamaged`."""
    path = Path(directory) / JOURNAL
    scan = scan_log(path)
    if scan.damage is not None:
        raise JournalDamaged(path, scan.damage, scan.reason)
    if not scan.records:
        if scan.size > 0 and (scan.damage is not None or hand_records(directory)):
            raise JournalDamaged(path, 0, "its first record (the match) is unreadable")
        return None          # empty, or a first record torn as it was written: no match yet
    try:
        header = _unpack(scan.records[0])
    except ValueError as exc:
        raise JournalDamaged(path, 0, f"its first record is not readable: {exc}") from None
    if header.get("e") != "match" or not isinstance(header.get("config"), Mapping):
        raise JournalDamaged(path, 0, "its first record is not the match")
    loaded = LoadedMatch(Path(directory), header, None)
    for raw, at in zip(scan.records[1:], scan.offsets[1:], strict=True):
        try:
            event = _unpack(raw)
        except ValueError as exc:
            raise JournalDamaged(path, at, f"the record at byte {at} is not readable: "
                                 f"{exc}") from None
        kind = event.get("e")
        if kind == "checkpoint":
            loaded.checkpoint = event
            loaded.events = []
        elif kind == "end":
            loaded.ended = True
        else:
            loaded.events.append(event)
    return loaded


@dataclass
class MatchProblem:
    """A match directory the host cannot resume as it is: `damaged` (the journal, at
    `offset`) or `missing` (no journal, but hand records)."""

    directory: Path
    kind: str
    message: str
    offset: int | None = None


def hand_records(directory: Path) -> list[Path]:
    return sorted(Path(directory).glob("hand-*.p2pb"))


def survey(root: Path) -> tuple[list[LoadedMatch], list[MatchProblem]]:
    """Every unfinished match under `root` (a journal with no `end`, no result.json), and
    every match directory that cannot be resumed as it is. Reads only: nothing is changed."""
    out: list[LoadedMatch] = []
    problems: list[MatchProblem] = []
    root = Path(root)
    if not root.is_dir():
        return out, problems
    for d in sorted(root.iterdir()):
        if not d.is_dir() or (d / RESULT).exists() or (d / SET_ASIDE).exists():
            continue
        if not (d / JOURNAL).exists():
            records = hand_records(d)
            if records:
                problems.append(MatchProblem(
                    d, "missing", f"{d}: the journal ({JOURNAL}) is missing but {len(records)} "
                    f"hand record(s) are there ({records[0].name}..{records[-1].name}); the "
                    "match cannot be resumed"))
            continue
        try:
            loaded = load(d)
        except JournalDamaged as exc:
            problems.append(MatchProblem(d, "damaged", str(exc), exc.offset))
            continue
        if loaded is not None and not loaded.ended:
            out.append(loaded)
    return out, problems


def _stamp() -> str:
    return f"{_dt.datetime.now(_dt.UTC):%Y%m%dT%H%M%S}"


def set_aside(path: Path, tag: str) -> Path:
    """Rename `path` to a name of its own beside it (never deleted, never overwritten)."""
    base = f"{path.name}.{tag}-{_stamp()}"
    target = path.with_name(base)
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{base}.{n}")
    os.rename(path, target)
    return target


def salvage(problem: MatchProblem) -> str:
    """Make a problem directory usable again without deleting anything; says what it did.

    A damaged journal whose first record reads: its last good checkpoint — the last whole
    checkpoint record anywhere in the file, past the damage too — and the whole events after
    it, up to any damage after it, become the new journal (a damage before the last
    checkpoint thus loses nothing); the damaged file, and any hand record past that
    checkpoint, are renamed aside. Otherwise (no readable first record, or no journal): the
    directory is marked set aside (`set-aside.json` says why) and its hand records stay for
    `verify`."""
    d = problem.directory
    path = d / JOURNAL
    keep: list[bytes] = []
    hand_no = 0
    lost = False
    if path.exists():
        found, bad = salvage_scan(read_private(path))
        events: list[tuple[int, dict[str, Any] | None]] = []
        for at, raw in found:
            try:
                events.append((at, _unpack(raw)))
            except ValueError:
                events.append((at, None))
        header = events[0][1] if events and events[0][0] == 0 else None
        if header is not None and header.get("e") == "match" \
                and isinstance(header.get("config"), Mapping):
            cps = [i for i, (_, ev) in enumerate(events) if ev and ev.get("e") == "checkpoint"]
            start = cps[-1] if cps else 0
            keep = [found[0][1]] + ([found[start][1]] if cps else [])
            if cps:
                checkpoint = events[start][1]
                assert checkpoint is not None     # `cps` holds only records that unpacked
                hand_no = int(checkpoint.get("hand_no", 0))
            for j in range(start + 1, len(events)):
                at, ev = events[j]
                prev_end = found[j - 1][0] + 8 + len(found[j - 1][1])
                if ev is None or at != prev_end:         # damage after the checkpoint
                    lost = True
                    break
                keep.append(found[j][1])
            lost = lost or bool(bad and bad[-1] > found[start][0])
    if keep:
        aside = set_aside(path, "damaged")
        write_private(path, b"".join(frame_record(r) for r in keep))
        moved = []
        for rec in hand_records(d):
            number = rec.name.removeprefix("hand-").removesuffix(".p2pb")
            if number.isdigit() and int(number) > hand_no:
                moved.append(set_aside(rec, "superseded").name)
        told = f" (hand records past it moved aside: {', '.join(moved)})" if moved else ""
        where = f"after hand {hand_no}" if hand_no else "at the start of the match"
        tail = ("; events after the damage are lost" if lost else
                "; no event after it was lost")
        return (f"{d}: the damaged journal is kept as {aside.name}; the match resumes from "
                f"its last good checkpoint, {where}{tail}{told}")
    aside_name = set_aside(path, "damaged").name if path.exists() else None
    report = {"set_aside": _dt.datetime.now(_dt.UTC).isoformat(), "kind": problem.kind,
              "problem": problem.message, "damaged_journal": aside_name,
              "hand_records": [p.name for p in hand_records(d)]}
    write_record(d / SET_ASIDE, json.dumps(report, indent=2, sort_keys=True).encode() + b"\n")
    return (f"{d}: cannot be resumed ({problem.kind}); set aside with {SET_ASIDE}, its hand "
            "records kept for `p2p-burraco verify`"
            + (f", the damaged journal kept as {aside_name}" if aside_name else ""))
