"""A whole fair deal at the protocol level (no game): 2..6 seats, 40/108/162 cards.

Every seat recovers exactly its cards — the ones the re-derived deal puts at its positions —
and cannot decode anything else (it lacks at least one key of every other hidden position);
the secret-free gate learns only the public card; the same seeds give the same transcript.
"""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_burraco.fairdeal import (
    LocalTable,
    PublicDeal,
    SeatDealer,
    Transcript,
    audit_log,
    hand_id_for,
    hands_schedule,
    signing,
)
from p2p_burraco.fairdeal.audit import audit
from p2p_burraco.fairdeal.local import PROTOCOL_ID, make_hand_start

DECKS = {40: "italian40", 108: "french108", 162: "french162"}
CASES = [(2, 40, 3), (4, 40, 3), (2, 108, 11), (3, 108, 11), (4, 108, 11), (5, 162, 11),
         (6, 162, 11)]


def _deal(n_seats: int, n_cards: int, per_seat: int, base: bytes = b"t") -> LocalTable:
    table = LocalTable.new(n_seats, DECKS[n_cards], n_cards,
                           hands_schedule(n_seats, n_cards, per_seat), base=base)
    table.deal()
    return table


@pytest.mark.parametrize("n_seats,n_cards,per_seat", CASES)
def test_every_seat_recovers_exactly_its_cards(n_seats: int, n_cards: int, per_seat: int) -> None:
    table = _deal(n_seats, n_cards, per_seat)
    public_pos = n_seats * per_seat
    table.reveal_all()
    transcript, verdict = table.finish()
    assert verdict.fair, verdict
    deal = verdict.deal
    assert deal is not None and sorted(deal) == list(range(n_cards))
    for seat in table.seats:
        mine = range(seat.seat * per_seat, (seat.seat + 1) * per_seat)
        expected = {p: deal[p] for p in mine}
        expected[public_pos] = deal[public_pos]
        assert seat.known == expected
        # nothing else: every other position lacks at least one key this seat could use
        for pos in range(n_cards):
            if pos not in expected:
                assert seat.keys_for(pos) is None
    # the gate holds the public card and nothing more
    assert table.gate.public_cards == {public_pos: deal[public_pos]}
    assert audit(transcript).fair
    # every seat checked every relayed statement (signatures included) and found nothing
    assert all(s.problems == [] and s.deal.head == table.gate.head for s in table.seats)


def test_same_seeds_give_the_same_transcript() -> None:
    def run() -> bytes:
        table = _deal(3, 40, 3, base=b"same")
        table.reveal_all()
        return table.finish()[0].to_bytes()
    first = run()
    assert first == run()
    table = _deal(3, 40, 3, base=b"other")
    table.reveal_all()
    assert table.finish()[0].to_bytes() != first


def test_transcript_round_trips_through_bytes(tmp_path: object) -> None:
    table = _deal(2, 40, 3)
    table.reveal_all()
    transcript, _ = table.finish()
    path = f"{tmp_path}/hand.p2pb"
    transcript.save(path)
    again = Transcript.load(path)
    assert again.to_bytes() == transcript.to_bytes()
    assert audit(again).fair
    # v2: each sign-off names the log hash and the result hash; the host signs the close
    head = transcript.transcript_hash()
    end = transcript.hand_end
    assert end is not None and signing.verify(table.gate.host_key, end)
    assert end["transcript_hash"] == head and len(end["result_hash"]) == 32
    for s, so in enumerate(transcript.sign_offs):
        assert signing.verify(table.gate.seat_keys[s], so)
        assert (so["seat"], so["transcript_hash"], so["result_hash"]) == \
            (s, head, end["result_hash"])


