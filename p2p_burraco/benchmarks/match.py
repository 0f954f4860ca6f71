"""`p2p-burraco bench match`: does a hand late in a long match cost what an early one does?

A hand refers to the previous one by the hash of its signed result and carries the match
state as a constant-size snapshot, never the history (PROTOCOL.md § 8.6, § 8.12). This
bench plays one long match in process (a host table and its seats, bots, the full
protocol) and prints, for the first and the last block of hands: the bytes of a hand's
`hand_start` and of its whole transcript, the host's CPU per hand (time spent inside the
host table's `apply`, process time), and the host table's own memory (the objects it keeps
between hands, measured with tracemalloc). Figures, not tests.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from typing import Any

from ..errors import UsageError

HELP = "a long match: hand bytes, host CPU and host memory, first hands against last hands"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="briscola", choices=("briscola", "burraco"))
    p.add_argument("--hands", type=int, default=400, help="hands to play (default 400)")
    p.add_argument("--block", type=int, default=50,
                   help="compare the first and the last this many hands (default 50)")
    p.add_argument("--seed", type=int, default=1)


def run(args: argparse.Namespace) -> int:
    from ..fairdeal.signing import canonical
    from ..selfplay import SelfplayConfig
    from ..table.inprocess import InProcessTable

    if args.hands < 2 * args.block or args.block < 1:
        raise UsageError("--hands must be at least twice --block")
    if args.game == "briscola":
        cfg = SelfplayConfig(game="briscola", players=2, hands=args.hands, seed=args.seed,
                             target=10 ** 6, options={"match_kind": "punti"})
    else:
        cfg = SelfplayConfig(game="burraco", variant="fibur", players=4, hands=args.hands,
                             seed=args.seed, target=10 ** 7)
    table = InProcessTable(cfg, audit_at_seats=False)
    host = table.host
    spent = [0.0]
    apply = host.apply

    def timed(event: Any) -> Any:
        t0 = time.process_time()
        try:
            return apply(event)
        finally:
            spent[0] += time.process_time() - t0

    host.apply = timed                  # type: ignore[method-assign]  # timing wrapper, restored after
    rows: list[tuple[int, int, float, int]] = []
    tracemalloc.start()
    for _ in range(args.hands):
        if not host.can_deal():
            break
        before = spent[0]
        record = table.play_hand()
        table.records.clear()           # the harness's own keepsakes: not the host's
        table.journal.clear()
        table.lines.clear()
        hs = record.transcript.entries[0]
        kept, _ = tracemalloc.get_traced_memory()
        rows.append((len(canonical(hs)), len(record.transcript.to_bytes()),
                     spent[0] - before, kept))
    tracemalloc.stop()
    if len(rows) < 2 * args.block:
        print(f"bench match: the match ended after {len(rows)} hands")
        return 1
    first, last = rows[:args.block], rows[-args.block:]
    print(f"{cfg.game}, {len(rows)} hands in one match (in process, full protocol, host CPU "
          "= process time inside the host table's apply)")
    print(f"{'':>22} {'first ' + str(args.block):>14} {'last ' + str(args.block):>14}")
    for name, col, fmt in (("hand_start bytes", 0, "{:.0f}"), ("transcript bytes", 1, "{:.0f}"),
                           ("host CPU ms/hand", 2, "{:.2f}")):
        a = statistics.mean(r[col] for r in first) * (1000 if col == 2 else 1)
        b = statistics.mean(r[col] for r in last) * (1000 if col == 2 else 1)
        print(f"{name:>22} {fmt.format(a):>14} {fmt.format(b):>14}")
    grow = (last[-1][3] - first[-1][3]) / 1024
    print(f"{'memory traced, KB':>22} {first[-1][3] / 1024:>14.0f} {last[-1][3] / 1024:>14.0f}"
          f"   ({grow / max(1, len(rows) - args.block):+.2f} KB a hand in between; the "
          "process's, seats included)")
    return 0
