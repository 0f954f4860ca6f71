"""`p2p-burraco ARGS` whose disk fills at one chosen write of the host (a launcher for the
fault tier, never for play).

The disk is real (a small tmpfs the test mounted) and so is the ENOSPC: this launcher only
picks the moment. With `P2P_BURRACO_TEST_FILL=MOMENT:NAME[#N]:FILLER` in the environment,
the N-th time (default the first) the process writes a whole file whose name matches the
glob NAME (`hand-002.p2pb`, `result.json`, `*.seed`: every atomic write goes through
storage.files), the file FILLER is grown until the disk refuses another byte — *before*
that write (MOMENT `before`: the file itself meets ENOSPC) or right *after* it (MOMENT
`after`: what follows it, at a hand's close the checkpoint or the result, does). It says
so on stdout, in one line the test waits for, then lets the write go on.

Run as `python tests/diskfill.py host ...`, exactly the arguments of `p2p-burraco`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

FILL = "P2P_BURRACO_TEST_FILL"


def fill(filler: Path) -> int:
    """Grow `filler` until the disk is full; its size."""
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (65536, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def install(spec: str) -> None:
    """Wrap the one writer of whole files so that the disk fills at the moment `spec` names."""
    import fnmatch

    from p2p_burraco.storage import files

    moment, name, filler = spec.split(":", 2)
    name, _, nth = name.partition("#")
    if moment not in ("before", "after"):
        raise SystemExit(f"{FILL}: MOMENT is before or after, not {moment!r}")
    real = files._write
    left = int(nth or 1)

    def write(path: Any, data: bytes, mode: int) -> None:
        nonlocal left
        due = False
        if left > 0 and fnmatch.fnmatch(Path(path).name, name):
            left -= 1
            due = left == 0
        if due and moment == "before":
            print(f"diskfill: the disk is full before {Path(path).name} "
                  f"({fill(Path(filler))} bytes of filler)", flush=True)
        real(path, data, mode)
        if due and moment == "after":
            print(f"diskfill: the disk is full after {Path(path).name} "
                  f"({fill(Path(filler))} bytes of filler)", flush=True)

    files._write = write  # type: ignore[assignment]


def command(*args: str) -> list[str]:
    """The command line of `p2p-burraco ARGS` through this launcher (prockit's `command`)."""
    return [sys.executable, str(Path(__file__).resolve()), *args]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    if os.environ.get(FILL):
        install(os.environ[FILL])
    from p2p_burraco.cli import main

    sys.exit(main(sys.argv[1:]))
