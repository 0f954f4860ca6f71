"""`p2p-burraco rules`: a rule set in plain words."""

from __future__ import annotations

import argparse

from ..errors import UsageError

HELP = "print a rule set in plain words"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .argtypes import GAMES

    p.add_argument("--game", default="burraco", choices=GAMES)
    p.add_argument("--variant", default=None, help="rule set name (default: the game's default)")
    p.add_argument("--list", action="store_true", help="list the rule sets of the game")


def run(args: argparse.Namespace) -> int:
    from ..games import get_game

    spec = get_game(args.game)
    if args.list:
        for name in spec.presets:
            print(name + ("  (default)" if name == spec.default_variant else ""))
        return 0
    variant = args.variant or spec.default_variant
    if variant not in spec.presets:
        raise UsageError(f"unknown {args.game} variant {variant!r}; "
                         f"choose one of: {', '.join(spec.presets)}")
    print(spec.describe(spec.presets[variant]))
    return 0
