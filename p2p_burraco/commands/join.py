"""`p2p-burraco join HOST[:PORT]`: take a seat at a host's table, as a person or a bot."""

from __future__ import annotations

import argparse
import logging
import random
import sys
from pathlib import Path
from typing import Any

from ..errors import UsageError, exit_status_of

HELP = "join a host's table: as a person (console) or as a bot (--bot)"
DEFAULT_PORT = 7777


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .argtypes import STRATEGIES, add_think, int_at_least, seconds

    p.add_argument("address", metavar="HOST[:PORT]", nargs="?", default=None,
                   help=f"the host (port {DEFAULT_PORT} unless given), as printed by "
                        "`p2p-burraco host`; none: find the tables on the LAN and pick one "
                        "(--bot: the first with a free seat) [DISC-1]")
    p.add_argument("--browse-for", type=seconds(positive=True), default=2.0, metavar="SECONDS",
                   help="with no address: how long to look for tables on the LAN (default 2)")
    p.add_argument("--name", default=None, help="your name at the table (1-32 characters)")
    p.add_argument("--bot", action="store_true", help="play by itself; exit when the match ends")
    p.add_argument("--strategy", default=None, choices=STRATEGIES,
                   help="with --bot: the bot strategy (heuristic, greedy, random or expert; "
                        "default heuristic)")
    add_think(p)
    p.add_argument("--table", default=None, help="table id (default: the first with a free seat); at a "
                   "tournament host: your line's name, the same as your partner's [TOURN-13]")
    p.add_argument("--seat", type=int_at_least(0), default=None, help="seat number (default: the first free)")
    p.add_argument("--rematch", default=None, metavar="TABLE",
                   help="play again with the people of the finished match at TABLE, each at "
                        "their old seat (the host keeps the offer 10 minutes, across its "
                        "restarts) [TABLE-16]")
    p.add_argument("--data-dir", default=None, type=Path,
                   help="where your identity, per-hand secrets and records live (default: "
                        "the user's data directory; a returning player gets the seat back)")
    p.add_argument("--reconnect-for", type=seconds(), default=600.0, metavar="SECONDS",
                   help="how long to keep retrying an unreachable host (default 600)")
    p.add_argument("--seed", type=int, default=None,
                   help="with --bot: seed the bot's choices (not its secrets)")
    p.add_argument("--verbose", "-v", action="store_true", help="log protocol events")


def parse_address(text: str) -> tuple[str, int]:
    """'HOST[:PORT]' → (host, port); ValueError with the expected form otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, str(DEFAULT_PORT)
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"{text!r} is not HOST[:PORT] (e.g. 192.168.1.20:7777)")
    return host, int(port)


def discovered(args: argparse.Namespace) -> tuple[str, int]:
    """No address given: browse the LAN (DISC-1) and take the table a person picks, or, for
    a bot, the first with a free seat; the advertised key fingerprint is then checked in
    the handshake (DISC-3)."""
    from .tables import choose, find_tables

    ads = find_tables(args.browse_for, first_free=args.bot)
    if args.bot or not sys.stdin.isatty():
        free = [ad for ad in ads if ad.free > 0]
        if not free:
            raise UsageError(f"no table with a free seat found on the LAN within "
                             f"{args.browse_for:g} s (give HOST[:PORT], or --browse-for more)")
        ad = free[0]
    else:
        if not ads:
            raise UsageError(f"no table found on the LAN within {args.browse_for:g} s "
                             "(give HOST[:PORT], or --browse-for more)")
        ad = choose(ads, input)
    print(f"p2p-burraco join: {ad.line()}")
    sys.stdout.flush()
    args.table = args.table or ad.table
    args.host_fingerprint = ad.fingerprint
    return ad.address, ad.port


def identity_home(data_dir: Path | None, name: str) -> Path:
    """The directory of one identity: its key, seeds, signed statements and records (one
    per name, so several peers can run from one account)."""
    from ..net.identity import default_data_dir

    base = data_dir or default_data_dir()
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return base / "identities" / safe


def identity_for(data_dir: Path | None, name: str, ephemeral: bool) -> Any:
    """The peer's identity key, or a fresh key that is never written (`ephemeral`)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from ..net.identity import load_or_create_identity

    if ephemeral:
        return Ed25519PrivateKey.generate()
    return load_or_create_identity(identity_home(data_dir, name))


def default_name(bot: bool) -> str:
    if bot:
        return f"bot-{random.SystemRandom().randrange(16**4):04x}"
    import getpass

    try:
        return getpass.getuser()[:32] or "player"
    except (OSError, KeyError, ImportError):  # no user name in this environment
        return "player"


