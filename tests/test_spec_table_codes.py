"""The spec and the code agree on the table-level codes (PROTOCOL.md § 8.9) over real loopback
TCP: two raw clients take the seats of a Briscola table, and one of them sends, signed with
its own key, each statement the spec says is refused — the host answers with exactly that
code, as a `refusal` statement (or a plain `error` outside any hand), and the connection
stays open (no table code is fatal: a refusal is evidence, not a reason to hang up).

Codes whose provoking input needs a hand played to a given point (a move, a key, a proof, a
sign-off) are provoked on the sans-IO table, where the same host code runs without sockets;
TABLE_CODES_IN_PROCESS names the test that does it for each. A test checks that every code of
§ 8.9 is provoked here or named there."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tcpkit import Client, Kit
from waits import wait_until

from p2p_burraco.fairdeal import signing
from p2p_burraco.fairdeal.group import card_points
from p2p_burraco.fairdeal.passes import deck_hash
from p2p_burraco.net.host import HostConfig

ROOT = Path(__file__).resolve().parents[1]
SPEC = (ROOT / "protocol" / "PROTOCOL.md").read_text()
LOW_ORDER_X25519 = bytes(32)


def spec_table_codes() -> set[str]:
    section = SPEC[SPEC.index("### 8.9 Table-level error codes"):SPEC.index("### 8.10 Cost")]
    return set(re.findall(r"^\| `(table\.[a-z_]+)`", section, re.MULTILINE))


TABLE_CODES_IN_PROCESS: dict[str, str] = {
    "table.match_over": "tests/test_table_host.py (a message after the match's end)",
    "table.bad_message": "tests/test_table_host.py (a release naming a position twice)",
    "table.bad_proof": "tests/test_table_host.py (a face-up proof that fails)",
    "table.unknown_position": "tests/test_table_host.py",
    "table.not_entitled": "tests/test_table_host.py, tests/test_fairdeal_cheats.py",
    "table.duplicate_key": "tests/test_table_host.py",
    "table.bad_action": "tests/test_table_host.py",
    "table.illegal_action": "tests/test_table_host.py, tests/test_table_cheats.py",
}
"""Codes that need a hand played to a given point: provoked on the sans-IO table."""
OVER_TCP = ["table.no_hand", "table.wrong_hand", "table.wrong_seat", "table.bad_signature",
            "table.seq_gap", "table.bad_chain", "table.wrong_phase", "table.replayed_seq",
            "table.not_due", "table.not_your_turn", "table.bad_input", "table.bad_deck",
            "table.stopped", "table.bad_key"]


def test_every_table_code_is_provoked_over_tcp_or_in_process() -> None:
    codes = spec_table_codes()
    assert len(codes) > 20
    assert not set(OVER_TCP) & set(TABLE_CODES_IN_PROCESS)
    assert set(OVER_TCP) | set(TABLE_CODES_IN_PROCESS) == codes


def test_the_codes_named_in_process_are_provoked_there() -> None:
    """Each code of TABLE_CODES_IN_PROCESS appears in the test files named for it."""
    for code, where in TABLE_CODES_IN_PROCESS.items():
        files = re.findall(r"tests/[a-z_]+\.py", where)
        assert files, code
        assert any(code in (ROOT / f).read_text() for f in files), f"{code} not in {files}"


class Seat:
    """A raw client in a seat, signing its own statements (no judge of its own)."""

    def __init__(self, client: Client, seat: int) -> None:
        self.c = client
        self.seat = seat
        self.hs: dict[str, Any] = {}
        self.seq = 0
        self.prev = b""

    def start(self, hs: dict[str, Any]) -> None:
        self.hs = hs
        self.seq = 0
        self.prev = signing.entry_hash({"type": "hand_start", **hs})

    def statement(self, mtype: str, *, seq: int | None = None, prev: bytes | None = None,
                  seat: int | None = None, hand_id: bytes | None = None,
                  **fields: Any) -> dict[str, Any]:
        return signing.sign(self.c.key, {
            "type": mtype, "hand_id": self.hs["hand_id"] if hand_id is None else hand_id,
            "seat": self.seat if seat is None else seat,
            "seq": self.seq if seq is None else seq,
            "prev_hash": self.prev if prev is None else prev, **fields})

    def send(self, msg: dict[str, Any]) -> None:
        self.c.send(str(msg["type"]), {k: v for k, v in msg.items() if k != "type"})

    def chained(self, msg: dict[str, Any]) -> None:
        """`msg` took its place in this seat's chain (accepted, or refused in the log)."""
        self.seq = int(msg["seq"]) + 1
        self.prev = signing.entry_hash(msg)

    def answer(self) -> tuple[str, dict[str, Any]]:
        """The next refusal addressed to this seat, or plain error: (frame type, body)."""
        while True:
            frame = self.c.read_frame()
            t, body = frame["type"], frame["body"]
            if t == "error" or (t == "refusal" and body.get("seat") == self.seat):
                return t, body


def commit(s: Seat, **kw: Any) -> dict[str, Any]:
    return s.statement("commit", commitment=kw.pop("commitment", bytes(range(32))),
                       x25519=kw.pop("x25519", bytes([9] + [0] * 31)), **kw)


