"""A whole fair deal at the protocol level (no game): 2..6 seats, 40/108/162 cards.

Every seat recovers exactly its cards — the ones the re-derived deal puts at its positions —
and cannot decode anything else (it lacks at least one key of every other hidden position);
the secret-free gate learns only the public card; the same seeds give the same transcript.
"""

from __future__ import annotations

import pytest

from p2p_burraco.fairdeal import LocalTable, Transcript, audit, hands_schedule
from p2p_burraco.fairdeal.local import make_hand_start

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


def test_hand_start_names_everything_an_auditor_needs() -> None:
    hs = make_hand_start(hand_id=b"\x00" * 16, n_seats=2, deck_id="italian40", n_cards=40,
                         seat_keys=[b"\x01" * 32, b"\x02" * 32], game="briscola",
                         variant="standard")
    assert {"game", "variant", "n_seats", "deck", "n_cards", "seat_keys", "protocol",
            "history", "first_dealer", "dealer", "options"} <= set(hs)
