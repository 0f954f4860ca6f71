"""`FileSeatStore`: a seat's durable facts in its identity's directory.

Layout under `<data-dir>/identities/<name>/`:

    identity.ed25519                 the Ed25519 key (0600)
    seat.json                        where this identity last sat (host, table, seat, match)
    matches/<match id>/record.bin    the match as this seat folded it (msgpack)
    matches/<match id>/seeds/<hand id>.seed    seed + the hand_start hash it was drawn for
    matches/<match id>/seeds/<hand id>.spent   written before the seed is revealed
    matches/<match id>/signed/<hand id>.log    every statement signed in the hand (append)
    matches/<match id>/hand-NNN.p2pb           the hand as this seat saw it (for `verify`)

Seeds and statements are private (0600, directories 0700) and durable before the method
returns (see `storage.files`). Hand ids are looked up across matches: a seed is bound to
its hand id, whatever match a host claims it belongs to.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgpack

from ..table.store import StoreError, check_new_statement
from .files import (
    AppendLog,
    LogDamaged,
    ensure_dir,
    read_private,
    scan_log,
    write_private,
    write_record,
)


class FileSeatStore:
    """A `table.store.SeatStore` on disk (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = ensure_dir(Path(root), private=True)
        self.matches = ensure_dir(self.root / "matches", private=True)
        self._match_of_hand: dict[bytes, Path] = {}
        self._current: Path | None = None
        self._logs: dict[bytes, AppendLog] = {}
        self._by_seq: dict[bytes, dict[int, dict[str, Any]]] = {}

    def _mdir(self, match_id: bytes) -> Path:
        return ensure_dir(self.matches / match_id.hex(), private=True)

    def use_match(self, match_id: bytes) -> None:
        """The match the next hand ids belong to (from its hand_start)."""
        self._current = self._mdir(match_id)

    def _seed_path(self, hand_id: bytes, suffix: str) -> Path | None:
        name = f"{hand_id.hex()}{suffix}"
        for d in ([self._current] if self._current else []) + sorted(self.matches.iterdir()):
            if d is not None and (d / "seeds" / name).exists():
                return d / "seeds" / name
        return None

    def _new_path(self, hand_id: bytes, suffix: str) -> Path:
        if self._current is None:
            raise StoreError("no match chosen for this hand")
        return ensure_dir(self._current / "seeds", private=True) / f"{hand_id.hex()}{suffix}"

    # --- seeds -------------------------------------------------------------------------
    def hand_seed(self, hand_id: bytes) -> tuple[bytes, bytes] | None:
        path = self._seed_path(hand_id, ".seed")
        if path is None:
            return None
        raw = read_private(path, 64)
        return raw[:32], raw[32:]

    def save_seed(self, hand_id: bytes, seed: bytes, hand_start_hash: bytes) -> None:
        have = self.hand_seed(hand_id)
        if have is not None:
            if have[1] != hand_start_hash:
                raise StoreError(f"hand {hand_id.hex()} already has a seed, for another "
                                 "hand_start")
            return
        write_private(self._new_path(hand_id, ".seed"), seed + hand_start_hash)

    def is_spent(self, hand_id: bytes) -> bool:
        return self._seed_path(hand_id, ".spent") is not None

    def mark_spent(self, hand_id: bytes) -> None:
        if not self.is_spent(hand_id):
            write_private(self._new_path(hand_id, ".spent"), b"")

    # --- statements --------------------------------------------------------------------
    def _log(self, hand_id: bytes) -> AppendLog:
        log = self._logs.get(hand_id)
        if log is None:
            if self._current is None:
                raise StoreError("no match chosen for this hand")
            for old in list(self._logs.values()):
                old.close()
            self._logs.clear()
            path = ensure_dir(self._current / "signed", private=True) / f"{hand_id.hex()}.log"
            try:                    # a torn tail is cut; damage inside is kept and said
                log = AppendLog.open(path, strict=True)
            except LogDamaged as exc:
                raise StoreError(f"this seat's own statements are damaged: {exc}; the file "
                                 "is kept as it is") from None
            self._logs[hand_id] = log
        return log

    def statements(self, hand_id: bytes) -> list[dict[str, Any]]:
        return [m for _, m in sorted(self._signed(hand_id).items())]

    def _signed(self, hand_id: bytes) -> dict[int, dict[str, Any]]:
        """The hand's statements by seq, read from disk once and then kept in step."""
        cached = self._by_seq.get(hand_id)
        if cached is not None:
            return cached
        found: dict[int, dict[str, Any]] = {}
        for d in ([self._current] if self._current else []) + sorted(self.matches.iterdir()):
            if d is None:
                continue
            path = d / "signed" / f"{hand_id.hex()}.log"
            if path.exists():
                scan = scan_log(path)
                if scan.damage is not None:      # never read past it as if it were the end
                    raise StoreError(f"this seat's own statements are damaged: {path} at "
                                     f"byte {scan.damage}: {scan.reason}; the file is kept")
                for r in scan.records:
                    m = msgpack.unpackb(r, raw=False)
                    found[int(m["seq"])] = m
                break
        self._by_seq = {hand_id: found}          # one hand at a time is ever in use
        return found

    def statement(self, hand_id: bytes, seq: int) -> dict[str, Any] | None:
        return self._signed(hand_id).get(seq)

    def save_statement(self, msg: Mapping[str, Any]) -> None:
        hand_id = bytes(msg["hand_id"])
        have = self.statement(hand_id, int(msg["seq"]))
        check_new_statement(have, msg)
        if have is not None:
            return
        log = self._log(hand_id)
        log.append(msgpack.packb(dict(msg), use_bin_type=True))
        log.sync()
        self._signed(hand_id)[int(msg["seq"])] = dict(msg)

    # --- the match ---------------------------------------------------------------------
    def match_record(self, match_id: bytes) -> dict[str, Any] | None:
        path = self.matches / match_id.hex() / "record.bin"
        if not path.exists():
            return None
        value = msgpack.unpackb(read_private(path), raw=False)
        return value if isinstance(value, dict) else None

    def save_match_record(self, match_id: bytes, record: Mapping[str, Any]) -> None:
        self.use_match(match_id)
        write_private(self._mdir(match_id) / "record.bin",
                      msgpack.packb(dict(record), use_bin_type=True))

    def save_record(self, match_id: bytes, name: str, data: bytes) -> None:
        if "/" in name or name.startswith("."):
            raise StoreError(f"not a record name: {name!r}")
        write_record(self._mdir(match_id) / name, data)

    # --- where this identity sits ---------------------------------------------------------
    def save_seat(self, info: Mapping[str, Any]) -> None:
        write_private(self.root / "seat.json", json.dumps(dict(info), sort_keys=True).encode())

    def seat(self) -> dict[str, Any] | None:
        path = self.root / "seat.json"
        if not path.exists():
            return None
        try:
            value = json.loads(read_private(path))
        except (ValueError, OSError):
            return None
        return value if isinstance(value, dict) else None
