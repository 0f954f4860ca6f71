"""The scalar arithmetic mod ℓ done in Python integers (`group.scalar_reduce`,
`group.scalar_product`) gives exactly libsodium's bytes, on random and edge values."""

from __future__ import annotations

import random

import pytest
from nacl.bindings import crypto_core_ed25519_scalar_mul, crypto_core_ed25519_scalar_reduce

from p2p_burraco.fairdeal import group

L = group.GROUP_ORDER
SEED = 4913


def edge_wides() -> list[bytes]:
    values = [0, 1, L - 1, L, L + 1, 2 * L, 2**256 - 1, 2**512 - 1, L * (2**252)]
    return [v.to_bytes(64, "little") for v in values]


def test_reduce_is_libsodiums() -> None:
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    wides = edge_wides() + [rng.randbytes(64) for _ in range(500)]
    for w in wides:
        assert group.scalar_reduce(w) == crypto_core_ed25519_scalar_reduce(w), w.hex()


def test_product_is_libsodiums_chained() -> None:
    rng = random.Random(SEED + 1)
    print(f"seed {SEED + 1}")
    canonical = [(v % L).to_bytes(32, "little") for v in
                 [1, L - 1, 2, 2**252] + [rng.getrandbits(256) for _ in range(200)]]
    for _ in range(300):
        k = rng.randint(2, 6)
        factors = [rng.choice(canonical) for _ in range(k)]
        want = factors[0]
        for f in factors[1:]:
            want = crypto_core_ed25519_scalar_mul(want, f)
        assert group.scalar_product(factors) == want


def test_product_refuses_what_the_binding_refuses() -> None:
    with pytest.raises(ValueError):
        group.scalar_product([])
    with pytest.raises(TypeError):
        group.scalar_product([b"\x01" * 31, b"\x01" * 32])
    with pytest.raises(TypeError):
        group.scalar_product([b"\x01" * 32, "x" * 32])  # type: ignore[list-item]
