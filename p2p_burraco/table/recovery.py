"""Replaying a journal and keeping what each closed hand produced.

Why: a hand's record (its transcript, signed hand_end) is written after the event that
closed it is journaled. If the host dies, or its disk fills, between the two, the journal
says the hand closed and the record is not on disk. The record is a pure function of the
journaled events (the host's signature is deterministic, its clock is the events' `t`), so
a replay that keeps each `step.record` can write the missing file, byte for byte the one the
live host would have written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .host import HandRecord, HostTable, MatchConfig


def replay_closing(config: MatchConfig, host_key: Ed25519PrivateKey,
                   events: Sequence[Mapping[str, Any]],
                   checkpoint: Mapping[str, Any] | None = None
                   ) -> tuple[HostTable, list[tuple[int, HandRecord]]]:
    """`table.host.replay`, plus (index of the closing event, record) for every hand the
    events close."""
    table = HostTable(config, host_key)
    if checkpoint is not None:
        table.restore(checkpoint)
    closed: list[tuple[int, HandRecord]] = []
    for i, event in enumerate(events):
        step = table.apply(event)
        if step.record is not None:
            closed.append((i, step.record))
    return table, closed
