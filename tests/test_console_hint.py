"""Issue 47: `hint`/`suggerimento` through a real host over loopback TCP — the move the
heuristic bot would make, shown and not played, at most one a turn; `host --no-hints`
turns them off and every console says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tcpkit import Kit

from p2p_burraco.bots.controller import LazyBotController, bot_factory
from p2p_burraco.console.commands import run_command
from p2p_burraco.console.layout import lobby_lines
from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.net.host import HostConfig
from p2p_burraco.net.peer import connect_peer

pytestmark = pytest.mark.network


def seated_console(kit: Kit, tmp_path: Path, hints: bool, lang: str = "en"
                   ) -> tuple[Any, ConsoleModel, Any]:
    """A host on 127.0.0.1 (Briscola, 2 seats, a host bot at seat 1) and a console model
    at seat 0 over TCP, waiting for its first turn."""
    factory = bot_factory("random", 7)
    node = kit.start_host(HostConfig(port=0, data_dir=tmp_path / "host", game="briscola",
                                     players=2, hands=1, seed=7, hints=hints),
                          bot_controller=lambda: LazyBotController(factory))
    host, port = node.address()
    room = node.default_room
    kit.call(node.add_bot, room.id, 1)
    model = ConsoleModel("Ann", game="briscola", lang=lang)
    peer = kit.call(connect_peer, kit.reactor, host, port, "Ann", model, None,
                    tmp_path / "ann", table=room.id, seat=0)
    kit.wait_until(lambda: model.lobby_table is not None and model.lobby_table.id is not None)
    return node, model, peer


def test_hint_shows_the_heuristic_move_once_a_turn_and_plays_nothing(kit: Kit,
                                                                      tmp_path: Path) -> None:
    node, model, peer = seated_console(kit, tmp_path, hints=True)
    try:
        assert "hints on" in " ".join("".join(t for _, t in ln) for ln in
                                      kit.call(lobby_lines, model, 80))
        kit.wait_until(lambda: model.my_turn)
        played = kit.call(lambda: sum(1 for ln in model.log if ln.action is not None))
        hand = kit.call(lambda: [c for _, c in model.hand_cards()])
        assert kit.call(run_command, model, "hint")
        message = model.message or ""
        assert message.startswith("hint: play ") and "not played" in message
        assert any(model.card_label(c) in message for c in hand)      # one of our cards
        # shown, not played: still our turn, nothing new in the log, the same hand
        assert kit.call(lambda: model.my_turn)
        assert kit.call(lambda: sum(1 for ln in model.log if ln.action is not None)) == played
        assert kit.call(lambda: [c for _, c in model.hand_cards()]) == hand
        # at most one a turn: asking again says the same, computes nothing new
        assert not kit.call(run_command, model, "suggerimento")
        assert model.error == "one hint a turn — it was: " + message.split("hint: ")[1] \
            .split("  (")[0]
        # the suggested move, typed, is what the heuristic would do: the table takes it
        move = message.split("hint: ")[1].split("  (")[0]
        card = move.split(" ", 1)[1]
        index = [model.card_label(c) for c in hand].index(card) + 1
        assert kit.call(run_command, model, f"play {index}")
        kit.wait_until(lambda: model.my_turn or model.outcomes != [])
        if model.my_turn:                                     # the next turn: a new hint
            assert kit.call(run_command, model, "hint")
    finally:
        kit.call(peer.disconnect)
        kit.stop_host(node)


def test_no_hints_at_a_serious_table(kit: Kit, tmp_path: Path) -> None:
    node, model, peer = seated_console(kit, tmp_path, hints=False, lang="it")
    try:
        assert "niente suggerimenti" in " ".join(
            "".join(t for _, t in ln) for ln in kit.call(lobby_lines, model, 80))
        kit.wait_until(lambda: model.my_turn)
        assert not kit.call(run_command, model, "suggerimento")
        assert "niente suggerimenti" in (model.error or "") and model.message != "hint"
        assert kit.call(lambda: model.my_turn)                 # nothing was played
    finally:
        kit.call(peer.disconnect)
        kit.stop_host(node)
