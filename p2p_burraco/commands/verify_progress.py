"""The progress line of a long `verify` run (issue 47): on a terminal only, one line on
stderr rewritten in place (`verifying: 120/480 hands`), erased when the run ends, so the
report on stdout — and any pipe or script reading it — is untouched."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

EVERY_S = 0.2
"""At most this often the line is rewritten (a terminal is slow to scroll)."""


@contextmanager
def terminal_progress(stream: TextIO, clock: Callable[[], float] = time.monotonic
                      ) -> Iterator[Callable[[int, int], None] | None]:
    """A `progress(done, total)` callback that draws on `stream` when it is a terminal
    (None otherwise: nothing is drawn), and erases its line at the end."""
    if not stream.isatty():
        yield None
        return
    last = [float("-inf")]
    drawn = [False]

    def progress(done: int, total: int) -> None:
        now = clock()
        if now - last[0] < EVERY_S or total <= 0:
            return
        last[0] = now
        stream.write(f"\rverifying: {done}/{total} hands\x1b[K")
        stream.flush()
        drawn[0] = True

    try:
        yield progress
    finally:
        if drawn[0]:
            stream.write("\r\x1b[K")
            stream.flush()
