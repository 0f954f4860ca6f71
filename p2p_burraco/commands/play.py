"""`p2p-burraco play`: one command to sit down and play — a host on loopback, a bot peer in
every other seat (each with its own secrets, dealt through the full fair-deal protocol), and
the full-screen console for you. `--offline` skips the network and the cryptography and
plays against in-process bots with a plain seeded deal.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from ..errors import UsageError, exit_status_of

HELP = "play against bots: a host on loopback, bots in the other seats, the console for you"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .argtypes import GAMES, STRATEGIES, add_think, int_at_least, port, seat_count

    p.add_argument("--game", default="burraco", choices=GAMES)
    p.add_argument("--variant", default=None, help="rule set (see `p2p-burraco rules --list`)")
    p.add_argument("--players", type=seat_count, default=None, help="seats (default: 4 / 2)")
    p.add_argument("--target", type=int_at_least(1), default=None,
                   help="match target (default: the rule set's)")
    p.add_argument("--hands", type=int_at_least(1), default=None,
                   help="stop after this many hands")
    p.add_argument("--seed", type=int, default=None,
                   help="seed the bots' choices (the deal, the first dealer and the match id "
                        "stay fair-random unless --offline; run it as often as you like)")
    p.add_argument("--name", default=None, help="your name at the table (default: your login)")
    p.add_argument("--bot", "--strategy", dest="bot_kind", default="heuristic",
                   choices=STRATEGIES, help="bot strategy for the other seats "
                   "(heuristic, greedy, random, expert)")
    p.add_argument("--port", type=port, default=0, help="loopback port of the host (0: any free)")
    add_think(p)
    p.add_argument("--data-dir", default=None, help="where keys and hand records go")
    p.add_argument("--each-for-himself", action="store_true",
                   help="Burraco with 3 or 5 players: each plays alone, one 11-card pozzetto "
                        "each (FIBUR-38)")
    p.add_argument("--offline", action="store_true",
                   help="no network, no fair-deal cryptography: a plain seeded deal in-process")


PAUSE_S = 8.0
"""TABLE-15: seconds between two hands at `play`'s table, to read the score sheet."""


def _player_name(args: argparse.Namespace) -> str:
    if args.name:
        return str(args.name)
    import getpass
    try:
        return getpass.getuser() or "you"
    except (OSError, KeyError, ImportError):  # no login name in containers: a neutral one
        return "you"


def _check(args: argparse.Namespace) -> tuple[int, str]:
    """Validate game, variant and seats before anything starts (clear errors, no traceback)."""
    from ..games import get_game

    spec = get_game(args.game)
    variant = args.variant or spec.default_variant
    if variant not in spec.presets:
        raise UsageError(f"unknown {args.game} variant {variant!r}; choose one of: "
                         f"{', '.join(spec.presets)}")
    players = args.players if args.players is not None else (4 if args.game == "burraco" else 2)
    allowed = tuple(spec.seat_counts(spec.presets[variant]))
    if players not in allowed:
        raise UsageError(f"{args.game} {variant} is played by "
                         f"{', '.join(map(str, allowed))} players, not {players}")
    match_options(args, players)
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise UsageError("play needs a terminal (it opens a full-screen console)")
    return players, variant


def match_options(args: argparse.Namespace, players: int | None) -> dict[str, Any]:
    """The match options `rules` names (`--each-for-himself`), checked before anything
    starts: one sentence naming what is wrong."""
    if not getattr(args, "each_for_himself", False):
        return {}
    if args.game != "burraco":
        raise UsageError("--each-for-himself is a Burraco option, not a Briscola one")
    from ..games import get_game

    spec = get_game("burraco")
    variant = getattr(args, "variant", None) or spec.default_variant
    seats = players if players is not None else 4      # Burraco's default table
    try:                                # the engine says which tables it allows (FIBUR-38)
        spec.new_match(spec.presets[variant], seats, first_dealer=0, each_for_himself=True)
    except (KeyError, ValueError) as exc:
        raise UsageError(f"--each-for-himself with {seats} players: {exc} "
                         "(--players 3 or 5)") from None
    return {"each_for_himself": True}


def run(args: argparse.Namespace) -> int:
    from .. import wire

    players, variant = _check(args)
    args.name = wire.valid_name(_player_name(args))
    args.players, args.variant = players, variant
    if args.offline:
        return asyncio.run(run_offline(args))
    return run_networked(args)


