"""The chat line (issue 15, PROTOCOL.md § 5 `say`/`said`): signed by the seat's identity key,
relayed by the host to every seat of the table, size-capped and rate-limited like other
lobby input, never part of a hand's log. Over real loopback TCP against a running host;
the peer's side (only a line its seat signed is shown, once) on a PeerNode directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tcpkit import Client, Kit
from twisted.internet.testing import MemoryReactorClock

from p2p_burraco import wire
from p2p_burraco.console.commands import run_command
from p2p_burraco.console.model import ConsoleModel
from p2p_burraco.net.host import HostConfig
from p2p_burraco.net.peer import PeerConfig, PeerNode
from p2p_burraco.table.events import ChatSaid, SeatEvent, TableLine


def seated(address: tuple[str, int], name: str) -> Client:
    c = Client(address, name=name)
    c.handshake()
    c.send("join_table", {"table": "t1", "seat": None})
    c.expect("seated")
    return c


def say(c: Client, n: int, text: str, seat: int, table: str = "t1",
        signer: Any = None) -> None:
    sig = (signer or c.key).sign(wire.say_message(c.host_identity, table, seat, n, text))
    c.send("say", {"table": table, "n": n, "text": text, "sig": sig})


def test_a_signed_line_reaches_every_seat_and_bad_ones_are_refused(kit: Kit,
                                                                   tmp_path: Path) -> None:
    # a request budget of 60 tokens, slow to refill: ten lines (6 tokens each) a connection
    node = kit.start_host(HostConfig(port=0, data_dir=tmp_path, game="briscola", players=4,
                                     request_burst=60.0, request_rate=0.5))
    try:
        ann, bob = seated(node.address(), "Ann"), seated(node.address(), "Bob")
        say(ann, 1, "good luck!", seat=0)
        for c in (ann, bob):
            said = c.expect("said")
            assert said["seat"] == 0 and said["name"] == "Ann" and said["text"] == "good luck!"
            assert said["n"] == 1 and said["sig"] == ann.key.sign(
                wire.say_message(ann.host_identity, "t1", 0, 1, "good luck!"))
        for n, text, signer, seat, why in (
                (2, "x" * 201, None, 0, "at most 200 characters"),
                (2, " padded", None, 0, "no blanks at either end"),
                (2, "bell\x07", None, 0, "printable"),
                (1, "again", None, 0, "say.n: 1 is not above 1"),
                (2, "forged", bob.key, 0, "does not verify"),      # Bob signs as Ann
                (3, "wrong seat", None, 2, "does not verify")):   # Ann's key, seat 2's bytes
            say(ann, n, text, seat=seat, signer=signer)
            err = ann.error_code("msg.bad_value")
            assert why in err["message"] and not err["fatal"], err
        outsider = Client(node.address(), name="Cy")
        outsider.handshake()
        say(outsider, 5, "hello", seat=0)
        assert outsider.error_code("lobby.not_seated")["message"] == "you do not sit at 't1'"
        # lobby input is rate-limited: a burst, then host.busy (not fatal)
        for n in range(10, 22):
            say(bob, n, f"spam {n}", seat=1)
        busy = bob.error_code("host.busy")
        assert "'say' refused" in busy["message"] and not busy["fatal"]
        spam = [f["body"]["n"] for f in bob.received if f.get("type") == "said"
                and f["body"]["seat"] == 1]
        assert spam == list(range(10, 19))   # 59 tokens left after joining: nine, then refused
        for c in (ann, bob, outsider):
            c.close()
    finally:
        kit.stop_host(node)


HOST_KEY = bytes(range(32))


class Recorder:
    def __init__(self) -> None:
        self.events: list[SeatEvent] = []

    def notify(self, event: SeatEvent) -> None:
        self.events.append(event)


def test_the_peer_shows_only_lines_the_seat_signed_and_each_once() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2p_burraco.net import identity as ident

    ann, bob = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    rec = Recorder()
    node = PeerNode(MemoryReactorClock(), PeerConfig(host="h", port=1, name="Bob"),
                    rec, bob, connector=lambda factory: None)  # type: ignore[arg-type]
    node.table, node.seat = "t1", 1
    node.expected_host = HOST_KEY
    node.table_info = {"seats": [{"seat": 0, "identity": ident.public_bytes(ann)},
                                 {"seat": 1, "identity": ident.public_bytes(bob)}]}

    def said(n: int, text: str, key: Any, seat: int = 0) -> dict[str, Any]:
        return {"table": "t1", "seat": seat, "name": "Ann", "n": n, "text": text,
                "sig": key.sign(wire.say_message(HOST_KEY, "t1", seat, n, text))}

    node.said(said(1, "ciao", ann))
    node.said(said(1, "ciao", ann))             # the host repeats it: shown once
    node.said(said(2, "I fold", bob))           # the host puts words in Ann's mouth
    assert [type(e) for e in rec.events] == [ChatSaid, TableLine]
    assert rec.events[0].text == "ciao" and "dropped" in rec.events[1].text

    model = ConsoleModel("Bob", game="briscola")
    model.names, model.seat = ["Ann", "Bob"], 1
    model.notify(rec.events[0])
    assert model.log[-1].text == "💬 Ann: ciao"
    assert not run_command(model, "say hi")         # no peer: offline, nobody reads it
    assert "networked table" in (model.error or "")
    sent: list[str] = []
    model.on_say = lambda text: sent.append(wire.valid_say(text)) is None
    assert run_command(model, "say well played")
    assert sent == ["well played"]
    assert not run_command(model, "say " + "x" * 201)
    assert "at most 200 characters" in (model.error or "") and sent == ["well played"]


def bob_peer() -> tuple[PeerNode, Recorder, Any, Any]:
    """A PeerNode for Bob at seat 1 of t1 (no connection), Ann at seat 0."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2p_burraco.net import identity as ident

    ann, bob = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    rec = Recorder()
    node = PeerNode(MemoryReactorClock(), PeerConfig(host="h", port=1, name="Bob"),
                    rec, bob, connector=lambda factory: None)  # type: ignore[arg-type]
    node.table, node.seat, node.expected_host = "t1", 1, HOST_KEY
    node.table_info = {"seats": [{"seat": 0, "identity": ident.public_bytes(ann)},
                                 {"seat": 1, "identity": ident.public_bytes(bob)}]}
    return node, rec, ann, bob


