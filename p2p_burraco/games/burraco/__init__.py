"""Burraco: every rule set of the seeds as presets of one engine (pure: stdlib only).

Modules: rules (RuleSet + presets), melds (placement and classification on card faces),
movegen (lazy candidates), actions (steps and notation), state (the hand as a state machine),
scoring, match, describe (rules in plain words), notation (positions as text for fixtures).
"""

from __future__ import annotations

from ..base import GameSpec
from .actions import Attach, Discard, Draw, Meld, Redraw, Take, TakeTop, action_from_wire
from .describe import describe
from .match import BurracoMatch, new_match, restore_match
from .melds import BURRACO_MIN, Arrangement, MeldError, arrange_attach, arrange_new, classify
from .rules import DEFAULT_VARIANT, PRESETS, RuleSet, seat_counts
from .state import BurracoHand, DealSchedule, deal_schedule

SPEC = GameSpec(
    name="burraco",
    presets=PRESETS,
    default_variant=DEFAULT_VARIANT,
    seat_counts=seat_counts,
    new_match=new_match,
    describe=describe,
    restore_match=restore_match,
)

__all__ = [
    "BURRACO_MIN",
    "PRESETS",
    "SPEC",
    "Arrangement",
    "Attach",
    "BurracoHand",
    "BurracoMatch",
    "DealSchedule",
    "Discard",
    "Draw",
    "Meld",
    "MeldError",
    "Redraw",
    "RuleSet",
    "Take",
    "TakeTop",
    "action_from_wire",
    "arrange_attach",
    "arrange_new",
    "classify",
    "deal_schedule",
    "describe",
    "new_match",
    "restore_match",
]
