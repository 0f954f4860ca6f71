"""How long an expert bot thinks: a time budget turned into a number of iterations.

The number of iterations is the reproducible knob: the same seed and the same budget give the
same iterations and so the same move on any machine. It is derived from the budget with a
fixed estimate of what one iteration costs (measured on the developers' machine), never from
the clock. The clock is only a safety net: past `HARD_STOP` times the budget a search stops
early with what it has (a slow or busy machine then plays a weaker, no longer reproducible
move, but it keeps the table waiting at most that long).
"""

from __future__ import annotations

import time

DEFAULT_THINK = 0.5
"""Seconds per move unless told otherwise (`--think`)."""
HARD_STOP = 1.5
"""The search stops at this many times its budget, whatever the iterations say."""


def check_think(think: float | None) -> None:
    """A `--think` must be a positive, finite number of seconds (None: the default)."""
    if think is not None and not (0 < think < float("inf")):
        raise ValueError(f"--think must be a positive number of seconds, not {think}")


class Budget:
    """Iterations for one decision and the safety-net deadline."""

    def __init__(self, think: float, cost_per_iteration: float, minimum: int = 2) -> None:
        check_think(think)
        self.minimum = minimum
        self.iterations = max(minimum, int(think / cost_per_iteration))
        self.deadline = time.perf_counter() + HARD_STOP * think

    def out_of_time(self, done: int) -> bool:
        """Stop now? Never before `minimum` iterations (fewer tell the search nothing: a
        paired comparison needs two), else once past the safety-net deadline."""
        return done >= self.minimum and time.perf_counter() > self.deadline