def test_during_a_match_a_line_must_be_signed_by_the_match_seat_key() -> None:
    """A lying host names its own key for Ann's seat in a table_update: while the match
    runs, the peer checks against the hand_start's seat keys, so the forgery is dropped."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2p_burraco.net import identity as ident

    node, rec, ann, bob = bob_peer()
    liar = Ed25519PrivateKey.generate()

    from types import SimpleNamespace

    node.seat_client = SimpleNamespace(
        hand_start={"seat_keys": [ident.public_bytes(ann), ident.public_bytes(bob)]})
    node.table_info = {"seats": [{"seat": 0, "identity": ident.public_bytes(liar)},
                                 {"seat": 1, "identity": ident.public_bytes(bob)}]}

    def said(n: int, text: str, key: Any) -> dict[str, Any]:
        return {"table": "t1", "seat": 0, "name": "Ann", "n": n, "text": text,
                "sig": key.sign(wire.say_message(HOST_KEY, "t1", 0, n, text))}

    node.said(said(1, "I fold", liar))           # the host's key, named by its table info
    assert [type(e) for e in rec.events] == [TableLine]
    assert "dropped" in rec.events[0].text
    node.said(said(2, "ciao", ann))              # the match's seat key: shown
    assert [type(e) for e in rec.events] == [TableLine, ChatSaid]


def test_a_line_signed_for_another_host_is_not_shown() -> None:
    """The host key is in the signed bytes: a line from another host's t1 is not replayed."""
    node, rec, ann, _bob = bob_peer()
    other = bytes(32)
    node.said({"table": "t1", "seat": 0, "name": "Ann", "n": 1, "text": "ciao",
               "sig": ann.sign(wire.say_message(other, "t1", 0, 1, "ciao"))})
    assert [type(e) for e in rec.events] == [TableLine]
    assert "without that seat's signature" in rec.events[0].text


@pytest.mark.parametrize("text", ["x" * 4096, "bell\x07", " padded", ""])
def test_the_peer_drops_a_line_breaking_the_text_rule(text: str) -> None:
    """A host relaying a line the text rule refuses (too long, control characters, blanks)
    is not believed, even with the seat's signature."""
    node, rec, ann, _bob = bob_peer()
    node.said({"table": "t1", "seat": 0, "name": "Ann", "n": 1, "text": text,
               "sig": ann.sign(wire.say_message(HOST_KEY, "t1", 0, 1, text))})
    assert [type(e) for e in rec.events] == [TableLine]
    assert "text rule" in rec.events[0].text
