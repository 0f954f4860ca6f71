"""`p2p-burraco bench host`: what one host process costs per hand, with N tables of bots.

Three kinds of OS process, all on 127.0.0.1 over real TCP:

- the host: `python -m p2p_burraco.benchmarks.hostproc` — one HostNode with a fresh
  temporary data dir, no default table, room for the N tables; optionally under cProfile;
- C client processes (`python -m p2p_burraco.benchmarks.host --client ...`), each one
  Twisted reactor running the bot peers of its share of the tables. For each table one peer
  sends `create_table` (a target of 1 000 000 points and no hand cap, so matches do not end
  within the run) then sits at seat 0; when `table_created` names the table, the other P-1
  peers connect and join it at seats 1..P-1. Bots are ephemeral (no data dir). A match that
  still ends (it should not) is replaced by a fresh table;
- this process, which measures the host from outside: /proc/<pid>/stat for CPU (user+sys),
  /proc/<pid>/status VmRSS every 0.5 s, and the host's stdout lines, stamped as they arrive,
  for the hands ("t3: hand 4: played to its end" — said when the hand's outcome is known,
  before the seats' sign-offs close it). The host process adds, once a second, its own
  cumulative time in fdatasync/fsync and idle in epoll (`bench-stats` lines).

The measured window starts when the warm-up (the first --warmup fraction of the run, 20 %
by default — table creation, handshakes and first deals fall in it) ends and closes at S
seconds; the figures per hand divide what the host spent in that window by the hands the
host closed in it. With many tables and a short run that over-counts (hands under way at
either edge of the window), so a second CPU figure is normalised by progress: host CPU per
journaled event in the window × the mean events of a closed hand (from the journals).
After S seconds the clients are terminated (SIGTERM), then the host.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError

HELP = "host CPU and memory per hand with N bot tables over loopback TCP (separate processes)"

HAND_LINE = re.compile(r"^(t\d+): hand (\d+): (.*)$")
SCORED = "played to its end"
STARTED_LINE = re.compile(r"^(t\d+): match \w+ started")
BIG_TARGET = 1_000_000


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", type=int, default=10, help="bot tables (default 10)")
    p.add_argument("--game", default="burraco", choices=("burraco", "briscola"))
    p.add_argument("--variant", default=None, help="rule set (default: the game's)")
    p.add_argument("--players", type=int, default=None,
                   help="seats per table (default 4 Burraco, 2 Briscola)")
    p.add_argument("--seconds", type=float, default=None,
                   help="how long the tables play (default 60, or 1.2 s a table past 50 "
                        "tables: every table must close a hand before the measured window)")
    p.add_argument("--clients", type=int, default=None,
                   help="client processes running the bots (default 2; 1 for one table)")
    p.add_argument("--strategy", default="greedy", help="bot strategy (default greedy)")
    p.add_argument("--warmup", type=float, default=0.2,
                   help="fraction of --seconds left out of the per-hand figures (default 0.2)")
    p.add_argument("--seed", type=int, default=None, help="seed the bots' choices")
    p.add_argument("--profile", type=Path, default=None, metavar="FILE",
                   help="run the host under cProfile, write its pstats to FILE and print the "
                        "top 25 functions by cumulative and by total time")
    p.add_argument("--profile-clock", choices=("cpu", "wall"), default="cpu",
                   help="the profiler's clock: cpu (process time, default) or wall")
    p.add_argument("--client", action="store_true", help=argparse.SUPPRESS)


# --------------------------------------------------------------------------- client process

def client_main(argv: list[str]) -> int:
    """One client process: the bots of `--tables` tables, until SIGTERM.

    Prints on stdout: "CLIENT-STARTED" once the reactor runs, "TABLE <id>" for each table
    created, "PEER-FAIL <name> <table>: <error>" for a peer that stops with an error,
    "MATCH-END <table>" for a match that ended (and is replaced)."""
    p = argparse.ArgumentParser(prog="bench host --client")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--tables", type=int, required=True)
    p.add_argument("--index", type=int, default=0, help="this client's number (peer names)")
    p.add_argument("--game", required=True)
    p.add_argument("--variant", default=None)
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--strategy", default="greedy")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--stagger", type=float, default=0.05)
    p.add_argument("--ping-interval", type=float, default=15.0)
    p.add_argument("--idle-timeout", type=float, default=120.0)
    args = p.parse_args(argv)

    import logging

    logging.basicConfig(level=logging.WARNING, format="%(name)s %(levelname)s %(message)s",
                        stream=sys.stderr)

    from ..net.runtime import run_reactor

    run_reactor(_BotClient(args).start)
    return 0


class _BotClient:
    """The tables of one client process: each created by its seat 0, joined by the others
    once it exists, and replaced when its match ends; every peer watched until it is done.
    Twisted is imported only in the client process, never in the bench's own."""

    def __init__(self, args: argparse.Namespace) -> None:
        from ..bots.controller import bot_factory

        self.args = args
        self.factory = bot_factory(args.strategy, args.seed)
        self.stopping = False
        self.counter = 0
        self.live: list[Any] = []      # PeerNodes not known to be done

    def say(self, line: str) -> None:
        if not self.stopping:
            print(line, flush=True)

    def peer_config(self, name: str, **kw: Any) -> Any:
        from ..net.peer import PeerConfig

        a = self.args
        return PeerConfig(host="127.0.0.1", port=a.port, name=name, data_dir=None,
                          reconnect=True, ping_interval=a.ping_interval,
                          idle_timeout=a.idle_timeout, **kw)

    def watch(self, peer: Any, creator: bool, reactor: Any) -> None:
        """Report how a peer ends: a match that ended is replaced by a fresh table (its
        creator's end says so), a peer that failed is named."""
        def ok(result: Any) -> None:
            if creator and not self.stopping:
                self.say(f"MATCH-END {peer.table}")
                self.start_table(reactor)

        def failed(f: Any) -> None:
            self.say(f"PEER-FAIL {peer.config.name} {peer.table}: {f.getErrorMessage()}")

        peer.done.addCallbacks(ok, failed)
        self.live.append(peer)

    def start_table(self, reactor: Any) -> None:
        """Seat 0 creates a table (a target no match reaches in the run); when the host
        names it, the other seats join."""
        from ..bots.controller import LazyBotController
        from ..net.peer import PeerNode

        if self.stopping:
            return
        self.counter += 1
        a = self.args
        tag = f"c{a.index}x{self.counter}"
        create = {"game": a.game, "variant": a.variant, "players": a.players,
                  "target": BIG_TARGET, "hands": None}
        creator = _creator_class()(reactor, self.peer_config(f"{tag}-0", create=create, seat=0),
                                   LazyBotController(self.factory))

        def joined(table_id: str) -> None:
            self.say(f"TABLE {table_id}")
            for seat in range(1, a.players):
                peer = PeerNode(reactor, self.peer_config(f"{tag}-{seat}", table=table_id,
                                                          seat=seat),
                                LazyBotController(self.factory))
                self.watch(peer, False, reactor)
                peer.start()

        creator.on_table = joined
        self.watch(creator, True, reactor)
        creator.start()

    def until_idle(self, _: Any = None) -> Any:
        """What marks this client's end: every peer it started is done. Chained through the
        peers' own `done` (each has had its outcome reported by `watch` by then)."""
        self.live[:] = [p for p in self.live if not p.done.called]
        if not self.live:
            return None
        return self.live[0].done.addBoth(self.until_idle)

    def start(self, reactor: Any) -> Any:
        def stop() -> None:
            self.stopping = True
        reactor.addSystemEventTrigger("before", "shutdown", stop)
        self.start_table(reactor)
        for i in range(1, self.args.tables):
            reactor.callLater(i * self.args.stagger, self.start_table, reactor)
        print("CLIENT-STARTED", flush=True)
        return self.until_idle()         # in practice SIGTERM stops the reactor first


