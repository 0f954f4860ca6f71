"""`p2p-burraco selfplay`: whole hands between in-process bots, with conservation checks."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from ..selfplay import SelfplayConfig

HELP = "play whole hands between bots in one process and print the scores"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .argtypes import GAMES, add_think, int_at_least, seat_count, strategy_list

    p.add_argument("--game", default="burraco", choices=GAMES)
    p.add_argument("--variant", default=None, help="rule set (see `p2p-burraco rules`)")
    p.add_argument("--players", type=seat_count, default=None, help="seats (default: 4 / 2)")
    p.add_argument("--hands", type=int_at_least(1), default=1, help="hands to play (fewer if the match ends)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bots", default="greedy,random", type=strategy_list,
                   help="comma-separated strategies, cycled over the seats")
    p.add_argument("--target", type=int_at_least(1), default=None, help="match target (default: the rule set's)")
    p.add_argument("--match", dest="match_kind", default=None, choices=("punti", "smazzate"),
                   help="Briscola: match by points or by number of hands")
    p.add_argument("--each-for-himself", action="store_true",
                   help="Burraco with 3 or 5 players: one 11-card pozzetto each, no pairs")
    p.add_argument("--fair", action="store_true",
                   help="deal every hand through the full fair-deal protocol")
    p.add_argument("--record", default=None, metavar="DIR",
                   help="with --fair: write one transcript per hand into DIR")
    p.add_argument("--quiet", action="store_true", help="print only the match total")
    add_think(p)


def run(args: argparse.Namespace) -> int:
    from ..games.base import HandResult, HandState
    from ..gc_policy import apply_gc_policy
    from ..selfplay import SelfplayConfig, run_selfplay

    apply_gc_policy()

    players = args.players or (4 if args.game == "burraco" else 2)
    options: dict[str, object] = {}
    if args.match_kind is not None:
        if args.game != "briscola":
            raise UsageError("--match applies to Briscola only")
        options["match_kind"] = args.match_kind
    if args.game == "briscola":
        options["hands"] = args.hands  # the match's smazzate: best of K, or K to add up
    if getattr(args, "each_for_himself", False):
        if args.game != "burraco":
            raise UsageError("--each-for-himself applies to Burraco only")
        options["each_for_himself"] = True
    if args.record and not args.fair:
        raise UsageError("--record needs --fair (only fair-dealt hands have transcripts)")
    # Room for Briscola's knock-out play-offs: the harness stops when the match is over.
    max_hands = args.hands + (3 if args.game == "briscola" else 0)
    cfg = SelfplayConfig(game=args.game, variant=args.variant, players=players,
                         hands=max_hands, seed=args.seed,
                         bots=[b.strip() for b in args.bots.split(",") if b.strip()],
                         target=args.target, options=options, think=args.think)

    _check_options(cfg)
    seated = seat_names(cfg.bots, players)
    if not args.quiet:
        print("seats: " + ", ".join(f"{i} {name}" for i, name in enumerate(seated)))

    def report(hand_no: int, state: HandState, result: HandResult) -> None:
        if args.quiet:
            return
        print(f"— hand {hand_no + 1} ({result.reason}) —")
        for side, pts, lines in zip(result.sides, result.points, result.breakdown):
            who = "+".join(f"{seated[s]} (seat {s})" for s in side)
            detail = ", ".join(f"{ln.label} {ln.points:+d}" for ln in lines)
            print(f"  {who}: {pts:+d}   [{detail}]")
        if isinstance(result.extra.get("summary"), str):  # a game's one-line account
            print(f"  {result.extra['summary']}")

    if args.fair:
        from ..table.inprocess import run_fair_selfplay
        match, results = run_fair_selfplay(cfg, record_dir=args.record, report=report)
    else:
        match, results = run_selfplay(cfg, report=report)
    standings = match.standings()
    print(f"match after {len(results)} hand(s): {format_standings(standings, seated)}")
    sys.stdout.flush()
    return 0


def _check_options(cfg: SelfplayConfig) -> None:
    """The options build a match before any hand is played: a ValueError the rules raise
    for them (an even best-of, a target out of range) is the person's input, said as such."""
    import random

    from ..selfplay import make_match

    try:
        make_match(cfg, random.Random(0))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def seat_names(bots: Sequence[str], players: int) -> list[str]:
    """Which bot sits where: the strategies cycled over the seats, as make_strategies does."""
    names = list(bots) or ["greedy"]
    return [names[i % len(names)] for i in range(players)]


def format_standings(standings: dict[str, object], names: Sequence[str] = ()) -> str:
    """One line: side totals (seats named when `names` are given), target and the winner if
    the match is over."""
    sides = standings.get("sides", [])
    totals = standings.get("totals", [])

    def who(s: int) -> str:
        return f"{names[s]} (seat {s})" if s < len(names) else f"seat {s}"

    parts = [f"{'+'.join(who(s) for s in side)} {total}"
             for side, total in zip(sides, totals)]  # type: ignore[call-overload]  # standings values are object
    line = " | ".join(parts)
    if standings.get("target") is not None:
        line += f"  (target {standings['target']})"
    if standings.get("winner") is not None:
        line += f"  winner: {standings['winner']}"
    elif standings.get("over"):
        line += "  tie"
    vp = standings.get("victory_points")
    if isinstance(vp, list):
        line += f"  VP {'-'.join(map(str, vp))}"
    if standings.get("decided_by"):
        line += f"  (decided by: {standings['decided_by']})"
    return line
