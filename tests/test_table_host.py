"""The host's table (`HostTable`, a sans-IO fold over events) and the seat peer
(`SeatClient`), wired in memory by `InProcessTable` — PROTOCOL.md § 6, § 8.5, § 8.9.

- The host object holds no seed, no seat's key, no lock key it could use alone and no
  hidden card: only its own Ed25519 identity key.
- Every refusal carries a stable code. A statement validly placed in its seat's chain is
  refused by a signed `refusal` log entry (relayed to every seat) that moves the seat's
  chain past it and changes nothing else; any other is refused to the sender alone
  (`logged` false) and changes nothing at all. A message outside any hand gets the plain
  `error` (`table.no_hand`, `table.match_over`).
- A refusal that proves a deviation (a face-up claim that fails, keys released to an
  audience the public state does not name) stops the hand; the audit pins the seat.
- A restarted peer — a new `SeatClient` on the same store, or on a fresh store with the
  same seed source — resumes the hand from its seed and the resynced log.
- Same seeds, same transcripts; the seed is stored before the commitment leaves.

Shared helpers for the other table tests live here too (`make_table`, `Person`, …).
"""

from __future__ import annotations

import copy
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2p_burraco.bots.controller import BotController
from p2p_burraco.fairdeal import signing
from p2p_burraco.fairdeal.derive import commitment
from p2p_burraco.games.base import HandState
from p2p_burraco.games.briscola import Play
from p2p_burraco.games.burraco.actions import Discard
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.table import messages as M
from p2p_burraco.table.audit import audit_transcript
from p2p_burraco.table.events import SeatEvent
from p2p_burraco.table.host import HostTable, MatchConfig, Outgoing, Step
from p2p_burraco.table.inprocess import InProcessTable
from p2p_burraco.table.rules import TableRules
from p2p_burraco.table.seat import SeatClient
from p2p_burraco.table.store import MemorySeatStore


# ---------------------------------------------------------------------- shared helpers
class Person(BotController):
    """A bot that can be made to think like a person: while `hold` is set, or while
    `sleeps(n)` is true for its seat's n-th turn (from 0), the turn waits (`pending`);
    `go()` plays it. A Burraco turn starts at its draw; a Briscola turn is one card."""

    def __init__(self, strategy: Any, game: str,
                 sleeps: Callable[[int], bool] | None = None) -> None:
        super().__init__(strategy)
        self.game = game
        self.sleeps = sleeps or (lambda n: False)
        self.hold = False
        self.turn = -1
        self.asleep = False
        self.pending: tuple[HandState, int, Callable[[Any], None]] | None = None
        self.notes: list[SeatEvent] = []

    def notify(self, event: SeatEvent) -> None:
        self.notes.append(event)
        super().notify(event)

    def your_turn(self, state: HandState, seat: int, submit: Callable[[Any], None]) -> None:
        if self.game == "briscola" or getattr(state, "phase", None) == "draw":
            self.turn += 1
            self.asleep = self.sleeps(self.turn)
        if self.hold or self.asleep:
            self.pending = (state, seat, submit)
            return
        super().your_turn(state, seat, submit)

    def go(self) -> None:
        """Stop holding and play the turn that waits, if any."""
        self.hold = self.asleep = False
        if self.pending is not None:
            state, seat, submit = self.pending
            self.pending = None
            submit(self.strategy.choose(state, seat))


def wire_outbox(t: InProcessTable, seat: int) -> None:
    """Statements a seat signs outside `receive` (a late decision, an abandon) go out."""
    client = t.seats[seat]
    client.on_outbox = lambda: t.to_host.extend((seat, m) for m in client.take_outbox())


def make_table(game: str = "burraco", players: int = 4, seed: int = 1,
               variant: str | None = None, rules: TableRules | None = None,
               audit: bool = True, bots: tuple[str, ...] = ("greedy",),
               sleeps: dict[int, Callable[[int], bool]] | None = None,
               options: dict[str, Any] | None = None) -> InProcessTable:
    """An in-process table whose seats are `Person`s (bots that can be held)."""
    t = InProcessTable(SelfplayConfig(game=game, variant=variant, players=players, hands=1,
                                      seed=seed, bots=list(bots), options=options or {}),
                       audit_at_seats=audit, rules=rules)
    for s, client in enumerate(t.seats):
        person = Person(t.controllers[s].strategy, game, (sleeps or {}).get(s))
        client.controller = t.controllers[s] = person
        wire_outbox(t, s)
    return t


