"""The deck operations of a hand: shuffle pass, lock pass, decoding, face-up checks.

A deck is a list of 32-byte points. Pass semantics (PROTOCOL.md):
- shuffle: D'[j] = k_i · D[pi_i(j)]
- lock:    L'[j] = (k_ij · k_i⁻¹) · L[j]
After every seat has done both, L[j] = (∏_i k_ij) · P[card at j]: the card at j is
K_j⁻¹ · L[j] with K_j = ∏_i k_ij, and a claim "card c is at j" is checked by K_j · P[c] == L[j].
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping, Sequence

from .derive import SeatSecrets
from .group import (
    POINT_BYTES,
    BadPoint,
    batch_invert,
    card_points,
    mul,
    mul_each,
    mul_one_key,
    scalar_product,
)

DECK_DOMAIN = b"p2p-burraco/deck/v1\x00"


def deck_hash(deck: Sequence[bytes]) -> bytes:
    """SHA-256(domain || u16 n || P_0 || … || P_n-1): names a deck in `input_hash`."""
    return hashlib.sha256(DECK_DOMAIN + struct.pack(">H", len(deck)) + b"".join(deck)).digest()


def initial_deck(deck_id: str, n_cards: int) -> list[bytes]:
    """The unshuffled deck [P[0], …, P[n-1]] every hand starts from."""
    return list(card_points(deck_id, n_cards))


def shuffle_pass(secrets: SeatSecrets, deck: Sequence[bytes]) -> list[bytes]:
    """This seat's shuffle pass (BadPoint names input indices that are not valid points)."""
    if len(deck) != secrets.n_cards:
        raise ValueError(f"a deck of {len(deck)} points, expected {secrets.n_cards}")
    perm = secrets.permutation
    try:
        return mul_one_key(secrets.shuffle_key, [deck[p] for p in perm])
    except BadPoint as exc:  # report indices of the INPUT deck
        raise BadPoint(sorted(perm[i] for i in exc.indices)) from None


def lock_pass(secrets: SeatSecrets, deck: Sequence[bytes]) -> list[bytes]:
    """This seat's lock pass (BadPoint names input indices that are not valid points)."""
    if len(deck) != secrets.n_cards:
        raise ValueError(f"a deck of {len(deck)} points, expected {secrets.n_cards}")
    return mul_each(secrets.lock_factors, deck)


def deck_shape_error(deck: object, n_cards: int) -> str | None:
    """Cheap structural check of a received deck: n distinct 32-byte strings.

    (Validity of each point is checked by the next multiplication of it, which refuses
    anything outside the prime-order group.)"""
    if not isinstance(deck, list) or len(deck) != n_cards:
        got = len(deck) if isinstance(deck, list) else type(deck).__name__
        return f"a deck of {n_cards} points expected, got {got}"
    for i, p in enumerate(deck):
        if not isinstance(p, bytes) or len(p) != POINT_BYTES:
            return f"position {i} is not a 32-byte point"
    if len(set(deck)) != n_cards:
        seen: dict[bytes, int] = {}
        for i, p in enumerate(deck):
            if p in seen:
                return f"positions {seen[p]} and {i} hold the same point"
            seen[p] = i
    return None


def decode_many(locked: Sequence[bytes], keysets: Sequence[Sequence[bytes]],
                table: Mapping[bytes, int]) -> list[int | None]:
    """Cards under `locked[i]` given ALL lock keys of that position in `keysets[i]`
    (None where the point is no card). One inversion for the whole batch; BadPoint names
    the indices whose locked point is not a valid group element."""
    if not locked:
        return []
    products = [scalar_product(ks) for ks in keysets]
    inverses = batch_invert(products)
    points = mul_each(inverses, locked)
    return [table.get(p) for p in points]


def decode_one(locked: bytes, keys: Sequence[bytes], table: Mapping[bytes, int]) -> int | None:
    return decode_many([locked], [keys], table)[0]


_CLAIMS: dict[tuple[bytes, tuple[bytes, ...], bytes], bool] = {}
_CLAIMS_MAX = 4096


def claim_holds(locked: bytes, keys: Sequence[bytes], card_point: bytes) -> bool:
    """Anyone's check of a face-up claim: K_j · P[card] == L[j] (one multiplication). A pure
    function, kept: nodes sharing a process (`play`, `host --bots`) check a claim once."""
    key = (locked, tuple(keys), card_point)
    held = _CLAIMS.get(key)
    if held is None:
        try:
            held = mul(scalar_product(keys), card_point) == locked
        except BadPoint:
            held = False
        if len(_CLAIMS) >= _CLAIMS_MAX:
            _CLAIMS.clear()
        _CLAIMS[key] = held
    return held
