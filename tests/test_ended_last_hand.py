"""Every chair holds its own proof, also of a match's last hand when it was away as that hand
closed (issue 46 with AUDIT-1): a seat that sent its sign-off and dropped before the
`hand_end` came missed the end of the match too; when it comes back the host, which has
forgotten the table, tells it its ended match's last hand from the record on disk (the log
from the signed hand_start, the hand_end with every sign-off) and then the result — so the
seat stores its own copy before it stops, and a restarted host does the same
(`ended.msgpack` names the record). With no reactor: the loopback kit and its fake clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loopback import Loopback, LoopbackConnector
from test_net_resync_order import parked_table

from p2p_burraco import wire
from p2p_burraco.fairdeal.transcript import Transcript
from p2p_burraco.net.host import HostNode


def _away_at_the_close(tmp_path: Path, exits: bool = False
                       ) -> tuple[Loopback, HostNode, list[Any], int, Any]:
    """A 2-seat, 1-hand Briscola table whose first seat to sign the last hand drops right
    after its sign-off reached the host: (net, host, peers, that seat, the room). `exits`:
    a host that exits once its matches are over (`host --hands N`)."""
    net, host, peers, ctls = parked_table(tmp_path, game="briscola")
    host.config.exit_when_done = exits
    room = host.lobby.tables["t1"]
    original = room.table_message
    gone: list[int] = []

    def table_message(seat: int, frame: wire.Frame) -> None:
        first = frame.type == "sign_off" and not room.driver.sign_offs and not gone
        original(seat, frame)
        if first:
            gone.append(seat)
            conn = room.slots[seat].conn
            (link,) = [k for k in net.links if k.server is conn and not k.closed]
            link.close()                 # dropped: the hand_end never reaches it

    room.table_message = table_message   # type: ignore[method-assign]
    for c in ctls:
        c.hold = False
    (mover,) = [c for c in ctls if c.parked is not None]
    mover.release()
    net.pump()
    assert gone, "no seat signed the hand off"
    return net, host, peers, gone[0], room


def _records(peer: Any) -> dict[str, bytes]:
    return {name: data for (_, name), data in peer.seat_client.store.records.items()}


def test_a_seat_away_when_the_last_hand_closed_gets_its_copy_on_return(tmp_path: Path) -> None:
    net, host, peers, away, room = _away_at_the_close(tmp_path)
    assert room.status == "over", "the match did not end with the seat away"
    assert peers[1 - away].done.called
    assert not peers[away].done.called
    assert "hand-001.p2pb" not in _records(peers[away])     # it missed the hand_end
    net.advance(1.0)                                        # it comes back
    ended: list[Any] = []
    peers[away].done.addBoth(ended.append)
    assert ended and isinstance(ended[0], dict), ended      # the result, not a failure
    mine = Transcript.from_bytes(_records(peers[away])["hand-001.p2pb"])
    hosts = Transcript.load(str(room.journal.dir / "hand-001.p2pb"))
    assert mine.hand_end == hosts.hand_end and mine.entries == hosts.entries


def test_a_restarted_host_still_gives_the_last_hand(tmp_path: Path) -> None:
    net, host, peers, away, room = _away_at_the_close(tmp_path)
    peer = peers[away]
    again = HostNode(net.clock, host.config, identity=host.identity)   # restarted meanwhile
    peer.connector = LoopbackConnector(net, again)          # where the peer comes back to
    assert again.ended_last, "ended.msgpack does not name the last hand's record"
    net.advance(60.0)
    ended: list[Any] = []
    peer.done.addBoth(ended.append)
    assert ended and isinstance(ended[0], dict), ended
    assert "hand-001.p2pb" in _records(peer)


def test_a_hands_host_waits_for_a_seat_away_at_the_end_before_it_exits(tmp_path: Path) -> None:
    """Found by the boundary test: a `--hands` host exited as its match ended, and a seat that
    was away then retried a host that was gone for its whole reconnect window."""
    net, host, peers, away, room = _away_at_the_close(tmp_path, exits=True)
    assert room.status == "over"
    assert not host.all_done.called, "the host exits with a seat still owed the result"
    net.advance(1.0)                                        # it comes back and hears it
    assert peers[away].done.called and host.all_done.called
    assert not host.owed_end


def test_a_hands_host_waits_no_longer_than_the_grace(tmp_path: Path) -> None:
    net, host, peers, away, room = _away_at_the_close(tmp_path, exits=True)
    peers[away].connector = lambda factory: None            # it never comes back
    net.advance(room.table_rules.grace_ms / 1000 - 1)
    assert not host.all_done.called
    net.advance(2.0)
    assert host.all_done.called and not host.owed_end
