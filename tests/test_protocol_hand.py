"""protocol/vectors/hand_briscola_seeded.json: one seeded whole match (a 2-seat Briscola
hand) as the ordered frames of every connection. The test replays the same seeds through the
in-memory network and must get the same bytes; every frame must decode and validate.

Regenerate after a deliberate protocol change: `python tests/test_protocol_hand.py`.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from loopback import Loopback, LoopbackConnector

from p2p_burraco import wire
from p2p_burraco.bots import make_strategy
from p2p_burraco.net.host import HostConfig, HostNode
from p2p_burraco.net.peer import PeerConfig, PeerNode
from p2p_burraco.table.inprocess import BotController

VECTOR = Path(__file__).resolve().parents[1] / "protocol" / "vectors" / "hand_briscola_seeded.json"
SEED = 20240601


def _key(label: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(
        hashlib.sha256(f"p2p-burraco/vector/{SEED}/{label}".encode()).digest())


def play_seeded(data_dir: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Host + 2 bot peers, every random choice seeded; returns (frames, final standings)."""
    net = Loopback()
    host = HostNode(net.clock, HostConfig(data_dir=data_dir, game="briscola", players=2,
                                          hands=1, seed=SEED, ping_interval=0),
                    identity=_key("host"))
    peers = []
    for i in range(2):
        ctl = BotController(make_strategy("briscola", "random", random.Random(SEED + i)))
        peer = PeerNode(net.clock, PeerConfig(name=f"seat{i}", seat=i, seed=SEED + i,
                                              ping_interval=0), ctl, _key(f"peer{i}"),
                        LoopbackConnector(net, host))
        peer.start()
        peers.append(peer)
        net.pump()          # connect one after the other: a fixed seat order
    net.pump()
    assert all(p.done.called for p in peers)
    frames: list[dict[str, Any]] = []
    for n, link in enumerate(net.links):
        decoders = {"c2s": wire.FrameDecoder(wire.MAX_FRAME),
                    "s2c": wire.FrameDecoder(wire.MAX_FRAME)}
        for direction, chunk in link.log:
            for payload in decoders[direction].feed(chunk):
                frames.append({"conn": n, "dir": direction,
                               "hex": wire.frame_bytes(payload).hex()})
    standings: dict[str, Any] = {}
    peers[0].done.addCallback(standings.update)
    return frames, standings


def test_seeded_hand_reproduces_byte_for_byte(tmp_path: Path) -> None:
    doc = json.loads(VECTOR.read_text())
    frames, standings = play_seeded(tmp_path)
    assert doc["schema_version"] == wire.SCHEMA_VERSION
    assert len(frames) == len(doc["frames"])
    for i, (got, want) in enumerate(zip(frames, doc["frames"])):
        assert got == want, f"frame {i} differs"
    assert wire.to_json_value(standings) == doc["standings"]


def test_every_frame_of_the_seeded_hand_validates() -> None:
    doc = json.loads(VECTOR.read_text())
    counters: dict[tuple[int, str], wire.SeqCounter] = {}
    types: set[str] = set()
    for f in doc["frames"]:
        (payload,) = wire.FrameDecoder(wire.MAX_FRAME).feed(bytes.fromhex(f["hex"]))
        counter = counters.setdefault((f["conn"], f["dir"]), wire.SeqCounter())
        sender = wire.PEER if f["dir"] == "c2s" else wire.HOST
        frame = wire.accept_payload(payload, sender, counter)
        types.add(frame.type)
        assert wire.frame_bytes(wire.pack(frame.to_wire())).hex() == f["hex"]
    assert {"hello", "welcome", "auth", "ready", "join_table", "seated", "match_started",
            "hand_start", "commit", "shuffle", "lock", "release", "action", "reveal",
            "hand_end", "sign_off", "match_end"} <= types


def write_vector() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        frames, standings = play_seeded(Path(d))
    VECTOR.write_text(json.dumps({
        "name": "seeded Briscola match, 2 seats, 1 hand, random bots",
        "seed": SEED, "schema_version": wire.SCHEMA_VERSION,
        "note": "conn = connection index (0: seat 0's peer, 1: seat 1's); dir c2s = peer to "
                "host; frames of one connection in order, connections one after the other",
        "standings": wire.to_json_value(standings), "frames": frames}, indent=0) + "\n")
    print(f"wrote {VECTOR} ({len(frames)} frames)")


if __name__ == "__main__":
    sys.exit(write_vector())
