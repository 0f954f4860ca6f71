"""Every kind of cheat at the protocol level is caught and pinned on the party that made it.

Each test runs a 3-seat, 40-card deal through `LocalTable` (a secret-free gate and three
honest seats), lets one party deviate in one way, and checks the gate's live refusal (where
there is one) and the audit's verdict: (party, seat, what, message number). `Fault.party`
is "seat" when the seat's own signed statement convicts it, "host" when a host-signed
statement is false (a false refusal, a statement made for another place of the log), and
"record" for what no key signed — tampering, truncation, forged signatures, reordering:
whoever wrote the file.
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
    SeatDealer,
    Transcript,
    audit_log,
    envelope,
    group,
    hands_schedule,
    signing,
)
from p2p_burraco.fairdeal.audit import Fault, Verdict, audit
from p2p_burraco.fairdeal.deal import x25519_key_error
from p2p_burraco.fairdeal.transcript import log_hash

ORDER8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
# X25519 keys of small order (every shared secret with them is zero): the all-zero key, a
# point of order 8, and p itself (a non-canonical zero). test_fairdeal_crypto checks more.
LOW_ORDER_X25519 = [bytes.fromhex(h) for h in (
    "00" * 32, "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "ed" + "ff" * 30 + "7f")]
N_SEATS, N_CARDS, PER_SEAT = 3, 40, 3
PUBLIC = N_SEATS * PER_SEAT


def new_table(base: bytes = b"cheat") -> LocalTable:
    return LocalTable.new(N_SEATS, "italian40", N_CARDS,
                          hands_schedule(N_SEATS, N_CARDS, PER_SEAT), base=base)


def resign(table: LocalTable, seat: int, msg: dict[str, Any]) -> dict[str, Any]:
    """A seat signing a message it altered (the cheat is its own: the signature is valid)."""
    return signing.sign(table.seats[seat]._identity, msg)


def close(table: LocalTable, skip: tuple[int, ...] = (),
          reveal: bool = True) -> tuple[Transcript, Verdict]:
    if reveal:
        table.reveal_all(skip=skip)
    transcript, verdict = table.finish()
    again = audit(transcript)     # an offline auditor agrees with the gate
    assert [(f.party, f.seat, f.what, f.where) for f in again.faults
            if f.what not in ("tampered", "unsigned")] == \
        [(f.party, f.seat, f.what, f.where) for f in verdict.faults]
    return transcript, verdict


def pinned(verdict: Verdict) -> set[tuple[str, int | None, str]]:
    """(party, seat, what) of every fault."""
    return {(f.party, f.seat, f.what) for f in verdict.faults}


def replicas_agree(table: LocalTable) -> None:
    """Every seat's replica holds the gate's log, and found nothing wrong with it."""
    for s in table.seats:
        assert s.deal.head == table.gate.head and s.problems == []


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
    assert Fault(1, "wrong_shuffle", where, verdict.faults[0].detail, "seat") == \
        verdict.faults[0]
    # its lock pass then removes that wrong key: a second deviation, by the same seat
    assert pinned(verdict) == {("seat", 1, "wrong_shuffle"), ("seat", 1, "wrong_lock")}
    # the host's quick audit does not recompute passes: it never settles a pass (the full
    # audit does, whenever anything is amiss or a seat disagrees)
    assert audit_log(table.gate.log, passes=False).fair


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
    assert pinned(verdict) == {("seat", 1, "wrong_shuffle")}
    assert [f.where for f in verdict.faults] == [where]
    # live, at most the seat holding that card notices (it decodes to no card)
    assert sum(len(bad) for _, bad in decoded) <= 1


def test_duplicated_point_is_refused_live_and_pinned() -> None:
    table = new_table()
    table.commit_all()
    passes_until(table, "lock", 2)
    msg = table.seats[2].make_pass()
    msg["deck"][7] = msg["deck"][8]
    signed = resign(table, 2, msg)
    with pytest.raises(DealError) as exc:
        table.post(signed, 2)
    assert exc.value.code == "table.bad_deck" and exc.value.voiding and exc.value.seat == 2
    # the signed pass goes into the log inside the host's refusal; the void follows it
    refusal, void = table.gate.log[-2:]
    where = len(table.gate.log) - 2
    assert refusal["type"] == "refusal" and refusal["code"] == "table.bad_deck"
    assert refusal["msg"] == signed and refusal["logged"] is True
    assert void["type"] == "hand_void" and void["seat"] == 2 and "evidence" not in void
    replicas_agree(table)
    _, verdict = close(table)
    assert pinned(verdict) == {("seat", 2, "duplicate_point")}
    assert verdict.faults[0].where == where       # the refusal holding the signed pass


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
    assert pinned(verdict) == {("seat", 0, "bad_point")}
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
    assert pinned(verdict) == {("seat", 1, "wrong_lock")}
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
    assert {(f.party, f.seat, f.what, f.where) for f in verdict.faults} == \
        {("seat", 0, "wrong_key", release_at)}


def test_key_released_outside_the_public_entitlement_is_refused_live() -> None:
    """Seat 2 tries to hand seat 0's card to seat 1 (its partner, say): refused, and the
    signed attempt goes into the log inside the host's refusal, which the void follows (the
    table-level audit judges entitlement: tests/test_table_cheats.py)."""
    table = new_table()
    table.commit_all()
    table.passes()
    msg = table.seats[2].make_release([(0, [1])])
    with pytest.raises(DealError) as exc:
        table.post(msg, 2)
    assert exc.value.code == "table.not_entitled" and exc.value.seat == 2 and exc.value.voiding
    refusal, void = table.gate.log[-2:]
    assert refusal["type"] == "refusal" and refusal["seat"] == 2 and refusal["msg"] == msg
    assert refusal["code"] == "table.not_entitled"
    assert void["type"] == "hand_void" and void["reason"] == "not_entitled"
    assert void["seat"] == 2 and "evidence" not in void
    # no key went out: the gate and every replica hold none of seat 2's keys
    assert all(2 not in table.gate.published[p] for p in range(N_CARDS))
    replicas_agree(table)


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
    assert pinned(verdict) == {("seat", 0, "false_claim")}
    # the true card passes the same check anyone can run
    table2 = new_table()
    table2.deal()
    table2.post(table2.seats[0].make_action({"kind": "play"},
                                            [(1, table2.seats[0].known[1])]), 0)
    assert table2.gate.public_cards[1] == table2.seats[0].known[1]


def test_withheld_seed_is_the_records_unless_a_signed_timeout_names_the_seat() -> None:
    """A seat that withholds its seed signs nothing: a hand closed without the seed is the
    record's fault (PROTOCOL.md § 8.8, 3); the host's signed `timeout` names the seat that
    owed it (the table layer makes that a stall: tests/test_table_cheats.py)."""
    table = new_table()
    table.deal()
    _, verdict = close(table, skip=(1,))
    assert pinned(verdict) == {("record", None, "no_reveal")}
    assert "seat 1" in verdict.faults[0].detail
    assert verdict.deal is None      # the deal cannot be re-derived without every seed

    table = new_table()
    table.deal()
    table.reveal_all(skip=(1,))
    timeout = table.gate.host_statement(table.host, "timeout", seat=1, kind="step", count=1,
                                        detail="seat 1 owed its seed")
    table.gate.check_host_entry(timeout)
    where = table.gate.append_host_entry(timeout)
    table.relay_pending()
    replicas_agree(table)
    transcript, verdict = close(table, reveal=False)
    assert verdict.fair and verdict.deal is None
    assert table.gate.timeouts == [where] and transcript.entries[where]["seat"] == 1
    assert signing.verify(table.gate.host_key, transcript.entries[where])
    # a timeout of another seat explains nothing about this one's seed
    cut = Transcript.from_bytes(transcript.to_bytes())
    cut.entries[where] = signing.host_statement(table.host, "timeout", cut.entries[0]["hand_id"],
                                                where, cut.entries[where]["head"], seat=0,
                                                kind="turn", count=1, detail="")
    assert pinned(audit_log(cut.entries)) == {("record", None, "no_reveal")}


def test_commitment_that_does_not_match_is_pinned() -> None:
    table = new_table()
    table.deal()
    table.gate.begin_reveal()
    for seat in table.seats:
        seat.deal.begin_reveal()
    for s in (0, 2):
        table.post(table.seats[s].make_reveal(), s)
    lie = table.seats[1].make_reveal()
    lie["seed"] = os.urandom(32)
    where = table.post(resign(table, 1, lie), 1)
    _, verdict = table.finish()
    assert {(f.party, f.seat, f.what, f.where) for f in verdict.faults} == \
        {("seat", 1, "bad_commitment", where)}


def test_false_alarm_is_pinned_on_the_alarmist() -> None:
    table = new_table()
    table.deal()
    table.post(table.seats[2].make_alarm("no_card", [6], None, "lying"), 2)
    table.void("alarm", 2)
    _, verdict = close(table)
    assert pinned(verdict) == {("seat", 2, "false_alarm")}
    # alarms left to a caller that judges more than keys (the table audit)
    assert audit_log(table.gate.log, judge_alarms=False).fair


def test_forged_signature_is_refused_live_and_pinned_on_the_record() -> None:
    table = new_table()
    table.commit_all()
    msg = table.seats[0].make_pass()
    forged = signing.sign(table.seats[2]._identity, msg)      # seat 2 signs as seat 0
    with pytest.raises(DealError) as exc:
        table.post(forged, 0)
    assert exc.value.code == "table.bad_signature" and not exc.value.voiding
    assert len(table.gate.log) == 1 + N_SEATS                  # nothing was recorded
    # every seat checks every relayed signature itself (by default): a host relaying the
    # forgery would be caught live
    watcher = SeatDealer(1, table.seats[1]._identity, bytes(32), table.hand_start)
    for entry in table.gate.log[1:]:
        watcher.receive(entry, table.audience)
    watcher.receive(forged, table.audience)
    assert [p[0] for p in watcher.problems] == ["bad_signature"]
    table.passes()
    table.release_all()
    table.decode_all()
    transcript, verdict = close(table)
    assert verdict.fair
    # the same forgery slipped into a record is caught and blamed on the record
    i = next(i for i, e in enumerate(transcript.entries) if e.get("type") == "shuffle")
    transcript.entries[i] = signing.sign(table.seats[2]._identity, transcript.entries[i])
    bad = audit(transcript)
    assert bad.faults[0] == Fault(None, "bad_signature", i, bad.faults[0].detail, "record")
    assert {f.party for f in bad.faults} == {"record"}


def test_tampered_transcript_is_caught() -> None:
    table = new_table()
    table.deal()
    transcript, verdict = close(table)
    assert verdict.fair
    data = Transcript.from_bytes(transcript.to_bytes())
    i = next(i for i, e in enumerate(data.entries) if e.get("type") == "release")
    data.entries[i]["keys"][0] = group.scalar_reduce(os.urandom(64))
    bad = audit(data)
    assert ("record", None, "bad_signature") in pinned(bad) and not bad.fair
    assert any(f.where == i for f in bad.faults)
    assert {f.party for f in bad.faults} == {"record"}


def test_truncated_transcript_is_caught() -> None:
    table = new_table()
    table.deal()
    transcript, _ = close(table)
    cut = Transcript.from_bytes(transcript.to_bytes())
    del cut.entries[-1]                       # drop the last seed reveal
    bad = audit(cut)
    assert ("record", None, "tampered") in pinned(bad)
    # the sign-offs are what prove it: without them the cut would only look like a hand
    # closed without a seed — the record's fault too, never the seat's
    assert ("record", None, "no_reveal") in pinned(bad)
    assert {f.party for f in bad.faults} == {"record"}
    nothing = Transcript.from_bytes(transcript.to_bytes())
    nothing.sign_offs = []
    assert ("record", None, "unsigned") in pinned(audit(nothing))


def test_reordered_or_removed_entries_are_caught() -> None:
    table = new_table()
    table.deal()
    transcript, _ = close(table)
    t = Transcript.from_bytes(transcript.to_bytes())
    a = next(i for i, e in enumerate(t.entries) if e.get("type") == "release")
    t.entries[a], t.entries[a - 1] = t.entries[a - 1], t.entries[a]
    assert ("record", None, "tampered") in pinned(audit(t))  # not the history the seats signed
    t = Transcript.from_bytes(transcript.to_bytes())
    i = next(i for i, e in enumerate(t.entries) if e.get("type") == "shuffle" and e["seat"] == 1)
    del t.entries[i]                                    # seat 1's chain now skips a message
    bad = audit(t)
    assert {("record", None, "broken_chain"), ("record", None, "tampered")} <= pinned(bad)
    assert {f.party for f in bad.faults} == {"record"}


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
    assert pinned(verdict) == {("seat", 0, "bad_envelope")}


# --------------------------------------------------------------------------- host statements

def _bad_void(table: LocalTable, how: str) -> dict[str, Any]:
    """A `hand_void` for the next place of the gate's log, spoiled in one way."""
    gate, host = table.gate, table.host
    fields: dict[str, Any] = {"reason": "lie", "seat": None, "detail": ""}
    if how == "another_key":            # a seat's key, not the host's
        return signing.sign(table.seats[0]._identity,
                            gate.host_statement(host, "hand_void", **fields))
    if how == "altered":                # the host's statement, edited after signing
        return {**gate.host_statement(host, "hand_void", **fields), "seat": 1}
    if how == "another_hand":
        return signing.host_statement(host, "hand_void", b"\x07" * 16, len(gate.log),
                                      gate.head, **fields)
    if how == "wrong_at":               # signed by the host for another place
        return signing.host_statement(host, "hand_void", gate.hand_id, len(gate.log) + 1,
                                      gate.head, **fields)
    assert how == "wrong_head"          # signed by the host on another (older) history
    return signing.host_statement(host, "hand_void", gate.hand_id, len(gate.log),
                                  log_hash(gate.log[:-1]), **fields)


