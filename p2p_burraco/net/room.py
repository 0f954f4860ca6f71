"""A table room on the host: its seats, its connections, its match's journal and clocks.

The room moves table messages between seats and the sans-IO `HostTable` (which decides
everything), and does the I/O the table may not: it appends each event the table journals
to the match's journal and makes it durable **before** any reply leaves; it turns the
table's `next_deadline()` into a `callLater`; it writes transcripts and `result.json` into
the match's own directory; it says what happens (`node.say`).
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twisted.internet.interfaces import IDelayedCall

from ..errors import UsageError
from ..fairdeal.transcript import Transcript
from ..stages import RoomStatus, advance
from ..storage.journal import RESULT, LoadedMatch, MatchJournal
from ..table import messages as tm
from ..table.host import HostTable, MatchConfig, Outgoing, Step, replay, transcript_name
from ..table.rules import TableRules
from ..wire import Frame, PreparedFrame, WireError
from .bugs import guarded

if TYPE_CHECKING:
    from .host import HostConnection
    from .roomhost import RoomHost

log = logging.getLogger("p2p_burraco.net.host")


@dataclass
class SeatSlot:
    """Who holds a seat, and whether they are connected right now."""

    name: str | None = None
    identity: bytes | None = None
    conn: HostConnection | None = None
    bot: bool = False
    bot_name: str | None = None
    away: IDelayedCall | None = None
    syncing: bool = False
    """Back after a drop and its `resync` not yet answered: no table message reaches it
    before the answer (which holds everything relayed so far), so its log is built in
    index order, never a live entry ahead of the entries before it."""

    @property
    def taken(self) -> bool:
        return self.identity is not None


class TableRoom:
    """One table: its seats, its match and the HostTable that referees it."""

    def __init__(self, node: RoomHost, table_id: str, game: str, variant: str | None,
                 players: int | None, target: int | None, hands: int | None,
                 options: dict[str, Any], rules: TableRules | None = None) -> None:
        from ..games import get_game

        self.node = node
        self.id = table_id
        self.spec = get_game(game)
        self.game = game
        self.variant = variant or self.spec.default_variant
        if self.variant not in self.spec.presets:
            raise UsageError(f"unknown {game} variant {self.variant!r}; choose one of: "
                             f"{', '.join(self.spec.presets)}")
        preset = self.spec.presets[self.variant]
        allowed = tuple(self.spec.seat_counts(preset))
        default_players = 4 if game == "burraco" and 4 in allowed else allowed[0]
        self.players = players if players is not None else default_players
        if self.players not in allowed:
            raise UsageError(f"{game} {self.variant} is played by "
                             f"{', '.join(map(str, allowed))} players, not {self.players}")
        if hands is not None and hands < 1:
            raise UsageError("hands must be at least 1")
        if target is not None and target < 1:
            raise UsageError("target must be at least 1")
        self.target = target
        self.hands = hands
        self.options = dict(options)
        if target is not None:
            self.options["target"] = target
        probe = self.spec.new_match(preset, self.players, first_dealer=0, **self.options)
        self.sides: list[list[int]] = [list(s) for s in probe.standings()["sides"]]
        self.table_rules = rules or node.table_rules(game)
        self.slots = [SeatSlot() for _ in range(self.players)]
        self.status = RoomStatus.WAITING   # its moves: stages.TRANSITIONS
        self.driver: HostTable | None = None
        self.journal: MatchJournal | None = None
        self.standings: dict[str, Any] | None = None
        self.match_id = b""
        self.reason: str | None = None
        self.transcripts: list[str] = []
        self._deadline: IDelayedCall | None = None
        self._deadline_at: int | None = None
        self._dealing = False
        self.ending = False
        """Restored after the match had ended, its result not yet written (`_end_restored`)."""
        self.end_held = False
        """The match ended while a seat that is back had its resync not yet answered: the
        result waits for that answer (`_end_restored`), so the seat hears the last hand's
        end, and keeps its record, before the match's."""
        self._end_hold: IDelayedCall | None = None
        self._clock: tuple[dict[str, Any], int] | None = None
        """The last `clock` notice sent to every seat, and when (ms)."""
        self.creator: bytes | None = None      # the identity that opened it (lobby cap)
        from .between import HandPause

        self.pause = HandPause(node)
        """TABLE-15: the pause between two hands (net/between.py)."""
        self.reserved: dict[int, bytes] = {}
        """TABLE-16: seats kept for the people of the match this one is a rematch of."""

    # --- restoring a match after a restart ------------------------------------------------
    @classmethod
    def restore(cls, node: RoomHost, loaded: LoadedMatch) -> TableRoom:
        """The room of an unfinished match, rebuilt from its journal (every seat away)."""
        header = loaded.header
        config = MatchConfig.from_wire(header["config"])
        room = cls(node, str(header["table"]), config.game, config.variant, config.n_seats,
                   header.get("target"), config.hands,
                   {k: v for k, v in config.options.items() if k != "target"}, config.rules)
        room.match_id = config.match_id
        events = list(loaded.events)
        room.driver = replay(config, node.identity, events, loaded.checkpoint)
        room.journal = MatchJournal.reopen(loaded.directory)
        room.transcripts = sorted(p.name for p in loaded.directory.glob("hand-*.p2pb"))
        bots = dict(header.get("bots") or {})
        for ev in events:
            if ev.get("e") == "seat":
                bots.pop(str(ev["seat"]), None)
        for s in range(room.players):
            slot = room.slots[s]
            slot.identity = room.driver.seat_keys[s]
            slot.name = room.driver.names[s]
            slot.bot_name = bots.get(str(s))
            slot.bot = slot.bot_name is not None
        room.status = RoomStatus.PLAYING
        if room.driver.stage == "over":
            # killed after the last hand's record, before the result: the seats come back,
            # resync (the last hand_end they may not have heard), then hear the result —
            # or their grace runs out — and the result is written then (`_end_restored`)
            room.ending = True
            node.say(f"{room.id}: match {room.match_id.hex()[:8]} had ended; its result "
                     "goes out once its seats are back")
            for s in range(room.players):
                room._start_away(s)
            return room
        room._run({"e": "resume"})
        node.say(f"{room.id}: match {room.match_id.hex()[:8]} resumed from its journal "
                 f"(hand {room.driver.hand_no + 1}, stage {room.driver.stage})")
        for s in range(len(room.slots)):
            room._start_away(s)
        return room

    def _end_restored(self) -> None:
        """A restored match that had ended: its result once every seat is back and has its
        resync answered (or a grace ran out). A match that ended while a seat that is back
        waited for its resync's answer (`end_held`): once no seat here waits for one."""
        if self.status != "playing":
            return
        if self.ending:
            done = all(s.conn is not None and not s.syncing for s in self.slots)
        else:
            done = self.end_held and not any(s.conn is not None and s.syncing
                                             for s in self.slots)
        if done:
            self.end_match()

    def _end_anyway(self) -> None:
        """A seat back but silent (no `resync`) does not hold the match's end for long."""
        if self.end_held and not self.ending and self.status == "playing":
            self.end_match()

    # --- lobby ---------------------------------------------------------------------
    def free_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.slots) if not s.taken]

    @property
    def hands_played(self) -> int:
        return self.driver.hand_no if self.driver is not None else 0

    def info(self) -> dict[str, Any]:
        return {
            "id": self.id, "game": self.game, "variant": self.variant,
            "players": self.players, "target": self.target, "hands": self.hands,
            "status": self.status, "sides": self.sides, "hands_played": self.hands_played,
            "seats": [{"seat": i, "name": s.name, "identity": s.identity, "bot": s.bot,
                       "connected": s.conn is not None} for i, s in enumerate(self.slots)],
            # only said when off (absent = on): a table with hints keeps the info it had
            **({} if getattr(self.node.config, "hints", True) else {"hints": False}),
        }

    def join(self, conn: HostConnection, seat: int | None, ref: int) -> None:
        # a released seat of a running match may be taken by anyone
        if self.status != "waiting" and not (
                seat is not None and seat < self.players and not self.slots[seat].taken):
            raise WireError("lobby.started", f"the match at {self.id} has started", ref=ref)
        if seat is None:
            free = [s for s in self.free_seats() if self.reserved.get(s) is None]
            if not free:
                raise WireError("lobby.table_full", f"{self.id} has no free seat", ref=ref)
            seat = free[0]
        if seat >= self.players:
            raise WireError("lobby.bad_seat",
                            f"{self.id} has seats 0..{self.players - 1}, not {seat}", ref=ref)
        if self.slots[seat].taken:
            raise WireError("lobby.seat_taken",
                            f"seat {seat} of {self.id} is taken by {self.slots[seat].name}",
                            ref=ref)
        if self.reserved.get(seat) not in (None, conn.peer_identity):   # TABLE-16
            raise WireError("lobby.seat_taken",
                            f"seat {seat} of {self.id} is kept for a rematch", ref=ref)
        slot = self.slots[seat]
        slot.name, slot.identity, slot.conn = conn.peer_name, conn.peer_identity, conn
        slot.bot_name = self.node.own_bot_name(conn.peer_identity)
        slot.bot = slot.bot_name is not None
        self.seat_connection(seat, conn)
        conn.send("seated", {"table": self.id, "seat": seat, "info": self.info()})
        self.node.say(f"{self.id}: {slot.name} sits at seat {seat}"
                      + (" (a host bot)" if slot.bot else ""))
        self.broadcast_lobby()
        if self.status == "waiting" and not self.free_seats():
            self.start_match()
        elif self.status == "playing":
            self._seat_refilled(seat)

    def leave(self, conn: HostConnection, ref: int) -> None:
        if self.status != "waiting":
            raise WireError("lobby.started",
                            "the match has started: seats are fixed until it ends", ref=ref)
        assert conn.seat is not None
        self.slots[conn.seat] = SeatSlot()
        self.unseat(conn)
        conn.send("left", {"table": self.id})
        self.broadcast_lobby()

    def seat_connection(self, seat: int, conn: HostConnection) -> None:
        """`conn` now sits at `seat` of this room. The one writer of `conn.room`/`conn.seat`
        (with `unseat`): which connection sits where is decided here and nowhere else."""
        conn.room, conn.seat = self, seat

    @staticmethod
    def unseat(conn: HostConnection) -> None:
        """`conn` sits at no table any more (it left, its table ended or stalled)."""
        conn.room, conn.seat = None, None

    def broadcast_lobby(self) -> None:
        info = self.info()
        for slot in self.slots:
            if slot.conn is not None:
                slot.conn.send("table_update", {"info": info})

    def send_to(self, seat: int | None, mtype: str, body: dict[str, Any]) -> None:
        """To one seat, or to every connected seat when `seat` is None (validated and
        packed once for all of them)."""
        targets: Sequence[int] = range(self.players) if seat is None else (seat,)
        if seat is None and any(s.syncing for s in self.slots) and _table_layer(mtype):
            targets = [i for i in targets if not self.slots[i].syncing]
        conns = [c for c in (self.slots[i].conn for i in targets) if c is not None]
        if not conns:
            return
        prepared = PreparedFrame.of(mtype, body, conns[0].role, conns[0].registry)
        for conn in conns:
            conn.send_prepared(prepared)

    # --- match ---------------------------------------------------------------------------
    def start_match(self) -> None:
        """Seats are full: open the match's journal, create the referee, deal."""
        keys = [s.identity for s in self.slots]
        names = [s.name or f"seat {i}" for i, s in enumerate(self.slots)]
        assert all(k is not None for k in keys)
        first_dealer = self.node.random_bytes(1)[0] % self.players
        self.match_id = self.node.new_match_id()
        config = MatchConfig(self.game, self.variant, self.players, first_dealer,
                             self.match_id, [k for k in keys if k is not None], names,
                             dict(self.options), self.table_rules, self.hands)
        header = {"config": config.to_wire(), "table": self.id, "target": self.target,
                  "created": _dt.datetime.now(_dt.UTC).isoformat(),
                  "host_key": self.node.public_key,
                  "bots": {str(i): s.bot_name for i, s in enumerate(self.slots) if s.bot}}
        self.journal = MatchJournal.create(self.node.matches_dir, self.match_id, header)
        self.driver = HostTable(config, self.node.identity)
        self.status = advance(self.status, RoomStatus.PLAYING)
        self.send_to(None, "match_started", {"table": self.id, "info": self.info()})
        self.node.say(f"{self.id}: match {self.match_id.hex()[:8]} started — {self.game} "
                      f"{self.variant}, {self.players} seats: {', '.join(names)}; records in "
                      f"{self.journal.dir}")
        now = self.node.now_ms()
        for s, slot in enumerate(self.slots):
            self.driver.set_connected(s, slot.conn is not None, now)
        self._maybe_deal()

    def table_message(self, seat: int, frame: Frame) -> None:
        """A table-layer message from a seat: the referee decides; we deliver its answers."""
        if self.driver is None:
            raise WireError("table.no_hand", "the match has not started", ref=frame.seq)
        msg = tm.from_body(frame.type, frame.body)
        if frame.type == "resync":
            self.slots[seat].syncing = False     # its answer is the next thing it hears
            self._resend_closed(seat, msg.get("hand_id"))
        self._run({"e": "msg", "seat": seat, "msg": msg}, sender=seat, ref=frame.seq)
        if frame.type == "resync":
            self._send_clock(seat)
            if self.ending or self.end_held:
                self._end_restored()

    def _send_clock(self, seat: int) -> None:
        """The clocks as they stand, to a seat that just resynced (it heard no `clock`
        while it was away or resyncing): the last notice, its time left brought up to now."""
        if self._clock is None:
            return
        body, at = self._clock
        body = dict(body)
        if isinstance(body.get("ms"), int):
            body["ms"] = max(0, body["ms"] - max(0, self.node.now_ms() - at))
        self.send_to(seat, "clock", body)

    def _resend_closed(self, seat: int, hand_id: Any) -> None:
        """A resync naming the hand that closed since, no longer in memory: its log and
        hand_end from its record on disk, then (in `_run`) the current hand."""
        driver, journal = self.driver, self.journal
        assert driver is not None
        n = driver.closed_hand(hand_id if isinstance(hand_id, bytes) else None)
        if n is None or journal is None:
            return
        record = read_closed_record(journal.dir, n, hand_id, driver)
        if record is None:
            self.node.say(f"{self.id}: seat {seat} asked for hand {n + 1}, but the hand it "
                          "names is not this table's last closed hand, or its record is not "
                          "on disk; it goes on without it")
            return
        for mtype, body in closed_frames(record):
            self.send_to(seat, mtype, body)

    def _run(self, event: dict[str, Any], sender: int | None = None,
             ref: int | None = None) -> Step:
        """One event through the referee: journal it, make it durable, then deliver."""
        driver, journal = self.driver, self.journal
        assert driver is not None and journal is not None
        step = driver.apply({**event, "t": self.node.now_ms()})
        if step.journal is not None:
            journal.append(step.journal)
            self.node.journaled(journal)
        if step.record is not None:
            name = transcript_name(step.record.hand_no)
            journal.write_record(name, step.record.transcript.to_bytes())
            self.transcripts.append(name)
            journal.append(driver.checkpoint())
            self.node.journaled(journal)
        if journal.dirty:                    # nothing leaves before it is on disk
            self.node.durable(journal)
        self._deliver(step.out, sender, ref)
        for line in step.lines:
            self.node.say(f"{self.id}: {line}")
        if step.record is not None and not step.over:
            self._replace_gone(step.record.outcome)
        if step.over and self.status == "playing":
            if any(s.conn is not None and s.syncing for s in self.slots):
                self.end_held = True         # `_end_restored`, once that seat has its answer
                self._end_hold = self.node.reactor.callLater(
                    END_HOLD_S, guarded(self, self._end_anyway))
            else:
                self.end_match()
        elif self.status == "playing":
            if step.record is not None:
                self.pause.hand_closed()     # TABLE-15: time to read the score sheet
            self._schedule()
            self._maybe_deal()
        return step

    def _deliver(self, out: Sequence[Outgoing], sender: int | None = None,
                 ref: int | None = None) -> None:
        for to, msg in out:
            mtype = msg.get("type")
            body = tm.body_of(msg)
            if mtype == "error":
                if to == sender and ref is not None:
                    body["ref"] = ref
                self._count_refusal(to)
            elif mtype == "refusal" and to is not None:
                self._count_refusal(to)
            elif mtype == "clock" and to is None:
                self._clock = (body, self.node.now_ms())
            self.send_to(to, str(mtype), body)

    def _count_refusal(self, seat: int | None) -> None:
        if seat is None:
            return
        conn = self.slots[seat].conn
        counter = getattr(conn, "count_refusal", None)
        if counter is not None:
            counter()

    # --- clocks ------------------------------------------------------------------------
    def _schedule(self) -> None:
        """One callLater for the table's first deadline."""
        driver = self.driver
        due = driver.next_deadline() if driver is not None else None
        at = due[0] if due is not None else None
        call = self._deadline if self._deadline is not None and self._deadline.active() \
            else None
        if at == self._deadline_at and call is not None:
            return
        self._deadline_at = at
        if at is None:
            if call is not None:
                call.cancel()
            self._deadline = None
            return
        delay = max(0.0, (at - self.node.now_ms()) / 1000)
        if call is not None:
            call.reset(delay)                    # moved, not cancelled and made anew
        else:
            self._deadline = self.node.reactor.callLater(delay, guarded(self, self._expire))

    def _expire(self) -> None:
        self._deadline = None
        self._deadline_at = None
        if self.status == "playing" and self.driver is not None:
            self._run({"e": "expire"})

    def _maybe_deal(self) -> None:
        """Deal the next hand once every seat is held and connected (a seat away between
        hands gets its grace period first: no hand is wasted on it)."""
        driver = self.driver
        if driver is None or self.status != "playing" or not driver.can_deal() \
                or self._dealing or self.pause.holding(guarded(self, self._maybe_deal)):
            return
        if not all(s.taken and s.conn is not None for s in self.slots):
            for i, s in enumerate(self.slots):      # a seat away between hands: its grace
                if s.taken and s.conn is None and (s.away is None or not s.away.active()):
                    self._start_away(i)
            return
        self._dealing = True
        try:
            for i, s in enumerate(self.slots):
                if s.identity != driver.seat_keys[i]:
                    assert s.identity is not None
                    self._run({"e": "seat", "seat": i, "key": s.identity,
                               "name": s.name or f"seat {i}"})
            self._run({"e": "deal"})
        finally:
            self._dealing = False

    def stop_timers(self) -> None:
        """Every timer of this table off (the move clock, the seats' graces, the pause
        between hands, a held end): a table that ends, stalls or stops for a bug must not
        be woken by one later."""
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()
        self._deadline = None
        self._deadline_at = None
        for slot in self.slots:
            if slot.away is not None and slot.away.active():
                slot.away.cancel()
            slot.away = None
        self.pause.cancel()
        if self._end_hold is not None and self._end_hold.active():
            self._end_hold.cancel()

    def end_match(self) -> None:
        driver, journal = self.driver, self.journal
        assert driver is not None and journal is not None
        self.status = advance(self.status, RoomStatus.OVER)
        self.stop_timers()
        self.standings = driver.standings()
        self.reason = driver.end_reason or "target"
        outcome = driver.outcome
        result = {"table": self.id, "game": self.game, "variant": self.variant,
                  "players": self.players, "reason": self.reason,
                  "hands": driver.hand_no, "match_id": self.match_id.hex(),
                  "host_key": self.node.public_key.hex(),
                  "standings": self.standings,
                  "last_hand": None if outcome is None else {
                      "outcome": outcome.to_wire(), "describe": outcome.describe()},
                  "seats": [{"seat": i, "name": s.name,
                             "identity": s.identity.hex() if s.identity else None,
                             "bot": s.bot} for i, s in enumerate(self.slots)],
                  "transcripts": list(self.transcripts),
                  "ended": _dt.datetime.now(_dt.UTC).isoformat()}
        journal.write_record(RESULT, json.dumps(result, indent=2, sort_keys=True,
                                                default=_json_default).encode() + b"\n")
        journal.append({"e": "end", "t": self.node.now_ms(), "reason": self.reason})
        journal.sync()
        ended = {"table": self.id, "standings": self.standings, "reason": self.reason}
        self.node.remember_end(self, ended)
        self.send_to(None, "match_end", ended)
        self.node.say(f"{self.id}: match over ({self.reason}): {self.summary()}")
        journal.close()
        self.node.table_over(self)

    def summary(self) -> str:
        """One line: status, hands, totals per side."""
        if self.standings is None:
            return f"{self.status}, {self.hands_played} hand(s)"
        totals = self.standings.get("totals", [])
        names = [s.name or f"seat {i}" for i, s in enumerate(self.slots)]
        sides = " | ".join(f"{'+'.join(names[x] for x in side)}: {t}"
                           for side, t in zip(self.sides, totals))
        return f"{self.hands_played} hand(s): {sides}"

    def _seat_refilled(self, seat: int) -> None:
        """Someone took a seat released during the match: seated from the next hand on."""
        if self.driver is not None:
            self.driver.set_connected(seat, True, self.node.now_ms())
        self._maybe_deal()

    # --- drops and returns -----------------------------------------------------------------
    def disconnected(self, conn: HostConnection) -> None:
        seat = conn.seat
        if seat is None or self.slots[seat].conn is not conn:
            return
        slot = self.slots[seat]
        slot.conn = None
        if self.end_held:
            self._end_restored()             # it waited for this seat's resync: no more
            return
        if self.status == "waiting":
            self.slots[seat] = SeatSlot()
            self.broadcast_lobby()
            return
        if self.status == "over" or self.driver is None:
            return
        grace = self.table_rules.grace_ms / 1000
        self.node.say(f"{self.id}: {slot.name} (seat {seat}) dropped; seat held {grace:.0f} s")
        self.send_to(None, "seat_status", {"seat": seat, "connected": False,
                                           "grace_ms": self.table_rules.grace_ms})
        self._deliver(self.driver.set_connected(seat, False, self.node.now_ms()))
        self._start_away(seat)
        self._schedule()

    def _start_away(self, seat: int) -> None:
        """Between hands a seat away is held for the grace period (mid-hand the table's own
        clock does it, with a `grace` timeout)."""
        slot = self.slots[seat]
        if slot.conn is not None or self.status != "playing":
            return
        if slot.away is not None and slot.away.active():
            slot.away.cancel()
        slot.away = self.node.reactor.callLater(self.table_rules.grace_ms / 1000, guarded(
            self, functools.partial(self._away_expired, seat)))
        if slot.bot:
            self.node.restart_bot(self, seat)

    def reconnect(self, seat: int, conn: HostConnection) -> None:
        """The same identity is back: it has its seat again and asks for the hand's log
        with `resync`."""
        slot = self.slots[seat]
        if slot.away is not None and slot.away.active():
            slot.away.cancel()
        slot.away = None
        slot.conn = conn
        slot.syncing = self.driver is not None     # until its resync is answered
        self.seat_connection(seat, conn)
        self.node.say(f"{self.id}: {slot.name} (seat {seat}) is back")
        self.send_to(None, "seat_status", {"seat": seat, "connected": True, "grace_ms": None})
        conn.send("seated", {"table": self.id, "seat": seat, "info": self.info()})
        if self.driver is not None:
            self._deliver(self.driver.set_connected(seat, True, self.node.now_ms()))
            self._schedule()
            self._maybe_deal()

    def _replace_gone(self, outcome: Any) -> None:
        """A hand ended by a seat gone past its grace, the match going on (TABLE-14): its
        grace is spent, so a host bot takes the seat from the next hand at once."""
        seat = outcome.seat
        if outcome.kind != "abandon" or outcome.cause != "grace" or seat is None \
                or outcome.result.extra.get("replaced") != seat:
            return
        slot = self.slots[seat]
        if slot.conn is not None or self.node.bot_controller is None:
            return
        if slot.away is not None and slot.away.active():
            slot.away.cancel()
        self.node.say(f"{self.id}: {slot.name} (seat {seat}) did not come back; a bot "
                      "takes the seat from the next hand [TABLE-14]")
        self.slots[seat] = SeatSlot()
        self.broadcast_lobby()
        self.node.add_bot(self.id, seat)

    def _away_expired(self, seat: int) -> None:
        """A seat stayed away between hands past its grace: a host bot takes it from the
        next hand if the table allows (TABLE-3), else its side loses by abandonment."""
        slot = self.slots[seat]
        slot.away = None
        driver = self.driver
        if self.ending and self.status == "playing" and slot.conn is None:
            self.end_match()                 # the result, without the seat that is not back
            return
        if slot.conn is not None or self.status != "playing" or driver is None \
                or driver.stage not in ("idle", "between"):
            return
        if self.table_rules.bots and self.node.bot_controller is not None:
            self.node.say(f"{self.id}: {slot.name} (seat {seat}) did not come back; a bot "
                          "takes the seat [TABLE-6]")
            self.slots[seat] = SeatSlot()
            self.broadcast_lobby()
            self.node.add_bot(self.id, seat)
            return
        self._run({"e": "lost", "seat": seat, "cause": "grace"})


