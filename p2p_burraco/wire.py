"""Message types <-> msgpack bytes: the codec, the framing arithmetic and the validation of
every field of every message. The spec of record is protocol/PROTOCOL.md; this module is
its executable half, and protocol/schema/ is generated from the registry kept here.

Why it looks like this
----------------------
- One frame = a 4-byte big-endian length, then exactly one msgpack map
  `{"type": str, "seq": uint, "body": map}`. Length-prefixing keeps the stream in sync even
  when a frame's content is garbage, so a bad frame costs one error frame, not the connection
  (only a length above the cap does: the stream cannot be trusted after that).
- The codec options are pinned (`use_bin_type=True`, `raw=False`, strict string keys,
  explicit size caps, no ext types, no floats, no duplicate keys) so every node decodes the
  same bytes to the same value, and a value has one canonical encoding.
- **Limits before allocation.** A payload is first walked by `scan_payload`, which reads only
  msgpack headers: it refuses nesting beyond `MAX_DEPTH`, a declared length beyond its cap,
  more than `MAX_VALUES` values, ext types, a value cut short or followed by bytes — before
  msgpack builds (or pre-allocates) anything. msgpack then decodes with the same caps, so
  what it allocates is bounded by the bytes really there. A 1 MiB frame of nested lists is
  refused after 17 headers.
- Field types are small strings (`"bytes32"`, `"list[seat]"`, `"opt[str]"`): the same
  string is the schema's, the doc's and the validator's, so the three cannot drift.

No Twisted here (tests/test_layers.py checks it): the network layer feeds bytes in and takes
frames out; everything that can be decided without a socket is decided here.
"""

from __future__ import annotations

import re
import struct
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack

PROTOCOL_NAME = "p2p-burraco"
PROTOCOL_VERSIONS: tuple[int, int] = (1, 1)
"""(lowest, highest) protocol version this software speaks."""
SCHEMA_VERSION = 3
"""Bumped whenever a message, a field or an error code changes (protocol/schema/)."""

HEADER = struct.Struct(">I")
MAX_FRAME = 1 << 20
"""Largest payload after the handshake (a 162-card deck of points is about 5.5 kB)."""
MAX_HELLO_FRAME = 1024
"""Largest payload until the handshake is done (a hello is about 150 bytes)."""
MAX_STR = 4096
"""Longest string, in characters."""
MAX_STR_BYTES = 4 * MAX_STR
"""Longest string, in UTF-8 bytes (the most 4096 characters can take)."""
MAX_BIN = 1 << 16
"""Longest byte string (a 162-card deck is 162 × 32 bytes; a `sealed` box 32·N + 16)."""
MAX_LIST = 4096
"""Most items in a list, and most entries in a map."""
MAX_DEPTH = 16
"""Deepest nesting of lists and maps in a frame (the envelope map is depth 0, body 1)."""
MAX_VALUES = 1 << 15
"""Most msgpack values in one frame (every list item, map key and map value, and the root)."""
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1

WireValue = Any
"""None, bool, int, str, bytes, list and str-keyed dict of these (never floats)."""

PEER, HOST = "peer", "host"


# --------------------------------------------------------------------------- errors

class WireError(ValueError):
    """A frame or message refused, with a stable `code` (PROTOCOL.md lists them all).

    `fatal` means the connection cannot go on (the stream is out of sync or the other side
    cannot be talked to); `ref` is the offending frame's seq when it could be read.
    """

    def __init__(self, code: str, message: str, *, fatal: bool = False,
                 ref: int | None = None, rule: str | None = None) -> None:
        self.code = code
        self.message = message
        self.fatal = fatal
        self.ref = ref
        self.rule = rule
        super().__init__(f"{code}: {message}")

    def to_body(self) -> dict[str, WireValue]:
        """The body of the `error` frame that reports this (a long message is cut: it may
        quote what the other side sent)."""
        message = self.message if len(self.message) <= 512 else self.message[:509] + "..."
        return {"code": self.code, "message": message, "ref": self.ref,
                "fatal": self.fatal, "rule": self.rule}


ERROR_CODES: dict[str, str] = {
    # framing and codec
    "frame.too_large": "the length prefix exceeds the frame cap (fatal: the stream is dropped)",
    "frame.timeout": "a frame not complete 10 s after its first byte arrived (fatal)",
    "frame.empty": "a frame of length 0",
    "frame.truncated": "the payload ends in the middle of a msgpack value",
    "frame.malformed": "the payload is not valid msgpack (reserved byte, bad UTF-8 …)",
    "frame.trailing": "bytes after the one msgpack value of the payload",
    "frame.float": "a float anywhere in the frame (the protocol has none)",
    "frame.ext": "a msgpack extension type (timestamps included)",
    "frame.map_key": "a map key that is not a string, or a key repeated in one map",
    "frame.too_deep": "lists and maps nested deeper than 16",
    "frame.too_long": "a string over 4096 characters (16 KiB), bytes over 64 KiB, a list or "
                      "map over 4096 items, or more than 32768 values in the frame",
    "frame.not_map": "the payload is not a map",
    "frame.envelope": "the map is not exactly {type: str, seq: uint, body: map}",
    # sequence numbers
    "seq.replay": "seq not above the last accepted one (a replayed or duplicated frame)",
    "seq.gap": "seq skips ahead of the next expected one: the stream is out of step (fatal; "
               "the peer reconnects and resyncs)",
    # messages
    "msg.unknown_type": "no message of that type in the negotiated protocol version",
    "msg.wrong_sender": "a message the sender's role may not send (e.g. a peer sending `welcome`)",
    "msg.missing_field": "a field of the message is absent",
    "msg.unknown_field": "a field the message does not have",
    "msg.field_type": "a field of the wrong type, length or range",
    "msg.bad_value": "a field of the right type whose value makes no sense here",
    # handshake
    "hello.required": "the first frame must be `hello` and the handshake must finish first",
    "hello.repeated": "`hello` or `auth` sent again after the handshake",
    "hello.version": "no protocol version in common (fatal)",
    "auth.bad_signature": "the challenge signature does not verify with the hello's key (fatal)",
    "auth.identity_in_use": "another live connection already proved this identity (fatal)",
    "auth.timeout": "the handshake did not finish within 10 s of connecting (fatal)",
    # lobby
    "lobby.no_table": "no table with that id",
    "lobby.bad_config": "unknown game or variant, or a seat count the rule set does not allow",
    "lobby.seat_taken": "the seat is taken",
    "lobby.bad_seat": "no such seat at that table",
    "lobby.table_full": "every seat of the table is taken",
    "lobby.already_seated": "this identity already sits at a table",
    "lobby.not_seated": "a table message from a connection with no seat",
    "lobby.started": "the table's match has started: seats are fixed",
    "lobby.too_many_tables": "the host's table cap is reached (200 by default)",
    # connection
    "conn.idle": "no whole frame received within the idle timeout, pings included (fatal)",
    "conn.too_many": "too many connections from this address (16) or in all (512) (fatal)",
    "conn.slow_reader": "the other side does not read what is sent to it (fatal)",
    # host
    "host.busy": "this connection's request budget is spent: ask again later",
    "host.shutdown": "the host is stopping (fatal)",
    "host.internal": "a bug of the host while handling the frame: outside a table nothing "
                     "changed; at a table that table is closed for every seat",
    "host.disk_full": "the host cannot write its journal (no space, I/O error): the frame "
                      "was not applied; reconnect and resync, it goes on once it can write "
                      "(fatal, retryable)",
    "host.too_many_errors": "64 refused frames on this connection (fatal)",
}
"""Transport-level error codes. Table-level codes come from `p2p_burraco.table.messages`."""