def persons(t: InProcessTable) -> list[Person]:
    return [c for c in t.controllers if isinstance(c, Person)]


def in_play(game: str = "burraco", players: int = 4, seed: int = 1,
            variant: str | None = None, **kw: Any) -> tuple[InProcessTable, int]:
    """A table whose opening deal is done, everything relayed, and whose first player holds
    its first move: (table, that seat)."""
    t = make_table(game, players, seed, variant, **kw)
    for p in persons(t):
        p.hold = True
    t.step({"e": "deal"})
    t.pump()
    replica = t.host.replica
    assert replica is not None and replica.stage == "play"
    mover = replica.hand.to_move
    assert mover is not None and t.controllers[mover].pending is not None  # type: ignore
    assert all(s._ready() for s in t.seats) and not t.to_host and not t.to_seats
    return t, mover


def play_on(t: InProcessTable) -> None:
    """Nobody holds any more: play to the end of the hand."""
    for p in persons(t):
        p.go()
    t.pump()


def actions_in_log(t: InProcessTable) -> int:
    return sum(1 for e in t.host.log if e.get("type") == "action")


def deal_to_first_move(t: InProcessTable) -> tuple[Any, int]:
    """Deal and deliver until the table waits on its first mover: the host's replica and
    that seat."""
    t.step({"e": "deal"})
    t.pump()
    replica = t.host.replica
    assert replica is not None
    mover = replica.hand.to_move
    assert mover is not None
    return replica, mover


def forge(t: InProcessTable, seat: int, mtype: str, **fields: Any) -> dict[str, Any]:
    """A statement signed with `seat`'s key at its next place, WITHOUT the seat's own check
    (an honest seat never signs what its judge refuses: this is a cheater's client)."""
    return signing.sign(t.identities[seat], t.seats[seat]._dealer.unsigned(mtype, **fields))


def send(t: InProcessTable, seat: int, msg: dict[str, Any]) -> Step:
    """One message from `seat` to the host; what the host sends is queued for the seats."""
    return t.step({"e": "msg", "seat": seat, "msg": msg})


def snapshot(host: HostTable) -> dict[str, Any]:
    """Everything a refusal could change, by part."""
    replica = host.replica
    assert replica is not None
    deal = replica.deal
    return {"stage": (host.stage, replica.stage, replica.stop, dict(replica.lost)),
            "hand": copy.deepcopy(replica.hand.public_view()),
            "keys": {p: dict(k) for p, k in enumerate(deal.published) if k},
            "public": dict(deal.public_cards), "sealed": dict(deal.sealed),
            "log": (len(deal.log), deal.head, host.relayed),
            "chains": [(c.next_seq, c.last_hash) for c in deal.chains],
            "timeouts": (list(replica.timeouts), list(replica.auto)),
            "match": host.state.snapshot()}


