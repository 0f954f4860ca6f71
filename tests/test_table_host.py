"""The sans-IO table: a HostTable that holds no secret, refuses bad messages with stable codes
and leaves itself unchanged, voids a hand when a seat is lost, and lets a peer resync."""

from __future__ import annotations

import copy
import types
from collections.abc import Iterator
from typing import Any

import pytest

from p2p_burraco.fairdeal import signing
from p2p_burraco.games.briscola import Play
from p2p_burraco.games.burraco import Discard
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.table import messages as M
from p2p_burraco.table.host import HostTable, Outgoing
from p2p_burraco.table.inprocess import InProcessTable
from p2p_burraco.table.seat import SeatClient


def table_in_play(game: str = "burraco", players: int = 4, seed: int = 1,
                  variant: str | None = None) -> InProcessTable:
    """A table whose opening deal is done and whose first player is about to act."""
    t = InProcessTable(SelfplayConfig(game=game, variant=variant, players=players, hands=1,
                                      seed=seed, bots=["random"]))
    t.post(t.host.start_hand())
    t.pump(until=lambda: t.host.stage == "play"
           and all(s._ready() for s in t.seats) and not t.to_seats)
    assert t.host.stage == "play"
    return t


def snapshot(host: HostTable) -> tuple[Any, ...]:
    assert host.deal is not None and host.hand is not None
    return (host.stage, len(host.deal.log), host.deal.head, host.hand.public_view(),
            {p: dict(k) for p, k in enumerate(host.deal.published) if k},
            dict(host.deal.public_cards), [c.next_seq for c in host.deal.chains])


def error_of(out: list[Outgoing], seat: int) -> dict[str, Any]:
    assert len(out) == 1 and out[0].to == seat, out
    msg = out[0].msg
    assert msg["type"] == "error" and msg["code"] in M.ERROR_CODES
    return msg


