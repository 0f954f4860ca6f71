"""What a seat must never forget: the seam between `SeatClient` (sans-IO) and the disk.

A seat's promises hold only if some facts outlive its process: the seed of each hand (written
before the commitment that binds it leaves), that a seed was revealed (written before the
reveal leaves: a seed is used for one hand only), every statement it signed (written before
it leaves: after a crash the same statement is sent again, never a different one for the
same seq), and where the match stands (the last result it signed, the state after it). The
table layer asks a `SeatStore` for them and does no I/O itself; `MemorySeatStore` keeps them
for a process that dies with its secrets anyway (an ephemeral bot); `storage.FileSeatStore`
keeps them in the user's data directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..fairdeal import signing


class StoreError(ValueError):
    """A write the store refuses: it would break a promise (a second statement for one seq,
    a second hand_start for one hand id)."""


class SeatStore(Protocol):
    """Durable facts of one identity (every `save_*`/`mark_*` is durable when it returns)."""

    def use_match(self, match_id: bytes) -> None:
        """The match the hands that follow belong to (where their facts are filed)."""

    def hand_seed(self, hand_id: bytes) -> tuple[bytes, bytes] | None:
        """(seed, hash of the hand_start it was drawn for), or None."""

    def save_seed(self, hand_id: bytes, seed: bytes, hand_start_hash: bytes) -> None: ...

    def is_spent(self, hand_id: bytes) -> bool: ...

    def mark_spent(self, hand_id: bytes) -> None: ...

    def statement(self, hand_id: bytes, seq: int) -> dict[str, Any] | None: ...

    def save_statement(self, msg: Mapping[str, Any]) -> None: ...

    def statements(self, hand_id: bytes) -> list[dict[str, Any]]: ...

    def match_record(self, match_id: bytes) -> dict[str, Any] | None:
        """{hand_no, result_hash, state} of the last hand this seat closed in the match."""

    def save_match_record(self, match_id: bytes, record: Mapping[str, Any]) -> None: ...

    def save_record(self, match_id: bytes, name: str, data: bytes) -> None:
        """A transcript or a piece of evidence, kept for the player's own audit."""


class MemorySeatStore:
    """A SeatStore in memory (the facts die with the process, as its secrets do)."""

    def __init__(self) -> None:
        self.seeds: dict[bytes, tuple[bytes, bytes]] = {}
        self.spent: set[bytes] = set()
        self.signed: dict[bytes, dict[int, dict[str, Any]]] = {}
        self.matches: dict[bytes, dict[str, Any]] = {}
        self.records: dict[tuple[bytes, str], bytes] = {}
        self._recent: list[bytes] = []      # the hands whose statements are kept

    def use_match(self, match_id: bytes) -> None:
        pass

    def hand_seed(self, hand_id: bytes) -> tuple[bytes, bytes] | None:
        return self.seeds.get(hand_id)

    def save_seed(self, hand_id: bytes, seed: bytes, hand_start_hash: bytes) -> None:
        have = self.seeds.get(hand_id)
        if have is not None and have[1] != hand_start_hash:
            raise StoreError(f"hand {hand_id.hex()} already has a seed, for another hand_start")
        self.seeds[hand_id] = (seed, hand_start_hash)

    def is_spent(self, hand_id: bytes) -> bool:
        return hand_id in self.spent

    def mark_spent(self, hand_id: bytes) -> None:
        self.spent.add(hand_id)

    def statement(self, hand_id: bytes, seq: int) -> dict[str, Any] | None:
        return self.signed.get(hand_id, {}).get(seq)

    def save_statement(self, msg: Mapping[str, Any]) -> None:
        check_new_statement(self.statement(msg["hand_id"], msg["seq"]), msg)
        hand = self.signed.get(msg["hand_id"])
        if hand is None:                # a new hand: the last one's statements are moot
            self.signed = {k: v for k, v in self.signed.items() if k in self._recent}
            self._recent = (self._recent + [msg["hand_id"]])[-2:]
            hand = self.signed.setdefault(msg["hand_id"], {})
        hand[int(msg["seq"])] = dict(msg)

    def statements(self, hand_id: bytes) -> list[dict[str, Any]]:
        return [m for _, m in sorted(self.signed.get(hand_id, {}).items())]

    def match_record(self, match_id: bytes) -> dict[str, Any] | None:
        return self.matches.get(match_id)

    def save_match_record(self, match_id: bytes, record: Mapping[str, Any]) -> None:
        self.matches[match_id] = dict(record)

    def save_record(self, match_id: bytes, name: str, data: bytes) -> None:
        """Kept only for the last few (a process without a disk keeps no archive)."""
        self.records[(match_id, name)] = data
        while len(self.records) > 8:
            del self.records[next(iter(self.records))]


def check_new_statement(have: Mapping[str, Any] | None, msg: Mapping[str, Any]) -> None:
    """Refuse a second, different statement at a seq already used (StoreError)."""
    if have is not None and signing.entry_hash(have) != signing.entry_hash(msg):
        raise StoreError(f"seq {msg.get('seq')} of hand {bytes(msg['hand_id']).hex()} is "
                         "already signed for another statement")
