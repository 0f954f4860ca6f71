"""The console as a session: deal progress, events from the table, `run_console_peer` (the
entry point `join` uses), `play --offline`, and `play`'s refusals of bad options."""

from __future__ import annotations

import argparse
import asyncio
import random
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from test_console_driver import KEYS, SizedOutput
from waits import until

from p2p_burraco.cli import main as cli_main
from p2p_burraco.console import run_console_peer
from p2p_burraco.console.model import ConsoleModel, hand_positions
from p2p_burraco.games import get_game
from p2p_burraco.selfplay import deal_known
from p2p_burraco.table.events import (
    ActionPlayed,
    DealProgress,
    ErrorNotice,
    LinkStatus,
    SeatsChanged,
    StandingsChanged,
    TablesListed,
)


def fresh_hand(game: str = "burraco", players: int = 4) -> Any:
    spec = get_game(game)
    match = spec.new_match(spec.presets[spec.default_variant], players, first_dealer=0)
    return match.new_hand()


def test_progress_line_while_the_deal_runs() -> None:
    """Before the keys arrive our cards are unknown: the console says how far the deal is,
    from the table's progress events or, without them, from the replica itself."""
    model = ConsoleModel("Ann")
    replica = fresh_hand()
    model.hand_started(replica, 0)
    mine = hand_positions(replica, 0)
    assert model.deal_progress() is not None and f"] 0/{len(mine)}" in model.deal_progress()
    full = replica.copy()
    deal_known(full, random.Random(1))
    for pos in mine[:5]:
        replica.learn(pos, full.card_at(pos))
    assert f"] 5/{len(mine)}" in model.deal_progress()
    model.notify(DealProgress("shuffle pass", 2, 4))
    assert model.deal_progress().startswith("shuffle pass") and "2/4" in model.deal_progress()
    model.notify(DealProgress("shuffle pass", 4, 4))
    for pos in mine[5:]:
        replica.learn(pos, full.card_at(pos))
    assert model.deal_progress() is None


def test_table_events_reach_the_screen_model() -> None:
    model = ConsoleModel("Ann")
    model.notify(SeatsChanged(("Ann", "Bob", "Cy", "Di"), you=0))
    model.notify(LinkStatus("connected to 10.0.0.2:7777 as seat 0 of t1"))
    model.notify(StandingsChanged({"sides": [[0, 2], [1, 3]], "totals": [120, 340],
                                   "target": 2005, "hands": 1, "over": False,
                                   "winner": None}))
    model.notify(ErrorNotice("table.bad_action: nope"))
    model.notify(TablesListed(()))  # not for the screen: ignored
    assert model.seat_name(1) == "Bob" and model.seat_name(0) == "Ann"
    assert model.status == "online"
    assert model.score_brief() == "A* 120 · B 340 → 2005"
    assert model.error == "table.bad_action: nope"
    model.notify(LinkStatus("connection lost, reconnecting…"))
    assert model.status == "reconnecting…"
    model.notify(LinkStatus("host unreachable, retrying… (4 s so far)"))
    assert model.status == "reconnecting…" and model.banner() is not None
    model.notify(LinkStatus("back at t1 as seat 0"))
    assert model.status == "online" and model.banner() is None


def _args(**kw: Any) -> argparse.Namespace:
    return argparse.Namespace(name="Ann", game="briscola", target=None, variant=None, **kw)


def test_run_console_peer_shows_a_failed_connection_and_quits_cleanly() -> None:
    async def failing() -> None:
        raise ConnectionRefusedError("cannot reach 127.0.0.1:1")

    seen: dict[str, Any] = {}

    async def main() -> int:
        with create_pipe_input() as inp:
            model = ConsoleModel("Ann")
            seen["model"] = model

            def connect(controller: Any) -> Any:
                seen["controller"] = controller
                return failing()

            task = asyncio.ensure_future(run_console_peer(
                _args(), connect, model=model, input=inp, output=SizedOutput()))
            await until(lambda: model.error, "the failed connection on the message line")
            seen["error"] = model.error   # `quit` clears the message line
            inp.send_text(KEYS["c-q"])
            return await asyncio.wait_for(task, 5)

    assert asyncio.run(main()) == 1     # a failed connection is a failed run (issue 15)
    assert seen["controller"] is seen["model"]
    model = seen["model"]
    assert seen["error"] and "connection failed" in seen["error"]
    assert model.status == "disconnected"
    assert any("connection failed" in ln.text and "127.0.0.1:1" in ln.text for ln in model.log)