def walk(obj: Any, seen: set[int] | None = None) -> Iterator[Any]:
    """Everything reachable from an object: attributes, slots, containers, bound methods'
    selves, closures."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (types.ModuleType, type)):
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, (str, bytes, int, float, bool)) or obj is None:
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(k, seen)
            yield from walk(v, seen)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for v in obj:
            yield from walk(v, seen)
    elif isinstance(obj, types.MethodType):
        yield from walk(obj.__self__, seen)
    elif isinstance(obj, types.FunctionType):
        for cell in obj.__closure__ or ():
            yield from walk(cell.cell_contents, seen)
    else:
        if hasattr(obj, "__dict__"):
            yield from walk(vars(obj), seen)
        for name in getattr(type(obj), "__slots__", ()):
            if hasattr(obj, name):
                yield from walk(getattr(obj, name), seen)


# ---------------------------------------------------------------------- no secrets
@pytest.mark.parametrize("game,players,variant", [("burraco", 4, None),
                                                  ("briscola", 4, "carte-scoperte")])
def test_host_holds_no_seed_key_or_hidden_card(game: str, players: int,
                                               variant: str | None) -> None:
    t = make_table(game, players, seed=1, variant=variant)
    t.step({"e": "deal"})
    # play on a little: draws, melds, discards, key releases, sealed envelopes
    t.pump(until=lambda: actions_in_log(t) >= 6)
    host = t.host
    replica = host.replica
    assert replica is not None and replica.stage == "play"
    if variant == "carte-scoperte":
        assert replica.deal.sealed                 # partners' envelopes went through it
    reachable = list(walk(host))
    assert not any(isinstance(o, (SeatClient, MemorySeatStore)) for o in reachable)
    # the one private key it holds is its own identity key
    private = [o for o in reachable if isinstance(o, (Ed25519PrivateKey, X25519PrivateKey))]
    assert private == [host.host_key]
    blobs = {o for o in reachable if isinstance(o, bytes)}
    assert host.host_key.private_bytes_raw() not in blobs
    everyone = frozenset(range(players))
    for s, seat in enumerate(t.seats):
        sec = seat._dealer._secrets
        secret = {sec.seed, sec.shuffle_key, sec.shuffle_key_inverse, sec.x25519_private,
                  t.identities[s].private_bytes_raw(), *sec.lock_factors}
        assert not secret & blobs, f"seat {s}'s secrets reached the host"
        for pos, key in enumerate(sec.lock_keys):
            if key in blobs:          # only keys made public (released, or a proof's)
                assert replica.deal.published[pos].get(s) == key
    hand = replica.hand
    for pos in range(len(hand.deck)):
        # the host knows a card only once everyone may see it (a card taken back into a
        # hand from the discard pile stays known: it was face up)
        if hand.card_at(pos) is not None:
            assert pos in replica.deal.public_cards
        elif hand.audience(pos) != everyone:
            assert replica.deal.missing_keys(pos), f"the host could decode position {pos}"


# ---------------------------------------------------------------------- refusals
def refusal_of(step: Step, seat: int, logged: bool) -> dict[str, Any]:
    """The one refusal a step answers with (to everyone when logged, else to `seat`)."""
    refusals = [o for o in step.out if o.msg.get("type") == "refusal"]
    assert len(refusals) == 1, step.out
    out = refusals[0]
    assert out.to == (None if logged else seat) and out.msg["logged"] is logged
    assert out.msg["code"] in M.ERROR_CODES
    assert (step.journal is not None) is logged     # only a log entry is journaled
    return out.msg


def test_refusals_carry_a_stable_code_and_change_nothing_but_the_seats_chain() -> None:
    t, mover = in_play("burraco", 4, seed=1, audit=False)
    host = t.host
    replica = host.replica
    assert replica is not None
    other = (mover + 1) % 4
    hand = t.seats[mover].hand
    assert hand is not None
    pos = hand.hands[mover][0]                                   # type: ignore[attr-defined]
    card = hand.card_at(pos)
    assert card is not None
    dealer = t.seats[mover]._dealer
    stock = max(range(len(hand.deck)), key=lambda p: p)          # the stock's bottom card

    def discard() -> dict[str, Any]:             # before drawing: FIBUR-5
        return forge(t, mover, "action", action=Discard((pos, card)).to_wire(),
                     **dealer.proofs([(pos, card)]))

    logged: list[tuple[int, Callable[[], dict[str, Any]], str]] = [
        (mover, discard, "table.illegal_action"),
        (other, lambda: forge(t, other, "action", action={"kind": "draw"}, positions=[],
                              cards=[], keys=[]), "table.not_your_turn"),
        (mover, lambda: forge(t, mover, "action", action={"kind": "no such move"},
                              positions=[], cards=[], keys=[]), "table.bad_action"),
        (mover, lambda: forge(t, mover, "commit", commitment=b"\1" * 32,
                              x25519=dealer._secrets.x25519_public), "table.wrong_phase"),
        (mover, lambda: forge(t, mover, "reveal", seed=dealer._secrets.seed),
         "table.wrong_phase"),
        (mover, lambda: forge(t, mover, "action", action=Discard((stock, 0)).to_wire(),
                              positions=[stock], cards=[0],
                              keys=[[dealer._secrets.lock_key(stock)]]),
         "table.unknown_position"),
        (mover, lambda: forge(t, mover, "action", action=Discard((pos, card)).to_wire(),
                              positions=[], cards=[], keys=[]), "table.bad_action"),
        # seat `other` released its key of the mover's card at the deal: not again
        (other, lambda: forge(t, other, "release", positions=[pos], to=[[mover]],
                              keys=[t.seats[other]._dealer._secrets.lock_key(pos)]),
         "table.duplicate_key"),
        (other, lambda: forge(t, other, "release", positions=[stock, stock],
                              to=[[mover], [mover]], keys=[b"\1" * 32, b"\1" * 32]),
         "table.bad_message"),                   # a position named twice
    ]
    for seat, make, code in logged:
        before = snapshot(host)
        msg = make()
        step = send(t, seat, msg)
        refusal = refusal_of(step, seat, logged=True)
        assert refusal["code"] == code, (code, refusal)
        assert refusal["msg"] == msg and refusal["seat"] == seat
        if code == "table.illegal_action":
            assert refusal["rule"] == "FIBUR-5"
        after = snapshot(host)
        for part in ("stage", "hand", "keys", "public", "sealed", "timeouts", "match"):
            assert after[part] == before[part], (code, part)
        # the log took the refusal, and the seat's chain moved past the refused statement
        assert after["log"][0] == before["log"][0] + 1 and host.log[-1] == refusal
        chains = list(before["chains"])
        chains[seat] = (before["chains"][seat][0] + 1, signing.entry_hash(msg))
        assert after["chains"] == chains, code
        t.pump()                                 # every seat takes the refusal as true

    def good() -> dict[str, Any]:
        return forge(t, mover, "action", action={"kind": "draw"}, positions=[], cards=[],
                     keys=[])
    g = good()
    unlogged: list[tuple[int, dict[str, Any], str]] = [
        (mover, {**g, "action": {"kind": "pass"}}, "table.bad_signature"),
        (other, g, "table.wrong_seat"),
        (mover, signing.sign(t.identities[mover], {**g, "seq": 0}), "table.replayed_seq"),
        (mover, signing.sign(t.identities[mover], {**g, "seq": g["seq"] + 1}),
         "table.seq_gap"),
        (mover, signing.sign(t.identities[mover], {**g, "prev_hash": b"\0" * 32}),
         "table.bad_chain"),
        (mover, signing.sign(t.identities[mover], {**g, "hand_id": b"\7" * 16}),
         "table.wrong_hand"),
        (mover, forge(t, mover, "sign_off", transcript_hash=b"\0" * 32,
                      result_hash=b"\0" * 32), "table.wrong_phase"),
    ]
    for seat, msg, code in unlogged:
        before = snapshot(host)
        step = send(t, seat, msg)
        assert refusal_of(step, seat, logged=False)["code"] == code, code
        assert snapshot(host) == before, code
    before = snapshot(host)
    step = send(t, mover, {"type": "hand_end"})          # not a seat's message at all
    assert [o.msg["type"] for o in step.out] == ["error"] and step.journal is None
    assert step.out[0].msg["code"] == "table.wrong_phase" and snapshot(host) == before
    t.pump()
    # no seat found a refusal false, and the hand plays on to a fair end
    assert all(s.halted is None and s._alarm is None for s in t.seats)
    play_on(t)
    record = t.records[-1]
    assert record.outcome.kind == "scored", record.outcome.describe()
    report = audit_transcript(record.transcript)
    assert report.verdict.fair and report.signed == [0, 1, 2, 3]
    refused = [e for e in record.transcript.entries if e.get("type") == "refusal"]
    assert [e["code"] for e in refused] == [code for _, _, code in logged]


def test_a_failed_face_up_claim_stops_the_hand_and_the_audit_pins_the_seat() -> None:
    """TABLE-7: a proof that fails (`table.bad_proof`) proves the seat deviated."""
    t, mover = in_play("briscola", 2, seed=3)
    seat = t.seats[mover]
    hand = seat.hand
    assert hand is not None
    pos = hand.hand(mover)[0]                                    # type: ignore[attr-defined]
    known = {hand.card_at(p) for p in range(40)}
    fake = next(c for c in range(40) if c not in known)
    msg = forge(t, mover, "action", action=Play(pos, fake).to_wire(),
                **seat._dealer.proofs([(pos, fake)]))
    step = send(t, mover, msg)
    assert refusal_of(step, mover, logged=True)["code"] == "table.bad_proof"
    assert t.host.replica is not None and t.host.replica.stop is not None
    play_on(t)
    record = t.records[-1]
    outcome = record.outcome
    assert (outcome.kind, outcome.seat, outcome.cause) == ("forfeit", mover, "cheat")
    assert "false_claim" in outcome.detail and t.host.match_over
    assert record.result.points == (0, 0)
    assert {(f.seat, f.what) for f in audit_transcript(record.transcript).verdict.faults} \
        == {(mover, "false_claim")}


def test_a_key_released_to_a_partner_is_refused_and_pinned() -> None:
    """TABLE-7: seat 1 hands seat 0's card to seat 2; the public state names seat 0 only."""
    t, _ = in_play("burraco", 4, seed=2, audit=False)
    replica = t.host.replica
    assert replica is not None
    pos = replica.hand.hands[0][0]                               # type: ignore[attr-defined]
    assert 1 in replica.deal.published[pos]           # released to seat 0 at the deal
    msg = forge(t, 1, "release", positions=[pos], to=[[2]],
                keys=[t.seats[1]._dealer._secrets.lock_key(pos)])
    step = send(t, 1, msg)
    assert refusal_of(step, 1, logged=True)["code"] == "table.not_entitled"
    play_on(t)
    record = t.records[-1]
    assert (record.outcome.kind, record.outcome.seat, record.outcome.cause) == \
        ("forfeit", 1, "cheat")
    faults = {(f.seat, f.what) for f in audit_transcript(record.transcript).verdict.faults}
    assert faults == {(1, "not_entitled")}


