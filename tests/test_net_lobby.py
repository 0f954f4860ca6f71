"""The lobby: list, create, join a table and a seat, leave; each refusal with its code and
the lobby unchanged. Reactor-free (in-memory links)."""

from __future__ import annotations

from pathlib import Path

import pytest
from loopback import Loopback, ScriptedPeer

from p2p_burraco.net.host import HostConfig, HostNode


@pytest.fixture
def net() -> Loopback:
    return Loopback()


@pytest.fixture
def host(net: Loopback, tmp_path: Path) -> HostNode:
    cfg = HostConfig(data_dir=tmp_path, game="briscola", players=4, hands=1, seed=2)
    return HostNode(net.clock, cfg)


def peer(net: Loopback, host: HostNode, name: str = "p") -> ScriptedPeer:
    p = ScriptedPeer(name=name)
    net.connect(host, p)
    net.pump()
    return p


def ask(net: Loopback, p: ScriptedPeer, mtype: str, body: dict[str, object]) -> None:
    p.send(mtype, body)
    net.pump()


def test_list_shows_the_default_table_with_sides(net: Loopback, host: HostNode) -> None:
    p = peer(net, host)
    ask(net, p, "list_tables", {})
    (table,) = p.of_type("tables")[-1].body["tables"]
    assert table["id"] == "t1" and table["game"] == "briscola" and table["players"] == 4
    assert table["sides"] == [[0, 2], [1, 3]] and table["status"] == "waiting"
    assert [s["name"] for s in table["seats"]] == [None] * 4


def test_join_first_free_then_a_chosen_seat(net: Loopback, host: HostNode) -> None:
    a, b = peer(net, host, "Anna"), peer(net, host, "Bruno")
    ask(net, a, "join_table", {"table": None, "seat": None})
    ask(net, b, "join_table", {"table": "t1", "seat": 2})
    assert a.of_type("seated")[-1].body["seat"] == 0
    assert b.of_type("seated")[-1].body["seat"] == 2
    update = a.of_type("table_update")[-1].body["info"]
    assert [s["name"] for s in update["seats"]] == ["Anna", None, "Bruno", None]
    assert update["seats"][2]["identity"] == b.public_key


@pytest.mark.parametrize("body, code", [
    ({"table": "t9", "seat": None}, "lobby.no_table"),
    ({"table": "t1", "seat": 7}, "lobby.bad_seat"),
    ({"table": "t1", "seat": 0}, "lobby.seat_taken"),
])
def test_join_refusals_leave_the_lobby_unchanged(net: Loopback, host: HostNode,
                                                 body: dict[str, object], code: str) -> None:
    a, b = peer(net, host, "Anna"), peer(net, host, "Bruno")
    ask(net, a, "join_table", {"table": "t1", "seat": 0})
    before = host.lobby.infos()
    ask(net, b, "join_table", body)
    err = b.errors[-1]
    assert err["code"] == code and not err["fatal"] and err["ref"] == b.send_seq.last
    assert host.lobby.infos() == before
    ask(net, b, "join_table", {"table": "t1", "seat": 1})   # still served
    assert b.of_type("seated")[-1].body["seat"] == 1


def test_one_seat_per_identity(net: Loopback, host: HostNode) -> None:
    a = peer(net, host)
    ask(net, a, "join_table", {"table": None, "seat": None})
    ask(net, a, "join_table", {"table": "t1", "seat": 3})
    assert a.errors[-1]["code"] == "lobby.already_seated"


def test_create_table_and_bad_configs(net: Loopback, host: HostNode) -> None:
    a = peer(net, host)
    ask(net, a, "create_table", {"game": "briscola", "variant": None, "players": 2,
                                 "target": None, "hands": 3})
    assert a.of_type("table_created")[-1].body == {"table": "t2"}
    for body in ({"game": "chess", "variant": None, "players": 2},
                 {"game": "briscola", "variant": "nope", "players": 2},
                 {"game": "briscola", "variant": None, "players": 3}):
        ask(net, a, "create_table", {"target": None, "hands": None, **body})
        assert a.errors[-1]["code"] == "lobby.bad_config", body
    assert sorted(host.lobby.tables) == ["t1", "t2"]
    ask(net, a, "join_table", {"table": "t2", "seat": 1})
    assert a.of_type("seated")[-1].body["table"] == "t2"


def test_leave_frees_the_seat(net: Loopback, host: HostNode) -> None:
    a = peer(net, host)
    ask(net, a, "leave_table", {})
    assert a.errors[-1]["code"] == "lobby.not_seated"
    ask(net, a, "join_table", {"table": None, "seat": 3})
    ask(net, a, "leave_table", {})
    assert a.of_type("left")[-1].body == {"table": "t1"}
    assert host.lobby.tables["t1"].free_seats() == [0, 1, 2, 3]


def test_a_dropped_waiting_player_frees_the_seat(net: Loopback, host: HostNode) -> None:
    a = peer(net, host)
    ask(net, a, "join_table", {"table": None, "seat": 1})
    net.links[-1].close()
    assert host.lobby.tables["t1"].free_seats() == [0, 1, 2, 3]


def test_table_messages_need_a_seat(net: Loopback, host: HostNode) -> None:
    a = peer(net, host)
    ask(net, a, "resync", {"hand_id": None})
    assert a.errors[-1]["code"] == "lobby.not_seated"