@pytest.mark.parametrize("how,party,what", [
    ("another_key", "record", "bad_signature"), ("altered", "record", "bad_signature"),
    ("another_hand", "record", "bad_signature"), ("wrong_at", "host", "host_history"),
    ("wrong_head", "host", "host_history")])
def test_host_statement_signed_wrongly_or_for_another_place_is_refused_and_flagged(
        how: str, party: str, what: str) -> None:
    """A host statement is signed by the hand's host key for exactly one place of the log
    (`at`, `head`): anything else is refused by every replica's `check_host_entry`, and
    the audit names the host when the host's own key signed it, else the record."""
    table = new_table()
    table.deal()
    good = table.gate.host_statement(table.host, "hand_void", reason="x", seat=None, detail="")
    table.gate.check_host_entry(good)                   # the control passes
    bad = _bad_void(table, how)
    with pytest.raises(DealError) as exc:
        table.gate.check_host_entry(bad)
    assert exc.value.code == "table.bad_host_statement"
    # a host that appends and relays it anyway: every seat flags it live…
    where = table.gate.append_host_entry(bad)
    table.relay_pending()
    for s in table.seats:
        assert [(p[0], p[2]) for p in s.problems] == [("bad_host_statement", where)]
    # …and the audit pins it on whoever signed it
    _, verdict = close(table)
    assert {(f.party, f.seat, f.what, f.where) for f in verdict.faults} == \
        {(party, None, what, where)}


