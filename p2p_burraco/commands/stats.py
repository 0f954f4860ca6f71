"""`p2p-burraco stats [--player NAME] [--game G]`: per player and per partnership — matches,
wins, points a hand, burraco by kind, closings, and each person's record against the
host's bots by strategy (HIST-4; the definitions are in `storage.stats`)."""

from __future__ import annotations

import argparse

from .history import add_history_arguments

HELP = "per player and partnership: matches, wins, points a hand, burraco, closings, vs bots"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_history_arguments(p)


def run(args: argparse.Namespace) -> int:
    from ..storage.stats import compute, format_stats
    from .history import open_history

    with open_history(args.data_dir) as history:
        records = history.matches(player=args.player, game=args.game)
    if not records:
        print("no finished matches in the history")
        return 0
    print(f"{len(records)} match(es)")
    print("\n".join(format_stats(compute(records))))
    return 0
