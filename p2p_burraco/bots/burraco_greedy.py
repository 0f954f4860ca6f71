"""Greedy Burraco bot: takes the pile when it can meld from it, melds and attaches the most
points first, discards the least useful card, closes whenever the engine allows it.

It only reads what its seat may know (its replica's view, its own cards) and only plays
actions the engine offers in `legal_actions`; it never re-implements a rule.
"""

from __future__ import annotations

import random
from itertools import islice

from ..games.base import Action, HandState, Seat
from ..games.cards import Card, DeckKind, make_deck

_FACES = make_deck(DeckKind.FRENCH_162).cards
MAX_CANDIDATES = 400


def _face(cid: int) -> Card:
    return _FACES[cid]


def _is_wild(c: Card) -> bool:
    return c.rank in (0, 2)


def _value(c: Card) -> int:
    if c.rank == 0:
        return 30
    if c.rank == 2:
        return 20
    if c.rank == 1:
        return 15
    return 10 if c.rank >= 8 else 5


_PLAY_POINTS = [2 * _value(c) - (25 if _is_wild(c) else 0) + 1 for c in _FACES]
"""What one card adds to a play's value (`GreedyBot._play_value`), by card id."""


class GreedyBot:
    """See the module docstring. `rng` breaks ties, so two bots with different seeds differ."""

    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: HandState, seat: Seat) -> Action:
        actions = list(islice(state.legal_actions(seat), MAX_CANDIDATES))
        if not actions:
            raise RuntimeError(f"seat {seat} has no legal action in phase {state.phase}")
        by_kind: dict[str, list[Action]] = {}
        for a in actions:
            by_kind.setdefault(a.kind, []).append(a)
        if state.phase == "draw":
            return self._draw_or_take(state, seat, by_kind)
        plays = by_kind.get("meld", []) + by_kind.get("attach", [])
        if plays:
            return max(plays, key=lambda a: (self._play_value(a), self.rng.random()))
        discards = by_kind.get("discard", [])
        if discards:
            return self._discard(state, seat, discards)
        return self.rng.choice(actions)

    @staticmethod
    def _hand(state: HandState, seat: Seat) -> list[tuple[int, int | None]]:
        fast = getattr(state, "hand_refs", None)
        if fast is not None:
            return list(fast(seat))
        return [(p, state.card_at(p)) for p, _ in state.player_view(seat)["hand"]]

    @staticmethod
    def _pile(state: HandState, seat: Seat) -> list[tuple[int, int | None]]:
        fast = getattr(state, "pile_refs", None)
        if fast is not None:
            return list(fast())
        return [(p, state.card_at(p)) for p, _ in state.player_view(seat)["pile"]]

    @staticmethod
    def _play_value(action: Action) -> int:
        """Twice the points put down, less 25 a wild (keep wild cards for when they are
        needed: a play of naturals scores higher), plus one a card: summed per card from
        `_PLAY_POINTS`, since the bench runs this for every meld and attachment offered."""
        return sum([_PLAY_POINTS[cid] for _, cid in action.shown()])

    def _draw_or_take(self, state: HandState, seat: Seat, by_kind: dict[str, list[Action]]
                      ) -> Action:
        takes = by_kind.get("take", []) + by_kind.get("take_top", [])
        draws = by_kind.get("draw", [])
        pile = {p for p, _ in self._pile(state, seat)} if takes else set()
        for take in takes:
            if getattr(take, "opening", ()):
                return take
            trial = state.copy()
            trial.apply(seat, take)
            for a in islice(trial.legal_actions(seat), MAX_CANDIDATES):
                if a.kind in ("meld", "attach") and any(p in pile for p, _ in a.shown()):
                    return take
        if draws:
            return draws[0]
        return takes[0]

    def _discard(self, state: HandState, seat: Seat, discards: list[Action]) -> Action:
        """The least useful card: fewest cards of its rank, then of its suit one or two ranks
        away (wild cards never go), the lower value first. Counted once per hand, not per
        pair of cards."""
        same_rank: dict[int, int] = {}
        near: dict[tuple[object, int], int] = {}
        for _, cid in self._hand(state, seat):
            if cid is None:
                continue
            o = _face(cid)
            if _is_wild(o):
                continue
            same_rank[o.rank] = same_rank.get(o.rank, 0) + 1
            near[(o.suit, o.rank)] = near.get((o.suit, o.rank), 0) + 1

        def usefulness(a: Action) -> tuple[float, float]:
            (ref,) = a.shown()
            c = _face(ref[1])
            if _is_wild(c):
                return (100.0, 0.0)
            s, r = c.suit, c.rank
            score = 2.0 * (same_rank[r] - 1)   # the card itself is in the hand: not counted
            score += 1.5 * (near.get((s, r - 1), 0) + near.get((s, r + 1), 0))
            score += 1.0 * (near.get((s, r - 2), 0) + near.get((s, r + 2), 0))
            return (score, -_value(c) + self.rng.random())

        return min(discards, key=usefulness)