def walk(obj: Any, seen: set[int] | None = None) -> Iterator[Any]:
    """Everything reachable from an object: attributes, containers, bound methods' selves."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (types.ModuleType, type, types.FunctionType)):
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(k, seen)
            yield from walk(v, seen)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for v in obj:
            yield from walk(v, seen)
    elif isinstance(obj, types.MethodType):
        yield from walk(obj.__self__, seen)
    elif hasattr(obj, "__dict__") and not isinstance(obj, (str, bytes, int)):
        yield from walk(vars(obj), seen)


@pytest.mark.parametrize("game,players,variant", [("burraco", 4, None),
                                                  ("briscola", 4, "carte-scoperte")])
def test_host_holds_no_seed_key_or_hidden_card(game: str, players: int,
                                               variant: str | None) -> None:
    t = table_in_play(game, players, variant=variant)
    # play on a little: draws, melds, discards, key releases, sealed envelopes
    t.pump(until=lambda: t.host.deal is not None and sum(
        1 for e in t.host.deal.log if e.get("type") == "action") >= 6)
    host = t.host
    assert host.deal is not None and host.hand is not None and host.stage == "play"
    reachable = list(walk(host))
    assert not any(isinstance(o, SeatClient) for o in reachable)
    blobs = {o for o in reachable if isinstance(o, bytes)}
    everyone = frozenset(range(players))
    for s, seat in enumerate(t.seats):
        sec = seat._dealer._secrets
        secret = {sec.seed, sec.shuffle_key, sec.shuffle_key_inverse, sec.x25519_private,
                  t.identities[s].private_bytes_raw(), *sec.lock_factors}
        assert not secret & blobs, f"seat {s}'s secrets reached the host"
        for pos, key in enumerate(sec.lock_keys):
            if key in blobs:
                assert host.deal.published[pos].get(s) == key   # only keys made public
    for pos in range(len(host.hand.deck)):
        # the host knows a card only once everyone has seen it (a card taken back into a
        # hand from the discard pile stays known: it was face up)
        if host.hand.card_at(pos) is not None:
            assert pos in host.deal.public_cards
        elif host.hand.audience(pos) != everyone:
            assert host.deal.missing_keys(pos), f"the host could decode position {pos}"


def test_refusals_name_a_stable_code_and_change_nothing() -> None:
    t = table_in_play()
    host = t.host
    assert host.hand is not None and host.deal is not None
    mover = host.hand.to_move
    assert mover is not None
    other = (mover + 1) % 4
    before = snapshot(host)
    dealer, odealer = t.seats[mover]._dealer, t.seats[other]._dealer
    pos = t.seats[mover].hand.hands[mover][0]
    card = t.seats[mover].hand.card_at(pos)
    discard = Discard((pos, card))
    cases: list[tuple[int, dict[str, Any], str]] = []
    # an illegal move (discard before drawing): the rule id comes back
    cases.append((mover, dealer.make_action(discard.to_wire(), [(pos, card)]),
                  "table.illegal_action"))
    # not this seat's turn
    opos = t.seats[other].hand.hands[other][0]
    cases.append((other, odealer.make_action(Discard((opos, 0)).to_wire(), []),
                  "table.not_your_turn"))
    good = dealer.make_action({"kind": "draw"}, [])
    cases.append((mover, {**good, "seq": good["seq"]} | {"action": {"kind": "pass"}},
                  "table.bad_signature"))
    cases.append((other, good, "table.wrong_seat"))
    cases.append((mover, signing.sign(dealer._identity, {**good, "seq": 0}),
                  "table.replayed_seq"))
    cases.append((mover, signing.sign(dealer._identity, {**good, "prev_hash": b"\x00" * 32}),
                  "table.bad_chain"))
    cases.append((mover, signing.sign(dealer._identity, {**good, "hand_id": b"\x07" * 16}),
                  "table.wrong_hand"))
    cases.append((mover, dealer.make_action({"kind": "no such move"}, []), "table.bad_action"))
    cases.append((mover, dealer.make_commit(), "table.wrong_phase"))
    cases.append((mover, dealer.make_reveal(), "table.wrong_phase"))
    stock = max(range(len(host.hand.deck)), key=lambda p: p)   # the stock's bottom card
    cases.append((mover, dealer._sign("action", action=Discard((stock, 0)).to_wire(),
                                      positions=[stock], cards=[0],
                                      keys=[[dealer._secrets.lock_key(stock)]]),
                  "table.unknown_position"))
    cases.append((mover, dealer._sign("action", action=discard.to_wire(), positions=[],
                                      cards=[], keys=[]), "table.bad_action"))  # no proof
    for seat, msg, code in cases:
        err = error_of(host.receive(seat, msg), seat)
        assert err["code"] == code, (code, err)
        assert snapshot(host) == before, code
    illegal = error_of(host.receive(mover, cases[0][1]), mover)
    assert illegal["rule"] == "FIBUR-5"
    # and the hand plays on to a fair end afterwards
    t.pump()
    assert t.records and t.records[-1].verdict.fair


def test_a_claimed_card_that_is_not_there_voids_the_hand_and_names_the_seat() -> None:
    t = table_in_play("briscola", 2)
    host = t.host
    assert host.hand is not None
    mover = host.hand.to_move
    assert mover is not None
    seat = t.seats[mover]
    pos = seat.hand.hand(mover)[0]
    real = seat.hand.card_at(pos)
    known = {seat.hand.card_at(p) for p in range(40)}
    fake = next(c for c in range(40) if c not in known)
    msg = seat._dealer.make_action(Play(pos, fake, "").to_wire() | {"card": fake}, [(pos, fake)])
    t.to_host.clear()
    out = host.receive(mover, msg)
    assert out[0].msg["code"] == "table.bad_proof"
    assert any(o.msg.get("type") == "hand_void" for o in out)
    t.post(out[1:])
    t.pump()
    record = t.records[-1]
    assert record.result.reason == "void"
    assert {(f.seat, f.what) for f in record.verdict.faults} == {(mover, "false_claim")}
    assert real != fake


def test_a_key_released_to_a_partner_is_refused_and_pinned() -> None:
    """Seat 1 hands seat 0's card to seat 2: the public state names seat 0 only."""
    t = table_in_play("burraco", 4)
    host = t.host
    assert host.hand is not None
    pos = host.hand.hands[0][0]       # type: ignore[attr-defined]
    dealer = t.seats[1]._dealer
    msg = signing.sign(dealer._identity, {
        "type": "release", "hand_id": dealer.deal.hand_id, "seat": 1,
        "seq": host.deal.chains[1].next_seq, "prev_hash": host.deal.chains[1].last_hash,
        "positions": [pos], "to": [[2]], "keys": [dealer._secrets.lock_key(pos)]})
    t.to_host.clear()
    out = host.receive(1, msg)
    assert out[0].msg["code"] == "table.not_entitled"
    t.post(out[1:])
    t.pump()
    record = t.records[-1]
    assert record.result.reason == "void"
    assert {(f.seat, f.what) for f in record.verdict.faults} == {(1, "not_entitled")}
    # and an offline auditor of the file agrees
    from p2p_burraco.table.audit import audit_transcript
    assert {(f.seat, f.what) for f in audit_transcript(record.transcript).verdict.faults} == \
        {(1, "not_entitled")}


