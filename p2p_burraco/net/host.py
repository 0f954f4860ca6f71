"""The host node: lobby, tables, seats, grace periods, relay and records.

The host is authoritative for the public state of each table but holds no card secret: the
sans-IO `HostTable` (p2p_burraco.table.host) decides what each table message means, asks
the rules engine, and returns what to send to whom. This module only moves those messages
between sockets and tables, keeps the lobby, times the grace period of a dropped seat, and
writes transcripts and match results under the data directory.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import signal
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IListeningPort
from twisted.internet.protocol import ServerFactory
from twisted.python.failure import Failure

from .. import __version__, wire
from ..errors import Refused
from ..gc_policy import apply_gc_policy
from ..stages import RoomStatus
from ..storage.journal import DiskFull
from ..wire import Frame, WireError
from . import identity as ident
from .framing import FrameProtocol, HoldGroup
from .guard import REQUEST_COSTS, GuardLimits, HostGuard, TokenBucket, is_loopback
from .room import TableRoom

log = logging.getLogger(__name__)
events = logging.getLogger("p2p_burraco.host")
"""What the host says about its tables (the `host` command prints it; -v adds `log`)."""

SOFTWARE = f"p2p-burraco/{__version__}"
DISK_FULL_MESSAGE = ("the host cannot write its journal (disk full or failing); your last "
                     "message was not applied: reconnect and resync, it goes on by itself "
                     "once it can write again")
ENDED_SEATS = 4096
"""Seats of ended matches the host remembers, to answer a returning one with the result."""
KILL_AT_RECORD = "P2P_BURRACO_KILL_AT_RECORD"
"""The environment variable of the crash tests (`HostNode.journaled`)."""


@dataclass
class HostConfig:
    """What `p2p-burraco host` (and `play`) configures."""

    bind: str = "127.0.0.1"
    port: int = 7777
    game: str = "burraco"
    variant: str | None = None
    players: int | None = None
    target: int | None = None
    hands: int | None = None
    bots: int = 0
    data_dir: Path | None = None
    grace: float = 120.0
    """Seconds a dropped seat is held before it counts as abandoned (TABLE-6)."""
    handshake_timeout: float = 10.0
    """Seconds from connecting to `ready` (`auth.timeout`)."""
    ping_interval: float = 10.0
    """Seconds between liveness pings to each peer (0: none)."""
    idle_timeout: float = 45.0
    """Drop a connection that sent nothing (not even a pong) for this long."""
    name: str = "host"
    max_tables: int = 200
    default_table: bool = True
    """Open one table from game/variant/players/target/hands at start."""
    replace_lost_with_bot: bool = True
    """When a grace period expires, seat a bot there (if a bot factory is known)."""
    exit_when_done: bool = False
    """Stop serving once every table's match is over (demos and tests with --hands)."""
    match_options: dict[str, Any] = field(default_factory=dict)
    on_match_end: Callable[[Any], None] | None = None
    """Called with each TableRoom whose match ended, its records written (the history)."""
    seed: int | None = None
    """Seeds the host's own choices (first dealer, challenges, match ids) for reproducible
    test vectors; a seeded id already taken in the data directory is drawn again, never
    reused (storage.journal.new_match_id; `play --seed` seeds only the bots)."""
    pause_between: float = 0.0
    """Seconds between the end of a hand and the next deal (TABLE-15; net/between.py)."""
    hints: bool = True
    """The console may show the heuristic bot's move on request (`hint`); `--no-hints` for
    a serious table. Said in the table info; the console keeps to it."""
    # --- limits: what one client may cost the host (PROTOCOL.md § 3, "Limits")
    max_connections: int = 512
    """Connections served at once; one more is refused (`conn.too_many`)."""
    max_per_address: int = 16
    """Connections from one source address at once (`conn.too_many`)."""
    frame_timeout: float = 10.0
    """Seconds from a frame's first byte to its last (`frame.timeout`)."""
    output_limit: int = 256 * 1024
    """Unsent bytes to a connection past which the host stops reading it."""
    slow_reader_timeout: float = 30.0
    """Seconds a connection may stay past output_limit (`conn.slow_reader`)."""
    close_timeout: float = 2.0
    """Seconds a connection closed by a fatal error has to flush before it is aborted."""
    request_rate: float = 5.0
    """Request tokens a connection gets back per second (guard.REQUEST_COSTS; `host.busy`)."""
    request_burst: float = 30.0
    """Most request tokens a connection holds."""
    address_share: float = 0.10
    """Fraction of the host's time the connections of one source address may take (0: no
    limit); past it they are not read until their budget refills."""
    address_burst: float = 0.5
    """Seconds of host time one source address may take at once."""
    exempt_loopback: bool | None = None
    """Connections from this machine are not held to address_share (the caps still apply);
    None: only when the host listens on a loopback address (no LAN can reach it). A host
    reachable from the LAN holds every address to it but its own bots (by identity)."""
    max_buffered: int = 32 * 1024 * 1024
    """Bytes all connections' buffers may hold together (guard.BufferPool)."""
    clock: float | None = None
    """Seconds per move (TABLE-1); None: the game's default (90 Burraco, 30 Briscola)."""
    match_clock: float | None = None
    """Minutes of thinking time per seat for the whole match (TABLE-2); None: off."""
    step_deadline: float = 30.0
    """Seconds a connected seat has for an automatic protocol step (TABLE-5)."""
    max_timeouts: int = 3
    """Burraco turns in a row a seat may let run out before it counts as abandoned."""
    keep: bool = False
    """Serve match after match: a new table opens when the default table's match ends."""
    resume: bool = True
    """Reload every unfinished match found in the data directory at start."""
    salvage: bool = False
    """Go on past a damaged journal (from its last good checkpoint, the damaged file moved
    aside) and set aside a match directory whose journal is missing, instead of refusing."""
    lock_data_dir: bool = True
    """`start_host` takes the data directory's lock (one host per data directory)."""
    data_lock: Any = None
    """The data directory's lock when the caller took it already (storage.lock)."""
    disk_retry: float = 1.0
    """Seconds between tries to write again after a disk error (ENOSPC, EIO)."""