@functools.cache
def _creator_class() -> Any:
    """A table's seat 0: a PeerNode that hands the table's id to `on_table` once the host
    has created it (made on first use: the class needs Twisted)."""
    from ..net.peer import PeerNode

    class CreatorPeer(PeerNode):
        """Seat 0: creates the table, then brings the other seats in."""

        on_table: Any = None

        def frame(self, conn: Any, frame: Any) -> None:
            super().frame(conn, frame)
            if frame.type == "table_created" and self.on_table is not None:
                callback, self.on_table = self.on_table, None
                callback(frame.body["table"])

    return CreatorPeer


# --------------------------------------------------------------------------- measuring

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
RSS_TICK = 0.5
"""Seconds between two samples of the host's RSS."""
LATEST_WARMUP = 0.6
"""The measured window starts after --warmup of the time and once every table has closed a
hand, but no later than this fraction of the time (the report then says so)."""
STATS_LINE = re.compile(r"^bench-stats t=([\d.]+) syncs=(\d+) sync_s=([\d.]+) poll_s=([\d.]+)"
                        r" gc_s=([\d.]+)")


def cpu_seconds(pid: int) -> float:
    """user + system CPU seconds of a process (not its children), from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        data = f.read()
    fields = data[data.rindex(b")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_kb(pid: int) -> int:
    """VmRSS of a process in KB, from /proc/<pid>/status (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass
class Stream:
    """Lines of one pipe, each stamped with time.monotonic() when it arrived."""

    lines: list[tuple[float, str]] = field(default_factory=list)
    thread: threading.Thread | None = None

    @classmethod
    def follow(cls, pipe: Any) -> Stream:
        s = cls()

        def read() -> None:
            for line in pipe:
                s.lines.append((time.monotonic(), line.rstrip("\n")))
        s.thread = threading.Thread(target=read, daemon=True)
        s.thread.start()
        return s

    def join(self, timeout: float = 5.0) -> None:
        if self.thread is not None:
            self.thread.join(timeout)

    def wait_for(self, pattern: str, proc: subprocess.Popen[str], timeout: float
                 ) -> re.Match[str] | None:
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            exited = proc.poll() is not None
            if exited:
                self.join(2.0)
            for _, line in list(self.lines):
                m = rx.search(line)
                if m:
                    return m
            if exited or time.monotonic() > deadline:
                return None
            time.sleep(0.02)


@dataclass
class Proc:
    popen: subprocess.Popen[str]
    out: Stream
    err: Stream


def spawn(cmd: list[str]) -> Proc:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    popen = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, bufsize=1, env=env)
    return Proc(popen, Stream.follow(popen.stdout), Stream.follow(popen.stderr))