def test_a_timeout_or_refusal_the_host_cannot_make_is_refused() -> None:
    table = new_table()
    table.commit_all()
    gate, host = table.gate, table.host
    for seat in (None, 3, -1):
        with pytest.raises(DealError, match="timeout of no seat"):
            gate.check_host_entry(gate.host_statement(host, "timeout", seat=seat, kind="step",
                                                      count=1, detail=""))
    # a refusal must carry a statement validly placed in the chain of the seat it names
    stmt = table.seats[2].make_pass()
    gate.check_host_entry(gate.host_statement(host, "refusal", seat=2, msg=stmt, logged=True,
                                              code="table.not_your_turn", message="",
                                              rule=None))
    for seat, msg, why in [(1, stmt, "the seat it names"),
                           (2, {**stmt, "seq": 0}, "table.replayed_seq"),
                           (2, resign(table, 2, {**stmt, "seq": 2}), "table.seq_gap"),
                           (2, resign(table, 2, {**stmt, "prev_hash": bytes(32)}),
                            "table.bad_chain"),
                           (2, {**stmt, "sig": bytes(64)}, "table.bad_signature")]:
        refusal = gate.host_statement(host, "refusal", seat=seat, code="table.not_your_turn",
                                      message="", rule=None, msg=msg, logged=True)
        with pytest.raises(DealError, match=why) as exc:
            gate.check_host_entry(refusal)
        assert exc.value.code == "table.bad_host_statement"
    # a hand_start is never a later entry
    with pytest.raises(DealError):
        gate.check_host_entry(table.hand_start)


