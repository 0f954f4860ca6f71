"""The whole audit of a hand: the fair-deal audit plus a replay of the game.

`fairdeal.audit` re-derives the deal from the seeds and checks every cryptographic step. What
it cannot judge without the rules — was each key released to the seats the public state
named then? was each action legal? is every card in exactly one place? is the recorded score
the score? — this module checks by replaying the log through the rules engine, with the
re-derived deal known, and the same gate the host runs live (`PublicDeal.check`) given the
engine's entitlement at each step.

The host and every peer run `audit_hand` on their log before the hand closes; `verify`
runs `audit_transcript` on a file. Both give the same verdict for the same log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..fairdeal.audit import Fault, Verdict, audit_log
from ..fairdeal.audit import audit as fairdeal_audit
from ..fairdeal.deal import DealError, PublicDeal
from ..fairdeal.transcript import Transcript
from ..games.base import (
    ActionSyntaxError,
    HandResult,
    HandState,
    RuleViolation,
    check_cards_conserved,
)
from .replica import ReplicaError, build_hand, build_match, public_positions, void_result

# Gate refusals the replay reports; chain, signature and pass problems are the fair-deal
# audit's (reported there with the same message numbers).
_REPLAY_CODES = {
    "table.not_entitled": "not_entitled",
    "table.duplicate_key": "duplicate_key",
    "table.unknown_position": "unknown_position",
    "table.wrong_phase": "out_of_phase",
    "table.bad_message": "malformed",
}


UNFAIR = "unfair"
"""The void reason recorded for a hand that ended normally but failed its audit."""


@dataclass
class HandAudit:
    """A verdict with what the replay learned: the opening deal and the expected score."""

    verdict: Verdict
    hand_start: Mapping[str, Any]
    start: HandState | None = None            # the hand as dealt (nothing played)
    final: HandState | None = None            # the replayed hand at the end of the log
    result: HandResult | None = None          # the score the log leads to (void if voided)
    voided: bool = False
    notes: list[str] = field(default_factory=list)


def _learn_all(hand: HandState, deal: Sequence[int]) -> None:
    for pos, card in enumerate(deal):
        if hand.card_at(pos) is None:
            hand.learn(pos, card)


def _incidents(entries: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The refused signed messages a `hand_void` carries as evidence, with its log index."""
    out = []
    for i, e in enumerate(entries):
        ev = e.get("evidence") if e.get("type") == "hand_void" else None
        if isinstance(ev, Mapping) and isinstance(ev.get("msg"), Mapping):
            out.append({"code": ev.get("code"), "at": i, "msg": ev["msg"]})
    return out


def _reveal_public(hand: HandState, deal: PublicDeal, i: int, faults: list[Fault]) -> None:
    """Decode the public positions whose keys are all out, as the host did at this point."""
    todo = [p for p in public_positions(hand) if p not in deal.public_cards
            and not deal.missing_keys(p)]
    for pos, card in deal.decode_public(todo).items():
        if card is None:
            continue  # the hand was voided here; the fair-deal audit names whose key it was
        try:
            hand.learn(pos, card)
        except ValueError as exc:
            faults.append(Fault(None, "contradiction", i, str(exc)))
            continue
        deal.learn_public(pos, card)


