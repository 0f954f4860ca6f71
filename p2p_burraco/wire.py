"""Message types <-> msgpack bytes: the codec, the framing arithmetic and the validation of
every field of every message. The spec of record is protocol/PROTOCOL.md; this module is
its executable half, and protocol/schema/ is generated from the registry kept here.

Why it looks like this
----------------------
- One frame = a 4-byte big-endian length, then exactly one msgpack map
  `{"type": str, "seq": uint, "body": map}`. Length-prefixing keeps the stream in sync even
  when a frame's content is garbage, so a bad frame costs one error frame, not the connection
  (only a length above the cap does: the stream cannot be trusted after that).
- The codec options are pinned (`use_bin_type=True`, `raw=False`, `strict_map_key=True`,
  explicit size caps, no ext types, no floats, no duplicate keys) so every node decodes the
  same bytes to the same value, and a value has one canonical encoding.
- Field types are small strings (`"bytes32"`, `"list[seat]"`, `"opt[str]"`): the same
  string is the schema's, the doc's and the validator's, so the three cannot drift.

No Twisted here (tests/test_layers.py checks it): the network layer feeds bytes in and takes
frames out; everything that can be decided without a socket is decided here.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack

PROTOCOL_NAME = "p2p-burraco"
PROTOCOL_VERSIONS: tuple[int, int] = (1, 1)
"""(lowest, highest) protocol version this software speaks."""
SCHEMA_VERSION = 1
"""Bumped whenever a message, a field or an error code changes (protocol/schema/)."""

HEADER = struct.Struct(">I")
MAX_FRAME = 1 << 20
"""Largest payload after the handshake (a 162-card deck of points is about 5.5 kB)."""
MAX_HELLO_FRAME = 4096
"""Largest payload before the peer has proved its identity (Syncthing-style pre-auth cap)."""
MAX_STR = 4096
"""Longest text field, in characters."""
MAX_LIST = 4096
"""Longest list field, in elements."""
MAX_DEPTH = 16
"""Deepest nesting of lists and maps in a frame."""
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
        """The body of the `error` frame that reports this."""
        return {"code": self.code, "message": self.message, "ref": self.ref,
                "fatal": self.fatal, "rule": self.rule}


ERROR_CODES: dict[str, str] = {
    # framing and codec
    "frame.too_large": "the length prefix exceeds the frame cap (fatal: the stream is dropped)",
    "frame.empty": "a frame of length 0",
    "frame.truncated": "the payload ends in the middle of a msgpack value",
    "frame.malformed": "the payload is not valid msgpack (reserved byte, bad UTF-8 …)",
    "frame.trailing": "bytes after the one msgpack value of the payload",
    "frame.float": "a float anywhere in the frame (the protocol has none)",
    "frame.ext": "a msgpack extension type (timestamps included)",
    "frame.map_key": "a map key that is not a string, or a key repeated in one map",
    "frame.too_deep": "lists and maps nested deeper than the cap",
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
    "auth.timeout": "the handshake did not finish in time (fatal)",
    # lobby
    "lobby.no_table": "no table with that id",
    "lobby.bad_config": "unknown game or variant, or a seat count the rule set does not allow",
    "lobby.seat_taken": "the seat is taken",
    "lobby.bad_seat": "no such seat at that table",
    "lobby.table_full": "every seat of the table is taken",
    "lobby.already_seated": "this identity already sits at a table",
    "lobby.not_seated": "a table message from a connection with no seat",
    "lobby.started": "the table's match has started: seats are fixed",
    "lobby.too_many_tables": "the host's table cap is reached",
    # connection
    "conn.idle": "nothing received within the idle timeout, pings included (fatal)",
    # host
    "host.shutdown": "the host is stopping (fatal)",
    "host.internal": "the host failed while handling the frame (state unchanged)",
    "host.too_many_errors": "too many refused frames on this connection (fatal)",
}
"""Transport-level error codes. Table-level codes come from `p2p_burraco.table.messages`."""


# --------------------------------------------------------------------------- codec

def check_wire_value(value: Any, path: str = "$", depth: int = 0) -> None:
    """Refuse anything msgpack would carry that the protocol does not: floats, ext types,
    non-string keys, excessive nesting. Raises WireError."""
    if depth > MAX_DEPTH:
        raise WireError("frame.too_deep", f"{path}: nested deeper than {MAX_DEPTH}")
    if value is None or isinstance(value, (bool, str, bytes)):
        return
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise WireError("msg.field_type", f"{path}: integer out of the 64-bit range")
        return
    if isinstance(value, float):
        raise WireError("frame.float", f"{path}: floats are not allowed")
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            check_wire_value(item, f"{path}[{i}]", depth + 1)
        return
    if isinstance(value, dict):
        for k, item in value.items():
            if not isinstance(k, str):
                raise WireError("frame.map_key", f"{path}: map key {k!r} is not a string")
            check_wire_value(item, f"{path}.{k}", depth + 1)
        return
    if isinstance(value, (msgpack.ExtType, msgpack.Timestamp)):
        raise WireError("frame.ext", f"{path}: msgpack extension types are not allowed")
    raise WireError("msg.field_type", f"{path}: {type(value).__name__} cannot go on the wire")


def _normalise(value: Any) -> Any:
    """Tuples become lists so that a value and its decoding compare equal."""
    if isinstance(value, tuple | list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def pack(value: WireValue) -> bytes:
    """The canonical msgpack encoding of a wire value (WireError if it is not one)."""
    check_wire_value(value)
    data: bytes = msgpack.packb(_normalise(value), use_bin_type=True, strict_types=False,
                                datetime=False)
    return data


def _pairs_hook(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if not isinstance(k, str):
            raise WireError("frame.map_key", f"map key {k!r} is not a string")
        if k in out:
            raise WireError("frame.map_key", f"map key {k!r} appears twice")
        out[k] = v
    return out


def _ext_hook(code: int, data: bytes) -> Any:
    raise WireError("frame.ext", f"msgpack extension type {code} is not allowed")


def unpack(payload: bytes, max_size: int = MAX_FRAME, check: bool = True) -> WireValue:
    """Decode exactly one msgpack value with the pinned options; WireError on anything else.
    `check=False` leaves the value walk (floats, depth) to the caller."""
    if len(payload) == 0:
        raise WireError("frame.empty", "empty payload")
    if len(payload) > max_size:
        raise WireError("frame.too_large", f"{len(payload)} bytes > cap {max_size}", fatal=True)
    try:
        value = msgpack.unpackb(
            payload, raw=False, use_list=True, strict_map_key=False,
            object_pairs_hook=_pairs_hook, ext_hook=_ext_hook, timestamp=0,
            max_str_len=max_size, max_bin_len=max_size, max_array_len=max_size,
            max_map_len=max_size, max_ext_len=max_size,
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
            raise WireError("frame.too_large", text, fatal=False) from None
        raise WireError("frame.malformed", text) from None
    except Exception as exc:  # msgpack can raise TypeError etc. on hostile input
        raise WireError("frame.malformed", f"{type(exc).__name__}: {exc}") from None
    if check:
        check_wire_value(value)
    return value


# --------------------------------------------------------------------------- framing

def frame_bytes(payload: bytes, max_size: int = MAX_FRAME) -> bytes:
    """Length prefix + payload."""
    if len(payload) > max_size:
        raise WireError("frame.too_large", f"{len(payload)} bytes > cap {max_size}", fatal=True)
    return HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Bytes in (any chunking, one byte at a time included), whole payloads out.

    A length above `max_size` raises a fatal WireError: the caller sends the error frame and
    drops the connection, since nothing after that length can be trusted.
    """

    def __init__(self, max_size: int = MAX_HELLO_FRAME) -> None:
        self.max_size = max_size
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        out: list[bytes] = []
        while len(self._buf) >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buf)
            if length > self.max_size:
                raise WireError("frame.too_large",
                                f"frame of {length} bytes announced, the cap is {self.max_size}",
                                fatal=True)
            if len(self._buf) < HEADER.size + length:
                break
            out.append(bytes(self._buf[HEADER.size:HEADER.size + length]))
            del self._buf[:HEADER.size + length]
        return out

    @property
    def pending(self) -> int:
        """Bytes of an incomplete frame held back (non-zero at EOF = a truncated frame)."""
        return len(self._buf)


