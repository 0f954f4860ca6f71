"""Regenerate the transport test vectors: `python protocol/vectors/make_vectors.py`.

Writes frames_valid.json ({name, sender, hex, decoded, roundtrip}) and frames_invalid.json
({name, sender, hex, error, next_seq}). `hex` is the whole frame, length prefix included.
`decoded` is the frame as JSON with bytes as {"$bin": hex}. `roundtrip` says whether
re-encoding the decoded value gives the same bytes (false only for the non-shortest
encodings a receiver accepts but never sends). tests/test_protocol_vectors.py checks them.
The seeded whole hand is written by tests/test_protocol_vectors.py's generator
(hand_*.json) because it needs the network test kit.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path
from typing import Any

import msgpack

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from p2p_burraco import wire

B16 = bytes(range(16))
B32 = bytes(range(32))
B32b = bytes(range(32, 64))
B64 = bytes(range(64))


def frame(value: Any) -> bytes:
    return wire.frame_bytes(wire.pack(value))


def env(mtype: str, seq: int, body: dict[str, Any]) -> dict[str, Any]:
    return {"type": mtype, "seq": seq, "body": body}


VALID_BODIES: dict[str, tuple[str, dict[str, Any]]] = {
    "hello": ("peer", {"versions": [1], "software": "p2p-burraco/0.1.0", "name": "Anna",
                       "identity": B32, "nonce": B32b}),
    "welcome": ("host", {"version": 1, "software": "p2p-burraco/0.1.0", "host_identity": B32,
                         "challenge": B32b, "signature": B64}),
    "auth": ("peer", {"signature": B64}),
    "ready": ("host", {"name": "Anna", "table": "t1", "seat": 2}),
    "ping": ("peer", {"n": 7}),
    "pong": ("host", {"n": 7}),
    "list_tables": ("peer", {}),
    "tables": ("host", {"tables": [{"id": "t1", "game": "burraco", "variant": "fibur",
                                    "players": 4, "status": "waiting"}]}),
    "create_table": ("peer", {"game": "briscola", "variant": None, "players": 2,
                              "target": None, "hands": 1}),
    "table_created": ("host", {"table": "t2"}),
    "join_table": ("peer", {"table": "t1", "seat": None}),
    "seated": ("host", {"table": "t1", "seat": 0, "info": {"id": "t1", "players": 4}}),
    "leave_table": ("peer", {}),
    "rematch": ("peer", {"table": "t1"}),
    "left": ("host", {"table": "t1"}),
    "table_update": ("host", {"info": {"id": "t1", "status": "playing"}}),
    "seat_status": ("host", {"seat": 3, "connected": False, "grace_ms": 60000}),
    "say": ("peer", {"table": "t1", "n": 1732406400000, "text": "buona fortuna!",
                     "sig": B64}),
    "said": ("host", {"table": "t1", "seat": 2, "name": "Anna", "n": 1732406400000,
                      "text": "buona fortuna!", "sig": B64}),
    "match_started": ("host", {"table": "t1", "info": {"id": "t1"}}),
    "match_end": ("host", {"table": "t1", "reason": "hands",
                           "standings": {"totals": [-120, 355], "over": True}}),
    "error": ("host", {"code": "table.illegal_action", "message": "you must draw first",
                       "ref": 12, "fatal": False, "rule": "FIBUR-21"}),
}


def example(ftype: str) -> Any:
    """A valid value of a field type (table-layer bodies are synthesised from the schema, so
    they follow it as it evolves; the seeded whole hand has real ones)."""
    simple = {"nil": None, "bool": True, "int": -3, "uint": 3, "seat": 1, "str": "text",
              "bytes": b"\x00\x01", "any": {"k": [1, "v"]}, "map": {"k": 1}}
    if ftype in simple:
        return simple[ftype]
    if ftype.startswith("bytes"):
        return bytes(range(int(ftype[5:])))
    inner = ftype[ftype.index("[") + 1:-1] if "[" in ftype else ""
    if ftype.startswith("list["):
        return [example(inner), example(inner)]
    if ftype.startswith("opt["):
        return example(inner)
    if ftype.startswith("map["):
        return {"a": example(inner)}
    raise ValueError(ftype)


def valid_vectors() -> list[dict[str, Any]]:
    out = []
    reg = wire.registry()
    for name, spec in reg.messages.items():
        if spec.layer == "table":
            sender = "peer" if spec.may_send("peer") else "host"
            VALID_BODIES[name] = (sender, {k: example(t) for k, t in spec.fields.items()})
    missing = set(reg.messages) - set(VALID_BODIES)
    if missing:
        raise SystemExit(f"no valid vector for {sorted(missing)}: add one")
    for i, (mtype, (sender, body)) in enumerate(sorted(VALID_BODIES.items())):
        data = frame(env(mtype, i + 1, body))
        out.append({"name": f"{mtype}", "sender": sender, "hex": data.hex(),
                    "decoded": wire.to_json_value(env(mtype, i + 1, body)), "roundtrip": True})
    # accepted, but not how we encode: the receiver decodes, our encoder would differ
    wide_int = (b"\x83\xa4type\xa4ping\xa3seq\xce\x00\x00\x00\x05\xa4body\x81\xa1n\xd0\x07")
    out.append({"name": "ping with seq as uint32 and n as int8 (non-shortest ints)",
                "sender": "peer", "hex": (struct.pack(">I", len(wide_int)) + wide_int).hex(),
                "decoded": {"type": "ping", "seq": 5, "body": {"n": 7}}, "roundtrip": False})
    str8 = b"\x83\xd9\x04type\xa4ping\xa3seq\x05\xa4body\x81\xa1n\x07"
    out.append({"name": "ping with a str8 key (non-shortest string header)", "sender": "peer",
                "hex": (struct.pack(">I", len(str8)) + str8).hex(),
                "decoded": {"type": "ping", "seq": 5, "body": {"n": 7}}, "roundtrip": False})
    big = env("tables", 3, {"tables": [{"id": f"t{i}", "note": "x" * 200} for i in range(40)]})
    out.append({"name": "tables spanning several TCP segments", "sender": "host",
                "hex": frame(big).hex(), "decoded": wire.to_json_value(big), "roundtrip": True})
    # the limits of § 2, exactly reached
    deepest: Any = 1
    for _ in range(wire.MAX_DEPTH - 4):       # tables 2, the map 3, lists 4..15, the 1 at 16
        deepest = [deepest]
    edge = env("tables", 4, {"tables": [{"deep": deepest}]})
    out.append({"name": "nesting exactly 16 deep", "sender": "host", "hex": frame(edge).hex(),
                "decoded": wire.to_json_value(edge), "roundtrip": True})
    wide = env("error", 5, {"code": "x.y", "message": "\U0001F0CF" * wire.MAX_STR, "ref": None,
                            "fatal": False, "rule": None})
    out.append({"name": "a string of 4096 four-byte characters (16 KiB)", "sender": "host",
                "hex": frame(wide).hex(), "decoded": wire.to_json_value(wide),
                "roundtrip": True})
    return out


def raw_frame(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


def packed(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def invalid_vectors() -> list[dict[str, Any]]:
    ping = env("ping", 1, {"n": 1})
    cases: list[tuple[str, str, bytes, str, int]] = [
        # name, sender, frame bytes, error code, next expected seq
        ("length above the cap", "peer", struct.pack(">I", wire.MAX_FRAME + 1) + b"\x80",
         "frame.too_large", 1),
        ("length 0", "peer", struct.pack(">I", 0), "frame.empty", 1),
        ("msgpack value cut short", "peer", raw_frame(packed(ping)[:-1]), "frame.truncated", 1),
        ("reserved byte 0xc1", "peer", raw_frame(b"\xc1"), "frame.malformed", 1),
        ("string that is not UTF-8", "peer",
         raw_frame(b"\x83\xa4type\xa2\xff\xfe\xa3seq\x01\xa4body\x80"), "frame.malformed", 1),
        ("two values in one frame", "peer", raw_frame(packed(ping) + b"\xc0"),
         "frame.trailing", 1),
        ("a float64 field", "peer", raw_frame(packed(env("ping", 1, {"n": 1.5}))),
         "frame.float", 1),
        ("a float32 field", "peer",
         raw_frame(b"\x83\xa4type\xa4ping\xa3seq\x01\xa4body\x81\xa1n\xca\x3f\xc0\x00\x00"),
         "frame.float", 1),
        ("an ext type", "peer",
         raw_frame(b"\x83\xa4type\xa4ping\xa3seq\x01\xa4body\x81\xa1n\xd4\x05\x01"),
         "frame.ext", 1),
        ("a msgpack timestamp", "peer",
         raw_frame(b"\x83\xa4type\xa4ping\xa3seq\x01\xa4body\x81\xa1n\xd6\xff\x00\x00\x00\x01"),
         "frame.ext", 1),
        ("an integer map key", "peer",
         raw_frame(b"\x83\xa4type\xa4ping\xa3seq\x01\xa4body\x81\x01\x01"), "frame.map_key", 1),
        ("a key twice in one map", "peer",
         raw_frame(b"\x83\xa4type\xa4ping\xa3seq\x01\xa3seq\x02"), "frame.map_key", 1),
        ("nesting deeper than the cap", "peer",
         raw_frame(packed(env("ping", 1, {"n": 1, "x": [[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}))),
         "frame.too_deep", 1),
        ("a scalar at depth 17", "host", raw_frame(packed(env("tables", 1, {"tables": [
            {"deep": [[[[[[[[[[[[[1]]]]]]]]]]]]]}]}))), "frame.too_deep", 1),
        ("nested lists cut short (too deep wins: one frame, one code)", "peer",
         raw_frame(packed(env("ping", 1, {"n": 1}))[:-1] + b"\x91" * 1000), "frame.too_deep",
         1),
        ("a list header declaring 4097 items", "peer",
         raw_frame(b"\x83\xa4type\xa4ping\xa3seq\x01\xa4body\x81\xa1n\xdc\x10\x01"),
         "frame.too_long", 1),
        ("a map header declaring 2^32-1 entries", "peer",
         raw_frame(b"\x83\xa4type\xa4ping\xa3seq\x01\xa4body\xdf\xff\xff\xff\xff"),
         "frame.too_long", 1),
        ("a string header declaring 1 GiB", "peer",
         raw_frame(b"\x83\xa4type\xa4ping\xa3seq\x01\xa4body\x81\xa1n\xdb\x40\x00\x00\x00"),
         "frame.too_long", 1),
        ("bytes of 65537", "peer",
         raw_frame(packed(env("ping", 1, {"n": b"\x00" * (wire.MAX_BIN + 1)}))), "frame.too_long",
         1),
        ("a string of 4097 two-byte characters", "peer",
         raw_frame(packed(env("ping", 1, {"n": "\u00e9" * (wire.MAX_STR + 1)}))),
         "frame.too_long", 1),
        ("more than 32768 values", "peer",
         raw_frame(packed(env("ping", 1, {"n": [[0] * 4096] * 8}))), "frame.too_long", 1),
        ("an array, not a map", "peer", raw_frame(packed(["ping", 1, {}])), "frame.not_map", 1),
        ("envelope without body", "peer", raw_frame(packed({"type": "ping", "seq": 1})),
         "frame.envelope", 1),
        ("envelope with an extra key", "peer",
         raw_frame(packed({"type": "ping", "seq": 1, "body": {"n": 1}, "x": 0})),
         "frame.envelope", 1),
        ("negative seq", "peer", raw_frame(packed({"type": "ping", "seq": -1, "body": {"n": 1}})),
         "frame.envelope", 1),
        ("type that is an integer", "peer", raw_frame(packed({"type": 3, "seq": 1, "body": {}})),
         "frame.envelope", 1),
        ("seq already used", "peer", frame(env("ping", 4, {"n": 1})), "seq.replay", 5),
        ("seq ahead of the next one", "peer", frame(env("ping", 9, {"n": 1})), "seq.gap", 5),
        ("unknown message type", "peer", frame(env("teleport", 1, {})), "msg.unknown_type", 1),
        ("a peer sending welcome", "peer",
         frame(env("welcome", 1, VALID_BODIES["welcome"][1])), "msg.wrong_sender", 1),
        ("a host sending hello", "host", frame(env("hello", 1, VALID_BODIES["hello"][1])),
         "msg.wrong_sender", 1),
        ("a field missing", "peer", frame(env("ping", 1, {})), "msg.missing_field", 1),
        ("an unknown field", "peer", frame(env("ping", 1, {"n": 1, "m": 2})),
         "msg.unknown_field", 1),
        ("a string where a uint goes", "peer", frame(env("ping", 1, {"n": "1"})),
         "msg.field_type", 1),
        ("a bool where a uint goes", "peer", frame(env("ping", 1, {"n": True})),
         "msg.field_type", 1),
        ("a negative uint", "peer", frame(env("ping", 1, {"n": -1})), "msg.field_type", 1),
        ("identity of 31 bytes", "peer",
         frame(env("hello", 1, {**VALID_BODIES["hello"][1], "identity": B32[:31]})),
         "msg.field_type", 1),
        ("a str where bytes go", "peer",
         frame(env("auth", 1, {"signature": "00" * 64})), "msg.field_type", 1),
        ("seat 16", "peer", frame(env("join_table", 1, {"table": "t1", "seat": 16})),
         "msg.field_type", 1),
        ("a list item of the wrong type", "peer",
         frame(env("hello", 1, {**VALID_BODIES["hello"][1], "versions": [1, "2"]})),
         "msg.field_type", 1),
        ("a map where a list goes", "peer",
         frame(env("hello", 1, {**VALID_BODIES["hello"][1], "versions": {"0": 1}})),
         "msg.field_type", 1),
        ("a string over 4096 characters", "peer",
         raw_frame(packed(env("hello", 1, {**VALID_BODIES["hello"][1], "name": "x" * 4097}))),
         "frame.too_long", 1),
    ]
    return [{"name": n, "sender": s, "hex": b.hex(), "error": e, "next_seq": q}
            for n, s, b, e, q in cases]


def main() -> None:
    for fname, vectors in (("frames_valid.json", valid_vectors()),
                           ("frames_invalid.json", invalid_vectors())):
        path = HERE / fname
        path.write_text(json.dumps({"schema_version": wire.SCHEMA_VERSION, "vectors": vectors},
                                   indent=1) + "\n")
        print(f"wrote {path} ({len(vectors)} vectors)")


if __name__ == "__main__":
    main()
