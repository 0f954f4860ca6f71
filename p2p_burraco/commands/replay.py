"""`p2p-burraco replay MATCH|FILE [--hand K] [--text]`: watch a recorded hand with every card
face up (REPLAY-1), or print it as plain text for sharing (REPLAY-2)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..errors import UsageError

HELP = "watch a recorded hand move by move with every card face up (--text: print it)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", metavar="MATCH|FILE",
                   help="a match directory, a hand transcript (hand-NNN.p2pb), or a match id "
                        "(or its first 8+ hex digits) from `p2p-burraco history`")
    p.add_argument("--hand", type=int, default=None, metavar="K",
                   help="the hand to open (from 1; default the first; with --text: only it)")
    p.add_argument("--text", action="store_true",
                   help="print the hand record as plain text (deal diagram, one line per "
                        "move, score sheet) instead of opening the viewer")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="where the history is, to find a match by id (default: user data dir)")


def resolve(target: str, data_dir: Path | None) -> list[str]:
    """The paths a MATCH|FILE argument names: itself if it exists, else the records of the
    history's match with that id (prefix)."""
    if Path(target).exists():
        return [target]
    if re.fullmatch(r"[0-9a-fA-F]{8,32}", target):
        from .history import open_history

        with open_history(data_dir) as history:
            rec = history.match(target.lower())
        if rec is not None:
            return [rec.directory]
        raise UsageError(f"no match {target!r} in the history (see `p2p-burraco history`), "
                         "and no such file")
    raise UsageError(f"{target}: no such file or directory, and not a match id")


def run(args: argparse.Namespace) -> int:
    from ..table.replay import ReplayError, load, text_lines

    paths = resolve(args.target, args.data_dir)
    try:
        hands = load(paths)
    except ReplayError as exc:
        raise UsageError(str(exc)) from None
    numbers = [r.hand_no + 1 for r in hands]
    index = 0
    if args.hand is not None:
        if args.hand not in numbers:
            raise UsageError(f"--hand {args.hand}: {args.target} holds hand(s) "
                             f"{', '.join(map(str, numbers))}")
        index = numbers.index(args.hand)
    if args.text:
        chosen = [hands[index]] if args.hand is not None else hands
        out = []
        for r in chosen:
            out.append("\n".join(text_lines(r)))
        sys.stdout.write("\n\n".join(out) + "\n")
        sys.stdout.flush()
        return 0
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise UsageError("the replay viewer needs a terminal (or use --text)")
    from ..console.replay import run_replay

    return run_replay(hands, index)
