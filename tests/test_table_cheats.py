"""The threat model of PROTOCOL.md § 9, attack by attack: a malicious host and malicious seats
against honest peers, each test asserting who is blamed (party and seat) and that no honest
peer learned a card it was never entitled to.

The doubles are built on the sans-IO table, so a test decides exactly what each node sees:

- `HostileTable` is an `InProcessTable` whose host is malicious. It runs the honest
  `HostTable` logic (the truth the record will hold) but every frame on its way to a seat
  goes through `tamper(seat, frame) -> frames` (drop it, duplicate it, hold it back, replay
  an old one, forge one), every seat message on its way in through `grab(seat, msg)` (the
  double answers it itself), and `say(...)` signs a host statement the judge never saw into
  the host's log and relays it (a false refusal, a false timeout), `log_forged(...)` appends
  a seat statement nobody signed. It also records the truth an honest peer is measured
  against: the positions each seat was ever entitled to, the keys that ever left a seat in
  the clear while the hand was on, and every statement each seat ever tried to store — i.e.
  sign and send — by (hand id, seq).
- `CheatingSeat` is a `SeatClient` whose `cheat(seat)` may sign another statement than the
  one due, skipping its own judge, and whose `withhold(seat)` may keep a due step back.

Guarantees, and the rules they enforce: a proven fault forfeits the match and never voids
(TABLE-7); only a hand nobody is at fault for is void, at most 3 per match (TABLE-8); a false
host statement or another history shown to a seat ends the match for the honest peers
(TABLE-10); a withheld step is a stall (TABLE-5, TABLE-7; TABLE-11 counts refusals); a
Briscola forfeit scores like an abandonment (BRISCOLA-24).

Attacks that used to succeed, fixed in `table/seat.py` and `table/audit.py`: a forged relay
(an `abandon` of the opponent shown to one seat) was applied, so the seat revealed its seed
mid-hand or stalled and forfeited; one dropped frame made a seat raise a `bad_relay` alarm
the host's record did not bear out, a false alarm that forfeited the honest seat; a seat
that caught a host lie still revealed its seed on the strength of it; a hand_end on another
history or result was only a notice; a refused `not_entitled` release voided the hand (a
loser erased a lost hand); a host that let a low-order key through went unblamed. What a
host can still do is in § 9 ("What is not guaranteed") and in the property test below.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_burraco.bots import make_strategy
from p2p_burraco.bots.controller import BotController
from p2p_burraco.fairdeal import envelope, signing
from p2p_burraco.fairdeal.deal import PublicDeal, x25519_key_error
from p2p_burraco.fairdeal.derive import commitment
from p2p_burraco.games.burraco.actions import Discard
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.table.audit import HandAudit, audit_hand, audit_transcript
from p2p_burraco.table.host import HandRecord, Step
from p2p_burraco.table.inprocess import InProcessTable
from p2p_burraco.table.replica import TableError
from p2p_burraco.table.rules import TableRules
from p2p_burraco.table.seat import SeatClient
from p2p_burraco.table.store import MemorySeatStore, StoreError

Frame = dict[str, Any]
STEP_MS = 30_000
LOW_ORDER_X25519 = [bytes.fromhex(h) for h in (
    "00" * 32, "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")]


# --------------------------------------------------------------------------- the doubles

class HostileTable(InProcessTable):
    """The malicious host double (see the module docstring)."""

    def __init__(self, cfg: SelfplayConfig, rules: TableRules | None = None,
                 audit_at_seats: bool = True) -> None:
        super().__init__(cfg, audit_at_seats=audit_at_seats,
                         rules=rules or TableRules(turn_ms=None, step_ms=STEP_MS,
                                                   grace_ms=60_000))
        self.tamper: Callable[[int, Frame], list[Frame]] | None = None
        self.grab: Callable[[int, Frame], bool] | None = None
        self.entitled: dict[tuple[bytes, int], set[int]] = {}
        self.public: dict[bytes, set[int]] = {}
        self.exposed: dict[tuple[bytes, int], set[int]] = {}   # (hand, pos) → seats' keys out
        self.early_seeds: list[tuple[int, bytes]] = []         # seeds out while the hand is on
        self.signed: dict[tuple[bytes, int, int], set[bytes]] = {}
        self.saved: list[list[Frame]] = [[] for _ in self.seats]
        for s, store in enumerate(self.stores):
            self._watch(s, store)

    def _watch(self, s: int, store: MemorySeatStore) -> None:
        inner = store.save_statement

        def save_statement(msg: Mapping[str, Any]) -> None:
            self._sent(s, msg)
            inner(msg)
        store.save_statement = save_statement      # type: ignore[method-assign]

    def _sent(self, s: int, msg: Mapping[str, Any]) -> None:
        """A statement seat `s` signed and is about to send: by seq, and what it exposes."""
        hid = bytes(msg["hand_id"])
        self.saved[s].append(dict(msg))
        self.signed.setdefault((hid, s, int(msg["seq"])), set()).add(signing.entry_hash(msg))
        r = self.host.replica
        if r is None or r.hand_id != hid or r.deal.phase in ("reveal", "closed"):
            return                                  # after the hand: seeds are due anyway
        t = msg.get("type")
        if t == "reveal":
            self.early_seeds.append((s, hid))
            return
        if t == "release":
            positions = list(msg.get("positions") or [])
        elif t == "action":
            try:                # a legal move shows its cards: the rules make them public
                r.check_content(s, msg)
                return
            except TableError:
                positions = list(msg.get("positions") or [])
        else:
            return
        for p in positions:       # an action's proof shows every lock of its cards
            self.exposed.setdefault((hid, p), set()).update(
                range(r.n_seats) if t == "action" else (s,))

    def note(self) -> None:
        """Record what the true log entitles each seat to know now."""
        r = self.host.replica
        if r is None:
            return
        everyone = r.everyone
        for p, aud in enumerate(r.audience_all()):
            for s in aud:
                self.entitled.setdefault((r.hand_id, s), set()).add(p)
            if aud == everyone:
                self.public.setdefault(r.hand_id, set()).add(p)

    def step(self, event: dict[str, Any]) -> Step:
        out = super().step(event)
        self.note()
        return out

    def _logged(self) -> None:
        """The host's log grew behind the judge's back: relay it as the host would."""
        step = Step()
        self.host._after_log_change(step)
        self.host._track_clocks()
        if step.record is not None:
            self.records.append(step.record)
        self.to_seats.extend(step.out)
        self.note()

    def say(self, mtype: str, **fields: Any) -> dict[str, Any]:
        """A host statement signed for the next place of the log, judged by nobody."""
        r = self.host.replica
        assert r is not None
        entry = r.deal.host_statement(self.host_key, mtype, **fields)
        r.apply_host(entry)
        self._logged()
        return entry

    def log_forged(self, msg: Mapping[str, Any]) -> None:
        """A seat statement appended to the host's log without any check (a forgery)."""
        r = self.host.replica
        assert r is not None
        r.apply(msg)
        self._logged()

    def lost_on_the_way(self, seat: int, msg: Mapping[str, Any]) -> bool:
        return super().lost_on_the_way(seat, msg) or \
            (self.grab is not None and self.grab(seat, msg))

    def deliver(self, s: int, frame: Mapping[str, Any]) -> None:
        for f in [frame] if self.tamper is None else self.tamper(s, frame):
            super().deliver(s, f)

    def settle(self, rounds: int = 8) -> None:
        """Pump, then let the host's clocks run (timeouts) until the hand closes."""
        before = len(self.records)
        self.pump()
        for _ in range(rounds):
            if len(self.records) > before:
                return
            self.advance(STEP_MS + 1)
            self.pump()

    def log(self) -> list[Mapping[str, Any]]:
        assert self.host.replica is not None
        return self.host.replica.deal.log


