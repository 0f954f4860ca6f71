"""`p2p-burraco bench table`: one real table, every node in its own process — what the host
and each peer spend in CPU per hand, next to the floor of the cryptography each one did.

Processes, all on 127.0.0.1 over real TCP: the host (`benchmarks.hostproc --count-crypto`,
a fresh temporary data dir) and one process per seat (`python -m p2p_burraco.benchmarks.table
--peer ...`: one `net.peer` PeerNode with a bot, ephemeral, exactly what `join --bot` runs).
Seat 0 creates the table (a target no match reaches in the run), the other seats join it.

Every process wraps the library calls of the cryptography (`benchmarks.counting`: ed25519
scalar multiplications, signature checks, statements signed, X25519 agreements) and prints
its cumulative counts with its process CPU once a second. The bench reads the hands closed
from the host's lines; the measured window starts after the warm-up (and after the first
hand) and ends at --seconds. For each process: CPU per hand (process time in the window over
the hands closed in it) and the floor per hand (each count in the window × the cost of one
bare call of its kind, timed in the bench process just before the run), and their ratio.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .counting import COUNT_PATTERN, KINDS

if TYPE_CHECKING:
    from .host import Proc

HELP = "CPU per hand of the host and of each peer, each in its own process, against the " \
       "floor of the cryptography each did"

COUNT_LINE = re.compile(COUNT_PATTERN)
TABLE_LINE = re.compile(r"^TABLE (\S+)")
BIG_TARGET = 1_000_000


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="burraco", choices=("burraco", "briscola"))
    p.add_argument("--variant", default=None, help="rule set (default: the game's)")
    p.add_argument("--players", type=int, default=None,
                   help="seats (default 4 Burraco, 2 Briscola)")
    p.add_argument("--seconds", type=float, default=40.0, help="how long the table plays "
                   "(default 40)")
    p.add_argument("--warmup", type=float, default=0.25,
                   help="fraction of --seconds left out of the figures (default 0.25)")
    p.add_argument("--strategy", default="greedy", help="bot strategy (default greedy)")
    p.add_argument("--seed", type=int, default=None, help="seed the bots' choices")
    p.add_argument("--profile", type=Path, default=None, metavar="DIR",
                   help="run every process under cProfile (process-time clock) and write "
                        "DIR/host.pstats, DIR/seat-N.pstats; print each one's top 15")
    p.add_argument("--peer", action="store_true", help=argparse.SUPPRESS)


# --------------------------------------------------------------------------- a seat's process

def peer_main(argv: list[str]) -> int:
    """One seat: a PeerNode with a bot, counting its cryptography, until SIGTERM. Prints
    "TABLE <id>" when it created the table, and a `bench-count` line every second."""
    p = argparse.ArgumentParser(prog="bench table --peer")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--seat", type=int, required=True)
    p.add_argument("--table", default=None)
    p.add_argument("--game", required=True)
    p.add_argument("--variant", default=None)
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--strategy", default="greedy")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--profile", type=Path, default=None)
    args = p.parse_args(argv)

    import logging

    from . import counting
    counting.install()                    # before anything loads fairdeal
    logging.basicConfig(level=logging.WARNING, format="%(name)s %(levelname)s %(message)s",
                        stream=sys.stderr)

    from ..bots.controller import LazyBotController, bot_factory
    from ..net.peer import PeerConfig, PeerNode
    from ..net.runtime import run_reactor

    factory = bot_factory(args.strategy, args.seed)
    create = None
    if args.table is None:
        create = {"game": args.game, "variant": args.variant, "players": args.players,
                  "target": BIG_TARGET, "hands": None}

    class Peer(PeerNode):
        def frame(self, conn: Any, frame: Any) -> None:
            super().frame(conn, frame)
            if frame.type == "table_created":
                print(f"TABLE {frame.body['table']}", flush=True)

    def start(reactor: Any) -> Any:
        cfg = PeerConfig(host="127.0.0.1", port=args.port, name=f"seat{args.seat}",
                         data_dir=None, reconnect=True, table=args.table, seat=args.seat,
                         create=create, ping_interval=15.0, idle_timeout=120.0)
        node = Peer(reactor, cfg, LazyBotController(factory))

        def report() -> None:
            print(counting.line(), flush=True)
            reactor.callLater(1.0, report)
        report()
        node.start()
        return node.done

    profiler = None
    if args.profile is not None:
        import cProfile
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
    try:
        run_reactor(start)
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(args.profile))
    return 0


# --------------------------------------------------------------------------- the bench

@dataclass
class Sample:
    t: float
    cpu: float
    counts: dict[str, int]


def samples(lines: list[tuple[float, str]]) -> list[Sample]:
    out = []
    for _, x in list(lines):
        m = COUNT_LINE.match(x)
        if m:
            out.append(Sample(float(m.group(1)), float(m.group(2)),
                              dict(zip(KINDS, (int(g) for g in m.groups()[2:]), strict=True))))
    return out


def at(series: list[Sample], t: float) -> Sample | None:
    """The last sample taken by monotonic time `t`."""
    last = None
    for s in series:
        if s.t > t:
            break
        last = s
    return last


def run(args: argparse.Namespace) -> int:
    from .counting import unit_costs
    from .host import HAND_LINE, tracebacks

    if args.peer:
        raise UsageError("--peer is for the bench's own seat processes")
    if args.seconds <= 0 or not 0 <= args.warmup < 1:
        raise UsageError("--seconds must be positive and --warmup in [0, 1)")
    players = args.players or (4 if args.game == "burraco" else 2)
    profile = args.profile.resolve() if args.profile is not None else None
    if profile is not None:
        profile.mkdir(parents=True, exist_ok=True)
    costs = unit_costs()
    load_before = _load_average()
    played = _play(args, players, profile)
    host, peers, t_end = played.host, played.peers, played.t_end
    hands = [t for t, x in host.out.lines if HAND_LINE.match(x)]
    first = hands[0] if hands else t_end
    t_warm = max(played.t_warm, first)
    in_window = sum(1 for t in hands if t_warm < t <= t_end)

    print(f"bench table: {args.game} {args.variant or '(default rules)'}, {players} seats, "
          f"bots '{args.strategy}', host and every seat in its own process; {args.seconds:g} s")
    print(f"  load average:   {load_before} before, {_load_average()} after")
    print("  one bare call:  " + ", ".join(f"{k} {v * 1e6:.1f} µs" for k, v in costs.items())
          + " (process time, measured by the bench first)")
    print(f"  hands:          {len(hands)} closed; {in_window} in the measured window "
          f"({t_end - t_warm:.1f} s)")
    errors = tracebacks(host.err.lines) + [tb for q in peers for tb in tracebacks(q.err.lines)]
    if in_window == 0:
        print("  no hand closed in the window: run longer (--seconds)")
        return 1
    _print_costs(players, [host, *peers], costs, t_warm, t_end, in_window)
    if errors:
        print(f"  tracebacks ({len(errors)}):")
        for x in errors[:8]:
            print(f"    {x}")
    if profile is not None:
        from .host import print_profile
        for name in ["host"] + [f"seat-{i}" for i in range(players)]:
            print(f"\n===== {name}")
            print_profile(profile / f"{name}.pstats", "cpu", 15)
    return 1 if errors else 0


def _load_average() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


@dataclass
class _Played:
    """The processes of a table that played (stopped by now, their lines kept) and the
    bench's window: from the end of the warm-up to the end of the run (or the first
    process to exit)."""

    host: Proc
    peers: list[Proc]
    t_warm: float
    t_end: float


def _play(args: argparse.Namespace, players: int, profile: Path | None) -> _Played:
    """Start the host, seat 0 (which creates the table) and the other seats, let them play
    for --seconds, and stop them all: the figures come afterwards from their lines."""
    from .host import spawn, stop

    with tempfile.TemporaryDirectory(prefix="p2pb-bench-table-") as tmp:
        host_cmd = [sys.executable, "-m", "p2p_burraco.benchmarks.hostproc", "--port", "0",
                    "--data-dir", tmp, "--max-tables", "4", "--count-crypto"]
        if profile is not None:
            host_cmd += ["--profile", str(profile / "host.pstats")]
        host = spawn(host_cmd)
        peers: list[Proc] = []
        try:
            m = host.out.wait_for(r"listening on [\d.]+:(\d+)", host.popen, 60)
            if m is None:
                raise OSError("the host process did not start:\n"
                              + "\n".join(x for _, x in host.err.lines[-20:]))
            port = m.group(1)
            peers.append(spawn(_seat_cmd(args, players, profile, port, 0, None)))
            m = peers[0].out.wait_for(TABLE_LINE.pattern, peers[0].popen, 60)
            if m is None:
                raise OSError("seat 0 did not create a table:\n"
                              + "\n".join(x for _, x in peers[0].err.lines[-20:]))
            for seat in range(1, players):
                peers.append(spawn(_seat_cmd(args, players, profile, port, seat, m.group(1))))
            t0 = time.monotonic()
            t_warm, t_end = t0 + args.warmup * args.seconds, t0 + args.seconds
            while time.monotonic() < t_end:
                if host.popen.poll() is not None or any(q.popen.poll() is not None
                                                        for q in peers):
                    break
                time.sleep(0.2)
            t_end = min(t_end, time.monotonic())
            time.sleep(1.2)          # the last count lines of the window arrive
        finally:
            for q in peers:
                stop(q, 10)
            stop(host, 30)
    return _Played(host, peers, t_warm, t_end)


def _seat_cmd(args: argparse.Namespace, players: int, profile: Path | None, port: str,
              seat: int, table: str | None) -> list[str]:
    """The command line of one seat's process (`table` None: seat 0, which creates it)."""
    cmd = [sys.executable, "-m", "p2p_burraco.benchmarks.table", "--peer",
           "--port", port, "--seat", str(seat), "--game", args.game,
           "--players", str(players), "--strategy", args.strategy]
    if table is not None:
        cmd += ["--table", table]
    if args.variant:
        cmd += ["--variant", args.variant]
    if args.seed is not None:
        cmd += ["--seed", str(args.seed * 100 + seat)]
    if profile is not None:
        cmd += ["--profile", str(profile / f"seat-{seat}.pstats")]
    return cmd


