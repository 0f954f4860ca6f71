"""The host process of `p2p-burraco bench host`: one `net.host` HostNode, nothing else.

    python -m p2p_burraco.benchmarks.hostproc --port 0 --data-dir D --max-tables N

It opens no table of its own (`default_table=False`: the bench's clients create them with
`create_table`), serves until SIGTERM / SIGINT, and prints on stdout first
"listening on 127.0.0.1:PORT" then the host's own lines (the `p2p_burraco.host` logger, as
`p2p-burraco host` prints them: "t3: hand 4: played to its end"). Warnings and tracebacks go
to stderr. With `--profile FILE` the whole run is under cProfile and the pstats are written
to FILE when the host stops.

What the bench cannot see from /proc it asks the host itself: this process times its own
`os.fdatasync`/`os.fsync` calls (the journal makes every event durable before any reply
leaves) and the reactor's waits in epoll (idle), and prints every second

    bench-stats t=<monotonic s> syncs=<n> sync_s=<s> poll_s=<s>

(cumulative), so the bench can split the host's wall time into idle / disk / work.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m p2p_burraco.benchmarks.hostproc",
                                description="the host process of `bench host`")
    p.add_argument("--bind", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--data-dir", type=Path, required=True)
    p.add_argument("--max-tables", type=int, default=200)
    p.add_argument("--max-connections", type=int, default=None,
                   help="default: 4 × max-tables × 6 seats, at least 512")
    p.add_argument("--ping-interval", type=float, default=15.0)
    p.add_argument("--idle-timeout", type=float, default=120.0)
    p.add_argument("--step-deadline", type=float, default=30.0)
    p.add_argument("--profile", type=Path, default=None, help="write cProfile stats here")
    p.add_argument("--count-crypto", action="store_true",
                   help="count the cryptography done (benchmarks.counting) and print it "
                        "every second as a `bench-count` line")
    p.add_argument("--profile-clock", choices=("cpu", "wall"), default="cpu",
                   help="cpu: time.process_time (what the host spends; waits in epoll and "
                        "fdatasync hardly count); wall: time.perf_counter (default cpu)")
    return p.parse_args(argv)


def configure_logging() -> None:
    """The host's lines on stdout (no timestamp: the bench stamps them as they arrive);
    warnings and tracebacks of every other logger on stderr."""
    say = logging.getLogger("p2p_burraco.host")
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    say.addHandler(handler)
    say.setLevel(logging.INFO)
    say.propagate = False
    logging.basicConfig(level=logging.WARNING, format="%(name)s %(levelname)s %(message)s",
                        stream=sys.stderr)


class Clocks:
    """Cumulative seconds the host spent in fdatasync/fsync and idle in epoll."""

    def __init__(self) -> None:
        self.syncs = 0
        self.sync_s = 0.0
        self.poll_s = 0.0
        self.gc_s = 0.0
        self._gc_t = 0.0

    def time_gc(self) -> None:
        """Time Python's cyclic garbage collector (its callbacks fire as each collection
        starts and stops): host work no profiler frame shows."""
        import gc
        import time

        def timed(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                self._gc_t = time.perf_counter()
            else:
                self.gc_s += time.perf_counter() - self._gc_t
        gc.callbacks.append(timed)

    def wrap_syncs(self) -> None:
        """Time os.fdatasync and os.fsync (storage.files calls them through `os.`)."""
        import os
        import time

        for name in ("fdatasync", "fsync"):
            inner = getattr(os, name, None)
            if inner is None:
                continue

            def timed(fd: Any, _inner: Any = inner) -> None:
                t = time.perf_counter()
                try:
                    _inner(fd)
                finally:
                    self.sync_s += time.perf_counter() - t
                    self.syncs += 1
            setattr(os, name, timed)

    def wrap_poller(self, reactor: Any) -> None:
        """Time the epoll reactor's waits (its `_poller.poll`); other reactors: no figure."""
        found = getattr(reactor, "_poller", None)
        if found is None or not hasattr(found, "poll"):
            return
        poller: Any = found
        clocks = self

        class TimedPoller:
            def __getattr__(self, name: str) -> Any:
                return getattr(poller, name)

            def poll(self, *a: Any, **kw: Any) -> Any:
                import time
                t = time.perf_counter()
                try:
                    return poller.poll(*a, **kw)
                finally:
                    clocks.poll_s += time.perf_counter() - t
        reactor._poller = TimedPoller()

    def line(self) -> str:
        import time
        return (f"bench-stats t={time.monotonic():.4f} syncs={self.syncs} "
                f"sync_s={self.sync_s:.4f} poll_s={self.poll_s:.4f} gc_s={self.gc_s:.4f}")


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    configure_logging()

    if args.count_crypto:
        from . import counting
        counting.install()           # before net.host imports fairdeal
    # (the errors Twisted itself catches — in a Deferred, a callLater — it logs as critical,
    # which it prints on stderr by default: the bench counts their tracebacks there)
    from ..net.host import HostConfig, start_host
    from ..net.runtime import run_reactor

    per_table = 6     # the most seats a table has; each seat is one connection
    max_conn = args.max_connections or max(512, 4 * args.max_tables * per_table)
    cfg = HostConfig(bind=args.bind, port=args.port, data_dir=args.data_dir,
                     default_table=False, resume=False, max_tables=args.max_tables,
                     max_connections=max_conn, max_per_address=max_conn,
                     ping_interval=args.ping_interval, idle_timeout=args.idle_timeout,
                     step_deadline=args.step_deadline, grace=120.0,
                     exit_when_done=False, keep=False)

    clocks = Clocks()
    clocks.wrap_syncs()
    clocks.time_gc()

    def start(reactor: Any) -> Any:
        clocks.wrap_poller(reactor)
        node = start_host(reactor, cfg)
        host, port = node.address()
        print(f"listening on {host}:{port}", flush=True)

        def report() -> None:
            print(clocks.line(), flush=True)
            if args.count_crypto:
                from . import counting
                print(counting.line(), flush=True)
            reactor.callLater(1.0, report)
        report()
        return node.all_done   # never fires (no exit_when_done): SIGTERM stops the reactor

    profiler = None
    if args.profile is not None:
        import cProfile
        import time
        timer = time.process_time if args.profile_clock == "cpu" else time.perf_counter
        profiler = cProfile.Profile(timer)
        profiler.enable()
    try:
        _, error = run_reactor(start)
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(args.profile))
    sys.stdout.flush()
    if error is not None:
        print(f"hostproc: error: {error}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