class CheatingSeat(SeatClient):
    """A seat that signs `cheat(self)` instead of its due statement when that is not None
    (skipping its own judge), and keeps back what `withhold(self)` says."""

    def __init__(self, *args: Any, cheat: Callable[[CheatingSeat], Frame | None] | None = None,
                 withhold: Callable[[CheatingSeat], bool] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.cheat = cheat
        self.withhold = withhold
        self.cheated: list[Frame] = []

    def _next_message(self) -> dict[str, Any] | None:
        if self.replica is not None and self._dealer is not None and not self._signed_off \
                and self._replay_saved() is None:
            if self.withhold is not None and self.withhold(self):
                return None
            if self.cheat is not None:
                msg = self.cheat(self)
                if msg is not None:
                    self.cheated.append(msg)
                    return msg
        return super()._next_message()

    def sign(self, mtype: str, **fields: Any) -> dict[str, Any]:
        """A statement at this seat's next seq, signed without asking its own judge."""
        dealer = self._dealer
        assert dealer is not None
        judge, dealer.before_sign = dealer.before_sign, None
        try:
            return dealer._sign(mtype, **fields)
        finally:
            dealer.before_sign = judge

    @property
    def secrets(self) -> Any:
        assert self._dealer is not None
        return self._dealer._secrets


def cheater(t: HostileTable, s: int, **kw: Any) -> CheatingSeat:
    """Put a CheatingSeat at seat `s` (same identity, seeds, store and bot)."""
    old = t.seats[s]
    new = CheatingSeat(s, t.identities[s], old.controller, seed_source=t._seed_for,
                       store=t.stores[s], host_key=old.host_key, fallback=old.fallback,
                       audit=old.audit, **kw)
    t.seats[s] = new
    return new


def briscola(seed: int, players: int = 2, variant: str | None = None, hands: int = 1,
             rules: TableRules | None = None) -> HostileTable:
    return HostileTable(SelfplayConfig(game="briscola", variant=variant, players=players,
                                       hands=1, seed=seed, bots=["random"],
                                       options={"hands": hands} if hands > 1 else {}),
                        rules=rules)


def actions(t: HostileTable) -> int:
    return sum(1 for e in t.log() if e.get("type") == "action")


def in_play(t: HostileTable, n_actions: int = 0) -> None:
    """Deal, and run until every seat knows its cards and `n_actions` moves are logged."""
    t.step({"e": "deal"})
    t.pump(until=lambda: t.host.replica is not None and t.host.replica.stage == "play"
           and actions(t) >= n_actions and all(s._ready() for s in t.seats))
    assert t.host.replica is not None and t.host.replica.stage == "play"


def idle_seat(t: HostileTable) -> int:
    """A seat that owes nothing now, by the true log."""
    r = t.host.replica
    assert r is not None
    return next(s for s in range(r.n_seats) if r.due(s) is None)


# --------------------------------------------------------------------------- the checks

def assert_learned_nothing(t: HostileTable, honest: list[int] | range | None = None,
                           seeds: bool = True) -> None:
    """No honest peer decoded a position it was never entitled to, by the true log; no
    hidden position ever had every lock key out in the clear while the hand was on; and
    (`seeds`) no honest seat revealed its seed while the true hand was still on."""
    for s in range(len(t.seats)) if honest is None else honest:
        seat = t.seats[s]
        if seat.replica is None:
            continue
        hid = seat.replica.hand_id
        entitled = t.entitled.get((hid, s), set())
        hand = seat.replica.hand
        stray = [p for p in range(len(hand.deck)) if p not in entitled
                 and hand.card_at(p) is not None]
        assert not stray, f"seat {s} knows positions {stray} it was never entitled to"
        assert seat._dealer is not None
        assert set(seat._dealer.known) <= entitled, f"seat {s} decoded a card not its own"
        if seeds:
            assert not [h for who, h in t.early_seeds if who == s], \
                f"seat {s} revealed its seed while the hand was on"
    n = len(t.seats)
    for (hid, pos), seats in t.exposed.items():
        if len(seats) == n:
            assert pos in t.public.get(hid, set()), \
                f"position {pos}'s locks all went out in the clear; it never was public"


def assert_one_statement_per_seq(t: HostileTable) -> None:
    doubles = {k: v for k, v in t.signed.items() if len(v) > 1}
    assert not doubles, f"two statements signed for one (hand, seat, seq): {list(doubles)}"


def blamed(audit: HandAudit) -> set[tuple[str, int | None, str]]:
    return {(f.party, f.seat, f.what) for f in audit.verdict.faults}


def seats_blamed(audit: HandAudit) -> set[int | None]:
    return {f.seat for f in audit.verdict.faults if f.party == "seat"}


def last(t: HostileTable) -> HandRecord:
    assert t.records, f"no hand closed (host stage {t.host.stage})"
    return t.records[-1]


def evidence_of(seat: SeatClient, mtype: str) -> list[Frame]:
    return [e["statement"] for e in seat.evidence if e["statement"].get("type") == mtype]


def events(seat: SeatClient) -> list[str]:
    return [e.text for e in getattr(seat.controller, "events", [])]


# --------------------------------------------------------------------------- replayed hands

def test_host_replaying_an_old_hand_learns_nothing() -> None:
    """A host replays a hand the seat closed before its last one: the hand_start is refused
    (its hand_no is not above the last closed hand, its seed is spent), the seat halts
    naming the host, commits nothing and never touches the seed it revealed — live, after a
    restart, and in the middle of the next hand. The last closed hand shown again is a
    resync: the seat sends nothing it has not sent already. Each new hand gets a fresh seed.
    """
    t = briscola(seed=2, hands=3)
    first = t.play_hand()
    second = t.play_hand()
    assert first.outcome.kind == second.outcome.kind == "scored"
    old, last_closed = first.transcript.entries[0], second.transcript.entries[0]
    hid = bytes(old["hand_id"])
    seeds = [t.stores[s].hand_seed(hid) for s in (0, 1)]
    fresh = [t.stores[s].hand_seed(bytes(last_closed["hand_id"])) for s in (0, 1)]
    for s in (0, 1):
        was, now = seeds[s], fresh[s]
        assert t.stores[s].is_spent(hid) and was is not None and now is not None
        assert now[0] != was[0]                             # a fresh seed for every hand
    # the last closed hand again (a resync, say): nothing new leaves the seat
    saved = [dict(m) for m in t.saved[0]]
    assert t.seats[0].receive(last_closed) == [] and not t.seats[0].halted
    restarted = SeatClient(0, t.identities[0], BotController(make_strategy(
        "briscola", "random", random.Random(5))), seed_source=lambda h, s: b"\x07" * 32,
        store=t.stores[0], host_key=t.seats[0].host_key)
    for m in restarted.receive(last_closed):
        assert m in saved                                   # copies of what it signed
    # an older hand: refused, live and after a restart, and nothing is signed
    n = len(t.saved[0])
    assert t.seats[0].receive(old) == []
    assert t.seats[0].halted and "replayed" in t.seats[0].halted
    assert evidence_of(t.seats[0], "hand_start") == [old]
    assert any("host is at fault" in e for e in events(t.seats[0]))
    assert any(name.startswith("evidence") for _, name in t.stores[0].records)
    again = SeatClient(0, t.identities[0], t.seats[0].controller, seed_source=t._seed_for,
                       store=t.stores[0], host_key=t.seats[0].host_key)
    assert again.receive(old) == [] and again.halted
    assert len(t.saved[0]) == n and t.stores[0].hand_seed(hid) == seeds[0]
    # in the middle of the next hand
    t.step({"e": "deal"})
    t.pump(until=lambda: t.seats[1].unacknowledged() is not None
           and t.seats[1].unacknowledged()["hand_id"] != last_closed["hand_id"])
    commit = t.seats[1].unacknowledged()
    assert commit is not None and commit["type"] == "commit"
    assert seeds[1] is not None and commit["commitment"] != commitment(hid, 1, seeds[1][0])
    n = len(t.saved[1])
    assert t.seats[1].receive(old) == [] and t.seats[1].halted
    assert len(t.saved[1]) == n and t.stores[1].hand_seed(hid) == seeds[1]
    assert_one_statement_per_seq(t)


def test_host_reusing_a_hand_id_with_other_fields_is_refused() -> None:
    """A second, different hand_start for a hand id the seat committed to (here: other names,
    other rules — the id does not cover them) is refused: no second seed, no second
    commitment; the seat halts naming the host, live and after a restart alike."""
    t = briscola(seed=3)
    t.step({"e": "deal"})
    hs = next(o.msg for o in t.to_seats if o.msg.get("type") == "hand_start")
    t.pump(until=lambda: all(s.unacknowledged() is not None for s in t.seats))
    hid = bytes(hs["hand_id"])
    kept = t.stores[0].hand_seed(hid)
    assert kept is not None and kept[1] == signing.entry_hash(hs)
    body = {k: v for k, v in hs.items() if k != "sig"}
    other = signing.sign(t.host_key, {**body, "names": ["mallory", "bot 1"],
                                      "clock": {**hs["clock"], "max_refusals": 1000}})
    assert other["hand_id"] == hid and signing.entry_hash(other) != signing.entry_hash(hs)
    saved = len(t.saved[0])
    assert t.seats[0].receive(other) == []
    assert t.seats[0].halted and len(t.saved[0]) == saved
    assert t.stores[0].hand_seed(hid) == kept
    assert evidence_of(t.seats[0], "hand_start") == [other]
    restarted = SeatClient(0, t.identities[0], t.seats[0].controller,
                           seed_source=lambda h, s: b"\x07" * 32, store=t.stores[0],
                           host_key=t.seats[0].host_key)
    assert restarted.receive(other) == [] and restarted.halted
    with pytest.raises(StoreError):                     # the store holds the line too
        t.stores[0].save_seed(hid, b"\x07" * 32, signing.entry_hash(other))
    assert t.stores[0].hand_seed(hid) == kept
    assert_one_statement_per_seq(t)


# --------------------------------------------------------------------------- one seq, one statement

def test_a_seat_never_signs_two_statements_for_one_seq() -> None:
    """Every statement is stored before it leaves and the store refuses a second one for a
    seq; a seat restarted with its action lost in flight sends that same action again, never
    asking its (now different) bot; a host that answers the action in flight with a made-up
    unlogged refusal gets no other move for that seq: the seat stops."""
    t = briscola(seed=7)
    in_play(t)
    mover = t.host.replica.hand.to_move          # type: ignore[union-attr]
    assert mover is not None
    lost: list[Frame] = []

    def lose(s: int, m: Frame) -> bool:         # the socket dies with the action on it
        if s == mover and m["type"] == "action" and not lost:
            lost.append(m)
            return True
        return False
    t.grab = lose
    t.pump(until=lambda: bool(lost))
    t.grab = None
    action = lost[0]
    assert t.seats[mover].unacknowledged() == action
    spare = MemorySeatStore()
    spare.save_statement(action)
    other = signing.sign(t.identities[mover], {**action, "action": {"kind": "pass"}})
    with pytest.raises(StoreError):              # the store refuses a second one…
        spare.save_statement(other)
    spare.save_statement(action)                 # …and takes the same one again
    store = t.stores[mover]
    # the peer restarts with another bot: the saved action goes out again, unchanged
    asked: list[int] = []
    bot = BotController(make_strategy("briscola", "random", random.Random(99)))
    bot.your_turn = lambda *a: asked.append(1)   # type: ignore[method-assign]
    fresh = SeatClient(mover, t.identities[mover], bot, seed_source=t._seed_for, store=store,
                       host_key=t.seats[mover].host_key)
    t.seats[mover] = fresh
    replies = fresh.receive_all([o.msg for o in t.host.resync(mover)])
    assert replies == [action] and asked == []
    # the host answers it with an unlogged refusal it made up: no second move for that seq
    r = t.host.replica
    assert r is not None
    fake = r.deal.host_statement(t.host_key, "refusal", seat=mover, code="table.bad_chain",
                                 message="prev_hash does not chain", rule=None,
                                 msg=dict(action), logged=False)
    assert fresh.receive(fake) == []
    assert fresh.halted and "without logging it" in fresh.halted
    assert [m for m in t.saved[mover] if m["seq"] == action["seq"]] == [action, action]
    assert_one_statement_per_seq(t)
    assert_learned_nothing(t)


# --------------------------------------------------------------------------- false refusals

class Counting:
    """Wraps a controller; counts how often the seat asked it for a move."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.asked = 0
        self.events = inner.events

    def your_turn(self, state: Any, seat: int, submit: Any) -> None:
        self.asked += 1
        self.inner.your_turn(state, seat, submit)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def refuse_first_action(t: HostileTable, code: str, rule: str | None = None
                        ) -> list[Frame]:
    """The host answers the next action (a sound one) with a signed, logged refusal."""
    refused: list[Frame] = []

    def grab(seat: int, msg: Frame) -> bool:
        if refused or msg.get("type") != "action":
            return False
        r = t.host.replica
        assert r is not None
        r.check(seat, msg)                              # the judge accepts it
        refused.append(t.say("refusal", seat=seat, code=code, message="refused", rule=rule,
                             msg=dict(msg), logged=True))
        return True
    t.grab = grab
    return refused


def test_false_refusal_is_disputed_not_retried() -> None:
    """The host refuses a legal move: the bot is not asked for another card; the seat's
    alarm names the host's entry; the audit makes it the host's fault (TABLE-10) and every
    honest peer stops."""
    t = briscola(seed=11)
    counting = [Counting(s.controller) for s in t.seats]
    for s, c in zip(t.seats, counting):
        s.controller = c
    in_play(t, 2)
    refused = refuse_first_action(t, "table.illegal_action", "BRISCOLA-13")
    t.pump(until=lambda: bool(refused))
    entry = refused[0]
    victim = int(entry["seat"])
    asked = counting[victim].asked
    t.settle()
    mine = t.saved[victim]
    at = next(i for i, m in enumerate(mine) if m == entry["msg"])
    after = mine[at + 1:]
    assert [m["type"] for m in after] == ["alarm"]             # then nothing: no other card
    assert after[0]["what"] == "bad_host_statement" and after[0]["ref"] == entry["at"]
    assert counting[victim].asked == asked
    record = last(t)
    assert record.outcome.kind == "host_fault"
    audit = audit_transcript(record.transcript)
    assert ("host", None, "false_refusal") in blamed(audit) and not seats_blamed(audit)
    for seat in t.seats:             # both saw the lie: each disputes it and stops
        assert seat.halted and "refused seat" in seat.halted
        assert any(e["statement"] == entry for e in seat.evidence)
    assert_learned_nothing(t)
    assert_one_statement_per_seq(t)


class Person:
    """A person at the console: slips first (the controller's submit refuses it locally),
    then plays the bot's move; keeps the first turn's submit to use it too late."""

    def __init__(self, inner: Any, slip: Callable[[Any, int], Any]) -> None:
        self.inner = inner
        self.slip = slip
        self.events = inner.events
        self.rejections: list[str] = []
        self.first_submit: Any = None

    def your_turn(self, state: Any, seat: int, submit: Any) -> None:
        if self.first_submit is None:
            self.first_submit = submit
            submit(self.slip(state, seat))
        self.inner.your_turn(state, seat, submit)

    def rejected(self, state: Any, seat: int, error: str) -> None:
        self.rejections.append(error)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_persons_slip_never_reaches_the_host() -> None:
    """A discard before drawing (FIBUR-5) typed at the console is refused by the seat's own
    judge: nothing is signed or sent, no seq is spent, the host never refuses anything; a
    decision submitted after its turn is over is refused locally too."""
    t = HostileTable(SelfplayConfig(game="burraco", players=2, hands=1, seed=5,
                                    bots=["random"]), audit_at_seats=False)

    def slip(state: Any, s: int) -> Any:
        pos = state.hands[s][0]
        return Discard((pos, state.card_at(pos)))
    people = [Person(seat.controller, slip) for seat in t.seats]
    for seat, person in zip(t.seats, people):
        seat.controller = person
    t.step({"e": "deal"})
    t.pump(until=lambda: actions(t) >= 4)
    for s, person in enumerate(people):
        assert person.rejections and "FIBUR-5" in person.rejections[0]
        sent = t.saved[s]
        assert [m["seq"] for m in sent] == list(range(len(sent)))   # no seq spent on it
        assert not any(m["type"] == "action" and m["action"]["kind"] == "discard"
                       and m["seq"] == min(x["seq"] for x in sent if x["type"] == "action")
                       for m in sent)
    assert not any(e.get("type") == "refusal" for e in t.log())
    mover = t.host.replica.hand.to_move             # type: ignore[union-attr]
    other = 1 - mover if mover is not None else 0
    n = len(t.saved[other])
    people[other].first_submit(slip(t.seats[other].hand, other))   # that turn is over
    assert people[other].rejections[-1].startswith("too late")
    assert len(t.saved[other]) == n and not t.seats[other].outbox


def test_false_refusal_is_the_hosts_fault_in_the_audit() -> None:
    """A refusal claiming a deviation (`table.bad_proof`, which stops the hand and names the
    seat) of a sound face-up proof: the live judge of every peer, the host's own audit and an
    offline audit of the file all make it the host's signed lie; the seat it names is
    blamed by nobody."""
    t = briscola(seed=12)
    in_play(t, 1)
    refused = refuse_first_action(t, "table.bad_proof")
    t.settle()
    entry = refused[0]
    victim = int(entry["seat"])
    record = last(t)
    assert record.outcome.kind == "host_fault" and record.outcome.seat is None
    for audit in (audit_transcript(record.transcript),
                  audit_hand(record.transcript.entries)):
        faults = {(f.party, f.seat, f.what, f.where) for f in audit.verdict.faults}
        assert ("host", None, "false_refusal", entry["at"]) in faults
        assert not seats_blamed(audit)
        assert audit.outcome is not None and audit.outcome.kind == "host_fault"
    for seat in t.seats:
        assert seat.halted and "host" in seat.halted
        assert any(e["statement"] == entry for e in seat.evidence)
    assert t.host.state.end is not None and t.host.state.end["reason"] == "host_fault"
    assert t.host.state.match.standings().get("forfeit_by") is None
    named = t.host.replica.stop if t.host.replica is not None else None
    assert named is not None and (named.kind, named.seat) == ("refusal", victim)
    assert_learned_nothing(t)


# --------------------------------------------------------------------------- forged relays

def test_forged_relay_is_caught_live() -> None:
    """The host relays statements their seats never signed — an `abandon` of the opponent
    (which would have the seat reveal its seed mid-hand), a tampered copy of a real action.
    Shown to one seat only, each is rejected on arrival and never applied, with no alarm the
    host's record could turn into a false one: the hand plays on to a fair end. Put into the
    host's own log, it is rejected live by every seat, which stops at the host's hand_end
    (another history, TABLE-10), and the audit names the record: no seat is ever blamed."""
    # (1) shown to seat 0 only
    t = briscola(seed=3)
    in_play(t, 2)
    t.pump(until=lambda: t.seats[0].unacknowledged() is None)
    s0 = t.seats[0]
    r0 = s0.replica
    assert r0 is not None
    chain = r0.deal.chains[1]
    forged = signing.sign(Ed25519PrivateKey.from_private_bytes(b"\x05" * 32), {
        "type": "abandon", "hand_id": r0.hand_id, "seat": 1, "seq": chain.next_seq,
        "prev_hash": chain.last_hash, "reason": "abbandona"})
    before = len(r0.deal.log)
    assert s0.receive(forged) == []
    assert len(r0.deal.log) == before and r0.stage == "play"
    assert not t.stores[0].is_spent(r0.hand_id) and not s0.halted
    tampered: list[Frame] = []

    def tamper(s: int, m: Frame) -> list[Frame]:
        if s == 0 and m.get("type") == "action" and m.get("seat") == 1 and not tampered:
            m = {**m, "action": {**m["action"], "card": (m["action"]["card"] + 1) % 40},
                 "cards": [(c + 1) % 40 for c in m["cards"]]}
            tampered.append(m)
        return [m]
    t.tamper = tamper
    t.pump(until=lambda: bool(tampered))
    t.tamper = None
    assert tampered and evidence_of(s0, "action") == [tampered[0]]
    assert evidence_of(s0, "abandon") == [forged]
    assert not any(m["type"] == "alarm" for m in t.saved[0])
    assert_learned_nothing(t)
    # the tampered frame never reached seat 0's replica: the genuine one does now
    genuine = next(e for e in reversed(t.log()) if e.get("type") == "action"
                   and e.get("seat") == 1)
    t.deliver(0, genuine)
    t.settle()
    record = last(t)
    assert record.outcome.kind == "scored"
    assert audit_transcript(record.transcript).verdict.fair
    assert not any(s.halted for s in t.seats)
    assert_learned_nothing(t)
    assert_one_statement_per_seq(t)

    # (2) the host logs a forged abandon of seat 1 and relays it to everyone
    t = briscola(seed=4)
    in_play(t, 2)
    r = t.host.replica
    assert r is not None
    chain = r.deal.chains[1]
    forged = signing.sign(Ed25519PrivateKey.from_private_bytes(b"\x06" * 32), {
        "type": "abandon", "hand_id": r.hand_id, "seat": 1, "seq": chain.next_seq,
        "prev_hash": chain.last_hash, "reason": "abbandona"})
    t.log_forged(forged)
    t.settle()
    for s in (0, 1):
        assert evidence_of(t.seats[s], "abandon") == [forged]
        assert not any(m["type"] in ("alarm", "reveal") for m in t.saved[s])
    record = last(t)
    audit = audit_transcript(record.transcript)
    assert ("record", None, "bad_signature") in blamed(audit)
    assert not seats_blamed(audit) and record.outcome.kind == "host_fault"
    assert all(s.halted and "the host" in s.halted for s in t.seats)
    assert_learned_nothing(t)
    assert_one_statement_per_seq(t)


# --------------------------------------------------------------------------- timeouts

def test_false_timeout_is_the_hosts_fault() -> None:
    """A `step` timeout of a seat that owed nothing then: every peer's judge refuses it on
    arrival, the audit makes it the host's signed lie (TABLE-10), and the seat it names is
    not blamed for a stall."""
    t = briscola(seed=13)
    in_play(t, 2)
    t.pump(until=lambda: any(t.host.replica.due(s) is None  # type: ignore[union-attr]
                             for s in (0, 1)))
    idle = idle_seat(t)
    r = t.host.replica
    assert r is not None
    lie = t.say("timeout", seat=idle, kind="step", count=r.timeouts[idle],
                detail="owed nothing")
    t.settle()
    record = last(t)
    audit = audit_transcript(record.transcript)
    faults = {(f.party, f.seat, f.what, f.where) for f in audit.verdict.faults}
    assert ("host", None, "false_timeout", lie["at"]) in faults
    assert record.outcome.kind == "host_fault" and not seats_blamed(audit)
    for seat in t.seats:
        assert seat.halted and any(e["statement"] == lie for e in seat.evidence)
    assert_learned_nothing(t)


def test_withheld_step_is_a_stall() -> None:
    """A connected seat keeps back the keys it owes (its release): at the step deadline,
    not before, the host times it out; the hand stops and its side loses the match by
    forfeit, cause stall (TABLE-5, TABLE-7); Briscola scores it as BRISCOLA-24/26 do an
    abandonment. The honest seat learned only its own cards."""
    t = briscola(seed=14, hands=3)
    cheater(t, 1, withhold=lambda seat: seat.replica is not None
            and seat.replica.due(1) == "release")
    t.step({"e": "deal"})
    t.pump()
    r = t.host.replica
    assert r is not None and r.due(1) == "release" and t.host.connected[1]
    t.advance(STEP_MS - 1)
    t.pump()
    assert not r.deal.timeouts
    t.advance(2)
    t.settle()
    record = last(t)
    assert (record.outcome.kind, record.outcome.seat, record.outcome.cause) == \
        ("forfeit", 1, "stall")
    timeout = t.log()[record.outcome.where or 0]
    assert (timeout["type"], timeout["seat"], timeout["kind"]) == ("timeout", 1, "step")
    standings = t.host.standings()
    assert standings["over"] and standings["winner"] == 0
    assert standings["forfeit_by"] == 1 and standings["forfeit_cause"] == "stall"
    assert standings["victory_points"][1] == 0 and standings["victory_points"][0] >= 14
    honest = t.seats[0]
    assert honest.standings == standings and not honest.halted and honest.match_over
    assert_learned_nothing(t, [0])


# --------------------------------------------------------------------------- cheating never pays

def test_wrong_seed_reveal_forfeits_the_match() -> None:
    """The seat that lost the hand reveals a seed other than the one it committed to (to
    make the deal unverifiable): its own signed reveal convicts it (bad_commitment), its side
    loses the match by forfeit, and the hand is not void (TABLE-7)."""
    def sore_loser(seat: CheatingSeat) -> Frame | None:
        r = seat.replica
        if r is None or r.due(seat.seat) != "reveal" or seat.cheated or not r.hand.is_over:
            return None
        result = r.hand.result()
        mine = next(i for i, side in enumerate(result.sides) if seat.seat in side)
        if result.points[mine] >= max(result.points):
            return None
        seat.store.mark_spent(r.hand_id)
        return seat.sign("reveal", seed=bytes(32))
    t = briscola(seed=15, hands=3)
    liars = [cheater(t, s, cheat=sore_loser) for s in (0, 1)]
    t.step({"e": "deal"})
    t.settle()
    loser = next(c.seat for c in liars if c.cheated)
    record = last(t)
    assert (record.outcome.kind, record.outcome.seat, record.outcome.cause) == \
        ("forfeit", loser, "cheat")
    assert record.result.reason != "void" and record.outcome.kind != "void"
    audit = audit_transcript(record.transcript)
    assert blamed(audit) == {("seat", loser, "bad_commitment")}
    standings = t.host.standings()
    assert standings["over"] and standings["winner"] == 1 - loser
    assert standings["forfeit_by"] == loser and standings["voids"] == 0
    honest = t.seats[1 - loser]
    assert honest.standings == standings and not honest.halted
    assert_one_statement_per_seq(t)


def test_false_alarm_forfeits_the_alarmist() -> None:
    """A seat raises an alarm about its own cards when nothing is wrong (to stop a hand it
    is losing): the audit finds every pass and key right, the alarm false, and the alarmist
    forfeits the match (TABLE-7) — the hand is not void."""
    def alarmist(seat: CheatingSeat) -> Frame | None:
        r = seat.replica
        if r is None or seat.cheated or r.stage != "play" or r.due(seat.seat) != "move" \
                or sum(1 for e in r.deal.log if e.get("type") == "action") < 3:
            return None
        hand: Any = r.hand
        return seat.sign("alarm", what="no_card", positions=list(hand.hand(seat.seat)),
                         ref=None, detail="my cards decode to nothing (they do not)")
    t = briscola(seed=16, hands=3)
    liar = cheater(t, 1, cheat=alarmist)
    t.step({"e": "deal"})
    t.settle()
    assert liar.cheated
    record = last(t)
    assert (record.outcome.kind, record.outcome.seat, record.outcome.cause) == \
        ("forfeit", 1, "cheat")
    audit = audit_transcript(record.transcript)
    assert blamed(audit) == {("seat", 1, "false_alarm")}
    standings = t.host.standings()
    assert standings["over"] and standings["winner"] == 0 and standings["voids"] == 0
    assert t.seats[0].standings == standings and not t.seats[0].halted
    assert_learned_nothing(t, [0])


@contextmanager
def public_cards_fail_to_decode() -> Iterator[None]:
    """Every public card decodes to no card, at every node: a void nobody is at fault for
    (with sound seeds and keys it cannot happen, so it is simulated)."""
    sound = PublicDeal.decode_public

    def broken(self: PublicDeal, positions: Any) -> dict[int, int | None]:
        return dict.fromkeys(sound(self, positions))
    PublicDeal.decode_public = broken              # type: ignore[method-assign]
    try:
        yield
    finally:
        PublicDeal.decode_public = sound           # type: ignore[method-assign]


def test_void_cap_ends_the_match_unplayable() -> None:
    """TABLE-8. A loser cannot spend the voids: its key released to an audience the public
    state does not name is refused and forfeits (before, the hand was void). A hand nobody is
    at fault for is void, scores nothing and the same dealer deals again; the fourth void
    ends the match as unplayable, with no winner, at the host and every peer alike."""
    def not_entitled(seat: CheatingSeat) -> Frame | None:
        r = seat.replica
        if r is None or seat.cheated or r.stage != "play" or not seat._ready():
            return None
        hand: Any = r.hand
        pos = hand.hand(0)[0]
        return seat.sign("release", positions=[pos], to=[[1]],
                         keys=[seat.secrets.lock_key(pos)])
    t = briscola(seed=17, hands=3)
    cheater(t, 1, cheat=not_entitled)
    t.step({"e": "deal"})
    t.settle()
    record = last(t)
    assert (record.outcome.kind, record.outcome.seat, record.outcome.cause) == \
        ("forfeit", 1, "cheat")
    assert blamed(audit_transcript(record.transcript)) == {("seat", 1, "not_entitled")}
    assert t.host.standings()["voids"] == 0 and t.host.match_over

    t = briscola(seed=18, hands=3)
    dealers = []
    with public_cards_fail_to_decode():
        for n in range(1, 5):
            record = t.play_hand()
            dealers.append(record.transcript.entries[0]["dealer"])
            assert record.outcome.kind == "void"
            assert not audit_transcript(record.transcript).verdict.faults
            assert record.result.points == (0, 0)
            standings = t.host.standings()
            assert standings["voids"] == n and standings["hands"] == 0
            for seat in t.seats:
                assert seat.standings == standings and not seat.halted
            if n < 4:
                assert not t.host.match_over
    assert len(set(dealers)) == 1
    assert t.host.match_over and t.host.end_reason == "unplayable"
    standings = t.host.standings()
    assert standings["winner"] is None and standings["decided_by"] == "unplayable"
    assert all(seat.match_over for seat in t.seats)


# --------------------------------------------------------------------------- different stories

@pytest.mark.parametrize("lie", ["state", "prev_result", "hand_end"])
def test_host_lying_about_the_standings_is_caught(lie: str) -> None:
    """The next hand_start states a match (`state`) or a previous result (`prev_result`)
    other than the one the seat folded and signed, or the hand_end closes the hand on
    another result: the seat halts naming the host, keeps the statement, and signs nothing
    for a hand built on it (TABLE-10)."""
    t = briscola(seed=19, hands=3)
    liar_to = 0

    def tamper(s: int, m: Frame) -> list[Frame]:
        if s != liar_to:
            return [m]
        if lie == "hand_end" and m.get("type") == "hand_end":
            body = {k: v for k, v in m.items() if k != "sig"}
            body["result_hash"] = bytes(32)
            return [signing.sign(t.host_key, body)]
        if lie != "hand_end" and m.get("type") == "hand_start" and m["hand_no"] == 1:
            body = {k: v for k, v in m.items() if k != "sig"}
            if lie == "state":
                state = dict(body["state"])
                match = dict(state["match"])
                match["points"] = [p + 10 for p in match["points"]]
                state["match"] = match
                body["state"] = state
            else:
                body["prev_result"] = b"\x01" * 32
            return [signing.sign(t.host_key, body)]
        return [m]
    t.tamper = tamper
    first = t.play_hand()
    assert first.outcome.kind == "scored"
    honest = t.seats[1]
    if lie == "hand_end":
        assert t.seats[0].halted and "result" in t.seats[0].halted
        assert evidence_of(t.seats[0], "hand_end")
        assert honest.halted is None
        return
    t.step({"e": "deal"})
    t.pump()
    seat = t.seats[liar_to]
    why = {"state": "match state", "prev_result": "previous hand's result"}[lie]
    assert seat.halted and why in seat.halted
    hs = evidence_of(seat, "hand_start")
    assert len(hs) == 1 and hs[0]["hand_no"] == 1
    assert not any(m["hand_id"] == hs[0]["hand_id"] for m in t.saved[liar_to])
    assert honest.halted is None and honest.replica is not None
    assert honest.replica.hand_id == hs[0]["hand_id"]


def test_host_showing_different_histories_is_caught() -> None:
    """Two seats shown two histories: the reveals in another order to seat 1 — its
    sign-off names another log hash, the host's hand_end is on another history, seat 1
    halts and the file shows its sign-off disputes the log. A host statement signed on a
    head the seat never had (at the next place, or at a place its log already fills): the
    seat halts at once, keeps it, and raises no alarm the record could call false."""
    t = briscola(seed=20)
    held: list[Frame] = []

    def swap_reveals(s: int, m: Frame) -> list[Frame]:
        if s == 1 and m.get("type") == "reveal":
            if not held:
                held.append(m)
                return []
            return [m, held[0]]
        return [m]
    t.tamper = swap_reveals
    t.step({"e": "deal"})
    t.settle()
    record = last(t)
    assert len(held) == 1
    sign_offs = {so["seat"]: so for so in record.transcript.sign_offs}
    end = record.transcript.hand_end
    assert end is not None
    assert sign_offs[0]["transcript_hash"] == end["transcript_hash"]
    assert sign_offs[1]["transcript_hash"] != end["transcript_hash"]
    audit = audit_transcript(record.transcript)
    assert audit.signed == [0] and audit.unsigned == [1]
    assert t.seats[1].halted and "history" in t.seats[1].halted
    assert t.seats[0].halted is None

    for place in ("next", "filled"):
        host_statement_on_another_head(place)


def host_statement_on_another_head(place: str) -> None:
    """Seat 0 gets a timeout the host signed at its log's next place on a head it never
    had, or at a place its log already fills."""
    t = briscola(seed=21)
    in_play(t, 2)
    seat = t.seats[0]
    t.pump(until=lambda: seat.unacknowledged() is None)
    r = seat.replica
    assert r is not None
    at = len(r.deal.log) - (1 if place == "filled" else 0)
    head = b"\x02" * 32 if place == "next" else r.deal.head
    lie = signing.host_statement(t.host_key, "timeout", r.hand_id, at, head, seat=1,
                                 kind="step", count=0, detail="on another history")
    n = len(t.saved[0])
    assert seat.receive(lie) == []
    assert seat.halted and "another history" in seat.halted
    assert len(t.saved[0]) == n                       # no alarm
    assert evidence_of(seat, "timeout") == [lie]
    assert_learned_nothing(t)


# --------------------------------------------------------------------------- X25519 keys, nonces

def carte_scoperte(seed: int) -> HostileTable:
    return briscola(seed, players=4, variant="carte-scoperte")


def test_low_order_x25519_key_is_refused_and_pinned() -> None:
    """Briscola carte scoperte (partners seal their keys to each other). A seat commits a
    low-order X25519 key: the host refuses it (`table.bad_key`), the hand stops, the audit
    pins it on the seat, whose side forfeits (TABLE-7); nobody ever seals to it. A host that
    lets it through changes nothing for the honest peers: they refuse it on arrival, never
    seal to it, never crash — and the host, which accepted it, is at fault."""
    for key in LOW_ORDER_X25519:
        assert x25519_key_error(key) is not None
        with pytest.raises(envelope.EnvelopeError):
            envelope.seal(b"\x01" * 32, key, b"\x00" * 16, 3, 1, 0, [0], [b"\x02" * 32])

    def low_order(seat: CheatingSeat) -> Frame | None:
        r = seat.replica
        if r is None or seat.cheated or r.due(seat.seat) != "commit":
            return None
        return seat.sign("commit", commitment=seat.secrets.commitment,
                         x25519=LOW_ORDER_X25519[1])
    t = carte_scoperte(22)
    cheater(t, 1, cheat=low_order)
    t.step({"e": "deal"})
    t.settle()
    log = t.log()
    refusal = next(e for e in log if e.get("type") == "refusal")
    assert (refusal["code"], refusal["seat"]) == ("table.bad_key", 1)
    record = last(t)
    assert (record.outcome.kind, record.outcome.seat, record.outcome.cause) == \
        ("forfeit", 1, "cheat")
    assert blamed(audit_transcript(record.transcript)) == {("seat", 1, "bad_key")}
    assert not any(m["type"] == "sealed" for saved in t.saved for m in saved)
    assert not any(s.halted for s in t.seats)
    assert t.host.standings()["forfeit_by"] == 1 and t.host.match_over
    assert_learned_nothing(t, [0, 2, 3])

    # a host that lets it through (colluding with seat 1)
    t = carte_scoperte(23)
    cheater(t, 1, cheat=low_order)

    def accept_unjudged(seat: int, msg: Frame) -> bool:
        if seat == 1 and msg.get("type") == "commit":
            t.log_forged(msg)
            return True
        return False
    t.grab = accept_unjudged
    t.step({"e": "deal"})
    t.settle()
    for s in (0, 2, 3):
        assert evidence_of(t.seats[s], "commit")            # refused on arrival
        replica = t.seats[s].replica
        assert replica is not None and 1 not in replica.deal.x25519
    assert not any(m["type"] == "sealed" for saved in t.saved for m in saved)
    record = last(t)
    audit = audit_transcript(record.transcript)
    assert ("host", None, "accepted_invalid") in blamed(audit)
    assert ("seat", 1, "bad_key") in blamed(audit) and seats_blamed(audit) == {1}
    assert record.outcome.kind == "host_fault"
    assert_learned_nothing(t, [0, 2, 3])


def test_envelope_nonces_never_repeat() -> None:
    """Across a whole carte-scoperte hand in which a seat's envelope is refused (it seals
    the same keys to its partner twice: `table.duplicate_key`, a logged refusal that still
    takes its seq), no (sender, recipient, nonce) repeats — the nonce is the sender's seq —
    and every envelope in the record opens to the keys its sender's seed derives."""
    def twice(seat: CheatingSeat) -> Frame | None:
        r = seat.replica
        if r is None or seat.cheated:
            return None
        mine = [m for m in r.deal.log if m.get("type") == "sealed" and m["seat"] == seat.seat]
        if not mine:
            return None
        first = mine[0]
        box = envelope.seal(seat.secrets.x25519_private, r.deal.x25519[first["to"]],
                            r.hand_id, seat.seat, first["to"],
                            r.deal.chains[seat.seat].next_seq, first["positions"],
                            [seat.secrets.lock_key(p) for p in first["positions"]])
        return seat.sign("sealed", to=first["to"], positions=first["positions"], box=box)
    t = carte_scoperte(24)
    cheater(t, 2, cheat=twice)
    t.play_hand()
    record = last(t)
    refused = [e for e in record.transcript.entries if e.get("type") == "refusal"]
    assert [(e["seat"], e["code"], e["msg"]["type"]) for e in refused] == \
        [(2, "table.duplicate_key", "sealed")]
    logged = [e for e in record.transcript.entries if e.get("type") == "sealed"] + \
        [e["msg"] for e in refused]
    signed = [m for saved in t.saved for m in saved if m["type"] == "sealed"]
    assert {signing.entry_hash(m) for m in logged} == {signing.entry_hash(m) for m in signed}
    nonces = [(m["seat"], m["to"], envelope._nonce(m["seq"])) for m in signed]
    assert len(nonces) == len(set(nonces)) and len(nonces) >= 5
    assert record.outcome.kind == "scored" and audit_transcript(record.transcript).verdict.fair
    assert_learned_nothing(t)
    assert_one_statement_per_seq(t)


# --------------------------------------------------------------------------- the property

OPS = ("pass", "drop", "dup", "hold", "replay", "forge_sig", "forge_seat", "stale_hs",
       "lie_timeout", "lie_refusal", "lie_unlogged", "early_end", "fork")
"""What the host does to one frame on its way to one seat."""


def hostile_schedule(t: HostileTable, ops: list[tuple[str, int]], skip: int
                     ) -> Callable[[int, Frame], list[Frame]]:
    seen: list[list[Frame]] = [[] for _ in t.seats]
    held: list[list[Frame]] = [[] for _ in t.seats]
    todo = list(ops)
    count = [0]
    stale = signing.sign(t.host_key, {"type": "hand_start", "hand_id": b"\x00" * 16, "at": 0})

    def forge_host(s: int, mtype: str, pick: int) -> Frame | None:
        r = t.seats[s].replica
        if r is None:
            return None
        if mtype == "timeout":
            return r.deal.host_statement(t.host_key, "timeout", seat=pick % r.n_seats,
                                         kind="step", count=0, detail="a lie")
        if mtype == "hand_end":
            return signing.sign(t.host_key, {
                "type": "hand_end", "hand_id": r.hand_id, "transcript_hash": r.deal.head,
                "result_hash": bytes(32), "result": {}, "outcome": {}, "verdict": {},
                "state": {}, "match_over": False})
        inflight = t.seats[s].unacknowledged()
        if inflight is None or inflight.get("type") == "sign_off":
            return None
        logged = mtype == "refusal"
        return r.deal.host_statement(t.host_key, "refusal", seat=s,
                                     code="table.wrong_phase" if logged else "table.bad_chain",
                                     message="a lie", rule=None, msg=dict(inflight),
                                     logged=logged)

    def tamper(s: int, m: Frame) -> list[Frame]:
        count[0] += 1
        out = [m]
        if count[0] > skip and todo:
            op, pick = todo.pop(0)
            if op == "drop":
                out = []
            elif op == "dup":
                out = [m, dict(m)]
            elif op == "hold":
                held[s].append(m)
                out = []
            elif op == "replay" and seen[s]:
                out = [m, seen[s][pick % len(seen[s])]]
            elif op == "forge_sig" and isinstance(m.get("sig"), bytes):
                sig = bytearray(m["sig"])
                sig[pick % 64] ^= 1 << (pick % 8)
                out = [{**m, "sig": bytes(sig)}]
            elif op == "forge_seat" and m.get("type") in ("release", "action", "reveal"):
                key = Ed25519PrivateKey.from_private_bytes(bytes([pick % 256]) * 32)
                out = [m, signing.sign(key, {**m, "type": "abandon", "reason": "forged"})]
            elif op == "stale_hs":
                body = {k: v for k, v in (t.seats[s].hand_start or {}).items() if k != "sig"}
                out = [m, signing.sign(t.host_key, {**body, "names": ["x"] * len(t.seats)})
                       if body else stale]
            elif op in ("lie_timeout", "lie_refusal", "lie_unlogged", "early_end"):
                lie = forge_host(s, {"lie_timeout": "timeout", "lie_refusal": "refusal",
                                     "lie_unlogged": "unlogged", "early_end": "hand_end"}[op],
                                 pick)
                out = [m] if lie is None else [lie, m]
            elif op == "fork":
                r = t.seats[s].replica
                if r is not None:
                    out = [signing.host_statement(t.host_key, "timeout", r.hand_id,
                                                  len(r.deal.log), bytes(32), seat=0,
                                                  kind="step", count=0, detail="fork"), m]
        if held[s] and out and out[-1] is not held[s][-1]:
            out = out + held[s]
            held[s] = []
        seen[s].extend(out)
        return out
    return tamper


@settings(max_examples=25, deadline=None)
@given(ops=st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 10_000)),
                    min_size=1, max_size=12),
       skip=st.integers(0, 90), seed=st.integers(0, 3))