# --------------------------------------------------------------------------- field types

class FieldType:
    """A parsed type string; `check(value, path)` raises WireError('msg.field_type')."""

    def __init__(self, spec: str, check: Callable[[Any, str], None]) -> None:
        self.spec = spec
        self._check = check

    def check(self, value: Any, path: str) -> None:
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


def parse_type(spec: str) -> FieldType:
    """Parse a type string of TYPE_GRAMMAR (ValueError naming the bad spec)."""
    s = spec.strip()
    if s in _SIMPLE:
        test = _SIMPLE[s]

        def check_simple(v: Any, path: str) -> None:
            if not test(v):
                raise _bad(path, s, v)
        return FieldType(s, check_simple)
    m = re.fullmatch(r"bytes(\d+)", s)
    if m:
        n = int(m.group(1))

        def check_fixed(v: Any, path: str) -> None:
            if not isinstance(v, bytes) or len(v) != n:
                raise _bad(path, s, v) if not isinstance(v, bytes) else WireError(
                    "msg.field_type", f"{path}: expected {n} bytes, got {len(v)}")
        return FieldType(s, check_fixed)
    m = re.fullmatch(r"(list|opt|map)\[(.+)\]", s)
    if m:
        inner = parse_type(m.group(2))
        if m.group(1) == "list":
            def check_list(v: Any, path: str) -> None:
                if not isinstance(v, list):
                    raise _bad(path, s, v)
                if len(v) > MAX_LIST:
                    raise WireError("msg.field_type", f"{path}: more than {MAX_LIST} items")
                for i, item in enumerate(v):
                    inner.check(item, f"{path}[{i}]")
            return FieldType(s, check_list)
        if m.group(1) == "opt":
            def check_opt(v: Any, path: str) -> None:
                if v is not None:
                    inner.check(v, path)
            return FieldType(s, check_opt)

        def check_map(v: Any, path: str) -> None:
            if not isinstance(v, dict):
                raise _bad(path, s, v)
            for k, item in v.items():
                inner.check(item, f"{path}.{k}")
        return FieldType(s, check_map)
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
        for name, ftype in self.types.items():
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
    _m("left", HOST, "You no longer sit at a table.", table="str"),
    _m("table_update", HOST, "A table's seats changed (who sits, who is connected).",
       info="map"),
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
                      "max_list": MAX_LIST, "max_depth": MAX_DEPTH,
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


