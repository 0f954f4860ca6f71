"""Every kind of cheat at the protocol level is caught and pinned on the seat that made it.

Each test runs a 3-seat, 40-card deal through `LocalTable` (a secret-free gate and three
honest seats), lets one seat deviate in one way, and checks the gate's live refusal (where
there is one) and the audit's verdict: (seat, what, message number). Faults of the record
itself — tampering, truncation, forged signatures — are pinned on `None`: the host, or
whoever wrote the file, since no seat signed them.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_burraco.fairdeal import (
    DealError,
    LocalTable,
    Transcript,
    audit,
    group,
    hands_schedule,
    signing,
)
from p2p_burraco.fairdeal.audit import Fault, Verdict

ORDER8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
N_SEATS, N_CARDS, PER_SEAT = 3, 40, 3
PUBLIC = N_SEATS * PER_SEAT


def new_table(base: bytes = b"cheat") -> LocalTable:
    return LocalTable.new(N_SEATS, "italian40", N_CARDS,
                          hands_schedule(N_SEATS, N_CARDS, PER_SEAT), base=base)


def resign(table: LocalTable, seat: int, msg: dict[str, Any]) -> dict[str, Any]:
    """A seat signing a message it altered (the cheat is its own: the signature is valid)."""
    return signing.sign(table.seats[seat]._identity, msg)


def close(table: LocalTable, skip: tuple[int, ...] = ()) -> tuple[Transcript, Verdict]:
    table.reveal_all(skip=skip)
    transcript, verdict = table.finish()
    again = audit(transcript)     # an offline auditor agrees with the gate
    assert [(f.seat, f.what, f.where) for f in again.faults
            if f.what not in ("tampered", "unsigned")] == \
        [(f.seat, f.what, f.where) for f in verdict.faults]
    return transcript, verdict


def pinned(verdict: Verdict) -> set[tuple[int | None, str]]:
    return {(f.seat, f.what) for f in verdict.faults}


def passes_until(table: LocalTable, kind: str, seat: int) -> None:
    """Run the passes up to (not including) `seat`'s pass of `kind`."""
    while not (table.gate.phase == kind and table.gate.next_pass_seat == seat):
        s = table.gate.next_pass_seat
        assert s is not None
        table.post(table.seats[s].make_pass(), s)


def test_honest_deal_is_fair() -> None:
    table = new_table()
    table.deal()
    _, verdict = close(table)
    assert verdict.fair and verdict.faults == []


def test_wrong_shuffle_key_is_pinned() -> None:
    table = new_table()
    table.commit_all()
    other = group.scalar_reduce(os.urandom(64))
    table.seats[1]._secrets.__dict__["shuffle_key"] = other   # not what its seed derives
    passes_until(table, "shuffle", 1)
    where = table.post(table.seats[1].make_pass(), 1)
    table.passes()
    table.release_all()
    table.decode_all()
    _, verdict = close(table)
    assert Fault(1, "wrong_shuffle", where, verdict.faults[0].detail) == verdict.faults[0]
    # its lock pass then removes that wrong key: a second deviation, by the same seat
    assert pinned(verdict) == {(1, "wrong_shuffle"), (1, "wrong_lock")}


def test_substituted_point_is_pinned() -> None:
    table = new_table()
    table.commit_all()
    passes_until(table, "shuffle", 1)
    msg = table.seats[1].make_pass()
    msg["deck"][5] = group.card_points("elsewhere", 1)[0]   # a valid point, not a card's
    where = table.post(resign(table, 1, msg), 1)
    table.passes()
    table.release_all()
    decoded = table.decode_all()
    _, verdict = close(table)
    assert pinned(verdict) == {(1, "wrong_shuffle")}
    assert [f.where for f in verdict.faults] == [where]
    # live, at most the seat holding that card notices (it decodes to no card)
    assert sum(len(bad) for _, bad in decoded) <= 1


def test_duplicated_point_is_refused_live_and_pinned() -> None:
    table = new_table()
    table.commit_all()
    passes_until(table, "lock", 2)
    msg = table.seats[2].make_pass()
    msg["deck"][7] = msg["deck"][8]
    with pytest.raises(DealError) as exc:
        table.post(resign(table, 2, msg), 2)
    assert exc.value.code == "table.bad_deck" and exc.value.voiding and exc.value.seat == 2
    _, verdict = close(table)
    assert pinned(verdict) == {(2, "duplicate_point")}


@pytest.mark.parametrize("bad_point", [ORDER8, b"\xff" * 32, b"\x02" * 32],
                         ids=["small_order", "off_curve", "noncanonical"])
