"""protocol/vectors: every valid frame decodes (whole and byte by byte) to its `decoded`
value and re-encodes byte for byte when `roundtrip`; every invalid frame is refused with its
stable code; the schema file and the code's registry list exactly the same types and codes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from p2p_burraco import wire

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "protocol" / "vectors"
SCHEMA = ROOT / "protocol" / "schema" / "messages.json"


def _load(name: str) -> list[dict[str, Any]]:
    doc = json.loads((VECTORS / name).read_text())
    assert doc["schema_version"] == wire.SCHEMA_VERSION
    vectors: list[dict[str, Any]] = doc["vectors"]
    return vectors


VALID = _load("frames_valid.json")
INVALID = _load("frames_invalid.json")


def _counter_before(seq: int) -> wire.SeqCounter:
    c = wire.SeqCounter()
    c.last = seq - 1
    return c


@pytest.mark.parametrize("vec", VALID, ids=[v["name"] for v in VALID])
def test_valid_frame_decodes_and_roundtrips(vec: dict[str, Any]) -> None:
    data = bytes.fromhex(vec["hex"])
    expected = wire.from_json_value(vec["decoded"])
    whole = wire.FrameDecoder(wire.MAX_FRAME).feed(data)
    one_by_one: list[bytes] = []
    dec = wire.FrameDecoder(wire.MAX_FRAME)
    for i in range(len(data)):
        one_by_one += dec.feed(data[i:i + 1])
    assert whole == one_by_one and len(whole) == 1 and dec.pending == 0
    frame = wire.accept_payload(whole[0], vec["sender"], _counter_before(expected["seq"]))
    assert frame.to_wire() == expected
    again = wire.frame_bytes(wire.pack(frame.to_wire()))
    assert (again == data) is vec["roundtrip"]
    if vec["roundtrip"]:
        assert wire.encode_frame(frame.type, frame.seq, frame.body, vec["sender"]) == data


@pytest.mark.parametrize("vec", INVALID, ids=[v["name"] for v in INVALID])
def test_invalid_frame_is_refused_with_its_code(vec: dict[str, Any]) -> None:
    data = bytes.fromhex(vec["hex"])
    counter = _counter_before(vec["next_seq"])
    with pytest.raises(wire.WireError) as info:
        for payload in wire.FrameDecoder(wire.MAX_FRAME).feed(data):
            wire.accept_payload(payload, vec["sender"], counter)
    assert info.value.code == vec["error"]
    assert vec["error"] in wire.registry().error_codes
    # a frame whose envelope and seq were fine consumes its seq even if its body is refused;
    # one refused before (codec, envelope) or at the seq check consumes nothing
    try:
        (payload,) = wire.FrameDecoder(wire.MAX_FRAME).feed(data)
        consumed = wire.read_envelope(payload)[1] == vec["next_seq"]
    except (wire.WireError, ValueError):
        consumed = False
    assert counter.last == vec["next_seq"] - (1 - consumed)


def test_every_message_type_has_a_valid_vector() -> None:
    assert {v["decoded"]["type"] for v in VALID} == set(wire.registry().messages)


def test_schema_file_lists_exactly_the_registry() -> None:
    schema = json.loads(SCHEMA.read_text())
    reg = wire.registry()
    assert schema["schema_version"] == wire.SCHEMA_VERSION
    assert set(schema["messages"]) == set(reg.messages)
    assert set(schema["error_codes"]) == set(reg.error_codes)
    for name, spec in reg.messages.items():
        assert schema["messages"][name]["fields"] == dict(spec.fields), name
        assert schema["messages"][name]["sender"] == spec.sender, name
    assert schema["frame"] == reg.schema()["frame"], \
        "protocol/schema/messages.json is stale: python -m p2p_burraco.wire schema > it"


def test_protocol_md_names_every_message_and_error_code() -> None:
    text = (ROOT / "protocol" / "PROTOCOL.md").read_text()
    reg = wire.registry()
    missing_types = [t for t in reg.messages if f"`{t}`" not in text]
    missing_codes = [c for c in reg.error_codes if f"`{c}`" not in text]
    assert not missing_types, f"PROTOCOL.md does not describe {missing_types}"
    assert not missing_codes, f"PROTOCOL.md does not list {missing_codes}"


def test_every_error_code_raised_in_the_code_is_registered() -> None:
    codes = wire.registry().error_codes
    used: set[str] = set()
    for path in [ROOT / "p2p_burraco" / "wire.py", *(ROOT / "p2p_burraco" / "net").glob("*.py")]:
        used |= set(re.findall(r'WireError\(\s*"([a-z_]+\.[a-z_]+)"', path.read_text()))
    assert used, "the scan found no WireError codes"
    assert sorted(used - set(codes)) == []
