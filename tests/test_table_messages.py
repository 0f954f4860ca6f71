"""The table-level message registry: well-formed, and every message the table layer actually
sends validates against it (the network layer builds its schema from this registry)."""

from __future__ import annotations

from typing import Any

import pytest

from p2p_burraco import wire
from p2p_burraco.fairdeal import signing
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.table import messages as M
from p2p_burraco.table.inprocess import InProcessTable


def test_registry_is_well_formed() -> None:
    assert set(M.MESSAGES) == set(M.SENDERS) == set(M.DOCS) == set(M.TABLE_MESSAGES)
    for name, spec in M.TABLE_MESSAGES.items():
        for ftype in spec["fields"].values():
            wire.parse_type(ftype)
        assert spec["signed_by"] in ("seat", "host", None) and spec["doc"]
        if spec["signed_by"] == "seat":
            assert {"hand_id", "seat", "seq", "prev_hash", "sig"} <= set(spec["fields"])
            assert name in M.SIGNED and M.SENDERS[name] == "both"   # relayed verbatim
    assert all(code.startswith("table.") for code in M.ERROR_CODES)
    assert M.VOIDING_CODES <= set(M.ERROR_CODES)
    reg = wire.registry()
    assert {n for n, s in reg.messages.items() if s.layer == "table"} == set(M.MESSAGES)


def test_error_helper_refuses_unknown_codes() -> None:
    err = M.error("table.not_your_turn", "seat 2 plays now")
    wire.validate_body(wire.registry(), "error", 1, M.body_of(err), wire.HOST)
    with pytest.raises(ValueError):
        M.error("table.no_such_code", "x")


@pytest.mark.parametrize("game,players,variant", [("briscola", 4, "carte-scoperte"),
                                                  ("briscola", 2, "carte-viste")])
def test_every_message_of_a_hand_validates_on_the_wire(game: str, players: int,
                                                        variant: str) -> None:
    reg = wire.registry()
    seen: dict[str, int] = {}

    class Checked(InProcessTable):
        def pump(self, *args: Any, **kwargs: Any) -> None:
            host_receive, seat_receive = self.host.receive, [s.receive for s in self.seats]

            def to_host(seat: int, msg: dict[str, Any]) -> Any:
                check(msg, wire.PEER)
                return host_receive(seat, msg)
            self.host.receive = to_host  # type: ignore[method-assign]
            for s, client in enumerate(self.seats):
                def to_seat(msg: dict[str, Any], _r: Any = seat_receive[s]) -> Any:
                    check(msg, wire.HOST)
                    return _r(msg)
                client.receive = to_seat  # type: ignore[method-assign]
            super().pump(*args, **kwargs)

    def check(msg: dict[str, Any], sender: str) -> None:
        mtype = msg["type"]
        spec = wire.validate_body(reg, mtype, 1, M.body_of(msg), sender)
        assert spec.layer == "table" or mtype == "error"
        decoded = M.from_body(mtype, wire.unpack(wire.pack(M.body_of(msg))))
        if mtype in M.SEAT_AUTHORED:       # the signature survives the wire's re-encoding
            assert signing.verify(t.host.seat_keys[msg["seat"]], decoded)
            assert signing.entry_hash(decoded) == signing.entry_hash(msg)
        seen[mtype] = seen.get(mtype, 0) + 1

    t = Checked(SelfplayConfig(game=game, variant=variant, players=players, hands=1, seed=4))
    t.play_hand()
    expected = {"hand_start", "commit", "shuffle", "lock", "release", "action", "reveal",
                "hand_end", "sign_off"}
    if variant == "carte-scoperte":
        expected.add("sealed")
    assert expected <= set(seen), seen