def test_run_console_peer_disconnects_on_quit() -> None:
    class Peer:
        disconnected = False

        def disconnect(self) -> None:
            self.disconnected = True

    peer = Peer()
    connected: list[Any] = []

    def connect(controller: Any) -> Any:
        connected.append(controller)
        return peer

    async def main() -> int:
        with create_pipe_input() as inp:
            task = asyncio.ensure_future(run_console_peer(
                _args(), connect, input=inp, output=SizedOutput()))
            await until(lambda: connected, "the console to be up and connect")
            inp.send_text("quit\r")
            return await asyncio.wait_for(task, 5)

    assert asyncio.run(main()) == 0 and peer.disconnected


def test_run_console_peer_wires_abandon_to_the_peer() -> None:
    """TABLE-9: the handle `connect` returns (a PeerNode) gets the console's `abandon`:
    typed once, it only asks; typed again, the peer's `request_abandon` runs exactly once."""
    class Peer:
        def __init__(self) -> None:
            self.abandons = 0

        def request_abandon(self) -> bool:
            self.abandons += 1
            return True

        def disconnect(self) -> None:
            pass

    peer = Peer()
    model = ConsoleModel("Ann", game="briscola")
    seen: dict[str, int] = {}

    async def main() -> int:
        with create_pipe_input() as inp:
            task = asyncio.ensure_future(run_console_peer(
                _args(), lambda controller: peer, model=model, input=inp,
                output=SizedOutput()))
            await until(lambda: model.on_abandon is not None, "the console to be up")
            inp.send_text("abbandona\r")
            await until(lambda: model.confirming == "abandon", "the console to ask first")
            seen["asked"] = peer.abandons
            inp.send_text("abandon\r")
            await until(lambda: model.abandoned, "the abandonment to be signed")
            inp.send_text("quit\r")
            return await asyncio.wait_for(task, 5)

    assert asyncio.run(main()) == 0
    assert seen["asked"] == 0 and peer.abandons == 1 and model.abandoned


def test_play_offline_runs_the_console_against_local_bots() -> None:
    from p2p_burraco.commands.play import run_offline

    model = ConsoleModel("Ann", game="briscola")

    async def main() -> int:
        with create_pipe_input() as inp:
            args = argparse.Namespace(game="briscola", variant="standard", players=2,
                                      target=None, hands=1, seed=3, name="Ann",
                                      bot_kind="greedy")
            task = asyncio.ensure_future(run_offline(args, input=inp, output=SizedOutput(),
                                                     model=model))
            while not model.outcomes:
                await until(lambda: model.outcomes or model.my_turn,
                            "my turn or the end of the hand")
                if model.outcomes:
                    break
                lines = len(model.log)
                inp.send_text("\r")           # Enter plays the card under the cursor
                await until(lambda n=lines: model.outcomes or len(model.log) > n,
                            "my card on the table")
            inp.send_text("esci\r")
            return await asyncio.wait_for(task, 10)

    assert asyncio.run(main()) == 0
    assert model.outcomes and sum(model.outcomes[0].result.points) == 120
    assert model.outcomes[0].verdict.startswith("not audited")


