"""Real loopback TCP for tests of what a host does with hostile clients.

A private Twisted reactor (not the global one: nothing else in the test process is touched)
runs in a daemon thread; hosts are started in it with `start_host` on 127.0.0.1, port 0.
The test thread plays the clients with plain blocking sockets — what an attacker uses —
and reaches into the host only through `Kit.call` (run in the reactor thread, wait).
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.threads import blockingCallFromThread
from waits import PATIENCE, wait_until

from p2p_burraco import wire
from p2p_burraco.net import identity as ident


class Kit:
    """A reactor of our own, running in a daemon thread."""

    def __init__(self) -> None:
        try:
            from twisted.internet.epollreactor import EPollReactor
            self.reactor: Any = EPollReactor()
        except ImportError:   # not Linux
            from twisted.internet.selectreactor import SelectReactor
            self.reactor = SelectReactor()
        self.thread = threading.Thread(target=self.reactor.run,
                                       kwargs={"installSignalHandlers": False}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 5
        while not self.reactor.running and time.monotonic() < deadline:
            time.sleep(0.005)

    def call(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """f(*args, **kwargs) in the reactor thread; its result (a Deferred is waited for)."""
        return blockingCallFromThread(self.reactor, f, *args, **kwargs)

    def wait_until(self, predicate: Callable[[], object], what: str = "the table to get there",
                   timeout: float = PATIENCE) -> None:
        """Until predicate() — read in the reactor thread — holds: an event, never a fixed
        sleep; fails naming `what` after `timeout`."""
        wait_until(lambda: self.call(predicate), what, timeout, poll=0.01)

    def start_host(self, config: Any, **kwargs: Any) -> Any:
        from p2p_burraco.net.host import start_host

        return self.call(start_host, self.reactor, config, **kwargs)

    def stop_host(self, node: Any) -> None:
        def stop() -> Any:
            for conn in list(node.connections):
                if conn.transport is not None:
                    conn.transport.abortConnection()
            for peer in list(getattr(node, "bot_peers", [])):
                peer.disconnect()
            if node.port is not None:
                return node.port.stopListening()
            return None
        self.call(stop)

    def stop(self) -> None:
        self.reactor.callFromThread(self.reactor.stop)
        self.thread.join(5)


class Closed(Exception):
    """The host closed the connection."""


class Client:
    """A hand-driven client on a blocking socket: frames, handshake, raw bytes."""

    def __init__(self, address: tuple[str, int], key: Ed25519PrivateKey | None = None,
                 name: str = "raw", rcvbuf: int | None = None) -> None:
        self.key = key or Ed25519PrivateKey.generate()
        self.name = name
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(5)
        self.sock.connect(address)
        self.seq = 0
        self.decoder = wire.FrameDecoder(1 << 30)
        self.received: list[dict[str, Any]] = []
        self.closed = False
        self.answer_pings = True
        self.ready = False

    @property
    def public_key(self) -> bytes:
        return ident.public_bytes(self.key)

    # --- writing ---------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_value(self, value: Any, consumes: bool = True) -> None:
        """Frame any msgpack value as it is (`consumes`: the host will count its seq)."""
        import msgpack

        self.write(wire.frame_bytes(msgpack.packb(value, use_bin_type=True), 1 << 30))
        if consumes:
            self.seq += 1

    def send(self, mtype: str, body: dict[str, Any], seq: int | None = None) -> int:
        """A frame with the next seq (or `seq`), unvalidated."""
        if seq is None:
            self.seq += 1
            seq = self.seq
        self.send_value({"type": mtype, "seq": seq, "body": body}, consumes=False)
        return seq

    def hello(self, versions: list[int] | None = None, name: str | None = None) -> None:
        self.nonce = bytes(range(32))
        self.send("hello", {"versions": versions or [wire.PROTOCOL_VERSIONS[1]],
                            "software": "tcpkit", "name": self.name if name is None else name,
                            "identity": self.public_key, "nonce": self.nonce})

    def handshake(self) -> dict[str, Any]:
        """hello → welcome → auth → ready; returns the ready body."""
        self.hello()
        welcome = self.expect("welcome")
        msg = wire.auth_message(wire.AUTH_PEER_DOMAIN, welcome["version"], self.nonce,
                                welcome["challenge"], welcome["host_identity"])
        self.send("auth", {"signature": self.key.sign(msg)})
        self.host_identity: bytes = welcome["host_identity"]
        ready = self.expect("ready")
        self.ready = True
        return ready

    # --- reading ---------------------------------------------------------------------
    def read_frame(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next frame (pings answered unless `answer_pings` is off); Closed at EOF."""
        deadline = time.monotonic() + timeout
        while True:
            payload = self.decoder.next_payload()
            if payload is not None:
                frame: dict[str, Any] = wire.unpack(payload, 1 << 30, check=False)
                self.received.append(frame)
                if frame.get("type") == "ping" and self.answer_pings and not self.closed:
                    try:
                        self.send("pong", {"n": frame["body"]["n"]})
                    except OSError:
                        pass
                return frame
            if self.closed:
                raise Closed()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no frame")
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(1 << 16)
            except TimeoutError:
                raise TimeoutError("no frame") from None
            except OSError:           # reset: the host aborted
                data = b""
            if not data:
                self.closed = True
                continue
            self.decoder.push(data)

    def expect(self, mtype: str, timeout: float = 5.0, **match: Any) -> dict[str, Any]:
        """The body of the next frame of that type (and those body values); an unexpected
        error frame raises."""
        while True:
            frame = self.read_frame(timeout)
            body: dict[str, Any] = frame.get("body", {})
            if frame.get("type") == mtype and all(body.get(k) == v for k, v in match.items()):
                return body
            if frame.get("type") == "error" and mtype != "error":
                raise AssertionError(f"expected {mtype}, got error {body}")

    def error(self, timeout: float = 5.0) -> dict[str, Any]:
        """The body of the next error frame."""
        return self.expect("error", timeout)

    def error_code(self, code: str, timeout: float = 5.0) -> dict[str, Any]:
        """The first error frame with that code (others before it are skipped)."""
        return self.expect("error", timeout, code=code)

    def wait_closed(self, timeout: float = 5.0) -> bool:
        """Read (and drop) everything until the host closes; False if it did not in time."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.read_frame(left)
        except Closed:
            return True
        except TimeoutError:
            return False

    def alive(self, timeout: float = 5.0) -> bool:
        """Still served: a frame of an unknown type (with the next seq) gets its error."""
        try:
            seq = self.send("no_such_type", {})
            self.expect("error", timeout, code="msg.unknown_type", ref=seq)
            return True
        except (Closed, OSError, TimeoutError):
            return False

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def header(length: int) -> bytes:
    return struct.pack(">I", length)