def stop(proc: Proc, timeout: float) -> None:
    """SIGTERM, then SIGKILL after `timeout` seconds."""
    if proc.popen.poll() is None:
        proc.popen.terminate()
    try:
        proc.popen.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.popen.kill()
        proc.popen.wait(5)
    proc.out.join()
    proc.err.join()


def clients_cpu(procs: list[Proc]) -> float:
    total = 0.0
    for c in procs:
        try:
            total += cpu_seconds(c.popen.pid)
        except (OSError, ValueError, IndexError):
            pass
    return total


def journals(data_dir: Path) -> tuple[int, list[int]]:
    """(records in every match journal, the records of each hand closed so far — from the
    record after the previous checkpoint, or after the match header, to its checkpoint)."""
    import msgpack

    from ..storage.files import read_records

    total = 0
    per_hand: list[int] = []
    for path in (data_dir / "matches").glob("*/journal.p2pj"):
        records, _ = read_records(path)
        total += len(records)
        last = 0                  # the header
        for i, body in enumerate(records):
            if _event_kind(msgpack, body) == "checkpoint":
                per_hand.append(i - last)
                last = i
    return total, per_hand


def _event_kind(msgpack: Any, body: bytes) -> Any:
    try:
        value = msgpack.unpackb(body, raw=False)
    except ValueError:            # msgpack's errors are ValueErrors
        return None
    return value.get("e") if isinstance(value, dict) else None


