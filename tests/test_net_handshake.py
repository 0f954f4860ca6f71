"""Handshake, identity and framing faults on a host connection, with no reactor running:
in-memory links and a fake clock (tests/loopback.py)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from loopback import Loopback, ScriptedPeer

from p2p_burraco import wire
from p2p_burraco.net import identity as ident
from p2p_burraco.net.host import HostConfig, HostNode


@pytest.fixture
def net() -> Loopback:
    return Loopback()


@pytest.fixture
def host(net: Loopback, tmp_path: Path) -> HostNode:
    cfg = HostConfig(data_dir=tmp_path, default_table=False, handshake_timeout=5.0, seed=1)
    return HostNode(net.clock, cfg)


def connect(net: Loopback, host: HostNode, **kw: object) -> ScriptedPeer:
    peer = ScriptedPeer(**kw)  # type: ignore[arg-type]
    net.connect(host, peer)
    net.pump()
    return peer


def test_handshake_proves_identity_both_ways(net: Loopback, host: HostNode) -> None:
    peer = connect(net, host)
    welcome = peer.of_type("welcome")[0].body
    msg = wire.auth_message(wire.AUTH_HOST_DOMAIN, welcome["version"], peer.nonce,
                            welcome["challenge"], peer.public_key)
    assert ident.verify(welcome["host_identity"], welcome["signature"], msg)
    assert welcome["host_identity"] == host.public_key
    ready = peer.of_type("ready")[0].body
    assert ready == {"name": "tester", "table": None, "seat": None}
    assert host.by_identity[peer.public_key].state == "ready"
    assert peer.errors == []


def test_handshake_byte_by_byte(net: Loopback, host: HostNode) -> None:
    peer = ScriptedPeer()
    link = net.connect(host, peer)
    link.chunk = 1
    net.pump()
    assert [f.type for f in peer.received] == ["welcome", "ready"]


def test_a_frame_before_hello_is_refused_then_hello_works(net: Loopback,
                                                          host: HostNode) -> None:
    peer = connect(net, host, auto_auth=False)
    peer.send("list_tables", {})
    net.pump()
    assert peer.errors[-1]["code"] == "hello.required" and not peer.errors[-1]["fatal"]
    peer.auto_auth = True
    peer.hello()
    net.pump()
    assert peer.of_type("ready")


def test_no_common_version_is_fatal(net: Loopback, host: HostNode) -> None:
    peer = connect(net, host, auto_auth=False)
    peer.hello(versions=[wire.PROTOCOL_VERSIONS[1] + 1])
    net.pump()
    assert peer.errors[-1]["code"] == "hello.version" and peer.errors[-1]["fatal"]
    assert peer.closed


def test_a_wrong_challenge_signature_is_fatal(net: Loopback, host: HostNode) -> None:
    peer = connect(net, host, auto_auth=False)
    peer.hello()
    net.pump()
    peer.send("auth", {"signature": Ed25519PrivateKey.generate().sign(b"other")})
    net.pump()
    assert peer.errors[-1]["code"] == "auth.bad_signature" and peer.closed
    assert peer.public_key not in host.by_identity


def test_hello_again_after_the_handshake(net: Loopback, host: HostNode) -> None:
    peer = connect(net, host)
    peer.hello()
    net.pump()
    assert peer.errors[-1]["code"] == "hello.repeated" and not peer.closed


def test_the_same_identity_twice_is_refused(net: Loopback, host: HostNode) -> None:
    key = Ed25519PrivateKey.generate()
    first = connect(net, host, key=key)
    second = connect(net, host, key=key)
    assert second.errors[-1]["code"] == "auth.identity_in_use" and second.closed
    assert not first.closed and host.by_identity[first.public_key] is not None


def test_handshake_timeout_on_the_fake_clock(net: Loopback, host: HostNode) -> None:
    peer = connect(net, host, auto_auth=False)
    net.advance(4.9)
    assert not peer.closed
    net.advance(0.2)
    assert peer.errors[-1]["code"] == "auth.timeout" and peer.closed


def test_oversized_frame_before_auth_drops_only_that_connection(net: Loopback,
                                                                host: HostNode) -> None:
    good = connect(net, host)
    bad = connect(net, host, auto_auth=False)
    bad.write(struct.pack(">I", wire.MAX_HELLO_FRAME + 1) + b"\x00" * 10)
    net.pump()
    assert bad.errors[-1]["code"] == "frame.too_large" and bad.closed
    good.send("ping", {"n": 3})
    net.pump()
    assert good.of_type("pong")[-1].body == {"n": 3} and not good.closed


def test_after_auth_the_cap_is_the_full_frame_size(net: Loopback, host: HostNode) -> None:
    peer = connect(net, host)
    big = {"type": "ping", "seq": peer.send_seq.next(), "body": {"n": 1, "pad": b"x" * 8000}}
    peer.send_raw(big)
    net.pump()
    assert peer.errors[-1]["code"] == "msg.unknown_field"   # read, not dropped
    assert not peer.closed


def test_identity_file_is_created_once_and_private(tmp_path: Path) -> None:
    k1 = ident.load_or_create_identity(tmp_path / "d")
    k2 = ident.load_or_create_identity(tmp_path / "d")
    assert ident.public_bytes(k1) == ident.public_bytes(k2)
    path = tmp_path / "d" / ident.IDENTITY_FILE
    assert path.stat().st_mode & 0o077 == 0
    path.write_bytes(b"short")
    with pytest.raises(ValueError, match="32 bytes"):
        ident.load_or_create_identity(tmp_path / "d")


def test_a_frame_cut_by_the_connection_closing_harms_no_one(net: Loopback,
                                                            host: HostNode) -> None:
    other = connect(net, host)
    cut = connect(net, host, name="cut")
    frame = wire.encode_frame("ping", cut.send_seq.next(), {"n": 1}, wire.PEER)
    cut.write(frame[:-3])
    net.pump()
    conn = host.by_identity[cut.public_key]
    assert conn.decoder.pending == len(frame) - 3
    net.links[-1].close()
    assert cut.public_key not in host.by_identity and conn not in host.connections
    other.send("ping", {"n": 2})
    net.pump()
    assert other.of_type("pong")[-1].body == {"n": 2}
