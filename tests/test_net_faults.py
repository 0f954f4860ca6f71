"""Bad input and faults on a running table, with no reactor: every malformed, oversized or
truncated frame, unknown message, wrong field type, message out of turn or out of phase,
illegal action, bad signature and replayed sequence number gets a stable code (an `error`
frame, or the host's signed `refusal` for a table message); the table's public state is
unchanged; the host keeps serving every other peer and the hand still finishes fair. A
dropped peer is waited for; one that does not return mid-hand has abandoned (TABLE-6,
TABLE-9); one away between hands past its grace is replaced by a host bot."""

from __future__ import annotations

import json
import random
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from loopback import HoldingController, Loopback, start_table

from p2p_burraco import wire
from p2p_burraco.bots import make_strategy
from p2p_burraco.cli import main as cli_main
from p2p_burraco.fairdeal import signing
from p2p_burraco.net.host import HostConfig, HostNode
from p2p_burraco.net.peer import PeerNode
from p2p_burraco.table.events import ActionPlayed, SeatEvent
from p2p_burraco.table.inprocess import BotController


def bot(game: str, seed: int) -> BotController:
    return BotController(make_strategy(game, "random", random.Random(seed)))


class Table:
    """A 2-seat table stopped at the first turn of the first hand (the mover is parked)."""

    def __init__(self, tmp: Path, game: str = "burraco", **cfg: Any) -> None:
        self.net = Loopback()
        self.ctls = [HoldingController(bot(game, i)) for i in range(2)]
        for c in self.ctls:
            c.hold = True
        config = HostConfig(data_dir=tmp, game=game, players=2, hands=1, seed=11, **cfg)
        self.host, self.peers = start_table(self.net, config, self.ctls)
        self.room = self.host.lobby.tables["t1"]
        (self.mover_seat,) = [i for i, c in enumerate(self.ctls) if c.parked is not None]
        self.mover = self.peers[self.mover_seat]
        self.other = self.peers[1 - self.mover_seat]

    def snapshot(self) -> Any:
        """The public state (a logged refusal adds an entry to the log but changes nothing
        else: the log length is left out)."""
        d = self.room.driver
        hand = d.replica.hand
        return (d.stage, json.dumps(wire.to_json_value(hand.public_view()), sort_keys=True),
                hand.to_move)

    def raw(self, peer: PeerNode, value: Any, seq: int | None = None) -> None:
        """Write a frame from `peer`'s connection, unvalidated."""
        conn = peer.conn
        assert conn is not None and conn.transport is not None
        if isinstance(value, dict) and "seq" not in value:
            value = {**value, "seq": conn.send_seq.next() if seq is None else seq}
        conn.transport.write(wire.frame_bytes(msgpack.packb(value, use_bin_type=True)))

    def signed(self, peer: PeerNode, wire_action: dict[str, Any]) -> dict[str, Any]:
        """An action signed with the seat's key at its next seq, bypassing its own judge
        (an honest SeatClient would refuse to sign a bad one)."""
        client = peer.seat_client
        dealer = client._dealer
        action = client.hand.action_from_wire(wire_action)
        hidden = [(p, c) for p, c in action.shown() if p not in dealer.deal.public_cards]
        return signing.sign(client._identity, dealer.unsigned(
            "action", action=action.to_wire(), **dealer.proofs(hidden)))

    def unjudged(self, peer: PeerNode, mtype: str, **fields: Any) -> dict[str, Any]:
        dealer = peer.seat_client._dealer
        return signing.sign(peer.seat_client._identity, dealer.unsigned(mtype, **fields))

    def table_frame(self, peer: PeerNode, msg: dict[str, Any]) -> None:
        body = {k: v for k, v in msg.items() if k != "type"}
        self.raw(peer, {"type": msg["type"], "body": body})

    def finish(self) -> None:
        for c in self.ctls:
            c.hold = False
        for c in self.ctls:
            if c.parked is not None:
                c.release()
        self.net.pump()
        for _ in range(200):
            if all(p.done.called for p in self.peers):
                break
            self.net.advance(1.0)
        assert all(p.done.called for p in self.peers), "the match did not finish"