class HostRefused(Refused):
    """The host will not start on this data directory as it stands (one sentence why, and
    how to go on)."""


TEST_SEED = "P2P_BURRACO_TEST_SEED"
"""The environment variable that makes a run reproducible for the crash tests: it seeds the
host's own choices (first dealer, match id) and, in `join`, each peer's secrets. Never for
real play: seeded secrets are no secrets."""


def seed_from_env() -> int | None:
    """The crash tests' seed from the environment (TEST_SEED), or None."""
    value = os.environ.get(TEST_SEED, "")
    return int(value) if value.isdigit() else None


class HostConnection(FrameProtocol):
    """One peer's connection: handshake, then lobby requests and table messages."""

    role = wire.HOST

    def __init__(self, node: HostNode, address: str = "", refused: str | None = None) -> None:
        super().__init__(node.reactor)
        cfg = node.config
        self.frame_timeout = cfg.frame_timeout
        self.output_limit = cfg.output_limit
        self.slow_reader_timeout = cfg.slow_reader_timeout
        self.close_timeout = cfg.close_timeout
        self.node = node
        self.address = address
        """The source address (the connection caps and the time budget are per address)."""
        self.admitted = refused is None
        """Counted by node.guard (a refused connection only hears why, and is closed)."""
        self._refused = refused
        self.requests = TokenBucket(node.reactor, cfg.request_rate, cfg.request_burst)
        """Lobby queries, resync and ping take from it (guard.REQUEST_COSTS): `host.busy`."""
        self.budget = node.guard.budget(address) if refused is None else None
        """The time budget of this connection's address (None: not limited)."""
        self._budget_call: IDelayedCall | None = None
        self.state = "hello"            # hello → auth → ready
        self.version = 0
        self.peer_name = ""
        self.peer_identity = b""
        self.nonce = b""
        self.challenge = b""
        self.room: TableRoom | None = None
        self.seat: int | None = None
        self._timeout: IDelayedCall | None = None

    # --- connection ----------------------------------------------------------------
    def connectionMade(self) -> None:
        super().connectionMade()
        if self._refused is not None:
            self.refuse(WireError("conn.too_many", self._refused, fatal=True))
            return
        tcp: Any = self.transport            # ITCPTransport when it is real TCP
        if hasattr(tcp, "setTcpKeepAlive"):
            tcp.setTcpKeepAlive(1)
        if hasattr(tcp, "setTcpNoDelay"):
            tcp.setTcpNoDelay(True)   # small frames: no Nagle / delayed-ACK stall
        self._timeout = self.node.reactor.callLater(self.node.config.handshake_timeout,
                                                    self._handshake_timeout)

    def _handshake_timeout(self) -> None:
        self._timeout = None
        if self.state != "ready":
            self.refuse(WireError("auth.timeout", "the handshake did not finish in time",
                                  fatal=True))

    def lost(self, reason: Failure) -> None:
        for call in (self._timeout, self._budget_call):
            if call is not None and call.active():
                call.cancel()
        self._timeout = self._budget_call = None
        room = self.room
        try:
            self.node.connection_lost(self)
        except Exception as exc:
            if room is None:
                raise
            from .bugs import room_bug

            room_bug(room, exc, f"the loss of {self.describe()}")   # the table stops, said

    # --- what this connection may cost -------------------------------------------------
    def may_process(self) -> bool:
        """Before each frame: while the address's time budget is spent, stop reading."""
        budget = self.budget
        if budget is None or budget.level >= 0:
            return True
        self.pause_reading("share")
        if self._budget_call is None or not self._budget_call.active():
            self._budget_call = self.node.reactor.callLater(budget.wait(0.0) + 0.001,
                                                            self._budget_refilled)
        return False

    def _budget_refilled(self) -> None:
        self._budget_call = None
        self.resume_reading("share")

    def spent(self, seconds: float) -> None:
        if self.budget is not None:
            self.budget.charge(min(max(seconds, 0.0), 1.0))   # a clock jump is not a cost

    def charge_request(self, frame: Frame) -> None:
        """Take the request's cost from this connection's bucket, or refuse it (`host.busy`)."""
        cost = REQUEST_COSTS.get(frame.type)
        if cost is not None and not self.requests.take(cost):
            raise WireError("host.busy", f"{frame.type!r} refused: this connection's request "
                            f"budget is spent; ask again in {self.requests.wait(cost):.1f} s",
                            ref=frame.seq)

    def describe(self) -> str:
        who = self.peer_name or "?"
        where = f" {self.room.id}#{self.seat}" if self.room is not None else ""
        return f"host<{who}{where}>"

    # --- dispatch ------------------------------------------------------------------
    def frame_received(self, frame: Frame) -> None:
        t = frame.type
        if t == "error":
            log.info("%s reports: %s %s", self.describe(), frame.body["code"],
                     frame.body["message"])
            return
        if self.state == "hello":
            if t != "hello":
                raise WireError("hello.required", f"expected hello, got {t!r}", ref=frame.seq)
            self._hello(frame)
            return
        if self.state == "auth":
            if t != "auth":
                raise WireError("hello.required", f"expected auth, got {t!r}", ref=frame.seq)
            self._auth(frame)
            return
        if t in ("hello", "auth"):
            raise WireError("hello.repeated", f"{t!r} after the handshake", ref=frame.seq)
        if t == "ping":
            self.charge_request(frame)
            self.send("pong", {"n": frame.body["n"]})
            return
        if t == "pong":
            return
        spec = self.registry.get(t)
        if spec.layer == "table":
            if self.room is None or self.seat is None:
                raise WireError("lobby.not_seated", f"{t!r} needs a seat at a table",
                                ref=frame.seq)
            self.charge_request(frame)        # resync: it re-sends a whole log
            room = self.room
            try:
                room.table_message(self.seat, frame)
            except DiskFull as exc:
                self.node.disk_failed(room, exc)
                raise WireError("host.disk_full", DISK_FULL_MESSAGE, fatal=True,
                                ref=frame.seq) from None
            return
        handler = getattr(self.node.lobby, "on_" + t, None)
        if handler is None:
            raise WireError("msg.wrong_sender", f"{t!r} is not a request a host serves",
                            ref=frame.seq)
        self.charge_request(frame)
        if t in ("join_table", "leave_table", "create_table", "rematch"):
            # who sits where outlives a restart: the replies wait for lobby.json
            self.node.durable(self.node.lobby_record)
        try:
            handler(self, frame)
        except DiskFull as exc:                 # a match's first record
            self.node.say(f"disk full: {exc.path}")
            from .durability import start_later

            if start_later(self.node, self.room):
                return                          # seated; the match starts once it can write
            raise WireError("host.disk_full", DISK_FULL_MESSAGE, fatal=True,
                            ref=frame.seq) from None

    def failed_handling(self, exc: Exception, mtype: str, seq: int) -> None:
        from .bugs import host_bug

        host_bug(self, exc, mtype, seq)

    # --- handshake -----------------------------------------------------------------
    def _hello(self, frame: Frame) -> None:
        b = frame.body
        version = wire.choose_version(b["versions"])
        try:
            name = wire.valid_name(b["name"])
        except ValueError as exc:
            raise WireError("msg.bad_value", f"hello.name: {exc}", ref=frame.seq) from None
        if len(set(b["versions"])) != len(b["versions"]) or len(b["versions"]) > 16:
            raise WireError("msg.bad_value", "hello.versions: at most 16 distinct versions",
                            ref=frame.seq)
        self.version = version
        self.peer_name = name
        self.peer_identity = b["identity"]
        self.nonce = b["nonce"]
        self.challenge = self.node.random_bytes(32)
        msg = wire.auth_message(wire.AUTH_HOST_DOMAIN, version, self.nonce, self.challenge,
                                self.peer_identity)
        self.state = "auth"
        self.send("welcome", {"version": version, "software": SOFTWARE,
                              "host_identity": self.node.public_key,
                              "challenge": self.challenge,
                              "signature": self.node.identity.sign(msg)})

    def _auth(self, frame: Frame) -> None:
        msg = wire.auth_message(wire.AUTH_PEER_DOMAIN, self.version, self.nonce, self.challenge,
                                self.node.public_key)
        if not ident.verify(self.peer_identity, frame.body["signature"], msg):
            raise WireError("auth.bad_signature",
                            "the challenge signature does not verify with the hello's key",
                            fatal=True, ref=frame.seq)
        other = self.node.by_identity.get(self.peer_identity)
        if other is not None and other is not self and not other.closing:
            raise WireError("auth.identity_in_use",
                            "this identity is already connected (close the other peer first)",
                            fatal=True, ref=frame.seq)
        self.state = "ready"
        if self._timeout is not None and self._timeout.active():
            self._timeout.cancel()
        self._timeout = None
        self.decoder.max_size = wire.MAX_FRAME
        self.node.by_identity[self.peer_identity] = self
        if self.node.is_own_bot(self.peer_identity):
            self.budget = None              # the host's own bots are not held to a share
        cfg = self.node.config
        self.start_heartbeat(self.node.reactor, cfg.ping_interval, cfg.idle_timeout)
        room, seat = self.node.lobby.seat_of(self.peer_identity)
        ended = self.node.ended.get(self.peer_identity) if room is None else None
        self.send("ready", {"name": self.peer_name,
                            "table": room.id if room is not None else None, "seat": seat})
        if room is not None and room.id in self.node.stalled:   # ready, then: come back later
            raise WireError("host.disk_full", DISK_FULL_MESSAGE, fatal=True, ref=frame.seq)
        if ended is not None:
            # its last match ended (while it was away, perhaps): the last hand as its record
            # holds it (a seat away when it closed has no hand_end: every chair holds its
            # own proof), then the result, at once, so a peer still holding that seat stops
            # rather than wait for it (one that sits down anew ignores both: it sits at no
            # ended table)
            from .ended import last_hand

            for mtype, body in last_hand(self.node, ended[0]):
                self.send(mtype, body)
            self.send("match_end", ended[2])
            self.node.end_heard(self.peer_identity)
            return
        if room is not None and seat is not None:
            room.reconnect(seat, self)
            if room.status == "waiting":          # a lobby kept across a host restart
                from .durability import back_in_lobby

                back_in_lobby(self.node, room)


