"""`FrameProtocol`: a Twisted protocol that turns bytes into validated frames and back.

Everything about a frame that needs no game knowledge is decided here, once, for the host
and the peer alike: the length cap (smaller before the handshake), the codec, the envelope,
seq numbers in both directions, the message registry and who may send what. A refused frame
gets an `error` frame naming its seq and a stable code; the subclass never sees it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from twisted.internet.protocol import Protocol
from twisted.python.failure import Failure

from .. import wire
from ..wire import Frame, WireError

log = logging.getLogger(__name__)

MAX_REFUSALS = 64
"""Refused frames tolerated on one connection before it is dropped (a misbehaving peer must
not make the host spend its time writing error frames)."""


class FrameProtocol(Protocol):
    """Framing, codec, seq numbers and error frames; subclasses implement `frame_received`."""

    role: str = wire.PEER
    """Our role; frames we receive come from the other role."""

    def __init__(self) -> None:
        self.decoder = wire.FrameDecoder(wire.MAX_HELLO_FRAME)
        self.send_seq = wire.SeqCounter()
        self.recv_seq = wire.SeqCounter()
        self.registry = wire.registry()
        self.refusals = 0
        self.closing = False
        self.connected_ok = False
        self._clock: Any = None
        self._last_rx = 0.0
        self._beat: Any = None
        self._beat_interval = 0.0
        self._idle_timeout = 0.0

    @property
    def other_role(self) -> str:
        return wire.HOST if self.role == wire.PEER else wire.PEER

    # --- Twisted hooks -------------------------------------------------------------
    def connectionMade(self) -> None:
        self.connected_ok = True

    def dataReceived(self, data: bytes) -> None:
        if self.closing:
            return
        if self._clock is not None:
            self._last_rx = self._clock.seconds()
        try:
            payloads = self.decoder.feed(data)
        except WireError as exc:
            self.refuse(exc)
            return
        for payload in payloads:
            if self.closing:
                return
            self._payload_received(payload)

    def connectionLost(self, reason: Failure = Failure(ConnectionError("closed"))) -> None:
        self.connected_ok = False
        truncated = self.decoder.pending
        if truncated:
            log.info("%s: connection closed inside a frame (%d bytes held back)",
                     self.describe(), truncated)
        self.closing = True
        self.stop_heartbeat()
        self.lost(reason)

    # --- liveness ------------------------------------------------------------------
    def start_heartbeat(self, clock: Any, interval: float, timeout: float) -> None:
        """Ping every `interval` s; drop the connection (`conn.idle`) when nothing at all has
        arrived for `timeout` s. TCP keep-alive alone takes hours to notice a dead peer."""
        if interval <= 0 or self._beat is not None:
            return
        self._clock = clock
        self._last_rx = clock.seconds()
        self._beat_interval, self._idle_timeout = interval, timeout
        self._beat = clock.callLater(interval, self._heartbeat)

    def stop_heartbeat(self) -> None:
        if self._beat is not None and self._beat.active():
            self._beat.cancel()
        self._beat = None

    def _heartbeat(self) -> None:
        self._beat = None
        if self.closing:
            return
        idle = self._clock.seconds() - self._last_rx
        if idle > self._idle_timeout:
            self.refuse(WireError("conn.idle", f"nothing received for {idle:.0f} s",
                                  fatal=True))
            return
        self.send("ping", {"n": 0})
        self._beat = self._clock.callLater(self._beat_interval, self._heartbeat)

    # --- receive -------------------------------------------------------------------
    def _payload_received(self, payload: bytes) -> None:
        try:
            frame = wire.accept_payload(payload, self.other_role, self.recv_seq, self.registry,
                                        self.decoder.max_size)
        except WireError as exc:
            self.refuse(exc)
            return
        mtype, seq = frame.type, frame.seq
        try:
            self.frame_received(frame)
        except WireError as exc:
            if exc.ref is None:
                exc.ref = frame.seq
            self.refuse(exc)
        except Exception:
            log.exception("%s: failure handling %s #%d", self.describe(), mtype, seq)
            self.refuse(WireError("host.internal" if self.role == wire.HOST else "msg.bad_value",
                                  f"could not handle {mtype!r}; nothing was changed", ref=seq))

    # --- send ----------------------------------------------------------------------
    def send(self, mtype: str, body: Mapping[str, Any] | None = None) -> int:
        """Validate, number and write one frame; returns its seq (0 if not connected)."""
        if self.transport is None or self.closing:
            return 0
        seq = self.send_seq.next()
        data = wire.encode_frame(mtype, seq, dict(body or {}), self.role, self.registry)
        self.transport.write(data)
        return seq

    def refuse(self, exc: WireError) -> None:
        """Tell the other side what was refused; drop the connection if it cannot go on."""
        self.refusals += 1
        fatal = exc.fatal
        if self.refusals > MAX_REFUSALS and not fatal:
            exc = WireError("host.too_many_errors",
                            f"more than {MAX_REFUSALS} refused frames", fatal=True, ref=exc.ref)
            fatal = True
        log.info("%s: refused: %s", self.describe(), exc)
        self.send("error", exc.to_body())
        self.refused(exc)
        if fatal:
            self.drop()

    def drop(self) -> None:
        """Close after the pending writes (error frames) are flushed."""
        self.closing = True
        if self.transport is not None:
            self.transport.loseConnection()

    # --- for subclasses --------------------------------------------------------------
    def frame_received(self, frame: Frame) -> None:
        raise NotImplementedError

    def refused(self, exc: WireError) -> None:
        """Called after an error frame was sent for one of the other side's frames."""

    def lost(self, reason: Failure) -> None:
        """The connection is gone."""

    def describe(self) -> str:
        peer = self.transport.getPeer() if self.transport is not None else None
        return f"{type(self).__name__}({peer})"
