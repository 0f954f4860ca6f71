"""`HostTable`: the host's side of one match, sans-IO — a fold over its events.

The host referees: it keeps the match state, the current hand's `HandReplica` (the one
judge every node runs), each seat's public key, and signs its own statements (hand starts,
refusals, timeouts, voids, hand ends) with its identity key. It never holds a seed, a lock
key it could use alone, or a hidden card.

Everything that happens to a match is an **event** `{"e": kind, "t": ms, ...}` given to
`apply`: `deal` (the next hand), `msg` (a seat's table message), `expire` (a clock ran
out), `seat` (a new occupant from the next hand on), `resume` (the host restarted), `close`
(sign-offs are overdue). `apply` returns a `Step`: what to send to whom, and — when the
event changed the match — the event to append to the journal. The journal is exactly the
list of those events; replaying it into a fresh `HostTable` rebuilds the same state, the
same log, byte for byte (every host signature is deterministic), which is how a host killed
at any moment resumes. The clock is an input: the table reads no time; `next_deadline()`
says when it wants an `expire`, and the event carries the time.

Connections are not events (`set_connected`): after a restart every seat is away until it
comes back, and only what a dropped seat's absence caused (a `grace` timeout) is journaled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..fairdeal import signing
from ..fairdeal.deal import DealError
from ..fairdeal.local import NO_RESULT, make_hand_start
from ..fairdeal.transcript import Transcript
from ..games import get_game
from ..games.base import forfeit_result
from ..stages import TableStage, advance
from . import messages as M
from .audit import HandAudit, audit_hand, settle_live
from .matchstate import MatchState
from .outcome import HandOutcome
from .replica import HandReplica, TableError
from .rules import TableRules


class Outgoing(NamedTuple):
    """A message for one seat (`to` an int) or for every seat (`to` None)."""

    to: int | None
    msg: dict[str, Any]


@dataclass
class HandRecord:
    """What a finished hand left: its number, outcome and transcript."""

    hand_no: int
    outcome: HandOutcome
    transcript: Transcript
    standings: dict[str, Any]

    @property
    def result(self) -> Any:
        return self.outcome.result


@dataclass
class Step:
    """What one event did: messages to send, the event to journal (None: nothing changed),
    a finished hand's record, and whether the match is now over."""

    out: list[Outgoing] = field(default_factory=list)
    journal: dict[str, Any] | None = None
    record: HandRecord | None = None
    over: bool = False
    lines: list[str] = field(default_factory=list)   # what the host says about it


@dataclass
class MatchConfig:
    """What a match is, fixed when its seats fill: the first event of its journal."""

    game: str
    variant: str
    n_seats: int
    first_dealer: int
    match_id: bytes
    seat_keys: list[bytes]
    names: list[str]
    options: dict[str, Any] = field(default_factory=dict)
    rules: TableRules = field(default_factory=TableRules)
    hands: int | None = None
    """Stop after this many hands (`host --hands`), or None: play to the target."""

    def to_wire(self) -> dict[str, Any]:
        return {"game": self.game, "variant": self.variant, "n_seats": self.n_seats,
                "first_dealer": self.first_dealer, "match_id": self.match_id,
                "seat_keys": list(self.seat_keys), "names": list(self.names),
                "options": dict(self.options), "rules": self.rules.to_wire(),
                "hands": self.hands}

    @classmethod
    def from_wire(cls, d: Mapping[str, Any]) -> MatchConfig:
        return cls(str(d["game"]), str(d["variant"]), int(d["n_seats"]),
                   int(d["first_dealer"]), bytes(d["match_id"]),
                   [bytes(k) for k in d["seat_keys"]], [str(n) for n in d["names"]],
                   dict(d.get("options") or {}), TableRules.from_wire(d.get("rules") or {}),
                   d.get("hands"))


