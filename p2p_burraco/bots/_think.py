"""How long an expert bot thinks: a time budget turned into a number of iterations.

The number of iterations is the reproducible knob: the same seed and the same budget give the
same iterations and so the same move on any machine. It is derived from the budget with a
fixed estimate of what one iteration costs (measured on the developers' machine), never from
the clock. The clock is only a safety net: past `HARD_STOP` times the budget a search stops
early with what it has (a slow or busy machine then plays a weaker, no longer reproducible
move, but it keeps the table waiting at most that long).
"""

from __future__ import annotations

import math
import time

from ..errors import UsageError

HARD_STOP = 1.2
"""The search stops at this many times its budget, whatever the iterations say: checked
inside a deal's playouts too (`Budget.check`), so a move overruns it by at most one bot
decision of a playout — the table waits at most ~1.25 × `--think`."""


class OutOfTime(Exception):
    """Raised inside a playout past the safety-net deadline: the deal under way is dropped
    (a row of the paired comparison is whole or absent) and the search answers with what it
    has — the heuristic's own choice when that is nothing."""


def check_think(think: float | None) -> None:
    """A `--think` must be a positive, finite number of seconds (None: the default)."""
    if think is not None and not (0 < think < float("inf")):
        raise UsageError(f"--think must be a positive number of seconds, not {think}")


class Budget:
    """Iterations for one decision and the safety-net deadline."""

    def __init__(self, think: float, cost_per_iteration: float, minimum: int = 2,
                 started: float | None = None) -> None:
        """`started`: the `time.perf_counter()` at which the move began (default now): what
        the bot did before its search (reading the table, its hunch) counts too."""
        check_think(think)
        self.minimum = minimum
        self.iterations = max(minimum, int(think / cost_per_iteration))
        begun = time.perf_counter() if started is None else started
        self.deadline = begun + HARD_STOP * think

    def check(self) -> None:
        """OutOfTime once past the deadline (a playout's loop calls it at each step)."""
        if time.perf_counter() > self.deadline:
            raise OutOfTime

    def out_of_time(self, done: int) -> bool:
        """Stop now? Never before `minimum` iterations (fewer tell the search nothing: a
        paired comparison needs two), else once past the safety-net deadline."""
        return done >= self.minimum and time.perf_counter() > self.deadline


CLEAR_Z = 3.0
"""A sampled search may stop early once its leading move is this many standard errors ahead."""
MIN_DEALS = 48
"""… but never before this many samples …"""
CHECK_EVERY = 16
"""… and it looks only every this many: a test repeated after every sample would stop on
noise more often than its 3 errors promise."""


class PairedMeans:
    """Running sums of a sampled search's values, one row per sample (the same sampled deal
    for every move): each move's total and, for every pair of moves, the sum and the sum of
    squares of their differences. Adding a row and asking `clear` cost the same however many
    samples there are, so a search may ask often."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.n = 0
        self.totals = [0.0] * k
        self.pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        self.d1 = [0.0] * len(self.pairs)
        self.d2 = [0.0] * len(self.pairs)

    def add(self, row: list[float]) -> None:
        """One sample: the value of every move on the same sampled deal."""
        self.n += 1
        for i, v in enumerate(row):
            self.totals[i] += v
        for p, (i, j) in enumerate(self.pairs):
            d = row[i] - row[j]
            self.d1[p] += d
            self.d2[p] += d * d

    def means(self) -> list[float]:
        """Each move's average over the samples so far (0 before any)."""
        n = max(1, self.n)
        return [t / n for t in self.totals]

    def clear(self, offsets: list[float] | None = None) -> bool:
        """Is one move ahead of every other by `CLEAR_Z` standard errors of the paired
        differences? `offsets`: a fixed score added to each move's average (a rule of
        thumb). Values only, never the clock: a search that stops on it stays reproducible.
        A move that scores the same as the leader on every sample does not hold the search
        back (more samples would tell nothing)."""
        n = self.n
        if n < 2:
            return False
        extra = offsets or [0.0] * self.k
        means = [t / n + e for t, e in zip(self.totals, extra)]
        lead = max(range(self.k), key=means.__getitem__)
        for other in range(self.k):
            if other == lead:
                continue
            mean, se = self.difference(lead, other)
            ahead = mean + extra[lead] - extra[other]
            if ahead <= CLEAR_Z * se and (ahead or se):
                return False    # not clearly behind, yet not the same on every sample either
        return True

    def difference(self, i: int, j: int) -> tuple[float, float]:
        """The mean of move `i`'s value less move `j`'s over the samples so far, and its
        standard error (0 and 0 before two samples)."""
        n = self.n
        if n < 2 or i == j:
            return 0.0, 0.0
        p = self.pairs.index((min(i, j), max(i, j)))
        mean = (1.0 if i < j else -1.0) * self.d1[p] / n
        var = max(0.0, (self.d2[p] - n * mean * mean) / (n - 1))
        return mean, math.sqrt(var / n)

