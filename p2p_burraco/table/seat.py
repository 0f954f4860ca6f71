"""`SeatClient`: one seat's peer logic, sans-IO — a peer that trusts nothing it can check.

It holds this seat's secrets (the seed of each hand and its Ed25519 identity key), its own
`HandReplica` of the hand (the same judge the host runs), its own `MatchState` (a fold of the
outcomes it computed itself), a `SeatStore` for what must outlive the process, and the
`SeatController` that decides its moves (a bot at once, the console whenever the person has
decided).

What it checks, and when:
- a `hand_start`: signed by the host it connected to, naming this identity at this seat, a
  hand id derived from the match, the hand number and every key, a hand number above every
  hand it closed, and — when it played the hand before — the result it signed and the match
  state it computed. A seed is drawn once per hand id, written before the commitment leaves,
  marked spent before it is revealed, and never used for another hand_start;
- every relayed statement, signature included, against its replica (`HandReplica.check`);
  every host statement (`check_host`): a refusal of a sound statement, a timeout of a seat
  that owed nothing, a void without cause are caught on arrival — the seat raises an alarm
  naming the host's entry and keeps the evidence;
- its own statements before it signs them (`before_sign`), so an honest seat's statement can
  only be refused falsely — and a refused move is never followed by another card: the seat
  disputes the refusal instead;
- at the end, the whole audit; it signs off the result IT computed.

A seat never signs two statements for one seq: every statement is saved before it is sent
(`SeatStore.save_statement` refuses a second one), and after a crash the saved one is sent
again. When the host proves itself a liar the seat stops playing the match (`halted`) and
says why; the controller is told with an `error` event.

`receive(msg)` takes one message from the host and returns the messages to send back;
controller decisions that arrive later land in `outbox` (`take_outbox()`), and `on_outbox`
is called so the network layer drains it. Reconnecting: feed the resync answer through
`receive_all`, then re-send `unacknowledged()` if it is not None.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..controller import SeatController
from ..fairdeal import signing
from ..fairdeal.deal import CHAIN_CODES, HOST_TYPES, DealError
from ..fairdeal.group import BadPoint
from ..fairdeal.local import PROTOCOL_ID
from ..fairdeal.seat import SeatDealer
from ..fairdeal.transcript import Transcript
from ..games.base import Action, ActionSyntaxError, HandState, RuleViolation
from . import messages as M
from .audit import HandAudit, audit_hand, settle_live
from .chain import FIRST, Before, Binding, first_fault
from .events import (
    ActionPlayed,
    ClockNotice,
    DealProgress,
    ErrorNotice,
    HandVoided,
    StandingsChanged,
    TableLine,
)
from .matchstate import MatchState, MatchStateError
from .replica import HandReplica, ReplicaError, TableError
from .statements import HandEnd, HandStart, StatementError, merge_sign_offs, sign_off_problem
from .store import MemorySeatStore, SeatStore, StoreError

DEAL_PHASES = ("commit", "shuffle", "lock", "deal")
MAX_QUICK_REFUSALS = 50
"""A controller refused this many times in a row at once is asked no more until the next
message (a bot that never finds a legal move must not spin)."""

SeedSource = Callable[[bytes, int], bytes]
"""(hand_id, seat) → a fresh 32-byte seed (os.urandom in real play)."""
Fallback = Callable[[HandState, int], Action]
"""(hand, seat) → a move a bot makes for the seat (TABLE-3: after a timeout)."""


def random_seed(hand_id: bytes, seat: int) -> bytes:
    return os.urandom(32)


class SeatClient:
    """The peer logic of one seat (see the module docstring)."""

    def __init__(self, seat: int, identity: Ed25519PrivateKey, controller: SeatController, *,
                 seed_source: SeedSource = random_seed, store: SeatStore | None = None,
                 host_key: bytes | None = None, fallback: Fallback | None = None,
                 audit: bool = True, on_outbox: Callable[[], None] | None = None) -> None:
        self.seat = seat
        self._identity = identity
        self.public_key = signing.public_key_bytes(identity)
        self.controller = controller
        self._seed_source = seed_source
        self.store: SeatStore = store if store is not None else MemorySeatStore()
        self.host_key = host_key
        """The host's identity key from the handshake (every hand_start must name it)."""
        self.fallback = fallback
        self.audit = audit
        self.on_outbox = on_outbox
        self.outbox: list[dict[str, Any]] = []
        self.hand_start: dict[str, Any] | None = None
        self.replica: HandReplica | None = None
        self._dealer: SeatDealer | None = None
        self.match: MatchState | None = None
        self.match_id: bytes | None = None
        self.standings: dict[str, Any] | None = None
        self.match_over = False
        self.halted: str | None = None
        self.evidence: list[dict[str, Any]] = []
        self.clock: dict[str, Any] | None = None
        self._abandon_wanted: str | None = None
        self._pumping = False
        self._reset_hand()

    def _reset_hand(self) -> None:
        self._inflight: dict[str, Any] | None = None   # the statement awaiting its answer
        self._seen: set[bytes] = set()
        self._asked = False
        self._turn_token = 0
        self._pending: Action | None = None
        self._alarm: tuple[str, list[int], int | None, str] | None = None
        self._alarmed = False
        self._lied: tuple[str, dict[str, Any]] | None = None   # a host lie caught here
        self._report: HandAudit | None = None
        self._result_hash: bytes | None = None
        self._signed_off = False
        self._closing: HandAudit | None = None
        self._folded: tuple[bytes, int] | None = None
        """(match id, hand_no) of the last hand folded into the match record here."""
        self._hand_end: dict[str, Any] | None = None
        self._deal_positions: list[int] = []
        self._progress_done: int | None = None
        self._progress_over = False

    # ------------------------------------------------------------------ views
    @property
    def hand(self) -> HandState | None:
        return self.replica.hand if self.replica is not None else None

    @property
    def verdict(self) -> str | None:
        if self._report is None:
            return None
        return "fair" if self._report.verdict.fair else str(self._report.verdict)

    # ------------------------------------------------------------------ I/O surface
    def receive(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One message from the host; returns what to send back."""
        self._handle(msg)
        self._pump()
        return self.take_outbox()

    def receive_all(self, msgs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """A batch (e.g. a resync): everything is read before anything is sent."""
        for m in msgs:
            self._handle(m)
        self._pump()
        return self.take_outbox()

    def take_outbox(self) -> list[dict[str, Any]]:
        out, self.outbox = self.outbox, []
        return out

    def unacknowledged(self) -> dict[str, Any] | None:
        """The signed statement in flight — sent, and neither relayed back nor refused — or
        None. After a reconnect, send it again unless `receive_all` just returned it."""
        return None if self.halted else self._inflight

    def request_abandon(self, reason: str = "abbandona") -> None:
        """The person abandons the match (TABLE-9): signed at the first place it can be."""
        self._abandon_wanted = reason or "abbandona"
        self._pump()
        if self.outbox and self.on_outbox is not None:
            self.on_outbox()

    def _send(self, msg: dict[str, Any]) -> None:
        self.store.save_statement(msg)          # durable before it leaves
        self._inflight = msg
        self.outbox.append(msg)

    # ------------------------------------------------------------------ incoming
    def _handle(self, msg: Mapping[str, Any]) -> None:
        mtype = msg.get("type")
        if mtype == "clock":
            self.clock = dict(msg)
            self.controller.notify(ClockNotice.of(msg))
            return
        if self.halted:
            return
        if mtype == "hand_start":
            self._on_hand_start(msg)
        elif mtype == "error":
            self._error(f"{msg.get('code')}: {msg.get('message')}")
        elif self.hand_start is None or msg.get("hand_id") != self.hand_start["hand_id"]:
            return  # another hand's message (late, or before we joined): not ours to judge
        elif mtype == "hand_end":
            self._on_hand_end(msg)
        elif mtype == "refusal" and not msg.get("logged"):
            self._on_unlogged_refusal(msg)
        elif mtype in HOST_TYPES or mtype in M.SEAT_AUTHORED:
            self._on_entry(msg)

    def _halt(self, why: str, evidence: Mapping[str, Any] | None = None) -> None:
        """The host proved itself a liar: stop playing this match (TABLE-10)."""
        if self.halted:
            return
        self.halted = why
        if evidence is not None:
            self.evidence.append({"why": why, "statement": dict(evidence)})
            if self.match_id is not None:
                import msgpack

                from ..fairdeal.transcript import FORMAT
                data = msgpack.packb({"format": FORMAT + "+evidence", "why": why,
                                      "statement": dict(evidence),
                                      "log": list(self.replica.deal.log)
                                      if self.replica is not None else []},
                                     use_bin_type=True)
                self.store.save_record(self.match_id, f"evidence-{len(self.evidence)}.p2pe",
                                       data)
        self._error(f"the host is at fault: {why} — this match stops here [TABLE-10]")

    # ------------------------------------------------------------------ hand_start
    def _cannot_play(self, hs: Mapping[str, Any]) -> str | None:
        """Why this seat cannot play this hand_start (the host's fault), or None: its
        protocol, this identity at this seat, the host connected to, then the one hand_start
        check (`hand_start_problem`) and the one chain check (`table.chain`)."""
        if hs.get("protocol") != PROTOCOL_ID:
            return f"the host speaks {hs.get('protocol')!r}, not {PROTOCOL_ID}"
        keys = hs.get("seat_keys") or []
        if self.seat >= len(keys) or keys[self.seat] != self.public_key:
            return f"the hand_start does not name this identity at seat {self.seat}"
        if self.host_key is not None and hs.get("host_key") != self.host_key:
            return "the hand_start is signed for another host key than the one we connected to"
        try:                        # parsed once: structure, place, the host's signature
            HandStart.parse(hs)
        except StatementError as exc:
            return str(exc)
        record = self.store.match_record(hs["match_id"]) or {}
        current = record.get("current")
        if current is not None and current.get("hs_hash") == signing.entry_hash(hs):
            return None     # the hand we were playing (a restart of this peer): resume it
        closed = record.get("closed")
        if current is not None and (closed is None or closed["hand_no"] != current["hand_no"]):
            return (f"a new hand while hand {int(current['hand_no']) + 1} is not closed "
                    "(this seat did not sign it off)")
        if closed is not None:
            try:
                over = MatchState.of_hand_start({**hs, "state": closed["state"]}).is_over
            except (MatchStateError, KeyError, TypeError, ValueError) as exc:
                return f"a hand_start the match cannot follow ({exc})"
            before: Before | str | None = Before(int(closed["hand_no"]),
                                                 closed["result_hash"], closed["state"],
                                                 over=over)
        else:
            before = FIRST if hs.get("hand_no") == 0 else None   # met mid-way: on trust
        fault = first_fault(hs, before, Binding.from_record(record.get("binding")))
        return fault.detail if fault is not None else None

    def _on_hand_start(self, hs: Mapping[str, Any]) -> None:
        h = signing.entry_hash(hs)
        if self.hand_start is not None and h == signing.entry_hash(self.hand_start):
            return  # a resync repeats it
        problem = self._cannot_play(hs)
        if problem is not None:
            self._halt(problem, hs)
            return
        hand_id = hs["hand_id"]
        self.store.use_match(bytes(hs["match_id"]))
        kept = self.store.hand_seed(hand_id)
        if kept is not None and kept[1] != h:
            self._halt("a second, different hand_start for a hand id this seat already "
                       "committed to (a replayed hand)", hs)
            return
        if kept is None and self.store.is_spent(hand_id):
            self._halt("a hand id whose seed this seat already revealed", hs)
            return
        match_id = bytes(hs["match_id"])
        record = dict(self.store.match_record(match_id) or {})
        current = record.get("current")
        resumed = current is not None and current.get("hs_hash") == h
        try:
            if current is not None and resumed:
                before = dict(current["state"])
            elif record.get("closed") is not None:
                before = {**record["closed"]["state"],
                          "clock_used": (hs.get("state") or {}).get("clock_used")}
            else:
                before = dict(hs.get("state") or {})
            base = MatchState.of_hand_start(hs)
            state = MatchState(base.game, base.variant, base.n_seats, base.first_dealer,
                               base.options, base.rules, before)
            replica = HandReplica(hs, state=state)
        except (MatchStateError, ReplicaError, KeyError, TypeError) as exc:
            self._halt(f"cannot rebuild the hand: {exc}", hs)
            return
        if not resumed:
            record["current"] = {"hand_no": int(hs["hand_no"]), "hs_hash": h,
                                 "state": state.snapshot()}
            # the match's host and rules, as the first hand_start this seat met stated them
            record.setdefault("binding", Binding.of(hs).to_record())
            self.store.save_match_record(match_id, record)
        seed = kept[0] if kept is not None else self._seed_source(hand_id, self.seat)
        if kept is None:
            self.store.save_seed(hand_id, seed, h)   # before the commitment leaves
        if self.match_id != match_id:
            self.match_over = False
        self.match_id = match_id
        self.hand_start = dict(hs)
        self.match = state
        self.replica = replica
        self._dealer = SeatDealer(self.seat, self._identity, seed, self.hand_start,
                                  deal=replica.deal)
        self._dealer.before_sign = self._before_sign
        self._reset_hand()
        self._seen.add(h)
        self.standings = state.standings()
        self.controller.notify(StandingsChanged(dict(self.standings)))
        self.controller.hand_started(replica.hand, self.seat)
        audience = replica.audience_all()
        self._deal_positions = [p for p, a in enumerate(audience) if self.seat in a]
        self._inflight = None
        self._report_progress()

    # ------------------------------------------------------------------ the log
    def _on_entry(self, msg: Mapping[str, Any]) -> None:
        replica, dealer = self.replica, self._dealer
        assert replica is not None and dealer is not None
        h = signing.entry_hash(msg)
        if h in self._seen:
            return
        mtype = msg["type"]
        index = len(replica.deal.log)
        if mtype in HOST_TYPES:
            if not self._placed(msg):
                return
            self._seen.add(h)
            try:
                replica.check_host(msg)
            except TableError as exc:
                self._host_lied(exc.message, msg, index)
            try:
                replica.apply_host(msg, h)
            except (KeyError, TypeError, ValueError):
                self._halt("a host statement this seat cannot apply", msg)
                return
            self._after_host_entry(msg, index)
        else:
            seat = msg.get("seat")
            try:
                replica.check(seat if isinstance(seat, int) else -1, msg)
            except TableError as exc:
                if seat == self.seat and exc.code not in CHAIN_CODES:
                    self._halt(f"the host relayed a statement of ours it should not have "
                               f"accepted: {exc.message}", msg)
                else:
                    self._not_applied(msg, exc)
                return
            self._seen.add(h)
            try:
                replica.apply(msg, h)
            except (KeyError, TypeError, ValueError, LookupError):
                self._halt("a relayed statement this seat cannot apply", msg)
                return
            dealer.opened(index, msg)
            if self._inflight is not None and h == signing.entry_hash(self._inflight):
                self._inflight = None
            if mtype == "action":
                self._after_action(msg)
            elif mtype in ("release", "sealed", "lock"):
                self._decode()
        if dealer.problems and self._alarm is None:
            self._alarm = dealer.problems[0]
        self._report_progress()

    def _placed(self, entry: Mapping[str, Any]) -> bool:
        """A host statement signed by this hand's host for exactly the next place of the log
        this seat holds (`at`, `head`)? One that is not is never applied. Unsigned: anyone's
        forgery, dropped. For a later place: entries before it have not reached this seat (a
        frame out of order), so it waits, not marked seen (a resync brings it again). Signed
        for a place this log already fills, or on another head: the host shows this seat
        another history than the one it signs — the seat stops, keeping it (TABLE-10), and
        raises no alarm, which the host's record need not bear out."""
        replica = self.replica
        assert replica is not None
        deal = replica.deal
        if not signing.verify(deal.host_key, entry):
            self.evidence.append({"why": "a host statement the host did not sign",
                                  "statement": dict(entry)})
            return False
        at = entry.get("at")
        if at == len(deal.log) and entry.get("head") == deal.head:
            return True
        if isinstance(at, int) and not isinstance(at, bool) and at > len(deal.log):
            return False
        self._halt(f"the host signed a {entry.get('type')} for another history than the one "
                   f"it showed this seat (at {at!r}; this seat holds {len(deal.log)} entries)",
                   entry)
        return False

    def _not_applied(self, msg: Mapping[str, Any], exc: TableError) -> None:
        """A relayed seat statement the judge refuses on the history this seat holds — a
        forgery, a replay, a frame out of order or after a dropped one, or one the host should
        have refused: never applied (a forged `abandon` would have this seat reveal its seed
        mid-hand), not marked seen, and no `bad_relay` alarm either: the host's record need
        not hold the frame, and an alarm it does not bear out is judged false — a host could
        then frame an honest seat with one forged or dropped frame. It is kept as evidence; a
        host that did log it is caught at its next statement (`_placed`), at the hand_end,
        and in the audit of its record (the host accepted what the judge refuses)."""
        self.evidence.append({"why": f"a relayed {msg.get('type')} not applied: {exc.code} "
                                     f"({exc.message})", "statement": dict(msg)})

    def _host_lied(self, why: str, entry: Mapping[str, Any], index: int) -> None:
        """A host statement that is false: alarm while the hand can still take one, and
        stop the match either way (the statement is the evidence) — before anything else
        leaves this seat (`_next_message`): a seed revealed because of a lie the others never
        saw would show this seat's cards while their hand goes on."""
        self._raise_alarm("bad_host_statement", [], index, why)
        if self._lied is None:
            self._lied = (why, dict(entry))
        if self.replica is not None and self.replica.over:
            self._halt(why, entry)

    def _after_host_entry(self, entry: Mapping[str, Any], index: int) -> None:
        mtype = entry["type"]
        replica = self.replica
        assert replica is not None
        if mtype == "refusal":
            inner = entry.get("msg") or {}
            if self._inflight is not None and inner.get("seat") == self.seat \
                    and signing.entry_hash(inner) == signing.entry_hash(self._inflight):
                self._inflight = None
                text = f"{entry.get('code')}: {entry.get('message')}"
                if entry.get("rule"):
                    text += f" [{entry['rule']}]"
                self._error(f"the host refused our {inner.get('type')}: {text}")
        elif mtype == "timeout":
            seat = int(entry["seat"])
            self.controller.notify(TableLine(f"seat {seat} ran out of time "
                                             f"({entry.get('kind')})"))
            if seat == self.seat:
                self._turn_token += 1       # a decision still pending is too late now
                self._asked = False
                self._pending = None
        elif mtype == "hand_void":
            self.controller.notify(HandVoided(f"the hand is void: {entry.get('reason')} "
                                              f"{entry.get('detail')}"))

    def _on_unlogged_refusal(self, msg: Mapping[str, Any]) -> None:
        """A refusal kept out of the log: true only if our statement is not validly placed
        in our chain (or not a statement of the log at all)."""
        replica = self.replica
        inner = msg.get("msg") or {}
        if replica is None or msg.get("seat") != self.seat or \
                not signing.verify(replica.deal.host_key, msg):
            return
        mine = self._inflight
        if mine is None or signing.entry_hash(inner) != signing.entry_hash(mine):
            self._error(f"{msg.get('code')}: {msg.get('message')}")
            return
        if inner.get("type") == "sign_off":
            self._error(f"the host refused our sign-off: {msg.get('message')}")
            return
        try:
            replica.deal.check_chain(inner, self.seat)
        except DealError:
            self._inflight = None
            self._error(f"{msg.get('code')}: {msg.get('message')}")
            return
        self._halt(f"the host refused our sound {inner.get('type')} without logging it "
                   f"({msg.get('code')})", msg)

    def _after_action(self, msg: Mapping[str, Any]) -> None:
        replica, dealer = self.replica, self._dealer
        assert replica is not None and dealer is not None
        for pos, card in zip(msg["positions"], msg["cards"]):
            dealer.learn_public(pos, card)
        self._turn_token += 1
        self._asked = False
        self._pending = None
        try:
            action = replica.hand.action_from_wire(msg.get("action") or {})
            text = str(action)
        except ActionSyntaxError:
            text = "?"
        self.controller.notify(ActionPlayed(int(msg["seat"]), text, replica.hand))
        if not replica.hand.is_over:
            self._decode()

    def _decode(self) -> None:
        """Decode every position this seat may now know (its own as their keys arrive)."""
        replica, dealer = self.replica, self._dealer
        assert replica is not None and dealer is not None
        deal = replica.deal
        hand = replica.hand
        if deal.locked is None or hand.is_over:
            return
        mine = [p for p, aud in enumerate(replica.audience_all())
                if self.seat in aud and aud != replica.everyone and hand.card_at(p) is None]
        if not mine:
            return
        found, bad = dealer.decode(mine)
        for pos, card in sorted(found.items()):
            try:
                hand.learn(pos, card)
            except ValueError:
                bad.append(pos)
        if bad:
            self._raise_alarm("no_card", sorted(bad), None,
                              f"positions {sorted(bad)} decode to no card of this deck, or to "
                              "a card already seen elsewhere")

    def _raise_alarm(self, what: str, positions: list[int], ref: int | None,
                     detail: str) -> None:
        if self._alarm is None:
            self._alarm = (what, positions, ref, detail)

    # ------------------------------------------------------------------ closing a hand
    def _log_complete(self) -> bool:
        replica = self.replica
        if replica is None or replica.deal.phase != "reveal":
            return False
        return replica.seeds_in()

    def _audit(self) -> HandAudit:
        """This seat's own verdict and outcome of the hand (the whole audit)."""
        replica, match = self.replica, self.match
        assert replica is not None and match is not None
        start = match.copy()
        # a plain hand: settled on what the replica judged live (passes checked all at
        # once); anything amiss, or a seat that does not audit: the whole audit
        report = (settle_live(replica, start, passes=True) if self.audit else None) \
            or audit_hand(replica.deal.log, start, passes=self.audit, compose=True)
        self._report = report
        if report.outcome is not None and report.state_after is not None:
            self._result_hash = report.result_hash(replica.deal.head)
        return report

    def _closed_on_disk(self) -> bool:
        """This seat's match record has the hand in play folded in (`_hand_closed_here`, by
        this run or before a restart: only then is the record read)."""
        hs = self.hand_start
        if hs is None or self.match_id is None:
            return True
        if self._folded == (self.match_id, int(hs["hand_no"])):
            return True
        closed = (self.store.match_record(self.match_id) or {}).get("closed")
        return closed is not None and closed.get("hand_no") == int(hs["hand_no"])

    def _fold_after_restart(self) -> None:
        """A sign-off saved before a restart (a crash, a full disk) that came before the
        hand was folded into the match record: fold it in once the log is whole (when the
        saved sign-off is sent again, or at the latest when the hand_end comes)."""
        if self._signed_off and self._closing is None and not self.halted \
                and self._log_complete() and not self._closed_on_disk():
            self._hand_closed_here(self._audit())

    def _hand_closed_here(self, report: HandAudit) -> None:
        """Fold our own outcome into our match state; tell the controller."""
        replica, hs = self.replica, self.hand_start
        assert replica is not None and hs is not None and self.match_id is not None
        outcome = report.outcome
        if outcome is None or report.state_after is None or self._result_hash is None:
            self._halt("this hand cannot be judged: " + str(report.verdict))
            return
        self.match = report.state_after
        record = dict(self.store.match_record(self.match_id) or {})
        record["closed"] = {"hand_no": int(hs["hand_no"]), "result_hash": self._result_hash,
                            "state": self.match.snapshot()}
        self.store.save_match_record(self.match_id, record)
        self._folded = (self.match_id, int(hs["hand_no"]))
        self.standings = self.match.standings()
        verdict = "fair" if report.verdict.fair else str(report.verdict)
        self.controller.notify(StandingsChanged(dict(self.standings)))
        if outcome.kind != "scored":
            self.controller.notify(TableLine(f"hand {int(hs['hand_no']) + 1}: "
                                             f"{outcome.describe()}"))
        self.controller.hand_ended(replica.hand, outcome.result, verdict)
        if outcome.kind == "host_fault":
            self._halt(outcome.detail)
        elif self.match.is_over:
            self.match_over = True

    def _on_hand_end(self, msg: Mapping[str, Any]) -> None:
        replica = self.replica
        assert replica is not None
        if self._hand_end is not None:
            return
        try:
            end = HandEnd.parse(msg)                 # parsed once: typed, raw kept
        except StatementError as exc:
            self._error(f"a malformed hand_end ({exc})")
            return
        if not end.signed_by(replica.deal.host_key):
            self._error("a hand_end the host did not sign")
            return
        self._hand_end = dict(msg)
        self._fold_after_restart()
        if self._inflight is not None and self._inflight.get("type") == "sign_off":
            self._inflight = None           # the host closed the hand: nothing is in flight
        problem = None      # either is the host's signed word against ours (TABLE-10)
        if end.transcript_hash != replica.deal.head:
            problem = "the host closed the hand on a history other than the one it showed us"
        elif self._result_hash is not None and end.result_hash != self._result_hash:
            problem = "the host's result of this hand differs from the one we signed"
        if problem is not None:
            self._halt(problem, msg)
        checked = [(so, sign_off_problem(replica.hs, so)) for so in end.sign_offs]
        bad = [why for _, why in checked if why is not None]
        if bad and problem is None:
            self._halt("the host's signed hand_end carries a sign-off no seat signed: "
                       + bad[0], msg)
        if self.match_id is not None and self.hand_start is not None:
            own = [m for m in self.store.statements(replica.hand_id)
                   if m.get("type") == "sign_off"]
            good = [so for so, why in checked if why is None]
            # every seat's sign-off: this seat's own record proves the hand by itself
            t = Transcript([dict(e) for e in replica.deal.log], dict(msg),
                           merge_sign_offs(own, good))
            self.store.save_record(self.match_id,
                                   f"hand-{int(self.hand_start['hand_no']) + 1:03d}.p2pb",
                                   t.to_bytes())
        if self.match_over:
            self.controller.match_ended(self.standings or {})

    def _error(self, text: str) -> None:
        """Tell the controller something went wrong (the player sees `text`)."""
        self.controller.notify(ErrorNotice(text))

    def _report_progress(self) -> None:
        """Tell the controller how far the opening deal has got, once per step."""
        replica = self.replica
        if self._progress_over or replica is None:
            return
        deal = replica.deal
        n = deal.n_seats
        mine = self._deal_positions
        total = 3 * n + len(mine)
        passes = len(deal.pass_entries)
        hand = replica.hand
        if deal.phase not in DEAL_PHASES or hand.is_over:
            done, text = total, "the deal stopped"
        elif deal.phase == "commit":
            done, text = len(deal.commitments), "fair deal: every seat commits to its seed"
        elif deal.phase == "shuffle":
            done, text = n + passes, f"fair deal: shuffle pass {passes + 1}/{n}"
        elif deal.phase == "lock":
            done, text = n + passes, f"fair deal: lock pass {passes - n + 1}/{n}"
        else:
            known = sum(1 for p in mine if hand.card_at(p) is not None)
            done, text = 3 * n + known, f"fair deal: unlocking your cards {known}/{len(mine)}"
        if done == self._progress_done:
            return
        self._progress_done = done
        self._progress_over = done >= total
        self.controller.notify(DealProgress(text, done, total))

    # ------------------------------------------------------------------ what is due
    def _before_sign(self, body: Mapping[str, Any]) -> None:
        """The seat's own check of every statement before it signs it: the same judge the
        host runs, so an honest seat's statement can only be refused falsely."""
        replica = self.replica
        assert replica is not None
        if body.get("type") == "sign_off":
            return
        replica.check_content(self.seat, body)

    def _pump(self) -> None:
        if self._pumping:
            return
        self._pumping = True
        try:
            if self._lied is not None and not self._alarmed and not self.halted:
                self._alarmed = True
                dispute = self._dispute()
                if dispute is not None:
                    self._send(dispute)
            while self._inflight is None and not self.halted:
                msg = self._next_message()
                if msg is None:
                    break
                self._send(msg)
                if msg["type"] == "sign_off":
                    report, self._closing = self._closing, None
                    self._signed_off = True
                    if report is not None:          # the sign-off is saved: fold it in
                        self._hand_closed_here(report)
                    else:                           # re-sent after a restart
                        self._fold_after_restart()
        except (TableError, StoreError) as exc:
            self._halt(f"this seat refused to sign its own statement: {exc}")
        finally:
            self._pumping = False

    def _dispute(self) -> dict[str, Any] | None:
        """The alarm that disputes a host lie, carrying the host's signed statement as its
        evidence. It goes out at once, even behind a statement still in flight (chained
        after it, never at its seq): a host that showed the lie to this seat alone will
        soon show it the true history, and the dispute must be out before. It is not judged
        by our own replica, which the lie may have stopped: the host judges it by the log
        it keeps, and the audit by the evidence (two host statements for one place)."""
        replica, dealer = self.replica, self._dealer
        if replica is None or dealer is None or self._alarm is None or self._lied is None \
                or replica.deal.phase not in ("shuffle", "lock", "deal", "reveal"):
            return None
        chain = replica.deal.chains[self.seat]
        seq, prev = chain.next_seq, chain.last_hash
        if self._inflight is not None and self._inflight.get("seq") == seq:
            seq, prev = seq + 1, signing.entry_hash(self._inflight)
        what, positions, ref, detail = self._alarm
        return signing.sign(self._identity, {
            "type": "alarm", "hand_id": replica.hand_id, "seat": self.seat, "seq": seq,
            "prev_hash": prev, "what": what, "positions": list(positions), "ref": ref,
            "detail": detail, "evidence": dict(self._lied[1])})

    def _replay_saved(self) -> dict[str, Any] | None:
        """A statement already signed at our next seq (before a crash): send it again."""
        replica = self.replica
        assert replica is not None
        chain = replica.deal.chains[self.seat]
        return self.store.statement(replica.hand_id, chain.next_seq)

    def _next_message(self) -> dict[str, Any] | None:
        dealer, replica = self._dealer, self.replica
        if dealer is None or replica is None:
            return None
        if self._signed_off:
            return None
        saved = self._replay_saved()
        if saved is not None:
            return saved
        deal = replica.deal
        if self._lied is not None:      # the dispute went out (`_pump`); then nothing
            self._halt(*self._lied)
            return None
        if deal.phase == "reveal":
            if replica.due(self.seat) == "reveal":
                self.store.mark_spent(replica.hand_id)     # before the seed leaves
                return dealer.make_reveal()
            if self._log_complete():
                report = self._audit()
                self._signed_off = True
                if self._result_hash is None:
                    self._hand_closed_here(report)
                    return None
                self._closing = report
                return dealer.make_sign_off(deal.head, self._result_hash)
            return None
        if self._alarm is not None and not self._alarmed \
                and deal.phase in ("shuffle", "lock", "deal") and not replica.over:
            self._alarmed = True
            what, positions, ref, detail = self._alarm
            return dealer.make_alarm(what, positions, ref, detail)
        if self._alarmed:
            return None
        if self._abandon_wanted is not None and not replica.over:
            reason, self._abandon_wanted = self._abandon_wanted, None
            return dealer.make_abandon(reason)
        owed = replica.due(self.seat)
        if owed == "commit":
            return dealer.make_commit()
        if owed in ("shuffle", "lock"):
            try:
                return dealer.make_pass()
            except BadPoint as exc:
                ref = deal.pass_entries[-1] if deal.pass_entries else None
                self._alarmed = True
                return dealer.make_alarm("bad_point", list(exc.indices), ref,
                                         f"the deck I received holds no valid group element at "
                                         f"positions {list(exc.indices)[:6]}")
        if owed == "release":
            public, _ = replica.keys_due(self.seat)
            return dealer.make_release(public)
        if owed == "sealed":
            _, sealed = replica.keys_due(self.seat)
            for to, positions in sorted(sealed.items()):
                return dealer.make_sealed(to, positions)
        if owed != "move" or not self._ready():
            return None
        if replica.bot_plays(self.seat) and self.fallback is not None:
            action = self.fallback(replica.hand, self.seat)
            self.controller.notify(TableLine(f"time ran out: the bot plays {action} for you "
                                             "[TABLE-3]"))
            return self._action_message(action)
        if self._pending is not None:
            action, self._pending = self._pending, None
            return self._action_message(action)
        for _ in range(MAX_QUICK_REFUSALS):
            if self._asked:
                break
            self._asked = True
            self.controller.your_turn(replica.hand, self.seat, self._submitter(self._turn_token))
            if self._pending is not None:
                action, self._pending = self._pending, None
                return self._action_message(action)
            # not asked any more: refused at once (a bot's slip), so ask again
        return None

    def _ready(self) -> bool:
        """Every position this seat is entitled to is known to it (keys have arrived)."""
        replica = self.replica
        assert replica is not None
        hand = replica.hand
        return all(hand.card_at(p) is not None for p, a in enumerate(replica.audience_all())
                   if self.seat in a)

    def _submitter(self, token: int) -> Callable[[Action], None]:
        """The `submit` callback of one turn (a stale one is refused as too late)."""
        def submit(action: Action) -> None:
            self._submit(token, action)
        return submit

    def _submit(self, token: int, action: Action) -> None:
        """The controller's decision (now or later): checked here against the replica, so a
        person's slip never reaches the host and an honest seat is never refused."""
        replica = self.replica
        hand = replica.hand if replica is not None else None
        if replica is None or hand is None or token != self._turn_token \
                or hand.to_move != self.seat or replica.over or self.halted:
            if hand is not None:
                self.controller.rejected(hand, self.seat, "too late: that turn is over")
            return
        trial = hand.copy()
        try:
            trial.apply(self.seat, action)
        except RuleViolation as exc:
            self._asked = False
            self.controller.rejected(hand, self.seat, f"{exc.message} [{exc.rule_id}]")
        except (ActionSyntaxError, ValueError, LookupError) as exc:
            self._asked = False
            self.controller.rejected(hand, self.seat, str(exc))
        else:
            self._pending = action
        if not self._pumping:
            self._pump()
            if self.outbox and self.on_outbox is not None:
                self.on_outbox()

    def _action_message(self, action: Action) -> dict[str, Any]:
        dealer = self._dealer
        assert dealer is not None
        deal = dealer.deal
        hidden = [(p, c) for p, c in action.shown() if p not in deal.public_cards]
        return dealer.make_action(action.to_wire(), hidden)
