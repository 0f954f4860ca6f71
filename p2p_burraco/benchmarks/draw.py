"""`p2p-burraco bench draw`: how long a stock draw takes over the network.

A host and four bot peers (one process, one reactor, real loopback TCP) play Burraco hands.
Each time a peer sends a `draw` action, the clock starts; it stops when that peer's replica
knows the drawn card — i.e. the host has checked and relayed the action and the other seats'
lock keys for that position have arrived and been combined. The median and spread are
printed; nothing is asserted (figures, not tests).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HELP = "median time from a stock-draw request to the drawer knowing its card (loopback TCP)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", default="fibur", help="Burraco rule set (default fibur)")
    p.add_argument("--players", type=int, default=4, help="seats (default 4)")
    p.add_argument("--hands", type=int, default=1, help="hands to play (default 1)")
    p.add_argument("--strategy", default="greedy", help="bot strategy (default greedy)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--data-dir", default=None,
                   help="where the host's journal goes (default: a temporary directory; "
                        "a tmpfs such as /dev/shm takes the disk's fsync out of the figure)")


def _known(client: Any) -> int:
    hand = client.hand
    if hand is None:
        return 0
    return sum(1 for p in range(len(hand.deck)) if hand.card_at(p) is not None)


class DrawTimer:
    """Hooks on one PeerNode: start at a sent draw, stop when a new card is known."""

    def __init__(self, node: Any, samples: list[float]) -> None:
        self.node = node
        self.samples = samples
        self.t0: float | None = None
        self.before = 0
        node.on_sent = self.sent
        node.on_frame = self.frame

    def sent(self, msg: dict[str, Any]) -> None:
        if msg.get("type") == "action" and (msg.get("action") or {}).get("kind") == "draw":
            self.before = _known(self.node.seat_client)
            self.t0 = time.perf_counter()

    def frame(self, _frame: Any) -> None:
        if self.t0 is not None and _known(self.node.seat_client) > self.before:
            self.samples.append(time.perf_counter() - self.t0)
            self.t0 = None


def run(args: argparse.Namespace) -> int:
    from ..bots.controller import LazyBotController, bot_factory
    from ..net.host import HostConfig, start_host
    from ..net.peer import connect_peer
    from ..net.runtime import run_reactor

    samples: list[float] = []
    outcome: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="p2pb-bench-", dir=args.data_dir) as tmp:
        cfg = HostConfig(port=0, game="burraco", variant=args.variant, players=args.players,
                         hands=args.hands, data_dir=Path(tmp), exit_when_done=True)
        factory = bot_factory(args.strategy, args.seed)

        def start(reactor: Any) -> Any:
            node = start_host(reactor, cfg)
            outcome["node"] = node
            host, port = node.address()
            for i in range(args.players):
                peer = connect_peer(reactor, host, port, f"bench-{i}",
                                    LazyBotController(factory), seat=i)
                DrawTimer(peer, samples)
                peer.done.addErrback(
                    lambda f: outcome.setdefault("error", f.getErrorMessage()))
            started = time.perf_counter()

            def done(_: Any) -> None:
                outcome["elapsed"] = time.perf_counter() - started

            return node.all_done.addCallback(done)

        _, error = run_reactor(start, timeout=600)
        if error is not None:
            outcome.setdefault("error", error)
    if "error" in outcome or not samples:
        print(f"bench draw: failed: {outcome.get('error', 'no draw measured')}", file=sys.stderr)
        return 1
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    print(f"draw over loopback TCP, {args.players} seats ({args.variant}), "
          f"{args.hands} hand(s) in {outcome['elapsed']:.1f} s:")
    print(f"  median {statistics.median(ms):.2f} ms  (n={len(ms)}, min {ms[0]:.2f}, "
          f"p90 {p90:.2f}, max {ms[-1]:.2f})")
    print("  from the drawing peer sending its draw to it knowing the card: host check + relay,"
          f" {args.players - 1} key releases, decode; host and peers share one process")
    node = outcome.get("node")
    if node is not None:
        print(f"  journal in {args.data_dir or tempfile.gettempdir()}: {node.syncs} fsyncs "
              "(one per reactor turn that changed a match: nothing is relayed before it is "
              "on disk)")
    return 0