@contextmanager
def two_seats(kit: Kit, tmp_path: Path, seed: int) -> Iterator[tuple[Any, Seat, Seat]]:
    """A host; two raw clients take both seats; the match starts; each has its hand_start.
    Everything is closed on the way out."""
    node = kit.start_host(host_config(tmp_path, seed))
    address = kit.call(node.address)
    clients: list[Client] = []
    try:
        seats = []
        for i in range(2):
            c = Client(address)
            clients.append(c)
            c.handshake()
            c.send("join_table", {"table": "t1", "seat": i})
            c.expect("seated")
            seats.append(Seat(c, i))
        for s in seats:
            s.start(s.c.expect("hand_start"))
        yield node, seats[0], seats[1]
    finally:
        for c in clients:
            c.close()
        kit.stop_host(node)


def provoke(by: Seat, code: str, msg: dict[str, Any], logged: bool | None = False,
            meanwhile: Callable[[], None] | None = None) -> None:
    """Send `msg` (then do `meanwhile`); the answer is a refusal with `code` (in the log or
    not, as the spec says: in the log when the statement was validly signed at its place),
    and the line stays."""
    by.send(msg)
    if meanwhile is not None:
        meanwhile()
    t, body = by.answer()
    assert (t, body.get("code")) == ("refusal", code), (code, t, body)
    assert body.get("msg") == msg
    if logged is not None:
        assert bool(body.get("logged")) is logged, (code, body)
    if body.get("logged"):
        by.chained(msg)
    assert by.c.alive(), f"{code} closed the connection"


def host_config(tmp_path: Path, seed: int) -> HostConfig:
    return HostConfig(port=0, data_dir=tmp_path, game="briscola", players=2, seed=seed,
                      close_timeout=1.0, ping_interval=30.0, step_deadline=60.0)


def test_table_codes_over_tcp(kit: Kit, tmp_path: Path) -> None:
    with two_seats(kit, tmp_path, 1) as (node, a, b):
        # not at its place in the seat's chain: only the sender hears of it
        provoke(a, "table.wrong_hand", commit(a, hand_id=bytes(16)))
        provoke(a, "table.wrong_seat", commit(a, seat=1))
        provoke(a, "table.bad_signature", {**commit(a), "sig": bytes(64)})
        provoke(a, "table.seq_gap", commit(a, seq=3))
        provoke(a, "table.bad_chain", commit(a, prev=bytes(32)))
        # at its place: the refusal is a log entry and the chain moves past it (the log is
        # relayed once every commitment is in, so b hears of its refusal after a commits)
        first = a.prev
        good = commit(b)
        b.send(good)
        b.chained(good)
        again = commit(b, commitment=bytes(32))
        good = commit(a)

        def after_the_refusal_is_logged() -> None:      # a's line is not b's: wait for it
            def logged() -> int:
                return int(kit.call(lambda: len(node.lobby.tables["t1"].driver.replica
                                                .deal.log)))
            wait_until(lambda: logged() >= 3, "b's refusal to be in the deal's log")
            a.send(good)
        provoke(b, "table.not_due", again, logged=True, meanwhile=after_the_refusal_is_logged)
        a.chained(good)
        provoke(a, "table.replayed_seq", commit(a, seq=0, prev=first, commitment=bytes(32)))
        n = int(a.hs["n_cards"])
        deck = list(card_points(str(a.hs["deck"]), n))
        provoke(b, "table.not_your_turn", b.statement("shuffle", input_hash=deck_hash(deck),
                                                      deck=deck), logged=True)
        provoke(a, "table.wrong_phase", a.statement("release", positions=[0], to=[[1]],
                                                    keys=[bytes(32)]), logged=True)
        provoke(a, "table.bad_input", a.statement("shuffle", input_hash=bytes(32),
                                                  deck=deck), logged=True)
        provoke(a, "table.bad_deck", a.statement("shuffle", input_hash=deck_hash(deck),
                                                 deck=deck[:-1]), logged=True)
        provoke(b, "table.stopped", b.statement("shuffle", input_hash=deck_hash(deck),
                                                deck=deck), logged=None)


def test_a_low_order_key_is_table_bad_key_over_tcp(kit: Kit, tmp_path: Path) -> None:
    with two_seats(kit, tmp_path, 3) as (_, a, _):
        provoke(a, "table.bad_key", commit(a, x25519=LOW_ORDER_X25519), logged=True)


def test_a_table_message_before_the_match_is_table_no_hand(kit: Kit, tmp_path: Path) -> None:
    node = kit.start_host(host_config(tmp_path, 2))
    c = Client(kit.call(node.address))
    try:
        c.handshake()
        c.send("join_table", {"table": "t1", "seat": 0})
        c.expect("seated")
        s = Seat(c, 0)
        s.hs = {"hand_id": bytes(16)}
        s.prev = bytes(32)
        s.send(commit(s))
        t, body = s.answer()
        assert (t, body.get("code")) == ("error", "table.no_hand")
        assert body.get("fatal") is False and c.alive()
    finally:
        c.close()
        kit.stop_host(node)
