"""Rebuilding a hand's replica from its `hand_start` entry alone.

Host, peers and auditors must agree on the hand's public starting state (dealer, schedule,
what the match carries into it: opening thresholds, sides, stop points…). Rather than trust
each node to have followed the whole match, `hand_start` carries what rebuilds it — the
match's constructor arguments and the results recorded so far — and every node replays
that into a fresh Match and asks it for the next hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..games import get_game
from ..games.base import HandResult, HandState, Match, ScoreLine


class ReplicaError(ValueError):
    """A hand_start that does not describe a hand this software can rebuild."""


def result_from_wire(d: Mapping[str, Any]) -> HandResult:
    """Inverse of HandResult.to_wire."""
    try:
        return HandResult(
            sides=tuple(tuple(int(s) for s in side) for side in d["sides"]),
            points=tuple(int(p) for p in d["points"]),
            breakdown=tuple(tuple(ScoreLine(str(lbl), int(pts)) for lbl, pts in side)
                            for side in d["breakdown"]),
            closed_by=d.get("closed_by"),
            reason=str(d.get("reason", "")),
            extra=dict(d.get("extra") or {}),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplicaError(f"not a hand result: {exc}") from None


def void_result(match: Match, reason_detail: str = "") -> HandResult:
    """Zero points for every side: what a voided hand records."""
    sides_raw = match.standings().get("sides") or [[s] for s in range(match.n_seats)]
    sides = tuple(tuple(int(s) for s in side) for side in sides_raw)
    extra: dict[str, Any] = {"void": reason_detail} if reason_detail else {}
    return HandResult(sides=sides, points=tuple(0 for _ in sides),
                      breakdown=tuple(() for _ in sides), reason="void", extra=extra)


def build_match(hs: Mapping[str, Any]) -> Match:
    """The match as it stood before this hand."""
    try:
        spec = get_game(str(hs["game"]))
        rules = spec.presets[hs["variant"]]
        match: Match = spec.new_match(rules, int(hs["n_seats"]),
                                      first_dealer=int(hs["first_dealer"]),
                                      **dict(hs.get("options") or {}))
        for r in hs.get("history") or []:
            match.record(result_from_wire(r))
    except ReplicaError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplicaError(f"cannot rebuild the match of this hand: {exc}") from None
    return match


def build_hand(hs: Mapping[str, Any], match: Match | None = None) -> HandState:
    """The hand this `hand_start` opens, with nothing known; checked against its fields.
    `match` is `build_match(hs)` when the caller has already rebuilt it (for its standings)."""
    match = build_match(hs) if match is None else match
    try:
        hand = match.new_hand()
    except ValueError as exc:
        raise ReplicaError(f"the match has no next hand: {exc}") from None
    if hand.dealer != hs["dealer"]:
        raise ReplicaError(f"hand_start names dealer {hs['dealer']}, the match says {hand.dealer}")
    if len(hand.deck) != hs["n_cards"] or hand.deck.kind.value != hs["deck"]:
        raise ReplicaError(f"hand_start names a {hs['n_cards']}-card {hs['deck']} deck, the rules "
                           f"deal {len(hand.deck)} cards ({hand.deck.kind.value})")
    return hand


def public_positions(hand: HandState) -> list[int]:
    """Positions everyone is entitled to see right now."""
    everyone = frozenset(range(hand.n_seats))
    return [p for p in range(len(hand.deck)) if hand.audience(p) == everyone]
