"""The random legal bot: the baseline every heuristic bot is measured against."""

from __future__ import annotations

import random

from ..games.base import Action, HandState, Seat


class RandomBot:
    """Picks uniformly among a bounded sample of the engine's legal actions.

    The engine's generator is lazy and may be huge (every meld of a hand), so the bot takes
    the first `cap` candidates of each legal kind and picks among kinds first: that keeps a
    move cheap while every kind of action stays reachable.
    """

    name = "random"

    def __init__(self, rng: random.Random, cap: int = 64) -> None:
        self.rng = rng
        self.cap = cap

    def choose(self, state: HandState, seat: Seat) -> Action:
        by_kind: dict[str, list[Action]] = {}
        for action in state.legal_actions(seat):
            bucket = by_kind.setdefault(action.kind, [])
            if len(bucket) < self.cap:
                bucket.append(action)
            if all(len(b) >= self.cap for b in by_kind.values()) and \
                    len(by_kind) >= len(state.legal_kinds(seat)):
                break
        if not by_kind:
            raise RuntimeError(f"seat {seat} has no legal action in phase {state.phase}")
        kind = self.rng.choice(sorted(by_kind))
        return self.rng.choice(by_kind[kind])
