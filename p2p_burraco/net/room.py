"""A table room on the host: its seats, its match, grace periods, and the HostTable that
referees it (p2p_burraco.table.host). The room only moves table messages between seats and
the referee, and writes records; every decision about a message is the referee's.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twisted.internet.interfaces import IDelayedCall

from ..table.host import transcript_name
from ..wire import Frame, WireError

if TYPE_CHECKING:
    from .host import HostConnection, HostNode

log = logging.getLogger("p2p_burraco.net.host")


@dataclass
class SeatSlot:
    """Who holds a seat, and whether they are connected right now."""

    name: str | None = None
    identity: bytes | None = None
    conn: HostConnection | None = None
    bot: bool = False
    grace: IDelayedCall | None = None
    dropped_at: float | None = None

    @property
    def taken(self) -> bool:
        return self.identity is not None


class TableRoom:
    """One table: its seats, its match and the HostTable that referees it."""

    def __init__(self, node: HostNode, table_id: str, game: str, variant: str | None,
                 players: int | None, target: int | None, hands: int | None,
                 options: dict[str, Any]) -> None:
        from ..games import get_game

        self.node = node
        self.id = table_id
        self.spec = get_game(game)
        self.game = game
        self.variant = variant or self.spec.default_variant
        if self.variant not in self.spec.presets:
            raise ValueError(f"unknown {game} variant {self.variant!r}; choose one of: "
                             f"{', '.join(self.spec.presets)}")
        self.rules = self.spec.presets[self.variant]
        allowed = tuple(self.spec.seat_counts(self.rules))
        default_players = 4 if game == "burraco" and 4 in allowed else allowed[0]
        self.players = players if players is not None else default_players
        if self.players not in allowed:
            raise ValueError(f"{game} {self.variant} is played by "
                             f"{', '.join(map(str, allowed))} players, not {self.players}")
        if hands is not None and hands < 1:
            raise ValueError("hands must be at least 1")
        if target is not None and target < 1:
            raise ValueError("target must be at least 1")
        self.target = target
        self.hands = hands
        self.options = dict(options)
        probe = self._new_match(first_dealer=0)
        self.sides: list[list[int]] = [list(s) for s in probe.standings()["sides"]]
        self.slots = [SeatSlot() for _ in range(self.players)]
        self.status = "waiting"        # waiting → playing → over
        self.hands_played = 0
        self.driver: Any = None        # the table layer's HostTable once the match starts
        self.standings: dict[str, Any] | None = None
        self.match_id = b""
        self.started_at: float | None = None

    def _new_match(self, first_dealer: int) -> Any:
        opts = dict(self.options)
        if self.target is not None:
            opts["target"] = self.target
        return self.spec.new_match(self.rules, self.players, first_dealer=first_dealer, **opts)

    # --- lobby ---------------------------------------------------------------------
    def free_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.slots) if not s.taken]

    def info(self) -> dict[str, Any]:
        return {
            "id": self.id, "game": self.game, "variant": self.variant,
            "players": self.players, "target": self.target, "hands": self.hands,
            "status": self.status, "sides": self.sides, "hands_played": self.hands_played,
            "seats": [{"seat": i, "name": s.name, "identity": s.identity, "bot": s.bot,
                       "connected": s.conn is not None} for i, s in enumerate(self.slots)],
        }

    def join(self, conn: HostConnection, seat: int | None, ref: int) -> None:
        if self.status != "waiting":
            # a released seat of a running match may be taken by anyone
            if not (seat is not None and seat < self.players and not self.slots[seat].taken):
                raise WireError("lobby.started", f"the match at {self.id} has started",
                                ref=ref)
        if seat is None:
            free = self.free_seats()
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
        slot = self.slots[seat]
        slot.name, slot.identity, slot.conn = conn.peer_name, conn.peer_identity, conn
        slot.bot = self.node.is_own_bot(conn.peer_identity)
        conn.room, conn.seat = self, seat
        conn.send("seated", {"table": self.id, "seat": seat, "info": self.info()})
        self.broadcast_lobby()
        if self.status == "waiting" and not self.free_seats():
            self.start_match()
        elif self.status == "playing":
            self.seat_refilled(seat)

    def leave(self, conn: HostConnection, ref: int) -> None:
        if self.status != "waiting":
            raise WireError("lobby.started",
                            "the match has started: seats are fixed until it ends", ref=ref)
        assert conn.seat is not None
        self.slots[conn.seat] = SeatSlot()
        conn.room, conn.seat = None, None
        conn.send("left", {"table": self.id})
        self.broadcast_lobby()

    def broadcast_lobby(self) -> None:
        info = self.info()
        for slot in self.slots:
            if slot.conn is not None:
                slot.conn.send("table_update", {"info": info})

    def send_to(self, seat: int | None, mtype: str, body: dict[str, Any]) -> None:
        """To one seat, or to every connected seat when `seat` is None."""
        targets = range(self.players) if seat is None else (seat,)
        for i in targets:
            conn = self.slots[i].conn
            if conn is not None:
                conn.send(mtype, body)

    # --- match ---------------------------------------------------------------------------
    def start_match(self) -> None:
        """Seats are full: create the referee (HostTable) and deal the first hand."""
        from ..table.host import HostTable

        keys = [s.identity for s in self.slots]
        assert all(k is not None for k in keys)
        first_dealer = self.node.random_bytes(1)[0] % self.players
        self.match_id = self.node.random_bytes(16)
        options = dict(self.options)
        if self.target is not None:
            options["target"] = self.target
        self.driver = HostTable(self.game, self.variant, self.players,
                                [k for k in keys if k is not None],
                                first_dealer=first_dealer, options=options,
                                match_id=self.match_id, auto_next=False,
                                on_transcript=self._record)
        self.status = "playing"
        self.started_at = time.time()
        info = self.info()
        self.send_to(None, "match_started", {"table": self.id, "info": info})
        log.info("%s: match started (%s %s, %d seats, first dealer %d)", self.id, self.game,
                 self.variant, self.players, first_dealer)
        self._deliver(self.driver.start_hand())

    def table_message(self, seat: int, frame: Frame) -> None:
        """A table-layer message from a seat: the referee decides; we deliver its answers."""
        from ..table import messages as tm

        if self.driver is None:
            raise WireError("table.no_hand", "the match has not started", ref=frame.seq)
        if self.status == "over":
            raise WireError("table.match_over", "the match is over", ref=frame.seq)
        out = self.driver.receive(seat, tm.from_body(frame.type, frame.body))
        self._deliver(out, sender=seat, ref=frame.seq)
        self._after_step()

    def _deliver(self, out: Sequence[Any], sender: int | None = None,
                 ref: int | None = None) -> None:
        from ..table import messages as tm

        for to, msg in out:
            if msg.get("type") == "error":
                body = tm.body_of(msg)
                if to == sender and ref is not None:
                    body["ref"] = ref
                self.send_to(to, "error", body)
            else:
                self.send_to(to, msg["type"], tm.body_of(msg))

    def _record(self, record: Any) -> None:
        """A hand closed (every live seat signed off): write its transcript."""
        path = self.node.record_dir(self.id) / transcript_name(record.hand_no)
        self.node.write_record(path, record.transcript.to_bytes())
        self.hands_played = record.hand_no + 1
        log.info("%s: hand %d over (%s, %s) → %s", self.id, record.hand_no + 1,
                 record.result.reason, "fair" if record.verdict.fair else "NOT FAIR", path)

    def _after_step(self) -> None:
        """Between hands: end the match, or deal the next hand once every seat is held."""
        d = self.driver
        if d is None or self.status != "playing" or d.stage not in ("between", "over"):
            return
        if d.stage == "over" or d.match_over:
            self.end_match("target")
        elif self.hands is not None and self.hands_played >= self.hands:
            self.end_match("hands")
        elif all(s.taken for s in self.slots):
            for i, s in enumerate(self.slots):
                if s.identity != d.seat_keys[i]:
                    assert s.identity is not None
                    d.replace_seat(i, s.identity)
            self._deliver(d.start_hand())

    def end_match(self, reason: str) -> None:
        assert self.driver is not None
        self.status = "over"
        self.standings = self.driver.standings()
        for slot in self.slots:
            if slot.grace is not None and slot.grace.active():
                slot.grace.cancel()
            slot.grace = None
        result = {"table": self.id, "game": self.game, "variant": self.variant,
                  "players": self.players, "reason": reason, "hands": self.hands_played,
                  "match_id": self.match_id.hex(), "standings": self.standings,
                  "seats": [{"seat": i, "name": s.name,
                             "identity": s.identity.hex() if s.identity else None,
                             "bot": s.bot} for i, s in enumerate(self.slots)],
                  "transcripts": [transcript_name(r.hand_no) for r in self.driver.records]}
        write_json(self.node.record_dir(self.id) / "result.json", result)
        self.send_to(None, "match_end", {"table": self.id, "standings": self.standings,
                                         "reason": reason})
        log.info("%s: match over (%s): %s", self.id, reason, self.summary())
        self.node.table_over(self)

    def summary(self) -> str:
        """One line: status, hands, totals per side."""
        if self.standings is None:
            return f"{self.status}, {self.hands_played} hand(s)"
        totals = self.standings.get("totals", [])
        sides = " | ".join(f"{'+'.join(str(x) for x in side)}: {t}"
                           for side, t in zip(self.sides, totals))
        return f"{self.status} after {self.hands_played} hand(s): {sides}"

    def seat_refilled(self, seat: int) -> None:
        """Someone took a seat released during the match: seated from the next hand on."""
        self._after_step()

    # --- drops and returns -----------------------------------------------------------------
    def disconnected(self, conn: HostConnection) -> None:
        seat = conn.seat
        if seat is None or self.slots[seat].conn is not conn:
            return
        slot = self.slots[seat]
        slot.conn = None
        if self.status == "waiting":
            self.slots[seat] = SeatSlot()
            self.broadcast_lobby()
            return
        if self.status == "over":
            return
        slot.dropped_at = self.node.reactor.seconds()
        grace = self.node.config.grace
        slot.grace = self.node.reactor.callLater(grace, self.grace_expired, seat)
        log.info("%s: seat %d (%s) dropped; holding it %.0f s", self.id, seat, slot.name, grace)
        self.send_to(None, "seat_status", {"seat": seat, "connected": False,
                                           "grace_ms": int(grace * 1000)})

    def reconnect(self, seat: int, conn: HostConnection) -> None:
        """The same identity is back within the grace period: it has its seat again and
        asks for the hand's log with `resync`."""
        slot = self.slots[seat]
        if slot.grace is not None and slot.grace.active():
            slot.grace.cancel()
        slot.grace = None
        slot.conn = conn
        conn.room, conn.seat = self, seat
        log.info("%s: seat %d (%s) is back", self.id, seat, slot.name)
        self.send_to(None, "seat_status", {"seat": seat, "connected": True, "grace_ms": None})
        conn.send("seated", {"table": self.id, "seat": seat, "info": self.info()})

    def grace_expired(self, seat: int) -> None:
        """The seat did not come back: void the hand (the others reveal; it scores zero),
        release the seat, and let the match go on with a bot or whoever takes it."""
        slot = self.slots[seat]
        slot.grace = None
        if slot.conn is not None or self.status != "playing":
            return
        log.info("%s: seat %d (%s) lost past its grace period", self.id, seat, slot.name)
        self.slots[seat] = SeatSlot()
        if self.driver is not None:
            self._deliver(self.driver.seat_lost(seat))
        self.broadcast_lobby()
        if self.node.config.replace_lost_with_bot and self.node.bot_controller is not None:
            self.node.add_bot(self.id, seat)
        self._after_step()



def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, sort_keys=True, default=_json_default) + "\n")


def _json_default(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.hex()
    raise TypeError(type(v).__name__)
