"""`p2p-burraco host`: run tables on this machine for peers to join."""

from __future__ import annotations

import argparse
import logging
import socket
import sys
from pathlib import Path
from typing import Any

HELP = "host tables for peers to join (listens on 127.0.0.1 unless --bind 0.0.0.0)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .argtypes import GAMES, STRATEGIES, add_think, int_at_least, port, seat_count, seconds

    p.add_argument("--bind", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 opens it to the LAN)")
    p.add_argument("--port", type=port, default=7777, help="TCP port (0: any free port)")
    p.add_argument("--game", default="burraco", choices=GAMES)
    p.add_argument("--variant", default=None, help="rule set (see `p2p-burraco rules`)")
    p.add_argument("--players", type=seat_count, default=None, help="seats (default: 4 / 2)")
    p.add_argument("--target", type=int_at_least(1), default=None, help="match target (default: the rules')")
    p.add_argument("--hands", type=int_at_least(1), default=None,
                   help="end the match after K hands (the host then exits; see --keep)")
    p.add_argument("--bots", type=int_at_least(0), default=0, help="seat K bots (peers over loopback)")
    p.add_argument("--strategy", default=None, choices=STRATEGIES,
                   help="strategy of the host's bots (heuristic, greedy, random, expert; "
                        "default heuristic)")
    add_think(p)
    p.add_argument("--clock", type=seconds(positive=True), default=None, metavar="SECONDS",
                   help="seconds per move (default 90 for Burraco, 30 for Briscola) [TABLE-1]")
    p.add_argument("--match-clock", type=seconds(positive=True), default=None, metavar="MINUTES",
                   help="each player's thinking time for the whole match (default off) "
                        "[TABLE-2]")
    p.add_argument("--step-deadline", type=seconds(positive=True), default=30.0, metavar="SECONDS",
                   help="seconds a connected player's program has for an automatic step "
                        "(deal, keys, seed) before it counts as stalling (default 30) [TABLE-5]")
    p.add_argument("--max-timeouts", type=int_at_least(1), default=3,
                   help="Burraco turns in a row a player may let run out before counting as "
                        "abandoned (default 3) [TABLE-3]")
    p.add_argument("--grace", type=seconds(), default=120.0,
                   help="seconds a dropped player's seat is held (default 120) [TABLE-6]")
    p.add_argument("--no-bot-replace", action="store_true",
                   help="no bot ever plays for an absent or timed-out player: they lose by "
                        "abandonment instead [TABLE-3]")
    p.add_argument("--each-for-himself", action="store_true",
                   help="Burraco with 3 or 5 players: each plays alone, one 11-card pozzetto "
                        "each (FIBUR-38)")
    p.add_argument("--pause", type=seconds(), default=8.0, metavar="SECONDS",
                   help="seconds between the end of a hand and the next deal, to read the "
                        "score sheet; no clock runs meanwhile (default 8; 0: none) [TABLE-15]")
    p.add_argument("--no-hints", action="store_true",
                   help="a serious table: the consoles offer no `hint` (the move the heuristic "
                        "bot would make); the table tells every seat")
    p.add_argument("--keep", action="store_true",
                   help="keep serving: when a match ends, a fresh table opens (with --bots, "
                        "fresh bots sit down)")
    p.add_argument("--fresh", action="store_true",
                   help="do not resume the unfinished matches found in the data directory")
    p.add_argument("--salvage", action="store_true",
                   help="go on past a damaged journal: resume from its last good checkpoint, "
                        "the damaged file moved aside (never deleted); a match directory "
                        "whose journal is missing is set aside, its hand records kept")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="transcripts, results and the host key (default: user data dir)")
    p.add_argument("--seed", type=int, default=None, help="seed the host's bots' choices")
    p.add_argument("--max-tables", type=int_at_least(1), default=200,
                   help="tables the host keeps at most (default 200)")
    p.add_argument("--max-connections", type=int_at_least(1), default=512,
                   help="connections served at once (default 512)")
    p.add_argument("--max-per-address", type=int_at_least(1), default=16,
                   help="connections from one address at once (default 16)")
    p.add_argument("--no-announce", action="store_true",
                   help="do not advertise the table on the LAN (zeroconf/mDNS; a host bound "
                        "to a LAN address announces itself unless told not to) [DISC-1]")
    p.add_argument("--verbose", "-v", action="store_true", help="log protocol events")


