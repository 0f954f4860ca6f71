"""The table-level message registry (`p2p_burraco.table.messages`, PROTOCOL.md § 8.6): well
formed, and every message the table layer actually sends — both ways, in a plain hand and
in hands with timeouts, refusals, a resync, an abandon, an alarm and a void — validates on
the wire (the network layer builds its schema from this registry), and every signed
statement survives the wire's re-encoding with its signature and entry hash intact."""

from __future__ import annotations

from typing import Any

import pytest
from test_table_host import deal_to_first_move, forge, make_table, send

from p2p_burraco import wire
from p2p_burraco.fairdeal import signing
from p2p_burraco.fairdeal.deal import PublicDeal
from p2p_burraco.table import messages as M
from p2p_burraco.table.inprocess import InProcessTable
from p2p_burraco.table.rules import TableRules


def test_registry_is_well_formed() -> None:
    assert set(M.MESSAGES) == set(M.SENDERS) == set(M.DOCS) == set(M.TABLE_MESSAGES)
    for name, spec in M.TABLE_MESSAGES.items():
        for ftype in spec["fields"].values():
            wire.parse_type(ftype)
        assert spec["signed_by"] in ("seat", "host", None) and spec["doc"]
        if spec["signed_by"] == "seat":
            assert {"hand_id", "seat", "seq", "prev_hash", "sig"} <= set(spec["fields"])
            assert name in M.SIGNED and M.SENDERS[name] == "both"   # relayed verbatim
        if name in M.LOG_HOST_TYPES:                  # host log entries pin their place
            assert {"hand_id", "at", "head", "sig"} <= set(spec["fields"])
            assert spec["signed_by"] == "host" and M.SENDERS[name] == "host"
    assert {"commit", "shuffle", "lock", "release", "sealed", "action",
                               "alarm", "abandon", "reveal", "sign_off"} == M.SEAT_AUTHORED
    assert M.LOG_HOST_TYPES | {"hand_end"} == M.HOST_AUTHORED
    assert all(code.startswith("table.") for code in M.ERROR_CODES)
    assert set(M.ERROR_CODES) >= M.VOIDING_CODES
    reg = wire.registry()
    assert {n for n, s in reg.messages.items() if s.layer == "table"} == set(M.MESSAGES)


def test_error_helper_refuses_unknown_codes() -> None:
    err = M.error("table.not_your_turn", "seat 2 plays now")
    wire.validate_body(wire.registry(), "error", 1, M.body_of(err), wire.HOST)
    with pytest.raises(ValueError):
        M.error("table.no_such_code", "x")


class Wire:
    """Puts a table on the wire: every message a seat sends the host and every message the
    host sends a seat is validated against the registry and re-decoded."""

    def __init__(self, t: InProcessTable) -> None:
        self.t = t
        self.reg = wire.registry()
        self.seen: dict[str, int] = {}
        inner_step = t.step

        def step(event: dict[str, Any]) -> Any:
            if event.get("e") == "msg":
                self.check(event["msg"], wire.PEER)
            return inner_step(event)
        t.step = step                                        # type: ignore[method-assign]
        for client in t.seats:
            receive, receive_all = client.receive, client.receive_all

            def one(msg: dict[str, Any], _r: Any = receive) -> Any:
                self.check(msg, wire.HOST)
                return _r(msg)

            def many(msgs: list[dict[str, Any]], _r: Any = receive_all) -> Any:
                for m in msgs:
                    self.check(m, wire.HOST)
                return _r(msgs)
            client.receive = one                             # type: ignore[method-assign]
            client.receive_all = many                        # type: ignore[method-assign]

    def check(self, msg: dict[str, Any], sender: str) -> None:
        mtype = msg["type"]
        spec = wire.validate_body(self.reg, mtype, 1, M.body_of(msg), sender)
        assert spec.layer == "table" or mtype == "error"
        decoded = M.from_body(mtype, wire.unpack(wire.pack(M.body_of(msg))))
        assert decoded == msg
        if mtype in M.SIGNED:          # the signature survives the wire's re-encoding
            key = self.t.host.seat_keys[msg["seat"]] if mtype in M.SEAT_AUTHORED \
                else signing.public_key_bytes(self.t.host_key)
            assert signing.verify(key, decoded), mtype
            assert signing.entry_hash(decoded) == signing.entry_hash(msg)
        if mtype == "refusal":         # and so does the refused statement inside
            self.check(msg["msg"], wire.PEER)
        self.seen[mtype] = self.seen.get(mtype, 0) + 1