def host_clocks(lines: list[tuple[float, str]], until: float
                ) -> tuple[float, int, float, float, float] | None:
    """The host's last `bench-stats` line that arrived by `until`: (its monotonic time,
    sync calls, seconds in fdatasync/fsync, seconds idle in epoll, seconds in the cyclic
    garbage collector), all cumulative."""
    last = None
    for t, x in list(lines):
        if t > until:
            break
        m = STATS_LINE.match(x)
        if m:
            last = (float(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4)),
                    float(m.group(5)))
    return last


@dataclass
class Snapshot:
    t: float
    cpu: float
    rss: int
    hands: int
    clients_cpu: float
    events: int


def snapshot(pid: int, host: Proc, clients: list[Proc], data_dir: Path) -> Snapshot:
    now = time.monotonic()
    try:
        cpu = cpu_seconds(pid)
    except (OSError, ValueError, IndexError):
        cpu = float("nan")
    return Snapshot(now, cpu, rss_kb(pid), count_hands(host.out.lines), clients_cpu(clients),
                    journals(data_dir)[0])


def count_hands(lines: list[tuple[float, str]]) -> int:
    return sum(1 for _, x in list(lines) if HAND_LINE.match(x))


def default_seconds(tables: int) -> float:
    """A run long enough that, after every table's first hand, hands still close in the
    measured window: a host at capacity closes about two hands a second in all."""
    return max(60.0, 1.2 * tables)


def tables_with_a_hand(lines: list[tuple[float, str]]) -> int:
    """Tables that have closed at least one hand: until every one has, each table is still
    building what it keeps for a match (its first hand's state, the engine's memo entries),
    and memory per hand would count that set-up, not the steady state."""
    return len({m.group(1) for m in (HAND_LINE.match(x) for _, x in list(lines)) if m})


