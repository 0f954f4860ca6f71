"""Argument types and choices shared by the commands, so every bad value is refused by argparse
before anything starts: one sentence naming the value and what is accepted, exit status 2.

Light on purpose (no game engine, no Twisted): `p2p-burraco rules` and `--help` stay instant.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

GAMES: tuple[str, ...] = ("burraco", "briscola")
STRATEGIES: tuple[str, ...] = ("heuristic", "greedy", "random", "expert")
"""Bot strategies, the same names for both games (bots/__init__.py registers them)."""
SEATS: tuple[int, ...] = (2, 3, 4, 5, 6)
"""Seat counts any rule set allows; a rule set's own list is checked once it is known."""


def int_at_least(low: int, what: str = "a whole number") -> Callable[[str], int]:
    """An argparse type: a whole number >= `low`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is too small: it must be {low} or more")
        return value

    parse.__name__ = "number"
    return parse


def seconds(positive: bool = False) -> Callable[[str], float]:
    """An argparse type: a number of seconds (or minutes), >= 0 or > 0."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if value < 0 or positive and value == 0:
            need = "more than 0" if positive else "0 or more"
            raise argparse.ArgumentTypeError(f"{text} is out of range: it must be {need}")
        return value

    parse.__name__ = "number"
    return parse


def seat_count(text: str) -> int:
    """`--players`: one of SEATS (the rule set narrows it further before the table opens)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of players") from None
    if value not in SEATS:
        raise argparse.ArgumentTypeError(
            f"{value} players is not possible: choose from {', '.join(map(str, SEATS))}")
    return value


def port(text: str) -> int:
    """A TCP port, 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port: choose 0 to 65535")
    return value


def strategy_list(text: str) -> str:
    """`selfplay --bots`: comma-separated strategy names, each one of STRATEGIES."""
    names = [b.strip() for b in text.split(",") if b.strip()]
    bad = [n for n in names if n not in STRATEGIES]
    if not names or bad:
        raise argparse.ArgumentTypeError(
            f"{(bad or [text])[0]!r} is not a bot strategy: choose from "
            f"{', '.join(STRATEGIES)} (comma-separated)")
    return ",".join(names)


THINK_HELP = ("per-move time budget of an expert bot, in seconds "
              "(default 1 for Burraco, 0.5 for Briscola)")
"""The defaults are the bots' own (`DEFAULT_THINK` in `bots.burraco_expert` and
`bots.briscola_expert`); a test keeps this text true."""


def add_think(p: argparse.ArgumentParser) -> None:
    """`--think SECONDS`, the same on every command that can seat an expert bot."""
    p.add_argument("--think", type=seconds(positive=True), default=None, metavar="SECONDS",
                   help=THINK_HELP)


def add_lang(p: argparse.ArgumentParser, default: str | None = argparse.SUPPRESS) -> None:
    """`--lang it|en`: the language of card names and help (default: the locale's)."""
    from ..cardnames import LANGS

    p.add_argument("--lang", choices=LANGS, default=default,
                   help="language of card names and help: it or en (default: from the locale)")


def locale_lang() -> str:
    """'it' when the locale is Italian (LC_ALL, LC_MESSAGES or LANG), else 'en'."""
    import os

    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return "it" if value.lower().startswith("it") else "en"
    return "en"
