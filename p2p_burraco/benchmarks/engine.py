"""`p2p-burraco bench engine`: whole Burraco hands per second, in-process, greedy bots, no crypto."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator

from ..errors import UsageError

HELP = "Burraco engine speed: whole hands per second (greedy bots, no crypto)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", default="fibur",
                   help="rule set, or `all`: every rule set in turn, with each one's cost of "
                        "an action against fibur's (default fibur)")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--hands", type=int, default=60)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bots", default="greedy")
    p.add_argument("--check", action="store_true",
                   help="also run the card-conservation check after every action")


def run(args: argparse.Namespace) -> int:
    if args.variant != "all":
        return run_one(args)[0]
    from ..games import get_game

    costs: dict[str, float] = {}
    for variant in get_game("burraco").presets:
        one = argparse.Namespace(**{**vars(args), "variant": variant})
        costs[variant] = run_one(one)[1]
        print()
    base = costs.get("fibur")
    print("CPU cost of an action (process time, whole hands, greedy bots), against fibur's:")
    for variant, us in costs.items():
        ratio = f"{us / base:.2f}×" if base else "n/a"
        print(f"  {variant:<11} {us:7.1f} µs  {ratio}")
    return 0


def run_one(args: argparse.Namespace) -> tuple[int, float]:
    """One rule set's figures, printed; (exit code, µs of process CPU time an action: a
    figure a busy machine disturbs less than wall time)."""
    import random

    from ..games import get_game
    from ..games.burraco import BurracoHand
    from ..gc_policy import apply_gc_policy
    from ..selfplay import SelfplayConfig, deal_known, make_strategies, play_hand

    apply_gc_policy()   # as a host, a peer and selfplay run (gc_policy.py says why)

    spec = get_game("burraco")
    if args.variant not in spec.presets:
        raise UsageError(f"unknown variant {args.variant!r}; "
                         f"choose one of: {', '.join(spec.presets)}")
    rules = spec.presets[args.variant]
    cfg = SelfplayConfig(game="burraco", variant=args.variant, players=args.players,
                         bots=[b.strip() for b in args.bots.split(",") if b.strip()],
                         seed=args.seed)
    rng = random.Random(args.seed)
    strategies = make_strategies(cfg, rng)
    actions = 0
    hands = 0
    timer = _LegalTimer()
    state_type = BurracoHand
    original = state_type.legal_actions
    state_type.legal_actions = timer.wrap(original)  # type: ignore[method-assign,assignment]  # timing wrapper, restored after
    half = (0.0, 0, 0.0, 0)   # time, hands, legal_actions time, calls at the half-way mark
    try:
        start = time.perf_counter()
        cpu0 = time.process_time()
        match = spec.new_match(rules, args.players, first_dealer=0, target=10**9)
        for i in range(args.hands):
            if i == args.hands // 2:
                half = (time.perf_counter(), hands, timer.total, timer.calls)
            state = match.new_hand()
            deal_known(state, rng)

            def count(_s: object, _seat: int, _a: object) -> None:
                nonlocal actions
                actions += 1

            result = play_hand(state, strategies, check=args.check, on_action=count)
            match.record(result)
            hands += 1
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu0
    finally:
        state_type.legal_actions = original  # type: ignore[method-assign]  # the original back
    print(f"burraco {args.variant}, {args.players} seats, bots {args.bots}"
          f"{', conservation checked' if args.check else ''}: {hands} hands in {elapsed:.2f} s")
    print(f"  {hands / elapsed:.1f} hands/s, {actions / elapsed:.0f} actions/s, "
          f"{actions / max(hands, 1):.0f} actions per hand")
    print(f"  legal_actions: {timer.calls} calls, mean {timer.mean_us():.1f} µs "
          f"(as far as the bots read it; {100 * timer.total / elapsed:.0f} % of the time)")
    print(f"  by phase: {timer.phases()}")
    if half[1]:
        # The engine's memo tables (games/burraco/memo.py) fill as positions recur: the second
        # half of a run shows a process that has been playing for a while (a host, a search).
        t2, n2 = start + elapsed - half[0], hands - half[1]
        print(f"  second half only: {n2 / t2:.1f} hands/s, legal_actions mean "
              f"{1e6 * (timer.total - half[2]) / max(timer.calls - half[3], 1):.1f} µs")
    return 0, 1e6 * cpu / max(actions, 1)


class _LegalTimer:
    """Times every `legal_actions` call as the bot reads it: the generator is lazy, so its
    cost is paid item by item while the bot reads it (a bot that stops after a few
    candidates pays for those only), and the bench does not read more than the bot does."""

    def __init__(self) -> None:
        self.calls = 0
        self.total = 0.0
        self.by_phase: dict[str, list[float]] = {}   # phase -> [calls, seconds]

    def wrap(self, fn: Callable[..., Iterator[object]]) -> Callable[..., Iterator[object]]:
        def timed(state: object, seat: int) -> Iterator[object]:
            tally = self.by_phase.setdefault(getattr(state, "phase", "?"), [0, 0.0])
            self.calls += 1
            tally[0] += 1
            clock = time.perf_counter
            t0 = clock()
            gen = fn(state, seat)
            while True:
                try:
                    item = next(gen)
                except StopIteration:
                    item = None
                    done = True
                else:
                    done = False
                dt = clock() - t0
                self.total += dt
                tally[1] += dt
                if done:
                    return
                yield item
                t0 = clock()
        return timed

    def phases(self) -> str:
        return ", ".join(f"{phase} {n:.0f} calls {1e6 * t / max(n, 1):.1f} µs"
                         for phase, (n, t) in sorted(self.by_phase.items()))

    def mean_us(self) -> float:
        return 1e6 * self.total / max(self.calls, 1)
