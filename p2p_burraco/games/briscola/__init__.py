"""Briscola: 40 cards, 2 head to head or 4 in pairs, tricks with a trump suit, 61 wins.

Pure like every engine here: positions and knowledge per `games.base`, the deal a public
schedule, no randomness (the first dealer is input). Rule ids: seeds/briscola.md.
"""

from __future__ import annotations

from ..base import GameSpec
from .faces import (
    DISPLAY_STYLES,
    POINTS,
    STRENGTH_ORDER,
    TOTAL_POINTS,
    WINNING_POINTS,
    beats,
    card_label,
    card_name,
    card_points,
    is_liscio,
    points_of,
    strength,
    trick_winner,
)
from .match import BriscolaMatch, new_match, restore_match
from .rules import (
    DEFAULT_VARIANT,
    MATCH_KINDS,
    MAX_PLAYOFFS,
    PRESETS,
    RuleSet,
    describe,
    seat_counts,
)
from .state import (
    BriscolaHand,
    DealSchedule,
    Play,
    Trick,
    deal_schedule,
    side_of,
    sides_of,
    stacked_order,
)
from .tournament import forfeit_victory_points, mp_for_vp, victory_points

SPEC = GameSpec(
    name="briscola",
    presets=PRESETS,
    default_variant=DEFAULT_VARIANT,
    seat_counts=seat_counts,
    new_match=new_match,
    describe=describe,
    restore_match=restore_match,
)

__all__ = [
    "DEFAULT_VARIANT",
    "DISPLAY_STYLES",
    "MATCH_KINDS",
    "MAX_PLAYOFFS",
    "POINTS",
    "PRESETS",
    "SPEC",
    "STRENGTH_ORDER",
    "TOTAL_POINTS",
    "WINNING_POINTS",
    "BriscolaHand",
    "BriscolaMatch",
    "DealSchedule",
    "Play",
    "RuleSet",
    "Trick",
    "beats",
    "card_label",
    "card_name",
    "card_points",
    "deal_schedule",
    "describe",
    "forfeit_victory_points",
    "is_liscio",
    "mp_for_vp",
    "new_match",
    "points_of",
    "restore_match",
    "seat_counts",
    "side_of",
    "sides_of",
    "stacked_order",
    "strength",
    "trick_winner",
    "victory_points",
]
