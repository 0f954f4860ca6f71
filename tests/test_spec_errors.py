"""The spec and the code agree on every transport error code: each code of PROTOCOL.md § 3's
table is provoked over real loopback TCP against a running host, and the host answers with
exactly that code, `fatal` as the spec says it is, and closes the connection if and only if
the code is fatal (a non-fatal one leaves it served). A code no input can provoke is listed
in NOT_PROVOKED with the reason. Table-level codes (`table.*`, § 8.9) are walked the same
way in tests/test_spec_table_codes.py."""

from __future__ import annotations

import re
import select
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tcpkit import Client, Kit, header
from waits import wait_until

from p2p_burraco import wire
from p2p_burraco.net.host import HostConfig

ROOT = Path(__file__).resolve().parents[1]
SPEC = (ROOT / "protocol" / "PROTOCOL.md").read_text()


def spec_codes() -> dict[str, bool]:
    """§ 3's table of transport codes: code → fatal (the spec says "(fatal" in its row)."""
    section = SPEC[SPEC.index("## 3. Errors"):SPEC.index("## 4. Handshake")]
    table = section[section.index("| code | meaning |"):section.index("Table-level codes")]
    codes: dict[str, bool] = {}
    for m in re.finditer(r"^\| `([a-z_]+\.[a-z_]+)` \| (.*) \|$", table, re.MULTILINE):
        codes[m.group(1)] = "(fatal" in m.group(2)
    return codes


CODES = spec_codes()


@dataclass
class Host:
    """A host of the test, and what the provoker learnt."""

    kit: Kit
    node: Any
    clients: list[Client] = field(default_factory=list)

    @property
    def address(self) -> tuple[str, int]:
        return self.kit.call(self.node.address)

    def client(self, ready: bool = True, **kw: Any) -> Client:
        c = Client(self.address, **kw)
        self.clients.append(c)
        if ready:
            c.handshake()
        return c


@dataclass
class Provoker:
    """`run(host)` makes the host send the code to the client it returns (the error frame is
    still to be read); `config` are the HostConfig fields the case needs."""

    run: Callable[[Host], Client]
    config: dict[str, Any] = field(default_factory=dict)


FAST = {"close_timeout": 1.0, "ping_interval": 30.0}
"""Every host of this file: fatal closes within 1 s; no ping unless a case wants them."""


def _payload(h: Host, payload: bytes, consumes: bool = False) -> Client:
    c = h.client()
    c.write(header(len(payload)) + payload)
    if consumes:
        c.seq += 1
    return c


def _envelope(body_bytes: bytes, seq: int = 1) -> bytes:
    """{type: "ping", seq, body: <body_bytes>} with the body given as raw msgpack."""
    return b"\x83\xa4type\xa4ping\xa3seq" + bytes([seq]) + b"\xa4body" + body_bytes


def _next_seq_envelope(h: Host, body_bytes: bytes, consumes: bool = False) -> Client:
    c = h.client()
    c.write(header(len(_envelope(body_bytes, c.seq + 1))) + _envelope(body_bytes, c.seq + 1))
    if consumes:
        c.seq += 1
    return c


def _bad_signature(h: Host) -> Client:
    c = h.client(ready=False)
    c.hello()
    c.expect("welcome")
    c.send("auth", {"signature": bytes(64)})
    return c


def _identity_in_use(h: Host) -> Client:
    first = h.client()
    second = h.client(ready=False, key=first.key)
    second.hello()
    welcome = second.expect("welcome")
    msg = wire.auth_message(wire.AUTH_PEER_DOMAIN, welcome["version"], second.nonce,
                            welcome["challenge"], welcome["host_identity"])
    second.send("auth", {"signature": second.key.sign(msg)})
    return second


def _handshake_timeout(h: Host) -> Client:
    c = h.client(ready=False)
    c.hello()
    return c


def _idle(h: Host) -> Client:
    c = h.client()
    c.answer_pings = False
    return c