def test_hostile_host_schedule_never_leaks_a_card_or_a_double_signature(
        ops: list[tuple[str, int]], skip: int, seed: int) -> None:
    """Whatever the host drops, duplicates, holds back, replays or forges (frames signed by
    nobody, or signed by it: stale hand_starts, statements on another head, made-up
    timeouts and refusals), an honest peer never decodes a card not its own, no hidden card
    ever has every lock out in the clear, and no seat ever signs two statements for one seq.

    Two things only a statement the host signs and shows one seat alone can do (§ 9, "What
    is not guaranteed"): a stop true on the history that seat was shown (a `step` timeout of
    a seat that did owe a step) has it reveal its seed where the others' hand goes on — it
    then stops at the host's next statement, so that hand cannot go on with it, which the
    host could have had by timing it out; and a lie it disputes makes an alarm the host's
    record may not bear out, against which the seat keeps the host's signed statement.
    Without those, no honest seat is ever convicted by its own statement."""
    t = briscola(seed=30 + seed)
    t.tamper = hostile_schedule(t, ops, skip)
    t.step({"e": "deal"})
    t.pump(limit=5_000)
    t.tamper = None
    for _ in range(3):
        if t.records or t.host.stage not in ("hand", "signoff"):
            break
        t.advance(STEP_MS + 1)
        t.pump(limit=5_000)
    signed_lies = {op for op, _ in ops} & {"lie_timeout", "lie_refusal"}
    assert_learned_nothing(t, seeds=not signed_lies)
    assert_one_statement_per_seq(t)
    for record in t.records:
        if not signed_lies:
            assert record.outcome.cause != "cheat", record.outcome.describe()
            assert not seats_blamed(audit_transcript(record.transcript))


