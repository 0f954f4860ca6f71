"""Sealed envelopes: a seat's own lock keys for one partner, relayed by a host that cannot
read them (Briscola "carte scoperte" shows a hand to the partner only).

X25519 between the sender's and the recipient's seed-derived keys, HKDF-SHA256 to a
per-direction ChaCha20-Poly1305 key, the sender's message seq as nonce (unique per key).
Both private keys come from seeds that are revealed at the end of the hand, so an auditor
opens every envelope and checks it held exactly the keys the seed derives.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from .derive import hkdf_expand, hkdf_extract

ENVELOPE_SALT = b"p2p-burraco/envelope/v1\x00"
ENVELOPE_AAD = b"p2p-burraco/envelope-aad/v1\x00"


class EnvelopeError(ValueError):
    """An envelope that cannot be sealed or opened (bad key, tampered box)."""


def _key(own_private: bytes, other_public: bytes, hand_id: bytes, sender: int,
         recipient: int) -> bytes:
    try:
        shared = X25519PrivateKey.from_private_bytes(own_private).exchange(
            X25519PublicKey.from_public_bytes(other_public))
    except ValueError as exc:  # a low-order public key gives the all-zero secret
        raise EnvelopeError(f"X25519 exchange failed: {exc}") from None
    prk = hkdf_extract(ENVELOPE_SALT, shared)
    return hkdf_expand(prk, hand_id + bytes([sender, recipient]), 32)


def _nonce(seq: int) -> bytes:
    return b"\x00" * 4 + struct.pack(">Q", seq)


def _aad(hand_id: bytes, sender: int, recipient: int, seq: int,
         positions: Sequence[int]) -> bytes:
    return (ENVELOPE_AAD + hand_id + bytes([sender, recipient]) + struct.pack(">Q", seq)
            + b"".join(struct.pack(">H", p) for p in positions))


def seal(own_private: bytes, recipient_public: bytes, hand_id: bytes, sender: int,
         recipient: int, seq: int, positions: Sequence[int], keys: Sequence[bytes]) -> bytes:
    """Encrypt the concatenated 32-byte keys of `positions` for `recipient`."""
    if len(keys) != len(positions):
        raise EnvelopeError("one key per position")
    key = _key(own_private, recipient_public, hand_id, sender, recipient)
    return ChaCha20Poly1305(key).encrypt(_nonce(seq), b"".join(keys),
                                         _aad(hand_id, sender, recipient, seq, positions))


def open_box(own_private: bytes, other_public: bytes, hand_id: bytes, sender: int,
             recipient: int, seq: int, positions: Sequence[int], box: bytes) -> list[bytes]:
    """Decrypt an envelope; works with either end's private key (recipient live, sender's
    revealed seed in the audit). EnvelopeError if it does not open or has the wrong size."""
    key = _key(own_private, other_public, hand_id, sender, recipient)
    try:
        plain = ChaCha20Poly1305(key).decrypt(_nonce(seq), box,
                                              _aad(hand_id, sender, recipient, seq, positions))
    except InvalidTag:
        raise EnvelopeError("the envelope does not open (tampered or wrong keys)") from None
    if len(plain) != 32 * len(positions):
        raise EnvelopeError(f"the envelope holds {len(plain)} bytes for {len(positions)} keys")
    return [plain[32 * i:32 * i + 32] for i in range(len(positions))]