def split(n: int, parts: int) -> list[int]:
    return [n // parts + (1 if i < n % parts else 0) for i in range(parts)]


def tracebacks(lines: list[tuple[float, str]]) -> list[str]:
    """Each traceback on stderr as one line: the logged line before it → the exception."""
    found: list[str] = []
    texts = [x for _, x in lines]
    for i, x in enumerate(texts):
        if x.startswith("Traceback"):
            j = i + 1
            while j < len(texts) and (texts[j].startswith((" ", "\t")) or not texts[j]):
                j += 1
            head = texts[i - 1] if i > 0 else ""
            last = texts[j] if j < len(texts) else "?"
            found.append(f"{head} → {last}")
    return found


@dataclass
class Measure:
    """What the bench saw of the host (and the clients' CPU)."""

    rss_start: int = 0
    cpu_listen: float = 0.0
    peak: int = 0
    t0: float = 0.0
    warm: Snapshot | None = None
    end: Snapshot | None = None
    per_hand_events: list[int] = field(default_factory=list)
    hand_files: int = 0
    disk: int = 0
    died: str = ""
    all_warm: bool = False


# --------------------------------------------------------------------------- the bench

def run(args: argparse.Namespace) -> int:
    players, clients, profile = _settings(args)
    me = Measure()
    with tempfile.TemporaryDirectory(prefix="p2pb-bench-host-") as tmp:
        data_dir = Path(tmp)
        cmd = [sys.executable, "-m", "p2p_burraco.benchmarks.hostproc", "--port", "0",
               "--data-dir", str(data_dir), "--max-tables", str(args.tables * 2 + 16)]
        if profile is not None:
            cmd += ["--profile", str(profile), "--profile-clock", args.profile_clock]
        host = spawn(cmd)
        clients_p: list[Proc] = []
        try:
            m = host.out.wait_for(r"listening on [\d.]+:(\d+)", host.popen, 60)
            if m is None:
                stop(host, 5)
                err = "\n".join(x for _, x in host.err.lines[-20:])
                raise OSError(f"the host process did not start:\n{err}")
            me.rss_start = me.peak = rss_kb(host.popen.pid)
            me.cpu_listen = cpu_seconds(host.popen.pid)
            _start_clients(args, int(m.group(1)), players, clients, clients_p)
            _measure(args, me, host, clients_p, data_dir)
        finally:
            for c in clients_p:
                if c.popen.poll() is None:
                    c.popen.terminate()
            for c in clients_p:
                stop(c, 10)
            stop(host, 120)
        _, me.per_hand_events = journals(data_dir)
        me.hand_files = len(list((data_dir / "matches").glob("*/hand-*.p2pb")))
        me.disk = sum(f.stat().st_size for f in (data_dir / "matches").rglob("*")
                      if f.is_file())
    return report(args, players, clients, host, clients_p, me, profile)


def _settings(args: argparse.Namespace) -> tuple[int, int, Path | None]:
    """The options checked and completed: seats per table, client processes, and where the
    host's profile goes (None: not profiled)."""
    if args.client:
        raise UsageError("--client is for the bench's own client processes")
    if args.tables < 1:
        raise UsageError("--tables must be at least 1")
    if args.seconds is None:
        args.seconds = default_seconds(args.tables)
    if args.seconds <= 0:
        raise UsageError("--seconds must be positive")
    if not 0 <= args.warmup < 1:
        raise UsageError("--warmup must be in [0, 1)")
    players = args.players or (4 if args.game == "burraco" else 2)
    clients = args.clients or (1 if args.tables == 1 else 2)
    clients = max(1, min(clients, args.tables))
    if not Path("/proc/self/stat").exists():
        raise OSError("bench host reads /proc/<pid>/stat and status (Linux only)")
    profile = args.profile.resolve() if args.profile is not None else None
    return players, clients, profile


def _start_clients(args: argparse.Namespace, port: int, players: int, clients: int,
                   started: list[Proc]) -> None:
    """The client processes, the tables split between them, each appended to `started` as
    it is spawned (the caller stops whatever started), and waited for until it runs."""
    for i, n in enumerate(split(args.tables, clients)):
        ccmd = [sys.executable, "-m", "p2p_burraco.benchmarks.host", "--client",
                "--port", str(port), "--tables", str(n), "--index", str(i),
                "--game", args.game, "--players", str(players),
                "--strategy", args.strategy]
        if args.variant:
            ccmd += ["--variant", args.variant]
        if args.seed is not None:
            ccmd += ["--seed", str(args.seed * 1000 + i)]
        started.append(spawn(ccmd))
    for c in started:
        if c.out.wait_for(r"^CLIENT-STARTED", c.popen, 60) is None:
            err = "\n".join(x for _, x in c.err.lines[-20:])
            raise OSError(f"a client process did not start:\n{err}")


def _measure(args: argparse.Namespace, me: Measure, host: Proc, clients_p: list[Proc],
             data_dir: Path) -> None:
    """Sample the host until --seconds are up (or it dies): its RSS every RSS_TICK, the
    warm snapshot once the warm-up is over and every table has closed a hand (or at
    LATEST_WARMUP at the latest), the end snapshot last."""
    pid = host.popen.pid
    me.t0 = time.monotonic()
    t_warm = me.t0 + args.warmup * args.seconds
    t_late = me.t0 + LATEST_WARMUP * args.seconds
    t_end = me.t0 + args.seconds
    while True:
        now = time.monotonic()
        if host.popen.poll() is not None:
            me.died = f"the host process exited early (code {host.popen.returncode})"
            break
        me.peak = max(me.peak, rss_kb(pid))
        if me.warm is None and now >= t_warm:
            me.all_warm = tables_with_a_hand(host.out.lines) >= args.tables
            if me.all_warm or now >= t_late:
                me.warm = snapshot(pid, host, clients_p, data_dir)
        if now >= t_end:
            break
        nxt = t_end if me.warm is not None else min(t_warm, t_end)
        time.sleep(min(RSS_TICK, max(0.005, nxt - now)))
    me.end = snapshot(pid, host, clients_p, data_dir)
    me.peak = max(me.peak, me.end.rss)
    if me.warm is None:      # the host died during the warm-up
        me.warm = Snapshot(me.t0, me.cpu_listen, me.rss_start, 0, 0.0, 0)


def report(args: argparse.Namespace, players: int, clients: int, host: Proc,
           clients_p: list[Proc], me: Measure, profile: Path | None) -> int:
    """Print what the run measured: the run itself, the host's costs per hand in the
    window, then every error and oddity the processes' lines show. 1 on any error or when
    no hand was played."""
    warm, end = me.warm, me.end
    assert warm is not None and end is not None
    seen = _Seen.read(host, clients_p, end.t)
    w = _Window(warm, end)
    print(f"bench host: {args.game} {args.variant or '(default rules)'}, {args.tables} tables "
          f"× {players} seats, bots '{args.strategy}' in {clients} client process(es); "
          f"{args.seconds:g} s over loopback TCP"
          + (f" — HOST UNDER cProfile ({args.profile_clock} clock)" if profile else ""))
    _print_progress(args, me, seen, w)
    _print_costs(me, host, w, clients, len(seen.hands))
    errors = _print_errors(me, seen)
    if profile is not None:
        print_profile(profile, args.profile_clock)
    return 1 if errors or not seen.hands else 0


@dataclass
class _Seen:
    """What the processes said by the end of the run (`t_stop`): the hands the host played
    (and those not scored), its matches started, and the lines that name trouble."""

    out: list[tuple[float, str]]
    hands: list[tuple[float, re.Match[str]]]
    not_scored: list[str]
    started: list[float]
    per_table: dict[str, int]
    drops: list[str]
    timeouts: list[str]
    refused: list[str]
    faults: list[str]
    peer_fails: list[str] = field(default_factory=list)
    match_ends: list[str] = field(default_factory=list)
    client_tb: list[str] = field(default_factory=list)
    rejected: int = 0
    client_err: list[str] = field(default_factory=list)
    host_tb: list[str] = field(default_factory=list)
    host_err: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, host: Proc, clients_p: list[Proc], t_stop: float) -> _Seen:
        out = [(t, x) for t, x in host.out.lines if t <= t_stop]
        hands = [(t, m) for t, m in ((t, HAND_LINE.match(x)) for t, x in out) if m is not None]
        per_table: dict[str, int] = {}
        for _, m in hands:
            per_table[m.group(1)] = per_table.get(m.group(1), 0) + 1

        def lines_with(*words: str) -> list[str]:
            return [x for _, x in out if any(w in x for w in words)]
        seen = cls(
            out, hands,
            [f"{m.group(1)}: hand {m.group(2)}: {m.group(3)}" for _, m in hands
             if m.group(3) != SCORED],
            [t for t, x in out if STARTED_LINE.match(x)], per_table,
            lines_with(" dropped; seat held"), lines_with(": timeout: "),
            lines_with(": refused seat "),
            lines_with("host is at fault", "did not come back", "signed another result"))
        for c in clients_p:
            for t, x in c.out.lines:
                if t > t_stop:
                    continue
                if x.startswith("PEER-FAIL"):
                    seen.peer_fails.append(x[len("PEER-FAIL "):])
                elif x.startswith("MATCH-END"):
                    seen.match_ends.append(x.split()[1] if len(x.split()) > 1 else "?")
            err = [(t, x) for t, x in c.err.lines if t <= t_stop]
            seen.client_tb += tracebacks(err)
            seen.rejected += sum(1 for _, x in err if "action refused" in x)
            seen.client_err += [x for _, x in err
                                if x and not x.startswith((" ", "\t", "Traceback"))]
        seen.host_tb = tracebacks(host.err.lines)
        seen.host_err = [x for _, x in host.err.lines
                         if x and not x.startswith((" ", "\t", "Traceback"))]
        return seen