def test_a_seat_lost_mid_hand_voids_it_and_the_match_goes_on() -> None:
    t = table_in_play("burraco", 4, seed=3)
    t.disconnected.add(2)
    t.post(t.host.seat_lost(2))
    t.pump()
    record = t.records[-1]
    assert record.result.reason == "void" and record.result.points == (0, 0)
    assert {(f.seat, f.what) for f in record.verdict.faults} == {(2, "no_reveal")}
    assert t.host.match.standings()["hands"] == 0
    t.disconnected.clear()                      # the player is back (or a bot sits there)
    nxt = t.play_hand()
    assert nxt.verdict.fair and nxt.result.reason != "void"
    assert nxt.transcript.entries[0]["dealer"] == record.transcript.entries[0]["dealer"]


def test_a_refused_seed_reveal_is_pinned_and_the_hand_scores_nothing() -> None:
    t = InProcessTable(SelfplayConfig(game="briscola", players=2, hands=1, seed=5,
                                      bots=["random"]))
    t.post(t.host.start_hand())
    t.pump(until=lambda: t.host.stage == "reveal")
    t.disconnected.add(1)                      # seat 1 never sends its seed
    t.pump()
    assert t.host.stage == "reveal"
    t.post(t.host.seat_lost(1))
    t.pump()
    record = t.records[-1]
    assert record.result.reason == "void"
    assert {(f.seat, f.what) for f in record.verdict.faults} == {(1, "no_reveal")}


def test_a_restarted_peer_resumes_from_its_seed_and_the_log() -> None:
    t = table_in_play("briscola", 2, seed=7)
    t.pump(until=lambda: t.host.deal is not None and sum(
        1 for e in t.host.deal.log if e.get("type") == "action") >= 3)
    old = t.seats[0]
    t.disconnected.add(0)
    t.to_seats = type(t.to_seats)(o for o in t.to_seats if o.to != 0)
    fresh = SeatClient(0, t.identities[0], old.controller, seed_source=t._seed_for)
    t.seats[0] = fresh
    t.disconnected.clear()
    replies = fresh.receive_all([o.msg for o in t.host.resync(0)])
    t.to_host.extend((0, r) for r in replies)
    t.pump()
    record = t.records[-1]
    assert record.verdict.fair and record.result.reason != "void"


def test_same_seeds_give_the_same_transcripts() -> None:
    def once() -> bytes:
        t = InProcessTable(SelfplayConfig(game="briscola", players=2, hands=1, seed=11))
        return t.play_hand().transcript.to_bytes()
    assert once() == once()


def test_no_hand_and_match_over_refusals() -> None:
    t = InProcessTable(SelfplayConfig(game="briscola", players=2, hands=1, seed=2))
    host = t.host
    assert error_of(host.receive(0, {"type": "reveal"}), 0)["code"] == "table.no_hand"
    while not host.match_over:
        t.play_hand()
    assert error_of(host.receive(0, {"type": "reveal"}), 0)["code"] == "table.match_over"
    with pytest.raises(ValueError):
        host.start_hand()


def test_host_refuses_a_bad_configuration() -> None:
    with pytest.raises(ValueError, match="variant"):
        HostTable("burraco", "nope", 4, [b"\x00" * 32] * 4, match_id=b"\x00" * 16)
    with pytest.raises(ValueError, match="identity keys"):
        HostTable("burraco", None, 4, [b"\x00" * 32] * 3, match_id=b"\x00" * 16)


def test_refusal_leaves_a_deep_copy_equal() -> None:
    """Belt and braces: the whole hand replica is unchanged by a refused action."""
    t = table_in_play("briscola", 2, seed=13)
    host = t.host
    assert host.hand is not None
    mover = host.hand.to_move
    assert mover is not None
    view = copy.deepcopy(host.hand.public_view())
    err = error_of(host.receive(1 - mover, t.seats[1 - mover]._dealer.make_action(
        {"kind": "play", "pos": 0, "card": 0}, [])), 1 - mover)
    assert err["code"] == "table.not_your_turn"
    assert host.hand.public_view() == view


def test_the_seed_is_persisted_before_the_commitment_leaves() -> None:
    t = InProcessTable(SelfplayConfig(game="briscola", players=2, hands=1, seed=17))
    events: list[str] = []
    seat = t.seats[0]
    seat._persist_seed = lambda hand_id, s, seed: events.append(
        f"persist {s} outbox={len(seat.outbox)}")
    hs = t.host.start_hand()[0].msg
    replies = seat.receive(hs)
    assert events == ["persist 0 outbox=0"]
    assert [r["type"] for r in replies] == ["commit"]
    from p2p_burraco.fairdeal.derive import commitment
    assert replies[0]["commitment"] == commitment(hs["hand_id"], 0, t._seed_for(hs["hand_id"], 0))


def test_protocol_id_is_one_string() -> None:
    from p2p_burraco.fairdeal.local import PROTOCOL_ID
    assert PROTOCOL_ID == M.PROTOCOL_ID