def test_small_order_or_invalid_point_is_caught_by_the_next_seat(bad_point: bytes) -> None:
    table = new_table()
    table.commit_all()
    passes_until(table, "shuffle", 0)
    msg = table.seats[0].make_pass()
    msg["deck"][4] = bad_point
    where = table.post(resign(table, 0, msg), 0)
    # seat 1 cannot multiply it: libsodium refuses, seat 1 raises the alarm
    with pytest.raises(group.BadPoint) as exc:
        table.seats[1].make_pass()
    alarm = table.seats[1].make_alarm("bad_point", list(exc.value.indices), where, "invalid")
    table.post(alarm, 1)
    table.void("alarm", 1)
    _, verdict = close(table)
    assert pinned(verdict) == {(0, "bad_point")}
    assert verdict.faults[0].where == where


def test_wrong_lock_key_is_pinned() -> None:
    table = new_table()
    table.commit_all()
    passes_until(table, "lock", 1)
    sec = table.seats[1]._secrets
    factors = list(sec.lock_factors)
    factors[2] = group.scalar_reduce(os.urandom(64))
    sec.__dict__["lock_factors"] = tuple(factors)
    where = table.post(table.seats[1].make_pass(), 1)
    table.passes()
    table.release_all()
    decoded = table.decode_all()
    _, verdict = close(table)
    assert pinned(verdict) == {(1, "wrong_lock")}
    assert verdict.faults[0].where == where
    assert decoded[0][1] == [2]   # seat 0 holds position 2: it decodes to no card


def test_wrong_released_key_is_pinned() -> None:
    table = new_table()
    table.commit_all()
    table.passes()
    sec = table.seats[0]._secrets
    keys = list(sec.lock_keys)
    keys[4] = group.scalar_reduce(os.urandom(64))      # position 4 is seat 1's
    sec.__dict__["lock_keys"] = tuple(keys)
    table.release_all()
    decoded = table.decode_all()
    assert decoded[1][1] == [4]
    _, verdict = close(table)
    release_at = next(i for i, e in enumerate(table.gate.log)
                      if e.get("type") == "release" and e["seat"] == 0)
    assert {(f.seat, f.what, f.where) for f in verdict.faults} == {(0, "wrong_key", release_at)}


def test_key_released_outside_the_public_entitlement_is_refused_live() -> None:
    """Seat 2 tries to hand seat 0's card to seat 1 (its partner, say): refused, and the
    signed attempt travels as evidence in the void entry (the table-level audit judges
    entitlement: tests/test_table_cheats.py)."""
    table = new_table()
    table.commit_all()
    table.passes()
    msg = table.seats[2].make_release([(0, [1])])
    with pytest.raises(DealError) as exc:
        table.post(msg, 2)
    assert exc.value.code == "table.not_entitled" and exc.value.seat == 2
    void = table.gate.log[-1]
    assert void["type"] == "hand_void" and void["evidence"]["msg"] == msg


def test_false_card_claimed_face_up_is_refused_live_and_pinned() -> None:
    table = new_table()
    table.deal()
    seat0 = table.seats[0]
    real = seat0.known[1]
    fake = (real + 1) % N_CARDS
    msg = seat0.make_action({"kind": "play"}, [(1, fake)])
    with pytest.raises(DealError) as exc:
        table.post(msg, 0)
    assert exc.value.code == "table.bad_proof" and exc.value.seat == 0
    _, verdict = close(table)
    assert pinned(verdict) == {(0, "false_claim")}
    # the true card passes the same check anyone can run
    table2 = new_table()
    table2.deal()
    table2.post(table2.seats[0].make_action({"kind": "play"},
                                            [(1, table2.seats[0].known[1])]), 0)
    assert table2.gate.public_cards[1] == table2.seats[0].known[1]


def test_refused_seed_reveal_is_pinned() -> None:
    table = new_table()
    table.deal()
    _, verdict = close(table, skip=(1,))
    assert pinned(verdict) == {(1, "no_reveal")}
    assert verdict.deal is None      # the deal cannot be re-derived without every seed


def test_commitment_that_does_not_match_is_pinned() -> None:
    table = new_table()
    table.deal()
    table.gate.begin_reveal()
    for s in table.seats:
        s.deal.begin_reveal()
    for s in (0, 2):
        table.post(table.seats[s].make_reveal(), s)
    lie = table.seats[1].make_reveal()
    lie["seed"] = os.urandom(32)
    where = table.post(resign(table, 1, lie), 1)
    _, verdict = table.finish()
    assert {(f.seat, f.what, f.where) for f in verdict.faults} == {(1, "bad_commitment", where)}


def test_false_alarm_is_pinned_on_the_alarmist() -> None:
    table = new_table()
    table.deal()
    table.post(table.seats[2].make_alarm("no_card", [6], None, "lying"), 2)
    table.void("alarm", 2)
    _, verdict = close(table)
    assert pinned(verdict) == {(2, "false_alarm")}