def _slow_reader(h: Host) -> Client:
    """Ask for big answers until the host stops reading us (our writes stall) or gives up on
    us (it half-closes), read none of them past slow_reader_timeout, then read: the last
    frame is the host's error."""
    for _ in range(40):                       # big `tables` answers
        h.kit.call(h.node.lobby.create, "briscola", None, 2, None, None)
    c = h.client(rcvbuf=4096)
    c.sock.setblocking(False)
    batch = b"".join(wire.frame_bytes(wire.pack({"type": "list_tables", "seq": c.seq + i,
                                                 "body": {}})) for i in range(1, 20001))
    view = memoryview(batch)
    while view and _tcp_state(c.sock) == 1:
        try:
            view = view[c.sock.send(view[:65536]):]
        except BlockingIOError:
            if not select.select([], [c.sock], [], 0.2)[1]:
                break                         # stalled: the host no longer reads us
    c.sock.setblocking(True)
    # the kernel's buffers take a few MB first (the host's output flaps over and under its
    # limit meanwhile); wait until the host has given up on us, then read
    wait_until(lambda: h.kit.call(lambda: any(conn.closing for conn in h.node.connections)),
               "the host to give up on a client that does not read")
    return c


def _tcp_state(sock: socket.socket) -> int:
    """1 while ESTABLISHED (Linux); elsewhere assume it is."""
    if hasattr(socket, "TCP_INFO"):
        return int(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0])
    return 1


def _internal(h: Host) -> Client:
    def boom(conn: Any, frame: Any) -> None:
        raise RuntimeError("a bug")
    h.kit.call(setattr, h.node.lobby, "on_list_tables", boom)
    c = h.client()
    c.send("list_tables", {})
    return c


def _disk_full(h: Host) -> Client:
    """A lobby request whose durable write fails with ENOSPC (a match's first record)."""
    import errno

    from p2p_burraco.storage.journal import DiskFull

    def full(conn: Any, frame: Any) -> None:
        raise DiskFull(Path("matches/journal.p2pj"), OSError(errno.ENOSPC, "no space"))
    h.kit.call(setattr, h.node.lobby, "on_list_tables", full)
    c = h.client()
    c.send("list_tables", {})
    return c


def _too_many_errors(h: Host) -> Client:
    c = h.client()
    c.write(header(0) * 64)
    return c


def _busy(h: Host) -> Client:
    c = h.client()
    for n in range(4):
        c.send("ping", {"n": n})
    return c


def _too_many_connections(h: Host) -> Client:
    h.client()
    return h.client(ready=False)


def _join(h: Host, table: str | None, seat: int | None, first: int | None = 0) -> Client:
    if first is not None:
        a = h.client()
        a.send("join_table", {"table": "t1", "seat": first})
        a.expect("seated")
    c = h.client()
    c.send("join_table", {"table": table, "seat": seat})
    return c


def _already_seated(h: Host) -> Client:
    c = h.client()
    c.send("join_table", {"table": "t1", "seat": 0})
    c.expect("seated")
    c.send("join_table", {"table": "t1", "seat": 1})
    return c


def _started(h: Host) -> Client:
    for seat in (0, 1):
        a = h.client()
        a.send("join_table", {"table": "t1", "seat": seat})
        a.expect("seated")
    c = h.client()
    c.send("join_table", {"table": "t1", "seat": None})
    return c


def _lobby(h: Host, mtype: str, body: dict[str, Any]) -> Client:
    c = h.client()
    c.send(mtype, body)
    return c


def _frame_timeout(h: Host) -> Client:
    c = h.client()
    c.write(header(100) + b"\x83")
    return c


def _seq(h: Host, delta: int) -> Client:
    c = h.client()
    c.send("ping", {"n": 1}, seq=c.seq + delta)
    return c


def _bad_name(h: Host) -> Client:
    c = h.client(ready=False)
    c.hello(name="   ")
    c.seq = 1                    # consumed; the state is still "hello"
    return c