def configure_logging(verbose: bool) -> None:
    """What the host says: one line per join, seat, drop, return, timeout, hand, match and
    alarm on stdout; `-v` adds the protocol's own events on stderr."""
    say = logging.getLogger("p2p_burraco.host")
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    say.addHandler(handler)
    say.setLevel(logging.INFO)
    say.propagate = False
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    if verbose:
        logging.getLogger("p2p_burraco").setLevel(logging.INFO)


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses a LAN peer could use (best effort, no traffic sent)."""
    found: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: picks the outgoing interface only
            found.append(s.getsockname()[0])
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            addr = str(info[4][0])
            if addr not in found and not addr.startswith("127."):
                found.append(addr)
    except OSError:
        pass
    return found


def run(args: argparse.Namespace) -> int:
    from ..bots.controller import DEFAULT_STRATEGY, LazyBotController, bot_factory
    from ..net.discovery import SERVICE_TYPE, announce_host
    from ..net.guard import is_loopback
    from ..net.host import HostConfig, start_host
    from ..net.identity import default_data_dir, load_or_create_identity
    from ..net.runtime import run_reactor
    from ..storage.lock import DataDirBusy, DataDirLock
    from ..table.match_record import host_hook
    from .play import match_options

    options = match_options(args, args.players)      # before anything starts
    configure_logging(args.verbose)  # the numbers were checked by their argtypes
    data_dir = args.data_dir or default_data_dir()
    try:                             # one host per data dir, before anything there is read
        lock = DataDirLock.acquire(Path(data_dir))
    except DataDirBusy as exc:
        print(f"p2p-burraco host: {exc}", file=sys.stderr)
        return 1
    cfg = HostConfig(bind=args.bind, port=args.port, game=args.game, variant=args.variant,
                     players=args.players, target=args.target, hands=args.hands,
                     bots=args.bots, data_dir=data_dir, grace=args.grace,
                     replace_lost_with_bot=not args.no_bot_replace,
                     exit_when_done=args.hands is not None and not args.keep,
                     clock=args.clock, match_clock=args.match_clock,
                     step_deadline=args.step_deadline, max_timeouts=args.max_timeouts,
                     keep=args.keep, resume=not args.fresh, max_tables=args.max_tables,
                     salvage=args.salvage, data_lock=lock,
                     max_connections=args.max_connections,
                     max_per_address=args.max_per_address, pause_between=args.pause,
                     match_options=options, hints=not args.no_hints)
    factory = bot_factory(args.strategy, args.seed, getattr(args, "think", None))
    key = load_or_create_identity(Path(data_dir) / "host")

    def start(reactor: Any) -> Any:
        cfg.on_match_end = host_hook(reactor.callInThread, data_dir,
                                     args.strategy or DEFAULT_STRATEGY)
        node = start_host(reactor, cfg, identity=key,
                          bot_controller=lambda: LazyBotController(factory))
        host, port = node.address()
        room = node.default_room
        assert room is not None
        print(f"p2p-burraco host: {room.game} {room.variant}, {room.players} seats, "
              f"table {room.id}; listening on {host}:{port}")
        if host in ("0.0.0.0", ""):
            for addr in lan_addresses() or ["<this machine's address>"]:
                print(f"  join with: p2p-burraco join {addr}:{port}")
        else:
            print(f"  join with: p2p-burraco join {host}:{port}")
        print(f"  records in {node.matches_dir}")
        if not args.no_announce and not is_loopback(host):
            addrs = lan_addresses() if host in ("0.0.0.0", "") else [host]
            if addrs:
                announce_host(reactor, node, addrs)
                print(f"  announced on the LAN as {SERVICE_TYPE.removesuffix('.local.')} "
                      "(`p2p-burraco join` with no address finds it; --no-announce to stop)")
            else:
                print("  not announced on the LAN: no LAN address found")
        sys.stdout.flush()
        if room.status == "waiting":      # a lobby kept across a restart has some already
            for _ in range(args.bots - sum(1 for s in room.slots if s.bot)):
                node.add_bot(room.id, None)

        def finished(_: Any) -> None:
            for line in node.finished:
                print(line)
            sys.stdout.flush()

        return node.all_done.addCallback(finished)

    _, error = run_reactor(start, stop_delay=0.1)
    if error is not None:
        print(f"p2p-burraco host: error: {error}", file=sys.stderr)
        return 1
    return 0