def _illegal_discard(t: Table) -> dict[str, Any]:
    """A discard of one of the mover's own cards while the rules want it to draw first."""
    client = t.mover.seat_client
    hand = client.hand
    pos, _ = hand.player_view(t.mover_seat)["hand"][0]
    return t.signed(t.mover, {"kind": "discard", "card": [pos, hand.card_at(pos)]})


def _replayed_commit(t: Table) -> dict[str, Any]:
    """The mover's commitment again, at its old seq but with other content, validly signed
    (an exact copy of an accepted entry is a no-op: see test_table_resend.py)."""
    old = next(e for e in t.room.driver.log
               if e["type"] == "commit" and e["seat"] == t.mover_seat)
    return signing.sign(t.mover.seat_client._identity, {**old, "commitment": bytes(32)})


CASES: dict[str, tuple[Callable[[Table], None], str, str]] = {
    # name: (inject, who is refused ("mover"|"other"), expected code)
    "malformed msgpack": (lambda t: t.mover.conn.transport.write(
        wire.frame_bytes(b"\xc1")), "mover", "frame.malformed"),
    "truncated msgpack": (lambda t: t.mover.conn.transport.write(
        wire.frame_bytes(wire.pack({"type": "ping", "seq": 99, "body": {"n": 1}})[:-1])),
        "mover", "frame.truncated"),
    "unknown message": (lambda t: t.raw(t.mover, {"type": "teleport", "body": {}}),
                        "mover", "msg.unknown_type"),
    "wrong field type": (lambda t: t.table_frame(t.mover, {
        **t.signed(t.mover, {"kind": "draw"}), "positions": "none"}), "mover", "msg.field_type"),
    "float in a field": (lambda t: t.raw(t.mover, {"type": "ping", "body": {"n": 0.5}}),
                         "mover", "frame.float"),
    "out of turn": (lambda t: t.table_frame(t.other, t.signed(t.other, {"kind": "draw"})),
                    "other", "table.not_your_turn"),
    "out of phase": (lambda t: t.table_frame(t.mover, t.unjudged(
        t.mover, "reveal", seed=bytes(32))), "mover", "table.wrong_phase"),
    "illegal action": (lambda t: t.table_frame(t.mover, _illegal_discard(t)),
                       "mover", "table.illegal_action"),
    "bad signature": (lambda t: t.table_frame(t.mover, {
        **t.signed(t.mover, {"kind": "draw"}), "sig": b"\x01" * 64}),
        "mover", "table.bad_signature"),
    "replayed frame seq": (lambda t: t.raw(t.mover, {"type": "ping", "body": {"n": 1}},
                                           seq=t.mover.conn.send_seq.last),
                           "mover", "seq.replay"),
    "replayed signed message": (lambda t: t.table_frame(t.mover, _replayed_commit(t)),
                                "mover", "table.replayed_seq"),
    "a host-only message": (lambda t: t.raw(t.mover, {"type": "hand_end", "body": {}}),
                            "mover", "msg.wrong_sender"),
    "lobby request mid-match": (lambda t: t.raw(t.mover, {"type": "leave_table", "body": {}}),
                                "mover", "lobby.started"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_refused_state_unchanged_and_the_hand_goes_on(tmp_path: Path,
                                                                   name: str) -> None:
    inject, who, code = CASES[name]
    t = Table(tmp_path)
    before = t.snapshot()
    refused = t.mover if who == "mover" else t.other
    bystander = t.other if who == "mover" else t.mover
    n_events = len(refused.events)
    inject(t)
    t.net.pump()
    assert len(refused.events) == n_events + 1, refused.events[n_events:]
    err = refused.events[-1]
    assert err["code"].startswith(code), err
    assert err["message"] and not err["fatal"]
    if err["code"] == "table.illegal_action":
        assert err["rule"], "an illegal action names its rule id"
    assert t.snapshot() == before
    assert not bystander.events
    assert refused.seat_client is None or not refused.seat_client.halted
    assert bystander.seat_client is None or not bystander.seat_client.halted
    bystander.conn.send("list_tables", {})       # the host keeps serving the others
    t.net.pump()
    if not code.startswith("table."):
        # refused before the table saw it: the parked move still goes through (the whole
        # hand is played to its verified end for the table-level refusals, below)
        log = t.room.driver.log
        n = len(log)
        t.ctls[t.mover_seat].release()
        t.net.pump()
        assert any(e.get("type") == "action" and e.get("seat") == t.mover_seat
                   for e in log[n:]), "the mover's move did not go through"
        return
    t.finish()
    (records,) = (tmp_path / "matches").iterdir()
    files = sorted(records.glob("hand-*.p2pb"))
    assert files and cli_main(["verify", *map(str, files)]) == 0


def test_oversized_frame_drops_the_connection_and_the_peer_comes_back(tmp_path: Path) -> None:
    t = Table(tmp_path, grace=30.0)
    before = t.snapshot()
    old = t.mover.conn
    t.mover.conn.transport.write(struct.pack(">I", wire.MAX_FRAME + 1))
    t.net.pump()
    assert t.mover.events[-1]["code"] == "frame.too_large" and t.mover.events[-1]["fatal"]
    assert old.closing and t.snapshot() == before
    assert t.other.conn is not None and not t.other.conn.closing
    t.net.advance(1.0)                           # the peer reconnects and resyncs
    assert t.mover.conn is not None and t.mover.conn is not old
    assert t.room.slots[t.mover_seat].conn is not None
    t.finish()
    assert t.room.status == "over"


def test_a_seq_gap_drops_the_connection_and_the_peer_resyncs(tmp_path: Path) -> None:
    t = Table(tmp_path, grace=30.0)
    before = t.snapshot()
    old = t.mover.conn
    t.raw(t.mover, {"type": "ping", "body": {"n": 1}}, seq=old.send_seq.last + 5)
    t.net.pump()
    assert t.mover.events[-1]["code"] == "seq.gap" and t.mover.events[-1]["fatal"]
    assert t.snapshot() == before
    t.net.advance(1.0)
    assert t.mover.conn is not None and t.mover.conn is not old
    t.finish()
    assert t.room.status == "over"


def test_a_dropped_peer_within_grace_resumes_mid_hand(tmp_path: Path) -> None:
    t = Table(tmp_path, game="briscola", grace=20.0)
    for c in t.ctls:
        c.hold = False
    t.ctls[t.mover_seat].release()
    t.net.pump()
    # a hand in play: drop seat 0 right now and let it come back
    assert t.room.status in ("playing", "over")
    t2 = Table(tmp_path / "b", game="briscola", grace=20.0)
    link = next(lk for lk in t2.net.links if lk.client is t2.other.conn)
    link.close()
    statuses = list(t2.mover.events)
    assert not statuses
    assert t2.room.slots[1 - t2.mover_seat].conn is None
    t2.net.advance(1.0)
    assert t2.room.slots[1 - t2.mover_seat].conn is not None
    t2.finish()
    assert all(not p.events for p in t2.peers)
    (records,) = (tmp_path / "b" / "matches").iterdir()
    files = sorted(records.glob("hand-*.p2pb"))
    assert cli_main(["verify", *map(str, files)]) == 0


def test_a_peer_lost_past_grace_mid_hand_abandons_the_match(tmp_path: Path) -> None:
    """TABLE-6, TABLE-9, BRISCOLA-24: a seat gone mid-hand past its grace has abandoned —
    a signed `grace` timeout — and its side loses the match; leaving does not void the hand."""
    net = Loopback()
    ctls = [HoldingController(bot("briscola", i)) for i in range(2)]
    for c in ctls:
        c.hold = True
    cfg = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                     hands=2, seed=4, grace=10.0)
    host, peers = start_table(net, cfg, ctls, bot_controller=lambda: bot("briscola", 9))
    room = host.lobby.tables["t1"]
    (mover,) = [i for i, c in enumerate(ctls) if c.parked is not None]
    lost = 1 - mover
    peers[lost].disconnect()                     # gone for good: no reconnect
    net.pump()
    assert room.slots[lost].conn is None and room.slots[lost].taken
    net.advance(9.0)
    assert room.driver.stage == "hand"           # still waiting for it
    ctls[mover].hold = False
    if ctls[mover].parked is not None:
        ctls[mover].release()
    for _ in range(30):
        net.advance(1.0)
        if peers[mover].done.called:
            break
    assert peers[mover].done.called
    (records,) = (tmp_path / "matches").iterdir()
    result = json.loads((records / "result.json").read_text())
    assert result["reason"] == "abandonment"
    assert result["standings"]["winner"] == mover
    assert result["last_hand"]["outcome"]["kind"] == "abandon"
    assert result["last_hand"]["outcome"]["cause"] == "grace"
    assert result["last_hand"]["outcome"]["seat"] == lost


def test_a_seat_away_between_hands_is_waited_for_then_a_bot_takes_it(tmp_path: Path) -> None:
    """TABLE-6: no hand is dealt to a seat away between hands; past its grace a host bot
    takes the seat from the next hand on, and the match goes on."""
    net = Loopback()

    class Leaves(HoldingController):
        """Seat 1's player: closes the laptop as the first hand's last card is played (its
        seed goes out, its sign-off never does)."""

        def notify(self, event: SeatEvent) -> None:
            super().notify(event)
            if isinstance(event, ActionPlayed) and event.state is not None \
                    and event.state.is_over \
                    and not getattr(self, "gone", False):
                self.gone = True
                net.clock.callLater(0, self.peer.disconnect)

    from loopback import LoopbackConnector

    from p2p_burraco.net.peer import PeerConfig

    ctls = [HoldingController(bot("briscola", 0)), Leaves(bot("briscola", 1))]
    cfg = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                     hands=3, seed=4, grace=10.0)
    host = HostNode(net.clock, cfg, bot_controller=lambda: bot("briscola", 9))
    host.bot_connector = lambda: LoopbackConnector(net, host)
    peers = [PeerNode(net.clock, PeerConfig(name=f"seat{i}", seat=i), c,
                      connector=LoopbackConnector(net, host)) for i, c in enumerate(ctls)]
    ctls[1].peer = peers[1]                                     # type: ignore[attr-defined]
    for p in peers:
        p.start()
        net.pump()
    room = host.lobby.tables["t1"]
    driver = room.driver
    assert driver is not None and driver.stage == "signoff"       # waiting for its sign-off
    assert room.slots[1].conn is None and room.slots[1].taken
    net.advance(11.0)                                            # closed without it
    assert driver.hand_no == 1 and driver.stage == "between"
    net.advance(8.0)
    assert driver.hand_no == 1 and driver.stage == "between"     # waited for, no hand dealt
    net.advance(3.0)                                             # grace over: a bot sits
    for _ in range(100):
        if peers[0].done.called:
            break
        net.advance(1.0)
    assert peers[0].done.called, (driver.stage, driver.hand_no, room.slots[1], room.status)
    assert room.slots[1].bot and room.slots[1].name.startswith("bot-")
    (records,) = (tmp_path / "matches").iterdir()
    assert len(list(records.glob("hand-*.p2pb"))) >= 2


def test_idle_connections_are_dropped(tmp_path: Path) -> None:
    from loopback import ScriptedPeer

    net = Loopback()
    host = HostNode(net.clock, HostConfig(data_dir=tmp_path, default_table=False,
                                          ping_interval=5, idle_timeout=12))
    quiet, lively = ScriptedPeer(name="quiet"), ScriptedPeer(name="lively")
    quiet.answer_pings = False
    net.connect(host, quiet)
    net.connect(host, lively)
    net.pump()
    for _ in range(4):
        net.advance(5.0)
    assert quiet.closed and quiet.errors[-1]["code"] == "conn.idle"
    assert not lively.closed and lively.of_type("ping")
