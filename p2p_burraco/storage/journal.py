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
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from .files import AppendLog, ensure_dir, read_records, write_record

JOURNAL = "journal.p2pj"
RESULT = "result.json"


def _pack(value: Mapping[str, Any]) -> bytes:
    out: bytes = msgpack.packb(dict(value), use_bin_type=True)
    return out


def _unpack(data: bytes) -> dict[str, Any]:
    value = msgpack.unpackb(data, raw=False, strict_map_key=True)
    if not isinstance(value, dict):
        raise ValueError("a journal record is not a map")
    return value


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
        journal = cls(directory, AppendLog.open(path))
        journal.append({"e": "match", **header})
        journal.sync()
        return journal

    @classmethod
    def reopen(cls, directory: Path) -> MatchJournal:
        return cls(Path(directory), AppendLog.open(Path(directory) / JOURNAL))

    def append(self, event: Mapping[str, Any]) -> None:
        self.log.append(_pack(event))

    def sync(self) -> None:
        self.log.sync()

    @property
    def dirty(self) -> bool:
        return self.log.dirty

    def close(self) -> None:
        self.log.close()

    def write_record(self, name: str, data: bytes) -> Path:
        path = self.dir / name
        write_record(path, data)
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
    """Read a match's journal (None if it has none); a torn tail is ignored."""
    path = Path(directory) / JOURNAL
    records, _ = read_records(path)
    if not records:
        return None
    header = _unpack(records[0])
    if header.get("e") != "match":
        raise ValueError(f"{path}: the first record is not the match")
    loaded = LoadedMatch(Path(directory), header, None)
    for raw in records[1:]:
        event = _unpack(raw)
        kind = event.get("e")
        if kind == "checkpoint":
            loaded.checkpoint = event
            loaded.events = []
        elif kind == "end":
            loaded.ended = True
        else:
            loaded.events.append(event)
    return loaded


def unfinished(root: Path) -> list[LoadedMatch]:
    """Every match under `root` whose journal has no `end` (a host that stopped mid-match)."""
    out: list[LoadedMatch] = []
    root = Path(root)
    if not root.is_dir():
        return out
    for d in sorted(root.iterdir()):
        if not (d / JOURNAL).exists() or (d / RESULT).exists():
            continue
        loaded = load(d)
        if loaded is not None and not loaded.ended:
            out.append(loaded)
    return out