# --------------------------------------------------------------------------- codec

class _Unfit(Exception):
    """Raised by the quick check; the slow walk then says exactly what and where."""


def _quick_check(v: Any, depth: int) -> int:
    """How many values `v` holds, or _Unfit: the check of every outgoing frame, so it builds
    no path strings and dispatches on exact types (the slow walk explains a failure)."""
    t = type(v)
    if t is str:
        if len(v) > MAX_STR:
            raise _Unfit
        return 1
    if t is bytes:
        if len(v) > MAX_BIN:
            raise _Unfit
        return 1
    if t is int:
        if not INT_MIN <= v <= INT_MAX:
            raise _Unfit
        return 1
    if v is None or t is bool:
        return 1
    if t is list or t is tuple:
        if depth >= MAX_DEPTH or len(v) > MAX_LIST:
            raise _Unfit
        n = 1
        for item in v:
            n += _quick_check(item, depth + 1)
        return n
    if t is dict:
        if depth >= MAX_DEPTH or len(v) > MAX_LIST:
            raise _Unfit
        n = 1
        for k, item in v.items():
            if type(k) is not str or len(k) > MAX_STR:
                raise _Unfit
            n += 1 + _quick_check(item, depth + 1)
        return n
    raise _Unfit            # subclasses, floats, ext types…: the slow walk decides


def check_wire_value(value: Any, path: str = "$", depth: int = 0) -> None:
    """Refuse anything msgpack would carry that the protocol does not: floats, ext types,
    non-string keys, excessive nesting, lengths over the caps. Raises WireError. (What we
    send is checked with this; what we receive is checked by `scan_payload` before it is
    decoded.)"""
    try:
        if _quick_check(value, depth) <= MAX_VALUES:
            return
    except (_Unfit, RecursionError):
        pass
    _walk_wire_value(value, path, depth)


