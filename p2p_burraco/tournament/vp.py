"""Match points (MP, the point difference of a meeting) → victory points (VP, a 20 split).

Burraco's tables are the clubs' FIBUR-style tables for 3- and 4-hand rounds [TOURN-1, TOURN-2];
the 2-hand table is derived by a stated formula [TOURN-3]; Briscola's is seed 002's
(`games/briscola/tournament.py`, BRISCOLA-25/26). A row is named by its *upper* bound: a
difference at most that bound falls in it; past the last row the winner has 20 VP.
"""

from __future__ import annotations

from ..errors import UsageError
from ..games.briscola import tournament as briscola_vp

# Upper bound of the MP difference of rows 10-10, 11-9, …, 19-1 (20-0 above the last).
BURRACO_UPPER: dict[int, tuple[int, ...]] = {
    3: (50, 150, 250, 350, 500, 650, 800, 1000, 1250, 1500),            # TOURN-1
    4: (100, 300, 500, 700, 900, 1100, 1300, 1500, 1700, 2000),         # TOURN-2
}


def _derive_two_hands() -> tuple[int, ...]:
    """TOURN-3: no public 2-hand table was found; each bound of the 3-hand table times 2/3,
    rounded to the nearest multiple of 5 (Burraco scores move in fives)."""
    return tuple(5 * round(b * 2 / 3 / 5) for b in BURRACO_UPPER[3])


BURRACO_UPPER[2] = _derive_two_hands()

FORFEIT_MIN_VP = 14
"""The line that did not abandon gets at least this many VP [TOURN-4, after BRISCOLA-26]."""

BYE_VP = 12
"""A bye is worth 12 VP and the 12-8 row's minimum MP [TOURN-6]."""


def _upper(hands: int) -> tuple[int, ...]:
    try:
        return BURRACO_UPPER[hands]
    except KeyError:
        raise UsageError(f"the Burraco VP tables cover rounds of 2, 3 or 4 hands, not {hands} "
                         "[TOURN-1..3]") from None


def burraco_vp(diff: int, hands: int) -> tuple[int, int]:
    """(VP of line A, VP of line B) for `diff` = A's points minus B's [TOURN-1..3]."""
    upper = _upper(hands)
    d = abs(diff)
    row = next((i for i, b in enumerate(upper) if d <= b), len(upper))
    hi, lo = 10 + row, 10 - row
    return (hi, lo) if diff >= 0 else (lo, hi)


def burraco_min_mp(vp: int, hands: int) -> int:
    """The least MP difference that earns `vp` (negative for the losing line's share)."""
    upper = _upper(hands)
    if not 0 <= vp <= 20:
        raise ValueError(f"victory points run 0..20, not {vp}")
    row = abs(vp - 10)
    low = 0 if row == 0 else upper[row - 1] + 5
    return low if vp >= 10 else -low


def min_mp(game: str, vp: int, hands: int) -> int:
    """The table's least MP difference for `vp`, in either game."""
    if game == "briscola":
        return briscola_vp.mp_for_vp(vp, hands)
    return burraco_min_mp(vp, hands)


def table_vp(game: str, diff: int, hands: int) -> tuple[int, int]:
    """(VP of A, VP of B) for A's MP difference `diff`, by the game's table."""
    if game == "briscola":
        return briscola_vp.victory_points(diff, hands)
    return burraco_vp(diff, hands)


def check_hands(game: str, hands: int) -> None:
    """ValueError naming the accepted numbers of hands for the game's VP table."""
    if game == "briscola":
        briscola_vp.victory_points(0, hands)
    else:
        _upper(hands)


def forfeit_vp(game: str, diff: int, hands: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """((VP, MP) of the line that stayed, (VP, MP) of the line that abandoned or timed out).
    `diff` is the staying line's point difference so far (may be negative). The quitter
    gets 0 VP; the other its table VP but at least 14; each line's MP is its VP row's minimum
    [TOURN-4; BRISCOLA-26 for Briscola]."""
    vp = max(FORFEIT_MIN_VP, table_vp(game, max(diff, 0), hands)[0])
    return (vp, min_mp(game, vp, hands)), (0, min_mp(game, 0, hands))


def bye_score(game: str, hands: int) -> tuple[int, int]:
    """(VP, MP) of a line with a bye this round [TOURN-6]."""
    return BYE_VP, min_mp(game, BYE_VP, hands)