def test_forged_signature_is_refused_live_and_pinned_on_the_record() -> None:
    table = new_table()
    table.commit_all()
    msg = table.seats[0].make_pass()
    forged = signing.sign(table.seats[2]._identity, msg)      # seat 2 signs as seat 0
    with pytest.raises(DealError) as exc:
        table.post(forged, 0)
    assert exc.value.code == "table.bad_signature" and not exc.value.voiding
    assert len(table.gate.log) == 1 + N_SEATS                  # nothing was recorded
    table.passes()
    table.release_all()
    table.decode_all()
    transcript, verdict = close(table)
    assert verdict.fair
    # the same forgery slipped into a record is caught and blamed on the record
    i = next(i for i, e in enumerate(transcript.entries) if e.get("type") == "shuffle")
    transcript.entries[i] = signing.sign(table.seats[2]._identity, transcript.entries[i])
    bad = audit(transcript)
    assert bad.faults[0] == Fault(None, "bad_signature", i, bad.faults[0].detail)
    assert all(f.seat is None for f in bad.faults)


def test_tampered_transcript_is_caught() -> None:
    table = new_table()
    table.deal()
    transcript, verdict = close(table)
    assert verdict.fair
    data = Transcript.from_bytes(transcript.to_bytes())
    i = next(i for i, e in enumerate(data.entries) if e.get("type") == "release")
    data.entries[i]["keys"][0] = group.scalar_reduce(os.urandom(64))
    bad = audit(data)
    assert (None, "bad_signature") in pinned(bad) and not bad.fair
    assert any(f.where == i for f in bad.faults)


def test_truncated_transcript_is_caught() -> None:
    table = new_table()
    table.deal()
    transcript, _ = close(table)
    cut = Transcript.from_bytes(transcript.to_bytes())
    del cut.entries[-1]                       # drop the last seed reveal
    bad = audit(cut)
    assert (None, "tampered") in pinned(bad)
    # the sign-offs are what prove it: without them the cut would only look like a refusal
    assert any(f.what == "no_reveal" for f in bad.faults)
    nothing = Transcript.from_bytes(transcript.to_bytes())
    nothing.sign_offs = []
    assert (None, "unsigned") in pinned(audit(nothing))


def test_reordered_or_removed_entries_are_caught() -> None:
    table = new_table()
    table.deal()
    transcript, _ = close(table)
    t = Transcript.from_bytes(transcript.to_bytes())
    a = next(i for i, e in enumerate(t.entries) if e.get("type") == "release")
    t.entries[a], t.entries[a - 1] = t.entries[a - 1], t.entries[a]
    assert (None, "tampered") in pinned(audit(t))      # not the history the seats signed
    t = Transcript.from_bytes(transcript.to_bytes())
    i = next(i for i, e in enumerate(t.entries) if e.get("type") == "shuffle" and e["seat"] == 1)
    del t.entries[i]                                    # seat 1's chain now skips a message
    bad = audit(t)
    assert {(None, "broken_chain"), (None, "tampered")} <= pinned(bad)


def test_wrong_envelope_is_pinned_on_its_sender() -> None:
    pair = frozenset({0, 2})

    def audience(pos: int) -> frozenset[int]:
        return pair if pos < 2 else frozenset()
    table = LocalTable.new(4, "italian40", 40, audience, base=b"env")
    table.commit_all()
    table.passes()
    for s in (1, 3):
        table.post(table.seats[s].make_release([(0, [0, 2]), (1, [0, 2])]), s)
    sec = table.seats[0]._secrets
    keys = list(sec.lock_keys)
    keys[1] = group.scalar_reduce(os.urandom(64))
    sec.__dict__["lock_keys"] = tuple(keys)
    table.post(table.seats[0].make_sealed(2, [0, 1]), 0)
    table.post(table.seats[2].make_sealed(0, [0, 1]), 2)
    _, bad = table.seats[2].decode([0, 1])
    assert bad == [1]
    _, verdict = close(table)
    assert pinned(verdict) == {(0, "bad_envelope")}


_HONEST: list[Transcript] = []


def honest_transcript() -> Transcript:
    if not _HONEST:
        table = new_table(b"hypothesis")
        table.deal()
        _HONEST.append(close(table)[0])
    return Transcript.from_bytes(_HONEST[0].to_bytes())


def _byte_fields(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to every bytes value inside an entry (keys, points, hashes, signatures…)."""
    if isinstance(value, bytes):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _byte_fields(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _byte_fields(v, (*path, i))]
    return []


@settings(max_examples=40)
@given(st.data())
def test_any_flipped_bit_anywhere_in_the_log_is_caught(data: st.DataObject) -> None:
    t = honest_transcript()
    i = data.draw(st.integers(0, len(t.entries) - 1), label="entry")
    paths = _byte_fields(t.entries[i])
    path = data.draw(st.sampled_from(paths), label="field")
    parent: Any = t.entries[i]
    for step in path[:-1]:
        parent = parent[step]
    old: bytes = parent[path[-1]]
    k = data.draw(st.integers(0, len(old) - 1), label="byte")
    bit = data.draw(st.integers(0, 7), label="bit")
    parent[path[-1]] = old[:k] + bytes([old[k] ^ (1 << bit)]) + old[k + 1:]
    verdict = audit(t)
    assert not verdict.fair
    assert any(f.seat is None for f in verdict.faults)   # the record is to blame, no seat