def test_no_hand_and_match_over_are_plain_errors() -> None:
    t = make_table("briscola", 2, seed=2)
    host = t.host

    def error(seat: int, msg: dict[str, Any]) -> str:
        step = host.apply({"e": "msg", "t": 0, "seat": seat, "msg": msg})
        assert len(step.out) == 1 and step.out[0].to == seat and step.journal is None
        err = step.out[0].msg
        assert err["type"] == "error" and err["code"] in M.ERROR_CODES
        return str(err["code"])
    assert error(0, {"type": "reveal"}) == "table.no_hand"
    assert host.resync(0) == []
    record = t.play_hand()
    assert host.match_over and host.end_reason == "target"
    assert error(0, {"type": "reveal"}) == "table.match_over"
    assert error(1, {"type": "commit"}) == "table.match_over"
    # no more hands: a deal event changes nothing and is not journaled
    assert not host.can_deal()
    step = host.apply({"e": "deal", "t": 1})
    assert step.journal is None and step.record is None
    assert not any(o.msg["type"] == "hand_start" for o in step.out)
    # a late peer still gets the whole last hand on resync, hand_end included
    assert [o.msg for o in host.resync(1)] == [*record.transcript.entries,
                                               record.transcript.hand_end]
    with pytest.raises(ValueError):
        host.apply({"e": "no such event", "t": 2})


