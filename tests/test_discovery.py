"""LAN discovery (DISC-1..3): the advertisement's contents, malformed and foreign ones
ignored with a log line, the advertised key fingerprint checked in the handshake, and — on a
real multicast link between two network namespaces — `host --bind <veth address>` found
and joined by `join` with no address."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, ClassVar

import pytest

from p2p_burraco.commands.tables import choose
from p2p_burraco.net.discovery import (
    AdError,
    _resolve,
    ad_properties,
    advertised_table,
    fingerprint_matches,
    key_fingerprint,
    parse_ad,
)

KEY = bytes(range(32))


def _info(names: list[str | None], game: str = "burraco", variant: str = "fibur",
          status: str = "waiting") -> dict[str, Any]:
    return {"id": "t1", "game": game, "variant": variant, "players": len(names),
            "status": status,
            "seats": [{"seat": i, "name": n, "identity": None if n is None else b"k" * 32}
                      for i, n in enumerate(names)]}


def _good() -> dict[str, str]:
    return ad_properties(_info(["Ann", None, "Bob", None]), KEY)


def test_disc_1_the_txt_record_says_game_rules_seats_protocol_and_key() -> None:
    """DISC-1: game, rule set, seats free, who sits, protocol versions, key fingerprint."""
    props = _good()
    assert props == {"v": "1", "proto": "1-1", "game": "burraco", "variant": "fibur",
                     "players": "4", "free": "2", "seated": "Ann,Bob", "table": "t1",
                     "fp": key_fingerprint(KEY)}
    assert all(len(k) + len(v.encode()) < 255 for k, v in props.items())
    ad = parse_ad("p2p-burraco vm 7777 ab", ["10.0.0.5"], 7777, props, "vm.local.")
    assert (ad.host, ad.target, ad.game, ad.variant, ad.players, ad.free, ad.seated,
            ad.table) == ("vm", "10.0.0.5:7777", "burraco", "fibur", 4, 2, ("Ann", "Bob"),
                          "t1")
    assert "2 of 4 seats free (seated: Ann, Bob)" in ad.line()
    assert fingerprint_matches(KEY, ad.fingerprint)
    assert not fingerprint_matches(bytes(32), ad.fingerprint)


def test_disc_1_a_long_list_of_names_is_cut_to_fit_a_txt_string() -> None:
    props = ad_properties(_info(["x" * 32] * 8), KEY)
    assert len(props["seated"].encode()) <= 255 and props["seated"].endswith("…")


@pytest.mark.parametrize("change, why", [
    ({"v": "2"}, "TXT layout version"),
    ({"proto": "7-9"}, "speaks protocol 7..9"),
    ({"proto": "one"}, "is not LOW-HIGH"),
    ({"game": ""}, "lacks game"),
    ({"fp": None}, "lacks fp"),
    ({"game": "burraco;rm"}, "not a plain name"),
    ({"players": "four"}, "not numbers"),
    ({"free": "9"}, "is no table"),
    ({"fp": "xyz"}, "not a key fingerprint"),
    ({"seated": b"\xff\xfe"}, "not UTF-8"),
])
def test_disc_2_a_malformed_or_foreign_advertisement_is_refused(change: dict[str, Any],
                                                                 why: str) -> None:
    """DISC-2: each way an advertisement can be unusable is named."""
    props: dict[Any, Any] = {**_good(), **change}
    props = {k: v for k, v in props.items() if v is not None}
    with pytest.raises(AdError, match=why):
        parse_ad("x", ["10.0.0.5"], 7777, props)


@pytest.mark.parametrize("addresses, port, why", [
    ([], 7777, "no IPv4 address"), (["fe80::1", "0.0.0.0"], 7777, "no IPv4 address"),
    (["10.0.0.5"], 0, "no TCP port"),
])
def test_disc_2_an_advertisement_without_a_usable_address_is_refused(
        addresses: list[str], port: int, why: str) -> None:
    with pytest.raises(AdError, match=why):
        parse_ad("x", addresses, port, _good())


class _Info:
    """What zeroconf's ServiceInfo gives after a request (a stand-in for the resolver)."""

    port = 7777
    address = "10.0.0.5"
    properties: ClassVar[dict[bytes, bytes]] = {b"v": b"1", b"proto": b"1-1",
                                                b"game": b"burraco"}

    def __init__(self, type_: str, name: str) -> None:
        self.name, self.server = name, "vm.local."

    def request(self, zc: Any, timeout: int) -> bool:
        return True

    def parsed_addresses(self) -> list[str]:
        return [self.address]