# --------------------------------------------------------------------------- refusals, chains

def test_a_logged_refusal_moves_the_seat_chain_on() -> None:
    """Seat 2 jumps the queue: its signed pass is refused (not its turn) and goes into the
    log inside the host's refusal; its chain moves past it, so its next statement chains
    after the refused one, and the refused one can neither be replayed nor skipped."""
    table = new_table()
    table.commit_all()
    early = table.seats[2].make_pass()
    assert early["seq"] == 1
    with pytest.raises(DealError) as exc:
        table.post(early, 2)
    assert exc.value.code == "table.not_your_turn" and not exc.value.voiding
    refusal = table.gate.log[-1]
    refusal_at = len(table.gate.log) - 1
    assert refusal["type"] == "refusal" and refusal["msg"] == early and refusal["seat"] == 2
    assert refusal["at"] == refusal_at
    assert refusal["head"] == log_hash(table.gate.log[:refusal_at])
    for deal in (table.gate, *(s.deal for s in table.seats)):
        assert deal.chains[2].next_seq == 2
        assert deal.chains[2].last_hash == signing.entry_hash(early)
    replicas_agree(table)
    # the same statement again is a replay, one further ahead a gap: neither is logged
    size = len(table.gate.log)
    with pytest.raises(DealError) as exc:
        table.post(early, 2)
    assert exc.value.code == "table.replayed_seq"
    ahead = resign(table, 2, {**table.seats[2].unsigned("abandon", reason="x"), "seq": 3})
    with pytest.raises(DealError) as exc:
        table.post(ahead, 2)
    assert exc.value.code == "table.seq_gap"
    assert len(table.gate.log) == size
    # its pass when due: seq 2, chained after the refused statement
    table.passes()
    own = [e for e in table.gate.log if e.get("seat") == 2 and e["type"] == "shuffle"]
    assert own[0]["seq"] == 2 and own[0]["prev_hash"] == signing.entry_hash(early)
    table.release_all()
    table.decode_all()
    replicas_agree(table)
    transcript, verdict = close(table)
    assert verdict.fair and verdict.deal is not None
    # a record without the refusal breaks seat 2's chain: the record's fault, no seat's
    cut = Transcript.from_bytes(transcript.to_bytes())
    del cut.entries[refusal_at]
    bad = audit(cut)
    assert ("record", None, "broken_chain") in pinned(bad)
    assert {f.party for f in bad.faults} == {"record"}


