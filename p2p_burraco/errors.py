"""Telling a person's bad input from a bug of ours.

`UsageError` is the one base for "what you gave is wrong": an option out of range, a file
that is not a record, an address that is not HOST[:PORT]. The command line turns it into one
sentence and exit status 2. Every other exception is a bug (or the system failing under us):
`report_bug` writes the traceback to a file and says so in one sentence, and the command
exits with `EX_SOFTWARE` (70, sysexits.h). The protocol's and the rules' own refusals
(`WireError`, `RuleViolation`, `TableError`, `ReplicaError`) are ValueErrors for the code that
handles them, but never a `UsageError`: one reaching the command line is a bug.

Pure: no Twisted, no prompt-toolkit; only the standard library.
"""

from __future__ import annotations

import datetime as _dt
import os
import sys
import tempfile
import traceback
from pathlib import Path

EX_USAGE = 2
"""Bad input from the person (argparse's own status for a refused argument)."""
EX_ENVIRONMENT = 1
"""The system refused (a file, a port, a disk): not a bug, not bad input."""
EX_SOFTWARE = 70
"""An internal error (sysexits.h EX_SOFTWARE): a bug, with its traceback in a file."""


class UsageError(ValueError):
    """Bad input from the person at the keyboard: shown as one sentence, exit status 2.

    A ValueError, so that code which validated with `except ValueError` keeps working."""


class Refused(Exception):
    """The program will not go on as things stand, and says why and how to go on (a damaged
    journal, a data directory another host holds, options that differ from the unfinished
    match's): one sentence, exit status 1 — neither bad input nor a bug."""


def write_traceback(exc: BaseException, data_dir: Path | str | None = None) -> Path:
    """Write `exc`'s traceback under `<data_dir>/bugs/` (or a temporary file when that
    directory cannot be written) and return the file's path."""
    text = "".join(traceback.format_exception(exc))
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%d-%H%M%S")
    prefix = f"p2p-burraco-bug-{stamp}-{os.getpid()}-"
    if data_dir is not None:
        try:
            where = Path(data_dir) / "bugs"
            where.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=prefix, suffix=".txt", dir=where)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            return Path(name)
        except OSError:
            pass  # a data directory we cannot write: the temporary directory still takes it
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return Path(name)


BUG_MARK = "internal error (a bug in p2p-burraco, not something you did)"
"""How every bug sentence starts, on this machine or relayed from the host."""


def bug_sentence(exc: BaseException, path: Path | None) -> str:
    """One sentence for a person: it is a bug, what failed, where the traceback went."""
    where = f"the traceback is in {path}" if path is not None else "no traceback was written"
    return f"{BUG_MARK}: {type(exc).__name__}: {exc}; {where}"


def exit_status_of(failure: str) -> int:
    """The exit status for a session that ended on `failure` (a peer's last sentence): a bug
    of ours, here or relayed from the host, is `EX_SOFTWARE`; anything else (unreachable,
    refused, dropped) `EX_ENVIRONMENT`."""
    return EX_SOFTWARE if BUG_MARK in failure else EX_ENVIRONMENT


def report_bug(exc: BaseException, data_dir: Path | str | None = None,
               prog: str = "p2p-burraco") -> int:
    """Write the traceback, print the one sentence to stderr, return `EX_SOFTWARE`."""
    try:
        path: Path | None = write_traceback(exc, data_dir)
    except OSError:
        path = None
    print(f"{prog}: {bug_sentence(exc, path)}", file=sys.stderr)
    return EX_SOFTWARE