def test_disc_2_a_malformed_advertisement_is_ignored_with_a_log_line(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """DISC-2: the browser drops it and says which and why."""
    import zeroconf

    monkeypatch.setattr(zeroconf, "ServiceInfo", _Info)
    with caplog.at_level(logging.WARNING, "p2p_burraco.net.discovery"):
        assert _resolve(None, "bad._p2p-burraco._tcp.local.", 0.1) is None
    assert "ignored the advertisement bad._p2p-burraco._tcp.local.: its TXT record lacks " \
           "variant, players, free, table, fp [DISC-2]" in caplog.text


def test_disc_2_a_stale_advertisement_is_ignored_with_a_log_line(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """DISC-2: an advertisement nothing listens behind (a host gone without its goodbye) is
    dropped, and said; one with a host listening behind it is kept."""
    import socket

    import zeroconf

    live = socket.socket()
    live.bind(("127.0.0.1", 0))
    live.listen()
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    dead_port = dead.getsockname()[1]
    dead.close()
    good = {k.encode(): v.encode() for k, v in _good().items()}
    with live:
        for port, kept in ((live.getsockname()[1], True), (dead_port, False)):
            info = type("Info", (_Info,), {"port": port, "address": "127.0.0.1",
                                          "properties": good})
            monkeypatch.setattr(zeroconf, "ServiceInfo", info)
            with caplog.at_level(logging.WARNING, "p2p_burraco.net.discovery"):
                ad = _resolve(None, "old._p2p-burraco._tcp.local.", 0.1)
            assert (ad is not None) is kept
    assert f"stale, nothing listens at 127.0.0.1:{dead_port}" in caplog.text


def test_disc_1_the_host_advertises_its_waiting_table(tmp_path: Path) -> None:
    """DISC-1: the advertisement follows the lobby (seats taken as the loopback peers sit)."""
    from loopback import Loopback, start_table

    from p2p_burraco.net.host import HostConfig

    net = Loopback()
    host, _ = start_table(net, HostConfig(data_dir=tmp_path, game="briscola", players=2,
                                          hands=1, seed=1), [])
    props = ad_properties(advertised_table(host) or {}, host.public_key)
    assert (props["game"], props["free"], props["seated"]) == ("briscola", "2", "")
    assert fingerprint_matches(host.public_key, props["fp"])


def test_disc_3_a_host_whose_key_is_not_the_advertised_one_is_refused(tmp_path: Path) -> None:
    """DISC-3: the peer checks the handshake's host key against the advertised fingerprint
    and stops, naming both, before it sits down."""
    import random

    from loopback import Loopback, LoopbackConnector

    from p2p_burraco.bots import make_strategy
    from p2p_burraco.net.host import HostConfig, HostNode
    from p2p_burraco.net.peer import PeerConfig, PeerNode
    from p2p_burraco.table.inprocess import BotController

    net = Loopback()
    host = HostNode(net.clock, HostConfig(data_dir=tmp_path, game="briscola", players=2))
    errors: list[Any] = []
    for fp, seated in ((key_fingerprint(bytes(32)), False),
                       (key_fingerprint(host.public_key), True)):
        ctl = BotController(make_strategy("briscola", "random", random.Random(0)))
        peer = PeerNode(net.clock, PeerConfig(name=f"p{int(seated)}", reconnect=False,
                                              host_fingerprint=fp),
                        ctl, connector=LoopbackConnector(net, host))
        peer.done.addErrback(errors.append)
        peer.start()
        net.pump()
        assert (peer.seat is not None) is seated
    (failure,) = errors
    assert "not the" in str(failure.value) and "[DISC-3]" in str(failure.value)
    assert key_fingerprint(host.public_key)[:16] in str(failure.value)


# --------------------------------------------------------------------------- two namespaces

def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10,
                          check=False)


def _namespaces_or_skip() -> tuple[str, str, str, str]:
    """Two fresh network namespaces joined by a veth pair (10.216.x.1/.2), or a skip that
    says why this machine does not allow it."""
    if sys.platform != "linux":
        pytest.skip("network namespaces are a Linux feature")
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command (iproute2) to create network namespaces")
    if os.geteuid() != 0:
        pytest.skip("creating network namespaces needs root (CAP_NET_ADMIN)")
    tag = uuid.uuid4().hex[:6]
    a, b = f"p2pbA{tag}", f"p2pbB{tag}"
    subnet = f"10.{200 + int(tag[:2], 16) % 50}.{int(tag[2:4], 16)}"
    made = _ip("netns", "add", a)
    if made.returncode != 0:
        pytest.skip(f"this machine does not allow network namespaces: {made.stderr.strip()}")
    steps = [("netns", "add", b),
             ("link", "add", f"v{tag}a", "type", "veth", "peer", "name", f"v{tag}b"),
             ("link", "set", f"v{tag}a", "netns", a), ("link", "set", f"v{tag}b", "netns", b),
             ("-n", a, "addr", "add", f"{subnet}.1/24", "dev", f"v{tag}a"),
             ("-n", b, "addr", "add", f"{subnet}.2/24", "dev", f"v{tag}b"),
             ("-n", a, "link", "set", f"v{tag}a", "up"),
             ("-n", b, "link", "set", f"v{tag}b", "up"),
             ("-n", a, "link", "set", "lo", "up"), ("-n", b, "link", "set", "lo", "up"),
             ("netns", "exec", b, "true")]
    for step in steps:
        done = _ip(*step)
        if done.returncode != 0:
            _ip("netns", "del", a)
            _ip("netns", "del", b)
            pytest.skip(f"cannot wire two namespaces (ip {' '.join(step)}): "
                        f"{done.stderr.strip()}")
    return a, b, f"{subnet}.1", f"{subnet}.2"


@pytest.mark.subprocess
@pytest.mark.network
def test_disc_1_join_with_no_address_finds_the_host_in_another_namespace(
        tmp_path: Path) -> None:
    """DISC-1, DISC-3 (the done-when): `host --bind <veth address>` in one namespace,
    `join --bot` with no address in the other finds the table by mDNS, checks the key
    fingerprint, sits down and plays the match to its end."""
    a, b, addr_a, _ = _namespaces_or_skip()
    exe = [sys.executable, "-m", "p2p_burraco.cli"]
    host = None
    try:
        host = subprocess.Popen(
            ["ip", "netns", "exec", a, *exe, "host", "--bind", addr_a, "--port", "0",
             "--game", "briscola", "--players", "2", "--bots", "1", "--hands", "1",
             "--data-dir", str(tmp_path / "host")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert host.stdout is not None
        seen = []
        for line in host.stdout:             # wait for the announcement to start
            seen.append(line)
            if "announced on the LAN" in line:
                break
        else:
            pytest.fail("the host never announced: " + "".join(seen))
        join = subprocess.run(
            ["ip", "netns", "exec", b, *exe, "join", "--bot", "--browse-for", "8",
             "--data-dir", str(tmp_path / "peer")],
            capture_output=True, text=True, timeout=60, check=False)
        assert join.returncode == 0, join.stdout + join.stderr
        found, over = join.stdout.splitlines()[:2]
        assert f"{addr_a}:" in found and "table t1: briscola standard" in found
        assert "match over" in over
        out, _ = host.communicate(timeout=30)
        assert host.returncode == 0, "".join(seen) + out
        assert "match over" in out
    finally:
        if host is not None and host.poll() is None:
            host.kill()
            host.wait()
        _ip("netns", "del", a)
        _ip("netns", "del", b)


def _ads() -> list[Any]:
    full = parse_ad("a", ["10.0.0.5"], 7777, ad_properties(_info(["Ann", "Bob"]), KEY))
    free = parse_ad("b", ["10.0.0.6"], 7778, ad_properties(_info(["Cy", None]), KEY))
    return [full, free]


@pytest.mark.parametrize("answers, picked, said", [
    ([""], 1, []),
    (["2"], 1, []),
    (["1", "9", "x", "2"], 1, ["table 1 has no free seat", "'9' is not a number from 1 to 2",
                               "'x' is not a number"]),
])
def test_disc_1_a_person_picks_a_table_by_number(answers: list[str], picked: int,
                                                  said: list[str]) -> None:
    """DISC-1: `join` with no address lists the tables found and asks which (Enter: the
    first with a free seat); a full table or a bad answer is said, and asked again."""
    ads = _ads()
    out: list[str] = []
    feed = iter(answers)
    ad = choose(ads, lambda prompt: next(feed), out.append)
    assert ad is ads[picked]
    assert out[:2] == [f"1. {ads[0].line()}", f"2. {ads[1].line()}"]
    for text in said:
        assert any(text in line for line in out[2:]), (text, out)


def test_disc_1_no_table_or_no_answer_is_a_clear_error() -> None:
    def eof(prompt: str) -> str:
        raise EOFError
    with pytest.raises(ValueError, match="no table found on the LAN"):
        choose([], eof)
    with pytest.raises(ValueError, match="no table chosen"):
        choose(_ads(), eof, lambda s: None)


def test_disc_1_tables_prints_the_list_for_scripts(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """DISC-1: `p2p-burraco tables` — one line per table, or one JSON object with --json;
    nothing found is exit 1 with the reason; a silly browse time is refused."""
    import json

    from p2p_burraco.cli import main as cli_main
    from p2p_burraco.net import discovery

    found: list[Any] = _ads()
    monkeypatch.setattr(discovery, "browse", lambda seconds, bind=None, until=None: found)
    assert cli_main(["tables", "--browse-for", "0.1"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"1. {found[0].line()}",
                                                    f"2. {found[1].line()}"]
    assert cli_main(["tables", "--json"]) == 0
    rows = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    assert [(r["address"], r["free"], r["seated"]) for r in rows] == \
        [("10.0.0.5", 0, ["Ann", "Bob"]), ("10.0.0.6", 1, ["Cy"])]
    found.clear()
    assert cli_main(["tables"]) == 1
    assert "no table advertised on the LAN" in capsys.readouterr().err
    assert cli_main(["tables", "--browse-for", "0"]) == 2
    assert "--browse-for must be between 0 and 60" in capsys.readouterr().err


class _FakeReactor:
    """Records what announce_host asks of the reactor (nothing runs by itself)."""

    def __init__(self) -> None:
        self.threads: list[tuple[Any, tuple[Any, ...]]] = []
        self.later: list[Any] = []
        self.triggers: list[tuple[str, str, Any]] = []

    def callInThread(self, fn: Any, *args: Any) -> None:
        self.threads.append((fn, args))

    def callLater(self, delay: float, fn: Any) -> None:
        self.later.append(fn)

    def addSystemEventTrigger(self, phase: str, event: str, fn: Any) -> None:
        self.triggers.append((phase, event, fn))


def test_disc_1_the_advertisement_follows_the_lobby_and_is_withdrawn_at_shutdown(
        tmp_path: Path) -> None:
    """DISC-1: registered off the reactor thread; when a seat is taken the TXT record is
    updated (free 2 → 1, the name listed); withdrawn before the reactor shuts down."""
    import random

    from loopback import Loopback, LoopbackConnector, start_table

    from p2p_burraco.bots import make_strategy
    from p2p_burraco.net.discovery import announce_host
    from p2p_burraco.net.host import HostConfig
    from p2p_burraco.net.peer import PeerConfig, PeerNode
    from p2p_burraco.table.inprocess import BotController

    net = Loopback()
    host, _ = start_table(net, HostConfig(data_dir=tmp_path, game="briscola", players=2), [])
    host.address = lambda: ("10.1.2.3", 7777)      # as if bound to a LAN address
    reactor = _FakeReactor()
    ann = announce_host(reactor, host, ["10.1.2.3"])
    assert reactor.threads == [(ann.start, ())]
    assert ann.properties["free"] == "2" and ("before", "shutdown", ann.close) in reactor.triggers
    reactor.later.pop()()                               # a tick: nothing changed
    assert len(reactor.threads) == 1
    peer = PeerNode(net.clock, PeerConfig(name="Ann"), BotController(
        make_strategy("briscola", "random", random.Random(0))),
        connector=LoopbackConnector(net, host))
    peer.start()
    net.pump()
    reactor.later.pop()()
    fn, (props,) = reactor.threads[-1]
    assert fn == ann.update and (props["free"], props["seated"]) == ("1", "Ann")
    assert ann.update(props) is True and ann.update(props) is False     # not yet registered
    ann.close()
    assert ann.closed and ann.start() is False


def test_disc_1_a_host_with_no_table_is_not_announced_until_it_has_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DISC-1/2: while the host has no table to describe nothing is announced (a stand-in
    advertisement is one every browser rejects); when a table appears it is registered with
    a TXT record `parse_ad` accepts, and withdrawn again if no table is left — whatever order
    the reactor's pool threads run start and withdraw in, the last wish wins."""
    from loopback import Loopback, start_table

    from p2p_burraco.net import discovery
    from p2p_burraco.net.discovery import announce_host, parse_ad
    from p2p_burraco.net.host import HostConfig

    class FakeZeroconf:
        registered: ClassVar[list[Any]] = []

        def register_service(self, info: Any, allow_name_change: bool = False) -> None:
            self.registered.append(info)

        def unregister_service(self, info: Any) -> None:
            self.registered.remove(info)

        def close(self) -> None:
            pass

    monkeypatch.setattr(discovery, "_zeroconf", lambda bind: FakeZeroconf())
    net = Loopback()
    host, _ = start_table(net, HostConfig(data_dir=tmp_path, game="briscola", players=2), [])
    host.address = lambda: ("10.1.2.3", 7777)
    table = advertised_table(host)
    offered: list[dict[str, Any] | None] = [None]
    monkeypatch.setattr(discovery, "advertised_table", lambda node: offered[0])
    reactor = _FakeReactor()
    ann = announce_host(reactor, host, ["10.1.2.3"])
    assert reactor.threads == [] and not ann.listed          # nothing to say: no announcing
    reactor.later.pop()()
    assert reactor.threads == []
    offered[0] = table                                        # a table appears: announced
    reactor.later.pop()()
    fn, (props,) = reactor.threads.pop()
    assert fn == ann.start and ann.listed
    assert fn(props) is True and len(FakeZeroconf.registered) == 1
    ad = parse_ad(ann.instance or "", ["10.1.2.3"], 7777, FakeZeroconf.registered[0].properties)
    assert (ad.game, ad.players, ad.free) == ("briscola", 2, 2)
    assert fingerprint_matches(host.public_key, props["fp"])
    offered[0] = None                                         # none left: withdrawn
    reactor.later.pop()()
    fn, args = reactor.threads.pop()
    assert fn == ann.withdraw and args == () and not ann.listed
    assert fn() is True and FakeZeroconf.registered == []
    offered[0] = table                                        # back, then gone at once:
    reactor.later.pop()()                                     # start, then withdraw, queued
    offered[0] = None
    reactor.later.pop()()
    (withdraw, _), (start, start_args) = reactor.threads[-1], reactor.threads[-2]
    assert withdraw() is False and start(*start_args) is False   # run in either order,
    assert FakeZeroconf.registered == []                         # the host stays withdrawn
    ann.close()
