"""Tournament victory points (VP) from match points (MP, the point difference).

The seed's table converts the point difference of a meeting of 1, 2 or 3 smazzate into a
20-point split: 10-10 for a level meeting up to 20-0 for a rout [BRISCOLA-25]. Each row
starts at a minimum difference; a difference falls in the last row whose minimum it reaches
(differences are even in play, odd ones come only from an abandon).

The seed prints 34 as the lower end of the 17-3 row for 3 smazzate, between 44-52 and
64-72: a misprint for 54, which is what we use (the rows must rise).
"""

from __future__ import annotations

# Minimum point difference of rows 10-10, 11-9, …, 20-0, by number of smazzate.
MP_MINIMA: dict[int, tuple[int, ...]] = {
    1: (0, 2, 4, 8, 14, 20, 26, 32, 38, 44, 50),
    2: (0, 2, 6, 12, 20, 28, 36, 44, 52, 60, 70),
    3: (0, 2, 6, 14, 24, 34, 44, 54, 64, 74, 86),
}
FORFEIT_MIN_VP = 14  # the side that did not abandon gets at least this [BRISCOLA-26]


def _minima(smazzate: int) -> tuple[int, ...]:
    try:
        return MP_MINIMA[smazzate]
    except KeyError:
        raise ValueError(f"the VP table covers meetings of 1, 2 or 3 smazzate, not {smazzate}"
                         " [BRISCOLA-25]") from None


def victory_points(diff: int, smazzate: int = 1) -> tuple[int, int]:
    """(VP of side A, VP of side B) for `diff` = A's points minus B's [BRISCOLA-25]."""
    minima = _minima(smazzate)
    row = max(i for i, low in enumerate(minima) if abs(diff) >= low)
    hi, lo = 10 + row, 10 - row
    return (hi, lo) if diff >= 0 else (lo, hi)


def mp_for_vp(vp: int, smazzate: int = 1) -> int:
    """The least point difference that earns `vp` (negative for the losing line's share)."""
    minima = _minima(smazzate)
    if not 0 <= vp <= 20:
        raise ValueError(f"victory points run 0..20, not {vp}")
    return minima[vp - 10] if vp >= 10 else -minima[10 - vp]


def forfeit_victory_points(diff: int, smazzate: int = 1) -> dict[str, tuple[int, int]]:
    """VP and MP after an abandon or timeout [BRISCOLA-26].

    `diff` is the non-quitting side's point difference after the BRISCOLA-24 adjustment
    (never negative). The quitter gets 0 VP; the other side its table VP but at least 14.
    Each line's MP is the table minimum for its VP. Returned as `{"vp": (winner, quitter),
    "mp": (winner, quitter)}`.
    """
    if diff < 0:
        raise ValueError("after an abandon the point difference favours the other side")
    vp = max(FORFEIT_MIN_VP, victory_points(diff, smazzate)[0])
    return {"vp": (vp, 0), "mp": (mp_for_vp(vp, smazzate), mp_for_vp(0, smazzate))}