async def run_offline(args: argparse.Namespace, *, input: Any = None, output: Any = None,
                      model: Any = None) -> int:
    """Console + in-process bots with a plain seeded deal (no sockets, no crypto)."""
    import random

    from ..bots import make_strategy
    from ..bots.controller import BotController
    from ..console import model_from_args
    from ..console.app import create_application
    from ..console.localtable import LocalTable
    from ..selfplay import SelfplayConfig

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    cfg = SelfplayConfig(game=args.game, variant=args.variant, players=args.players,
                         hands=args.hands or 1_000, seed=seed, target=args.target,
                         options=match_options(args, args.players))
    rng = random.Random(seed)
    model = model or model_from_args(args)  # data_dir too: `save`, history
    bots = [BotController(make_strategy(args.game, args.bot_kind,
                                        random.Random(rng.getrandbits(64)),
                                        think=getattr(args, "think", None)))
            for _ in range(args.players - 1)]
    names = [args.name] + [f"{args.bot_kind} bot {i}" for i in range(1, args.players)]
    loop = asyncio.get_running_loop()

    def next_hand_later(fn: Any) -> None:  # a moment to read the score breakdown
        loop.call_later(3.0, fn)

    def start_table() -> None:
        loop.call_soon(table.start)

    table = LocalTable(cfg, [model, *bots], names=names, schedule=next_hand_later)
    app = create_application(model, input=input, output=output)
    result = await app.run_async(pre_run=start_table)
    return int(result or 0)


def run_networked(args: argparse.Namespace, *, input: Any = None, output: Any = None) -> int:
    """Host + bot peers + the console's peer, all on Twisted's asyncio reactor in this
    process, talking over real loopback TCP; returns when the person quits."""
    from ..console import model_from_args
    from ..net.runtime import run_reactor

    model = model_from_args(args)
    rc, error = run_reactor(lambda reactor: start_play(reactor, args, input=input,
                                                       output=output, model=model),
                            with_asyncio=True, stop_delay=0)
    error = error or getattr(model, "failure", None)
    if error is not None:  # shown after the screen is restored
        print(f"p2p-burraco play: {error}", file=sys.stderr)
        return exit_status_of(error)   # 70 for a bug (the host runs in this process)
    return int(rc) if isinstance(rc, int) else 1


def start_play(reactor: Any, args: argparse.Namespace, *, input: Any = None,
               output: Any = None, model: Any = None) -> Any:
    """Start the host (127.0.0.1, any free port unless --port), seat a bot peer in every
    other seat, and run the console's peer at seat 0. Returns a Deferred firing with the
    exit code when the person quits. Reused by the tests with pipe input."""
    from pathlib import Path

    from ..bots.controller import LazyBotController, bot_factory
    from ..console import model_from_args, run_console_peer
    from ..net.host import HostConfig, start_host
    from ..net.identity import default_data_dir, load_or_create_identity
    from ..net.peer import connect_peer
    from ..net.runtime import as_deferred
    from ..table.events import StandingsChanged
    from ..table.match_record import host_hook

    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    cfg = HostConfig(bind="127.0.0.1", port=args.port, game=args.game, variant=args.variant,
                     players=args.players, target=args.target, hands=args.hands,
                     data_dir=data_dir / "play", exit_when_done=False, name="play",
                     seed=None, resume=False,   # --seed is the bots': a fresh match id
                     pause_between=PAUSE_S, match_options=match_options(args, args.players),
                     on_match_end=host_hook(reactor.callInThread, data_dir, args.bot_kind))
    factory = bot_factory(args.bot_kind, args.seed, getattr(args, "think", None))
    host_key = load_or_create_identity(data_dir / "host")
    node = start_host(reactor, cfg, identity=host_key,
                      bot_controller=lambda: LazyBotController(factory))
    host, port = node.address()
    room = node.default_room
    assert room is not None
    home = data_dir / "identities" / _safe(args.name)
    me = load_or_create_identity(home)
    for seat in range(1, args.players):
        node.add_bot(room.id, seat)

    from ..bots.controller import timeout_bot

    def connect(controller: Any, **extra: Any) -> Any:
        # extra: `rematch=<table>` when the person asks to play again (TABLE-16)
        options = {"table": room.id, "seat": 0, "fallback": timeout_bot(args.seed), **extra}
        if "rematch" in extra:
            options.pop("table")
            options.pop("seat")
        return connect_peer(reactor, host, port, args.name, controller, me, home, **options)

    model = model or model_from_args(args)
    model.notify(StandingsChanged(initial_standings(args)))

    async def session() -> int:
        try:
            return await run_console_peer(args, connect, model=model, input=input,
                                          output=output)
        finally:
            for peer in list(node.bot_peers):
                peer.disconnect()
            port: Any = node.port
            if port is not None:
                port.stopListening()

    return as_deferred(session())


def initial_standings(args: argparse.Namespace) -> dict[str, Any]:
    """The match's standings before its first hand (sides, zero totals, the target): the
    host we start plays exactly this configuration, so the console can show them at once."""
    import random

    from ..selfplay import SelfplayConfig, make_match

    cfg = SelfplayConfig(game=args.game, variant=args.variant, players=args.players,
                         target=args.target, options=match_options(args, args.players))
    return dict(make_match(cfg, random.Random(0)).standings())


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
