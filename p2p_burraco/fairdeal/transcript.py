"""The record of one hand: everything an auditor needs, nothing it must trust.

A transcript is a msgpack map (FORMAT below):
- `entries`: the hand's log in order — entry 0 is the host's signed `hand_start` (rule set,
  seats, identity keys), then every accepted seat-authored message verbatim with its
  signature and the host's signed statements (`refusal`, carrying the refused statement
  when it was validly placed in its seat's chain; `timeout`; `hand_void`);
- `hand_end`: the host's closing message (result, verdict, transcript and result hashes);
- `sign_offs`: each seat's signed `sign_off` over the transcript hash and result hash.
The transcript hash is the running hash of `entries` (signing.chain_step), so cutting,
reordering or editing any entry changes it and the seats' sign-offs no longer match.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from . import signing

FORMAT = "p2p-burraco/transcript/v1"
MAX_TRANSCRIPT_BYTES = 64 << 20


class TranscriptError(ValueError):
    """A file that is not a transcript at all (the audit cannot even start)."""


def log_hash(entries: Sequence[Mapping[str, Any]]) -> bytes:
    head = signing.chain_start()
    for e in entries:
        head = signing.chain_step(head, signing.entry_hash(e))
    return head


@dataclass
class Transcript:
    entries: list[dict[str, Any]] = field(default_factory=list)
    hand_end: dict[str, Any] | None = None
    sign_offs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def hand_start(self) -> dict[str, Any]:
        if not self.entries or self.entries[0].get("type") != "hand_start":
            raise TranscriptError("the transcript does not begin with a hand_start entry")
        return self.entries[0]

    def transcript_hash(self) -> bytes:
        return log_hash(self.entries)

    def to_wire(self) -> dict[str, Any]:
        return {"format": FORMAT, "entries": self.entries, "hand_end": self.hand_end, "sign_offs": self.sign_offs}

    def to_bytes(self) -> bytes:
        out: bytes = msgpack.packb(self.to_wire(), use_bin_type=True)
        return out

    @classmethod
    def from_bytes(cls, data: bytes) -> Transcript:
        if len(data) > MAX_TRANSCRIPT_BYTES:
            raise TranscriptError("file too large for a transcript")
        try:
            value = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True)
        except (ValueError, TypeError, msgpack.UnpackException) as exc:
            raise TranscriptError(f"not msgpack: {type(exc).__name__}: {exc}") from None
        if not isinstance(value, dict) or value.get("format") != FORMAT:
            raise TranscriptError(f"not a {FORMAT} file")
        entries = value.get("entries")
        hand_end, sign_offs = value.get("hand_end"), value.get("sign_offs", [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise TranscriptError("entries must be a list of maps")
        if not isinstance(sign_offs, list) or not all(isinstance(e, dict) for e in sign_offs):
            raise TranscriptError("sign_offs must be a list of maps")
        if hand_end is not None and not isinstance(hand_end, dict):
            raise TranscriptError("hand_end must be a map")
        t = cls(entries, hand_end, sign_offs)
        t.hand_start  # noqa: B018 - raises if missing
        return t

    def save(self, path: str) -> None:
        """Write atomically (a crash never leaves half a transcript)."""
        tmp = f"{path}.tmp"
        with open(tmp, "wb") as f:
            f.write(self.to_bytes())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str) -> Transcript:
        with open(path, "rb") as f:
            return cls.from_bytes(f.read())