CREATE = {"game": "briscola", "variant": None, "players": 2, "target": None, "hands": None}

PROVOKERS: dict[str, Provoker] = {
    "auth.bad_signature": Provoker(_bad_signature),
    "auth.identity_in_use": Provoker(_identity_in_use),
    "auth.timeout": Provoker(_handshake_timeout, {"handshake_timeout": 0.3}),
    "conn.idle": Provoker(_idle, {"ping_interval": 0.1, "idle_timeout": 0.3}),
    "conn.slow_reader": Provoker(_slow_reader, {
        "output_limit": 16 * 1024, "slow_reader_timeout": 0.3, "close_timeout": 5.0,
        "request_burst": 1e9, "request_rate": 1e9}),
    "conn.too_many": Provoker(_too_many_connections, {"max_per_address": 1,
                                                      "exempt_loopback": False}),
    "frame.empty": Provoker(lambda h: _payload(h, b"")),
    "frame.envelope": Provoker(lambda h: _payload(h, b"\x82\xa4type\xa4ping\xa3seq\x02")),
    "frame.ext": Provoker(lambda h: _next_seq_envelope(h, b"\x81\xa1n\xd4\x05\x01")),
    "frame.float": Provoker(lambda h: _next_seq_envelope(h, b"\x81\xa1n\xcb" + bytes(8), True)),
    "frame.malformed": Provoker(lambda h: _payload(h, b"\xc1")),
    "frame.map_key": Provoker(lambda h: _next_seq_envelope(h, b"\x82\xa1n\x01\xa1n\x02")),
    "frame.not_map": Provoker(lambda h: _payload(h, b"\x91\x01")),
    "frame.timeout": Provoker(_frame_timeout, {"frame_timeout": 0.3}),
    "frame.too_deep": Provoker(lambda h: _payload(h, b"\x91" * wire.MAX_FRAME)),
    "frame.too_large": Provoker(lambda h: _oversized(h)),
    "frame.too_long": Provoker(lambda h: _next_seq_envelope(h, b"\x81\xa1n\xdc\x10\x01")),
    "frame.trailing": Provoker(lambda h: _next_seq_envelope(h, b"\x81\xa1n\x01\xc0")),
    "frame.truncated": Provoker(lambda h: _next_seq_envelope(h, b"\x81\xa1n")),
    "hello.repeated": Provoker(lambda h: _hello_again(h)),
    "hello.required": Provoker(lambda h: _lobby_before_hello(h)),
    "hello.version": Provoker(lambda h: _versions(h)),
    "host.busy": Provoker(_busy, {"request_burst": 3.0, "request_rate": 0.01}),
    "host.internal": Provoker(_internal),
    "host.disk_full": Provoker(_disk_full),
    "host.too_many_errors": Provoker(_too_many_errors),
    "lobby.already_seated": Provoker(_already_seated),
    "lobby.bad_config": Provoker(lambda h: _lobby(h, "create_table", {**CREATE, "game": "go"})),
    "lobby.bad_seat": Provoker(lambda h: _join(h, "t1", 7, first=None)),
    "lobby.no_table": Provoker(lambda h: _join(h, "t99", None, first=None)),
    "lobby.not_seated": Provoker(lambda h: _lobby(h, "leave_table", {})),
    "lobby.seat_taken": Provoker(lambda h: _join(h, "t1", 0)),
    "lobby.started": Provoker(_started),
    "lobby.too_many_tables": Provoker(lambda h: _lobby(h, "create_table", CREATE),
                                      {"max_tables": 1}),
    "msg.bad_value": Provoker(_bad_name),
    "msg.field_type": Provoker(lambda h: _lobby(h, "ping", {"n": "one"})),
    "msg.missing_field": Provoker(lambda h: _lobby(h, "ping", {})),
    "msg.unknown_field": Provoker(lambda h: _lobby(h, "ping", {"n": 1, "m": 2})),
    "msg.unknown_type": Provoker(lambda h: _lobby(h, "teleport", {})),
    "msg.wrong_sender": Provoker(lambda h: _lobby(h, "welcome", {
        "version": 1, "software": "x", "host_identity": bytes(32), "challenge": bytes(32),
        "signature": bytes(64)})),
    "seq.gap": Provoker(lambda h: _seq(h, 2)),
    "seq.replay": Provoker(lambda h: _seq(h, 0)),
}

