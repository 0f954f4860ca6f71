"""`p2p-burraco tournament`: run a club night on this host; `tournament verify DIR` audits it.

The director's host opens every round's tables itself (ordinary matches: fair dealing,
clocks, journal, records), seats the registered players where the movement puts them, and
keeps the standings (seeds/tournament.md). This module parses and formats only.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError

if TYPE_CHECKING:
    from ..net.tournament import EventConfig
    from ..tournament.movement import Round
    from ..tournament.standings import Result

HELP = ("run a club tournament (Mitchell, Danish or individual; victory points; standings), "
        "or `tournament verify DIR`")

EXIT_FAIR, EXIT_CHEAT, EXIT_INCOMPLETE, EXIT_NOT_TOURNAMENT = 0, 1, 2, 3


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .argtypes import GAMES, STRATEGIES, int_at_least, port, seat_count, seconds

    p.add_argument("action", nargs="*", metavar="verify DIR",
                   help="none: run an event; `verify DIR`: audit a tournament directory")
    p.add_argument("--bind", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for the LAN)")
    p.add_argument("--port", type=port, default=7777, help="TCP port (0: any free port)")
    p.add_argument("--game", default="burraco", choices=GAMES)
    p.add_argument("--variant", default=None, help="rule set (see `p2p-burraco rules`)")
    p.add_argument("--players", type=seat_count, default=None,
                   help="seats a table (default: 4 Burraco, 2 Briscola)")
    p.add_argument("--format", default="mitchell", choices=("mitchell", "danish", "individual"),
                   help="the movement (TOURN-7..11; default mitchell)")
    p.add_argument("--rounds", type=int_at_least(1), default=3, help="rounds (default 3)")
    p.add_argument("--hands", type=int_at_least(1), default=None,
                   help="hands a round: Burraco 2, 3 or 4 (default 3); Briscola 1-3 "
                        "smazzate (default 3)")
    p.add_argument("--start-when", type=int_at_least(2), default=None, metavar="N",
                   help="close registration and start when N players have registered "
                        "(default: the director types `start`)")
    p.add_argument("--no-show", type=seconds(positive=True), default=60.0, metavar="SECONDS",
                   help="a seat still empty this long after its round opens is played by a "
                        "host bot (default 60) [TOURN-14]")
    p.add_argument("--auto-next", action="store_true",
                   help="open the next round as soon as a round ends (default: `next`)")
    p.add_argument("--seed", type=int, default=None,
                   help="the draw's seed (Danish first round, individual tables; printed)")
    p.add_argument("--dir", type=Path, default=None,
                   help="the tournament directory (default: <data-dir>/tournaments/<date-time>)")
    p.add_argument("--web", type=port, default=None, metavar="PORT",
                   help="serve the standings page for a projector on the host's address, "
                        "this port (off unless given)")
    p.add_argument("--csv", default=None, metavar="FILE",
                   help="write the standings as CSV to FILE (`-`: standard output) at the end, "
                        "or, with verify, from the recomputed standings")
    p.add_argument("--strategy", default=None, choices=STRATEGIES,
                   help="strategy of the host bots that play for a no-show")
    p.add_argument("--clock", type=seconds(positive=True), default=None, metavar="SECONDS",
                   help="seconds per move (default: the game's) [TABLE-1]")
    p.add_argument("--grace", type=seconds(), default=120.0,
                   help="seconds a dropped player's seat is held (default 120) [TABLE-6]")
    p.add_argument("--match-clock", type=seconds(positive=True), default=None, metavar="MINUTES",
                   help="each player's thinking time for a table's whole match (default off) "
                        "[TABLE-2]")
    p.add_argument("--step-deadline", type=seconds(positive=True), default=30.0,
                   metavar="SECONDS", help="seconds for a program's automatic step (30) "
                                           "[TABLE-5]")
    p.add_argument("--max-timeouts", type=int_at_least(1), default=3,
                   help="Burraco turns in a row a player may let run out (3) [TABLE-3]")
    p.add_argument("--no-bot-replace", action="store_true",
                   help="no bot plays for a player who dropped or timed out mid-match: the "
                        "line loses by abandonment (TOURN-4) [TABLE-3]")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="host key and bots (default: user data dir)")
    p.add_argument("--max-per-address", type=int_at_least(1), default=64,
                   help="connections from one address at once (default 64: a club's bots or "
                        "a shared machine may seat many players)")
    p.add_argument("--keys", default=None, help="with verify: pinned keys (as `verify --keys`)")
    p.add_argument("--tables", type=int_at_least(1), default=10,
                   help="with bench: tables a round (default 10)")
    p.add_argument("--bot-procs", type=int_at_least(1), default=2,
                   help="with bench: processes the bot players are spread over (default 2)")
    p.add_argument("--verbose", "-v", action="store_true", help="log protocol events")


def run(args: argparse.Namespace) -> int:
    if args.action:
        if args.action[0] == "verify" and len(args.action) == 2:
            return verify(Path(args.action[1]), args)
        if args.action[0] == "bench" and len(args.action) == 1:
            return bench(args)
        if args.action[0] == "bots" and len(args.action) in (3, 4):
            return run_bots(args.action[1], args.action[2],
                            args.action[3] if len(args.action) == 4 else None, args)
        raise UsageError(f"{' '.join(args.action)!r}: the actions are `verify DIR` and "
                         "`bots HOST:PORT N [PREFIX]` and `bench`")
    return run_event(args)


def run_bots(address: str, count: str, prefix: str | None, args: argparse.Namespace) -> int:
    """`tournament bots HOST:PORT N`: N bot players in one process register at a tournament
    host and play every round (each a real peer with its own identity and secrets, as
    `join --bot` is; for a demo night, the tests and the bench)."""
    from ..bots.controller import LazyBotController, bot_factory, timeout_bot
    from ..net.peer import connect_peer
    from ..net.runtime import run_reactor
    from ..net.tournament import follow_event
    from .join import parse_address

    host, port = parse_address(address)
    if not count.isdigit() or not 1 <= int(count) <= 400:
        raise UsageError(f"{count!r}: the number of bots is 1..400")
    n = int(count)
    name = prefix or "bot"
    seed = args.seed

    def start(reactor: Any) -> Any:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        from ..net.tournament import all_of

        waits = []
        for i in range(n):
            key = Ed25519PrivateKey.generate()
            bot_seed = None if seed is None else seed + i

            def connect(i: int = i, key: Any = key, bot_seed: Any = bot_seed) -> Any:
                controller = LazyBotController(bot_factory(args.strategy, bot_seed, None))
                node = connect_peer(reactor, host, port, f"{name}{i + 1}", controller, key,
                                    None, fallback=timeout_bot(bot_seed))
                controller.node = node
                return node
            waits.append(follow_event(reactor, connect))
        return all_of(waits)

    _, error = run_reactor(start, stop_delay=0.2)
    if error is not None:
        print(f"p2p-burraco tournament bots: {error}", file=sys.stderr)
        return 1
    print(f"{n} bot(s) played every round")
    return 0


# --------------------------------------------------------------------------- the event

def run_event(args: argparse.Namespace) -> int:
    from ..bots.controller import DEFAULT_STRATEGY, LazyBotController, bot_factory
    from ..net.host import HostConfig
    from ..net.identity import default_data_dir, load_or_create_identity
    from ..net.runtime import run_reactor
    from ..net.tournament import start_tournament
    from ..table.match_record import host_hook
    from .host import configure_logging

    configure_logging(args.verbose)
    data_dir = args.data_dir or default_data_dir()
    cfg = _event_config(args, data_dir)
    seed, directory = cfg.seed, cfg.directory
    host_cfg = HostConfig(bind=args.bind, port=args.port, game=args.game, variant=args.variant,
                          data_dir=data_dir, grace=args.grace, clock=args.clock,
                          match_clock=args.match_clock, step_deadline=args.step_deadline,
                          max_timeouts=args.max_timeouts,
                          replace_lost_with_bot=not args.no_bot_replace,
                          max_per_address=args.max_per_address)
    factory = bot_factory(args.strategy, seed, None)
    key = load_or_create_identity(Path(data_dir) / "host")
    holder: dict[str, Any] = {}

    def start(reactor: Any) -> Any:
        history = host_hook(reactor.callInThread, data_dir, args.strategy or DEFAULT_STRATEGY)
        event = start_tournament(reactor, host_cfg, cfg, key,
                                 lambda: LazyBotController(factory), history)
        holder["event"] = event
        host, port = event.node.address()
        print(f"p2p-burraco tournament: {cfg.format}, {cfg.game} {event.variant}, "
              f"{cfg.rounds} round(s) of {cfg.hands} hand(s), {event.seats} seats a table; "
              f"draw seed {seed}")
        print(f"  players register with: p2p-burraco join {host}:{port} --name NAME "
              f"[--table LINE]")
        print(f"  records in {directory}")
        if args.web is not None:
            from ..net.tournament_io import serve_standings

            web: Any = serve_standings(reactor, event, args.web, args.bind)
            print(f"  standings page: http://{args.bind}:{web.getHost().port}/")
        from ..net.tournament_io import director_console

        if sys.stdin.isatty():
            director_console(reactor, event, handle_command)
            print("  type `help` for the director's commands")
        sys.stdout.flush()
        return event.done

    _, error = run_reactor(start, stop_delay=0.2)
    event = holder.get("event")
    if error is not None:
        print(f"p2p-burraco tournament: error: {error}", file=sys.stderr)
        return 1
    if event is None:
        return 1
    for line in event.status_lines():
        print(line)
    print(f"records and signed standings in {directory}")
    if args.csv:
        write_csv(event.standings_rows(), args.csv)
    return 0


def _event_config(args: argparse.Namespace, data_dir: str | Path) -> EventConfig:
    """The event as the options give it (`net.tournament.EventConfig`), every option that
    cannot work refused before anything starts, and its records' directory made (a fresh
    one, stamped, unless --dir names one that holds no tournament yet)."""
    import datetime as dt
    import random

    from ..net.tournament import EventConfig
    from ..tournament.vp import check_hands

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    hands = args.hands if args.hands is not None else 3
    check_hands(args.game, hands)                   # refused before anything starts
    if args.format == "individual" and (args.game != "burraco" or args.players not in (None, 4)):
        raise UsageError("the individual format is for Burraco at 4 seats (partners change "
                         "each round) [TOURN-11]")
    if args.start_when is None and not sys.stdin.isatty():
        raise UsageError("with no terminal for the director's commands, give --start-when N "
                         "(the number of players that closes registration)")
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d-%H%M%S")
    directory = (args.dir or Path(data_dir) / "tournaments" / stamp).resolve()
    if (directory / "standings.json").exists():
        raise UsageError(f"{directory} already holds a tournament; choose another --dir")
    directory.mkdir(parents=True, exist_ok=True)
    return EventConfig(game=args.game, variant=args.variant, players=args.players,
                       format=args.format, rounds=args.rounds, hands=hands, seed=seed,
                       start_when=args.start_when, no_show=args.no_show,
                       auto_next=args.auto_next, directory=directory)


COMMANDS_HELP = """commands / comandi:
  status | stato          every table: round, hand, scores, clock; and the standings
  start | inizia          close registration and open round 1
  next | avanti           open the next round (when the round is over)
  bots | bot              give every empty seat of the round a host bot now [TOURN-14]
  quit | esci             stop the host (the records so far stay signed on disk)"""


def handle_command(event: Any, line: str) -> tuple[str, bool]:
    """One director's command → (what to print, whether to stop)."""
    word = line.strip().lower()
    if word in ("", "status", "stato"):
        return "\n".join(event.status_lines()), False
    if word in ("start", "inizia"):
        return event.start(), False
    if word in ("next", "avanti"):
        return event.next_round(), False
    if word in ("bots", "bot"):
        return f"{event.fill_no_shows()} host bot(s) seated", False
    if word in ("help", "aiuto", "?"):
        return COMMANDS_HELP, False
    if word in ("quit", "esci"):
        event.write_records() if event.entrants else None
        return "stopping", True
    return f"unknown command {word!r}; type `help`", False


