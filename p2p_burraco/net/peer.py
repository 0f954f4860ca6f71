"""The peer node: connects to a host, proves its identity, takes a seat, and drives the
sans-IO `SeatClient` (p2p_burraco.table.seat) that holds this seat's secrets.

The peer never hands its secrets to the host: the SeatClient answers the fair-deal rounds
with its own keys, learns only its own cards, and asks its SeatController (a bot or the
console) for actions. If the connection drops mid-match the peer reconnects with the same
identity, and the host gives the seat back while the grace period runs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.defer import Deferred
from twisted.internet.protocol import ClientFactory
from twisted.python.failure import Failure

from .. import __version__, wire
from ..controller import SeatController
from ..gc_policy import apply_gc_policy
from ..table.events import (
    ChatSaid,
    LinkStatus,
    LobbySeat,
    SeatsChanged,
    TableInfo,
    TableLine,
    TablesListed,
)
from ..wire import Frame, WireError
from . import identity as ident
from .framing import FrameProtocol

log = logging.getLogger(__name__)

SOFTWARE = f"p2p-burraco/{__version__}"


UNREACHABLE = "host not reachable, retrying… ({s} s so far)"
"""What a peer holding a seat says while it waits for its host (console/words.py has it in
Italian)."""

RETRY_CODES = frozenset({"conn.too_many", "auth.timeout", "host.busy"})
"""Fatal refusals of a busy host: a peer holding a seat comes back later, with backoff."""


def conn_ref(body: dict[str, Any]) -> int | None:
    ref = body.get("ref")
    return ref if isinstance(ref, int) else None


def lobby_seat(seat: dict[str, Any]) -> LobbySeat:
    """One seat of a table as the waiting screen shows it: who sits there (name, person or
    bot, connected) and their key's fingerprint, so a player can tell who is who. The host's
    table info is a free-form map on the wire: a field of the wrong type reads as absent."""
    identity, number, name = seat.get("identity"), seat.get("seat"), seat.get("name")
    return LobbySeat(
        seat=number if isinstance(number, int) else 0,
        name=str(name) if name else None, bot=bool(seat.get("bot")),
        connected=bool(seat.get("connected")),
        key=ident.fingerprint(identity) if isinstance(identity, bytes) and identity else None)


def lobby_table(info: dict[str, Any]) -> TableInfo:
    """The table as the waiting screen shows it, from the host's table info (a free-form
    map on the wire: a field of the wrong type reads as absent; hints are on unless the
    host says False)."""
    def text(key: str) -> str | None:
        value = info.get(key)
        return str(value) if value else None

    players = info.get("players")
    return TableInfo(id=text("id"), game=text("game"), variant=text("variant"),
                     players=players if isinstance(players, int) else None,
                     status=text("status"), hints=info.get("hints") is not False)


class PeerError(Exception):
    """The peer cannot go on (refused by the host, host unreachable, match abandoned)."""

    def __init__(self, message: str, code: str = "") -> None:
        self.code = code
        super().__init__(f"{code}: {message}" if code else message)


@dataclass
class PeerConfig:
    """Where to connect, who we are, which seat we want."""

    host: str = "127.0.0.1"
    port: int = 7777
    name: str = "player"
    table: str | None = None
    seat: int | None = None
    create: dict[str, Any] | None = None
    """Open a table with these lobby fields first (game, variant, players, target, hands)."""
    data_dir: Path | None = None
    """Where this identity keeps its seeds, statements and records (None: in memory only,
    for an ephemeral bot whose secrets die with it)."""
    reconnect: bool = True
    reconnect_delay: float = 0.25
    """First wait before reconnecting; it doubles up to `reconnect_max_delay`. Short, so a
    host restarted at once (a supervisor, a player's quick restart) or a connection that
    merely dropped is found again in a fraction of a second; the doubling keeps a host that
    stays away from being asked much more often (2 tries more than from 1 s over the 10
    minutes)."""
    reconnect_max_delay: float = 15.0
    reconnect_for: float = 600.0
    """Give up reconnecting after this many seconds without a host (10 minutes)."""
    ping_interval: float = 10.0
    idle_timeout: float = 45.0
    """Drop and reconnect when the host sent nothing (not even a ping) for this long."""
    seed: int | None = None
    """Seeds this peer's secrets (reproducible test vectors only; never in real play)."""
    fallback: Any = None
    """(hand, seat) → Action: the bot that plays for this seat when its clock runs out."""
    rematch: str | None = None
    """Ask for a rematch of this finished table instead of joining one (TABLE-16)."""
    extra: dict[str, Any] = field(default_factory=dict)
    host_fingerprint: str | None = None
    """The host key's fingerprint a LAN advertisement gave (`net.discovery`): a host whose
    key does not match is refused in the handshake [DISC-3]."""


Connector = Callable[[ClientFactory], Any]


def tcp_connector(reactor: Any, host: str, port: int) -> Connector:
    def connect(factory: ClientFactory) -> Any:
        return reactor.connectTCP(host, port, factory, timeout=10)
    return connect


class PeerConnection(FrameProtocol):
    """One TCP connection of a peer; the PeerNode outlives it across reconnects."""

    role = wire.PEER

    def __init__(self, node: PeerNode) -> None:
        super().__init__()
        self.node = node
        self.state = "hello"
        self.nonce = node.random_bytes(32)
        self.version = 0
        self.host_identity = b""

    def connectionMade(self) -> None:
        super().connectionMade()
        tcp: Any = self.transport            # ITCPTransport when it is real TCP
        if hasattr(tcp, "setTcpKeepAlive"):
            tcp.setTcpKeepAlive(1)
        if hasattr(tcp, "setTcpNoDelay"):
            tcp.setTcpNoDelay(True)   # small frames: no Nagle / delayed-ACK stall
        self.send("hello", {"versions": list(range(wire.PROTOCOL_VERSIONS[0],
                                                   wire.PROTOCOL_VERSIONS[1] + 1)),
                            "software": SOFTWARE, "name": self.node.config.name,
                            "identity": self.node.public_key, "nonce": self.nonce})

    def describe(self) -> str:
        return f"peer<{self.node.config.name}>"

    def lost(self, reason: Failure) -> None:
        self.node.connection_lost(self, reason)

    def failed_handling(self, exc: Exception, mtype: str, seq: int) -> None:
        from .bugs import peer_bug

        peer_bug(self, exc, mtype, seq)

    def refused(self, exc: WireError) -> None:
        """We refused one of the host's frames. A fatal refusal during the handshake ends the
        peer; after it (a quiet host, a stream out of step) we drop and come back."""
        if exc.fatal and self.state != "ready":
            self.node.fail(PeerError(exc.message, exc.code))

    def frame_received(self, frame: Frame) -> None:
        t, b = frame.type, frame.body
        if t == "error":
            self.node.host_error(b)
            return
        if self.state == "hello":
            if t != "welcome":
                raise WireError("hello.required", f"expected welcome, got {t!r}", ref=frame.seq)
            self._welcome(frame)
            return
        if self.state == "auth":
            if t != "ready":
                raise WireError("hello.required", f"expected ready, got {t!r}", ref=frame.seq)
            self.state = "ready"
            self.decoder.max_size = wire.MAX_FRAME
            cfg = self.node.config
            self.start_heartbeat(self.node.reactor, cfg.ping_interval, cfg.idle_timeout)
            self.node.ready(self, b)
            return
        if t in ("welcome", "ready"):
            raise WireError("hello.repeated", f"{t!r} after the handshake", ref=frame.seq)
        if t == "ping":
            self.send("pong", {"n": b["n"]})
            return
        self.node.frame(self, frame)

    def _welcome(self, frame: Frame) -> None:
        b = frame.body
        lo, hi = wire.PROTOCOL_VERSIONS
        if not lo <= b["version"] <= hi:
            raise WireError("hello.version", f"the host chose version {b['version']}, "
                            f"we speak {lo}..{hi}", fatal=True, ref=frame.seq)
        msg = wire.auth_message(wire.AUTH_HOST_DOMAIN, b["version"], self.nonce,
                                b["challenge"], self.node.public_key)
        if not ident.verify(b["host_identity"], b["signature"], msg):
            raise WireError("auth.bad_signature", "the host's welcome signature does not verify",
                            fatal=True, ref=frame.seq)
        advertised = self.node.config.host_fingerprint
        if advertised is not None:
            from .discovery import fingerprint_matches, key_fingerprint

            if not fingerprint_matches(b["host_identity"], advertised):
                raise WireError("auth.bad_signature", "the host's key has fingerprint "
                                f"{key_fingerprint(b['host_identity'])[:16]}, not the "
                                f"{advertised[:16]} its LAN advertisement gave [DISC-3]",
                                fatal=True, ref=frame.seq)
        expected = self.node.expected_host
        if expected is not None and b["host_identity"] != expected:
            raise WireError("auth.bad_signature", "the host's identity changed since the first "
                            "connection of this match", fatal=True, ref=frame.seq)
        self.version = b["version"]
        self.host_identity = b["host_identity"]
        reply = wire.auth_message(wire.AUTH_PEER_DOMAIN, self.version, self.nonce,
                                  b["challenge"], self.host_identity)
        self.state = "auth"
        self.send("auth", {"signature": self.node.identity.sign(reply)})


class PeerNode(ClientFactory):
    """A peer across its connections: identity, seat, the SeatClient, the outcome."""

    def __init__(self, reactor: Any, config: PeerConfig, controller: SeatController,
                 identity: Ed25519PrivateKey | None = None,
                 connector: Connector | None = None) -> None:
        self.reactor = reactor
        self.config = config
        self.controller = controller
        self.identity = identity or Ed25519PrivateKey.generate()
        self.public_key = ident.public_bytes(self.identity)
        self.connector = connector or tcp_connector(reactor, config.host, config.port)
        self.done: Deferred[dict[str, Any]] = Deferred()
        self.conn: PeerConnection | None = None
        self.table: str | None = None
        self.seat: int | None = None
        self.expected_host: bytes | None = None
        self.finished = False
        self.stopped = False
        self._lost_since: float | None = None
        self._backoff = config.reconnect_delay
        self._store: Any = None
        self._retry: Any = None
        self._random: Callable[[int], bytes]
        import secrets
        self._random = secrets.token_bytes
        if config.seed is not None:
            import random
            rng = random.Random(config.seed)
            self._random = rng.randbytes
        self.seat_client: Any = None
        self.table_info: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []   # every host error received (for tests/logs)
        self.on_frame: Callable[[Frame], None] | None = None
        """Called after each table frame is handled (benchmarks, tests)."""
        self.on_sent: Callable[[dict[str, Any]], None] | None = None
        """Called with each table message sent to the host (benchmarks, tests)."""
        self._resyncing = False
        self._resync_batch: list[dict[str, Any]] | None = None
        self._resync_marker = -1
        self._resync_seq = -1
        self._say_n = -1                  # the counter of our last chat line (`say`)
        self._heard: dict[tuple[str, int], int] = {}   # (table, seat) → last line shown
        self._resync_refused = False
        self._pings = 0
        self._released_marker = -1
        self._past_end = False
        """After a `ready` that seats us nowhere, until our request is answered: the host may
        first tell this identity of a match it sat at that ended (its last hand, then the
        match_end, see `ready`): not ours any more, so those frames are let pass."""
        self._asked_seat = False
        """A seat was asked for and not yet given: lost then, the host may have seated us
        (its answer lost with it), so the peer comes back to see (`ready` says)."""

    def random_bytes(self, n: int) -> bytes:
        return self._random(n)

    # --- lifecycle -----------------------------------------------------------------
    def start(self) -> Deferred[dict[str, Any]]:
        self.connector(self)
        return self.done

    def buildProtocol(self, addr: Any) -> PeerConnection:
        conn = PeerConnection(self)
        self.conn = conn
        return conn

    def clientConnectionFailed(self, connector: Any, reason: Failure) -> None:
        self._retry_or_fail(PeerError(f"cannot reach the host at {self.config.host}:"
                                      f"{self.config.port} ({reason.getErrorMessage()})"))

    def disconnect(self) -> None:
        """Leave for good (the console's quit): no reconnect."""
        self.stopped = True
        if self._retry is not None and self._retry.active():
            self._retry.cancel()
        if self.conn is not None:
            self.conn.drop()

    close = disconnect

    def fail(self, error: Exception) -> None:
        if not self.done.called:
            self.stopped = True
            if self._retry is not None and self._retry.active():
                self._retry.cancel()
            self.done.errback(error)          # a Deferred wraps it in a Failure

    def connection_lost(self, conn: PeerConnection, reason: Failure) -> None:
        if conn is self.conn:
            self.conn = None
        if self.finished or self.stopped or self.done.called:
            return
        self._retry_or_fail(PeerError(f"lost the connection to the host at "
                                      f"{self.config.host}:{self.config.port}"))

    def _retry_or_fail(self, error: PeerError) -> None:
        """Come back with backoff while we hold a seat, for up to `reconnect_for` seconds;
        then give up with a plain sentence."""
        if self.stopped or self.done.called:
            return
        if not self.config.reconnect or (self.seat is None and not self._asked_seat
                                         and not self.seat_on_disk()):
            self.fail(error)
            return
        now = self.reactor.seconds()
        if self._lost_since is None:
            self._lost_since = now
            self._backoff = self.config.reconnect_delay
        waited = now - self._lost_since
        if waited > self.config.reconnect_for:
            self.fail(PeerError(f"{error}; gave up after {waited / 60:.0f} minute(s) of "
                                "retrying"))
            return
        self.notify_status(UNREACHABLE.format(s=f"{waited:.0f}"), UNREACHABLE,
                           s=f"{waited:.0f}")
        log.warning("%s: %s", error, UNREACHABLE.format(s=f"{waited:.0f}"))
        delay = self._backoff
        self._backoff = min(self._backoff * 2, self.config.reconnect_max_delay)
        self._retry = self.reactor.callLater(delay, self._reconnect)

    def _reconnect(self) -> None:
        self._retry = None
        if not (self.stopped or self.done.called):
            self.connector(self)

    def seat_on_disk(self) -> bool:
        """This identity's last seat, kept on disk, is at this host and its match had not
        ended: the peer holds a seat there even before its first connection (a player whose
        machine restarted with the host's) and waits for the host rather than give up."""
        saved = self.store.seat() if self.store is not None else None
        if not saved:
            return False
        return saved.get("host") == self.config.host and \
            saved.get("port") == self.config.port and saved.get("seat") is not None

    def notify_status(self, text: str, template: str | None = None, **fields: str) -> None:
        """A line about the link (`template` and `fields`: the words the console translates;
        `text` is the English one)."""
        try:
            self.controller.notify(LinkStatus(text, template, fields))
        except Exception:  # a controller's display problem must not stop the protocol
            log.exception("controller.notify failed")

    # --- after the handshake ---------------------------------------------------------
    def ready(self, conn: PeerConnection, body: dict[str, Any]) -> None:
        self._lost_since = None
        if self.expected_host is None:
            self.expected_host = conn.host_identity
        if body["table"] is not None and body["seat"] is not None:
            self.table, self.seat = body["table"], body["seat"]
            self.notify_status(f"back at {self.table} as seat {self.seat}")
            self.resumed(conn)
            return
        if self.seat is not None:
            # we held a seat the host does not give back: either its match ended (the host
            # says so next: its last hand, which we take as a resync's answer — we may have
            # been away when it closed — then a match_end) or the seat went to someone else
            # after the grace — which, we know once our ping is answered with no match_end
            # before it
            self._resync_batch = []
            self._resyncing = True
            self._released_marker = self._next_ping()
            conn.send("ping", {"n": self._released_marker})
            return
        self._asked_seat = True      # a host that dies before answering may have seated us
        self._past_end = True
        if self.config.create is not None and self.table is None:
            conn.send("create_table", dict(self.config.create))
            return
        if self.config.rematch is not None and self.table is None:
            conn.send("rematch", {"table": self.config.rematch})   # TABLE-16
            return
        conn.send("join_table", {"table": self.config.table or self.table,
                                 "seat": self.config.seat})

    def host_error(self, body: dict[str, Any]) -> None:
        """An error frame from the host: fatal ones end the peer; others are reported."""
        self.events.append(body)
        log.info("host refused: %s %s", body["code"], body["message"])
        if body["fatal"]:
            conn = self.conn
            if conn is not None and conn.state == "ready" and self.seat is not None and \
                    not body["code"].startswith(("hello.", "auth.", "host.shutdown",
                                                 "host.internal")):
                return   # the host closes this connection; we come back and resync
            if self.seat is not None and body["code"] in RETRY_CODES:
                return   # a busy host: the connection closes and we retry with backoff
            self.fail(PeerError(body["message"], body["code"]))
            return
        if body["code"] == "host.busy" and self._resyncing and conn_ref(body) is not None \
                and conn_ref(body) == self._resync_seq:
            self._resync_refused = True      # asked too fast: ask again after its marker
            return
        if body["code"].startswith("lobby.") and self.seat is None:
            # could not sit down: nothing else to do for an automatic peer
            self.fail(PeerError(body["message"], body["code"]))
            return
        if body["code"].startswith("table."):
            self.table_error(body)

    def frame(self, conn: PeerConnection, frame: Frame) -> None:
        t, b = frame.type, frame.body
        if t == "table_created":
            self.table = b["table"]
            conn.send("join_table", {"table": b["table"], "seat": self.config.seat})
        elif t == "seated":
            self._asked_seat = False
            self._past_end = False
            self.table, self.seat = b["table"], b["seat"]
            self.table_info = b["info"]
            if self.store is not None:       # where this identity sits, for the player
                self.store.save_seat({"host": self.config.host, "port": self.config.port,
                                      "table": self.table, "seat": self.seat,
                                      "host_key": (self.expected_host or b"").hex()})
            self.notify_status(f"connected to {self.config.host}:{self.config.port} "
                               f"as seat {self.seat} of {self.table}")
            self.seats_changed()
        elif t in ("table_update", "match_started"):
            self.table_info = b["info"]
            self.seats_changed()
            if t == "match_started":
                self.match_started(conn, b)
        elif t == "tables":
            self.controller.notify(TablesListed(tuple(b["tables"])))
        elif t == "left":
            self.table = self.seat = None
        elif t == "said":
            self.said(b)
        elif t == "seat_status":
            state = "back" if b["connected"] else \
                f"dropped ({(b['grace_ms'] or 0) // 1000} s grace)"
            self.controller.notify(TableLine(f"seat {b['seat']} {state}"))
            for seat in self.table_info.get("seats") or []:
                if seat.get("seat") == b["seat"]:     # the seats panel marks it away
                    seat["connected"] = bool(b["connected"])
                    self.seats_changed()
        elif t == "match_end":
            self.match_end(b)
        elif t == "pong":
            if b["n"] == self._released_marker and not self.finished:
                self._resyncing, self._resync_batch = False, None
                self.notify_status("the seat was released while we were away")
                self.seat_released()
                return
            if self._resyncing and b["n"] == self._resync_marker:
                if self._resync_refused:
                    self._resync_refused = False
                    self.reactor.callLater(1.0, self._resync_again)
                else:
                    self._finish_resync()
            self.pong(b["n"])
        elif self.registry_layer(t) == "table":
            self.table_frame(conn, frame)
        else:
            raise WireError("msg.wrong_sender", f"a peer does not expect {t!r}", ref=frame.seq)

    def registry_layer(self, mtype: str) -> str:
        return wire.registry().get(mtype).layer

    def seats_changed(self) -> None:
        seats = self.table_info.get("seats", [])
        names = tuple(str(s.get("name") or f"seat {s.get('seat')}") for s in seats)
        self.controller.notify(SeatsChanged(names, self.seat,
                                            tuple(lobby_seat(s) for s in seats),
                                            lobby_table(self.table_info)))

    def match_end(self, body: dict[str, Any]) -> None:
        if body.get("table") != self.table:
            self._past_end = False
            return                  # a match this peer does not sit at (its last one's end)
        if self._resyncing:
            # the host answered our resync (or, for a match that ended while we were away,
            # sent its last hand) before it ended the match (one connection, in order): the
            # answer is whole — take it (the last hand's hand_end, its record) before the
            # end, or the seat would stop without its copy; nothing is sent back to a match
            # that is over
            self._finish_resync(send=False)
        self.finished = True
        if self.store is not None and self.seat_on_disk():
            self.store.save_seat({})         # no seat is held there any more
        standings = body["standings"]
        client = self.seat_client
        if client is None or not client.match_over:   # a --hands limit, not the target
            try:
                self.controller.match_ended(standings)
            except Exception:  # the outcome stands whatever the display does
                log.exception("controller.match_ended failed")
        if not self.done.called:
            self.done.callback(standings)
        if self.conn is not None:
            self.conn.drop()

    def pong(self, n: int) -> None:
        """A ping answered (bench hooks may override)."""

    # --- table layer -------------------------------------------------------------------
    def _seat_client(self) -> Any:
        """This seat's SeatClient: created once, kept across reconnects and hands. Its
        durable facts live in the identity's directory (or in memory for an ephemeral bot)."""
        if self.seat_client is None:
            from ..table.seat import SeatClient, random_seed
            from ..table.store import MemorySeatStore

            assert self.seat is not None
            source = random_seed
            if self.config.seed is not None:
                import hashlib
                base = self.config.seed.to_bytes(8, "big", signed=True)

                def source(hand_id: bytes, seat: int) -> bytes:
                    return hashlib.sha256(b"p2p-burraco/peer-seed/v1\x00" + base + hand_id
                                          + bytes([seat])).digest()
            self.seat_client = SeatClient(self.seat, self.identity, self.controller,
                                          seed_source=source, store=self.store or
                                          MemorySeatStore(), host_key=self.expected_host,
                                          fallback=self.config.fallback, on_outbox=self._flush)
        return self.seat_client

    @property
    def store(self) -> Any:
        """The identity's FileSeatStore (None without a data directory)."""
        if self._store is None and self.config.data_dir is not None:
            from ..storage.seatstore import FileSeatStore

            self._store = FileSeatStore(Path(self.config.data_dir))
        return self._store

    def _send_table(self, msgs: list[dict[str, Any]]) -> None:
        from ..table import messages as tm

        conn = self.conn
        for msg in msgs:
            if conn is None or conn.state != "ready":
                return  # re-sent after the resync if the host did not get it
            conn.send(msg["type"], tm.body_of(msg))
            if self.on_sent is not None:
                self.on_sent(msg)

    def _flush(self) -> None:
        """The controller decided later (the console): send what the SeatClient queued."""
        if self.seat_client is not None:
            self._send_table(self.seat_client.take_outbox())

    def match_started(self, conn: PeerConnection, body: dict[str, Any]) -> None:
        self._seat_client()
        self._remember_keys(body.get("info") or {})

    def _remember_keys(self, info: dict[str, Any]) -> None:
        """Pin the keys met at this table in `<data-dir>/known_keys` (what `verify` checks
        records against by default, like SSH's known_hosts). A name met with another key
        is kept beside the old one: names are not unique, keys are."""
        home = self.config.data_dir
        if home is None:
            return
        from ..storage.known_keys import HOST, KnownKeys, KnownKeysError, known_keys_path

        data_dir = Path(home).parent.parent       # <data-dir>/identities/<name>
        try:
            keys = KnownKeys.load(known_keys_path(data_dir))
            for seat in info.get("seats") or []:
                if seat.get("name") and isinstance(seat.get("identity"), bytes):
                    keys.remember(seat["name"], seat["identity"], also=True)
            if self.expected_host:
                keys.remember(HOST, self.expected_host, also=True)
            keys.save()
        except (KnownKeysError, OSError) as exc:
            log.warning("could not update the known keys: %s", exc)

    def table_frame(self, conn: PeerConnection, frame: Frame) -> None:
        from ..table import messages as tm

        if self.seat is None:
            if self._past_end:
                return              # the last hand of an ended match we no longer sit at
            raise WireError("lobby.not_seated", f"{frame.type!r} but we sit at no table",
                            ref=frame.seq)
        client = self._seat_client()
        msg = tm.from_body(frame.type, frame.body)
        if frame.type == "refusal" and frame.body.get("seat") == self.seat:
            self.events.append({"code": frame.body["code"], "message": frame.body["message"],
                                "rule": frame.body["rule"], "fatal": False,
                                "logged": frame.body["logged"]})
        if self._resyncing and self._resync_batch is not None:
            self._resync_batch.append(msg)
            return
        self._send_table(client.receive(msg))
        if self.on_frame is not None:
            self.on_frame(frame)
        self._check_halted()

    def _check_halted(self) -> None:
        """The SeatClient caught the host lying: this match stops here, with the reason."""
        client = self.seat_client
        if client is not None and client.halted and not self.done.called:
            self.fail(PeerError(f"the host is at fault: {client.halted}", "host_fault"))
            if self.conn is not None:
                self.conn.drop()

    def table_error(self, body: dict[str, Any]) -> None:
        """A refusal of one of our table messages: the SeatClient tells its controller."""
        if self.seat_client is None:
            return
        msg = {"type": "error", **body}
        self._send_table(self.seat_client.receive(msg))

    def resumed(self, conn: PeerConnection) -> None:
        """Back in our seat after a drop: ask for the hand's log, re-send what was lost."""
        client = self._seat_client()
        hand_id = client.hand_start["hand_id"] if client.hand_start is not None else None
        self._resync_batch = []
        self._resyncing = True
        self._resync_seq = conn.send("resync", {"hand_id": hand_id})
        # the host answers the resync with the log in order; a ping marks its end
        self._resync_marker = self._next_ping()
        conn.send("ping", {"n": self._resync_marker})

    def _resync_again(self) -> None:
        conn = self.conn
        if conn is not None and conn.state == "ready" and self._resyncing:
            self.resumed(conn)

    def _finish_resync(self, send: bool = True) -> None:
        """The resync's answer is all here: place it by index, give it to the seat, and
        (`send`) re-send what was lost and the seat's replies."""
        batch, self._resync_batch = self._resync_batch or [], None
        self._resyncing = False
        if not batch and not send:
            return
        client = self._seat_client()
        placed = self._by_index(batch)
        if placed is None:
            return
        replies = client.receive_all(placed) if placed else []
        if not send:
            self._check_halted()
            return
        inflight = client.unacknowledged()
        if inflight is not None and inflight not in replies:
            # lost with the old socket, or held by the host (a commitment is relayed only
            # once all are in): send it again — the host takes a copy of a message it already
            # accepted as a no-op, and a refusal of it is the seat's to hear
            self._send_table([inflight])
        self._send_table(replies)

    def _by_index(self, batch: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """The resync answer placed by index: it is each hand's log from its hand_start
        (index 0) on, in order, so the i-th entry after a hand_start is entry i. Anything
        before the first hand_start reached us ahead of the answer (a host that relays to a
        seat still resyncing) and is in the answer again at its place: dropped. An entry this
        seat already holds at that index is a duplicate and must be the same one; one that
        differs means the two logs diverged — the peer stops with a clear message rather
        than build on it (None)."""
        start = next((i for i, m in enumerate(batch) if m.get("type") == "hand_start"), None)
        if start is None:
            return [m for m in batch if m.get("type") == "clock"]
        from ..fairdeal import signing

        client = self.seat_client
        replica = getattr(client, "replica", None)
        held = replica.deal.hashes if replica is not None else []
        held_id = replica.hand_id if replica is not None else None
        out: list[dict[str, Any]] = []
        index, hand_id = -1, None
        for msg in batch[start:]:
            mtype = msg.get("type")
            if mtype == "hand_start":
                index, hand_id = 0, msg.get("hand_id")
            elif mtype in ("hand_end", "clock") or mtype == "refusal" and not msg.get("logged"):
                out.append(msg)
                continue
            else:
                index += 1
            if hand_id == held_id and index < len(held):
                if signing.entry_hash(msg) != held[index]:
                    self.fail(PeerError(f"the host's log of this hand differs at entry {index} "
                                        "from the one this seat holds", "host_fault"))
                    if self.conn is not None:
                        self.conn.drop()
                    return None
                if index > 0:
                    continue                 # held already, at this very place
            out.append(msg)
        return out

    def _next_ping(self) -> int:
        self._pings += 1
        return self._pings

    def say(self, text: str) -> bool:
        """Send a chat line to the table, signed with our identity key (ValueError when the
        line is empty, too long or not printable). False when we sit at no table."""
        line = wire.valid_say(text)
        if self.table is None or self.seat is None or self.conn is None \
                or self.expected_host is None:
            return False
        # above the last, and above any line an earlier run of this identity sent (a clock)
        self._say_n = max(self._say_n + 1, int(self.reactor.seconds() * 1000))
        sig = self.identity.sign(wire.say_message(self.expected_host, self.table, self.seat,
                                                  self._say_n, line))
        self.conn.send("say", {"table": self.table, "n": self._say_n, "text": line, "sig": sig})
        return True

    def said(self, body: dict[str, Any]) -> None:
        """A chat line relayed by the host: shown only if the seat's own key signed it for
        this host and table, and it keeps the text rule (`wire.valid_say`), so the host
        cannot put words in a mouth. While a match runs the seat's key is the one the
        signed hand_start names (the host cannot swap it by a `table_update`); before it,
        the key the host's table info binds to the seat (the host's word)."""
        key = self.chat_key(body["seat"])
        host = self.expected_host
        try:
            fair = wire.valid_say(body["text"]) == body["text"]
        except ValueError:
            fair = False
        if not fair:
            self.controller.notify(TableLine(f"a chat line for seat {body['seat']} breaking "
                                             "the text rule was dropped", "log.error"))
            return
        if body["table"] != self.table or not isinstance(key, bytes) or host is None \
                or not ident.verify(key, body["sig"], wire.say_message(
                    host, body["table"], body["seat"], body["n"], body["text"])):
            self.controller.notify(TableLine(f"a chat line for seat {body['seat']} without "
                                             "that seat's signature was dropped", "log.error"))
            return
        if body["n"] <= self._heard.get((body["table"], body["seat"]), -1):
            return                       # a line shown already: a replay adds nothing
        self._heard[(body["table"], body["seat"])] = body["n"]
        self.controller.notify(ChatSaid(body["seat"], body["name"], body["text"]))

    def chat_key(self, seat: int) -> bytes | None:
        """The key a chat line of `seat` must be signed with: the seat key of the hand_start
        this peer verified while its match runs, else the host's table info."""
        client = self.seat_client
        hs = getattr(client, "hand_start", None) if client is not None else None
        if hs is not None and not self.finished:
            keys = hs.get("seat_keys") or []
            return bytes(keys[seat]) if 0 <= seat < len(keys) else None
        seats = {s.get("seat"): s for s in self.table_info.get("seats", [])}
        key = seats.get(seat, {}).get("identity")
        return key if isinstance(key, bytes) else None

    def request_abandon(self, reason: str = "abbandona") -> bool:
        """The person abandons the match (TABLE-9): the seat signs `abandon` at the first
        place it can. False when there is no match to abandon."""
        client = self.seat_client
        if client is None or self.finished or self.done.called:
            return False
        client.request_abandon(reason)
        self._flush()
        return True

    def seat_released(self) -> None:
        """Our seat went to someone else while we were away: this match is over for us."""
        self.seat_client = None
        self.seat = None
        if self.store is not None and self.seat_on_disk():
            self.store.save_seat({})         # no seat is held there any more
        self.fail(PeerError("our seat was given away after the grace period ran out",
                            "seat_released"))


def connect_peer(reactor: Any, host: str, port: int, name: str, controller: SeatController,
                 identity: Ed25519PrivateKey | None = None, data_dir: Path | None = None,
                 **options: Any) -> PeerNode:
    """Start a peer; `node.done` fires with the final standings when the match ends."""
    apply_gc_policy()
    config = PeerConfig(host=host, port=port, name=name, data_dir=data_dir, **options)
    node = PeerNode(reactor, config, controller, identity)
    node.start()
    return node