def test_host_refuses_a_bad_configuration() -> None:
    keys = [bytes([i]) * 32 for i in range(4)]
    names = [f"p{i}" for i in range(4)]
    host_key = Ed25519PrivateKey.generate()
    ok = MatchConfig("burraco", "fibur", 4, 0, b"\0" * 16, keys, names)
    HostTable(ok, host_key)
    assert MatchConfig.from_wire(ok.to_wire()) == ok
    with pytest.raises(ValueError, match="variant"):
        HostTable(MatchConfig("burraco", "nope", 4, 0, b"\0" * 16, keys, names), host_key)
    with pytest.raises(ValueError, match="keys"):
        HostTable(MatchConfig("burraco", "fibur", 4, 0, b"\0" * 16, keys[:3], names),
                  host_key)
    with pytest.raises(ValueError, match="match_id"):
        HostTable(MatchConfig("burraco", "fibur", 4, 0, b"\0" * 8, keys, names), host_key)


# ---------------------------------------------------------------------- restarted peers
def restart_seat(t: InProcessTable, seat: int, store: Any) -> SeatClient:
    """A new SeatClient for `seat` (a restarted peer) on `store`, with the same key, seed
    source and controller; it replaces the old one in the table."""
    old = t.seats[seat]
    fresh = SeatClient(seat, t.identities[seat], old.controller, seed_source=t._seed_for,
                       store=store, host_key=signing.public_key_bytes(t.host_key),
                       fallback=old.fallback, audit=old.audit)
    t.seats[seat] = fresh
    t.stores[seat] = store
    wire_outbox(t, seat)
    return fresh