def read_envelope(payload: bytes, max_size: int = MAX_FRAME) -> tuple[str, int, dict[str, Any]]:
    """Decode a payload and check the envelope (the seq is readable after this). The value
    walk (floats …) comes after the seq check (`accept_payload`), so such a frame still
    consumes its seq and the sender's numbering stays in step."""
    value = unpack(payload, max_size, check=False)
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
    return value["type"], value["seq"], value["body"]


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
    mtype, seq, body = read_envelope(payload, max_size)
    check_wire_value(body, "body", 1)
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
    """The receiving pipeline of one payload, in the order PROTOCOL.md specifies: codec →
    envelope → seq (a readable, right seq is consumed even if the body is then refused) →
    type known → sender allowed → fields."""
    mtype, seq, body = read_envelope(payload, max_size)
    counter.check(seq)
    try:
        check_wire_value(body, "body", 1)
    except WireError as exc:
        raise WireError(exc.code, exc.message, ref=seq) from None
    validate_body(reg or registry(), mtype, seq, body, sender)
    return Frame(mtype, seq, body)


def encode_frame(mtype: str, seq: int, body: Mapping[str, WireValue], sender: str,
                 reg: Registry | None = None, max_size: int = MAX_FRAME) -> bytes:
    """Validate and frame an outgoing message (a bug of ours must not reach the wire)."""
    validate_body(reg or registry(), mtype, seq, body, sender)
    return frame_bytes(pack({"type": mtype, "seq": seq, "body": dict(body)}), max_size)


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
