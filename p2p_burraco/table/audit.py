"""The whole audit of a hand: the fair-deal audit, a replay through the one judge, and the
outcome that follows.

`fairdeal.audit` re-derives the deal from the seeds and checks every cryptographic step.
What it cannot judge without the rules — was each statement the host accepted one the rules
allow? was each refusal true? did each timed-out seat owe something then? is every card in
exactly one place? — this module checks by replaying the log through `HandReplica`, the same
judge the host and the peers ran live, with the re-derived deal known. `outcome.decide` then
says how the hand ended, and the transcript check compares that with what the host and the
seats signed.

The host and every peer run `audit_hand` on their log before the hand closes; `verify` runs
`audit_transcript` on a file (and `match_audit` on a whole match). All give the same verdict
for the same log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..fairdeal import signing
from ..fairdeal.audit import Fault, Verdict, audit_log, judge_alarms_of
from ..fairdeal.deal import HOST_TYPES
from ..fairdeal.transcript import Transcript, log_hash
from ..games.base import HandState, check_cards_conserved
from . import messages as M
from .matchstate import MatchState, MatchStateError
from .outcome import HandOutcome, decide, result_hash
from .replica import HandReplica, ReplicaError, TableError
from .statements import carried_sign_offs, merge_sign_offs, sign_off_problem

UNFAIR = "unfair"
"""Kept for callers of the first round: a hand that failed its audit."""

_SEAT_CODES = {
    "table.not_entitled": "not_entitled",
    "table.duplicate_key": "duplicate_key",
    "table.unknown_position": "unknown_position",
    "table.wrong_phase": "out_of_phase",
    "table.stopped": "out_of_phase",
    "table.not_your_turn": "out_of_turn",
    "table.illegal_action": "illegal_action",
    "table.bad_action": "bad_action",
    "table.bad_message": "malformed",
    "table.bad_key": "bad_key",
    "table.bad_deck": "bad_deck",
    "table.bad_proof": "bad_proof",
}
_JUDGED_WITH_SEEDS = ("table.bad_deck", "table.bad_key", "table.bad_proof")
"""Refusals the fair-deal audit judges from the seeds (`_judge_incident`)."""


def _proven_by_refusal(replica: HandReplica, e: Mapping[str, Any], i: int) -> list[Fault]:
    """A true refusal that proves a deviation (a ✱ code the judge gives the refused statement
    again here) convicts its seat by its own signed statement (TABLE-7): else a loser would
    void its lost hand by sending one, e.g. a key released to an audience the state does
    not name. The codes judged from the seeds are left to the fair-deal audit."""
    code = e.get("code")
    if code not in M.VOIDING_CODES or code in _JUDGED_WITH_SEEDS:
        return []
    seat, inner = int(e["seat"]), e["msg"]
    try:
        replica.check_content(seat, inner)
    except TableError as exc:
        if exc.voiding and exc.code == code:
            return [Fault(seat, _SEAT_CODES.get(code, code.split(".")[-1]), i,
                          f"refused {inner.get('type')}: {exc.message}")]
    return []


@dataclass
class HandAudit:
    """A verdict with what the replay learned: the opening deal, the replayed hand, the
    outcome, and the match state after it."""

    verdict: Verdict
    hand_start: Mapping[str, Any]
    start: HandState | None = None            # the hand as dealt (nothing played)
    replica: HandReplica | None = None        # the replayed hand at the end of the log
    outcome: HandOutcome | None = None
    state_after: MatchState | None = None
    notes: list[str] = field(default_factory=list)
    signed: list[int] = field(default_factory=list)     # seats that signed this very result
    unsigned: list[int] = field(default_factory=list)   # seats whose sign-off is missing
    excused: list[int] = field(default_factory=list)    # out of the hand: none is owed
    closed: bool = False                                # a valid host hand_end closes it

    @property
    def final(self) -> HandState | None:
        return self.replica.hand if self.replica is not None else None

    @property
    def result(self) -> Any:
        return self.outcome.result if self.outcome is not None else None

    def state_snapshot(self) -> dict[str, Any]:
        return self.state_after.snapshot() if self.state_after is not None else {}

    def result_hash(self, transcript_hash: bytes) -> bytes | None:
        """What every seat signs for this hand (None when the hand cannot be judged)."""
        if self.outcome is None or self.state_after is None:
            return None
        return result_hash(self.hand_start, transcript_hash, self.outcome.result.to_wire(),
                           self.outcome.to_wire(),
                           MatchState.comparable(self.state_after.snapshot()))


def _learn_all(hand: HandState, deal: Sequence[int]) -> None:
    for pos, card in enumerate(deal):
        if hand.card_at(pos) is None:
            hand.learn(pos, card)


def _replay(entries: Sequence[Mapping[str, Any]], verdict: Verdict,
            state: MatchState | None, conserve_each: bool = False) -> HandAudit:
    """Replay the log through the judge. Every card must be in exactly one place after each
    action: checked once at the end (the engine keeps it by construction), and only if that
    fails is the log replayed again checking after each action, to name where it broke."""
    hs = entries[0]
    report = HandAudit(verdict, hs)
    faults = verdict.faults
    base = len(faults)
    replica = _dealt(report, state)
    if replica is None:
        return report
    for i in range(1, len(entries)):
        e = entries[i]
        if e.get("type") in HOST_TYPES:
            _replay_host(replica, e, i, faults)
        else:
            _replay_seat(replica, e, i, faults, conserve_each)
    if not conserve_each:
        try:
            check_cards_conserved(replica.hand)
        except AssertionError:
            verdict.faults[:] = verdict.faults[:base]
            return _replay(entries, verdict, state, conserve_each=True)
    faults.extend(judge_alarms_of(entries, list(faults)))
    _conclude(report, replica, verdict.deal is not None)
    return report


def _dealt(report: HandAudit, state: MatchState | None) -> HandReplica | None:
    """The judge at the start of the hand, with the re-derived deal known when the seeds
    give it (and `report.start`, the hand as dealt); None, with the fault, when the
    hand_start itself cannot be dealt or the seeds' deal is not the one dealt."""
    hs, faults, deal = report.hand_start, report.verdict.faults, report.verdict.deal
    try:
        replica = HandReplica(hs, verify_signatures=False, state=state)
        start = HandReplica(hs, verify_signatures=False, state=state).hand
    except ReplicaError as exc:     # the walk found it host-signed: the host's word is wrong
        party = "host" if signing.verify(hs.get("host_key") or b"", hs) else "record"
        faults.append(Fault(None, "bad_hand_start", 0, str(exc), party=party))
        return None
    report.start = start
    if deal is None:
        report.notes.append("the deal cannot be re-derived: the game is replayed with the "
                            "cards shown face up only")
        return replica
    try:
        _learn_all(start, deal)
        _learn_all(replica.hand, deal)
    except ValueError as exc:
        # only the quick audit (passes not recomputed) gets here: the seeds' deal is not
        # the one dealt, so some pass deviated — the full audit says whose
        faults.append(Fault(None, "deal_mismatch", None, str(exc)))
        return None
    return replica


