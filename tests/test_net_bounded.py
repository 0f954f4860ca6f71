"""Bounded under attack from the LAN (issue 46, PROTOCOL.md § 3 Limits):

- all connections' buffers together are capped (`max_buffered`), whatever the number of
  connections: past the cap the connection that holds much is dropped, a small one is not
  read until there is room again — tried from a non-loopback address in a network
  namespace (skipped, with the reason, where the machine does not allow one);
- a host reachable from the LAN holds every source address to its time share — this
  machine's included — except its own bots, and the time it spends framing and refusing
  garbage bytes is charged to the address that sent them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from loopback import Loopback, ScriptedPeer
from waits import wait_until

from p2p_burraco.net.guard import BufferPool
from p2p_burraco.net.host import HostConfig, HostNode

TESTS = Path(__file__).parent


# --------------------------------------------------------------------------- the pool
class Holder:
    def __init__(self, pool: BufferPool) -> None:
        self.pool = pool
        self.bytes = 0
        self.woken = 0

    def hold(self, n: int) -> str | None:
        self.bytes = n
        return self.pool.set(self, n)

    def buffered(self) -> int:
        return self.bytes

    def memory_freed(self) -> None:
        self.woken += 1


def test_the_pool_drops_a_big_holder_pauses_a_small_one_and_wakes_it() -> None:
    pool = BufferPool(cap=1000, small=100)
    a, b, c = Holder(pool), Holder(pool), Holder(pool)
    assert a.hold(900) is None and b.hold(90) is None           # 990: under the cap
    assert c.hold(50) == "pause"                                # small: not read for now
    pool.wait(c)
    assert a.hold(950) == "drop"                                # the big one grows: dropped
    pool.forget(a)                                              # ... and its bytes are free
    assert c.woken == 1 and pool.total == 140
    assert b.hold(10) is None and pool.total == 60              # shrinking is always fine


def test_the_pool_counts_afresh_before_it_acts() -> None:
    pool = BufferPool(cap=1000, small=100)
    a, b = Holder(pool), Holder(pool)
    assert a.hold(990) is None
    a.bytes = 0                                                 # its output drained unseen
    assert b.hold(50) is None and pool.total == 50


# --------------------------------------------------------------------------- time share
def _host(net: Loopback, tmp: Path, **cfg: Any) -> HostNode:
    base: dict[str, Any] = {"data_dir": tmp, "game": "briscola", "players": 2, "seed": 4}
    return HostNode(net.clock, HostConfig(**{**base, **cfg}))


def test_a_lan_host_holds_this_machine_to_the_share_too_but_not_its_own_bots(
        tmp_path: Path) -> None:
    net = Loopback()
    lan = _host(net, tmp_path / "lan", bind="0.0.0.0")
    peer = ScriptedPeer()
    net.connect(lan, peer)
    net.pump()
    conn = lan.by_identity[peer.public_key]
    assert conn.budget is not None                  # 127.0.0.1, but the LAN can reach it
    bot = ScriptedPeer(name="own bot")
    lan.own_bots.add(bot.public_key)
    net.connect(lan, bot)
    net.pump()
    assert lan.by_identity[bot.public_key].budget is None
    local = _host(net, tmp_path / "local", bind="127.0.0.1")
    other = ScriptedPeer()
    net.connect(local, other)
    net.pump()
    assert local.by_identity[other.public_key].budget is None   # no LAN reaches it


def test_garbage_bytes_cost_their_address_its_share(tmp_path: Path) -> None:
    net = Loopback()
    host = _host(net, tmp_path, bind="0.0.0.0", address_burst=0.5, address_share=0.1)
    peer = ScriptedPeer(auto_auth=False)
    link = net.connect(host, peer)
    conn = next(iter(host.connections))
    push = conn.decoder.push

    def slow_push(data: bytes) -> None:               # framing these bytes takes 0.3 s
        net.clock.advance(0.3)
        push(data)
    conn.decoder.push = slow_push                     # type: ignore[method-assign]
    peer.write(b"\xff\xff\xff\xff" + b"garbage")      # a length over the cap: refused
    net.pump()
    assert conn.closing
    assert conn.budget is not None and conn.budget.level == pytest.approx(0.2)
    link.close()
    net.pump()
    assert host.guard.spent("127.0.0.1") is False     # 0.2 s left of its 0.5 s burst


# --------------------------------------------------------------------------- from the LAN
def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10,
                          check=False)


def _namespace_or_skip() -> tuple[str, str, str, str]:
    """A fresh network namespace joined to this one by a veth pair: (namespace, veth here,
    our address, its address) — or a skip that says why this machine does not allow it."""
    if sys.platform != "linux":
        pytest.skip("network namespaces are a Linux feature")
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command (iproute2) to create network namespaces")
    if os.geteuid() != 0:
        pytest.skip("creating network namespaces needs root (CAP_NET_ADMIN)")
    tag = uuid.uuid4().hex[:6]
    ns, here, there = f"p2pbN{tag}", f"v{tag}h", f"v{tag}t"
    subnet = f"10.{150 + int(tag[:2], 16) % 40}.{int(tag[2:4], 16)}"
    made = _ip("netns", "add", ns)
    if made.returncode != 0:
        pytest.skip(f"this machine does not allow network namespaces: {made.stderr.strip()}")
    steps = [("link", "add", here, "type", "veth", "peer", "name", there),
             ("link", "set", there, "netns", ns),
             ("addr", "add", f"{subnet}.1/24", "dev", here), ("link", "set", here, "up"),
             ("-n", ns, "addr", "add", f"{subnet}.2/24", "dev", there),
             ("-n", ns, "link", "set", there, "up"), ("-n", ns, "link", "set", "lo", "up")]
    for step in steps:
        done = _ip(*step)
        if done.returncode != 0:
            _ip("link", "del", here)
            _ip("netns", "del", ns)
            pytest.skip(f"cannot wire a namespace (ip {' '.join(step)}): "
                        f"{done.stderr.strip()}")
    return ns, here, f"{subnet}.1", f"{subnet}.2"


ATTACKER = r'''
import sys
sys.path.insert(0, sys.argv[1])
from tcpkit import Client, header
host, port, n, size = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
held = []
for i in range(n):
    try:
        c = Client((host, port), name=f"a{i}")
        c.handshake()
        c.write(header(1_000_000) + b"\0" * size)     # a 1 MB frame that never completes
        held.append(c)
    except Exception as exc:                          # dropped by the host: go on
        pass
print("sent", len(held), flush=True)
sys.stdin.read()
'''


@pytest.mark.subprocess
@pytest.mark.network
def test_all_connections_buffers_are_capped_against_a_lan_address(tmp_path: Path) -> None:
    from tcpkit import Kit

    ns, here, addr, theirs = _namespace_or_skip()
    kit = Kit()
    attacker = None
    try:
        cap, n, size = 4 * 1024 * 1024, 64, 300_000
        node = kit.start_host(HostConfig(bind=addr, port=0, data_dir=tmp_path, game="briscola",
                                         players=2, max_per_address=256, max_buffered=cap))
        port = kit.call(lambda: node.address()[1])
        attacker = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, "-c", ATTACKER, str(TESTS), addr,
             str(port), str(n), str(size)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert attacker.stdout is not None
        line = attacker.stdout.readline()
        assert line.startswith("sent"), line + (attacker.stderr.read() if attacker.stderr
                                                 else "")

        def settled() -> tuple[bool, int, int, set[str]]:
            """Every attacker connection has all its bytes read, is closing or is not read
            for now; and what all of them hold."""
            conns = [c for c in node.connections if c.address == theirs]
            done = all(c.closing or c.decoder.pending >= size or "memory" in c._paused
                       for c in conns)
            return (done, sum(c.decoder.pending for c in conns if not c.closing), len(conns),
                    {c.address for c in node.connections})
        wait_until(lambda: kit.call(settled)[0],
                   "every attacker connection read, closing or not read for now")
        done, held, live, addresses = kit.call(settled)
        print(f"{live} connections from {theirs} hold {held} bytes (cap {cap})")
        assert theirs in addresses or live == 0
        assert held <= cap + n * 64 * 1024, (held, cap)
    finally:
        if attacker is not None:
            attacker.kill()
            attacker.wait(10)
        kit.stop()
        _ip("link", "del", here)
        _ip("netns", "del", ns)
