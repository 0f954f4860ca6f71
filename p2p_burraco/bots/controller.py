"""Bots as seat controllers: the one adapter from a `Strategy` to `controller.SeatController`,
used by selfplay over the full protocol, `join --bot`, `host --bots`, `play` and the tests.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any

from ..controller import Submit
from ..games.base import HandResult, HandState, Seat
from ..table.events import ErrorNotice, HandVoided, SeatEvent
from . import Strategy, make_strategy
from ._think import check_think

DEFAULT_STRATEGY = "heuristic"
"""The bot that fills empty seats unless told otherwise: the strongest we have."""

log = logging.getLogger("p2p_burraco.bot")


class BotController:
    """Asks a strategy for every move and answers at once.

    A refused move is recorded and logged, and the table asks again; more than
    `MAX_REJECTIONS` refusals in one hand means a bug in the bot, not a person thinking, so
    it raises rather than loop forever."""

    MAX_REJECTIONS = 20
    KEEP = 64
    """The last this many refusals, events and verdicts are kept (a long match stays flat)."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy
        self.rejections: list[str] = []
        self.events: list[ErrorNotice | HandVoided] = []
        """The errors and void hands it was told (what a test or a log asks a bot about)."""
        self.verdicts: list[str] = []
        self.final: dict[str, Any] | None = None
        self._refused_this_hand = 0

    def hand_started(self, state: HandState, seat: Seat) -> None:
        self._refused_this_hand = 0

    def your_turn(self, state: HandState, seat: Seat, submit: Submit) -> None:
        submit(self.strategy.choose(state, seat))

    def rejected(self, state: HandState, seat: Seat, error: str) -> None:
        self.rejections.append(error)
        del self.rejections[:-self.KEEP]
        self._refused_this_hand += 1
        log.warning("seat %d (%s): action refused: %s", seat, self.strategy.name, error)
        if self._refused_this_hand > self.MAX_REJECTIONS:
            raise RuntimeError(f"bot {self.strategy.name} at seat {seat} was refused "
                               f"{self._refused_this_hand} times this hand: {error}")

    def notify(self, event: SeatEvent) -> None:
        if isinstance(event, (ErrorNotice, HandVoided)):   # a bot reads nothing else
            self.events.append(event)
            del self.events[:-self.KEEP]

    def hand_ended(self, state: HandState, result: HandResult, verdict: str) -> None:
        self.verdicts.append(verdict)
        del self.verdicts[:-self.KEEP]

    def match_ended(self, standings: dict[str, Any]) -> None:
        self.final = standings

    @property
    def standings(self) -> dict[str, Any] | None:
        return self.final


BotFactory = Callable[[str], BotController]


def bot_factory(strategy: str | None, seed: int | None, think: float | None = None
                ) -> BotFactory:
    """game → a fresh BotController of `strategy` (default: the strongest), each with its own
    random stream drawn from `seed` (None: unseeded); `think` is an expert's per-move budget
    (checked now, not when the first hand starts)."""
    check_think(think)
    rng = random.Random(seed)
    name = strategy or DEFAULT_STRATEGY

    def make(game: str) -> BotController:
        return BotController(make_strategy(game, name, random.Random(rng.getrandbits(64)),
                                           think=think))
    return make


class LazyBotController:
    """A bot for a peer that learns its game only when the first hand starts (a `join --bot`
    may sit at any table): builds the real BotController then, and delegates."""

    def __init__(self, factory: BotFactory) -> None:
        self.factory = factory
        self.inner: BotController | None = None
        self.node: Any = None

    def _bot(self, state: HandState) -> BotController:
        if self.inner is None:
            self.inner = self.factory(state.game)
        return self.inner

    def hand_started(self, state: HandState, seat: Seat) -> None:
        self._bot(state).hand_started(state, seat)

    def your_turn(self, state: HandState, seat: Seat, submit: Submit) -> None:
        self._bot(state).your_turn(state, seat, submit)

    def rejected(self, state: HandState, seat: Seat, error: str) -> None:
        self._bot(state).rejected(state, seat, error)

    def notify(self, event: SeatEvent) -> None:
        if self.inner is not None:
            self.inner.notify(event)

    def hand_ended(self, state: HandState, result: HandResult, verdict: str) -> None:
        self._bot(state).hand_ended(state, result, verdict)

    def match_ended(self, standings: dict[str, Any]) -> None:
        if self.inner is not None:
            self.inner.match_ended(standings)


def timeout_bot(seed: int | None = None) -> Callable[[HandState, Seat], Any]:
    """The bot that plays a seat's move when its clock runs out (TABLE-3): the strongest
    strategy for the hand's game, made on first use."""
    rng = random.Random(seed)
    made: dict[str, Strategy] = {}

    def choose(state: HandState, seat: Seat) -> Any:
        strategy = made.get(state.game)
        if strategy is None:
            strategy = made[state.game] = best_strategy(state.game, rng)
        return strategy.choose(state, seat)
    return choose


def best_strategy(game: str, rng: random.Random) -> Strategy:
    """The default bot for `game`, with its own random stream."""
    return make_strategy(game, DEFAULT_STRATEGY, random.Random(rng.getrandbits(64)))