def _replay_host(replica: HandReplica, e: Mapping[str, Any], i: int,
                 faults: list[Fault]) -> None:
    """A host statement: one the judge would not have made is the host's false word (a
    bad signature or another history is the walk's to name); a true refusal may convict
    the refused seat."""
    t = e.get("type")
    try:
        replica.check_host(e)
    except TableError as exc:
        if "signed" not in exc.message and "another history" not in exc.message:
            faults.append(Fault(None, f"false_{t}", i, exc.message, party="host"))
    else:
        if t == "refusal":
            faults.extend(_proven_by_refusal(replica, e, i))
    try:
        replica.apply_host(e)
    except (KeyError, TypeError, ValueError):
        faults.append(Fault(None, "malformed", i, f"a {t} that cannot be applied"))


def _replay_seat(replica: HandReplica, e: Mapping[str, Any], i: int, faults: list[Fault],
                 conserve_each: bool) -> None:
    """A seat statement the host accepted: one the judge refuses convicts its seat and the
    host that let it through; then it is applied, and with `conserve_each` the cards are
    counted after it."""
    t = e.get("type")
    seat = e.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) \
            or not 0 <= seat < replica.n_seats:
        return          # named by the fair-deal audit
    try:
        replica.check_content(seat, e)
    except TableError as exc:
        what = _SEAT_CODES.get(exc.code)
        if what is not None:
            faults.append(Fault(seat, what, i, exc.message + (f" [{exc.rule}]"
                                                             if exc.rule else "")))
            faults.append(Fault(None, "accepted_invalid", i,
                                f"the host accepted seat {seat}'s {t} ({exc.code})",
                                party="host"))
    try:
        replica.apply(e)
    except (KeyError, TypeError, ValueError, LookupError):
        return          # malformed or illegal: named above
    if t == "action" and conserve_each:
        try:
            check_cards_conserved(replica.hand)
        except AssertionError as exc:
            faults.append(Fault(None, "cards_not_conserved", i, str(exc)))


