"""`FrameProtocol`: a Twisted protocol that turns bytes into validated frames and back.

Everything about a frame that needs no game knowledge is decided here, once, for the host
and the peer alike: the length cap (smaller before the handshake), the codec, the envelope,
seq numbers in both directions, the message registry and who may send what. A refused frame
gets an `error` frame naming its seq and a stable code; the subclass never sees it.

It also keeps one connection from costing more than its share (PROTOCOL.md § 3, "Limits"):

- **Time-bounded frames.** A frame must be complete `frame_timeout` s after its first byte
  arrived (`frame.timeout`, fatal); liveness (`conn.idle`) counts whole frames, not bytes,
  so a trickle of bytes keeps nothing alive.
- **Backpressure, not buffering.** We register as the transport's streaming producer and
  set its `bufferSize` to `output_limit`: when our unsent output passes it, Twisted calls
  `pauseProducing` and we stop *reading* that connection (its requests are what make the
  output); when its buffer has drained, `resumeProducing` and we read again. A connection
  that stays over the limit for `slow_reader_timeout` s, or makes us queue another
  `4 × output_limit` bytes meanwhile, is dropped (`conn.slow_reader`, fatal).
- **Closing at once.** A fatal error stops handling input at once; the error frame is
  written, our side of the connection is closed (FIN) once it is flushed — what the other
  side still sends is read and dropped meanwhile, since closing a socket with unread input
  resets the connection and loses the frame — and the connection is aborted
  (`abortConnection`, buffered bytes dropped) if it is still open `close_timeout` s later: a
  peer that never reads, or never closes, cannot keep it. The error frame is best-effort.
- **Refusals.** Each refused frame counts; at `max_refusals` the connection ends with
  `host.too_many_errors`. A layer above that sends its own refusals (the table room)
  calls `count_refusal()` for each.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from twisted.internet.interfaces import IPushProducer
from twisted.internet.protocol import Protocol
from twisted.python.failure import Failure
from zope.interface import implementer

from .. import wire
from ..wire import Frame, WireError

log = logging.getLogger(__name__)

MAX_REFUSALS = 64
"""Refused frames tolerated on one connection before it is dropped (a misbehaving peer must
not make the host spend its time writing error frames)."""
FRAME_TIMEOUT = 10.0
"""Seconds from a frame's first byte to its last (`frame.timeout`)."""
OUTPUT_LIMIT = 256 * 1024
"""Unsent bytes to one connection past which we stop reading it."""
SLOW_READER_TIMEOUT = 30.0
"""Seconds a connection may stay over OUTPUT_LIMIT before it is dropped (`conn.slow_reader`)."""
BACKLOG_FACTOR = 4
"""Bytes queued while over the limit, in OUTPUT_LIMITs, that drop the connection at once."""
CLOSE_TIMEOUT = 2.0
"""Seconds a closing connection has to flush its last frames before it is aborted."""


_CLOSED = Failure(ConnectionError("closed"))  # type: ignore[no-untyped-call]  # Twisted's Failure is untyped


def unsent(transport: Any) -> int:
    """Bytes written to a Twisted TCP transport and not yet taken by the kernel (0 for a
    transport that does not say)."""
    try:
        return (len(transport.dataBuffer) - int(transport.offset)
                + int(transport._tempDataLen))
    except (AttributeError, TypeError):
        return 0


@implementer(IPushProducer)
class _OutputGate:
    """Registered on the transport as a streaming producer: Twisted calls `pauseProducing`
    when the transport's unsent buffer passes its `bufferSize`, `resumeProducing` when it is
    empty again. We produce nothing by ourselves; our output follows what we read, so the
    gate pauses and resumes the reading of the connection."""

    def __init__(self, proto: FrameProtocol) -> None:
        self.proto = proto

    def pauseProducing(self) -> None:
        self.proto._output_full()

    def resumeProducing(self) -> None:
        self.proto._output_drained()

    def stopProducing(self) -> None:
        pass