END_HOLD_S = 10.0
"""How long a match's end waits for the `resync` of a seat that is back (`end_held`): a
peer asks at once after `ready`; one that does not hears the result without its answer."""


def _table_layer(mtype: str) -> bool:
    """A table-layer message (what a seat still resyncing must not hear yet)."""
    from .. import wire

    try:
        return wire.registry().get(mtype).layer == "table"
    except (KeyError, WireError):
        return False


def _json_default(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.hex()
    raise TypeError(type(v).__name__)


def write_json(path: Path, value: Any) -> None:
    """A JSON record, atomically (bytes as hex)."""
    from ..storage.files import write_record

    write_record(path, json.dumps(value, indent=2, sort_keys=True,
                                  default=_json_default).encode() + b"\n")


def closed_frames(record: Transcript) -> list[tuple[str, dict[str, Any]]]:
    """A closed hand's record as the frames that tell it again: its log from the signed
    hand_start, then the hand_end with every sign-off (none for a record without one)."""
    if record.hand_end is None:
        return []
    return [(str(e["type"]), tm.body_of(e)) for e in [*record.entries, record.hand_end]]


def read_closed_record(directory: Path, hand_no: int, hand_id: bytes,
                       driver: HostTable) -> Transcript | None:
    """The record of closed hand `hand_no` as the table can vouch for it (right hand, the
    host's own hand_end, the result the match went on from), or None."""
    try:
        record = Transcript.load(str(Path(directory) / transcript_name(hand_no)))
    except (OSError, ValueError):
        return None
    return record if driver.is_closed_record(record, hand_id) else None