def _walk_wire_value(value: Any, path: str, depth: int) -> None:
    """The exact check with a path in every message (after the quick one failed)."""
    count = [0]

    def walk(v: Any, path: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise WireError("frame.too_deep", f"{path}: nested deeper than {MAX_DEPTH}")
        count[0] += 1
        if count[0] > MAX_VALUES:
            raise WireError("frame.too_long", f"more than {MAX_VALUES} values in one frame")
        if v is None or isinstance(v, bool):
            return
        if isinstance(v, str):
            if len(v) > MAX_STR:
                raise WireError("frame.too_long", f"{path}: a string over {MAX_STR} characters")
            return
        if isinstance(v, bytes):
            if len(v) > MAX_BIN:
                raise WireError("frame.too_long", f"{path}: bytes over {MAX_BIN}")
            return
        if isinstance(v, int):
            if not INT_MIN <= v <= INT_MAX:
                raise WireError("msg.field_type", f"{path}: integer out of the 64-bit range")
            return
        if isinstance(v, float):
            raise WireError("frame.float", f"{path}: floats are not allowed")
        if isinstance(v, (list, tuple)):
            if len(v) > MAX_LIST:
                raise WireError("frame.too_long", f"{path}: a list over {MAX_LIST} items")
            for i, item in enumerate(v):
                walk(item, f"{path}[{i}]", depth + 1)
            return
        if isinstance(v, dict):
            if len(v) > MAX_LIST:
                raise WireError("frame.too_long", f"{path}: a map over {MAX_LIST} entries")
            for k, item in v.items():
                if not isinstance(k, str):
                    raise WireError("frame.map_key", f"{path}: map key {k!r} is not a string")
                walk(k, f"{path}.<key>", depth + 1)
                walk(item, f"{path}.{k}", depth + 1)
            return
        if isinstance(v, (msgpack.ExtType, msgpack.Timestamp)):
            raise WireError("frame.ext", f"{path}: msgpack extension types are not allowed")
        raise WireError("msg.field_type", f"{path}: {type(v).__name__} cannot go on the wire")

    walk(value, path, depth)


def _normalise(value: Any) -> Any:
    """Tuples become lists so that a value and its decoding compare equal."""
    if isinstance(value, tuple | list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def pack(value: WireValue) -> bytes:
    """The canonical msgpack encoding of a wire value (WireError if it is not one); tuples
    pack as arrays, like lists."""
    check_wire_value(value)
    data: bytes = msgpack.packb(value, use_bin_type=True, strict_types=False, datetime=False)
    return data


# What the first byte of a msgpack value says, for `scan_payload`.
_FIXED = bytearray(256)
"""Total size of a value whose first byte fixes it (positive/negative fixint, nil, bools,
fixstr, ints); 0 for the others."""
for _b in range(0x80):
    _FIXED[_b] = 1
for _b in range(0xE0, 0x100):
    _FIXED[_b] = 1
for _b in range(0xA0, 0xC0):
    _FIXED[_b] = 1 + (_b & 0x1F)
for _b, _n in ((0xC0, 1), (0xC2, 1), (0xC3, 1), (0xCC, 2), (0xCD, 3), (0xCE, 5), (0xCF, 9),
               (0xD0, 2), (0xD1, 3), (0xD2, 5), (0xD3, 9)):
    _FIXED[_b] = _n
_FIXED_SIZES = bytes(_FIXED)
del _FIXED
_U16 = struct.Struct(">H")
_U32 = struct.Struct(">I")
_EXT = frozenset((0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8))


def _too_long(what: str) -> WireError:
    return WireError("frame.too_long", what)


def _long_container(data: bytes, i: int, b: int) -> tuple[int, int]:
    """An array16/32 or map16/32 header at `i`: the values it holds (a map's keys and
    values both) and where they start; its declared length checked against MAX_LIST before
    anything counts on it."""
    if b & 1:
        count = _U32.unpack_from(data, i + 1)[0]
        i += 5
    else:
        count = _U16.unpack_from(data, i + 1)[0]
        i += 3
    if count > MAX_LIST:
        raise _too_long(f"a {'map' if b >= 0xDE else 'list'} of {count} "
                        f"items (the cap is {MAX_LIST})")
    return (count * 2 if b >= 0xDE else count), i


def _long_str_end(data: bytes, i: int, b: int) -> int:
    """Where a str8/16/32 at `i` ends. Its byte length is capped first; one long enough to
    hold more than MAX_STR characters is decoded, so a string over the cap in characters,
    or not UTF-8, is refused here rather than by msgpack."""
    if b == 0xD9:
        size, head = data[i + 1], 2
    elif b == 0xDA:
        size, head = _U16.unpack_from(data, i + 1)[0], 3
    else:
        size, head = _U32.unpack_from(data, i + 1)[0], 5
    if size > MAX_STR_BYTES:
        raise _too_long(f"a string of {size} bytes (the cap is {MAX_STR} "
                        f"characters, {MAX_STR_BYTES} bytes)")
    end = i + head + size
    if size > MAX_STR:
        if end > len(data):
            raise WireError("frame.truncated", "the msgpack value is cut short")
        try:
            chars = len(data[i + head:end].decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise WireError("frame.malformed",
                            f"a string is not UTF-8 ({exc.reason})") from None
        if chars > MAX_STR:
            raise _too_long(f"a string of {chars} characters (the cap is "
                            f"{MAX_STR})")
    return end


def _other_end(data: bytes, i: int, b: int) -> int:
    """Where a bin16/32 at `i` ends (its length capped at MAX_BIN); any other first byte
    left is refused: an extension type, or the reserved 0xc1."""
    if b in (0xC5, 0xC6):                       # bin16/32
        size = (_U16 if b == 0xC5 else _U32).unpack_from(data, i + 1)[0]
        if size > MAX_BIN:
            raise _too_long(f"bytes of length {size} (the cap is {MAX_BIN})")
        return int(i + (3 if b == 0xC5 else 5) + size)
    if b in _EXT:
        raise WireError("frame.ext", "msgpack extension types are not allowed")
    raise WireError("frame.malformed", f"reserved byte 0x{b:02x}")   # 0xc1


def scan_payload(data: bytes, max_depth: int = MAX_DEPTH, max_values: int = MAX_VALUES) -> bool:
    """Walk the msgpack headers of one payload without building anything; return whether it
    holds a float (refused later, once the seq is read: `frame.float`).

    Raises WireError for what msgpack must never be asked to build: `frame.too_deep` (a value
    deeper than `max_depth`), `frame.too_long` (a declared length over its cap, or more than
    `max_values` values), `frame.ext`, `frame.malformed` (reserved byte 0xc1, a long string
    that is not UTF-8), `frame.truncated`, `frame.trailing`, `frame.empty`. The first
    problem in byte order names the code, so one frame gets one code. Cost: one Python step
    per value, at most `max_values` of them."""
    n = len(data)
    if n == 0:
        raise WireError("frame.empty", "empty payload")
    fixed = _FIXED_SIZES
    i = 0
    left = 1                  # values still to read in the innermost open list or map
    stack: list[int] = []     # `left` of the enclosing ones
    values = 1
    floats = False
    try:
        while True:
            while left:
                b = data[i]
                s = fixed[b]
                if s:
                    i += s
                    left -= 1
                    continue
                left -= 1
                if 0x80 <= b <= 0x9F:                        # fixmap, fixarray
                    count = b & 0x0F
                    if b < 0x90:
                        count *= 2
                    i += 1
                elif b == 0xC4:                               # bin8
                    i += 2 + data[i + 1]
                    continue
                elif b in (0xDC, 0xDD, 0xDE, 0xDF):           # array16/32, map16/32
                    count, i = _long_container(data, i, b)
                elif b in (0xD9, 0xDA, 0xDB):                 # str8/16/32
                    i = _long_str_end(data, i, b)
                    continue
                elif b in (0xCA, 0xCB):                       # float32/64
                    floats = True
                    i += 5 if b == 0xCA else 9
                    continue
                else:
                    i = _other_end(data, i, b)
                    continue
                if count:
                    if len(stack) >= max_depth:
                        raise WireError("frame.too_deep",
                                        f"lists and maps nested deeper than {max_depth}")
                    values += count
                    if values > max_values:
                        raise _too_long(f"more than {max_values} values in one frame")
                    stack.append(left)
                    left = count
            if not stack:
                break
            left = stack.pop()
    except (IndexError, struct.error):
        raise WireError("frame.truncated", "the msgpack value is cut short") from None
    if i > n:
        raise WireError("frame.truncated", "the msgpack value is cut short")
    if i < n:
        raise WireError("frame.trailing", "bytes after the msgpack value")
    return floats


def _pairs_hook(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[Any] = set()
        for k, _ in pairs:
            if k in seen:
                raise WireError("frame.map_key", f"map key {k!r} appears twice")
            seen.add(k)
    for k in out:
        if type(k) is not str:
            raise WireError("frame.map_key", f"map key {k!r} is not a string")
    return out


def _ext_hook(code: int, data: bytes) -> Any:
    raise WireError("frame.ext", f"msgpack extension type {code} is not allowed")


def decode_payload(payload: bytes, max_size: int = MAX_FRAME) -> tuple[WireValue, bool]:
    """Decode exactly one msgpack value with the pinned options and the protocol's caps
    (WireError on anything else); returns it and whether it holds a float, which the caller
    refuses once it has read the seq."""
    if len(payload) == 0:
        raise WireError("frame.empty", "empty payload")
    if len(payload) > max_size:
        raise WireError("frame.too_large", f"{len(payload)} bytes > cap {max_size}", fatal=True)
    floats = scan_payload(payload)
    try:
        value = msgpack.unpackb(
            payload, raw=False, use_list=True, strict_map_key=False,
            object_pairs_hook=_pairs_hook, ext_hook=_ext_hook, timestamp=0,
            max_str_len=MAX_STR_BYTES, max_bin_len=MAX_BIN, max_array_len=MAX_LIST,
            max_map_len=MAX_LIST, max_ext_len=0,
        )
    except WireError:
        raise
    except msgpack.ExtraData:
        raise WireError("frame.trailing", "bytes after the msgpack value") from None
    except msgpack.StackError:
        raise WireError("frame.too_deep", "msgpack nesting too deep") from None
    except msgpack.FormatError as exc:
        raise WireError("frame.malformed", f"not msgpack: {exc or 'reserved byte'}") from None
    except UnicodeDecodeError as exc:
        raise WireError("frame.malformed", f"a string is not UTF-8 ({exc.reason})") from None
    except ValueError as exc:
        text = str(exc)
        if "incomplete" in text:
            raise WireError("frame.truncated", "the msgpack value is cut short") from None
        if "exceeds max" in text or "_len" in text:
            raise WireError("frame.too_long", text) from None
        raise WireError("frame.malformed", text) from None
    except Exception as exc:  # noqa: BLE001 — msgpack raises TypeError etc. on hostile input
        raise WireError("frame.malformed", f"{type(exc).__name__}: {exc}") from None
    return value, floats


def unpack(payload: bytes, max_size: int = MAX_FRAME, check: bool = True) -> WireValue:
    """Decode exactly one msgpack value with the pinned options; WireError on anything else.
    `check=False` leaves floats to the caller."""
    value, floats = decode_payload(payload, max_size)
    if check and floats:
        check_wire_value(value)
    return value


# --------------------------------------------------------------------------- framing

def frame_bytes(payload: bytes, max_size: int = MAX_FRAME) -> bytes:
    """Length prefix + payload."""
    if len(payload) > max_size:
        raise WireError("frame.too_large", f"{len(payload)} bytes > cap {max_size}", fatal=True)
    return HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Bytes in (any chunking, one byte at a time included), whole payloads out, one at a
    time if the caller wants to stop in between (the rest stays queued).

    A length prefix is checked against `max_size` as soon as its 4 bytes are in and its frame
    is the next to be handed out — before any of its payload is kept — and a frame queued
    behind others is checked when it is handed out, at the cap in force then (the handshake
    raises it: `ready` and the larger frames after it may arrive in one read). A length above
    the cap raises a fatal WireError (`frame.too_large`); the caller sends the error frame and
    drops the connection, since nothing after that length can be trusted. No length above
    `MAX_FRAME` is ever kept waiting. So the buffer holds at most the frames of one read
    beyond the one being completed.
    """

    def __init__(self, max_size: int = MAX_HELLO_FRAME) -> None:
        self.max_size = max_size
        self._buf = bytearray()
        self._start = 0           # first byte not yet handed out
        self._scan = 0            # first byte of the first frame not yet complete
        self._ready: deque[tuple[int, int]] = deque()   # (offset, length) of whole frames
        self.completed = 0
        """Whole frames found so far (a frame deadline restarts when this moves)."""

    def _too_large(self, length: int) -> WireError:
        self._ready.clear()
        del self._buf[:]
        self._start = self._scan = 0
        return WireError("frame.too_large",
                         f"frame of {length} bytes announced, the cap is {self.max_size}",
                         fatal=True)

    def push(self, data: bytes) -> None:
        """Take bytes in; index every frame they complete (WireError: a length over the cap).
        `push(b"")` checks the length of a frame begun behind frames just handed out."""
        self._buf += data
        buf, scan = self._buf, self._scan
        while len(buf) - scan >= HEADER.size:
            (length,) = HEADER.unpack_from(buf, scan)
            if length > self.max_size and (not self._ready or length > MAX_FRAME):
                raise self._too_large(length)
            if len(buf) - scan - HEADER.size < length:
                break
            self._ready.append((scan + HEADER.size, length))
            self.completed += 1
            scan += HEADER.size + length
        self._scan = scan

    def next_payload(self) -> bytes | None:
        """The next whole payload, or None if none is complete yet (WireError: a frame queued
        under a cap it is over)."""
        if not self._ready:
            return None
        offset, length = self._ready.popleft()
        if length > self.max_size:
            raise self._too_large(length)
        payload = bytes(self._buf[offset:offset + length])
        self._start = offset + length
        if not self._ready:
            del self._buf[:self._start]
            self._scan -= self._start
            self._start = 0
        return payload

    def feed(self, data: bytes) -> list[bytes]:
        """push(data), then every whole payload."""
        self.push(data)
        out: list[bytes] = []
        while (payload := self.next_payload()) is not None:
            out.append(payload)
        self.push(b"")
        return out

    @property
    def ready(self) -> int:
        """Whole payloads queued, not yet taken."""
        return len(self._ready)

    @property
    def partial(self) -> int:
        """Bytes of a frame that has started but is not complete."""
        return len(self._buf) - self._scan

    @property
    def pending(self) -> int:
        """Bytes held back: queued payloads and an incomplete frame (non-zero at EOF = a
        truncated frame, or frames never handled)."""
        return len(self._buf) - self._start


# --------------------------------------------------------------------------- field types

class FieldType:
    """A parsed type string. `ok(value)` is the quick yes (no path strings, exact types);
    `check(value, path)` raises WireError('msg.field_type') naming where, and is only walked
    when `ok` says no: the same grammar makes both, and `ok` is never more permissive (on an
    unusual value — a bytes subclass, say — it says no and `check` decides)."""

    def __init__(self, spec: str, check: Callable[[Any, str], None],
                 ok: Callable[[Any], bool]) -> None:
        self.spec = spec
        self._check = check
        self.ok = ok

    def check(self, value: Any, path: str) -> None:
        if not self.ok(value):
            self._check(value, path)

    def __repr__(self) -> str:
        return f"FieldType({self.spec!r})"


def _bad(path: str, spec: str, value: Any) -> WireError:
    shown = type(value).__name__ if not isinstance(value, (int, str)) or isinstance(value, bool) \
        else repr(value)[:40]
    return WireError("msg.field_type", f"{path}: expected {spec}, got {shown}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_SIMPLE: dict[str, Callable[[Any], bool]] = {
    "nil": lambda v: v is None,
    "bool": lambda v: isinstance(v, bool),
    "int": lambda v: _is_int(v) and INT_MIN <= v <= INT_MAX,
    "uint": lambda v: _is_int(v) and 0 <= v <= INT_MAX,
    "seat": lambda v: _is_int(v) and 0 <= v < 16,
    "str": lambda v: isinstance(v, str) and len(v) <= MAX_STR,
    "bytes": lambda v: isinstance(v, bytes),
    "any": lambda v: True,
    "map": lambda v: isinstance(v, dict),
}

TYPE_GRAMMAR = (
    "nil | bool | int | uint | seat (uint < 16) | str (<= 4096 chars) | bytes | bytesN "
    "(exactly N bytes) | any (any wire value) | map (str-keyed map of wire values) | "
    "list[T] (<= 4096 items) | opt[T] (nil or T) | map[T] (str keys, T values)"
)


def _fixed_bytes_ok(n: int) -> Callable[[Any], bool]:
    return lambda v: type(v) is bytes and len(v) == n


def _list_ok(inner: FieldType) -> Callable[[Any], bool]:
    item_ok = inner.ok
    if inner.spec.startswith("bytes") and inner.spec[5:].isdigit():
        n = int(inner.spec[5:])       # the common case (keys, points, proofs): one pass
        return lambda v: type(v) is list and len(v) <= MAX_LIST and all(
            type(x) is bytes and len(x) == n for x in v)
    return lambda v: type(v) is list and len(v) <= MAX_LIST and all(map(item_ok, v))


def parse_type(spec: str) -> FieldType:
    """Parse a type string of TYPE_GRAMMAR (ValueError naming the bad spec)."""
    s = spec.strip()
    if s in _SIMPLE:
        test = _SIMPLE[s]

        def check_simple(v: Any, path: str) -> None:
            if not test(v):
                raise _bad(path, s, v)
        return FieldType(s, check_simple, test)
    m = re.fullmatch(r"bytes(\d+)", s)
    if m:
        n = int(m.group(1))

        def check_fixed(v: Any, path: str) -> None:
            if not isinstance(v, bytes) or len(v) != n:
                raise _bad(path, s, v) if not isinstance(v, bytes) else WireError(
                    "msg.field_type", f"{path}: expected {n} bytes, got {len(v)}")
        return FieldType(s, check_fixed, _fixed_bytes_ok(n))
    m = re.fullmatch(r"(list|opt|map)\[(.+)\]", s)
    if m:
        inner = parse_type(m.group(2))
        inner_ok = inner.ok
        if m.group(1) == "list":
            def check_list(v: Any, path: str) -> None:
                if not isinstance(v, list):
                    raise _bad(path, s, v)
                if len(v) > MAX_LIST:
                    raise WireError("msg.field_type", f"{path}: more than {MAX_LIST} items")
                for i, item in enumerate(v):
                    inner.check(item, f"{path}[{i}]")
            return FieldType(s, check_list, _list_ok(inner))
        if m.group(1) == "opt":
            def check_opt(v: Any, path: str) -> None:
                if v is not None:
                    inner.check(v, path)
            return FieldType(s, check_opt, lambda v: v is None or inner_ok(v))

        def check_map(v: Any, path: str) -> None:
            if not isinstance(v, dict):
                raise _bad(path, s, v)
            for k, item in v.items():
                inner.check(item, f"{path}.{k}")
        return FieldType(s, check_map,
                         lambda v: type(v) is dict and all(map(inner_ok, v.values())))
    raise ValueError(f"bad field type {spec!r}; grammar: {TYPE_GRAMMAR}")


# --------------------------------------------------------------------------- messages

@dataclass(frozen=True)
class MessageSpec:
    """One message type: its fields, who may send it, whether its body is signed."""

    name: str
    fields: Mapping[str, str]
    sender: str                       # "peer" | "host" | "both"
    doc: str = ""
    signed: str = ""                  # "" or who signs and over what (documented)
    layer: str = "transport"          # "transport" | "table"
    types: Mapping[str, FieldType] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.sender not in (PEER, HOST, "both"):
            raise ValueError(f"{self.name}: sender must be peer, host or both")
        object.__setattr__(self, "types", {k: parse_type(v) for k, v in self.fields.items()})

    def validate(self, body: Mapping[str, Any], ref: int | None = None) -> None:
        """Every field present, no other field, each of its type (WireError otherwise)."""
        types = self.types
        if len(body) == len(types):       # the quick yes; any doubt takes the walk below
            for name, ftype in types.items():
                if name not in body or not ftype.ok(body[name]):
                    break
            else:
                return
        for name, ftype in types.items():
            if name not in body:
                raise WireError("msg.missing_field", f"{self.name}: field {name!r} is missing",
                                ref=ref)
            try:
                ftype.check(body[name], f"{self.name}.{name}")
            except WireError as exc:
                raise WireError(exc.code, exc.message, ref=ref) from None
        extra = sorted(set(body) - set(self.types))
        if extra:
            raise WireError("msg.unknown_field",
                            f"{self.name}: unknown field(s) {', '.join(map(repr, extra))}",
                            ref=ref)

    def may_send(self, role: str) -> bool:
        return self.sender == "both" or self.sender == role


def _m(mname: str, sender: str, doc: str, /, signed: str = "", **fields: str) -> MessageSpec:
    return MessageSpec(name=mname, fields=fields, sender=sender, doc=doc, signed=signed)


TRANSPORT_MESSAGES: tuple[MessageSpec, ...] = (
    _m("hello", PEER, "First frame of a connection: versions spoken, who the peer claims to be.",
       versions="list[uint]", software="str", name="str", identity="bytes32", nonce="bytes32"),
    _m("welcome", HOST, "The chosen version, the host's identity and a challenge to sign.",
       signed="host identity key over AUTH_HOST(version, nonce, challenge, peer identity)",
       version="uint", software="str", host_identity="bytes32", challenge="bytes32",
       signature="bytes64"),
    _m("auth", PEER, "The peer proves it holds the identity key of its hello.",
       signed="peer identity key over AUTH_PEER(version, nonce, challenge, host identity)",
       signature="bytes64"),
    _m("ready", HOST, "Handshake done; `table`/`seat` name a seat this identity resumes.",
       name="str", table="opt[str]", seat="opt[seat]"),
    _m("ping", "both", "Liveness and round-trip probe; answered by `pong` with the same n.",
       n="uint"),
    _m("pong", "both", "Answer to `ping`.", n="uint"),
    _m("list_tables", PEER, "Ask for the lobby."),
    _m("tables", HOST, "The lobby: every table with its seats.", tables="list[map]"),
    _m("create_table", PEER, "Open a new table (the creator is not seated by this).",
       game="str", variant="opt[str]", players="uint", target="opt[uint]", hands="opt[uint]"),
    _m("table_created", HOST, "The id of the table just opened.", table="str"),
    _m("join_table", PEER, "Take a seat (nil: the first free one) at a table.",
       table="opt[str]", seat="opt[seat]"),
    _m("seated", HOST, "You sit at `table`, seat `seat`; `info` describes the table.",
       table="str", seat="seat", info="map"),
    _m("leave_table", PEER, "Stand up (only before the match starts)."),
    _m("rematch", PEER, "Play again with the same people: a seat of the finished match at "
       "`table` asks for its seat at the rematch table (answered by `seated`, TABLE-16).",
       table="str"),
    _m("left", HOST, "You no longer sit at a table.", table="str"),
    _m("table_update", HOST, "A table's seats changed (who sits, who is connected).",
       info="map"),
    _m("say", PEER, "A chat line to everyone at your table (lobby input: size-capped, "
       "rate-limited; never part of a hand's log).",
       signed="peer identity key over SAY(table, seat, n, text)",
       table="str", n="uint", text="str", sig="bytes64"),
    _m("said", HOST, "A seat's chat line, relayed verbatim with its signature to every seat "
       "of the table (the author's copy is its acknowledgement).",
       table="str", seat="seat", name="str", n="uint", text="str", sig="bytes64"),
    _m("seat_status", HOST, "A seated player dropped or came back; grace_ms left if dropped.",
       seat="seat", connected="bool", grace_ms="opt[uint]"),
    _m("match_started", HOST, "Seats are full: the match begins. Names and keys of every seat.",
       table="str", info="map"),
    _m("match_end", HOST, "The match is over: final standings; peers may disconnect.",
       table="str", standings="map", reason="str"),
    _m("error", "both", "A frame was refused (state unchanged) or the connection is ending.",
       code="str", message="str", ref="opt[uint]", fatal="bool", rule="opt[str]"),
)


class Registry:
    """Every message type the negotiated version knows, and every error code."""

    def __init__(self, messages: Iterable[MessageSpec], error_codes: Mapping[str, str]) -> None:
        self.messages: dict[str, MessageSpec] = {}
        for spec in messages:
            if spec.name in self.messages:
                raise ValueError(f"message type {spec.name!r} registered twice")
            self.messages[spec.name] = spec
        self.error_codes = dict(error_codes)

    def __contains__(self, name: object) -> bool:
        return name in self.messages

    def get(self, name: str) -> MessageSpec:
        try:
            return self.messages[name]
        except KeyError:
            raise WireError("msg.unknown_type", f"unknown message type {name!r}") from None

    def schema(self) -> dict[str, WireValue]:
        """The machine-readable schema (protocol/schema/messages.json is this, as JSON)."""
        return {
            "protocol": PROTOCOL_NAME,
            "schema_version": SCHEMA_VERSION,
            "protocol_versions": list(PROTOCOL_VERSIONS),
            "frame": {"header": "uint32 big-endian payload length", "max_frame": MAX_FRAME,
                      "max_hello_frame": MAX_HELLO_FRAME, "max_str": MAX_STR,
                      "max_str_bytes": MAX_STR_BYTES, "max_bin": MAX_BIN,
                      "max_list": MAX_LIST, "max_depth": MAX_DEPTH, "max_values": MAX_VALUES,
                      "envelope": {"type": "str", "seq": "uint", "body": "map"}},
            "types": TYPE_GRAMMAR,
            "messages": {
                name: {"layer": s.layer, "sender": s.sender, "doc": s.doc, "signed": s.signed,
                       "fields": dict(s.fields)}
                for name, s in sorted(self.messages.items())
            },
            "error_codes": dict(sorted(self.error_codes.items())),
        }


_REGISTRY: Registry | None = None


def table_layer() -> tuple[list[MessageSpec], dict[str, str]]:
    """The table-level messages and codes, read from `p2p_burraco.table.messages`.

    That module (sans-IO, no Twisted) declares `MESSAGES: {type: {field: type string}}`,
    `SENDERS: {type: "peer"|"host"|"both"}` and `ERROR_CODES: {code: meaning}`, optionally
    `DOCS` and `SIGNED` ({type: text}).
    """
    try:
        from .table import messages as tm  # imported lazily: the table layer sits above wire
    except ModuleNotFoundError as exc:
        if exc.name not in (f"{__package__}.table", f"{__package__}.table.messages"):
            raise
        return [], {}

    docs: Mapping[str, str] = getattr(tm, "DOCS", {})
    signed: Mapping[str, str] = getattr(tm, "SIGNED", {})
    specs = [MessageSpec(name=name, fields=dict(fields), sender=tm.SENDERS[name],
                         doc=docs.get(name, ""), signed=signed.get(name, ""), layer="table")
             for name, fields in tm.MESSAGES.items()]
    return specs, dict(tm.ERROR_CODES)


def registry() -> Registry:
    """The full registry: transport messages plus the table layer's."""
    global _REGISTRY
    if _REGISTRY is None:
        specs, codes = table_layer()
        clash = set(codes) & set(ERROR_CODES)
        if clash:
            raise ValueError(f"error codes defined twice: {sorted(clash)}")
        _REGISTRY = Registry((*TRANSPORT_MESSAGES, *specs), {**ERROR_CODES, **codes})
    return _REGISTRY


# --------------------------------------------------------------------------- frames

@dataclass(frozen=True)
class Frame:
    """A decoded, validated frame."""

    type: str
    seq: int
    body: dict[str, WireValue]

    def to_wire(self) -> dict[str, WireValue]:
        return {"type": self.type, "seq": self.seq, "body": self.body}


def _read_envelope(payload: bytes, max_size: int) -> tuple[str, int, dict[str, Any], bool]:
    value, floats = decode_payload(payload, max_size)
    if not isinstance(value, dict):
        raise WireError("frame.not_map", f"the payload is a {type(value).__name__}, not a map")
    seq = value.get("seq")
    ref = seq if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 else None
    if set(value) != {"type", "seq", "body"}:
        raise WireError("frame.envelope",
                        f"keys {sorted(value)} are not exactly ['body', 'seq', 'type']", ref=ref)
    if not isinstance(value["type"], str):
        raise WireError("frame.envelope", "type is not a string", ref=ref)
    if ref is None:
        raise WireError("frame.envelope", "seq is not an unsigned integer")
    if not isinstance(value["body"], dict):
        raise WireError("frame.envelope", "body is not a map", ref=ref)
    return value["type"], value["seq"], value["body"], floats


def read_envelope(payload: bytes, max_size: int = MAX_FRAME) -> tuple[str, int, dict[str, Any]]:
    """Decode a payload and check the envelope (the seq is readable after this). A float is
    refused after the seq check (`accept_payload`), so such a frame still consumes its seq
    and the sender's numbering stays in step; everything `scan_payload` refuses consumes
    nothing (the seq cannot be read without decoding what it refuses to decode)."""
    mtype, seq, body, _ = _read_envelope(payload, max_size)
    return mtype, seq, body


def _refuse_floats(body: Mapping[str, Any], seq: int) -> None:
    try:
        check_wire_value(body, "body", 1)
    except WireError as exc:
        raise WireError(exc.code, exc.message, ref=seq) from None


def validate_body(reg: Registry, mtype: str, seq: int, body: Mapping[str, Any],
                  sender: str) -> MessageSpec:
    """Known type, allowed for this sender, every field right (WireError otherwise)."""
    try:
        spec = reg.get(mtype)
    except WireError as exc:
        raise WireError(exc.code, exc.message, ref=seq) from None
    if not spec.may_send(sender):
        raise WireError("msg.wrong_sender", f"a {sender} may not send {mtype!r}", ref=seq)
    spec.validate(body, ref=seq)
    return spec


def decode_frame(payload: bytes, sender: str, reg: Registry | None = None,
                 max_size: int = MAX_FRAME) -> Frame:
    """Payload → validated Frame (no seq bookkeeping: that is per connection)."""
    mtype, seq, body, floats = _read_envelope(payload, max_size)
    if floats:
        _refuse_floats(body, seq)
    validate_body(reg or registry(), mtype, seq, body, sender)
    return Frame(mtype, seq, body)


class SeqCounter:
    """Per-direction sequence numbers: the first frame is 1, each next one exactly +1."""

    def __init__(self) -> None:
        self.last = 0

    def next(self) -> int:
        self.last += 1
        return self.last

    def check(self, seq: int) -> None:
        """Accept exactly last+1 and advance; refuse a replay or a gap (nothing changes)."""
        if seq <= self.last:
            raise WireError("seq.replay", f"seq {seq} already seen (last was {self.last})",
                            ref=seq)
        if seq != self.last + 1:
            raise WireError("seq.gap", f"seq {seq} but {self.last + 1} was expected: the "
                            "stream is out of step", ref=seq, fatal=True)
        self.last = seq


def accept_payload(payload: bytes, sender: str, counter: SeqCounter, reg: Registry | None = None,
                   max_size: int = MAX_FRAME) -> Frame:
    """The receiving pipeline of one payload, in the order PROTOCOL.md specifies: headers
    (`scan_payload`) and codec → envelope → seq (a readable, right seq is consumed even if
    the body is then refused) → no float → type known → sender allowed → fields."""
    mtype, seq, body, floats = _read_envelope(payload, max_size)
    counter.check(seq)
    if floats:
        _refuse_floats(body, seq)
    validate_body(reg or registry(), mtype, seq, body, sender)
    return Frame(mtype, seq, body)


def encode_frame(mtype: str, seq: int, body: Mapping[str, WireValue], sender: str,
                 reg: Registry | None = None, max_size: int = MAX_FRAME) -> bytes:
    """Validate and frame an outgoing message (a bug of ours must not reach the wire)."""
    return PreparedFrame.of(mtype, body, sender, reg).frame(seq, max_size)


_TYPE_KEY = msgpack.packb("type")
_SEQ_KEY = msgpack.packb("seq")
_BODY_KEY = msgpack.packb("body")


@dataclass(frozen=True)
class PreparedFrame:
    """A message validated and packed once, to be framed with each connection's own seq:
    the host relays one statement to every seat, and paid validation and encoding once per
    seat before. The bytes are exactly `pack({"type", "seq", "body"})`'s."""

    mtype: str
    packed_body: bytes

    @classmethod
    def of(cls, mtype: str, body: Mapping[str, WireValue], sender: str,
           reg: Registry | None = None) -> PreparedFrame:
        body = dict(body)
        validate_body(reg or registry(), mtype, 0, body, sender)
        check_wire_value(body, "$.body", 1)            # the body sits one level down
        packed: bytes = msgpack.packb(body, use_bin_type=True, strict_types=False,
                                      datetime=False)
        return cls(mtype, packed)

    def frame(self, seq: int, max_size: int = MAX_FRAME) -> bytes:
        if not isinstance(seq, int) or not 0 <= seq <= INT_MAX:
            raise WireError("frame.envelope", f"seq {seq!r} is not an unsigned integer")
        payload = b"".join((b"\x83", _TYPE_KEY, msgpack.packb(self.mtype), _SEQ_KEY,
                            msgpack.packb(seq), _BODY_KEY, self.packed_body))
        return frame_bytes(payload, max_size)


# --------------------------------------------------------------------------- handshake

AUTH_HOST_DOMAIN = b"p2p-burraco/auth/host/v1\x00"
AUTH_PEER_DOMAIN = b"p2p-burraco/auth/peer/v1\x00"


def auth_message(domain: bytes, version: int, nonce: bytes, challenge: bytes,
                 identity: bytes) -> bytes:
    """Fixed-layout bytes signed in the handshake: domain || u16 version || nonce(32) ||
    challenge(32) || the OTHER side's identity key(32). Never a msgpack map."""
    for name, b in (("nonce", nonce), ("challenge", challenge), ("identity", identity)):
        if len(b) != 32:
            raise ValueError(f"{name} must be 32 bytes")
    return domain + struct.pack(">H", version) + nonce + challenge + identity


SAY_DOMAIN = b"p2p-burraco/say/v1\x00"
MAX_SAY_CHARS = 200
"""A chat line's length at most (characters): lobby input is size-capped."""


def say_message(host_key: bytes, table: str, seat: int, n: int, text: str) -> bytes:
    """Fixed-layout bytes a chat line's author signs: domain || host_key (32 bytes, the
    host's identity key from the handshake) || u16 len(table) || table || u8 seat || u64 n ||
    text (UTF-8). Bound to the host, the table, the seat and a counter the author raises with
    each line, so a signed line cannot be replayed at another host (whose table ids also
    start at "t1") or again."""
    if len(host_key) != 32:
        raise ValueError("a host identity key is 32 bytes")
    tid = table.encode("utf-8")
    return SAY_DOMAIN + bytes(host_key) + struct.pack(">H", len(tid)) + tid + \
        struct.pack(">BQ", seat, n) + text.encode("utf-8")


def valid_say(text: str) -> str:
    """A chat line: 1..MAX_SAY_CHARS printable characters, trimmed (ValueError otherwise)."""
    t = text.strip()
    if not t:
        raise ValueError("an empty chat line")
    if len(t) > MAX_SAY_CHARS:
        raise ValueError(f"a chat line is at most {MAX_SAY_CHARS} characters, not {len(t)}")
    if not t.isprintable():
        raise ValueError("a chat line holds printable characters only")
    return t


def choose_version(offered: Iterable[int]) -> int:
    """The highest version both sides speak; WireError('hello.version') if none."""
    ours = set(range(PROTOCOL_VERSIONS[0], PROTOCOL_VERSIONS[1] + 1))
    common = ours & set(offered)
    if not common:
        raise WireError("hello.version",
                        f"no common protocol version: host speaks "
                        f"{PROTOCOL_VERSIONS[0]}..{PROTOCOL_VERSIONS[1]}, peer offered "
                        f"{sorted(set(offered))}", fatal=True)
    return max(common)


def valid_name(name: str) -> str:
    """A player name: 1..32 printable characters, trimmed (ValueError otherwise)."""
    n = name.strip()
    if not 1 <= len(n) <= 32 or not n.isprintable():
        raise ValueError("a name is 1 to 32 printable characters")
    return n


# --------------------------------------------------------------------------- vectors

def to_json_value(value: WireValue) -> Any:
    """Wire value → JSON (bytes as {"$bin": hex}) for protocol/vectors/."""
    if isinstance(value, bytes):
        return {"$bin": value.hex()}
    if isinstance(value, list):
        return [to_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json_value(v) for k, v in value.items()}
    return value


def from_json_value(value: Any) -> WireValue:
    """Inverse of to_json_value."""
    if isinstance(value, dict):
        if set(value) == {"$bin"}:
            return bytes.fromhex(value["$bin"])
        return {k: from_json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json_value(v) for v in value]
    return value


def _main(argv: list[str] | None = None) -> int:
    """`python -m p2p_burraco.wire schema` prints protocol/schema/messages.json."""
    import json
    import sys

    args = sys.argv[1:] if argv is None else argv
    if args != ["schema"]:
        print("usage: python -m p2p_burraco.wire schema", file=sys.stderr)
        return 2
    print(json.dumps(registry().schema(), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