def test_a_second_commitment_is_logged_and_held_commitments_keep_their_order() -> None:
    """A second commitment validly placed in the seat's chain is not due (`table.not_due`),
    a content refusal: logged, so the seat's chain moves on. The host still holds the
    commitments until every seat's is in, and relays the log in its own order."""
    table = new_table()
    first = table.seats[0].make_commit()
    table.post(first, 0)
    again = resign(table, 0, {**first, "seq": 1, "prev_hash": signing.entry_hash(first),
                              "commitment": bytes(32)})
    with pytest.raises(DealError) as exc:
        table.post(again, 0)
    assert exc.value.code == "table.not_due" and not exc.value.voiding
    assert [e["type"] for e in table.gate.log] == ["hand_start", "commit", "refusal"]
    assert all(len(s.deal.log) == 1 for s in table.seats)      # all held
    for s in (1, 2):
        table.post(table.seats[s].make_commit(), s)
    replicas_agree(table)                                       # relayed, in log order
    assert table.gate.chains[0].next_seq == 2
    table.passes()
    table.release_all()
    table.decode_all()
    _, verdict = close(table)
    assert verdict.fair


# --------------------------------------------------------------------------- X25519 keys

@pytest.mark.parametrize("key", LOW_ORDER_X25519, ids=lambda k: k.hex()[:8] + k.hex()[-2:])
def test_low_order_x25519_key_is_refused_live_and_pinned_on_its_author(key: bytes) -> None:
    """A commitment whose X25519 key is low-order (every envelope to it would be sealed
    under the all-zero secret) is `table.bad_key`: refused, voiding, pinned on its author;
    the key never enters any replica, so no partner ever tries to seal to it."""
    assert x25519_key_error(key) is not None
    table = new_table()
    table.seats[1]._secrets.__dict__["x25519_public"] = key
    with pytest.raises(DealError) as exc:
        table.commit_all()
    assert (exc.value.code, exc.value.seat, exc.value.voiding) == ("table.bad_key", 1, True)
    log = table.gate.log
    assert [e["type"] for e in log] == ["hand_start", "commit", "refusal", "hand_void"]
    assert log[2]["msg"]["x25519"] == key and log[3]["reason"] == "bad_key"
    assert log[3]["seat"] == 1
    replicas_agree(table)
    for deal in (table.gate, *(s.deal for s in table.seats)):
        assert 1 not in deal.x25519 and deal.phase == "reveal"
    with pytest.raises(KeyError):               # no key of seat 1's to seal to…
        table.seats[0].make_sealed(1, [0])
    sealed = table.seats[0]._sign("sealed", to=1, positions=[0], box=bytes(48))
    with pytest.raises(DealError) as refused:   # …and nothing is sealed in a stopped hand
        table.gate.check(sealed, 0, table.audience)
    assert refused.value.code == "table.wrong_phase"
    _, verdict = close(table, skip=(1, 2))      # seat 2 never committed
    assert {(f.party, f.seat, f.what, f.where) for f in verdict.faults} == \
        {("seat", 1, "bad_key", 2)}