NOT_PROVOKED: dict[str, str] = {
    "host.shutdown": "no code path sends it yet (the host has no orderly stop that tells its "
                     "peers); add a provoker when it does",
    "lobby.table_full": "a waiting table starts its match the moment its last seat is taken, "
                        "so a join of a full table finds `lobby.started` first",
}


def _oversized(h: Host) -> Client:
    c = h.client(ready=False)
    c.write(header(wire.MAX_HELLO_FRAME + 1) + b"\x80")
    return c


def _hello_again(h: Host) -> Client:
    c = h.client()
    c.hello()
    return c


def _lobby_before_hello(h: Host) -> Client:
    c = h.client(ready=False)
    c.send("list_tables", {})
    return c


def _versions(h: Host) -> Client:
    c = h.client(ready=False)
    c.hello(versions=[wire.PROTOCOL_VERSIONS[1] + 7])
    return c


@pytest.fixture
def make_host(kit: Kit, tmp_path: Path) -> Iterator[Callable[[dict[str, Any]], Host]]:
    hosts: list[Host] = []

    def make(overrides: dict[str, Any]) -> Host:
        cfg = HostConfig(port=0, data_dir=tmp_path / f"h{len(hosts)}", game="briscola",
                         players=2, seed=len(hosts), **{**FAST, **overrides})
        host = Host(kit, kit.start_host(cfg))
        hosts.append(host)
        return host

    yield make
    for h in hosts:
        for c in h.clients:
            c.close()
        kit.stop_host(h.node)


def test_the_spec_lists_codes_and_every_registered_transport_code() -> None:
    assert len(CODES) > 30
    assert set(wire.ERROR_CODES) == set(CODES), "§ 3's table and wire.ERROR_CODES differ"
    for code, meaning in wire.ERROR_CODES.items():
        assert ("(fatal" in meaning) is CODES[code], f"{code}: fatal differs from the spec"


def test_every_code_is_provoked_or_explained() -> None:
    assert not set(PROVOKERS) & set(NOT_PROVOKED)
    assert set(PROVOKERS) | set(NOT_PROVOKED) == set(CODES)


@pytest.mark.parametrize("code", sorted(CODES))
def test_code_as_the_spec_says(code: str, make_host: Callable[[dict[str, Any]], Host]) -> None:
    if code in NOT_PROVOKED:
        pytest.skip(NOT_PROVOKED[code])
    fatal = CODES[code]
    provoker = PROVOKERS[code]
    host = make_host(provoker.config)
    client = provoker.run(host)
    err = client.error_code(code)
    assert err["fatal"] is fatal, err
    if fatal:
        assert client.wait_closed(host.node.config.close_timeout + 2.0), \
            f"{code} is fatal but the connection stayed open"
    else:
        assert client.alive(), f"{code} is not fatal but the connection was closed"


def test_the_connection_cap_in_all(make_host: Callable[[dict[str, Any]], Host]) -> None:
    host = make_host({"max_connections": 2, "max_per_address": 16})
    host.client()
    host.client(ready=False)
    third = host.client(ready=False)
    err = third.error()
    assert err["code"] == "conn.too_many" and err["fatal"] and third.wait_closed(3.0)
    host.clients[0].close()
    wait_until(lambda: host.kit.call(lambda: host.node.guard.total) < 2,
               "the host to release the closed connection's slot")
    assert host.client().ready                # a slot is free again
