"""`p2p-burraco bench deal --seats N --cards M`: the whole in-process fair deal against its floor.

The deal is timed from the first commitment to the moment every seat knows its opening hand
(commit, N shuffle passes, N lock passes, key releases, every seat decoding its cards, the
public face-up card decoded by all), with the host-side gate checking and relaying every
signed message. The floor is the same number of bare libsodium scalar multiplications,
timed in the same run right after each deal; the last line gives the median times and the
median of the per-run ratios, so a machine busy with other work slows both alike.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ..errors import UsageError

HELP = "time a whole in-process fair deal against the bare scalar multiplications it needs"

DECKS = {40: "italian40", 108: "french108", 162: "french162"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seats", type=int, default=4, help="seats at the table (2..6)")
    p.add_argument("--cards", type=int, default=108, choices=sorted(DECKS),
                   help="deck size: 40 (Briscola), 108 or 162 (Burraco)")
    p.add_argument("--rounds", type=int, default=9, help="timed deals (and floors)")
    p.add_argument("--hand", type=int, default=None,
                   help="cards dealt to each seat (default: 3 for 40 cards, else 11)")


def run(args: argparse.Namespace) -> int:
    from ..fairdeal import group
    from ..fairdeal.local import LocalTable, hands_schedule

    if not 2 <= args.seats <= 6:
        raise UsageError("--seats must be 2..6")
    per_seat = args.hand if args.hand is not None else (3 if args.cards == 40 else 11)
    if per_seat < 1 or args.seats * per_seat + 1 > args.cards:
        raise UsageError(f"{args.seats} hands of {per_seat} do not fit in {args.cards} cards")
    deck_id = DECKS[args.cards]
    group.card_points(deck_id, args.cards)          # once per deck per process, not per deal
    audience = hands_schedule(args.seats, args.cards, per_seat, public=1)

    deal_ms: list[float] = []
    floor_ms: list[float] = []
    mults = 0
    for r in range(max(1, args.rounds) + 1):
        table = LocalTable.new(args.seats, deck_id, args.cards, audience,
                               base=f"bench-{r}".encode())
        before = group.MULTIPLICATIONS[0]
        t0 = time.perf_counter()
        results = table.deal()
        t1 = time.perf_counter()
        mults = group.MULTIPLICATIONS[0] - before
        bad = [b for _, b in results if b]
        if bad:
            raise RuntimeError(f"a seat failed to decode its cards: {bad}")
        t2 = time.perf_counter()
        group.bare_multiplications(mults)
        t3 = time.perf_counter()
        if r == 0:
            continue                                   # warm-up round
        deal_ms.append((t1 - t0) * 1e3)
        floor_ms.append((t3 - t2) * 1e3)

    best_deal, best_floor = min(deal_ms), min(floor_ms)
    med_deal, med_floor = statistics.median(deal_ms), statistics.median(floor_ms)
    ratios = [d / f for d, f in zip(deal_ms, floor_ms)]
    ratio = statistics.median(ratios)
    passes = 2 * args.seats * args.cards
    print(f"fair deal: {args.seats} seats, {args.cards} cards ({deck_id}), "
          f"{per_seat} cards to each seat + 1 face up")
    print(f"multiplications: {mults} ({passes} in shuffle/lock passes, "
          f"{mults - passes} decoding the dealt cards)")
    print(f"deal  ms: best {best_deal:.1f}  median {med_deal:.1f} over {len(deal_ms)} runs")
    print(f"floor ms: best {best_floor:.1f}  median {med_floor:.1f} "
          f"({best_floor * 1e3 / mults:.0f} µs per bare multiplication at best)")
    print(f"ratio per run (deal / the floor timed right after it): "
          f"{' '.join(f'{r:.2f}' for r in ratios)}; best/best {best_deal / best_floor:.2f}")
    print(f"deal {med_deal:.1f} ms, floor {med_floor:.1f} ms, ratio {ratio:.2f}")
    return 0