@pytest.mark.parametrize("game,players,variant", [("briscola", 4, "carte-scoperte"),
                                                  ("briscola", 2, "carte-viste")])
def test_every_message_of_a_hand_validates_on_the_wire(game: str, players: int,
                                                        variant: str) -> None:
    t = make_table(game, players, seed=4, variant=variant, audit=False)
    w = Wire(t)
    t.play_hand()
    expected = {"hand_start", "commit", "shuffle", "lock", "release", "action", "reveal",
                "hand_end", "sign_off"}
    if variant == "carte-scoperte":
        expected.add("sealed")
    assert expected <= set(w.seen), w.seen


def test_timeouts_refusals_resync_and_abandon_validate_on_the_wire() -> None:
    """Burraco: the first mover sleeps through its turn (a `timeout`, the bot plays on), a
    seat plays out of turn (a logged `refusal`), skips a seq (a refusal to it alone), asks
    to `resync`, then abandons; a statement after the match is over gets an `error`."""
    t = make_table("burraco", 4, seed=3, audit=False, rules=TableRules(turn_ms=60_000),
                   sleeps={s: (lambda n: n == 0) for s in range(4)})
    w = Wire(t)
    _, mover = deal_to_first_move(t)
    other = (mover + 1) % 4
    out_of_turn = forge(t, other, "action", action={"kind": "draw"}, positions=[],
                        cards=[], keys=[])
    send(t, other, out_of_turn)
    t.pump()
    bad = forge(t, other, "action", action={"kind": "draw"}, positions=[], cards=[], keys=[])
    send(t, other, signing.sign(t.identities[other], {**bad, "seq": bad["seq"] + 5}))
    send(t, other, {"type": "resync", "hand_id": t.host.hand_id})
    t.pump()
    t.advance(60_000)
    assert any(e.get("type") == "timeout" for e in t.host.log)
    t.seats[other].request_abandon()
    t.pump()
    assert t.records and t.records[-1].outcome.kind == "abandon" and t.host.match_over
    late = forge(t, other, "action", action={"kind": "draw"}, positions=[], cards=[], keys=[])
    assert send(t, other, late).out[0].msg["code"] == "table.match_over"
    t.pump()
    assert {"timeout", "refusal", "resync", "error", "abandon", "clock"} <= set(w.seen), \
        w.seen


def test_alarms_and_voids_validate_on_the_wire(monkeypatch: pytest.MonkeyPatch) -> None:
    """A seat's alarm (here a false one: the audit pins the alarmist), then a hand every
    node sees a public card fail to decode in (the host's `hand_void`)."""
    t = make_table("briscola", 2, seed=5, audit=False)
    w = Wire(t)
    t.step({"e": "deal"})
    t.pump(until=lambda: t.host.replica is not None and t.host.replica.stage == "play"
           and not t.to_host)
    send(t, 0, forge(t, 0, "alarm", what="no_card", positions=[1], ref=None,
                     detail="a card I cannot read", evidence=None))
    t.pump()
    assert t.records[-1].outcome.kind == "forfeit" and "alarm" in w.seen
    real = PublicDeal.decode_public

    def broken(self: PublicDeal, positions: Any) -> dict[int, int | None]:
        return dict.fromkeys(real(self, positions))
    monkeypatch.setattr(PublicDeal, "decode_public", broken)
    t2 = make_table("briscola", 2, seed=6, audit=False)
    w2 = Wire(t2)
    record = t2.play_hand()
    assert record.outcome.kind == "void" and "hand_void" in w2.seen