def _replay(entries: Sequence[Mapping[str, Any]], verdict: Verdict) -> HandAudit:
    hs = entries[0]
    report = HandAudit(verdict, hs)
    faults = verdict.faults
    try:
        hand = build_hand(hs)
        start = build_hand(hs)
    except ReplicaError as exc:
        faults.append(Fault(None, "bad_hand_start", 0, str(exc)))
        return report
    report.start = start
    if verdict.deal is not None:
        _learn_all(start, verdict.deal)
        _learn_all(hand, verdict.deal)
    else:
        report.notes.append("the deal cannot be re-derived: the game is replayed with the "
                            "cards shown face up only")
    deal = PublicDeal(hs, verify_signatures=False)
    refused: dict[int, list[dict[str, Any]]] = {}
    for inc in _incidents(entries):
        if inc.get("code") == "table.not_entitled" and isinstance(inc.get("at"), int):
            refused.setdefault(inc["at"], []).append(inc)
    full = verdict.deal is not None
    voided = False
    void_reason = UNFAIR
    for i in range(1, len(entries) + 1):
        for inc in refused.get(i, []):
            msg = inc["msg"]
            try:
                deal.check(msg, None, hand.audience)
            except DealError as exc:
                if exc.code == "table.not_entitled":
                    faults.append(Fault(msg.get("seat"), "not_entitled", None,
                                        f"refused {msg.get('type')}: {exc.message}"))
                    continue
            faults.append(Fault(None, "false_incident", None,
                                f"the host refused a {msg.get('type')} the rules allowed"))
        if i == len(entries):
            break
        e = entries[i]
        t = e.get("type")
        if t == "hand_void":
            deal.append_host_entry(e)
            deal.begin_reveal()
            voided = True
            void_reason = str(e.get("reason") or "void")
            continue
        if t == "reveal" and deal.phase == "deal" and hand.is_over:
            deal.begin_reveal()
        try:
            deal.check(e, None, hand.audience)
        except DealError as exc:
            what = _REPLAY_CODES.get(exc.code)
            if what is not None:
                faults.append(Fault(e.get("seat") if isinstance(e.get("seat"), int) else None,
                                    what, i, exc.message))
        try:
            deal.apply(e)
        except (KeyError, TypeError, ValueError):
            continue  # malformed: the fair-deal audit has named it
        if t == "release" and deal.locked is not None:
            _reveal_public(hand, deal, i, faults)
        if t == "action":
            seat = e["seat"]
            try:
                action = hand.action_from_wire(e.get("action") or {})
                hand.apply(seat, action)
            except RuleViolation as exc:
                faults.append(Fault(seat, "illegal_action", i, f"{exc.message} [{exc.rule_id}]"))
                continue
            except (ActionSyntaxError, ValueError, LookupError) as exc:
                faults.append(Fault(seat, "bad_action", i, str(exc)))
                continue
            try:
                check_cards_conserved(hand)
            except AssertionError as exc:
                faults.append(Fault(None, "cards_not_conserved", i, str(exc)))
            if not hand.is_over:
                _reveal_public(hand, deal, i, faults)
    report.final = hand
    report.voided = voided
    if full and not voided and not hand.is_over:
        faults.append(Fault(None, "incomplete", None,
                            "the log stops before the hand is over and no void was declared"))
    if verdict.fair and full and not voided and hand.is_over:
        report.result = hand.result()
    else:
        try:
            report.result = void_result(build_match(hs), void_reason)
        except ReplicaError:
            report.result = None
    return report


def audit_hand(entries: Sequence[Mapping[str, Any]]) -> HandAudit:
    """Audit a hand's log before it closes (host and peers): crypto, entitlement, rules."""
    verdict = audit_log(entries)
    if not entries or any(f.what == "bad_hand_start" for f in verdict.faults):
        return HandAudit(verdict, entries[0] if entries else {})
    return _replay(entries, verdict)


def audit_transcript(t: Transcript) -> HandAudit:
    """Audit a recorded hand: everything `audit_hand` checks, that the log is the one the
    seats signed, and that the recorded score is the score."""
    verdict = fairdeal_audit(t)
    if any(f.what == "bad_hand_start" for f in verdict.faults):
        return HandAudit(verdict, t.entries[0])
    report = _replay(t.entries, verdict)
    end = t.hand_end
    if end is not None and report.result is not None \
            and end.get("result") != report.result.to_wire():
        verdict.faults.append(Fault(None, "wrong_result", None,
                                    "the recorded score is not what the log leads to"))
    recorded = (end or {}).get("verdict")
    if isinstance(recorded, Mapping) and bool(recorded.get("fair")) != verdict.fair \
            and not any(f.what in ("tampered", "incomplete") for f in verdict.faults):
        report.notes.append(f"the host's verdict at the time was "
                            f"{'fair' if recorded.get('fair') else 'unfair'}")
    return report