def test_a_lie_shown_to_one_seat_is_proven_by_its_alarm() -> None:
    """TABLE-10: the host shows one seat alone a false timeout and keeps another entry at
    that place of its own record. The seat's dispute carries the host-signed statement, so
    even the host's record convicts the host (two signed entries for one place), not the
    alarmist."""
    t = briscola(seed=13)
    in_play(t, 2)
    t.pump(until=lambda: any(t.host.replica.due(s) is None  # type: ignore[union-attr]
                             for s in (0, 1)))
    while t.to_seats:                               # every seat has the host's whole log
        to, msg = t.to_seats.popleft()
        for s in (range(len(t.seats)) if to is None else (to,)):
            t.to_host.extend((s, reply) for reply in t.seats[s].receive(msg))
    idle = idle_seat(t)
    r = t.host.replica
    assert r is not None
    lie = r.deal.host_statement(t.host_key, "timeout", seat=idle, kind="step",
                                count=r.timeouts[idle], detail="owed nothing")
    victim = 1 - idle
    for reply in t.seats[victim].receive(lie):          # shown to one seat only
        t.to_host.append((victim, reply))
    alarms = [m for _, m in t.to_host if m["type"] == "alarm"]
    assert alarms and alarms[0]["evidence"] == lie
    t.settle()
    record = last(t)
    audit = audit_transcript(record.transcript)
    faults = {(f.party, f.what) for f in audit.verdict.faults}
    assert ("host", "equivocation") in faults
    assert not seats_blamed(audit) and record.outcome.kind == "host_fault"