@dataclass
class _Window:
    """The measured window: from the warm-up's snapshot to the end's, and what the host
    and the clients did in it."""

    warm: Snapshot
    end: Snapshot

    @property
    def hands(self) -> int:
        return self.end.hands - self.warm.hands

    @property
    def seconds(self) -> float:
        return self.end.t - self.warm.t

    @property
    def cpu(self) -> float:
        return self.end.cpu - self.warm.cpu

    @property
    def clients_cpu(self) -> float:
        return self.end.clients_cpu - self.warm.clients_cpu

    @property
    def events(self) -> int:
        return self.end.events - self.warm.events

    def per_hand(self, v: float, fmt: str, unit: str) -> str:
        return f"{format(v / self.hands, fmt)} {unit}" if self.hands > 0 else \
            "n/a (no hand closed in the window)"

    def pct(self, v: float) -> str:
        return f"{v / self.seconds * 100:.0f} %" if self.seconds > 0 else "n/a"


def _print_progress(args: argparse.Namespace, me: Measure, seen: _Seen, w: _Window) -> None:
    """The machine, the tables and hands played, and the window the figures cover (and
    whether the warm-up had to be cut before every table had closed a hand)."""
    try:
        with open("/proc/loadavg") as f:
            load = f.read().split()[:3]
        print(f"  machine:               {os.cpu_count()} CPUs, load average "
              f"{' '.join(load)} (at the end)")
    except OSError:
        pass
    started = seen.started
    all_started = f"{max(0.0, max(started) - me.t0):.1f} s" if len(started) >= args.tables \
        else "the end"
    print(f"  tables:                {len(started)} matches started (all {args.tables} by "
          f"{all_started}); {len(seen.match_ends)} ended and were replaced")
    print(f"  hands completed:       {len(seen.hands)} in all ({me.hand_files} signed off and "
          f"on disk); {w.hands} in the measured window")
    if seen.per_table:
        counts = sorted(seen.per_table.values())
        print(f"                         per table: min {counts[0]}, median "
              f"{counts[len(counts) // 2]}, max {counts[-1]}")
    print(f"  measured window:       {w.seconds:.1f} s, after a warm-up of "
          f"{w.warm.t - me.t0:.1f} s (at least {args.warmup * 100:.0f} % of the time, "
          + ("and until every table had closed a hand" if me.all_warm else
             f"cut at {LATEST_WARMUP * 100:.0f} %: NOT every table had closed a hand yet, so "
             "the figures per hand include set-up; run longer (--seconds)")
          + ")")
    print(f"  hands per minute:      {w.hands / w.seconds * 60:.1f}" if w.seconds > 0 else
          "  hands per minute:      n/a")


