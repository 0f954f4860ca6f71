"""Fair dealing with no trusted dealer (design: ../shared/design/fairdeal.md; spec of record:
protocol/PROTOCOL.md, fair-deal section).

Cards are indices 0..N-1 of a physical deck and points of the ed25519 prime-order group;
every secret of a seat is derived from its committed seed; passes, key releases and face-up
proofs are signed, chained messages; `audit` re-derives a recorded hand from the revealed
seeds and names whoever deviated (`fairdeal.audit.audit`: the module keeps its name, so
no function of the package shadows it). Transport-agnostic and game-agnostic: no Twisted, no rules.
"""

from __future__ import annotations

from .audit import Fault, Verdict, audit_log
from .deal import DealError, PublicDeal
from .derive import SeatSecrets, commitment
from .group import BadPoint, card_points, card_table, is_valid_point
from .local import LocalTable, hand_id_for, hands_schedule, make_hand_start
from .seat import SeatDealer
from .transcript import Transcript, TranscriptError

__all__ = [
    "BadPoint", "DealError", "Fault", "LocalTable", "PublicDeal", "SeatDealer", "SeatSecrets",
    "Transcript", "TranscriptError", "Verdict", "audit_log", "card_points",
    "card_table", "commitment", "hand_id_for", "hands_schedule", "is_valid_point",
    "make_hand_start",
]