def _print_costs(players: int, procs: list[Proc], costs: dict[str, float], t_warm: float,
                 t_end: float, in_window: int) -> None:
    """One row a process and one for the whole table: CPU per hand against the floor of the
    cryptography it counted in the window (each count × the cost of one bare call)."""
    print(f"  {'process':<8} {'CPU/hand':>10} {'floor/hand':>11} {'ratio':>6}   "
          + "  ".join(f"{k + '/hand':>12}" for k in KINDS))
    names = ["host"] + [f"seat {i}" for i in range(players)]
    total_cpu = total_floor = 0.0
    for name, proc in zip(names, procs, strict=False):  # a seat may not have started
        series = samples(proc.out.lines)
        a, b = at(series, t_warm), at(series, t_end)
        if a is None or b is None or b.t <= a.t:
            print(f"  {name:<8} no counts in the window")
            continue
        # scale the process' own window to the bench's (its lines come once a second)
        scale = (t_end - t_warm) / (b.t - a.t)
        cpu = (b.cpu - a.cpu) * scale / in_window
        per = {k: (b.counts[k] - a.counts[k]) * scale / in_window for k in KINDS}
        floor = sum(per[k] * costs[k] for k in KINDS)
        total_cpu += cpu
        total_floor += floor
        print(f"  {name:<8} {cpu * 1000:>7.1f} ms {floor * 1000:>8.1f} ms "
              f"{cpu / floor if floor else float('nan'):>5.1f}×   "
              + "  ".join(f"{per[k]:>12.0f}" for k in KINDS))
    print(f"  {'table':<8} {total_cpu * 1000:>7.1f} ms {total_floor * 1000:>8.1f} ms "
          f"{total_cpu / total_floor if total_floor else float('nan'):>5.1f}×")


if __name__ == "__main__":
    sys.exit(peer_main([a for a in sys.argv[1:] if a != "--peer"]))