@pytest.mark.parametrize("argv, message", [
    (["play", "--players", "7"], "7 players is not possible: choose from 2, 3, 4, 5, 6"),
    (["play", "--game", "burraco", "--players", "2", "--variant", "nope"],
     "unknown burraco variant 'nope'"),
    (["play", "--game", "briscola", "--players", "3"], "briscola standard is played by"),
    (["play", "--variant", "nope"], "unknown burraco variant 'nope'"),
])
def test_play_refuses_bad_options_clearly(argv: list[str], message: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_console_never_loads_twisted() -> None:
    """console/ knows prompt-toolkit only; the network side hands it callables."""
    import subprocess
    import sys

    code = ("import sys, p2p_burraco.console, p2p_burraco.console.app, "
            "p2p_burraco.console.localtable; "
            "bad = [m for m in sys.modules if m.split('.')[0] == 'twisted']; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-500:]


def _meld_then_attach(seeds: range) -> tuple[ConsoleModel, Any, Any]:
    """Our turn after the draw, with a meld in hand and a card to attach to that new meld."""
    from test_console_driver import local_table

    from p2p_burraco.console.commands import run_command

    for s in seeds:
        model, table = local_table("burraco", seed=s)
        table.start()
        if not model.my_turn or not run_command(model, "draw") or not model.my_turn:
            continue
        st, seat = model.state, model.seat
        for meld in (a for a in st.legal_actions(seat) if a.kind == "meld"):
            after = st.copy()
            after.apply(seat, meld)
            new = {m["id"] for m in after.player_view(seat)["melds"]} - \
                {m["id"] for m in st.player_view(seat)["melds"]}
            for att in after.legal_actions(seat):
                if att.kind == "attach" and str(att).split()[1] in {str(i) for i in new}:
                    return model, meld, att
    raise AssertionError("no seed gives a meld and an attachment to it")


def test_queued_steps_survive_a_table_that_replaces_its_hand() -> None:
    """The network seat replaces its replica's hand object at every action and hands the new
    one over with the next `your_turn` (or in the event's `state`): a step already queued for
    the table is not dropped because our older replica lacks the step that just landed."""
    model, meld, attach = _meld_then_attach(range(60))
    seat = model.seat
    table_hand = model.state.copy()           # the table's own object from now on
    model.state = table_hand.copy()           # ours: a copy the table no longer updates
    sent: list[Any] = []
    model._submit = sent.append
    assert model.stage(str(meld)) and model.stage(str(attach))
    model.send()
    assert [str(a) for a in sent] == [str(meld)] and [s.text for s in model.outbox] == [str(attach)]
    shown = model.view_state.player_view(seat)["melds"]
    table_hand = table_hand.copy()
    table_hand.apply(seat, meld)              # the table applies it to a new object
    model.notify(ActionPlayed(seat, str(meld)))
    assert model.error is None, model.error
    assert [s.text for s in model.outbox] == [str(attach)]
    assert model.view_state.player_view(seat)["melds"] == shown
    model.your_turn(table_hand, seat, sent.append)   # the new hand: the queue goes on
    assert [str(a) for a in sent] == [str(meld), str(attach)] and model.error is None
    # a table that says which hand is current in the event itself
    after = table_hand.copy()
    after.apply(seat, attach)
    model.notify(ActionPlayed(seat, str(attach), after))
    assert model.state is after and model.error is None and model.preview is None


def test_play_offline_builds_its_console_from_the_options(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`play --offline` makes the same console as `play`/`join` (model_from_args), so it
    knows `--data-dir` (history, `recent`) and `--lang` too."""
    from p2p_burraco.commands.play import run_offline
    from p2p_burraco.console import app as console_app

    made: dict[str, Any] = {}

    class App:
        async def run_async(self, pre_run: Any = None) -> int:
            return 0

    def create_application(model: Any, **_: Any) -> App:
        made["model"] = model
        return App()

    monkeypatch.setattr(console_app, "create_application", create_application)
    args = argparse.Namespace(game="briscola", variant="standard", players=2, target=None,
                              hands=1, seed=3, name="Ann", bot_kind="greedy",
                              data_dir="/tmp/somewhere", lang="en")
    assert asyncio.run(run_offline(args)) == 0
    model = made["model"]
    assert model.data_dir == "/tmp/somewhere" and model.name == "Ann"
