"""In-process play: whole hands between bots, with the card-conservation check after every
action. Used by `p2p-burraco selfplay`, by the engine benchmark and by the test suite.

Dealing here is a plain seeded permutation (every position known to the one replica); the
fair-deal variant (`--fair`) lives in `p2p_burraco.table.inprocess` and deals through the
full protocol instead.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .bots import Strategy, make_strategy
from .errors import UsageError
from .games import get_game
from .games.base import HandResult, HandState, Match, check_cards_conserved

MAX_ACTIONS_PER_HAND = 20_000


@dataclass
class SelfplayConfig:
    game: str = "burraco"
    variant: str | None = None
    players: int = 4
    hands: int = 1
    seed: int = 0
    bots: Sequence[str] = ("greedy", "random")
    target: int | None = None
    options: dict[str, object] = field(default_factory=dict)
    check: bool = True
    think: float | None = None     # per-move budget of a bot that searches (expert)


def make_match(cfg: SelfplayConfig, rng: random.Random) -> Match:
    """A match of the configured game; the first dealer comes from the seeded randomness."""
    spec = get_game(cfg.game)
    variant = cfg.variant or spec.default_variant
    if variant not in spec.presets:
        raise UsageError(
            f"unknown {cfg.game} variant {variant!r}; choose one of: {', '.join(spec.presets)}"
        )
    rules = spec.presets[variant]
    allowed = tuple(spec.seat_counts(rules))
    if cfg.players not in allowed:
        raise UsageError(
            f"{cfg.game} {variant} is played by {', '.join(map(str, allowed))} players, "
            f"not {cfg.players}"
        )
    opts = dict(cfg.options)
    if cfg.target is not None:
        opts["target"] = cfg.target
    match: Match = spec.new_match(rules, cfg.players, first_dealer=rng.randrange(cfg.players),
                                  **opts)
    return match


def deal_known(state: HandState, rng: random.Random) -> None:
    """Deal by a seeded permutation: the single replica learns every position."""
    order = list(range(len(state.deck)))
    rng.shuffle(order)
    for pos, cid in enumerate(order):
        state.learn(pos, cid)


def play_hand(state: HandState, strategies: Sequence[Strategy], check: bool = True,
              on_action: Callable[[HandState, int, object], None] | None = None) -> HandResult:
    """Play one dealt hand to its end; check card conservation after every action."""
    if check:
        check_cards_conserved(state)
    for _ in range(MAX_ACTIONS_PER_HAND):
        seat = state.to_move
        if seat is None or state.is_over:
            break
        action = strategies[seat].choose(state, seat)
        state.apply(seat, action)
        if on_action is not None:
            on_action(state, seat, action)
        if check:
            check_cards_conserved(state)
    else:
        raise RuntimeError(f"hand did not end within {MAX_ACTIONS_PER_HAND} actions")
    return state.result()


def make_strategies(cfg: SelfplayConfig, rng: random.Random) -> list[Strategy]:
    names = list(cfg.bots) or ["greedy"]
    return [make_strategy(cfg.game, names[i % len(names)], random.Random(rng.getrandbits(64)),
                          think=cfg.think)
            for i in range(cfg.players)]


def run_selfplay(cfg: SelfplayConfig,
                 report: Callable[[int, HandState, HandResult], None] | None = None
                 ) -> tuple[Match, list[HandResult]]:
    """Play `cfg.hands` hands (fewer if the match ends first). Deterministic in `cfg.seed`:
    every random choice comes from one private `random.Random`, never the global one."""
    rng = random.Random(cfg.seed)
    match = make_match(cfg, rng)
    strategies = make_strategies(cfg, rng)
    results: list[HandResult] = []
    for hand_no in range(cfg.hands):
        if match.is_over:
            break
        state = match.new_hand()
        deal_known(state, rng)
        result = play_hand(state, strategies, check=cfg.check)
        match.record(result)
        results.append(result)
        if report is not None:
            report(hand_no, state, result)
    return match, results
