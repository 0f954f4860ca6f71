"""Bot strategies: a seat's replica of the hand in, an action out.

A strategy only reads what its seat may know: `state.player_view(seat)`, its own cards
(`state.card_at` on its positions) and `state.legal_actions(seat)`. Bots never
re-implement a rule: every candidate they consider comes from the engine.
"""

from __future__ import annotations

import importlib
import random
from typing import Protocol

from ..errors import UsageError
from ..games.base import Action, HandState, Seat
from ._think import check_think


class Strategy(Protocol):
    name: str

    def choose(self, state: HandState, seat: Seat) -> Action:
        """Pick one legal action of `seat` in `state`."""
        ...


# (game, strategy name) -> "module:factory"; a factory takes a random.Random.
_STRATEGIES: dict[tuple[str, str], str] = {
    ("burraco", "random"): "p2p_burraco.bots.random_bot:RandomBot",
    ("briscola", "random"): "p2p_burraco.bots.random_bot:RandomBot",
    ("burraco", "greedy"): "p2p_burraco.bots.burraco_greedy:GreedyBot",
    ("briscola", "greedy"): "p2p_burraco.bots.briscola_greedy:GreedyBot",
    ("burraco", "heuristic"): "p2p_burraco.bots.burraco_heuristic:HeuristicBot",
    ("briscola", "heuristic"): "p2p_burraco.bots.briscola_heuristic:HeuristicBot",
    ("burraco", "expert"): "p2p_burraco.bots.burraco_expert:ExpertBot",
    ("briscola", "expert"): "p2p_burraco.bots.briscola_expert:ExpertBot",
}


def strategy_names(game: str) -> list[str]:
    return [n for (g, n) in _STRATEGIES if g == game]


def make_strategy(game: str, name: str, rng: random.Random, think: float | None = None
                  ) -> Strategy:
    """Build a strategy by name; ValueError naming the choices otherwise. `think` is the
    per-move time budget in seconds of a bot that searches (`expert`); others ignore it."""
    try:
        target = _STRATEGIES[(game, name)]
    except KeyError:
        raise UsageError(
            f"no bot {name!r} for {game}; choose one of: {', '.join(strategy_names(game))}"
        ) from None
    module_name, factory = target.split(":")
    module = importlib.import_module(module_name)
    check_think(think)
    cls = getattr(module, factory)
    if think is not None and getattr(cls, "thinks", False):
        strategy: Strategy = cls(rng, think=think)
    else:
        strategy = cls(rng)
    return strategy