def _print_costs(me: Measure, host: Proc, w: _Window, clients: int, n_hands: int) -> None:
    """The host's CPU per hand (by hands closed, and normalised by journal events), where
    its wall time went by its own clocks, the clients' CPU, memory and disk."""
    cpu, end = w.cpu, w.end
    print(f"  host CPU per hand:     {w.per_hand(cpu * 1000, '.1f', 'ms')}  (user+sys "
          f"{cpu:.2f} s in the window = {w.pct(cpu)} of one core; {me.cpu_listen:.2f} s to "
          f"start, {end.cpu:.2f} s in all)")
    events = w.events
    if me.per_hand_events and events > 0:
        eph = sum(me.per_hand_events) / len(me.per_hand_events)
        print(f"    by journal events:   {cpu / events * eph * 1000:.1f} ms  ({events} events "
              f"journaled in the window, {cpu / events * 1e6:.0f} µs of host CPU each; "
              f"{eph:.0f} events per closed hand, n={len(me.per_hand_events)})")
    a, b = host_clocks(host.out.lines, w.warm.t), host_clocks(host.out.lines, end.t)
    if a is not None and b is not None and b[0] > a[0]:
        span = b[0] - a[0]
        syncs, sync_s, idle_s, gc_s = b[1] - a[1], b[2] - a[2], b[3] - a[3], b[4] - a[4]
        rest = span - sync_s - idle_s
        print(f"  host wall time:        {sync_s / span * 100:.0f} % in fdatasync/fsync ("
              f"{syncs} calls, {sync_s / max(syncs, 1) * 1000:.2f} ms each), "
              f"{idle_s / span * 100:.0f} % idle in epoll, {rest / span * 100:.0f} % the rest "
              f"(Python work: {cpu / w.seconds * 100 if w.seconds else 0:.0f} % on a core, "
              f"the remainder waiting for one)  ({span:.0f} s, the host's own clocks)")
        print(f"  host garbage collector: {gc_s * 1000:.0f} ms in the window"
              + (f" ({gc_s / cpu * 100:.1f} % of the host CPU)" if cpu > 0 else ""))
    ccpu = w.clients_cpu
    print(f"  clients' CPU per hand: {w.per_hand(ccpu * 1000, '.0f', 'ms')}  (the bots: "
          f"{clients} client processes at {w.pct(ccpu)} of one core in the window)")
    print(f"  host RSS:              start {me.rss_start / 1024:.1f} MB (listening), peak "
          f"{me.peak / 1024:.1f} MB, end {end.rss / 1024:.1f} MB")
    print(f"  RSS growth per hand:   {w.per_hand(end.rss - w.warm.rss, '.1f', 'KB')}  "
          f"({(end.rss - w.warm.rss) / 1024:+.1f} MB over the window)")
    print(f"  disk:                  {me.disk / 1024:.0f} KB in matches/"
          + (f" ({me.disk / 1024 / n_hands:.1f} KB per hand)" if n_hands else ""))