def test_low_order_x25519_key_relayed_anyway_is_flagged_and_never_sealed_to() -> None:
    """A host that lets the key through: every seat's own check flags it on arrival,
    sealing to it fails cleanly (never an envelope under the zero secret), and the audit
    pins the author (its seed does not derive that key)."""
    pair = frozenset({0, 1})
    table = LocalTable.new(3, "italian40", 40,
                           lambda pos: pair if pos < 2 else frozenset(), base=b"lowkey")
    key = LOW_ORDER_X25519[1]
    table.seats[1]._secrets.__dict__["x25519_public"] = key
    for s in table.seats:
        msg = s.make_commit()
        if s.seat == 1:
            table.gate.apply(msg)               # the host's check skipped
        else:
            table.post(msg, s.seat, relay=False)
    table.relay_pending()
    for s in table.seats:
        assert [p[0] for p in s.problems] == ["bad_key"]
    with pytest.raises(envelope.EnvelopeError):
        table.seats[0].make_sealed(1, [0, 1])
    table.passes()
    _, verdict = close(table)
    assert ("seat", 1, "bad_x25519") in pinned(verdict)
    assert {f.party for f in verdict.faults} == {"seat"} and verdict.culprits() == {1}


# --------------------------------------------------------------------------- false refusals

@pytest.mark.parametrize("code", ["table.bad_key", "table.bad_deck", "table.bad_proof"])
def test_a_false_refusal_is_the_hosts(code: str) -> None:
    """The host refuses a sound statement with a code that claims a deviation: its signed
    refusal is its own lie, judged against the revealed seeds."""
    table = new_table()
    if code == "table.bad_key":
        msg, seat = table.seats[0].make_commit(), 0
        skip: tuple[int, ...] = (0, 1, 2)       # nobody's commitment is in
    elif code == "table.bad_deck":
        table.commit_all()
        msg, seat, skip = table.seats[0].make_pass(), 0, ()
    else:
        table.deal()
        msg = table.seats[0].make_action({"kind": "play"}, [(1, table.seats[0].known[1])])
        seat, skip = 0, ()
    table.gate.check(msg, seat, table.audience)     # sound
    table.refuse(msg, DealError(code, "a lie", seat=seat, voiding=True))
    where = len(table.gate.log) - 1
    table.void(code.split(".")[-1], seat, "a lie")
    replicas_agree(table)
    _, verdict = close(table, skip=skip)
    assert {(f.party, f.seat, f.what, f.where) for f in verdict.faults} == \
        {("host", None, "false_refusal", where)}