def _conclude(report: HandAudit, replica: HandReplica, full: bool) -> None:
    """How the hand ended (`outcome.decide`, from the faults found) and the match after it;
    a hand dealt after the match ended has no state after it."""
    faults = report.verdict.faults
    report.replica = replica
    outcome = decide(replica, faults, full)
    report.outcome = outcome
    after = replica.state0.copy()
    after.set_hand_state(replica.timeouts, replica.auto, after.clock_used)
    try:
        if outcome.kind == "host_fault":
            after.record(outcome.result, end={"reason": "host_fault", "detail": outcome.detail})
        else:
            after.record(outcome.result, void=outcome.kind == "void")
    except (MatchStateError, ValueError) as exc:
        faults.append(Fault(None, "match_over", None, f"a hand after the match ended: {exc}"))
        return
    report.state_after = after


def settle_live(replica: HandReplica, state: MatchState | None = None,
                passes: bool = False) -> HandAudit | None:
    """The host's quick settlement of a hand that went plainly: the game ended it, nobody
    stopped it or timed out, no alarm, and the quick crypto audit (everything but the passes)
    finds nothing. The host's own replica judged every statement live, so the log is not
    replayed; the deal the seeds give is learned on a copy of the hand and scored. None when
    anything is amiss: the caller then runs the whole audit (`audit_hand`), as it does when
    a seat's sign-off disagrees (a cheat in a pass is never settled here).

    `passes=True` is a seat's own audit of a plain hand before it signs off: the same, with
    the passes and keys checked (`audit_log(compose=True)`, PROTOCOL § 9) and `state` the
    match before the hand as the seat folded it — its replica judged every statement live
    too, so neither the signatures nor the game are gone through again."""
    deal = replica.deal
    if replica.stop is not None or replica.lost or not replica.hand.is_over or deal.alarms \
            or deal.timeouts or any(deal.refusals.values()):
        return None
    verdict = audit_log(deal.log, judge_alarms=False, passes=passes, key=deal.head,
                        hashes=deal.hashes if deal.verify_signatures else None,
                        compose=passes)
    if verdict.faults or verdict.deal is None:
        return None
    hand = replica.hand.copy()
    try:
        _learn_all(hand, verdict.deal)
        check_cards_conserved(hand)
        result = hand.result()
    except (ValueError, AssertionError, LookupError):
        return None
    report = HandAudit(verdict, replica.hs, replica=replica,
                       outcome=HandOutcome("scored", result))
    after = (state if state is not None else replica.state0).copy()
    after.set_hand_state(replica.timeouts, replica.auto, after.clock_used)
    try:
        after.record(result)
    except (MatchStateError, ValueError):
        return None
    report.state_after = after
    return report


