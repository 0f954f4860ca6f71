"""Reactor-free test kit: in-memory links between a host and peers, pumped by hand (it lives
in tests/: nothing the package ships imports it).

Why: almost every protocol behaviour (framing, handshake, lobby, a whole fair-dealt hand,
drops and grace periods) can be checked deterministically without sockets or a running
reactor, in the style of Twisted's own `iosim`. A `Loopback` owns a `MemoryReactorClock`
(the fake clock for timeouts); `connect(factory, client_factory)` builds both protocols on
`StringTransport`s; `pump()` moves bytes both ways until nothing moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.address import IPv4Address
from twisted.internet.error import ConnectionDone, ConnectionLost
from twisted.internet.interfaces import IProtocol
from twisted.internet.protocol import ClientFactory, Factory
from twisted.internet.testing import MemoryReactorClock, StringTransport
from twisted.python.failure import Failure

from p2p_burraco import wire
from p2p_burraco.net import identity
from p2p_burraco.net.framing import FrameProtocol
from p2p_burraco.table.events import SeatEvent
from p2p_burraco.wire import Frame


class _Transport(StringTransport):
    """A StringTransport whose close is seen by the pump (after the pending bytes)."""

    def __init__(self, peer_port: int, host_port: int) -> None:
        super().__init__(hostAddress=IPv4Address("TCP", "127.0.0.1", host_port),
                         peerAddress=IPv4Address("TCP", "127.0.0.1", peer_port))
        self.keepalive = 0

    def setTcpKeepAlive(self, enabled: int) -> None:
        self.keepalive = enabled


@dataclass
class Link:
    """Both ends of one in-memory connection."""

    server: IProtocol
    client: IProtocol
    server_tx: _Transport
    client_tx: _Transport
    closed: bool = False
    chunk: int = 0
    """Deliver at most this many bytes per call (0 = all at once): 1 feeds byte by byte."""
    log: list[tuple[str, bytes]] = field(default_factory=list)
    """Every chunk delivered: ('c2s'|'s2c', bytes), for frame-level assertions."""

    def move(self) -> bool:
        """Deliver pending bytes both ways; close both ends when one asked to."""
        moved = False
        for src, dst, direction in ((self.client_tx, self.server, "c2s"),
                                    (self.server_tx, self.client, "s2c")):
            data = src.value()
            if data and not self.closed:
                src.clear()
                moved = True
                self.log.append((direction, data))
                if self.chunk:
                    for i in range(0, len(data), self.chunk):
                        dst.dataReceived(data[i:i + self.chunk])
                else:
                    dst.dataReceived(data)
        if not self.closed and (self.client_tx.disconnecting or self.server_tx.disconnecting) \
                and not self.client_tx.value() and not self.server_tx.value():
            self.close(clean=True)
            moved = True
        return moved

    def close(self, clean: bool = False) -> None:
        """Both ends see the connection lost (clean: an orderly close; else a drop)."""
        if self.closed:
            return
        self.closed = True
        reason = Failure(ConnectionDone() if clean else ConnectionLost())
        self.client_tx.disconnecting = self.server_tx.disconnecting = True
        self.client.connectionLost(reason)
        self.server.connectionLost(reason)


class Loopback:
    """A fake network: a clock, any number of links, and a pump."""

    def __init__(self, clock: MemoryReactorClock | None = None) -> None:
        self.clock = clock or MemoryReactorClock()
        self.links: list[Link] = []
        self._port = 40000

    def connect(self, server_factory: Factory, client: IProtocol | ClientFactory) -> Link:
        """Build the server protocol from `server_factory` and wire it to `client` (a
        protocol, or a client factory whose protocol is built here)."""
        self._port += 1
        host_port, peer_port = 7777, self._port
        addr = IPv4Address("TCP", "127.0.0.1", peer_port)
        server = server_factory.buildProtocol(addr)
        if isinstance(client, ClientFactory):
            client_proto = client.buildProtocol(IPv4Address("TCP", "127.0.0.1", host_port))
        else:
            client_proto = client
        stx = _Transport(peer_port, host_port)
        ctx = _Transport(host_port, peer_port)
        link = Link(server, client_proto, stx, ctx)
        server.makeConnection(stx)
        client_proto.makeConnection(ctx)
        self.links.append(link)
        return link

    def pump(self, rounds: int = 1_000_000) -> int:
        """Move bytes until nothing moves; returns how many rounds moved something."""
        for n in range(rounds):
            moved = False
            for link in list(self.links):
                moved = link.move() or moved
            now = self.clock.seconds()
            if any(c.getTime() <= now for c in self.clock.getDelayedCalls()):
                self.clock.advance(0)        # what is due now (the host's held replies)
                moved = True
            if not moved:
                return n
        raise RuntimeError("the pump never went quiet")

    def advance(self, seconds: float) -> None:
        """Move the fake clock (timeouts, grace periods), then pump."""
        self.clock.advance(seconds)
        self.pump()

    def run_until(self, predicate: Any, step: float = 0.0, limit: int = 100_000) -> None:
        """Pump (advancing the clock by `step` each round) until predicate() is true."""
        for _ in range(limit):
            self.pump()
            if predicate():
                return
            self.clock.advance(step)
        raise RuntimeError("condition never became true")


class LoopbackConnector:
    """What a `PeerNode` uses to reach a host in a `Loopback` instead of over TCP."""

    def __init__(self, net: Loopback, host_factory: Factory) -> None:
        self.net = net
        self.host_factory = host_factory

    def __call__(self, client_factory: ClientFactory) -> Link:
        return self.net.connect(self.host_factory, client_factory)


class ScriptedPeer(FrameProtocol):
    """A peer driven by hand, for tests of what the host does with any input.

    It does the handshake itself when `auto_auth` (with `key`), records every frame it
    receives, and can write arbitrary bytes (`send_raw`, `write`) that no real peer would.
    """

    role = wire.PEER

    def __init__(self, key: Ed25519PrivateKey | None = None, name: str = "tester",
                 auto_auth: bool = True, join: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.key = key or Ed25519PrivateKey.generate()
        self.name = name
        self.auto_auth = auto_auth
        self.join = join
        self.nonce = b"\x11" * 32
        self.received: list[Frame] = []
        self.lost_reason: Failure | None = None
        self.version = 0
        self.answer_pings = True

    @property
    def public_key(self) -> bytes:
        return identity.public_bytes(self.key)

    def connectionMade(self) -> None:
        super().connectionMade()
        if self.auto_auth:
            self.hello()

    def hello(self, versions: list[int] | None = None) -> None:
        self.send("hello", {"versions": versions or [wire.PROTOCOL_VERSIONS[1]],
                            "software": "scripted", "name": self.name,
                            "identity": self.public_key, "nonce": self.nonce})

    def frame_received(self, frame: Frame) -> None:
        self.received.append(frame)
        if frame.type == "ping" and self.answer_pings:
            self.send("pong", {"n": frame.body["n"]})
        if frame.type == "welcome" and self.auto_auth:
            b = frame.body
            self.version = b["version"]
            msg = wire.auth_message(wire.AUTH_PEER_DOMAIN, b["version"], self.nonce,
                                    b["challenge"], b["host_identity"])
            self.send("auth", {"signature": self.key.sign(msg)})
        if frame.type == "ready":
            self.decoder.max_size = wire.MAX_FRAME
            if self.join is not None:
                self.send("join_table", self.join)

    def lost(self, reason: Failure) -> None:
        self.lost_reason = reason

    def send_raw(self, value: Any, seq: int | None = None) -> None:
        """Frame any value, unvalidated; `seq` None = take the next seq number."""
        if isinstance(value, dict) and "seq" not in value and seq is None:
            value = {**value, "seq": self.send_seq.next()}
        self.write(wire.frame_bytes(wire.pack(value), max_size=1 << 30))

    def write(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(data)

    def of_type(self, mtype: str) -> list[Frame]:
        return [f for f in self.received if f.type == mtype]

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [f.body for f in self.of_type("error")]

    @property
    def closed(self) -> bool:
        return self.lost_reason is not None


class HoldingController:
    """Wraps a SeatController; while `hold` is set, `your_turn` is parked until `release()`.
    Lets a test stop a table at a known turn and poke it with bad input."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.hold = False
        self.parked: tuple[Any, int, Any] | None = None
        self.rejections: list[str] = []

    def hand_started(self, state: Any, seat: int) -> None:
        self.inner.hand_started(state, seat)

    def your_turn(self, state: Any, seat: int, submit: Any) -> None:
        if self.hold:
            self.parked = (state, seat, submit)
            return
        self.inner.your_turn(state, seat, submit)

    def release(self) -> None:
        assert self.parked is not None, "no turn is parked"
        state, seat, submit = self.parked
        self.parked = None
        self.hold = False
        self.inner.your_turn(state, seat, submit)

    def rejected(self, state: Any, seat: int, error: str) -> None:
        self.rejections.append(error)
        self.inner.rejected(state, seat, error)

    def notify(self, event: SeatEvent) -> None:
        self.inner.notify(event)

    def hand_ended(self, state: Any, result: Any, verdict: str) -> None:
        self.inner.hand_ended(state, result, verdict)

    def match_ended(self, standings: dict[str, Any]) -> None:
        self.inner.match_ended(standings)


def start_table(net: Loopback, config: Any, controllers: list[Any],
                bot_controller: Any = None) -> tuple[Any, list[Any]]:
    """A HostNode on `net` and one PeerNode per controller, seated in order (seat i gets
    controllers[i]); pumps until the network is quiet."""
    from p2p_burraco.net.host import HostNode
    from p2p_burraco.net.peer import PeerConfig, PeerNode

    host = HostNode(net.clock, config, bot_controller=bot_controller)
    host.bot_connector = lambda: LoopbackConnector(net, host)
    peers = []
    for i, ctl in enumerate(controllers):
        peer = PeerNode(net.clock, PeerConfig(name=f"seat{i}", seat=i, reconnect_delay=0.5),
                        ctl, connector=LoopbackConnector(net, host))
        peer.start()
        peers.append(peer)
        net.pump()
    net.pump()
    return host, peers