def test_a_partner_reads_a_sealed_hand_and_nobody_else_does() -> None:
    """Positions entitled to two seats (Briscola carte scoperte): outsiders publish, the two
    members exchange their own keys in sealed envelopes the gate cannot open."""
    n = 4
    pair = frozenset({0, 2})

    def audience(pos: int) -> frozenset[int]:
        return pair if pos < 3 else frozenset({pos % 4}) if pos < 12 else frozenset()
    table = LocalTable.new(n, "italian40", 40, audience, base=b"sealed")
    results = table.deal()
    table.reveal_all()
    transcript, verdict = table.finish()
    assert verdict.fair, verdict
    deal = verdict.deal
    assert deal is not None
    for s in (0, 2):
        assert all(results[s][0][p] == deal[p] for p in range(3))
    for s in (1, 3):
        assert all(p not in results[s][0] and table.seats[s].keys_for(p) is None
                   for p in range(3))
    assert all(table.gate.missing_keys(p) for p in range(3))  # the gate never had them all
    sealed = [e for e in transcript.entries if e.get("type") == "sealed"]
    assert {(e["seat"], e["to"]) for e in sealed} == {(0, 2), (2, 0)}


HOST = Ed25519PrivateKey.from_private_bytes(b"h" * 32)
SEATS = [Ed25519PrivateKey.from_private_bytes(bytes([s]) * 32) for s in range(2)]
SEAT_KEYS = [signing.public_key_bytes(k) for k in SEATS]
MATCH = bytes(range(16))


def _hand_start(host: Ed25519PrivateKey = HOST) -> dict[str, Any]:
    return make_hand_start(host, n_seats=2, deck_id="italian40", n_cards=40,
                           seat_keys=SEAT_KEYS, match_id=MATCH, hand_no=3,
                           game="briscola", variant="standard")


def test_hand_start_names_everything_an_auditor_needs() -> None:
    hs = _hand_start()
    assert {"game", "variant", "n_seats", "names", "deck", "n_cards", "seat_keys",
            "host_key", "match_id", "hand_no", "protocol", "first_dealer", "dealer",
            "options", "state", "prev_result", "clock", "hand_id", "at", "head",
            "sig"} <= set(hs)
    assert hs["protocol"] == PROTOCOL_ID == "p2p-burraco/fairdeal/v3"
    assert hs["host_key"] == signing.public_key_bytes(HOST)
    assert hs["hand_id"] == hand_id_for(MATCH, 3, signing.public_key_bytes(HOST), SEAT_KEYS)
    # entry 0 of the log, made on the empty log; the first hand of a match follows no result
    assert hs["at"] == 0 and hs["head"] == signing.chain_start()
    assert hs["prev_result"] == bytes(32)


def test_hand_start_verifies_with_its_host_key_and_no_other() -> None:
    hs = _hand_start()
    assert signing.verify(signing.public_key_bytes(HOST), hs)
    others = [*SEAT_KEYS, signing.public_key_bytes(Ed25519PrivateKey.generate())]
    assert not any(signing.verify(k, hs) for k in others)
    for field, value in (("names", ["x", "y"]), ("hand_no", 4), ("n_cards", 39),
                         ("seat_keys", SEAT_KEYS[::-1]), ("at", 1)):
        assert not signing.verify(signing.public_key_bytes(HOST), {**hs, field: value}), field
    assert PublicDeal(hs).host_key == hs["host_key"]
    assert audit_log([hs]).fair
    # naming another key, or signed by a key other than the one it names: refused by every
    # replica, and no hand at all for the auditor (nobody's signed word: the record's)
    for bad in ({**hs, "host_key": SEAT_KEYS[0]},
                signing.sign(SEATS[0], hs),
                {**hs, "dealer": 1}):
        with pytest.raises(ValueError, match="not signed by the host key"):
            PublicDeal(bad)
        with pytest.raises(ValueError):
            SeatDealer(0, SEATS[0], bytes(32), bad)
        verdict = audit_log([bad])
        assert [(f.party, f.what, f.where) for f in verdict.faults] == \
            [("record", "bad_hand_start", 0)]
    # each hand start is signed by its own host: another host's is valid for its own key only
    mine, theirs = _hand_start(), _hand_start(SEATS[1])
    assert mine["hand_id"] != theirs["hand_id"]
    assert signing.verify(SEAT_KEYS[1], theirs) and not signing.verify(mine["host_key"], theirs)
