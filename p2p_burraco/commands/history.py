"""`p2p-burraco history [--player NAME] [--game G]`: the finished matches this machine took
part in, the latest first (HIST-1), from the history database in the data directory."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import UsageError

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


def run(args: argparse.Namespace) -> int:
    from ..storage.history import summary_lines

    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    with open_history(args.data_dir) as history:
        records = history.matches(player=args.player, game=args.game, limit=args.limit)
    if not records:
        what = " ".join(x for x in (f"of {args.player}" if args.player else "",
                                    f"of {args.game}" if args.game else "") if x)
        print(f"no finished matches {what}".rstrip() + " in the history")
        return 0
    for rec in records:
        print("\n".join(summary_lines(rec, args.hands)))
    return 0