class Lobby:
    """Tables by id, and the lobby requests (list, create, join, leave)."""

    def __init__(self, node: HostNode) -> None:
        self.node = node
        self.tables: dict[str, TableRoom] = {}
        self.next_id = 1
        """The number of the next table opened (kept across restarts: net/ended.py)."""
        self.said: dict[tuple[str, int, bytes], int] = {}
        """(table, seat, identity) → the counter of its last chat line (`say`), for this run
        of the host only (not journalled): the peers' once-per-counter check stops repeats."""

    def create(self, game: str, variant: str | None, players: int | None,
               target: int | None, hands: int | None,
               options: dict[str, Any] | None = None) -> TableRoom:
        """Open a table; ValueError (→ lobby.bad_config) naming what is wrong."""
        if len(self.tables) >= self.node.config.max_tables:
            raise WireError("lobby.too_many_tables",
                            f"this host keeps at most {self.node.config.max_tables} tables")
        table_id = f"t{self.next_id}"
        room = TableRoom(self.node, table_id, game, variant, players, target, hands,
                         options or {})
        self.next_id += 1
        self.tables[table_id] = room
        return room

    def adopt(self, room: TableRoom) -> None:
        """A room restored from its journal takes its old id back."""
        self.tables[room.id] = room
        if room.id.startswith("t") and room.id[1:].isdigit():
            self.next_id = max(self.next_id, int(room.id[1:]) + 1)

    def reap(self, room: TableRoom) -> None:
        """A finished table leaves the host's memory (its records stay on disk)."""
        if self.tables.get(room.id) is room:
            del self.tables[room.id]
        for key in [k for k in self.said if k[0] == room.id]:
            del self.said[key]
        for slot in room.slots:
            if slot.conn is not None:
                room.unseat(slot.conn)

    def seat_of(self, identity: bytes) -> tuple[TableRoom | None, int | None]:
        """The table and seat this identity holds (a match not over), if any."""
        for room in self.tables.values():
            if room.status == "over":
                continue
            for i, slot in enumerate(room.slots):
                if slot.identity == identity:
                    return room, i
        return None, None

    def infos(self) -> list[dict[str, Any]]:
        return [room.info() for room in self.tables.values()]

    # --- requests ------------------------------------------------------------------
    def on_list_tables(self, conn: HostConnection, frame: Frame) -> None:
        conn.send("tables", {"tables": self.infos()})

    MAX_WAITING_PER_IDENTITY = 4
    """Tables one identity may have created that are still waiting for players: a single
    client must not fill the host's table cap with empty tables."""

    def on_create_table(self, conn: HostConnection, frame: Frame) -> None:
        b = frame.body
        mine = [r for r in self.tables.values() if r.status == "waiting"
                and r.creator == conn.peer_identity]
        if len(mine) >= self.MAX_WAITING_PER_IDENTITY:
            raise WireError("lobby.too_many_tables",
                            f"you already opened {len(mine)} tables still waiting for players "
                            f"({', '.join(r.id for r in mine)})", ref=frame.seq)
        try:
            room = self.create(b["game"], b["variant"], b["players"], b["target"], b["hands"])
            room.creator = conn.peer_identity
        except WireError as exc:            # lobby.too_many_tables (a WireError is a ValueError)
            raise WireError(exc.code, exc.message, ref=frame.seq) from None
        except ValueError as exc:
            raise WireError("lobby.bad_config", str(exc), ref=frame.seq) from None
        conn.send("table_created", {"table": room.id})

    def on_rematch(self, conn: HostConnection, frame: Frame) -> None:
        """TABLE-16: a person of a finished match asks to play again (net/rematch.py)."""
        self.node.rematches.ask(conn, frame.body["table"], frame.seq)

    def on_join_table(self, conn: HostConnection, frame: Frame) -> None:
        b = frame.body
        if conn.room is not None:
            raise WireError("lobby.already_seated",
                            f"you already sit at {conn.room.id} seat {conn.seat}", ref=frame.seq)
        table_id = b["table"]
        if table_id is None:
            open_rooms = [r for r in self.tables.values() if r.status == "waiting" and
                          r.free_seats()]
            if not open_rooms:
                raise WireError("lobby.no_table", "no table has a free seat", ref=frame.seq)
            room = open_rooms[0]
        else:
            if table_id not in self.tables:
                raise WireError("lobby.no_table", f"no table {table_id!r}", ref=frame.seq)
            room = self.tables[table_id]
        room.join(conn, b["seat"], frame.seq)

    def on_say(self, conn: HostConnection, frame: Frame) -> None:
        """A chat line: checked (seated at that table, 1..200 printable characters, its
        counter above the seat's last, signed by the connection's proven key) and relayed
        as `said` to every connected seat of the table. Never part of a hand's log, so the
        audit does not see it; its cost is the request bucket's (guard.REQUEST_COSTS)."""
        b = frame.body
        room, seat = conn.room, conn.seat
        if room is None or seat is None or room.id != b["table"]:
            raise WireError("lobby.not_seated", f"you do not sit at {b['table']!r}",
                            ref=frame.seq)
        try:
            if wire.valid_say(b["text"]) != b["text"]:
                raise ValueError("no blanks at either end")
        except ValueError as exc:
            raise WireError("msg.bad_value", f"say.text: {exc}", ref=frame.seq) from None
        key = (room.id, seat, conn.peer_identity)
        last = self.said.get(key, -1)
        if b["n"] <= last:
            raise WireError("msg.bad_value", f"say.n: {b['n']} is not above {last}, your "
                            "last line's", ref=frame.seq)
        signed = wire.say_message(self.node.public_key, room.id, seat, b["n"], b["text"])
        if not ident.verify(conn.peer_identity, b["sig"], signed):
            raise WireError("msg.bad_value", "say.sig: the signature does not verify with "
                            "your key", ref=frame.seq)
        self.said[key] = b["n"]
        said = {"table": room.id, "seat": seat, "name": conn.peer_name or f"seat {seat}",
                "n": b["n"], "text": b["text"], "sig": b["sig"]}
        for slot in room.slots:
            if slot.conn is not None:
                slot.conn.send("said", said)

    def on_leave_table(self, conn: HostConnection, frame: Frame) -> None:
        if conn.room is None or conn.seat is None:
            raise WireError("lobby.not_seated", "you sit at no table", ref=frame.seq)
        conn.room.leave(conn, frame.seq)


