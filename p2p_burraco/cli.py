"""`p2p-burraco` command line: argument parsing only; each command lives in commands/.

Every command module exposes `HELP: str`, `add_arguments(parser)` and `run(args) -> int`,
and imports its heavy dependencies (Twisted, prompt-toolkit, crypto) inside `run`, so that
`p2p-burraco rules` starts instantly and layers stay separate.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

COMMANDS: tuple[str, ...] = (
    "play", "host", "join", "selfplay", "rules", "verify", "bench",
    "tables", "history", "stats", "replay", "tournament",
)


class Parser(argparse.ArgumentParser):
    """argparse with a one-sentence refusal: the bad value and what is accepted, then exit
    status 2 — no usage block to read through, no traceback."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    from .commands.argtypes import add_lang, locale_lang

    parser = Parser(
        prog="p2p-burraco",
        description="Burraco and Briscola among friends, dealt fairly with no trusted dealer.",
    )
    parser.add_argument("--version", action="version", version=f"p2p-burraco {__version__}")
    add_lang(parser, default=locale_lang())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module_name = f"p2p_burraco.commands.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a command not built yet in this checkout
            if exc.name == module_name:
                continue
            raise
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        if not any("--lang" in a.option_strings for a in p._actions):
            add_lang(p)   # also after the command: `p2p-burraco play --lang it`
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:   # --help, --version, or a refused argument (status 2)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    from .errors import EX_ENVIRONMENT, EX_USAGE, Refused, UsageError, report_bug

    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        sys.stderr.close()
        return 0
    except UsageError as exc:  # bad input: a clear message, no traceback
        print(f"p2p-burraco {args.command}: error: {exc}", file=sys.stderr)
        return EX_USAGE
    except Refused as exc:  # will not go on as things stand: the sentence says how to
        print(f"p2p-burraco {args.command}: {exc}", file=sys.stderr)
        return EX_ENVIRONMENT
    except OSError as exc:  # the system refused (a file, a port, a full disk): not a bug
        print(f"p2p-burraco {args.command}: error: {exc}", file=sys.stderr)
        return EX_ENVIRONMENT
    except Exception as exc:  # noqa: BLE001 - a bug, whatever its class: reported as one
        return report_bug(exc, _data_dir(args), prog=f"p2p-burraco {args.command}")


def _data_dir(args: argparse.Namespace) -> str | None:
    """Where a bug's traceback goes: the command's data directory, or the user's."""
    chosen = getattr(args, "data_dir", None)
    if chosen:
        return str(chosen)
    import platformdirs  # computes a path, touches nothing

    return str(platformdirs.user_data_dir("p2p-burraco", appauthor=False))


if __name__ == "__main__":
    sys.exit(main())
