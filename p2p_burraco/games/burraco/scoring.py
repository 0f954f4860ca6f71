"""Scoring a finished hand, per preset: melds, burraco bonuses, closing, hand cards, pozzetto.

Side points are what the side made together. `extra["credit"]` says what each *seat* is
credited: the side's points for fixed partnerships (FIBUR-35, FIBUR-37), or half of them
(truncated toward zero) for a pair that formed during a 3- or 5-seat hand, since those pairs
"divide" the points between them (FIBUR-33, FIBUR-36).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..base import HandResult, Pos, ScoreLine, Seat
from ..cards import Card
from .melds import classify, royal_kind

if TYPE_CHECKING:
    from .state import BurracoHand


def _half(p: int) -> int:
    return p // 2 if p >= 0 else -((-p) // 2)


def _faces(state: BurracoHand, positions: list[int]) -> list[Card]:
    out = []
    for p in positions:
        c = state.known[p]
        if c is None:
            raise ValueError(f"cannot score: the card at position {p} is unknown "
                             "(reveal the hand's seeds first)")
        out.append(state.deck.cards[c])
    return out


def side_lines(state: BurracoHand, team: int, seats: tuple[Seat, ...]) -> list[ScoreLine]:
    """The breakdown of one side's hand score (every scored card must be known)."""
    return [ScoreLine(label, int(points)) for label, points in _side_parts(state, team, seats)]


def estimate_side(state: BurracoHand, team: int, seats: tuple[Seat, ...],
                  face_of: Callable[[Pos], Card | None], unknown_points: float) -> float:
    """A side's score at the end of `state` as one seat can know it: the same rules as
    `side_lines`, but a card `face_of` cannot tell (a partner's or an opponent's hand, an
    unseen pozzetto) counts `unknown_points`. Bots score look-ahead positions with it."""
    return sum(points for _, points in
               _side_parts(state, team, seats, face_of, unknown_points))


def _side_parts(state: BurracoHand, team: int, seats: tuple[Seat, ...],
                face_of: Callable[[Pos], Card | None] | None = None,
                unknown_points: float | None = None) -> list[tuple[str, float]]:
    rules = state.rules
    b = rules.names["burraco"]
    parts: list[tuple[str, float]] = []
    melds = state.team_melds(team)
    meld_points = 0
    counts = {"pulito": 0, "semipuro": 0, "sporco": 0, "500": 0, "1000": 0}
    for m in melds:
        faces = _faces(state, m.positions)  # melds are face up: always known
        meld_points += sum(rules.card_points(c) for c in faces)
        arr = m.arrangement()
        cls = classify(faces, arr, rules)
        if cls is None:
            continue
        royal = royal_kind(faces, arr, m.one_move) if rules.royal_runs else 0
        if royal == 14 and rules.canasta_1000:
            counts["1000"] += 1
        elif royal == 13 and rules.canasta_500:
            counts["500"] += 1
        else:
            counts[cls] += 1
    if melds:
        parts.append(("cards in melds", meld_points))
    bonus = {"pulito": rules.clean_bonus, "semipuro": rules.semipuro_bonus or 0,
             "sporco": rules.dirty_bonus, "500": rules.canasta_500 or 0,
             "1000": rules.canasta_1000 or 0}
    label = {"pulito": f"{b} pulito", "semipuro": f"{b} semipuro", "sporco": f"{b} sporco",
             "500": "canasta 500 (A–K clean)", "1000": "canasta reale 1000 (A–A clean)"}
    for k in ("1000", "500", "pulito", "semipuro", "sporco"):
        if counts[k]:
            parts.append((f"{label[k]} ×{counts[k]}", counts[k] * bonus[k]))
    if state.closed_by is not None and state.closed_by in seats:
        parts.append(("closing", rules.closing_bonus))
    in_hand: list[Pos] = [p for s in seats for p in state.hands[s]]
    unseen: list[Pos] = []
    for pz in state.pozzetti:
        if pz.taken_by in seats and not pz.in_hand and rules.unseen_pozzetto_as_hand:
            unseen += list(pz.positions)
    if face_of is None:
        hand_points: float = sum(rules.card_points(c) for c in _faces(state, in_hand + unseen))
    else:
        assert unknown_points is not None
        hand_points = 0.0
        for p in in_hand + unseen:
            c = face_of(p)
            hand_points += unknown_points if c is None else rules.card_points(c)
    opened = bool(melds)
    factor = rules.unopened_hand_factor if not opened else 1
    hand_points *= factor
    if in_hand or unseen:
        label_h = "cards left in hand" + (" (never opened: double)" if factor > 1 else "")
        if unseen:
            label_h += f" (incl. unseen {rules.names['pozzetto']})"
        parts.append((label_h, -hand_points))
    if team not in state.team_pozzetto:
        parts.append((f"{rules.names['pozzetto']} not taken", -rules.no_pozzetto_penalty))
    if not opened and rules.unopened_penalty:
        parts.append(("never opened", -rules.unopened_penalty))
    return parts


def score_hand(state: BurracoHand) -> HandResult:
    """The HandResult of a finished hand (ValueError if it is not over or a card is unknown)."""
    if not state.is_over:
        raise ValueError("the hand is not over yet")
    if state.abandoned_by is not None:
        return _abandoned(state, state.abandoned_by)
    sides = state.teams()
    points: list[int] = []
    breakdown: list[tuple[ScoreLine, ...]] = []
    credit = [0] * state.n_seats
    for seats in sides:
        team = state.team_of[seats[0]]
        lines = side_lines(state, team, seats)
        total = sum(ln.points for ln in lines)
        points.append(total)
        breakdown.append(tuple(lines))
        share = _half(total) if (state.dynamic and len(seats) == 2) else total
        for s in seats:
            credit[s] = share
    return HandResult(
        sides=tuple(sides), points=tuple(points), breakdown=tuple(breakdown),
        closed_by=state.closed_by, reason=state.end_reason,
        extra={"credit": credit, "variant": state.rules.name, "dynamic": state.dynamic,
               "pozzetti": [pz.taken_by for pz in state.pozzetti]},
    )


def _abandoned(state: BurracoHand, quitter: Seat) -> HandResult:
    """An abandoned hand scores nothing for anyone — the match is lost by the quitter's side
    instead (TABLE-9) — so no card needs to be known to score it."""
    sides = state.teams()
    return HandResult(
        sides=tuple(sides), points=(0,) * len(sides),
        breakdown=tuple((ScoreLine("abbandono (abandonment)", 0),) if quitter in seats else ()
                        for seats in sides),
        closed_by=None, reason="abandon",
        extra={"credit": [0] * state.n_seats, "variant": state.rules.name,
               "dynamic": state.dynamic, "pozzetti": [pz.taken_by for pz in state.pozzetti],
               "abandoned_by": quitter},
    )
