"""Everything a seat does in a hand is a function of its committed seed.

That is what makes a hand auditable: once the seeds are revealed, anyone re-derives each
seat's shuffle key, permutation, lock keys and X25519 key, and recomputes every message it
should have sent. Each secret comes from HKDF-SHA256 (RFC 5869) with its own `info` label,
so no two uses ever share key material.

HKDF is written here on `hmac.digest` (one OpenSSL call per block: the lock keys of a deck
cost microseconds); tests/test_fairdeal_crypto.py checks it against `cryptography`'s HKDF.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from functools import cached_property

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from .group import scalar_invert, scalar_mul, scalar_reduce

SEED_BYTES = 32
HAND_ID_BYTES = 16

COMMIT_DOMAIN = b"p2p-burraco/commit/v1\x00"
SEED_SALT = b"p2p-burraco/seed/v1\x00"
INFO_SHUFFLE_KEY = b"p2p-burraco/v1/shuffle-key"
INFO_PERMUTATION = b"p2p-burraco/v1/permutation"
INFO_LOCK_KEY = b"p2p-burraco/v1/lock-key"
INFO_X25519 = b"p2p-burraco/v1/x25519"


def hkdf_extract(salt: bytes, ikm: bytes) -> bytes:
    return hmac.digest(salt, ikm, "sha256")


def hkdf_expand(prk: bytes, info: bytes, length: int) -> bytes:
    """RFC 5869 HKDF-Expand with SHA-256. (The 64 bytes of a scalar, asked for every lock
    key of every seat in every audit, take the two blocks without the loop.)"""
    if length == 64:
        t1 = hmac.digest(prk, info + b"\x01", "sha256")
        return t1 + hmac.digest(prk, t1 + info + b"\x02", "sha256")
    if length > 255 * 32:
        raise ValueError("HKDF-Expand length too large")
    out = b""
    block = b""
    i = 1
    while len(out) < length:
        block = hmac.digest(prk, block + info + bytes([i]), "sha256")
        out += block
        i += 1
    return out[:length]


def commitment(hand_id: bytes, seat: int, seed: bytes) -> bytes:
    """C = SHA-256(domain || hand_id(16) || u8 seat || seed(32)): fixed bytes, no encoding
    ambiguity; the hand id binds the seed to one hand of one match."""
    _check_ids(hand_id, seat)
    if len(seed) != SEED_BYTES:
        raise ValueError("a seed is 32 bytes")
    return hashlib.sha256(COMMIT_DOMAIN + hand_id + bytes([seat]) + seed).digest()


def _check_ids(hand_id: bytes, seat: int) -> None:
    if len(hand_id) != HAND_ID_BYTES:
        raise ValueError("a hand id is 16 bytes")
    if not 0 <= seat < 256:
        raise ValueError("seat out of range")


def _scalar(prk: bytes, info: bytes) -> bytes:
    k = scalar_reduce(hkdf_expand(prk, info, 64))
    if int.from_bytes(k, "little") == 0:  # pragma: no cover - probability 2^-252
        raise ValueError("derived the zero scalar")
    return k


class SeatSecrets:
    """One seat's secrets for one hand, all derived lazily from its seed.

    prk = HKDF-Extract(salt = SEED_SALT || hand_id || u8 seat, ikm = seed); then
    - shuffle key k_i   = reduce(Expand(prk, INFO_SHUFFLE_KEY, 64))
    - permutation pi_i  : Fisher–Yates, for i = n-1..1 swap i with
                          int_be(Expand(prk, INFO_PERMUTATION || u16 i, 64)) mod (i+1)
    - lock key k_ij     = reduce(Expand(prk, INFO_LOCK_KEY || u16 j, 64))
    - X25519 private    = Expand(prk, INFO_X25519, 32)
    """

    def __init__(self, seed: bytes, hand_id: bytes, seat: int, n_cards: int) -> None:
        _check_ids(hand_id, seat)
        if len(seed) != SEED_BYTES:
            raise ValueError("a seed is 32 bytes")
        self.seat = seat
        self.hand_id = hand_id
        self.n_cards = n_cards
        self._seed = seed
        self._prk = hkdf_extract(SEED_SALT + hand_id + bytes([seat]), seed)

    @property
    def seed(self) -> bytes:
        return self._seed

    @cached_property
    def commitment(self) -> bytes:
        return commitment(self.hand_id, self.seat, self._seed)

    @cached_property
    def shuffle_key(self) -> bytes:
        return _scalar(self._prk, INFO_SHUFFLE_KEY)

    @cached_property
    def shuffle_key_inverse(self) -> bytes:
        return scalar_invert(self.shuffle_key)

    @cached_property
    def permutation(self) -> tuple[int, ...]:
        """pi_i: output position j takes input position permutation[j]."""
        perm = list(range(self.n_cards))
        prk = self._prk
        for i in range(self.n_cards - 1, 0, -1):
            r = int.from_bytes(hkdf_expand(prk, INFO_PERMUTATION + struct.pack(">H", i), 64),
                               "big") % (i + 1)
            perm[i], perm[r] = perm[r], perm[i]
        return tuple(perm)

    @cached_property
    def lock_keys(self) -> tuple[bytes, ...]:
        prk = self._prk
        return tuple(_scalar(prk, INFO_LOCK_KEY + struct.pack(">H", j))
                     for j in range(self.n_cards))

    def lock_key(self, pos: int) -> bytes:
        return self.lock_keys[pos]

    @cached_property
    def lock_factors(self) -> tuple[bytes, ...]:
        """k_ij · k_i⁻¹: one scalar per position, so a lock pass is one multiplication each."""
        inv = self.shuffle_key_inverse
        return tuple(scalar_mul(k, inv) for k in self.lock_keys)

    @cached_property
    def x25519_private(self) -> bytes:
        return hkdf_expand(self._prk, INFO_X25519, 32)

    @cached_property
    def x25519_public(self) -> bytes:
        return X25519PrivateKey.from_private_bytes(self.x25519_private).public_key() \
            .public_bytes_raw()

    def __repr__(self) -> str:  # never print a secret
        return f"SeatSecrets(seat={self.seat}, hand={self.hand_id.hex()[:8]}…)"