class HoldGroup:
    """Connections whose output waits for one thing (the host's journal fsync at the end of
    a reactor turn). A connection joins when it first writes while the group holds, so a
    turn costs what the connections it wrote to cost, not every connection of the host."""

    def __init__(self) -> None:
        self.holding = False
        self._members: list[FrameProtocol] = []

    def join(self, conn: FrameProtocol) -> None:
        self._members.append(conn)

    def release(self) -> None:
        """Write what every member kept, in order; stop holding."""
        self.holding = False
        members, self._members = self._members, []
        for conn in members:
            conn.release()


class FrameProtocol(Protocol):
    """Framing, codec, seq numbers and error frames; subclasses implement `frame_received`."""

    role: str = wire.PEER
    """Our role; frames we receive come from the other role."""
    max_refusals: int = MAX_REFUSALS
    frame_timeout: float = FRAME_TIMEOUT
    output_limit: int = OUTPUT_LIMIT
    slow_reader_timeout: float = SLOW_READER_TIMEOUT
    close_timeout: float = CLOSE_TIMEOUT

    def __init__(self, clock: Any = None) -> None:
        self.decoder = wire.FrameDecoder(wire.MAX_HELLO_FRAME)
        self.send_seq = wire.SeqCounter()
        self.recv_seq = wire.SeqCounter()
        self.registry = wire.registry()
        self.refusals = 0
        self.closing = False
        self.connected_ok = False
        self.clock: Any = clock
        """The reactor's clock (callLater, seconds); None: no deadlines (a bare test kit)."""
        self._last_rx = 0.0
        self._beat: Any = None
        self._beat_interval = 0.0
        self._idle_timeout = 0.0
        self._paused: set[str] = set()          # why we are not reading, if we are not
        self._processing = False
        self._resume_call: Any = None
        self._gate = _OutputGate(self)
        self.output_paused = False
        self._backlog = 0
        self._slow_timer: Any = None
        self._frame_started: float | None = None
        self._frame_mark = -1
        self._frame_timer: Any = None
        self._close_timer: Any = None

    @property
    def other_role(self) -> str:
        return wire.HOST if self.role == wire.PEER else wire.PEER

    def _now(self) -> float:
        return float(self.clock.seconds()) if self.clock is not None else 0.0

    # --- Twisted hooks -------------------------------------------------------------
    def connectionMade(self) -> None:
        self.connected_ok = True
        if self.clock is None:          # a subclass that did not pass one: its node's reactor
            self.clock = getattr(getattr(self, "node", None), "reactor", None)
        self._last_rx = self._now()
        transport = self.transport
        if transport is not None and hasattr(transport, "bufferSize"):
            transport.bufferSize = self.output_limit
        try:
            transport.registerProducer(self._gate, True)  # type: ignore[union-attr]  # a TCP transport is an IConsumer
        except (AttributeError, RuntimeError):   # a transport with no consumer side, or one
            pass                                  # that already has a producer

    def dataReceived(self, data: bytes) -> None:
        if self.closing:
            return
        started = self._now()
        try:
            self.decoder.push(data)
        except WireError as exc:
            self.refuse(exc)
            self.spent(self._now() - started)       # garbage costs its share too
            return
        if self.clock is not None:
            self.spent(self._now() - started)       # the bytes' framing
        self._process()
        if self.pool is not None:
            self._account()

    def connectionLost(self, reason: Failure = _CLOSED) -> None:
        self.connected_ok = False
        truncated = self.decoder.pending
        if truncated:
            log.info("%s: connection closed inside a frame (%d bytes held back)",
                     self.describe(), truncated)
        self.closing = True
        self.stop_heartbeat()
        for name in ("_frame_timer", "_slow_timer", "_close_timer", "_resume_call"):
            self._cancel(name)
        if self.pool is not None:
            self.pool.forget(self)
            self.pool = None
        self.lost(reason)

    def _cancel(self, name: str) -> None:
        call = getattr(self, name)
        if call is not None and call.active():
            call.cancel()
        setattr(self, name, None)

    # --- reading, paused or not ----------------------------------------------------------
    def _process(self) -> None:
        """Handle the whole frames received, until there are none or we stop reading."""
        if self._processing:                 # called again from inside a handler
            return
        self._processing = True
        try:
            while not self.closing and not self._paused and self.decoder.ready:
                if not self.may_process():
                    break
                payload = self.decoder.next_payload()
                assert payload is not None
                started = self._now()
                self._last_rx = started       # liveness counts whole frames
                self._payload_received(payload)
                if self.clock is not None:
                    self.spent(self._now() - started)
            if not self.closing and not self.decoder.ready:
                self.decoder.push(b"")        # a frame begun behind them: its length now
        except WireError as exc:              # a length over the cap now in force
            self.refuse(exc)
        finally:
            self._processing = False
        self._watch_frame()

    def may_process(self) -> bool:
        """Called before each frame: False stops reading for now (the subclass paused)."""
        return True

    def spent(self, seconds: float) -> None:
        """Time the last frame took to handle (subclasses charge it to a budget)."""

    def pause_reading(self, reason: str) -> None:
        """Stop reading this connection until `resume_reading(reason)` (and every other
        reason) lifts it. Frames already received wait, unhandled; deadlines wait too."""
        transport: Any = self.transport      # a TCP transport is its own push producer
        if not self._paused and transport is not None and not self.closing:
            try:
                transport.pauseProducing()
            except (AttributeError, RuntimeError):
                pass
        self._paused.add(reason)
        self._cancel("_frame_timer")

    def resume_reading(self, reason: str) -> None:
        if reason not in self._paused:
            return
        self._paused.discard(reason)
        if self._paused or self.closing:
            return
        now = self._now()
        self._last_rx = now                  # time we did not read is not the peer's idling
        self._frame_started = None           # nor is it time spent on its frame
        transport: Any = self.transport      # a TCP transport is its own push producer
        if transport is not None:
            try:
                transport.resumeProducing()
            except (AttributeError, RuntimeError):
                pass
        if self.clock is not None:           # the frames that waited, on the next turn
            if self._resume_call is None or not self._resume_call.active():
                self._resume_call = self.clock.callLater(0, self._process)
        else:
            self._process()

    @property
    def reading_paused(self) -> bool:
        return bool(self._paused)

    # --- frame deadline ------------------------------------------------------------------
    def _watch_frame(self) -> None:
        """Start the deadline of a frame that has begun; forget it once the frame is in."""
        if self.clock is None or self.closing or self._paused or self.frame_timeout <= 0:
            return
        if not self.decoder.partial:
            self._frame_started = None
            return
        if self._frame_started is None or self._frame_mark != self.decoder.completed:
            self._frame_started = self._now()
            self._frame_mark = self.decoder.completed
        if self._frame_timer is None or not self._frame_timer.active():
            due = self._frame_started + self.frame_timeout - self._now()
            self._frame_timer = self.clock.callLater(max(0.0, due), self._frame_check)

    def _frame_check(self) -> None:
        self._frame_timer = None
        if self.closing or self._paused or self._frame_started is None:
            return
        if not self.decoder.partial or self._frame_mark != self.decoder.completed:
            self._watch_frame()
            return
        late = self._now() - self._frame_started
        if late >= self.frame_timeout - 1e-6:
            self.refuse(WireError("frame.timeout", f"a frame begun {late:.1f} s ago is not "
                                  f"complete (the limit is {self.frame_timeout:g} s)",
                                  fatal=True))
            return
        self._frame_timer = self.clock.callLater(self.frame_timeout - late, self._frame_check)

    # --- output backpressure ----------------------------------------------------------------
    def _output_full(self) -> None:
        if self.output_paused or self.closing:
            return
        self.output_paused = True
        self._backlog = 0
        self.pause_reading("output")
        if self.clock is not None and self.slow_reader_timeout > 0:
            self._slow_timer = self.clock.callLater(self.slow_reader_timeout, self._slow_reader)

    def _output_drained(self) -> None:
        if not self.output_paused:
            return
        self.output_paused = False
        self._cancel("_slow_timer")
        self.resume_reading("output")
        if self.pool is not None:
            self._account()

    def _slow_reader(self) -> None:
        self._slow_timer = None
        if self.output_paused and not self.closing:
            self.refuse(WireError("conn.slow_reader", "what we sent was not read for "
                                  f"{self.slow_reader_timeout:g} s", fatal=True))

    # --- liveness ------------------------------------------------------------------
    def start_heartbeat(self, clock: Any, interval: float, timeout: float) -> None:
        """Ping every `interval` s; drop the connection (`conn.idle`) when no whole frame
        has arrived for `timeout` s. TCP keep-alive alone takes hours to notice a dead peer."""
        if interval <= 0 or self._beat is not None:
            return
        self.clock = clock
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
        idle = self.clock.seconds() - self._last_rx
        if idle > self._idle_timeout and not self._paused:
            self.refuse(WireError("conn.idle", f"no frame received for {idle:.0f} s",
                                  fatal=True))
            return
        self.send("ping", {"n": 0})
        self._beat = self.clock.callLater(self._beat_interval, self._heartbeat)

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
        except Exception as exc:  # noqa: BLE001 - a bug of ours: failed_handling reports it
            self.failed_handling(exc, mtype, seq)

    def failed_handling(self, exc: Exception, mtype: str, seq: int) -> None:
        """`frame_received` raised something other than a WireError: a bug of ours. Here:
        logged and refused; the host and the peer say more (`net.bugs`)."""
        log.error("%s: failure handling %s #%d", self.describe(), mtype, seq, exc_info=exc)
        self.refuse(WireError("host.internal" if self.role == wire.HOST else "msg.bad_value",
                              f"could not handle {mtype!r}; nothing was changed", ref=seq))

    # --- send ----------------------------------------------------------------------
    def send(self, mtype: str, body: Mapping[str, Any] | None = None) -> int:
        """Validate, number and write one frame; returns its seq (0 if not connected)."""
        return self.send_prepared(wire.PreparedFrame.of(mtype, dict(body or {}), self.role,
                                                        self.registry))

    def send_prepared(self, prepared: wire.PreparedFrame) -> int:
        """Number and write a frame validated and packed once (a broadcast to many
        connections); returns its seq (0 if not connected)."""
        if self.transport is None or self.closing:
            return 0
        seq = self._write_prepared(prepared)
        if self.output_paused:
            self._backlog += self._last_size
            if self._backlog > BACKLOG_FACTOR * self.output_limit:
                self.refuse(WireError("conn.slow_reader", "too much output waits for the "
                                      "other side to read it", fatal=True))
        return seq

    _last_size = 0

    def _write(self, mtype: str, body: Mapping[str, Any] | None) -> int:
        return self._write_prepared(wire.PreparedFrame.of(mtype, dict(body or {}), self.role,
                                                          self.registry))

    def _write_prepared(self, prepared: wire.PreparedFrame) -> int:
        seq = self.send_seq.next()
        data = prepared.frame(seq)
        self._last_size = len(data)
        assert self.transport is not None
        group = self.hold_group
        if self._held is None and group is not None and group.holding:
            self._held = []
            group.join(self)
        if self._held is not None:
            self._held.append(data)
            self._held_bytes += len(data)
        else:
            self.transport.write(data)
        if self.pool is not None:
            self._account()
        return seq

    def refuse(self, exc: WireError) -> None:
        """Tell the other side what was refused; drop the connection if it cannot go on, or
        if this was one refusal too many."""
        if self.closing:
            return
        self.refusals += 1
        log.info("%s: refused: %s", self.describe(), exc)
        if self.transport is not None:
            self._write("error", exc.to_body())
        self.refused(exc)
        if exc.fatal:
            self.drop()
        elif self.refusals >= self.max_refusals:
            self._too_many()

    def count_refusal(self) -> None:
        """One more refusal this connection was sent by a layer above (the table room sends
        its own `error` frames): it counts toward `max_refusals` like ours do."""
        if self.closing:
            return
        self.refusals += 1
        if self.refusals >= self.max_refusals:
            self._too_many()

    def _too_many(self) -> None:
        exc = WireError("host.too_many_errors",
                        f"{self.refusals} refused frames on this connection", fatal=True)
        log.info("%s: refused: %s", self.describe(), exc)
        if self.transport is not None:
            self._write("error", exc.to_body())
        self.refused(exc)
        self.drop()

    # --- all connections' buffers together (guard.BufferPool) --------------------------
    pool: Any = None
    """Set by a host: the BufferPool this connection's bytes count in (None: not counted)."""
    _held_bytes = 0

    def _account(self) -> None:
        """Tell the pool what this connection holds now; past its cap, drop the connection
        that holds much (a huge frame in the making, output it does not read) or stop
        reading a small one until the total is back under the cap."""
        pool = self.pool
        if pool is None or self.closing:
            return
        held = self.buffered()
        action = pool.set(self, held)
        if action == "pause":
            self.pause_reading("memory")
            pool.wait(self)
        elif action == "drop":
            pool.forget(self)
            self.pool = None
            code = "conn.slow_reader" if self.output_paused else "frame.too_large"
            self.refuse(WireError(code, f"the host's buffers for all connections are full "
                                  f"and this one holds {held} bytes (the cap is "
                                  f"{pool.cap} in all)", fatal=True))

    def buffered(self) -> int:
        """Bytes this connection holds: input not yet handled, output held or unsent."""
        return self.decoder.pending + self._held_bytes + unsent(self.transport)

    def memory_freed(self) -> None:
        """The pool is back under its cap: read again."""
        self.resume_reading("memory")

    # --- holding output until the journal is durable -----------------------------------
    _held: list[bytes] | None = None
    hold_group: HoldGroup | None = None
    """Set by a host: while the group holds, what this connection writes waits with it."""
    _drop_when_released = False

    def release(self) -> None:
        """Write what was held while the connection's `hold_group` held, in order (and
        close, if a fatal error asked to meanwhile)."""
        held, self._held = self._held, None
        self._held_bytes = 0
        if held and self.transport is not None:
            self.transport.writeSequence(held)
        if self.pool is not None:
            self._account()
        if self._drop_when_released:
            self._drop_when_released = False
            self.closing = False if self._close_timer is None else self.closing
            self.drop()

    def drop(self) -> None:
        """Close: stop reading now, flush the pending writes (error frames), and abort if
        that has not happened within `close_timeout` s (a peer that never reads)."""
        if self._held is not None:          # held replies go first, then the close
            self.closing = True
            self._drop_when_released = True
            return
        if self.closing and self._close_timer is not None:
            return
        self.closing = True
        transport: Any = self.transport      # a TCP transport: a producer, half-closeable
        if transport is None:
            return
        for name in ("_frame_timer", "_slow_timer", "_resume_call"):
            self._cancel(name)
        try:
            transport.unregisterProducer()
        except (AttributeError, RuntimeError):   # else loseConnection waits for the producer
            pass
        half_close = getattr(transport, "loseWriteConnection", None)
        if half_close is not None and self.clock is not None and self.connected_ok:
            # Send what is queued, then FIN; keep reading (and dropping) what the other side
            # still sends until it closes: closing a socket with unread input resets the
            # connection, and the other side would lose our last frame with it.
            half_close()
            try:
                transport.resumeProducing()
            except (AttributeError, RuntimeError):
                pass
        else:
            transport.loseConnection()
        if self.clock is not None and self.connected_ok and self._close_timer is None:
            self._close_timer = self.clock.callLater(max(0.0, self.close_timeout), self._abort)

    def _abort(self) -> None:
        self._close_timer = None
        abort = getattr(self.transport, "abortConnection", None)
        if self.connected_ok and abort is not None:
            log.info("%s: not closed after %g s: aborted", self.describe(), self.close_timeout)
            abort()

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