def audit_hand(entries: Sequence[Mapping[str, Any]], state: MatchState | None = None,
               passes: bool = True, compose: bool = False) -> HandAudit:
    """Audit a hand's log before it closes (host and peers): crypto, the judge, the outcome.
    `state`: the match before the hand, when the caller has folded it itself (a peer, an
    auditor of a whole match); otherwise the hand_start's snapshot. `passes=False`: the
    host's quick audit (see `fairdeal.audit.audit_log`). `compose=True`: a seat's own audit
    before it signs off checks the passes all at once first (`audit_log`, PROTOCOL § 9)."""
    verdict = audit_log(entries, judge_alarms=False, passes=passes, compose=compose)
    if not entries or any(f.what == "bad_hand_start" for f in verdict.faults):
        return HandAudit(verdict, entries[0] if entries else {})
    return _replay(entries, verdict, state)


def audit_transcript(t: Transcript, state: MatchState | None = None) -> HandAudit:
    """Audit a recorded hand: everything `audit_hand` checks, then what closed it — the
    host's signed `hand_end` (its result, outcome and state must be the log's) and every
    seat's sign-off (the log hash and the result hash each seat computed). A hand is fair
    when every seat signed the result the log leads to; a seat proven at fault needs no
    signature of its own to be convicted."""
    report = audit_hand(t.entries, state)
    verdict = report.verdict
    if any(f.what == "bad_hand_start" for f in verdict.faults):
        return report
    hs = t.entries[0]
    computed = log_hash(t.entries)
    expected = report.result_hash(computed)
    end = t.hand_end
    host_key = hs.get("host_key")
    if end is None:
        verdict.notes.append("the record has no hand_end")
        report.notes.append("incomplete: no hand_end")
    elif not isinstance(host_key, bytes) or not signing.verify(host_key, end) \
            or end.get("type") != "hand_end" or end.get("hand_id") != hs.get("hand_id"):
        verdict.faults.append(Fault(None, "bad_signature", None,
                                    "the hand_end is not signed by the hand's host key"))
    else:
        report.closed = True
        if end.get("transcript_hash") != computed:
            verdict.faults.append(Fault(None, "tampered", None,
                                        "the log is not the one the host closed the hand on "
                                        "(entries cut, added or changed)"))
        elif report.outcome is not None and report.state_after is not None and (
                end.get("result") != report.outcome.result.to_wire()
                or end.get("outcome") != report.outcome.to_wire()
                or end.get("result_hash") != expected
                or not isinstance(end.get("state"), Mapping)
                or MatchState.comparable(end["state"])
                != MatchState.comparable(report.state_after.snapshot())
                or end.get("match_over") is not report.state_after.is_over):
            verdict.faults.append(Fault(None, "wrong_result", None,
                                        "the host's signed result is not what the log leads "
                                        "to", party="host"))
    keys = [bytes(k) for k in hs.get("seat_keys") or []]
    signed: set[int] = set()
    disputed: list[int] = []
    carried = carried_sign_offs(end) if report.closed else []
    for so in carried:
        problem = sign_off_problem(hs, so)
        if problem is not None:     # the host signed a hand_end carrying it: its word
            verdict.faults.append(Fault(None, "false_sign_off", None,
                                        f"the host's hand_end carries {problem}", party="host"))
    for so in merge_sign_offs(t.sign_offs, [so for so in carried
                                            if sign_off_problem(hs, so) is None]):
        problem = sign_off_problem(hs, so)
        if problem is not None:
            verdict.faults.append(Fault(None, "bad_signature", None, problem))
            continue
        seat = int(so["seat"])
        if so.get("transcript_hash") == computed and so.get("result_hash") == expected:
            signed.add(seat)
        else:
            disputed.append(seat)
    report.notes.extend(f"seat {s} signed another history or result" for s in disputed)
    report.signed = sorted(signed)
    # the seat at fault for how the hand ended owes no sign-off (AUDIT-2): one a signed, true
    # timeout put out of the hand (away past grace, stalled), or the seat the outcome names
    # for a forfeit or an abandonment — the signed statements decide it without its word
    gone = set(report.replica.gone) if report.replica is not None else set()
    out = report.outcome
    if out is not None and out.kind in ("forfeit", "abandon") and out.seat is not None:
        gone.add(out.seat)
    report.excused = sorted(gone - signed)
    report.unsigned = sorted(set(range(len(keys))) - signed - gone)
    return report