def _print_errors(me: Measure, seen: _Seen) -> int:
    """The errors (a bot peer failed, a hand not scored, a traceback, the host gone) and
    the rest worth a look, each list with its first lines; the number of errors."""
    errors = len(seen.peer_fails) + len(seen.not_scored) + len(seen.host_tb) \
        + len(seen.client_tb) + bool(me.died)
    print(f"  errors:                {errors}  ({len(seen.peer_fails)} bot peers failed, "
          f"{len(seen.not_scored)} hands not scored, {len(seen.host_tb)} host tracebacks, "
          f"{len(seen.client_tb)} client tracebacks" + (f", {me.died}" if me.died else "")
          + ")")
    print(f"  also:                  {len(seen.refused)} host refusals, {len(seen.timeouts)} "
          f"timeouts, {len(seen.drops)} drops before the stop, {seen.rejected} bot moves "
          f"refused, {len(seen.faults)} fault lines")

    def show(title: str, items: list[str], limit: int = 8) -> None:
        if items:
            print(f"  {title} ({len(items)}):")
            for x in items[:limit]:
                print(f"    {x}")
            if len(items) > limit:
                print(f"    … {len(items) - limit} more")
    show("bot peers failed", seen.peer_fails)
    show("hands not scored", seen.not_scored)
    show("host tracebacks", seen.host_tb)
    show("client tracebacks", seen.client_tb)
    show("host refusals", seen.refused)
    show("timeouts", seen.timeouts)
    show("drops", seen.drops, 4)
    show("fault lines", seen.faults)
    show("host stderr", seen.host_err, 12)
    show("client stderr", seen.client_err, 12)
    return errors


def short_path(filename: str) -> str:
    """A profile entry's file, short but unambiguous: p2p_burraco/net/host.py, twisted/...,
    the stdlib module's name."""
    import sysconfig

    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in filename:
            return filename.rsplit(marker, 1)[1]
    if "/p2p_burraco/" in filename:
        return "p2p_burraco/" + filename.rsplit("/p2p_burraco/", 1)[1]
    stdlib = sysconfig.get_paths().get("stdlib", "")
    if stdlib and filename.startswith(stdlib + "/"):
        return filename[len(stdlib) + 1:]
    return os.path.basename(filename)


def print_profile(path: Path, clock: str = "cpu", top: int = 25) -> None:
    import pstats

    if not path.exists():
        print(f"  profile: {path} was not written")
        return
    print(f"\nhost profile written to {path} (pstats, {clock} clock); top {top}:")
    original = pstats.func_strip_path        # type: ignore[attr-defined]  # private: shortens profile paths

    def strip(func_name: tuple[str, int, str]) -> tuple[str, int, str]:
        filename, line, name = func_name
        return short_path(filename), line, name
    for key in ("cumulative", "tottime"):
        print(f"\n--- by {key} time ---")
        stats = pstats.Stats(str(path), stream=sys.stdout)
        pstats.func_strip_path = strip         # type: ignore[attr-defined]  # strip_dirs uses it
        try:
            stats.strip_dirs()
        finally:
            pstats.func_strip_path = original  # type: ignore[attr-defined]  # private: shortens profile paths
        stats.sort_stats(key).print_stats(top)
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(client_main([a for a in sys.argv[1:] if a != "--client"]))
