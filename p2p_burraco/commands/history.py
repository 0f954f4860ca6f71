"""`p2p-burraco history [--player NAME] [--game G]`: the finished matches this machine took
part in, the latest first (HIST-1), from the history database in the data directory."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

HELP = "list the finished matches played on this machine (players, result, why it ended)"


def add_history_arguments(p: argparse.ArgumentParser) -> None:
    """What `history` and `stats` share: the data directory and the filters."""
    p.add_argument("--player", default=None, metavar="NAME", help="only matches NAME played")
    p.add_argument("--game", default=None, choices=("burraco", "briscola"),
                   help="only matches of this game")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="where the history and the match records are (default: user data dir)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_history_arguments(p)
    p.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    p.add_argument("--hands", action="store_true",
                   help="each hand too: its outcome and score breakdown")


def open_history(data_dir: Path | None) -> Any:
    """The history, with any finished match on disk that it lacks indexed first (a host
    killed before its hook ran, a record copied in)."""
    from ..net.identity import default_data_dir
    from ..storage.history import History, history_path
    from ..table.match_record import index_records

    base = Path(data_dir) if data_dir is not None else default_data_dir()
    history = History(history_path(base))
    index_records(history, base)
    return history


def match_lines(rec: Any, hands: bool = False) -> list[str]:
    """One match: when, id, game, players by side with totals, the winner, why it ended,
    the verdict; with `hands`, each hand's outcome and score lines."""
    parts = [f"{rec.names(side)} {total}" for side, total in zip(rec.sides, rec.totals)]
    winner = rec.names(rec.sides[rec.winner]) if rec.winner is not None \
        and 0 <= rec.winner < len(rec.sides) else "none"
    bots = [s for s in rec.seats if s.bot]
    out = [f"{rec.ended[:16].replace('T', ' ')}  {rec.match_id[:12]}  {rec.game} "
           f"{rec.variant}: {' | '.join(parts)}; winner {winner} ({rec.reason}); "
           f"{len(rec.hands)} hand(s); verify: {rec.verdict}"
           + (f"; bots: {', '.join(f'{s.name} ({s.bot})' for s in bots)}" if bots else "")]
    if hands:
        for h in rec.hands:
            pts = " | ".join(f"{rec.names(side)} {p:+d}" for side, p in zip(h.sides, h.points))
            closer = f", closed by {rec.seats[h.closed_by].name}" \
                if h.closed_by is not None and h.closed_by < len(rec.seats) else ""
            out.append(f"    hand {h.hand_no} ({h.kind}, {h.reason}{closer}): {pts}")
            for side, lines in zip(h.sides, h.breakdown):
                if lines:
                    out.append(f"      {rec.names(side)}: "
                               + ", ".join(f"{lbl} {p:+d}" for lbl, p in lines))
        out.append(f"    records: {rec.directory}")
    return out


def run(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise ValueError("--limit must be at least 1")
    with open_history(args.data_dir) as history:
        records = history.matches(player=args.player, game=args.game, limit=args.limit)
    if not records:
        what = " ".join(x for x in (f"of {args.player}" if args.player else "",
                                    f"of {args.game}" if args.game else "") if x)
        print(f"no finished matches {what}".rstrip() + " in the history")
        return 0
    for rec in records:
        print("\n".join(match_lines(rec, args.hands)))
    return 0
