"""Fair-deal building blocks: card points, derivations, envelopes, signatures, vectors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF, HKDFExpand
from hypothesis import given
from hypothesis import strategies as st
from nacl import bindings as nb

from p2p_burraco.fairdeal import derive, envelope, group, hand_id_for, passes, signing
from p2p_burraco.fairdeal.deal import x25519_key_error
from p2p_burraco.fairdeal.derive import SeatSecrets, commitment
from p2p_burraco.fairdeal.group import BadPoint

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "fairdeal_crypto.json"

# A point of order 8 and the identity: libsodium's multiplication must refuse both.
ORDER8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
IDENTITY = bytes([1]) + bytes(31)
# X25519 (Montgomery u) keys of small order: 0, 1, the two points of order 8, p - 1 (order
# 2), and the non-canonical p, p + 1, 2^255 (0 with the ignored top bit set)
LOW_ORDER_X25519 = [bytes.fromhex(h) for h in (
    "00" * 32, "01" + "00" * 31,
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "ec" + "ff" * 30 + "7f", "ed" + "ff" * 30 + "7f", "ee" + "ff" * 30 + "7f",
    "00" * 31 + "80")]


def test_hkdf_matches_cryptography() -> None:
    salt, ikm = b"salt", os.urandom(32)
    prk = derive.hkdf_extract(salt, ikm)
    for info, n in ((b"x", 32), (b"lock\x00\x07", 64), (b"", 100)):
        ours = derive.hkdf_expand(prk, info, n)
        theirs = HKDFExpand(hashes.SHA256(), n, info).derive(prk)
        assert ours == theirs
        assert HKDF(hashes.SHA256(), n, salt, info).derive(ikm) == ours


@pytest.mark.parametrize("deck,n", [("italian40", 40), ("french108", 108), ("french162", 162)])
def test_card_points_are_distinct_valid_and_decode_by_lookup(deck: str, n: int) -> None:
    pts = group.card_points(deck, n)
    assert len(set(pts)) == n
    assert all(group.is_valid_point(p) for p in pts)
    table = group.card_table(deck, n)
    assert [table[p] for p in pts] == list(range(n))
    # another deck kind gives other points (no cross-deck equalities to exploit)
    assert not set(pts) & set(group.card_points("other", n))


@pytest.mark.parametrize("bad", [ORDER8, IDENTITY, b"\xff" * 32, b"\x00" * 32, b"short"])
def test_multiplication_refuses_invalid_and_small_order_points(bad: bytes) -> None:
    k = group.scalar_reduce(os.urandom(64))
    assert not group.is_valid_point(bad)
    with pytest.raises(BadPoint):
        group.mul(k, bad)
    good = group.card_points("italian40", 40)[0]
    with pytest.raises(BadPoint) as exc:
        group.mul_one_key(k, [good, bad, good])
    assert exc.value.indices == (1,)


def test_mixed_torsion_point_is_refused() -> None:
    """P + T (T of order 8) is on the curve but outside the prime-order group."""
    p = group.card_points("italian40", 40)[3]
    mixed = nb.crypto_core_ed25519_add(p, ORDER8)
    assert not group.is_valid_point(mixed)
    with pytest.raises(BadPoint):
        group.mul(group.scalar_reduce(os.urandom(64)), mixed)


@given(st.lists(st.binary(min_size=64, max_size=64), min_size=1, max_size=12))
def test_batch_invert_inverts_each(raw: list[bytes]) -> None:
    scalars = [group.scalar_reduce(r) for r in raw]
    scalars = [s for s in scalars if group.is_canonical_scalar(s)]
    one = (1).to_bytes(32, "little")
    for s, inv in zip(scalars, group.batch_invert(scalars)):
        assert group.scalar_mul(s, inv) == one


def test_commutative_cipher_round_trip() -> None:
    p = group.card_points("french108", 108)[42]
    a, b = (group.scalar_reduce(os.urandom(64)) for _ in range(2))
    ab = group.mul(a, group.mul(b, p))
    assert ab == group.mul(b, group.mul(a, p))
    assert group.mul(group.scalar_invert(group.scalar_product([a, b])), ab) == p


@given(st.binary(min_size=32, max_size=32), st.integers(0, 5), st.sampled_from([5, 40, 108]))
def test_secrets_are_deterministic_and_well_formed(seed: bytes, seat: int, n: int) -> None:
    hand_id = b"h" * 16
    a, b = SeatSecrets(seed, hand_id, seat, n), SeatSecrets(seed, hand_id, seat, n)
    assert a.permutation == b.permutation and sorted(a.permutation) == list(range(n))
    assert a.lock_keys == b.lock_keys and len(set(a.lock_keys)) == n
    assert all(group.is_canonical_scalar(k) for k in (a.shuffle_key, *a.lock_keys))
    other = SeatSecrets(seed, hand_id, (seat + 1) % 6, n)   # another seat, other secrets
    assert other.shuffle_key != a.shuffle_key and other.lock_keys[0] != a.lock_keys[0]
    assert commitment(hand_id, seat, seed) == a.commitment != other.commitment


def test_secrets_repr_shows_no_secret() -> None:
    s = SeatSecrets(b"s" * 32, b"h" * 16, 1, 40)
    assert b"s" * 32 not in repr(s).encode() and "73737373" not in repr(s)


def test_passes_compose_to_a_locked_permutation() -> None:
    n, hand_id = 40, b"\x01" * 16
    seats = [SeatSecrets(bytes([s]) * 32, hand_id, s, n) for s in range(3)]
    deck = passes.initial_deck("italian40", n)
    for s in seats:
        deck = passes.shuffle_pass(s, deck)
    for s in seats:
        deck = passes.lock_pass(s, deck)
    order = list(range(n))
    for s in seats:
        order = [order[s.permutation[j]] for j in range(n)]
    table = group.card_table("italian40", n)
    keysets = [[s.lock_key(j) for s in seats] for j in range(n)]
    assert passes.decode_many(deck, keysets, table) == order
    pts = group.card_points("italian40", n)
    assert passes.claim_holds(deck[7], keysets[7], pts[order[7]])
    assert not passes.claim_holds(deck[7], keysets[7], pts[(order[7] + 1) % n])


def test_envelope_opens_for_both_ends_and_refuses_tampering() -> None:
    p, q = SeatSecrets(b"p" * 32, b"h" * 16, 0, 40), SeatSecrets(b"q" * 32, b"h" * 16, 2, 40)
    keys = [p.lock_key(3), p.lock_key(9)]
    box = envelope.seal(p.x25519_private, q.x25519_public, b"h" * 16, 0, 2, 7, [3, 9], keys)
    args = (b"h" * 16, 0, 2, 7, [3, 9])
    assert envelope.open_box(q.x25519_private, p.x25519_public, *args, box) == keys
    assert envelope.open_box(p.x25519_private, q.x25519_public, *args, box) == keys  # auditor
    with pytest.raises(envelope.EnvelopeError):
        envelope.open_box(q.x25519_private, p.x25519_public, *args, box[:-1] + b"\x00")
    with pytest.raises(envelope.EnvelopeError):   # other positions in the AAD
        envelope.open_box(q.x25519_private, p.x25519_public, b"h" * 16, 0, 2, 7, [3, 8], box)


@pytest.mark.parametrize("key", LOW_ORDER_X25519, ids=lambda k: k.hex()[:8] + k.hex()[-2:])
def test_low_order_x25519_key_is_named_and_never_sealed_to(key: bytes) -> None:
    """Every shared secret with a low-order key is zero: `x25519_key_error` names it (the
    check every replica runs on a commitment), and sealing or opening with it fails cleanly
    rather than using the all-zero secret."""
    assert x25519_key_error(key) is not None
    p = SeatSecrets(b"p" * 32, b"h" * 16, 0, 40)
    with pytest.raises(envelope.EnvelopeError):
        envelope.seal(p.x25519_private, key, b"h" * 16, 0, 1, 3, [0], [p.lock_key(0)])
    with pytest.raises(envelope.EnvelopeError):
        envelope.open_box(p.x25519_private, key, b"h" * 16, 1, 0, 3, [0], bytes(48))


@given(st.binary(min_size=32, max_size=32))
def test_seed_derived_x25519_keys_are_never_refused(seed: bytes) -> None:
    assert x25519_key_error(SeatSecrets(seed, b"h" * 16, 0, 5).x25519_public) is None


def test_x25519_key_error_needs_32_bytes() -> None:
    for bad in (b"", b"\x09" * 31, b"\x09" * 33, "09" * 32, None):
        assert x25519_key_error(bad) == "an X25519 key is 32 bytes"


@given(st.lists(st.binary(min_size=32, max_size=32), min_size=2, max_size=6),
       st.binary(min_size=32, max_size=32), st.data())
def test_hand_id_binds_the_host_key_and_every_seat_key(seats: list[bytes], host: bytes,
                                                       data: st.DataObject) -> None:
    match_id, hand_no = b"m" * 16, 5
    base = hand_id_for(match_id, hand_no, host, seats)
    assert len(base) == 16 and base == hand_id_for(match_id, hand_no, host, list(seats))
    i = data.draw(st.integers(0, len(seats) - 1), label="seat")
    other = data.draw(st.binary(min_size=32, max_size=32).filter(lambda k: k != seats[i]),
                      label="key")
    assert hand_id_for(match_id, hand_no, host, [*seats[:i], other, *seats[i + 1:]]) != base
    other_host = data.draw(st.binary(min_size=32, max_size=32).filter(lambda k: k != host),
                           label="host")
    assert hand_id_for(match_id, hand_no, other_host, seats) != base


def test_hand_id_binds_the_match_the_hand_number_and_the_seat_order() -> None:
    keys = [bytes([s]) * 32 for s in range(4)]
    host = b"\xff" * 32
    base = hand_id_for(b"m" * 16, 0, host, keys)
    others = [hand_id_for(b"n" * 16, 0, host, keys),      # another match
              hand_id_for(b"m" * 16, 1, host, keys),      # the next hand
              hand_id_for(b"m" * 16, 0, host, keys[::-1]),  # the same keys at other seats
              hand_id_for(b"m" * 16, 0, keys[0], [host, *keys[1:]]),   # host and seat swap
              hand_id_for(b"m" * 16, 0, host, keys[:3])]  # one seat fewer
    assert len({base, *others}) == 1 + len(others)


def test_signatures_are_canonical_and_bind_every_field() -> None:
    key = Ed25519PrivateKey.from_private_bytes(b"k" * 32)
    pub = signing.public_key_bytes(key)
    msg = signing.sign(key, {"type": "x", "b": [1, {"z": 1, "a": b"\x00"}], "a": "s"})
    reordered = {k: msg[k] for k in reversed(list(msg))}
    assert signing.verify(pub, reordered)
    assert signing.entry_hash(msg) == signing.entry_hash(reordered)
    assert not signing.verify(pub, {**msg, "a": "t"})
    assert not signing.verify(Ed25519PrivateKey.generate().public_key(), msg)
    with pytest.raises(TypeError):
        signing.canonical({"f": 1.5})


def _vector_values() -> dict[str, object]:
    hand_id = bytes(range(16))
    seeds = [bytes([0x11 * (s + 1)]) * 32 for s in range(2)]
    secrets = [SeatSecrets(seeds[s], hand_id, s, 40) for s in range(2)]
    pts = group.card_points("italian40", 40)
    locked = group.mul(group.scalar_product([s.lock_key(5) for s in secrets]), pts[17])
    id_keys = [signing.public_key_bytes(Ed25519PrivateKey.from_private_bytes(bytes([b]) * 32))
               for b in (0x31, 0x32, 0x33)]      # the host's, then seat 0's and seat 1's
    return {
        "hand_id": hand_id.hex(),
        "seeds": [s.hex() for s in seeds],
        "commitments": [s.commitment.hex() for s in secrets],
        "x25519_public": [s.x25519_public.hex() for s in secrets],
        "card_points_italian40_first3": [p.hex() for p in pts[:3]],
        "card_points_french108_last": group.card_points("french108", 108)[107].hex(),
        "shuffle_keys": [s.shuffle_key.hex() for s in secrets],
        "permutation_seat0": list(secrets[0].permutation),
        "lock_keys_pos5": [s.lock_key(5).hex() for s in secrets],
        "locked_card17_at_pos5": locked.hex(),
        "initial_deck_hash_italian40": passes.deck_hash(list(pts)).hex(),
        "hand_id_v2": {
            "match_id": hand_id.hex(), "hand_no": 7, "host_key": id_keys[0].hex(),
            "seat_keys": [k.hex() for k in id_keys[1:]],
            "hand_id": hand_id_for(hand_id, 7, id_keys[0], id_keys[1:]).hex()},
        "x25519_low_order_refused": [k.hex() for k in LOW_ORDER_X25519],
    }


def test_vectors_file_recomputes() -> None:
    """protocol/vectors/fairdeal_crypto.json: an independent implementation's yardstick."""
    data = json.loads(VECTORS.read_text())
    assert data["values"] == _vector_values()


if __name__ == "__main__":  # regenerate the vectors file after a deliberate change
    VECTORS.parent.mkdir(parents=True, exist_ok=True)
    VECTORS.write_text(json.dumps({
        "about": "fair-deal crypto vectors (PROTOCOL.md, fair-deal section): two seats, "
                 "hand_id 00..0f, a 40-card italian deck; card 17 locked at position 5; "
                 "hand_id_v2: a hand id derived from the match id 00..0f, hand 7, the host's "
                 "and both seats' Ed25519 keys (private seeds 31.., 32.., 33..); X25519 keys "
                 "a commitment must be refused for (table.bad_key)",
        "values": _vector_values()}, indent=1) + "\n")
