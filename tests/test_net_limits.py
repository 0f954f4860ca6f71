"""The limits of PROTOCOL.md § 2 and § 3 ("Limits"), one by one, with no reactor: the codec's
header walk (refused before anything is built), the frame decoder (a length is checked
before its payload is kept), frame deadlines and idleness counted in whole frames, output
backpressure, the request bucket, the refusal count, the connection caps, the time budget
of a source address and the table cap. In-memory links and a fake clock
(tests/loopback.py); real TCP is in test_spec_errors.py and test_net_hostile.py."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import msgpack
import pytest
from loopback import Link, Loopback, ScriptedPeer
from twisted.internet.task import Clock

from p2p_burraco import wire
from p2p_burraco.net.guard import GuardLimits, HostGuard, TokenBucket, is_loopback
from p2p_burraco.net.host import HostConfig, HostConnection, HostNode


def header(n: int) -> bytes:
    return struct.pack(">I", n)


# --------------------------------------------------------------------------- codec

@pytest.mark.parametrize("payload, code", [
    (b"\x91" * wire.MAX_FRAME, "frame.too_deep"),                    # 1 MiB of nested lists
    (b"\x81\xa1k" * 100_000, "frame.too_deep"),                       # nested maps
    (b"\x91" * 20, "frame.too_deep"),                                 # too deep and cut short
    (b"\xdd\x00\x00\x10\x00" * 800, "frame.too_long"),                # 4096-item headers
    (b"\xdd\xff\xff\xff\xff", "frame.too_long"),                      # 2^32-1 items declared
    (b"\xdb\x7f\xff\xff\xff", "frame.too_long"),                      # a 2 GiB string declared
    (b"\xc6\x00\x01\x00\x01" + bytes(65537), "frame.too_long"),       # 64 KiB + 1 of bytes
    (msgpack.packb("\u00e9" * 4097), "frame.too_long"),               # 4097 characters
    (msgpack.packb([[0] * 4096] * 8), "frame.too_long"),              # 32776 values
    (b"\xd4\x01\x00", "frame.ext"),
    (b"\xc1", "frame.malformed"),
    (b"\xdb\x00\x00\x10\x01" + b"\xff" * 4097, "frame.malformed"),    # long and not UTF-8
    (b"\x92\x01", "frame.truncated"),
    (b"\xcf\x00", "frame.truncated"),
    (b"\x01\x02", "frame.trailing"),
    (b"", "frame.empty"),
])
def test_the_header_walk_refuses_before_decoding(payload: bytes, code: str) -> None:
    with pytest.raises(wire.WireError) as info:
        wire.scan_payload(payload)
    assert info.value.code == code and not info.value.fatal
    with pytest.raises(wire.WireError) as again:                     # and so does the codec
        wire.unpack(payload)
    assert again.value.code == code


def test_the_limits_themselves_are_accepted() -> None:
    deep: Any = None
    for _ in range(wire.MAX_DEPTH):
        deep = [deep]
    for value in (deep, "\U0001F0CF" * wire.MAX_STR, b"x" * wire.MAX_BIN, [0] * wire.MAX_LIST,
                  {str(i): i for i in range(wire.MAX_LIST)},
                  [[0] * 4095] * 7 + [[0] * (wire.MAX_VALUES - 9 - 7 * 4095)]):
        assert wire.unpack(wire.pack(value)) == value
    assert wire.scan_payload(msgpack.packb({"f": 1.5})) is True     # refused after the seq


@pytest.mark.parametrize("value", [
    "x" * (wire.MAX_STR + 1), b"x" * (wire.MAX_BIN + 1), [0] * (wire.MAX_LIST + 1),
    [[0] * 4096] * 8,
])
def test_we_never_send_what_a_receiver_refuses(value: Any) -> None:
    with pytest.raises(wire.WireError) as info:
        wire.pack(value)
    assert info.value.code == "frame.too_long"


def test_the_decoder_checks_a_length_before_keeping_its_payload() -> None:
    dec = wire.FrameDecoder(max_size=100)
    good = header(3) + b"\xa1ab"[:3]
    dec.push(good + header(50) + b"x")
    assert dec.ready == 1 and dec.partial == 5 and dec.completed == 1
    assert dec.next_payload() == b"\xa1ab"[:3] and dec.next_payload() is None
    with pytest.raises(wire.WireError) as info:
        wire.FrameDecoder(max_size=100).push(header(101))           # no payload byte yet
    assert info.value.code == "frame.too_large" and info.value.fatal


def test_a_frame_queued_behind_ready_gets_the_cap_in_force_when_it_is_reached() -> None:
    dec = wire.FrameDecoder(wire.MAX_HELLO_FRAME)    # `ready` and a big frame in one read
    dec.push(header(5) + b"ready" + header(3000) + b"s" * 3000 + header(5000) + b"t")
    assert dec.next_payload() == b"ready"
    dec.max_size = wire.MAX_FRAME                    # what handling `ready` does
    assert dec.next_payload() == b"s" * 3000
    dec.push(b"t" * 4999)
    assert dec.next_payload() == b"t" * 5000
    small = wire.FrameDecoder(wire.MAX_HELLO_FRAME)  # not raised: refused when reached
    small.push(header(5) + b"hello" + header(3000) + b"s" * 3000 + header(9000) + b"x")
    assert small.next_payload() == b"hello"
    with pytest.raises(wire.WireError, match="frame.too_large"):
        small.next_payload()
    tail = wire.FrameDecoder(wire.MAX_HELLO_FRAME)   # begun behind: checked once reached
    tail.push(header(5) + b"hello" + header(9000) + b"x")
    assert tail.next_payload() == b"hello"
    with pytest.raises(wire.WireError, match="frame.too_large"):
        tail.push(b"")
    with pytest.raises(wire.WireError, match="frame.too_large"):   # never kept waiting
        wire.FrameDecoder(wire.MAX_HELLO_FRAME).push(header(1) + b"x" + header(1 << 21))


def test_the_decoder_hands_out_one_frame_at_a_time() -> None:
    frames = [wire.frame_bytes(wire.pack({"i": i})) for i in range(5)]
    dec = wire.FrameDecoder()
    dec.push(b"".join(frames) + frames[0][:2])
    assert dec.ready == 5 and dec.pending == sum(map(len, frames)) + 2
    assert wire.unpack(dec.next_payload() or b"") == {"i": 0}
    dec.push(frames[0][2:])
    assert [wire.unpack(p)["i"] for p in dec.feed(b"")] == [1, 2, 3, 4, 0]
    assert dec.pending == 0


# --------------------------------------------------------------------------- guard

def test_token_bucket_on_a_clock() -> None:
    clock = Clock()
    b = TokenBucket(clock, rate=2.0, burst=4.0)
    assert [b.take() for _ in range(5)] == [True] * 4 + [False]
    assert b.wait(1.0) == pytest.approx(0.5)
    clock.advance(0.5)
    assert b.take() and not b.take()
    b.charge(3.0)
    assert b.level == pytest.approx(-3.0) and b.wait() == pytest.approx(1.5)
    clock.advance(100)
    assert b.level == 4.0


def test_host_guard_caps_and_budgets() -> None:
    g = HostGuard(Clock(), GuardLimits(max_connections=3, max_per_address=2,
                                       exempt_loopback=True))
    assert g.admit("10.0.0.1") is None and g.admit("10.0.0.1") is None
    assert "one address" in (g.admit("10.0.0.1") or "")
    assert g.admit("10.0.0.2") is None
    assert "at most 3" in (g.admit("10.0.0.3") or "")
    g.release("10.0.0.1")
    assert g.admit("10.0.0.3") is None and g.total == 3
    assert g.budget("127.0.0.1") is None and g.budget("::1") is None
    assert g.budget("10.0.0.2") is g.budget("10.0.0.2") is not None


# --------------------------------------------------------------------------- on a host

@pytest.fixture
def net() -> Loopback:
    return Loopback()


def make_host(net: Loopback, tmp: Path, **cfg: Any) -> HostNode:
    base: dict[str, Any] = {"data_dir": tmp, "game": "briscola", "players": 2, "seed": 4}
    return HostNode(net.clock, HostConfig(**{**base, **cfg}))


def connect(net: Loopback, host: HostNode, **kw: Any) -> tuple[ScriptedPeer, Link]:
    peer = ScriptedPeer(**kw)
    link = net.connect(host, peer)
    net.pump()
    return peer, link


def server(host: HostNode, peer: ScriptedPeer) -> HostConnection:
    return host.by_identity[peer.public_key]


def test_a_frame_must_be_complete_in_time(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path, frame_timeout=10.0, ping_interval=1000.0)
    peer, _ = connect(net, host)
    peer.write(header(100) + b"\x83")
    net.pump()
    net.advance(9.0)
    peer.write(b"\x00")                       # a trickle does not reset the deadline
    net.advance(0.9)
    assert not peer.closed
    net.advance(0.2)
    assert peer.errors[-1]["code"] == "frame.timeout" and peer.errors[-1]["fatal"]
    assert peer.closed


def test_each_frame_gets_its_own_deadline(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path, frame_timeout=10.0, ping_interval=1000.0,
                     idle_timeout=1000.0)
    peer, _ = connect(net, host)
    ping = wire.encode_frame("ping", peer.send_seq.next(), {"n": 1}, wire.PEER)
    peer.write(header(100))
    net.advance(8.0)
    peer.write(b"\x00" * 100 + ping[:3])      # one frame done, the next one begun
    net.advance(8.0)
    assert not peer.closed
    peer.write(ping[3:])
    net.advance(8.0)
    assert not peer.closed and peer.of_type("pong")


def test_idleness_counts_whole_frames_not_bytes(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path, frame_timeout=1000.0, ping_interval=10.0,
                     idle_timeout=45.0)
    peer, _ = connect(net, host)
    peer.answer_pings = False
    peer.write(header(1000))
    for _ in range(5):
        net.advance(10.0)
        if not peer.closed:
            peer.write(b"\x00")
    assert peer.errors[-1]["code"] == "conn.idle" and peer.closed


def test_a_connection_whose_output_is_full_is_not_read(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path, slow_reader_timeout=30.0)
    peer, _ = connect(net, host)
    conn = server(host, peer)
    conn._gate.pauseProducing()               # what Twisted calls past output_limit
    assert conn.reading_paused and conn.output_paused
    peer.send("ping", {"n": 1})
    net.pump()
    assert not peer.of_type("pong") and conn.decoder.ready == 1     # received, not handled
    net.advance(29.0)
    conn._gate.resumeProducing()              # drained
    net.advance(0.0)
    assert peer.of_type("pong") and not conn.reading_paused
    conn._gate.pauseProducing()
    net.advance(30.5)
    assert peer.errors[-1]["code"] == "conn.slow_reader" and peer.closed


def test_output_queued_while_full_has_a_hard_cap(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path, output_limit=1000)
    peer, _ = connect(net, host)
    conn = server(host, peer)
    conn._gate.pauseProducing()
    for _ in range(100):
        conn.send("table_update", {"info": {"pad": "x" * 100}})
    net.pump()
    assert peer.errors[-1]["code"] == "conn.slow_reader" and peer.closed


def test_a_fatal_close_is_aborted_if_the_peer_never_lets_go(net: Loopback,
                                                            tmp_path: Path) -> None:
    host = make_host(net, tmp_path, close_timeout=2.0)
    peer, link = connect(net, host)
    conn = server(host, peer)
    link.server_tx.loseConnection = lambda: None      # a close that never completes
    conn.refuse(wire.WireError("seq.gap", "test", fatal=True))
    assert conn.closing and not link.server_tx.disconnected
    net.clock.advance(2.1)
    assert link.server_tx.disconnected                # StringTransport's abortConnection


def test_requests_have_a_budget(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path, request_burst=30.0, request_rate=5.0)
    peer, _ = connect(net, host)
    for n in range(40):
        peer.send("ping", {"n": n})
    net.pump()
    assert len(peer.of_type("pong")) == 30
    busy = [e for e in peer.errors if e["code"] == "host.busy"]
    assert len(busy) == 10 and not busy[0]["fatal"] and not peer.closed
    net.advance(1.0)
    for _ in range(3):
        peer.send("list_tables", {})          # 3 tokens each: 5 back = one answer
    net.pump()
    assert len(peer.of_type("tables")) == 1


def test_hammering_reaches_the_refusal_limit(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path, request_burst=1.0, request_rate=0.001)
    peer, _ = connect(net, host)
    for n in range(70):
        peer.send("ping", {"n": n})
    net.pump()
    codes = [e["code"] for e in peer.errors]
    assert codes.count("host.busy") == 64 and codes[-1] == "host.too_many_errors"
    assert peer.closed


def test_refusals_sent_by_the_table_layer_count(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path)
    peer, _ = connect(net, host)
    conn = server(host, peer)
    for _ in range(63):
        conn.count_refusal()
    net.pump()
    assert not peer.closed
    conn.count_refusal()
    net.pump()
    assert peer.errors[-1]["code"] == "host.too_many_errors" and peer.closed


def test_connection_caps_per_address_and_in_all(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path, max_per_address=2, max_connections=3)
    _, link_a = connect(net, host)
    connect(net, host)
    c, _ = connect(net, host)
    assert c.errors == [c.errors[0]] and c.errors[0]["code"] == "conn.too_many"
    assert c.closed and not c.of_type("welcome") and len(host.connections) == 2
    link_a.close()
    d, _ = connect(net, host)
    assert d.of_type("ready") and host.guard.total == 2


def test_the_time_budget_of_an_address_pauses_reading(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path, exempt_loopback=False, address_share=0.1,
                     address_burst=0.5)
    clock = net.clock

    def slow_list(conn: Any, frame: Any) -> None:    # each answer costs 0.3 s of host time
        clock.rightNow += 0.3
        conn.send("tables", {"tables": []})
    host.lobby.on_list_tables = slow_list             # type: ignore[method-assign]
    peer, _ = connect(net, host)
    other, _ = connect(net, host, name="same address")
    for _ in range(3):
        peer.send("list_tables", {})
    net.pump()
    assert len(peer.of_type("tables")) == 2           # 0.6 s spent: the budget is negative
    other.send("ping", {"n": 5})
    net.pump()
    assert not other.of_type("pong")                  # one budget for the whole address
    net.advance(1.1)                                  # -0.1 s back to 0 at 0.1 s a second
    net.advance(0.0)
    assert len(peer.of_type("tables")) == 3           # ... and spent again (-0.3 s)
    assert not other.of_type("pong")
    net.advance(3.1)
    net.advance(0.0)
    assert other.of_type("pong")
    assert not peer.errors and not other.errors       # nothing refused, only delayed


def test_the_table_cap_has_its_own_code(net: Loopback, tmp_path: Path) -> None:
    host = make_host(net, tmp_path, max_tables=2)
    peer, _ = connect(net, host)
    body = {"game": "briscola", "variant": None, "players": 2, "target": None, "hands": None}
    peer.send("create_table", body)
    net.pump()
    assert peer.of_type("table_created")
    peer.send("create_table", body)
    net.pump()
    err = peer.errors[-1]
    assert err["code"] == "lobby.too_many_tables" and err["ref"] == peer.send_seq.last
    assert HostConfig().max_tables == 200


def test_the_handshake_has_ten_seconds_and_a_small_frame_cap(net: Loopback,
                                                            tmp_path: Path) -> None:
    assert HostConfig().handshake_timeout == 10.0 and wire.MAX_HELLO_FRAME == 1024
    host = make_host(net, tmp_path)
    peer, _ = connect(net, host, auto_auth=False)
    net.advance(9.9)
    assert not peer.closed
    net.advance(0.2)
    assert peer.errors[-1]["code"] == "auth.timeout" and peer.closed


def test_is_loopback_names_this_machine_by_address_or_as_localhost() -> None:
    """One test of "this machine" for the guard's loopback exemption and for discovery (a
    host bound to loopback, by address or as "localhost", is not announced on the LAN)."""
    assert is_loopback("127.0.0.1") and is_loopback("127.8.9.1") and is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("192.168.1.5") and not is_loopback("0.0.0.0")
    assert not is_loopback("") and not is_loopback("example.org")


def test_a_host_collects_cycles_in_large_batches_and_freezes_its_setup() -> None:
    """The process's garbage-collector policy (gc_policy.py): starting a host sets the young
    threshold far above CPython's 700 and freezes what exists (never walked again), and a
    cycle made afterwards is still collected."""
    import gc
    import weakref

    from p2p_burraco import gc_policy

    gc_policy.apply_gc_policy()
    assert gc.get_threshold() == (gc_policy.YOUNG, gc_policy.MIDDLE, gc_policy.OLD)
    assert gc.get_freeze_count() > 0

    class Node:
        other: Any = None
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    assert gone() is None
