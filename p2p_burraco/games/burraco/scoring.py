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
from .melds import Arrangement, classify, royal_kind
from .rules import RuleSet

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


def meld_bonus(rules: RuleSet, faces: list[Card], arr: Arrangement, moves: int,
               one_move: bool) -> tuple[str, int] | None:
    """The bonus one meld earns, labelled with what it is and why it pays that much, so a
    player can check the score sheet: e.g. ``canasta pulita A–K in una mossa (clean, every
    rank, laid in one move) Ah…Kh`` 500. None below a burraco (FIBUR-26, BURACO-5)."""
    cls = classify(faces, arr, rules)
    if cls is None:
        return None
    name = rules.names["burraco"]
    a = rules.agree  # canasta pulita, burraco pulito
    n = len(faces)
    what = f"{faces[0]}…{faces[-1]}" if arr.kind == "run" else f"set of {str(faces[0])[:-1]}s"
    royal = royal_kind(faces, arr, True) if rules.canasta_500 or rules.canasta_1000 else 0
    if royal and one_move:
        if royal == 14 and rules.canasta_1000:
            label = f"{name} reale A–A in una mossa (clean, ace to ace, laid in one move) {what}"
            return label, rules.canasta_1000
        if royal == 13 and rules.canasta_500:
            label = (f"{name} pulit{a} A–K in una mossa (clean, every rank, laid in one move) "
                     f"{what}")
            return label, rules.canasta_500
    if cls == "pulito":
        why = f"clean, {n} cards, no wild"
        if royal:
            paid = rules.canasta_1000 if royal == 14 else rules.canasta_500
            why += f"; built in {moves} moves, and the {paid} is for one move only"
        return (f"{name} pulit{a} ({why}) {what}", rules.clean_bonus)
    if cls == "semipuro":
        label = (f"{name} semipuro (semi-clean, {n} cards, 7 or more natural in a row beside "
                 f"the wild) {what}")
        return label, rules.semipuro_bonus or 0
    return (f"{name} sporc{a} (dirty, {n} cards with a wild) {what}", rules.dirty_bonus)


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
    parts: list[tuple[str, float]] = []
    melds = sorted(state.team_melds(team), key=lambda m: m.id)
    meld_points = 0
    bonuses: list[tuple[str, float]] = []
    for m in melds:
        faces = _faces(state, m.positions)  # melds are face up: always known
        meld_points += sum(rules.card_points(c) for c in faces)
        bonus = meld_bonus(rules, faces, m.arrangement(), len(m.moves), m.one_move)
        if bonus is not None:
            bonuses.append(bonus)
    if melds:
        parts.append(("cards in melds", meld_points))
    parts += bonuses
    if state.closed_by is not None and state.closed_by in seats:
        parts.append((f"closing (seat {state.closed_by} went out)", rules.closing_bonus))
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
