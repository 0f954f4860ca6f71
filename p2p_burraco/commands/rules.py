"""`p2p-burraco rules`: a rule set in plain words, laid out like a rulebook — wrapped to the
terminal, each rule with its id at the end (the id `why` shows after a refusal, and the
digests in seeds/ use), without the program's own jargon (preset names, seeds, the bound
a proof needs)."""

from __future__ import annotations

import argparse
import re
import shutil
import textwrap

from ..errors import UsageError

HELP = "print a rule set in plain words"

_PRESET = re.compile(r"\s+\(preset '[^']*', seed \d+\)\s*$")
"""The title's `(preset 'fibur', seed 000)`: the program's names, not a player's."""
_FORMULA = re.compile(r"\s*So every hand ends within [^.]*\.")
"""TABLE-12's turn bound: a fact for the tests and the proof, not for the table."""
_RULE = re.compile(r"^- (?P<text>.*?)\s+(?P<ids>\[[^\]]+\])\s*$")
def _column(line: str) -> tuple[str, str] | None:
    """Briscola's layout: `  key` padded to 13 columns (a longer key: one space), text."""
    if not line.startswith("  ") or line[2:3] in ("", " "):
        return None
    rest = line[2:]
    cut = rest.find("  ")
    if cut < 0 or cut > 12:
        cut = rest.find(" ", 12)
    if cut < 0:
        return None
    return rest[:cut].strip(), rest[cut:].strip()


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .argtypes import GAMES

    p.add_argument("--game", default="burraco", choices=GAMES)
    p.add_argument("--variant", default=None, help="rule set name (default: the game's default)")
    p.add_argument("--list", action="store_true", help="list the rule sets of the game")
    p.add_argument("--width", type=int, default=None,
                   help="columns to wrap to (default: the terminal's, at most 100)")


def rulebook(text: str, width: int) -> str:
    """The engine's description laid out for reading: the title without jargon, each rule
    a paragraph wrapped to `width` with its id at its end, the column layout (Briscola's)
    wrapped under its own column."""
    width = max(40, width)
    out: list[str] = []
    lines = text.splitlines()
    entry: list[str] | None = None       # a Briscola entry: key and text, continued below

    def flush() -> None:
        nonlocal entry
        if entry is not None:
            key, body = entry
            pad = " " * 15
            out.extend(textwrap.wrap(body, width, initial_indent=f"  {key:<12} ",
                                     subsequent_indent=pad, break_on_hyphens=False))
            entry = None

    for i, line in enumerate(lines):
        if i == 0:
            out.append(_PRESET.sub("", line))
            continue
        m = _RULE.match(line)
        if m:
            flush()
            body = _FORMULA.sub("", m.group("text")) + "  " + m.group("ids")
            out.extend(textwrap.wrap(body, width, initial_indent="- ", subsequent_indent="  ",
                                     break_on_hyphens=False))
            continue
        c = _column(line)
        if c:
            flush()
            entry = list(c)
            continue
        if entry is not None and line.startswith("   ") and line.strip():
            entry[1] += " " + line.strip()
            continue
        flush()
        out.extend(textwrap.wrap(line, width, break_on_hyphens=False) or [""])
    flush()
    return "\n".join(out)


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
    width = args.width or min(100, shutil.get_terminal_size((80, 24)).columns)
    print(rulebook(spec.describe(spec.presets[variant]), width))
    return 0
