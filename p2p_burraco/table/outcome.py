"""What a hand's outcome is, decided once from its audit — by the host, every peer and any
auditor alike, so nobody's word is needed for it.

Kinds, in the order they win:
- `host_fault`: a host statement (or an unsigned entry) the evidence shows false — the match
  ends for the honest peers (TABLE-10);
- `forfeit`: a seat proven at fault by its own signed statements (cause `cheat`), or a seat
  that stalled (`stall`, TABLE-5/11) — its side loses the match (TABLE-7);
- `abandon`: a seat abandoned (the `abandon` statement, a Briscola clock, a match clock, three
  Burraco timeouts without bots, a grace period run out) — its side loses (TABLE-9), scored by
  the engine's own abandonment rule (BRISCOLA-24 transfers the points in play);
- `void`: the hand stopped and nobody is proven at fault — it scores nothing (TABLE-8);
- `scored`: the game ended the hand and everything checks out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..fairdeal import signing
from ..fairdeal.audit import Fault
from ..games.base import HandResult, ScoreLine, forfeit_result
from .replica import HandReplica, void_result

RESULT_DOMAIN = b"p2p-burraco/result/v1\x00"


@dataclass(frozen=True)
class HandOutcome:
    """How the hand ended, who (if anyone) it names and why, and the result it records."""

    kind: str
    result: HandResult
    seat: int | None = None
    cause: str = ""
    where: int | None = None
    detail: str = ""

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "cause": self.cause,
                "where": self.where, "detail": self.detail}

    def describe(self) -> str:
        who = f"seat {self.seat}" if self.seat is not None else "nobody"
        if self.kind == "scored":
            return "played to its end"
        if self.kind == "void":
            return f"void: {self.detail or self.cause}"
        if self.kind == "host_fault":
            return f"the host is at fault: {self.detail}"
        at = f" (message {self.where})" if self.where is not None else ""
        return f"{self.kind} by {who}: {self.cause}{at}" + (f" — {self.detail}"
                                                          if self.detail else "")


def _first(faults: Sequence[Fault]) -> Fault:
    return min(faults, key=lambda f: (f.where is None, f.where or 0))


def decide(replica: HandReplica, faults: Sequence[Fault], deal_known: bool) -> HandOutcome:
    """The outcome of a replayed hand (see the module docstring). `deal_known`: every seed
    was revealed and the whole deal re-derived (a scored hand needs it)."""
    state = replica.state0
    hand = replica.hand
    host = [f for f in faults if f.party in ("host", "record")]
    if host:
        f = _first(host)
        return HandOutcome("host_fault", void_result(state.match, "host_fault"), None,
                           f.what, f.where, str(f))
    convicted = [f for f in faults if f.party == "seat"]
    if convicted:
        f = _first(convicted)
        assert f.seat is not None
        return _forfeit(replica, f.seat, "cheat", f.where, f"{f.what}: {f.detail}")
    stop = replica.stop
    if stop is not None and stop.kind == "stall" and stop.seat is not None:
        return _forfeit(replica, stop.seat, "stall", stop.index, stop.detail)
    if replica.lost:
        seat, (kind, index) = min(replica.lost.items(), key=lambda kv: kv[1][1])
        if kind == "stall":
            return _forfeit(replica, seat, "stall", index, "a protocol step withheld past "
                                                           "its deadline [TABLE-5]")
        abandoned = getattr(hand, "abandoned_by", None)
        if kind == "grace" and replica.rules.bots and replica.game == "burraco":
            return _replaced(replica, seat, index)
        if abandoned == seat:
            try:
                return HandOutcome("abandon", hand.result(), seat, kind, index)
            except ValueError:
                pass
        return _forfeit(replica, seat, kind, index, "abandoned [TABLE-9]", kind="abandon")
    abandoned = getattr(hand, "abandoned_by", None)
    if abandoned is not None:
        signed_at = replica.deal.abandoned.get(abandoned)
        try:
            return HandOutcome("abandon", hand.result(), abandoned, "abandon", signed_at)
        except ValueError:
            return _forfeit(replica, abandoned, "abandon", signed_at, "", kind="abandon")
    if stop is not None:
        return HandOutcome("void", void_result(state.match, stop.kind), stop.seat, stop.kind,
                           stop.index, stop.detail)
    if hand.is_over and deal_known:
        return HandOutcome("scored", hand.result())
    return HandOutcome("void", void_result(state.match, "incomplete"), None, "incomplete",
                       None, "the log stops before the hand could be scored")


def _replaced(replica: HandReplica, seat: int, where: int) -> HandOutcome:
    """A Burraco seat gone past its grace mid-hand at a table that allows bots (TABLE-14):
    the hand ends by its abandonment and scores nothing, but the match goes on — a host bot
    takes the seat from the next hand — so the result names no seat that ends the match."""
    sides_raw = replica.state0.match.standings().get("sides") or \
        [[s] for s in range(replica.n_seats)]
    sides = tuple(tuple(int(s) for s in side) for side in sides_raw)
    breakdown = tuple((ScoreLine("abandoned: away past its grace", 0),) if seat in side
                      else () for side in sides)
    result = HandResult(sides=sides, points=(0,) * len(sides), breakdown=breakdown,
                        reason="abandon", extra={"credit": [0] * replica.n_seats,
                                                 "replaced": seat})
    return HandOutcome("abandon", result, seat, "grace", where,
                       "away past its grace: a bot takes the seat from the next hand "
                       "[TABLE-14]")


def _forfeit(replica: HandReplica, seat: int, cause: str, where: int | None, detail: str,
             kind: str = "forfeit") -> HandOutcome:
    sides = replica.state0.match.standings().get("sides") or \
        [[s] for s in range(replica.n_seats)]
    result = forfeit_result([list(s) for s in sides], seat, cause, replica.n_seats)
    return HandOutcome(kind, result, seat, cause, where, detail)


def result_hash(hs: Mapping[str, Any], transcript_hash: bytes, result: Mapping[str, Any],
                outcome: Mapping[str, Any], state: Mapping[str, Any]) -> bytes:
    """The hash every seat signs in its sign-off, and the next hand names as `prev_result`:
    the hand (match, number, id), its log, its result and outcome, the match state after it
    (the part every peer recomputes) and the previous result — so the hands of a match form
    one chain an auditor walks."""
    body = {"match_id": hs["match_id"], "hand_no": hs["hand_no"], "hand_id": hs["hand_id"],
            "prev_result": hs["prev_result"], "transcript_hash": transcript_hash,
            "result": dict(result), "outcome": dict(outcome), "state": dict(state)}
    return hashlib.sha256(RESULT_DOMAIN + signing.canonical(body)).digest()
