"""A seat's own audit checks the passes all at once (`audit_log(compose=True)`, PROTOCOL § 9):
the final locked deck against the one the revealed seeds derive, one multiplication a card.
It must reach the verdict of the pass-by-pass audit on an honest deal and on every cheat in a
pass that changes the deck the cards are drawn from (it falls back to pass by pass, which
names the author), and costs n multiplications where pass by pass costs 2·S·n. Where the two
differ is written down here: deviations that leave the final locked deck the seeds' own (a
wrong shuffle key undone by its author's lock pass; colluding seats repairing their own wrong
deck before an honest seat works on it) are named by `verify` only.
"""

from __future__ import annotations

from typing import Any

from p2p_burraco.fairdeal import LocalTable, audit_log, group, hands_schedule, signing
from p2p_burraco.fairdeal.passes import deck_hash, shuffle_pass

N_SEATS, N_CARDS, PER_SEAT = 3, 40, 3


def new_table(base: bytes) -> LocalTable:
    return LocalTable.new(N_SEATS, "italian40", N_CARDS,
                          hands_schedule(N_SEATS, N_CARDS, PER_SEAT), base=base)


def finish(table: LocalTable) -> None:
    table.passes()
    table.release_all()
    table.decode_all()
    table.reveal_all()


def both(table: LocalTable) -> tuple[Any, Any]:
    log = table.gate.log
    return audit_log(log, compose=False), audit_log(log, compose=True)


def same(a: Any, b: Any) -> bool:
    return [(f.party, f.seat, f.what, f.where) for f in a.faults] == \
        [(f.party, f.seat, f.what, f.where) for f in b.faults] and a.deal == b.deal


def multiplications(log: Any, compose: bool) -> int:
    """Point multiplications one audit of `log` does (a log not audited before: the verdict
    cache is keyed by the log's hash)."""
    before = group.MULTIPLICATIONS[0]
    audit_log(log, compose=compose)
    return group.MULTIPLICATIONS[0] - before


def test_honest_deal_same_verdict_and_n_multiplications_not_2sn() -> None:
    table = new_table(b"composed-honest")
    table.commit_all()
    finish(table)
    full, composed = both(table)
    assert full.fair and composed.fair and same(full, composed)
    other = new_table(b"composed-count")
    other.commit_all()
    finish(other)
    by_pass = multiplications(other.gate.log, compose=False)
    again = new_table(b"composed-count-2")
    again.commit_all()
    finish(again)
    at_once = multiplications(again.gate.log, compose=True)
    # the rest of the audit (face-up claims) is the same in both: the passes' share differs
    assert by_pass - at_once == 2 * N_SEATS * N_CARDS - N_CARDS


def test_every_pass_cheat_that_changes_the_deck_gets_the_pass_by_pass_verdict() -> None:
    for cheat in ("shuffle_key", "point", "lock_factor"):
        table = new_table(b"composed-" + cheat.encode())
        table.commit_all()
        sec = table.seats[1]._secrets
        if cheat == "shuffle_key":
            sec.__dict__["shuffle_key"] = group.scalar_reduce(b"\x07" * 64)
        elif cheat == "lock_factor":
            factors = list(sec.lock_factors)
            factors[2] = group.scalar_reduce(b"\x09" * 64)
            sec.__dict__["lock_factors"] = tuple(factors)
        while table.gate.phase in ("shuffle", "lock"):
            s = table.gate.next_pass_seat
            assert s is not None
            msg = table.seats[s].make_pass()
            if cheat == "point" and s == 1 and table.gate.phase == "shuffle":
                msg["deck"][5] = group.card_points("elsewhere", 1)[0]
                msg = signing.sign(table.seats[1]._identity, msg)
            table.post(msg, s)
        table.release_all()
        table.decode_all()
        table.reveal_all()
        full, composed = both(table)
        assert not full.fair, cheat
        if cheat == "shuffle_key":
            # a wrong shuffle key its author's own lock pass removes again (k'·…·k'⁻¹)
            # leaves every point of the final deck the seeds' own: nothing to sign against;
            # pass by pass names the author twice
            assert composed.fair and composed.deal is not None
            assert {(f.seat, f.what) for f in full.faults} == {(1, "wrong_shuffle"),
                                                               (1, "wrong_lock")}
            continue
        assert same(full, composed), cheat
        assert {f.seat for f in composed.faults} == {1}, cheat


def test_colluders_repairing_their_own_wrong_deck_is_what_only_verify_names() -> None:
    """Seats 1 and 2 collude: seat 1 publishes a deck that is not its shuffle, seat 2 (who
    knows seat 1's secrets) publishes exactly the deck the two honest passes would have
    given. No honest seat worked on the wrong deck, so the deal is the seeds' own: a seat's
    audit signs it fair; pass by pass (`verify`) names both colluders."""
    table = new_table(b"composed-colluders")
    table.commit_all()
    table.post(table.seats[0].make_pass(), 0)
    d0 = table.gate.current_deck
    right = shuffle_pass(table.seats[1]._secrets, d0)
    wrong = right[1:] + right[:1]                      # a rotation: not seat 1's pass
    msg = signing.sign(table.seats[1]._identity,
                       {**table.seats[1].unsigned("shuffle"), "input_hash": deck_hash(d0),
                        "deck": wrong})
    table.post(msg, 1)
    repaired = shuffle_pass(table.seats[2]._secrets, right)
    msg = signing.sign(table.seats[2]._identity,
                       {**table.seats[2].unsigned("shuffle"), "input_hash": deck_hash(wrong),
                        "deck": repaired})
    table.post(msg, 2)
    finish(table)
    full, composed = both(table)
    assert composed.fair and composed.deal is not None
    assert {(f.seat, f.what) for f in full.faults} == {(1, "wrong_shuffle"),
                                                       (2, "wrong_shuffle")}