class HostNode(ServerFactory):
    """The listening host: connections, the lobby, the identity key, the records."""

    def __init__(self, reactor: Any, config: HostConfig,
                 identity: Ed25519PrivateKey | None = None,
                 bot_controller: Callable[[], Any] | None = None) -> None:
        from .durability import DiskGuardedClock

        self.reactor = DiskGuardedClock(reactor, self)   # a failed write stalls, no traceback
        self.config = config
        self.identity = identity or Ed25519PrivateKey.generate()
        self.public_key = ident.public_bytes(self.identity)
        self.bot_controller = bot_controller
        """() → a SeatController for a host bot (the CLI wires bots/; net imports none)."""
        self.bot_connector: Callable[[], Any] | None = None
        """() → a connector for the host's own bot peers (default: TCP to our port)."""
        self.own_bots: set[bytes] = set()
        self.bot_peers: list[Any] = []
        self.all_done: Deferred[None] = Deferred()
        self.by_identity: dict[bytes, HostConnection] = {}
        self.connections: set[HostConnection] = set()
        exempt = config.exempt_loopback if config.exempt_loopback is not None \
            else is_loopback(config.bind)
        self.guard = HostGuard(reactor, GuardLimits(
            config.max_connections, config.max_per_address, config.address_share,
            config.address_burst, exempt, config.max_buffered))
        """Connection caps per address and in all; each address's time budget."""
        self.lobby = Lobby(self)
        from .rematch import Rematches

        self.rematches = Rematches(self)
        """TABLE-16: finished matches their people may play again (net/rematch.py)."""
        self.port: IListeningPort | None = None
        self.data_dir = Path(config.data_dir) if config.data_dir else ident.default_data_dir()
        self._random: Callable[[int], bytes] = secrets.token_bytes
        seed = config.seed if config.seed is not None else seed_from_env()
        if seed is not None:
            import random
            rng = random.Random(seed)
            self._random = rng.randbytes
        self.matches_dir = self.data_dir / "matches"
        self.default_room: TableRoom | None = None
        self.bot_names: dict[bytes, str] = {}
        self.finished: list[str] = []
        self._bot_count = 0
        self._pending_bots: list[tuple[str, int | None, str | None]] = []
        self._dirty: set[Any] = set()
        self.hold_group = HoldGroup()
        self.syncs = 0
        """Journal fsyncs so far (the benches print it)."""
        self.data_lock: Any = config.data_lock
        self.stalled: dict[str, TableRoom] = {}
        """Tables waiting for the disk (a journal write failed): by table id."""
        self.disk_said: set[str] = set()
        """Stalled tables whose wait for the disk was said (once each, not every retry)."""
        self.lobby_saved: list[dict[str, Any]] | None = None
        """What lobby.json last held as written by this run (None: not written yet)."""
        self._disk_watch: IDelayedCall | None = None
        self.records = 0
        """Journal events appended by this run of the host."""
        self._journal_records: dict[Path, int] = {}
        """Under `P2P_BURRACO_KILL_AT_RECORD`: records after the match header in each journal
        this run appended to, counted from the file (so across restarts: absolute)."""
        from .durability import LobbyRecord

        self.lobby_record = LobbyRecord(self)
        """lobby.json, written before the replies of a turn that seated someone leave."""
        self.ended: OrderedDict[bytes, tuple[str, int, dict[str, Any]]] = OrderedDict()
        """identity → (table, seat, match_end body) of the latest matches that ended, so a
        seat that returns after its match ended hears the result and stops (bounded; kept
        across restarts in ended.msgpack, net/ended.py)."""
        self.owed_end: dict[bytes, IDelayedCall] = {}
        """Seats away when their match ended, each until it is back and heard its last hand
        and the result (from `ended`) or its grace ran out: a `--hands` host waits for them
        before it exits, so nobody is left retrying a host that is gone."""
        self.ended_last: dict[str, str] = {}
        """table → its last closed hand's record (relative to the data dir), for the
        tables in `ended`: a seat that was away when that hand closed hears it on return."""
        from .ended import EndedRecord

        self.ended_record = EndedRecord(self)
        """ended.msgpack, written before the match_end of a turn that ended a match leaves."""
        kill_at = os.environ.get(KILL_AT_RECORD, "")
        self.kill_at: int | None = int(kill_at) if kill_at.isdigit() else None
        self.open_tables()

    def random_bytes(self, n: int) -> bytes:
        return self._random(n)

    def new_match_id(self) -> bytes:
        """A match id never used under this data directory (storage.journal.new_match_id;
        from the seeded generator under `seed`, drawn again if that id is taken)."""
        from ..storage.journal import new_match_id

        return new_match_id(self.matches_dir, self.random_bytes)

    # --- tables ----------------------------------------------------------------------
    def open_tables(self) -> None:
        """At start: every unfinished match of the data directory resumes from its journal
        (`resume`), then the default table opens unless a resumed match is playing it. A
        damaged journal, or a match directory whose journal is missing, stops the start
        (`HostRefused`) unless `salvage`; so does a default table whose options differ from
        the unfinished match's."""
        from .durability import check_options, complete_journal, finish_if_over, survey_or_refuse

        if self.config.resume:
            from .ended import restore_ended

            restore_ended(self)
            found = survey_or_refuse(self)
            if found and self.config.default_table:
                check_options(self, found[0])
            for loaded in found:
                loaded = complete_journal(self, loaded)
                room = TableRoom.restore(self, loaded)
                self.lobby.adopt(room)
                if room.status == "over":       # over in its journal, result.json missing
                    finish_if_over(room)
                    continue
                if self.default_room is None:
                    self.default_room = room
            from .durability import restore_lobby

            restore_lobby(self)
        else:
            from .durability import set_aside_unreadable

            set_aside_unreadable(self)
        if self.config.default_table and self.default_room is None:
            self.open_default_table()

    def open_default_table(self) -> TableRoom:
        c = self.config
        room = self.lobby.create(c.game, c.variant, c.players, c.target, c.hands,
                                 c.match_options)
        self.default_room = room
        return room

    def table_rules(self, game: str) -> Any:
        """The clocks and limits of our own rules this host plays by (seeds/table.md)."""
        from ..table.rules import TableRules

        c = self.config
        return TableRules.for_game(game, turn_s=c.clock, match_min=c.match_clock,
                                   step_s=c.step_deadline, grace_s=c.grace,
                                   max_timeouts=c.max_timeouts, bots=c.replace_lost_with_bot)

    def now_ms(self) -> int:
        return int(self.reactor.seconds() * 1000)

    # --- durable before any reply leaves -----------------------------------------------
    def durable(self, journal: Any) -> None:
        """The replies of this reactor turn wait until `journal` is on disk: whatever any
        connection writes from now on is held, and one fsync per dirty journal at the end of
        the turn releases it all (group commit: a burst of events costs one fsync, not one
        each)."""
        self._dirty.add(journal)
        if not self.hold_group.holding:
            self.hold_group.holding = True
            self.reactor.callLater(0, self._sync_and_release)

    def _sync_and_release(self) -> None:
        """The end of a turn that wrote: every dirty journal on disk, then what was held
        leaves. A journal that fails takes its table's held output with it (a full disk
        stalls the table, anything else is a bug of that table); the rest is released
        whatever happened, so no other connection waits for good."""
        dirty, self._dirty = self._dirty, set()
        try:
            for journal in dirty:
                room = next((r for r in self.lobby.tables.values() if r.journal is journal),
                            None)
                try:
                    journal.sync()
                except DiskFull as exc:         # what it held must not leave: drop it
                    if room is not None:
                        self.disk_failed(room, exc, abort=True)
                    continue
                except Exception as exc:
                    if room is None:
                        raise
                    from .bugs import room_bug

                    room_bug(room, exc, "writing its journal")
                    continue
                self.syncs += 1
        finally:
            self.hold_group.release()

    # --- the disk fails ------------------------------------------------------------------
    def disk_failed(self, room: TableRoom, exc: DiskFull, abort: bool = False) -> None:
        """A write of `room`'s journal failed: see net/durability.stall."""
        from .durability import stall

        stall(self, room, exc, abort)

    def watch_disk(self) -> None:
        """Every `disk_retry` seconds: a table whose journal broke outside a request (a
        clock, a deal, an fsync) is stalled too, and stalled ones try to go on."""
        from .durability import watch

        watch(self)

    def stalled_identities(self) -> set[bytes]:
        return {s.identity for r in self.stalled.values() for s in r.slots
                if s.identity is not None}
    def journaled(self, journal: Any) -> None:
        """One more event appended to a match's journal by this run of the host. With
        `P2P_BURRACO_KILL_AT_RECORD=N` in the environment (the crash tests) the host makes
        the journal's N-th record after the match header durable and kills itself with
        SIGKILL there, its replies still held: a `kill -9` at exactly that journal record
        boundary, reproducible. N is the record's index in the file, whatever run of the
        host wrote the ones before it (its own `resume` marks included), so a host
        restarted with a later N dies at that later boundary of the same match."""
        self.records += 1
        if self.kill_at is None:
            return
        path = Path(journal.dir)
        count = self._journal_records.get(path)
        if count is None:
            from ..storage.files import scan_log
            from ..storage.journal import JOURNAL

            # the records on disk now, this one included, less the match header
            count = len(scan_log(path / JOURNAL).records) - 1
        else:
            count += 1
        self._journal_records[path] = count
        if count == self.kill_at:
            journal.sync()
            self.say(f"killed at journal record {count} [{KILL_AT_RECORD}]")
            for handler in events.handlers:
                handler.flush()
            os.kill(os.getpid(), signal.SIGKILL)

    def say(self, text: str) -> None:
        """One line about what happens (joins, drops, timeouts, results, alarms)."""
        events.info("%s", text)

    # --- the host's own bots ------------------------------------------------------------
    def add_bot(self, table_id: str, seat: int | None, name: str | None = None) -> Any:
        """Seat a bot: a real peer with its own identity and secrets, connected to this host
        over loopback TCP (or the test kit's connector), that joins `table_id`/`seat`. Its
        identity and secrets live under `<data-dir>/host/bots/<name>/`, so a host killed
        mid-hand brings its bots back where they were."""
        from .identity import load_or_create_identity
        from .peer import PeerConfig, PeerNode, tcp_connector

        if self.bot_controller is None:
            raise ValueError("this host has no bot strategy to seat")
        if self.port is None and self.bot_connector is None:
            self._pending_bots.append((table_id, seat, name))   # once we listen
            return None
        if name is None:
            name = self._new_bot_name()
        home = self.bots_dir / name
        key = load_or_create_identity(home)
        self.own_bots.add(ident.public_bytes(key))
        self.bot_names[ident.public_bytes(key)] = name
        cfg = PeerConfig(name=name[:32], table=table_id, seat=seat, reconnect=True,
                         reconnect_for=self.config.grace, data_dir=home,
                         fallback=None)
        if self.bot_connector is not None:
            connector = self.bot_connector()
        else:
            host, port = self.address()
            if host in ("0.0.0.0", "::", ""):
                host = "127.0.0.1"
            connector = tcp_connector(self.reactor, host, port)
        peer = PeerNode(self.reactor, cfg, self.bot_controller(), key, connector)
        peer.done.addBoth(lambda r: self._bot_done(peer, r))
        self.bot_peers.append(peer)
        peer.start()
        return peer

    def start_pending_bots(self) -> None:
        """Bots asked for before the host listened (restored matches): start them now."""
        pending, self._pending_bots = self._pending_bots, []
        for table_id, seat, name in pending:
            self.add_bot(table_id, seat, name)

    @property
    def bots_dir(self) -> Path:
        """Where the host's own bots keep their identities and seeds while they play."""
        return self.data_dir / "host" / "bots"

    def _new_bot_name(self) -> str:
        """A bot name no bot directory under this data directory has (its identity is new:
        a finished bot's directory is removed, so a name may come back after a restart,
        never its key)."""
        bots = self.bots_dir
        if self._bot_count == 0 and bots.is_dir():
            for d in bots.iterdir():
                tail = d.name.rpartition("-")[2]
                if tail.isdigit():
                    self._bot_count = max(self._bot_count, int(tail))
        self._bot_count += 1
        return f"bot-{self._bot_count}"

    def _bot_done(self, peer: Any, result: Any) -> Any:
        """A host bot's match is over (or it stopped): forget it, so memory stays flat over
        any number of matches. One whose match ended is also removed from disk — its key,
        seeds and copies of the hands: the host's own records are the match's, and a
        `--keep` host would otherwise keep a directory per bot per match. One that stopped
        otherwise keeps its directory (what it saw, to look at)."""
        if peer in self.bot_peers:
            self.bot_peers.remove(peer)
        self.own_bots.discard(peer.public_key)
        self.bot_names.pop(peer.public_key, None)
        from twisted.python.failure import Failure as _F

        if isinstance(result, _F):
            if self._bot_disk_full(peer, result.value):
                return None
            log.warning("host bot %s stopped: %s", peer.config.name, result.getErrorMessage())
            return None
        home = peer.config.data_dir
        if peer.finished and home is not None and Path(home).parent == self.bots_dir:
            shutil.rmtree(home, ignore_errors=True)
        return result

    def _bot_disk_full(self, peer: Any, error: BaseException | None) -> bool:
        """A host bot stopped because the host's disk (its files live there) refused a write
        (net/bugs.peer_disk_full): its table stalls as for a journal write that failed
        (net/durability.stall) — no clock runs, no hand is dealt — and when the disk takes
        writes again the table is rebuilt from its journal and the bot restarted from its
        own files, as after a crash. False when that is not why it stopped."""
        from .bugs import DISK_FULL_CODE

        cause = error.__cause__ if error is not None else None
        if getattr(error, "code", None) != DISK_FULL_CODE or not isinstance(cause, OSError):
            return False
        room, seat = self.lobby.seat_of(peer.public_key)
        path = Path(cause.filename or peer.config.data_dir or self.bots_dir)
        if room is not None and room.journal is not None and room.status == "playing":
            self.disk_failed(room, DiskFull(path, cause))
            return True
        self.say(f"disk full: {path}")
        if room is not None and seat is not None and room.status == "waiting":
            # no match yet, so no journal to stall: the bot sits down again once it can
            self.reactor.callLater(self.config.disk_retry, self._seat_bot_again, room.id,
                                   seat, peer.config.name)
        return True

    def _seat_bot_again(self, table_id: str, seat: int, name: str) -> None:
        """A host bot that left a waiting table for the disk: once the disk takes writes,
        the same bot (its identity, its files) takes its seat again if it is still free."""
        from .durability import writable

        room = self.lobby.tables.get(table_id)
        if room is None or room.status != "waiting" or room.slots[seat].taken:
            return
        if not writable(self.bots_dir):
            self.reactor.callLater(self.config.disk_retry, self._seat_bot_again, table_id,
                                   seat, name)
            return
        self.add_bot(table_id, seat, name)

    def restart_bot(self, room: TableRoom, seat: int) -> None:
        """A host bot whose seat is away (the host restarted): start it again."""
        slot = room.slots[seat]
        if slot.bot_name is None or self.bot_controller is None:
            return
        if any(p.config.name == slot.bot_name[:32] for p in self.bot_peers):
            return
        self.add_bot(room.id, seat, slot.bot_name)

    def own_bot_name(self, identity: bytes | None) -> str | None:
        return self.bot_names.get(identity) if identity is not None else None

    def remember_end(self, room: TableRoom, result: dict[str, Any]) -> None:
        """Keep who sat at a table whose match just ended, with its `match_end` body (the
        latest ENDED_SEATS seats only: memory stays flat over any number of matches)."""
        for seat, slot in enumerate(room.slots):
            if slot.identity is not None:
                self.ended.pop(slot.identity, None)
                self.ended[slot.identity] = (room.id, seat, result)
        if room.transcripts and room.journal is not None:
            self.ended_last[room.id] = _relative(self.data_dir,
                                                 room.journal.dir / room.transcripts[-1])
        while len(self.ended) > ENDED_SEATS:
            self.ended.popitem(last=False)
        held = {table for table, _, _ in self.ended.values()}
        for table in [t for t in self.ended_last if t not in held]:
            del self.ended_last[table]
        self.durable(self.ended_record)             # on disk before the match_end leaves

    def table_over(self, room: TableRoom) -> None:
        """A table's match ended: it leaves the host's memory (its records are on disk);
        with `keep` a fresh default table opens; `all_done` fires when nothing is left."""
        self.finished.append(f"table {room.id}: {room.summary()}")
        self.rematches.offer(room)                  # TABLE-16: the same people may play again
        if self.config.on_match_end is not None:
            try:
                self.config.on_match_end(room)
            except Exception:  # a hook's failure must not stop the host
                log.exception("on_match_end failed")
        del self.finished[:-100]
        self.reactor.callLater(1.0, self.lobby.reap, room)
        grace = room.table_rules.grace_ms / 1000
        for slot in room.slots:
            key = slot.identity
            if key is not None and slot.conn is None and not slot.bot \
                    and key not in self.owed_end:
                self.owed_end[key] = self.reactor.callLater(grace, self.end_heard, key)
                if self.config.exit_when_done:
                    self.say(f"{room.id}: {slot.name} was away as the match ended; the host "
                             f"waits up to {grace:g} s for it to hear the result")
        if room is self.default_room:
            self.default_room = None
            if self.config.keep:
                new = self.open_default_table()
                for _ in range(self.config.bots):
                    self.add_bot(new.id, None)
                return
        self.done_if_idle()

    def end_heard(self, identity: bytes) -> None:
        """A seat away at its match's end heard it (or its grace ran out): not waited for."""
        call = self.owed_end.pop(identity, None)
        if call is None:
            return                  # a seat of a match an earlier run ended: nothing held
        if call.active():
            call.cancel()
        self.done_if_idle()

    def done_if_idle(self) -> None:
        """`all_done` (a `--hands` host exits) once no table plays or waits for the disk
        and no seat that was away at its match's end is still owed the result."""
        busy = (RoomStatus.PLAYING, RoomStatus.STALLED)
        if self.config.exit_when_done and not self.all_done.called and not self.owed_end \
                and all(r.status not in busy for r in self.lobby.tables.values()):
            self.all_done.callback(None)

    def is_own_bot(self, identity: bytes) -> bool:
        return identity in self.own_bots

    def buildProtocol(self, addr: Any) -> HostConnection | None:
        """A connection past a cap is still built, to tell it `conn.too_many` and close; one
        from an address whose time share is spent is not even accepted (closed at once:
        accepting and refusing a flood of connections costs the host time too)."""
        address = str(getattr(addr, "host", "") or "")
        if self.guard.spent(address):
            return None
        refused = self.guard.admit(address)
        conn = HostConnection(self, address, refused)
        if refused is None:
            self.connections.add(conn)
            conn.hold_group = self.hold_group
            conn.pool = self.guard.pool
        else:
            log.info("connection from %s refused: %s", address, refused)
        return conn

    def connection_lost(self, conn: HostConnection) -> None:
        if conn.admitted:
            conn.admitted = False
            self.guard.release(conn.address)
        self.connections.discard(conn)
        if self.by_identity.get(conn.peer_identity) is conn:
            del self.by_identity[conn.peer_identity]
        if conn.room is not None:
            waiting = conn.room.status == "waiting"
            conn.room.disconnected(conn)
            if waiting:
                from .durability import save_lobby

                save_lobby(self)

    def address(self) -> tuple[str, int]:
        assert self.port is not None
        a: Any = self.port.getHost()          # an IPv4Address or IPv6Address
        return a.host, a.port