class HostTable:
    """One match's referee (see the module docstring). Stages: idle → hand → signoff →
    between → hand … → over."""

    def __init__(self, config: MatchConfig, host_key: Ed25519PrivateKey) -> None:
        spec = get_game(config.game)
        if config.variant not in spec.presets:
            raise ValueError(f"unknown {config.game} variant {config.variant!r}; choose one "
                             f"of: {', '.join(spec.presets)}")
        if len(config.seat_keys) != config.n_seats or len(config.names) != config.n_seats:
            raise ValueError(f"{config.n_seats} seats need {config.n_seats} keys and names")
        if len(config.match_id) != 16:
            raise ValueError("match_id must be 16 bytes")
        self.config = config
        self.host_key = host_key
        self.host_public = signing.public_key_bytes(host_key)
        self.rules = config.rules
        self.n_seats = config.n_seats
        self.seat_keys = list(config.seat_keys)
        self.names = list(config.names)
        self.state = MatchState(config.game, config.variant, config.n_seats,
                                config.first_dealer, config.options, config.rules)
        self.hand_no = 0
        self.hands_scored = 0
        self.prev_result = NO_RESULT
        self.stage = TableStage.IDLE
        self.replica: HandReplica | None = None
        self.relayed = 0
        self.audit: HandAudit | None = None
        self.outcome: HandOutcome | None = None
        self.state_after: MatchState | None = None
        self.result_hash: bytes | None = None
        self.full_audit = False
        self.sign_offs: dict[int, dict[str, Any]] = {}
        self.disputes: dict[int, dict[str, Any]] = {}
        self.hand_end: dict[str, Any] | None = None
        self.end_reason: str | None = None
        # clocks (inputs, not journaled beyond what they caused)
        self.now = 0
        self.connected = [False] * self.n_seats
        self.away_since = [0] * self.n_seats
        self.due_kind: list[str | None] = [None] * self.n_seats
        self.due_since = [0] * self.n_seats
        self.turn_seat: int | None = None
        self.turn_since = 0
        self.turn_hand: Any = None      # the hand state the running move clock began on
        self.signoff_since = 0
        self.held_since: int | None = None
        """Since when the hand waits on an absent seat (`waiting_on`): no other clock runs."""
        self._clock_shown: tuple[Any, ...] | None = None

    # ------------------------------------------------------------------ public facts
    @property
    def match_over(self) -> bool:
        return self.stage == "over"

    @property
    def match_id(self) -> bytes:
        return self.config.match_id

    def standings(self) -> dict[str, Any]:
        return self.state.standings()

    @property
    def hand_id(self) -> bytes | None:
        return self.replica.hand_id if self.replica is not None else None

    @property
    def log(self) -> list[Mapping[str, Any]]:
        return self.replica.deal.log if self.replica is not None else []

    def public_view(self) -> dict[str, Any] | None:
        return self.replica.hand.public_view() if self.replica is not None else None

    # ------------------------------------------------------------------ the fold
    def apply(self, event: Mapping[str, Any]) -> Step:
        """Apply one event (see the module docstring); never raises on a seat's input."""
        kind = event.get("e")
        t = int(event.get("t", self.now))
        self.now = max(self.now, t)
        if kind == "msg":
            step = self._on_msg(int(event["seat"]), event["msg"], event)
        elif kind == "deal":
            step = self._deal()
        elif kind == "expire":
            step = self._expire(event)
        elif kind == "seat":
            step = self._replace(int(event["seat"]), bytes(event["key"]), str(event["name"]))
        elif kind == "resume":
            step = self._resume()
        elif kind == "lost":
            step = self._lost_between(int(event["seat"]), str(event.get("cause", "grace")))
        elif kind == "close":
            step = self._close() if self.stage == "signoff" else Step()
            if step.record is not None:
                step.journal = dict(event)
        else:
            raise ValueError(f"unknown event {kind!r}")
        self._track_clocks()
        self._hold_clocks()
        step.out.extend(self._clock_notice())
        return step

    # ------------------------------------------------------------------ dealing
    def can_deal(self) -> bool:
        """A hand may be dealt now (the room also waits for every seat to be connected)."""
        if self.stage not in ("idle", "between"):
            return False
        return not self.state.is_over and not self._hands_done()

    def _hands_done(self) -> bool:
        return self.config.hands is not None and self.hands_scored >= self.config.hands

    def _deal(self) -> Step:
        if not self.can_deal():
            return Step()
        hand = self.state.new_hand()
        hs = make_hand_start(
            self.host_key, n_seats=self.n_seats, deck_id=hand.deck.kind.value,
            n_cards=len(hand.deck), seat_keys=self.seat_keys, match_id=self.match_id,
            hand_no=self.hand_no, game=self.config.game, variant=self.config.variant,
            dealer=hand.dealer, first_dealer=self.config.first_dealer,
            options=self.config.options, names=self.names, state=self.state.snapshot(),
            prev_result=self.prev_result, clock=self.rules.to_wire())
        self.replica = HandReplica(hs, state=self.state)
        self.stage = advance(self.stage, TableStage.HAND)
        self.relayed = 1
        self.audit = self.outcome = self.state_after = None
        self.result_hash = None
        self.sign_offs = {}
        self.disputes = {}
        self.hand_end = None
        self.due_kind = [None] * self.n_seats
        self.turn_seat = None
        return Step([Outgoing(None, hs)], {"e": "deal", "t": self.now},
                     lines=[f"hand {self.hand_no + 1} dealt (dealer seat {hand.dealer})"])

    def _replace(self, seat: int, key: bytes, name: str) -> Step:
        """A new occupant (a bot, or the player on a new device) from the next hand on."""
        if not 0 <= seat < self.n_seats or len(key) != 32:
            raise ValueError("bad seat or key")
        self.seat_keys[seat] = key
        self.names[seat] = name
        return Step(journal={"e": "seat", "t": self.now, "seat": seat, "key": key,
                             "name": name})

    def _lost_between(self, seat: int, cause: str) -> Step:
        """A seat stayed away between hands past its grace and no bot may take it: its side
        loses the match by abandonment (TABLE-6, TABLE-9)."""
        if self.stage not in ("idle", "between") or self.state.is_over:
            return Step()
        sides = self.state.match.standings().get("sides") or \
            [[s] for s in range(self.n_seats)]
        result = forfeit_result([list(x) for x in sides], seat, cause, self.n_seats)
        self.state.record(result)
        self.stage = advance(self.stage, TableStage.OVER)
        self.end_reason = "abandonment"
        return Step(journal={"e": "lost", "t": self.now, "seat": seat, "cause": cause},
                    over=True, lines=[(f"seat {seat} ({self.names[seat]}) did not come back: "
                                       "its side loses by abandonment [TABLE-6, TABLE-9]")])

    def _resume(self) -> Step:
        """The host restarted: every seat is away until it comes back; clocks restart."""
        self.connected = [False] * self.n_seats
        self.away_since = [self.now] * self.n_seats
        self.due_since = [self.now] * self.n_seats
        self.turn_since = self.now
        self.signoff_since = self.now
        self.held_since = None
        return Step(journal={"e": "resume", "t": self.now})

    # ------------------------------------------------------------------ seat messages
    def _on_msg(self, seat: int, msg: Mapping[str, Any], event: Mapping[str, Any]) -> Step:
        mtype = msg.get("type")
        if mtype == "resync":
            return Step(self.resync(seat))
        if not 0 <= seat < self.n_seats:
            return Step([Outgoing(seat, M.error("table.wrong_seat", f"no seat {seat}"))])
        if mtype not in M.SEAT_AUTHORED:
            return Step([Outgoing(seat, M.error("table.wrong_phase",
                                                f"a seat does not send {mtype!r}"))])
        replica = self.replica
        if self._already_accepted(seat, msg):
            return Step()       # also after the hand closed: a re-sent sign-off, say
        if replica is None or self.stage in ("idle", "between", "over"):
            code = "table.match_over" if self.stage == "over" else "table.no_hand"
            return Step([Outgoing(seat, M.error(code, "the match is over" if
                                                self.stage == "over" else
                                                "no hand is in progress"))])
        if mtype == "sign_off":
            return self._on_sign_off(seat, msg, event)
        if self.stage != "hand":
            return self._refuse_unlogged(seat, msg, "table.wrong_phase",
                                         "the hand's log is closed: only sign-offs now")
        _, exc, entry = replica.receive(seat, msg, self.host_key)
        step = Step(journal=dict(event))
        if exc is None and mtype == "alarm":
            step.lines.append(f"ALARM from seat {seat} ({self.names[seat]}): "
                              f"{msg.get('what')} — {msg.get('detail')}")
        elif exc is None and mtype == "abandon":
            step.lines.append(f"seat {seat} ({self.names[seat]}) abandons the match "
                              "[TABLE-9]")
        if exc is not None:
            assert entry is not None
            if not entry["logged"]:
                return Step([Outgoing(seat, entry)], lines=[
                    f"refused seat {seat}'s {mtype}: {exc.code} ({exc.message})"])
            step.lines.append(f"refused seat {seat}'s {mtype}: {exc.code} ({exc.message})")
        self._after_log_change(step)
        return step

    def _refuse_unlogged(self, seat: int, msg: Mapping[str, Any], code: str,
                         message: str) -> Step:
        assert self.replica is not None
        entry = self.replica.deal.host_statement(self.host_key, "refusal", seat=seat,
                                                 code=code, message=message, rule=None,
                                                 msg=dict(msg), logged=False)
        return Step([Outgoing(seat, entry)])

    def _already_accepted(self, seat: int, msg: Mapping[str, Any]) -> bool:
        """`msg` is an exact copy of a statement `seat` already made in this hand (in the
        log, held, refused in the log, or a sign-off): a peer re-sending after a reconnect.
        No answer at all: the first copy's answer is in the log it resyncs."""
        replica = self.replica
        if replica is None or msg.get("hand_id") != replica.hand_id or msg.get("seat") != seat:
            return False
        if msg.get("type") == "sign_off":
            kept = self.sign_offs.get(seat) or self.disputes.get(seat)
            return kept is not None and signing.entry_hash(kept) == signing.entry_hash(msg)
        seq = msg.get("seq")
        if not isinstance(seq, int) or not 0 <= seq < replica.deal.chains[seat].next_seq:
            return False
        h = signing.entry_hash(msg)
        deal = replica.deal
        for i in range(len(deal.log) - 1, 0, -1):
            e = deal.log[i]
            inner = e.get("msg") if e.get("type") == "refusal" else e
            if isinstance(inner, Mapping) and inner.get("seat") == seat \
                    and inner.get("seq") == seq:
                return (deal.hashes[i] if inner is e else signing.entry_hash(inner)) == h
        return False

    def _after_log_change(self, step: Step) -> None:
        """After the log grew: void on a failed public reveal, relay what may be relayed,
        and close the hand's log once every seed it needs is in."""
        replica = self.replica
        assert replica is not None
        if replica.bad_public and replica.stop is None:
            entry = replica.deal.host_statement(
                self.host_key, "hand_void", reason="bad_reveal", seat=None,
                detail=f"public positions {replica.bad_public[:6]} decode to no card of "
                       "this deck (a wrong key or pass: the audit names it)")
            replica.apply_host(entry)
            step.lines.append("hand void: a public card failed to decode")
        step.out.extend(self._relay_pending())
        if self._log_complete():
            self._finish(step)

    def _relay_pending(self) -> list[Outgoing]:
        """Log entries not yet sent to the seats (commitments are held until all are in, so
        no seat commits knowing another's commitment)."""
        replica = self.replica
        assert replica is not None
        if replica.deal.phase == "commit" and replica.stop is None:
            return []
        log = replica.deal.log
        out = [Outgoing(None, dict(e)) for e in log[self.relayed:]]
        self.relayed = len(log)
        return out

    def _log_complete(self) -> bool:
        """Play is over and every seed the hand needs is in (a seat put out of the hand by
        a timeout owes none)."""
        replica = self.replica
        if replica is None or self.stage != "hand" or replica.deal.phase != "reveal":
            return False
        return replica.seeds_in()

    # ------------------------------------------------------------------ timeouts
    def set_connected(self, seat: int, connected: bool, t: int) -> list[Outgoing]:
        """A seat's connection came or went (not an event: see the module docstring)."""
        self.now = max(self.now, t)
        if self.connected[seat] != connected:
            self.connected[seat] = connected
            if not connected:
                self.away_since[seat] = self.now
            else:
                self.due_since[seat] = self.now
        self._hold_clocks()
        return self._clock_notice()

    # ------------------------------------------------------------------ an absent seat
    def waiting_on(self) -> list[int]:
        """The absent seats the hand waits on: dropped, owing a step or a move, not yet out
        of the hand. While there is one, no other seat's clock runs (TABLE-13)."""
        replica = self.replica
        if self.stage != "hand" or replica is None:
            return []
        return [s for s in range(self.n_seats) if not self.connected[s]
                and self.due_kind[s] is not None and s not in replica.gone]

    def _hold_clocks(self) -> None:
        """Stop every present seat's clock while the hand waits on an absent one, and start
        them again, the time held not counted, when it no longer does (TABLE-13)."""
        waiting = bool(self.waiting_on())
        if waiting and self.held_since is None:
            self.held_since = self.now
        elif not waiting and self.held_since is not None:
            held_from, self.held_since = self.held_since, None
            for seat in range(self.n_seats):
                if self.connected[seat]:
                    self.due_since[seat] += max(0, self.now - max(self.due_since[seat],
                                                                  held_from))
            self.turn_since += max(0, self.now - max(self.turn_since, held_from))

    def next_deadline(self) -> tuple[int, int, str] | None:
        """(when, seat, kind) of the first clock to run out, or None: the net layer calls
        `apply({"e": "expire", "t": when})` then."""
        if self.stage == "signoff":
            waiting = self._signoff_waiting()
            if not waiting:
                return None
            away = [s for s in waiting if not self.connected[s]]
            wait = self.rules.grace_ms if away else self.rules.step_ms
            return (self.signoff_since + wait, waiting[0], "signoff")
        if self.stage != "hand" or self.replica is None:
            return None
        best: tuple[int, int, str] | None = None
        for seat in range(self.n_seats):
            d = self._deadline_of(seat)
            if d is not None and (best is None or d < best):
                best = d
        return best

    def _deadline_of(self, seat: int) -> tuple[int, int, str] | None:
        replica = self.replica
        assert replica is not None
        owed = self.due_kind[seat]
        if owed is None or seat in replica.gone:
            return None
        rules = self.rules
        if not self.connected[seat]:
            return (max(self.away_since[seat], self.due_since[seat]) + rules.grace_ms, seat,
                    "grace")
        if self.held_since is not None:
            return None                 # the hand waits on an absent seat (TABLE-13)
        if owed == "move" and not replica.bot_plays(seat):
            options = []
            if rules.turn_ms is not None:
                options.append((self.turn_since + rules.turn_ms, seat, "turn"))
            if rules.match_ms is not None:
                left = rules.match_ms - self.state.clock_used[seat]
                options.append((self.turn_since + max(0, left), seat, "match_clock"))
            return min(options) if options else None
        return (self.due_since[seat] + rules.step_ms, seat, "step")

    def _expire(self, event: Mapping[str, Any]) -> Step:
        """A clock ran out: the seat's timeout statement (journaled as `seat`/`kind`, so a
        replay does exactly this whatever the clocks say then)."""
        if "seat" in event:
            seat, kind = int(event["seat"]), str(event["kind"])
        else:
            due = self.next_deadline()
            if due is None or due[0] > self.now:
                return Step()
            _, seat, kind = due
        if kind == "signoff":
            if self.stage != "signoff":
                return Step()
            step = self._close()
            step.journal = {"e": "expire", "t": self.now, "seat": seat, "kind": kind}
            return step
        replica = self.replica
        if replica is None or self.stage != "hand":
            return Step()
        count = replica.timeouts[seat] + (1 if kind == "turn" else 0)
        owed = replica.due(seat)
        entry = replica.deal.host_statement(
            self.host_key, "timeout", seat=seat, kind=kind, count=count,
            detail=f"seat {seat} ({self.names[seat]}) owed {owed or 'nothing'}: its {kind} "
                   "time ran out")
        try:
            replica.check_host(entry)       # never state a timeout the log does not support
        except TableError:
            return Step()
        if kind == "turn" and self.rules.match_ms is not None:
            self.state.clock_used[seat] += max(0, self.now - self.turn_since)
        replica.apply_host(entry)
        if kind == "turn":      # the bot's move is a step owed from now (TABLE-3, TABLE-5);
            self.due_since[seat] = self.turn_since = self.now   # this turn's time is counted
        step = Step(journal={"e": "expire", "t": self.now, "seat": seat, "kind": kind},
                    lines=[f"timeout: seat {seat} ({self.names[seat]}), {kind}"
                           + (f" #{count}" if kind == "turn" else "")])
        self._after_log_change(step)
        return step

    def _track_clocks(self) -> None:
        """Note when each seat's debt began (the clocks run from there)."""
        replica = self.replica
        if replica is None or self.stage != "hand":
            return
        for seat in range(self.n_seats):
            owed = replica.due(seat)
            if owed != self.due_kind[seat]:
                self.due_kind[seat] = owed
                self.due_since[seat] = self.now
        mover = replica.hand.to_move if replica.stage == "play" else None
        fresh = mover != self.turn_seat or (self.config.game == "briscola"  # a card, a turn
                                             and replica.hand is not self.turn_hand)
        if mover is not None and fresh and self.due_kind[mover] != "move":
            # its move clock starts once its cards are unlocked (TABLE-1)
            mover, fresh = None, self.turn_seat is not None
        if fresh:
            if self.turn_seat is not None and self.rules.match_ms is not None \
                    and not replica.bot_plays(self.turn_seat):
                self.state.clock_used[self.turn_seat] += max(0, self.now - self.turn_since)
            self.turn_seat = mover
            self.turn_since = self.now
            self.turn_hand = replica.hand

    def _clock_notice(self) -> list[Outgoing]:
        """A `clock` message when the move clock changes hands (display only: the automatic
        steps' deadlines are not shown)."""
        due = None
        if self.stage == "hand" and self.replica is not None and self.turn_seat is not None \
                and self.due_kind[self.turn_seat] == "move":
            due = self._deadline_of(self.turn_seat)
        absent = self.waiting_on() if self.held_since is not None else []
        if absent:                     # the grace of the seat the hand waits on (TABLE-13)
            due = self._deadline_of(absent[0])
        if due is None and self.stage == "hand" and self._clock_shown is not None:
            return []       # between two moves (keys on their way): keep the last one shown
        seat, kind, ms = (None, "none", None) if due is None else \
            (due[1], due[2], max(0, due[0] - self.now))
        shown = (seat, kind, due[0] if due else None)
        if shown == self._clock_shown:
            return []
        self._clock_shown = shown
        match_ms = [] if self.rules.match_ms is None else \
            [max(0, self.rules.match_ms - u) for u in self.state.clock_used]
        warn = min(20_000, (self.rules.turn_ms or 100_000) // 4)
        return [Outgoing(None, {"type": "clock", "seat": seat, "kind": kind, "ms": ms,
                                "match_ms": match_ms, "warn_ms": warn})]

    # ------------------------------------------------------------------ closing a hand
    def _finish(self, step: Step) -> None:
        """Every seed is in: the quick audit (the full one if anything is amiss), the
        outcome; the seats audit too and sign it off."""
        replica = self.replica
        assert replica is not None
        quick = settle_live(replica)
        full = quick is None
        report = quick if quick is not None else \
            audit_hand(replica.deal.log, self.state, passes=True)
        self._settle(report, full)
        self.stage = advance(self.stage, TableStage.SIGNOFF)
        self.signoff_since = self.now
        assert self.outcome is not None
        step.lines.append(f"hand {self.hand_no + 1}: {self.outcome.describe()}")
        if not self._signoff_waiting():
            self._close_into(step)

    def _settle(self, report: HandAudit, full: bool) -> None:
        assert self.replica is not None
        self.audit = report
        self.full_audit = full
        self.outcome = report.outcome
        self.state_after = report.state_after
        if self.state_after is not None:
            self.state_after.clock_used = list(self.state.clock_used)
        self.result_hash = report.result_hash(self.replica.deal.head)

    def _on_sign_off(self, seat: int, msg: Mapping[str, Any], event: Mapping[str, Any]
                     ) -> Step:
        replica = self.replica
        assert replica is not None
        if self.stage != "signoff":
            return self._refuse_unlogged(seat, msg, "table.wrong_phase",
                                         "sign-offs come once every seed is in")
        if seat in self.sign_offs or seat in self.disputes:
            return self._refuse_unlogged(seat, msg, "table.replayed_seq",
                                         f"seat {seat} has already signed off")
        try:
            replica.deal.check_chain(msg, seat)
        except DealError as exc:
            return self._refuse_unlogged(seat, msg, exc.code, exc.message)
        step = Step(journal=dict(event))
        self.disputes[seat] = dict(msg)
        if msg.get("result_hash") != self.result_hash:
            self._settle_fully()            # a seat disagrees with the quick settlement
        self._sort_sign_offs()
        if seat in self.disputes:
            step.lines.append(f"seat {seat} signed another result of hand {self.hand_no + 1}")
        if not self._signoff_waiting():
            self._close_into(step)
        return step

    def _settle_fully(self) -> None:
        """The full audit replaces the quick settlement (`settle_live`), which stands only
        when every seat, each after its own full audit, signs the same result."""
        if not self.full_audit:
            assert self.replica is not None
            self._settle(audit_hand(self.replica.deal.log, self.state, passes=True), True)
            self._sort_sign_offs()

    def _sort_sign_offs(self) -> None:
        """Each sign-off received agrees with the host's settlement, or is a dispute."""
        assert self.replica is not None
        head = self.replica.deal.head
        for s, so in list(self.sign_offs.items()) + list(self.disputes.items()):
            self.sign_offs.pop(s, None)
            self.disputes.pop(s, None)
            agrees = so.get("transcript_hash") == head \
                and so.get("result_hash") == self.result_hash
            (self.sign_offs if agrees else self.disputes)[s] = so

    def _signoff_waiting(self) -> list[int]:
        """Seats whose sign-off the host still waits for (not a seat gone from the hand)."""
        gone = self.replica.gone if self.replica is not None else set()
        return [s for s in range(self.n_seats) if s not in self.sign_offs
                and s not in self.disputes and s not in gone]

    def _close(self) -> Step:
        step = Step()
        self._close_into(step)
        return step

    def _close_into(self, step: Step) -> None:
        """Close the hand: the signed hand_end, the record, the next stage."""
        if len(self.sign_offs) < self.n_seats and not self.full_audit:
            quick = self.outcome
            self._settle_fully()        # a seat did not sign (gone, late, or disputing)
            if self.outcome is not None and quick is not None \
                    and self.outcome.describe() != quick.describe():
                step.lines.append(f"hand {self.hand_no + 1}, fully audited: "
                                  f"{self.outcome.describe()}")
        replica, outcome, after = self.replica, self.outcome, self.state_after
        assert replica is not None and outcome is not None and after is not None
        assert self.result_hash is not None
        report = self.audit
        assert report is not None
        sign_offs = [self.sign_offs.get(s) or self.disputes[s] for s in range(self.n_seats)
                     if s in self.sign_offs or s in self.disputes]
        self.hand_end = signing.sign(self.host_key, {
            "type": "hand_end", "hand_id": replica.hand_id,
            "transcript_hash": replica.deal.head, "result_hash": self.result_hash,
            "result": outcome.result.to_wire(), "outcome": outcome.to_wire(),
            "verdict": report.verdict.to_wire(), "state": after.snapshot(),
            "match_over": after.is_over,
            "sign_offs": [dict(so) for so in sign_offs]})   # every seat's record proves it
        transcript = Transcript([dict(e) for e in replica.deal.log], dict(self.hand_end),
                                sign_offs)
        self.state = after
        self.prev_result = self.result_hash
        if outcome.kind != "void":
            self.hands_scored += 1
        record = HandRecord(self.hand_no, outcome, transcript, self.state.standings())
        self.hand_no += 1
        step.out.append(Outgoing(None, dict(self.hand_end)))
        step.record = record
        if self.state.is_over or self._hands_done():
            self.stage = advance(self.stage, TableStage.OVER)
            step.over = True
            self.end_reason = self._end_reason(outcome)
        else:
            self.stage = advance(self.stage, TableStage.BETWEEN)

    def _end_reason(self, outcome: HandOutcome) -> str:
        """Why the match ended (result.json): target, hands, timeout, abandonment, forfeit,
        unplayable, host_fault."""
        if self.state.end is not None:
            return str(self.state.end.get("reason"))
        if outcome.kind == "forfeit":
            return "forfeit"
        if outcome.kind == "abandon":
            return "timeout" if outcome.cause in ("timeout", "match_clock") else "abandonment"
        if self.state.match.is_over:
            return "target"
        return "hands"

    # ------------------------------------------------------------------ checkpoints
    def checkpoint(self) -> dict[str, Any]:
        """The whole table between hands, constant size (a journal record)."""
        if self.stage not in ("idle", "between", "over"):
            raise ValueError("a checkpoint is taken between hands")
        return {"e": "checkpoint", "t": self.now, "state": self.state.snapshot(),
                "hand_no": self.hand_no, "hands_scored": self.hands_scored,
                "prev_result": self.prev_result, "seat_keys": list(self.seat_keys),
                "names": list(self.names), "stage": self.stage,
                "end_reason": self.end_reason}

    def restore(self, cp: Mapping[str, Any]) -> None:
        """Take over a checkpoint (a fresh table only)."""
        c = self.config
        self.state = MatchState(c.game, c.variant, c.n_seats, c.first_dealer, c.options,
                                c.rules, cp["state"])
        self.hand_no = int(cp["hand_no"])
        self.hands_scored = int(cp["hands_scored"])
        self.prev_result = bytes(cp["prev_result"])
        self.seat_keys = [bytes(k) for k in cp["seat_keys"]]
        self.names = [str(n) for n in cp["names"]]
        self.stage = TableStage(cp["stage"])   # restored, not moved: any stage
        self.end_reason = cp.get("end_reason")
        self.now = int(cp.get("t", 0))
        self.replica = None

    # ------------------------------------------------------------------ resync
    def resync(self, seat: int) -> list[Outgoing]:
        """Everything of the hand in memory a reconnected seat may have missed, in order."""
        if self.replica is None:
            return []
        out = [Outgoing(seat, dict(e)) for e in self.replica.deal.log[:self.relayed]]
        if self.hand_end is not None:
            out.append(Outgoing(seat, dict(self.hand_end)))
        return out

    def closed_hand(self, hand_id: bytes | None) -> int | None:
        """The number of the last closed hand when a resync names a hand that is not the one
        in memory (a new hand is dealt, or this host restarted from its checkpoint): only the
        last closed hand can be served, from its record on disk before the current hand, and
        only if that record names `hand_id` (`is_closed_record`)."""
        if hand_id is None or self.hand_no == 0:
            return None
        if self.replica is not None and self.replica.hand_id == hand_id:
            return None
        return self.hand_no - 1

    def is_closed_record(self, record: Transcript, hand_id: bytes) -> bool:
        """A record on disk may stand for the last closed hand: the hand named, closed by a
        hand_end this host signed, with the result the match went on from."""
        end = record.hand_end
        return (end is not None and bool(record.entries)
                and record.entries[0].get("hand_id") == hand_id
                and end.get("result_hash") == self.prev_result
                and signing.verify(self.host_key.public_key(), end))


def transcript_name(hand_no: int) -> str:
    """File name of a hand's transcript (hand_no from 0): what `p2p-burraco verify` reads,
    the same in a host's data dir and a `selfplay --fair --record` directory."""
    return f"hand-{hand_no + 1:03d}.p2pb"


def replay(config: MatchConfig, host_key: Ed25519PrivateKey,
           events: Sequence[Mapping[str, Any]],
           checkpoint: Mapping[str, Any] | None = None) -> HostTable:
    """A HostTable rebuilt from its journal (what a restarted host does): from the last
    checkpoint if there is one, then every event after it."""
    table = HostTable(config, host_key)
    if checkpoint is not None:
        table.restore(checkpoint)
    for event in events:
        table.apply(event)
    return table