def reconnect(t: InProcessTable, seat: int) -> dict[str, Any] | None:
    """What a peer does when it is back (PROTOCOL.md § 7): `resync`, feed the whole answer
    in, then re-send its unacknowledged statement unless it was just sent. Returns what was
    re-sent."""
    t.disconnected.discard(seat)
    t.post(t.host.set_connected(seat, True, t.now))
    client = t.seats[seat]
    step = t.host.apply({"e": "msg", "t": t.now, "seat": seat,
                         "msg": {"type": "resync", "hand_id": t.host.hand_id}})
    assert step.journal is None and all(o.to == seat for o in step.out)
    replies = client.receive_all([o.msg for o in step.out])
    t.to_host.extend((seat, r) for r in replies)
    inflight = client.unacknowledged()
    if inflight is not None and not any(r is inflight for r in replies):
        t.to_host.append((seat, inflight))
        return inflight
    return None


@pytest.mark.parametrize("same_store", [True, False])
def test_a_restarted_peer_resumes_from_its_seed_and_the_log(same_store: bool) -> None:
    """A peer killed mid-hand comes back with the same store (it kept its files) or with a
    fresh one but the same seed source (seeds derive from the hand id here): it rebuilds
    the hand from the resynced log and plays on; the hand ends fair."""
    t = make_table("briscola", 2, seed=7)
    t.step({"e": "deal"})
    t.pump(until=lambda: actions_in_log(t) >= 3)
    old = t.seats[0]
    t.disconnected.add(0)
    t.post(t.host.set_connected(0, False, t.now))
    t.to_seats = type(t.to_seats)(o for o in t.to_seats if o.to != 0)
    store = t.stores[0] if same_store else MemorySeatStore()
    fresh = restart_seat(t, 0, store)
    t.pump()                                    # seat 1 goes on as far as it can alone
    reconnect(t, 0)
    t.pump()
    record = t.records[-1]
    assert record.outcome.kind == "scored", record.outcome.describe()
    assert audit_transcript(record.transcript).verdict.fair
    assert fresh.replica is not None and fresh.replica.deal.head == t.host.replica.deal.head
    assert fresh._dealer._secrets.seed == old._dealer._secrets.seed
    # never two statements for one seq: what it signed before its crash is what is logged
    mine = {(e["seq"]): e for e in record.transcript.entries if e.get("seat") == 0
            and e.get("type") in M.SEAT_AUTHORED}
    for seq, msg in t.stores[0].signed.get(record.transcript.entries[0]["hand_id"],
                                           {}).items():
        if seq in mine:
            assert mine[seq] == msg


# ---------------------------------------------------------------------- determinism
def test_same_seeds_give_the_same_transcripts() -> None:
    def once() -> tuple[bytes, list[dict[str, Any]]]:
        t = InProcessTable(SelfplayConfig(game="briscola", players=2, hands=1, seed=11))
        return t.play_hand().transcript.to_bytes(), t.journal
    a, b = once(), once()
    assert a == b


class SpyStore(MemorySeatStore):
    """Notes, at each durable write, how many messages the seat had already sent."""

    def __init__(self) -> None:
        super().__init__()
        self.seat: SeatClient | None = None
        self.events: list[str] = []

    def save_seed(self, hand_id: bytes, seed: bytes, hand_start_hash: bytes) -> None:
        assert self.seat is not None
        self.events.append(f"seed outbox={len(self.seat.outbox)}")
        super().save_seed(hand_id, seed, hand_start_hash)

    def save_statement(self, msg: Any) -> None:
        assert self.seat is not None
        self.events.append(f"{msg['type']} outbox={len(self.seat.outbox)}")
        super().save_statement(msg)


def test_the_seed_is_persisted_before_the_commitment_leaves() -> None:
    t = make_table("briscola", 2, seed=17)
    store = SpyStore()
    seat = restart_seat(t, 0, store)
    store.seat = seat
    hs = t.host.apply({"e": "deal", "t": 0}).out[0].msg
    replies = seat.receive(hs)
    assert store.events == ["seed outbox=0", "commit outbox=0"]
    assert [r["type"] for r in replies] == ["commit"]
    assert replies[0]["commitment"] == commitment(hs["hand_id"], 0,
                                                  t._seed_for(hs["hand_id"], 0))
    assert store.hand_seed(hs["hand_id"]) == (t._seed_for(hs["hand_id"], 0),
                                             signing.entry_hash(hs))


def test_protocol_id_is_one_string() -> None:
    from p2p_burraco.fairdeal.local import PROTOCOL_ID
    assert PROTOCOL_ID == M.PROTOCOL_ID == "p2p-burraco/fairdeal/v3"


def test_outgoing_is_for_one_seat_or_everyone() -> None:
    assert Outgoing(None, {"type": "x"}).to is None and Outgoing(1, {}).to == 1