def start_host(reactor: Any, config: HostConfig, identity: Ed25519PrivateKey | None = None,
               bot_controller: Callable[[], Any] | None = None) -> HostNode:
    """Listen on config.bind:config.port (0 = any free port; see `node.address()`).
    `bot_controller()` makes the SeatController of each bot the host seats."""
    apply_gc_policy()
    if config.lock_data_dir and config.data_lock is None:
        from ..storage.lock import DataDirBusy, DataDirLock

        data_dir = Path(config.data_dir) if config.data_dir else ident.default_data_dir()
        try:
            config.data_lock = DataDirLock.acquire(data_dir)
        except DataDirBusy as exc:
            raise HostRefused(str(exc)) from None
    try:
        node = HostNode(reactor, config, identity, bot_controller)
        node.port = reactor.listenTCP(config.port, node, interface=config.bind)
    except BaseException:
        if config.data_lock is not None:
            config.data_lock.release()
            config.data_lock = None
        raise
    if node.data_lock is not None:
        node.data_lock.note(node.address()[1])
    node.start_pending_bots()
    node.watch_disk()
    return node


__all__: Sequence[str] = (
    "HostConfig",
    "HostConnection",
    "HostNode",
    "TableRoom",
    "start_host",
)


def _relative(base: Path, path: Path) -> str:
    """`path` as kept in ended.msgpack: below the data dir when it is (the dir may move)."""
    try:
        return str(Path(path).relative_to(base))
    except ValueError:
        return str(path)
