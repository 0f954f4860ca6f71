"""The codec and framing of p2p_burraco.wire: pinned options, limits, any chunking."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_burraco import wire

wire_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=wire.INT_MIN, max_value=wire.INT_MAX)
    | st.text(max_size=20) | st.binary(max_size=40),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=25,
)


@given(wire_values)
def test_any_wire_value_roundtrips_byte_for_byte(value: object) -> None:
    data = wire.pack(value)
    assert wire.unpack(data) == value
    assert wire.pack(wire.unpack(data)) == data


@given(st.lists(st.dictionaries(st.text(max_size=5), wire_values, max_size=4), min_size=1,
                max_size=6), st.data())
def test_frames_survive_any_chunking(values: list[dict[str, object]], data: st.DataObject) -> None:
    stream = b"".join(wire.frame_bytes(wire.pack(v)) for v in values)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    dec = wire.FrameDecoder(wire.MAX_FRAME)
    got: list[bytes] = []
    last = 0
    for cut in [*cuts, len(stream)]:
        got += dec.feed(stream[last:cut])
        last = cut
    assert [wire.unpack(p) for p in got] == values
    assert dec.pending == 0


def test_many_frames_in_one_chunk_and_a_partial_tail() -> None:
    frames = [wire.frame_bytes(wire.pack({"i": i})) for i in range(50)]
    dec = wire.FrameDecoder()
    out = dec.feed(b"".join(frames) + frames[0][:3])
    assert [wire.unpack(p)["i"] for p in out] == list(range(50))
    assert dec.pending == 3
    assert dec.feed(frames[0][3:]) == [frames[0][4:]]


def test_length_prefix_above_the_cap_is_fatal_before_any_payload() -> None:
    dec = wire.FrameDecoder(max_size=100)
    with pytest.raises(wire.WireError) as info:
        dec.feed(struct.pack(">I", 101))
    assert info.value.code == "frame.too_large" and info.value.fatal


def test_pre_auth_cap_is_smaller_than_the_frame_cap() -> None:
    assert wire.MAX_HELLO_FRAME < wire.MAX_FRAME
    with pytest.raises(wire.WireError, match="frame.too_large"):
        wire.FrameDecoder().feed(struct.pack(">I", wire.MAX_HELLO_FRAME + 1))


@pytest.mark.parametrize("bad, code", [
    (1.5, "frame.float"), ({"a": [0.0]}, "frame.float"), ({1: 2}, "frame.map_key"),
    (object(), "msg.field_type"), (1 << 64, "msg.field_type"),
])
def test_pack_refuses_what_the_protocol_does_not_carry(bad: object, code: str) -> None:
    with pytest.raises(wire.WireError) as info:
        wire.pack(bad)
    assert info.value.code == code


def test_pack_turns_tuples_into_lists() -> None:
    assert wire.unpack(wire.pack({"a": (1, (2, 3))})) == {"a": [1, [2, 3]]}


def test_codec_options_are_pinned() -> None:
    # bin and str are distinct types on the wire (use_bin_type / raw=False)
    assert wire.pack(b"x")[0] == 0xC4 and wire.pack("x")[0] == 0xA1
    assert wire.unpack(b"\xc4\x01x") == b"x" and wire.unpack(b"\xa1x") == "x"


@pytest.mark.parametrize("spec, good, bad", [
    ("uint", [0, 5, wire.INT_MAX], [-1, True, "1", None]),
    ("int", [-5, 0], [1.0, False]),
    ("seat", [0, 15], [16, -1]),
    ("bytes32", [b"\x00" * 32], [b"\x00" * 31, "0" * 32]),
    ("opt[str]", [None, "a"], [1]),
    ("list[seat]", [[], [0, 3]], [[16], (0,), "ab"]),
    ("list[list[seat]]", [[[0, 2], [1, 3]]], [[[0, "2"]]]),
    ("map[uint]", [{"a": 1}], [{"a": -1}, []]),
    ("map", [{}, {"x": [1]}], [[]]),
    ("str", ["", "x" * wire.MAX_STR], ["x" * (wire.MAX_STR + 1), b"x"]),
])
def test_field_types(spec: str, good: list[object], bad: list[object]) -> None:
    ft = wire.parse_type(spec)
    for v in good:
        ft.check(v, "f")
    for v in bad:
        with pytest.raises(wire.WireError) as info:
            ft.check(v, "f")
        assert info.value.code == "msg.field_type"


_SPECS = ["uint", "int", "seat", "bool", "nil", "str", "bytes", "bytes2", "any", "map",
          "opt[seat]", "list[bytes2]", "list[uint]", "list[list[seat]]", "map[uint]",
          "opt[list[bytes2]]"]
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.sampled_from([wire.INT_MAX + 1])
    | st.binary(max_size=3) | st.text(max_size=3) | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner)
    | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=8)


@given(spec=st.sampled_from(_SPECS), value=_VALUES)
def test_quick_yes_is_never_more_permissive_than_the_walk(spec: str, value: object) -> None:
    """The validator's quick `ok` (no path strings) says yes only where the exact walk that
    names the bad field also passes: a frame the quick path lets through is a valid one."""
    ft = wire.parse_type(spec)
    walk_ok = True
    try:
        ft._check(value, "f")
    except wire.WireError:
        walk_ok = False
    if ft.ok(value):
        assert walk_ok, (spec, value)
    assert (ft.check(value, "f") is None) if walk_ok else True


@pytest.mark.parametrize("spec", ["float", "list[", "bytes-1", "opt[]", ""])
def test_bad_type_strings_are_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="bad field type"):
        wire.parse_type(spec)


def test_version_negotiation_picks_the_highest_common_version() -> None:
    lo, hi = wire.PROTOCOL_VERSIONS
    assert wire.choose_version([lo, hi, hi + 5]) == hi
    with pytest.raises(wire.WireError) as info:
        wire.choose_version([hi + 1, hi + 2])
    assert info.value.code == "hello.version" and info.value.fatal


def test_auth_message_is_fixed_bytes_never_msgpack() -> None:
    n, c, k = b"\x01" * 32, b"\x02" * 32, b"\x03" * 32
    msg = wire.auth_message(wire.AUTH_PEER_DOMAIN, 1, n, c, k)
    assert msg == wire.AUTH_PEER_DOMAIN + b"\x00\x01" + n + c + k
    assert wire.auth_message(wire.AUTH_HOST_DOMAIN, 1, n, c, k) != msg
    with pytest.raises(ValueError):
        wire.auth_message(wire.AUTH_PEER_DOMAIN, 1, n[:31], c, k)


def test_outgoing_frames_are_validated_too() -> None:
    with pytest.raises(wire.WireError) as info:
        wire.encode_frame("ping", 1, {"n": "one"}, wire.PEER)
    assert info.value.code == "msg.field_type"
    with pytest.raises(wire.WireError) as info:
        wire.encode_frame("welcome", 1, {}, wire.PEER)
    assert info.value.code == "msg.wrong_sender"


def test_seq_counter_refuses_replays_and_gaps_without_moving() -> None:
    c = wire.SeqCounter()
    c.check(1)
    c.check(2)
    for seq, code in ((2, "seq.replay"), (1, "seq.replay"), (4, "seq.gap")):
        with pytest.raises(wire.WireError) as info:
            c.check(seq)
        assert info.value.code == code and info.value.ref == seq
        assert info.value.fatal is (code == "seq.gap")   # a gap means the stream is lost
    assert c.last == 2
    c.check(3)


def test_names() -> None:
    assert wire.valid_name("  Anna ") == "Anna"
    for bad in ("", " ", "x" * 33, "a\x00b"):
        with pytest.raises(ValueError):
            wire.valid_name(bad)
