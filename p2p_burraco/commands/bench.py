"""`p2p-burraco bench WHAT`: performance figures, printed (never asserted in tests)."""

from __future__ import annotations

import argparse
import importlib

HELP = "measure performance: engine | deal | draw | bots | host | match | table"
BENCHES: tuple[str, ...] = ("engine", "deal", "draw", "bots", "host", "match", "table")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bench", metavar="WHAT", required=True)
    for name in BENCHES:
        module_name = f"p2p_burraco.benchmarks.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_bench=module.run)


def run(args: argparse.Namespace) -> int:
    return int(args._bench(args) or 0)