# --------------------------------------------------------------------------- quick settlement

def _quick_made_wrong(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Make the host's quick settlement (`settle_live`, which recomputes neither passes nor
    keys) say something else than the full audit: what a fault only the full audit finds
    would do. Returns the transcript hashes of the hands it settled so."""
    import dataclasses

    from p2p_burraco.table import host as host_module

    real = host_module.settle_live
    made: list[bytes] = []

    def wrong(replica: Any) -> HandAudit | None:
        report = real(replica)
        if report is not None and report.outcome is not None:
            report.outcome = dataclasses.replace(report.outcome, detail="quick and wrong")
            made.append(replica.deal.head)
        return report
    monkeypatch.setattr(host_module, "settle_live", wrong)
    return made


def _assert_closed_on_the_full_audit(record: HandRecord) -> None:
    full = audit_hand(record.transcript.entries)
    end = record.transcript.hand_end
    assert end is not None and full.outcome is not None
    assert end["result_hash"] == full.result_hash(end["transcript_hash"])
    assert end["outcome"] == full.outcome.to_wire()
    report = audit_transcript(record.transcript)
    assert not report.verdict.faults, report.verdict.faults


def test_the_quick_settlement_stands_only_when_every_seat_signs_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Seats that sign another result than the host's quick one make the host run the full
    audit before it signs the hand's end: every seat then agrees with it."""
    made = _quick_made_wrong(monkeypatch)
    t = briscola(seed=21)
    t.step({"e": "deal"})
    t.settle()
    record = last(t)
    assert made                                       # the quick path was taken, and failed
    _assert_closed_on_the_full_audit(record)
    end = record.transcript.hand_end
    assert end is not None
    assert {so["seat"] for so in record.transcript.sign_offs} == {0, 1}
    assert all(so["result_hash"] == end["result_hash"] for so in record.transcript.sign_offs)


def test_a_hand_nobody_signs_is_closed_on_the_full_audit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Seats gone before they sign off: the host cannot lean on their audits, so it closes
    the hand on its own full audit, never on the quick settlement."""
    made = _quick_made_wrong(monkeypatch)
    t = briscola(seed=22)
    t.step({"e": "deal"})
    t.pump(until=lambda: t.host.stage == "signoff")
    assert t.host.stage == "signoff"
    t.disconnected.update({0, 1})
    t.to_host.clear()
    t.settle()
    record = last(t)
    assert made and not record.transcript.sign_offs
    _assert_closed_on_the_full_audit(record)