# --------------------------------------------------------------------------- record edits

def test_record_edits_are_never_pinned_on_a_seat_or_the_host() -> None:
    """What is missing from an altered record is no seat's proven word: a commitment cut
    out does not make the seat's reveal a `no_commit`, a release cut out does not make a
    later proof's keys `wrong_key`, and a host statement after an altered entry no longer
    sits on its history through no fault of the host."""
    table = new_table(b"edits")
    table.deal()
    s2 = table.seats[2]
    table.post(s2.make_action({"kind": "play"}, [(6, s2.known[6])]), 2)
    timeout = table.gate.host_statement(table.host, "timeout", seat=0, kind="turn", count=1,
                                        detail="")
    table.gate.append_host_entry(timeout)
    table.relay_pending()
    transcript, verdict = close(table)
    assert verdict.fair
    for kind, seat in (("commit", 1), ("release", 0), ("shuffle", 2)):
        t = Transcript.from_bytes(transcript.to_bytes())
        e = next(e for e in t.entries if e["type"] == kind and e["seat"] == seat)
        e["sig"] = bytes([e["sig"][0] ^ 1]) + e["sig"][1:]
        bad = audit(t)
        assert ("record", None, "bad_signature") in pinned(bad)
        assert {f.party for f in bad.faults} == {"record"}, str(bad)
    # the same walk with nothing altered: a host statement for another place is the host's
    t = Transcript.from_bytes(transcript.to_bytes())
    at = next(i for i, e in enumerate(t.entries) if e["type"] == "timeout")
    t.entries[at] = signing.host_statement(table.host, "timeout", t.entries[at]["hand_id"],
                                           at + 1, t.entries[at]["head"], seat=0,
                                           kind="turn", count=1, detail="")
    assert ("host", None, "host_history") in pinned(audit_log(t.entries))


_HONEST: list[Transcript] = []


def honest_transcript() -> Transcript:
    """A fair hand whose log holds host statements besides the hand_start: a true refusal
    (seat 2 jumping the queue, logged) and a timeout."""
    if not _HONEST:
        table = new_table(b"hypothesis")
        table.commit_all()
        with pytest.raises(DealError):
            table.post(table.seats[2].make_pass(), 2)
        table.passes()
        table.release_all()
        table.decode_all()
        table.reveal_all(skip=(1,))
        timeout = table.gate.host_statement(table.host, "timeout", seat=1, kind="step",
                                            count=1, detail="seat 1 owed its seed")
        table.gate.append_host_entry(timeout)
        table.post(table.seats[1].make_reveal(), 1)     # late, but in
        transcript, verdict = close(table, reveal=False)
        assert verdict.fair and verdict.deal is not None
        assert [e["type"] for e in transcript.entries].count("refusal") == 1
        _HONEST.append(transcript)
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
    # the record is to blame: never a seat, nor the host whose statements no longer sit
    # where they were made
    assert {f.party for f in verdict.faults} == {"record"}, str(verdict)
