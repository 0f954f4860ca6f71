"""No bias: with every seed but one fixed, the honest seat's seed alone makes the deal uniform.

The dealt order is the composition of the seats' permutations (test_fairdeal_crypto and
test_fairdeal_deal check that the encrypted passes deal exactly that order). Here the
seats other than `free` keep fixed seeds — as colluders would — and the order over a small
deck is counted over many seeds of the one honest seat, then compared with the uniform
distribution by a chi-square test at a fixed significance of 0.001. The seed lists are
fixed, so the test is deterministic (it cannot flake), and a broken shuffle fails it.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter

import pytest

from p2p_burraco.fairdeal.derive import SeatSecrets

HAND_ID = hashlib.sha256(b"bias").digest()[:16]
Z_999 = 3.0902323061678132   # the standard normal's 0.999 quantile


def chi2_critical(df: int, z: float = Z_999) -> float:
    """Wilson–Hilferty: the chi-square quantile for `df` degrees of freedom."""
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + z * math.sqrt(a)) ** 3


def chi2(counts: Counter[object], cells: list[object]) -> float:
    """Pearson's statistic against the uniform distribution over `cells`."""
    total = sum(counts.values())
    assert set(counts) <= set(cells), "an outcome outside the expected cells"
    expected = total / len(cells)
    return sum((counts.get(c, 0) - expected) ** 2 / expected for c in cells)


def seed(tag: str, i: int) -> bytes:
    return hashlib.sha256(f"{tag}:{i}".encode()).digest()


def dealt_order(n: int, seeds: list[bytes]) -> tuple[int, ...]:
    order = list(range(n))
    for s, sd in enumerate(seeds):
        perm = SeatSecrets(sd, HAND_ID, s, n).permutation
        order = [order[perm[j]] for j in range(n)]
    return tuple(order)


@pytest.mark.parametrize("free", [0, 2])
def test_five_card_deal_is_uniform_over_all_120_orders(free: int) -> None:
    samples = 6000
    counts: Counter[object] = Counter()
    for i in range(samples):
        seeds = [seed("fixed", s) for s in range(3)]
        seeds[free] = seed(f"free{free}", i)
        counts[dealt_order(5, seeds)] += 1
    stat = chi2(counts, list(itertools.permutations(range(5))))
    assert stat < chi2_critical(119), f"chi-square {stat:.1f} over 120 orders"


def test_position_of_a_card_in_a_40_card_deal_is_uniform() -> None:
    counts: Counter[object] = Counter()
    for i in range(2000):
        seeds = [seed("fixed40", 0), seed("free40", i)]
        counts[dealt_order(40, seeds).index(0)] += 1
    stat = chi2(counts, list(range(40)))
    assert stat < chi2_critical(39), f"chi-square {stat:.1f} over 40 positions"


def test_the_test_catches_a_biased_shuffle() -> None:
    """A shuffle drawing each index from one byte mod (i+1) — the textbook modulo bias on a
    deck of 3 with 8-bit draws is visible; a constant shuffle is glaring."""
    samples = 6000
    counts: Counter[object] = Counter()
    for i in range(samples):
        b = seed("biased", i)
        perm = [0, 1, 2]
        for j in (2, 1):
            r = (b[j] % 4) % (j + 1)              # two of four values land on 0: bias
            perm[j], perm[r] = perm[r], perm[j]
        counts[tuple(perm)] += 1
    assert chi2(counts, list(itertools.permutations(range(3)))) > chi2_critical(5)
    constant: Counter[object] = Counter({(0, 1, 2, 3, 4): samples})
    assert chi2(constant, list(itertools.permutations(range(5)))) > chi2_critical(119)