def write_csv(rows: list[dict[str, Any]], target: str) -> None:
    fields = ["rank", "entrant", "name", "vp", "mp", "played", "byes"]
    if target == "-":
        w = csv.DictWriter(sys.stdout, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
        return
    with open(target, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


# --------------------------------------------------------------------------- verify

def _run_verify(paths: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """The project's `verify` on every match directory, through its entry point, as JSON."""
    from . import verify as v

    p = argparse.ArgumentParser()
    v.add_arguments(p)
    argv = [*paths, "--json"]
    if args.keys:
        argv += ["--keys", args.keys]
    if args.data_dir:
        argv += ["--data-dir", str(args.data_dir)]
    vargs = p.parse_args(argv)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = v.run(vargs)
    report: dict[str, Any]
    try:
        report = dict(json.loads(out.getvalue()))
    except (ValueError, TypeError):
        report = {}
    report["exit"] = code
    return report


def verify(directory: Path, args: argparse.Namespace) -> int:
    """TOURN-15: the signature, every match, every result, the standings."""
    from ..net.identity import verify as verify_sig
    from ..net.tournament import canonical, standings_rows
    from ..tournament.standings import tally

    path = directory / "standings.json"
    try:
        signed = json.loads(path.read_text(encoding="utf-8"))
        body = signed["body"]
        assert body.get("kind") == "p2p-burraco tournament"
        host_key = bytes.fromhex(signed["host_key"])
        sig = bytes.fromhex(signed["signature"])
    except (OSError, ValueError, KeyError, TypeError, AssertionError) as exc:
        print(f"{directory}: not a tournament directory ({path.name}: {exc or 'bad form'})")
        return EXIT_NOT_TOURNAMENT
    problems: list[str] = []
    missing: list[str] = []
    if not verify_sig(host_key, sig, canonical(body)):
        problems.append("standings.json: the host's signature does not verify")
    ev = body["event"]
    game, hands = ev["game"], int(ev["hands"])
    dirs = [t["dir"] for r in body["rounds"] for t in r["tables"] if t.get("dir")]
    report: dict[str, Any] = (_run_verify([str(directory / d) for d in dirs], args)
                              if dirs else {"exit": 0})
    by_id = {m.get("match_id"): m for m in report.get("matches", [])}
    code = int(report.get("exit", EXIT_INCOMPLETE))
    rounds, results = _audited_results(body, by_id, game, hands, problems, missing)
    lines = tally(len(body["entrants"]), rounds, results, game, hands)
    rows = standings_rows(lines, body["entrants"])
    if rows != body["standings"]:
        problems.append("the signed standings differ from those recomputed from the audited "
                        "matches")
    for i, row_ in enumerate(rows):
        print(f"{i + 1:>3}. {row_['name']:<28} {row_['vp']:>4} VP {row_['mp']:>+7d} MP")
    if args.csv:
        write_csv(rows, args.csv)
    for p_ in problems:
        print(f"  problem: {p_}")
    for m_ in missing:
        print(f"  missing: {m_}")
    if not body.get("complete"):
        missing.append("the event is not complete")
    if problems or code == EXIT_CHEAT:
        final = EXIT_CHEAT
    elif missing or code == EXIT_INCOMPLETE:
        final = EXIT_INCOMPLETE
    elif code != EXIT_FAIR:
        final = code
    else:
        final = EXIT_FAIR
    word = {EXIT_FAIR: "every match fair, the signed standings recomputed",
            EXIT_CHEAT: "a cheat or a false record is proven",
            EXIT_INCOMPLETE: "incomplete (something is missing)",
            EXIT_NOT_TOURNAMENT: "not a tournament"}.get(final, "?")
    print(f"{len(dirs)} match(es): {word}")
    return final


def _audited_results(body: dict[str, Any], by_id: dict[Any, Any], game: str, hands: int,
                     problems: list[str], missing: list[str]
                     ) -> tuple[list[Round], list[list[Result | None]]]:
    """Each round's tables and the result each match's audited hands give (None: no
    audited match), one line printed a table; a signed result that differs is a problem,
    a match not audited is missing."""
    from ..tournament.movement import Round
    from ..tournament.standings import Result, match_result

    rounds: list[Round] = []
    results: list[list[Result | None]] = []
    for r, rnd in enumerate(body["rounds"]):
        rounds.append(Round.from_json(rnd))
        row: list[Result | None] = []
        for t, tb in enumerate(rnd["tables"]):
            where = f"round {r + 1} table {t + 1}"
            m = by_id.get(tb.get("match_id"))
            computed = (m or {}).get("standings", {}).get("computed")
            if m is None or computed is None:
                missing.append(f"{where}: no audited match {tb.get('match_id')}")
                row.append(None)
                continue
            stated = tb.get("result")
            reason = stated.get("reason", "hands") if stated else "hands"
            got = match_result(game, hands, computed, reason)
            if stated is None or Result.from_json(stated) != got:
                problems.append(f"{where}: the signed result {stated} is not what the "
                                f"audited hands give ({got.to_json()})")
            print(f"{where} ({tb.get('table')}): match {str(tb['match_id'])[:8]} "
                  f"{m.get('verdict')}, VP {got.vp[0]}-{got.vp[1]}, MP {got.mp[0]:+d}")
            row.append(got)
        results.append(row)
    return rounds, results


# --------------------------------------------------------------------------- bench

def bench(args: argparse.Namespace) -> int:
    """`tournament bench --tables N`: a whole event of bot players (Mitchell, 2 lines a
    table) against a director in its own process; the director's CPU time (user + system,
    from the kernel's accounting of the child) and its peak resident memory, per hand."""
    import os
    import re
    import subprocess
    import tempfile
    import time

    seats = args.players or (4 if args.game == "burraco" else 2)
    players = args.tables * seats
    rounds = min(args.rounds, args.tables * 2 // 2)
    hands = args.hands or 2
    with tempfile.TemporaryDirectory(prefix="p2p-tourney-bench-") as tmp:
        cmd = [sys.executable, "-m", "p2p_burraco", "tournament", "--port", "0",
               "--game", args.game, "--players", str(seats), "--format", "mitchell",
               "--rounds", str(rounds), "--hands", str(hands), "--start-when", str(players),
               "--auto-next", "--seed", "1", "--dir", f"{tmp}/ev", "--data-dir", f"{tmp}/host",
               "--strategy", args.strategy or "greedy",
               "--max-per-address", str(max(64, players + 8))]
        started = time.monotonic()
        director = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    stdin=subprocess.DEVNULL, text=True)
        assert director.stdout is not None
        port = None
        for line in director.stdout:
            m = re.search(r"join 127\.0\.0\.1:(\d+)", line)
            if m:
                port = int(m.group(1))
                break
        if port is None:
            director.kill()
            raise OSError("the director did not start")
        per = [players // args.bot_procs + (1 if i < players % args.bot_procs else 0)
               for i in range(args.bot_procs)]
        bots = [subprocess.Popen([sys.executable, "-m", "p2p_burraco", "tournament", "bots",
                                  f"127.0.0.1:{port}", str(n), f"b{i}-", "--strategy",
                                  args.strategy or "greedy", "--seed", str(100 * i)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for i, n in enumerate(per) if n]
        rest = director.stdout.read()
        _, status, usage = os.wait4(director.pid, 0)
        director.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - started
        for b in bots:
            b.wait(timeout=60)
        if director.returncode != 0 or "the tournament is over" not in rest:
            print(f"the event did not finish (director exit {director.returncode})")
            return 1
    n_hands = args.tables * rounds * hands
    cpu = usage.ru_utime + usage.ru_stime
    rss_mb = usage.ru_maxrss / 1024
    print(f"tournament bench: {args.game}, {args.tables} tables x {rounds} rounds x {hands} "
          f"hands = {n_hands} hands, {players} bot players in {len(bots)} process(es)")
    print(f"  wall {wall:.1f} s; director CPU {cpu:.2f} s ({1000 * cpu / n_hands:.1f} ms a "
          f"hand, including its start-up); director peak RSS {rss_mb:.1f} MB")
    try:
        load = os.getloadavg()
        print(f"  load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    except OSError:
        pass
    return 0
