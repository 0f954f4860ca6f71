"""Issue 47, TABLE-16: `rematch`/`rivincita` after a match — the same people, a new match
on the same host, once every person has asked. Through a real host over loopback TCP: two
people play a Briscola smazzata by their consoles, both ask, and a new match is dealt to
the same seats; a stranger cannot take a kept seat, and nobody is seated before asking."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tcpkit import Client, Kit

from p2p_burraco.console import PeerLink
from p2p_burraco.console.commands import run_command
from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.net.host import HostConfig
from p2p_burraco.net.peer import connect_peer

pytestmark = pytest.mark.network


def person(kit: Kit, node: Any, tmp_path: Path, name: str, seat: int
           ) -> tuple[ConsoleModel, PeerLink]:
    """A console at `seat`, linked the way `join` links it (PeerLink, TCP)."""
    host, port = node.address()
    key = Ed25519PrivateKey.generate()
    model = ConsoleModel(name, game="briscola")

    def connect(controller: Any, **extra: Any) -> Any:
        options = {"table": "t1", "seat": seat, **extra}
        return connect_peer(kit.reactor, host, port, name, controller, key,
                            tmp_path / name, **options)

    link = PeerLink(model, connect)
    kit.call(link.start)
    return model, link


def play_out(kit: Kit, models: list[ConsoleModel]) -> None:
    """Both consoles play their first card each turn until the match is over."""
    deadline = time.monotonic() + 60
    while not all(kit.call(lambda m=m: m.match_over) for m in models):
        assert time.monotonic() < deadline
        for m in models:
            if kit.call(lambda m=m: m.my_turn):
                assert kit.call(run_command, m, "play 1"), m.error
        time.sleep(0.005)


def test_table_16_a_rematch_when_every_person_asks(kit: Kit, tmp_path: Path) -> None:
    node = kit.start_host(HostConfig(port=0, data_dir=tmp_path / "host", game="briscola",
                                     players=2, hands=1, seed=4))
    try:
        ann, ann_link = person(kit, node, tmp_path, "Ann", 0)
        bob, bob_link = person(kit, node, tmp_path, "Bob", 1)
        play_out(kit, [ann, bob])
        first = [list(o.result.points) for o in ann.outcomes]
        assert first and "rematch" in (ann.message or "")
        assert kit.call(run_command, ann, "rematch")
        kit.wait_until(lambda: ann.lobby_table is not None and ann.lobby_table.id not in (None, "t1"))
        new_table = ann.lobby_table.id
        # a stranger may not take Bob's kept seat, nor sit by asking for the rematch
        cy = Client(node.address(), name="Cy")
        cy.handshake()
        cy.send("join_table", {"table": new_table, "seat": 1})
        assert "kept for a rematch" in cy.error_code("lobby.seat_taken")["message"]
        cy.send("rematch", {"table": "t1"})
        assert cy.error_code("lobby.not_seated")["message"] == "you did not play at 't1'"
        cy.close()
        assert kit.call(lambda: ann.state is None and not ann.match_over)  # waiting for Bob
        room = kit.call(lambda: node.lobby.tables[new_table])
        assert kit.call(lambda: room.status) == "waiting"
        assert kit.call(run_command, bob, "rivincita")   # everyone has asked: it is on
        kit.wait_until(lambda: ann.my_turn or bob.my_turn)
        assert kit.call(lambda: room.status) == "playing"
        assert (ann.seat, bob.seat) == (0, 1) and bob.lobby_table.id == new_table
        assert ann.outcomes == [] and ann.hand_no == 1          # a new match, afresh
        assert any("rematch asked" in ln.text for ln in ann.log)
        play_out(kit, [ann, bob])
        assert ann.outcomes and bob.outcomes
    finally:
        kit.call(ann_link.close)
        kit.call(bob_link.close)
        kit.stop_host(node)


def test_rematch_is_refused_before_the_match_is_over() -> None:
    model = ConsoleModel("Ann", game="briscola")
    assert not run_command(model, "rematch")
    assert "not over" in (model.error or "")


def test_table_16_the_hosts_bots_sit_down_again_at_once(kit: Kit, tmp_path: Path) -> None:
    """`play`'s table: one person and a host bot. The person's rematch is the only one
    needed: the bot sits again at its seat and the new match is dealt."""
    from p2p_burraco.bots.controller import LazyBotController, bot_factory

    factory = bot_factory("random", 3)
    node = kit.start_host(HostConfig(port=0, data_dir=tmp_path / "host", game="briscola",
                                     players=2, hands=1, seed=5),
                          bot_controller=lambda: LazyBotController(factory))
    try:
        kit.call(node.add_bot, "t1", 1)
        ann, link = person(kit, node, tmp_path, "Ann", 0)
        play_out(kit, [ann])
        assert kit.call(run_command, ann, "rivincita")
        kit.wait_until(lambda: ann.my_turn or ann.hand_no == 1)
        new_table = ann.lobby_table.id
        assert new_table != "t1"
        room = kit.call(lambda: node.lobby.tables[new_table])
        assert kit.call(lambda: room.status) == "playing"
        assert kit.call(lambda: room.slots[1].bot)           # the same host bot, seated again
        play_out(kit, [ann])
        assert ann.outcomes
    finally:
        kit.call(link.close)
        kit.stop_host(node)