def run(args: argparse.Namespace) -> int:
    from .. import wire

    if args.address is None:
        host, port = discovered(args)
    else:
        host, port = parse_address(args.address)
    ephemeral = args.bot and args.name is None
    name = wire.valid_name(args.name or default_name(args.bot))
    args.name = name
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    key = identity_for(args.data_dir, name, ephemeral=ephemeral)
    args.home = None if ephemeral else identity_home(args.data_dir, name)
    if args.reconnect_for < 0:
        raise UsageError("--reconnect-for must be 0 or more seconds")
    if args.bot:
        return _run_bot(args, host, port, name, key)
    return _run_console(args, host, port, name, key)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    from ..bots.controller import timeout_bot
    from ..net.host import seed_from_env

    options: dict[str, Any] = {
        "table": args.table, "seat": args.seat, "reconnect_for": args.reconnect_for,
        "fallback": timeout_bot(args.seed),
        "host_fingerprint": getattr(args, "host_fingerprint", None)}
    if getattr(args, "rematch", None) is not None:
        options["rematch"] = args.rematch          # TABLE-16
    seed = seed_from_env()
    if seed is not None:        # the crash tests' reproducible secrets (never real play)
        import zlib

        options["seed"] = seed * 1_000_003 + zlib.crc32(args.name.encode())
    return options


def _run_bot(args: argparse.Namespace, host: str, port: int, name: str, key: Any) -> int:
    from ..bots.controller import LazyBotController, bot_factory
    from ..net.peer import connect_peer
    from ..net.runtime import run_reactor

    def start(reactor: Any) -> Any:
        from ..net.tournament import follow_event

        def connect() -> Any:
            controller = LazyBotController(bot_factory(args.strategy, args.seed,
                                                       getattr(args, "think", None)))
            node = connect_peer(reactor, host, port, name, controller, key, args.home,
                                **_options(args))
            controller.node = node
            return node
        return follow_event(reactor, connect)   # one match, or every round of an event

    standings, error = run_reactor(start)
    if error is not None:
        print(f"p2p-burraco join: {error}", file=sys.stderr)
        return exit_status_of(error)   # 70 when the host (or this peer) hit a bug
    if standings is None:
        print("p2p-burraco join: stopped before the match ended", file=sys.stderr)
        return 1
    print(f"{name}: match over: {format_standings(standings)}")
    _remember(args, name)
    return 0


def _remember(args: argparse.Namespace, name: str) -> None:
    """Index this identity's finished matches into the history (HIST-1)."""
    from ..net.identity import default_data_dir
    from ..table.match_record import record_peer

    record_peer(args.data_dir or default_data_dir(), args.home, name)


def format_standings(standings: dict[str, Any]) -> str:
    from .selfplay import format_standings as fmt

    return fmt(standings)


def _run_console(args: argparse.Namespace, host: str, port: int, name: str, key: Any) -> int:
    """The full-screen console as this seat's controller, on the asyncio reactor. The host
    is reached once before the screen opens, so an unreachable one is said plainly (address
    and cause) with a non-zero exit, in a terminal or not."""
    from ..console import model_from_args, run_console_peer
    from ..net.peer import connect_peer
    from ..net.runtime import run_reactor

    unreachable = None if holds_seat(args.home, host, port) else probe_host(host, port)
    if unreachable is not None:
        print(f"p2p-burraco join: {unreachable}", file=sys.stderr)
        return 1
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise UsageError("join needs a terminal for its console (or --bot to let a bot play)")
    model = model_from_args(args)

    def start(reactor: Any) -> Any:
        def connect(controller: Any, **extra: Any) -> Any:
            # extra: `rematch=<table>` when the person asks to play again (TABLE-16)
            return connect_peer(reactor, host, port, name, controller, key, args.home,
                                **{**_options(args), **extra})
        return run_console_peer(args, connect, model=model)

    rc, error = run_reactor(start, with_asyncio=True, stop_delay=0)
    _remember(args, name)
    error = error or model.failure
    if error is not None:   # shown after the screen is restored
        print(f"p2p-burraco join: {error}", file=sys.stderr)
        return exit_status_of(error)   # 70 when the host (or this peer) hit a bug
    return rc if isinstance(rc, int) else 1


def holds_seat(home: Path | None, host: str, port: int) -> bool:
    """This identity's last seat (kept on disk) is at host:port in a match not ended: then
    an unreachable host is waited for, not reported (the peer retries, saying so)."""
    if home is None:
        return False
    from ..storage.seatstore import FileSeatStore

    saved = FileSeatStore(Path(home)).seat()
    return saved is not None and saved.get("host") == host and saved.get("port") == port \
        and saved.get("seat") is not None


def probe_host(host: str, port: int, timeout: float = 4.0) -> str | None:
    """Open and close one TCP connection to the host: None when it answers, else one
    sentence naming the address and the cause."""
    import socket

    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except TimeoutError:
        return f"cannot reach the host at {host}:{port} (no answer within {timeout:.0f} s)"
    except OSError as exc:
        return f"cannot reach the host at {host}:{port} ({exc.strerror or type(exc).__name__})"
    return None
