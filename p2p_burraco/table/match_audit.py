"""The audit of a whole match: every hand (`audit.audit_transcript`), the chain that binds
them, the standings folded from their outcomes, the host's final word, and who is to blame.

What `verify` needs beyond one hand's audit (PROTOCOL §8.8, §8.12, §8.13, §9):

- **The chain.** Hands in `hand_no` order from 0, none missing; each `hand_start` bound to
  the match (its id, the host's key, the rules), its hand id derived as §8.2 says, its
  `prev_result` the result hash the previous hand closed with, its `state` the match the
  auditor folded itself (hand 0: a fresh match). A `hand_start` is host-signed: a link
  that does not hold is the host's signed lie. A hand dealt after the match ended likewise.
- **The fold.** Each hand is audited on the state the auditor folded (never the state the
  host asserts), so its outcome, result hash and `hand_end` comparison are the auditor's
  own; the last `hand_end` (`state`, `match_over`) and `result.json` (unsigned: a mismatch
  is the record's) are compared with the fold.
- **Keys.** Every key a record names is weighed by `storage.known_keys.KeyJudge` (PROTOCOL
  § 9): a key never met is unknown, a name met with other keys a warning; a key that
  contradicts an explicit `--keys` pin makes the record not the pinned people's — not fair,
  and nothing in that hand is counted against anyone.
- **Copies.** Several copies of one hand are merged first (`table.records.merge_copies`):
  the union of their valid sign-offs; a key that signed both sides of a disagreement is
  convicted by it.
- **Blame.** A verdict names one party — a seat, the host or the record — and the
  statement that proves it. A record altered after the fact makes the replay see things
  that never happened (an entry cut out makes the next move look out of turn), so faults
  the judge finds beyond what a signature still pins down are not counted against anyone
  when the record itself is shown altered; a seat's own statements contradicting each
  other (a key, a seed, a pass, a proof, a claim) convict it whatever else was done.

Verdicts: **fair** (nothing at fault, every hand closed by the host and signed off by every
seat, every hand of the match here); **cheat** (a fault proven; exit 1); **incomplete**
(nothing proven, something missing: a sign-off, the hand_end, a hand; exit 2).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ..fairdeal import signing
from ..fairdeal.audit import Fault, Verdict
from ..fairdeal.deal import HOST_TYPES
from ..fairdeal.local import PROTOCOL_ID
from ..fairdeal.transcript import Transcript, log_hash
from ..games.base import forfeit_result
from .audit import HandAudit, audit_transcript
from .chain import FIRST, Before, Binding, chain_faults, same_state, state_diff
from .matchstate import MatchState, MatchStateError
from .records import HAND_FILE, MergedHand, merge_copies
from .statements import carried_sign_offs, merge_sign_offs, sign_off_problem

FAIR, CHEAT, INCOMPLETE = "fair", "cheat", "incomplete"
EXIT_CODES = {FAIR: 0, CHEAT: 1, INCOMPLETE: 2}

SELF_CONTAINED = frozenset({
    "bad_commitment", "bad_x25519", "wrong_shuffle", "wrong_lock", "bad_point",
    "duplicate_point", "wrong_key", "bad_envelope", "false_claim", "bad_deck",
    "bad_key"})
"""Seat faults its own signed statements prove by themselves (seed, keys, passes, proofs),
whatever the order or completeness of the rest of the record."""

CHAIN_FAULTS = frozenset({
    "bad_hand_id", "wrong_prev_result", "wrong_state", "not_fresh", "after_match_end",
    "rules_changed", "dealt_twice", "skipped"})
"""Faults of a host-signed hand_start against the match chain (`where` 0)."""

_RANK = {"record": 1, "seat": 2, "host": 3}


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def jsonish(value: Any) -> Any:
    """A value as it reads back from result.json (bytes as hex, tuples as lists)."""
    return json.loads(json.dumps(value, sort_keys=True,
                                 default=lambda v: v.hex() if isinstance(v, bytes) else str(v)))


def _hs_signed(hs: Mapping[str, Any]) -> bool:
    key = hs.get("host_key")
    return hs.get("type") == "hand_start" and isinstance(key, bytes) and len(key) == 32 \
        and signing.verify(key, hs)


@dataclass
class KeyUse:
    """One key a record names: `role` "host" or "seat N", the name it is pinned under."""

    role: str
    name: str
    key: bytes
    status: str            # pinned | known | unknown | clash | mismatch | "" (no pins)
    hand_no: int           # first hand naming it
    detail: str = ""       # the pinned keys (mismatch), the names met (known), the keys
                           # the name was met with (clash)


@dataclass
class HandCheck:
    """One hand's audit within its match: the hand audit, the chain checks, what is missing,
    and the verdict with the fault that decides it."""

    path: str
    transcript: Transcript
    report: HandAudit
    faults: list[Fault] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    trusted: list[Fault] = field(default_factory=list)
    discounted: list[Fault] = field(default_factory=list)
    primary: Fault | None = None
    log_hash: bytes = b""
    signed: list[int] = field(default_factory=list)
    disputed: list[int] = field(default_factory=list)
    saw_log: set[int] = field(default_factory=set)   # seats that signed off this very log
    other_log: set[int] = field(default_factory=set)  # seats that signed off another log
    pin_failed: bool = False    # a key here is not the one `--keys` pins for its name

    @property
    def hs(self) -> Mapping[str, Any]:
        return self.transcript.entries[0]

    @property
    def hand_no(self) -> int:
        n = self.hs.get("hand_no")
        return n if _is_int(n) else -1

    @property
    def names(self) -> list[str]:
        names = self.hs.get("names")
        return [str(n) for n in names] if isinstance(names, list) else []

    def seat_name(self, seat: int | None) -> str:
        if seat is None:
            return ""
        names = self.names
        return names[seat] if 0 <= seat < len(names) else ""

    def who(self, f: Fault) -> str:
        if f.party == "seat":
            name = self.seat_name(f.seat)
            return f"seat {f.seat}" + (f" ({name})" if name else "")
        return "the host" if f.party == "host" else "the record"

    def message(self, f: Fault) -> str:
        """Which message proves it: 'message 12 (release)', 'the hand_end', …"""
        if f.where is None:
            if f.what in ("tampered", "wrong_result", "false_verdict", "false_sign_off"):
                return "the hand_end"
            if f.what == "bad_signature" and "sign-off" in f.detail:
                return "a sign-off"
            return "the record as a whole"
        entries = self.transcript.entries
        t = entries[f.where].get("type") if 0 <= f.where < len(entries) else None
        return f"message {f.where}" + (f" ({t})" if isinstance(t, str) else "")

    @property
    def closed(self) -> bool:
        return self.report.closed

    @property
    def verdict(self) -> str:
        if self.trusted or self.pin_failed:
            return CHEAT
        if self.missing:
            return INCOMPLETE
        return FAIR

    @property
    def sound(self) -> bool:
        """The hand's outcome and the state after it are the auditor's own (an altered
        record makes the fold through it doubtful; a host's false word does not)."""
        r = self.report
        return r.outcome is not None and r.outcome.kind != "host_fault" \
            and r.state_after is not None and not any(f.party == "record" for f in self.trusted)

    def expected_result_hash(self) -> bytes | None:
        return self.report.result_hash(self.log_hash)


@dataclass
class MatchAudit:
    """A match (or a hand verified alone) — see the module docstring."""

    match_id: bytes | None
    source: str
    alone: bool
    hands: list[HandCheck] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)     # the match's own (record)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)     # identity warnings: no verdict
    keys: list[KeyUse] = field(default_factory=list)
    chain_checked: bool = False
    chain_ok: bool = True
    gaps: bool = False                      # hands of the match are missing
    computed: MatchState | None = None      # the fold after the last hand (None: unknown)
    fold_from: int = 0                      # the fold is the auditor's own from this hand
    stated: Mapping[str, Any] | None = None  # the last hand_end's state (host-signed)
    stated_over: bool | None = None
    result: Mapping[str, Any] | None = None
    result_path: str | None = None

    @property
    def verdict(self) -> str:
        if self.faults or any(h.verdict == CHEAT for h in self.hands):
            return CHEAT
        if self.missing or any(h.verdict == INCOMPLETE for h in self.hands):
            return INCOMPLETE
        return FAIR

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def culprit(self) -> tuple[Fault, HandCheck | None] | None:
        """The fault the verdict names, and its hand (None: the match's own records)."""
        order = ("key_mismatch", "other_match")
        for what in order:
            for f in self.faults:
                if f.what == what:
                    return f, None
        for h in self.hands:
            if h.primary is not None:
                return h.primary, h
        if self.faults:
            return self.faults[0], None
        return None

    def standings(self, which: str = "computed") -> dict[str, Any] | None:
        if which == "computed":
            return self.computed.standings() if self.computed is not None else None
        if self.stated is None or not self.hands:
            return None
        try:
            st = MatchState.of_hand_start({**self.hands[-1].hs, "state": dict(self.stated)})
        except MatchStateError:
            return None
        return st.standings()


# --------------------------------------------------------------------------- one hand

def _pinned_upto(t: Transcript, report: HandAudit, computed: bytes) -> int:
    """How much of the log a signature still pins down as the history it was made on: all of
    it when the host's hand_end or a seat's sign-off names its hash, else up to the last host
    statement signed for exactly its place (`at`, `head`)."""
    entries = t.entries
    if report.closed and (t.hand_end or {}).get("transcript_hash") == computed:
        return len(entries)
    hs = entries[0]
    keys: list[Any] = hs["seat_keys"] if isinstance(hs.get("seat_keys"), list) else []
    for so in t.sign_offs:
        seat = so.get("seat")
        if _is_int(seat) and 0 <= seat < len(keys) and so.get("transcript_hash") == computed \
                and so.get("hand_id") == hs.get("hand_id") and signing.verify(keys[seat], so):
            return len(entries)
    host_key = hs.get("host_key")
    best = 0
    head = signing.chain_start()
    for i, e in enumerate(entries):
        if i and e.get("type") in HOST_TYPES and e.get("at") == i and e.get("head") == head \
                and e.get("hand_id") == hs.get("hand_id") and isinstance(host_key, bytes) \
                and signing.verify(host_key, e):
            best = i
        head = signing.chain_step(head, signing.entry_hash(e))
    return best


def _order_dependent(f: Fault, entries: Sequence[Mapping[str, Any]]) -> bool:
    """A proof key judged against the keys published before it: the log's order matters."""
    return f.what == "wrong_key" and f.where is not None and 0 <= f.where < len(entries) \
        and entries[f.where].get("type") == "action"


def judge_hand(h: HandCheck) -> None:
    """Split the faults into those the evidence supports (`trusted`) and those that may only
    follow from an altered record (`discounted`), and pick the one the verdict names."""
    entries = h.transcript.entries
    faults = h.faults
    altered = any(f.party == "record" for f in faults)
    unsigned_at = {f.where for f in faults if f.party == "record" and f.where is not None
                   and f.what in ("bad_signature", "wrong_hand", "unexpected_entry")}
    pinned = len(entries) if not altered else (
        _pinned_upto(h.transcript, h.report, h.log_hash) if h.log_hash else 0)
    h.trusted, h.discounted = [], []
    open_hand = h.transcript.hand_end is None
    for f in faults:
        if open_hand and f.what == "no_reveal":
            ok = False          # a hand never closed: its seeds may simply not be in yet
            h.missing.append(f"{f.detail.split(' is missing')[0]} (the log stops before it)")
        elif f.party == "record" or f.what in CHAIN_FAULTS:
            ok = True
        elif f.where is not None and f.where in unsigned_at:
            ok = False          # a judgement of an entry no key signed
        elif f.party == "seat" and f.what in SELF_CONTAINED and not _order_dependent(f, entries):
            ok = True
        else:
            ok = not altered or f.where is None or f.where <= pinned
        (h.trusted if ok else h.discounted).append(f)
    # a false host statement changes the course of the hand: what a seat did after it is
    # judged against a history the seat may never have been shown, unless it signed it off
    # (and a seat that signed off another history says it was shown another one)
    lies = [f.where for f in h.trusted if f.party == "host" and f.where is not None
            and f.what not in CHAIN_FAULTS]
    first_lie = min(lies) if lies else len(entries) + 1
    later = [f for f in h.trusted if f.party == "seat" and f.what not in SELF_CONTAINED
             and f.seat not in h.saw_log and (f.seat in h.other_log or (
                 f.where is not None and f.where > first_lie))]
    if later:
        h.trusted = [f for f in h.trusted if f not in later]
        h.discounted.extend(later)

    def key(f: Fault) -> tuple[int, int, int]:
        crypto = f.party == "seat" and f.what in SELF_CONTAINED \
            and not _order_dependent(f, entries)
        where = f.where if f.where is not None else len(entries) + 1
        rank = 0 if f.what in CHAIN_FAULTS else _RANK.get(f.party, 4)
        return (0 if crypto else 1, where, rank)

    h.primary = min(h.trusted, key=key) if h.trusted else None


def _unsignable(t: Transcript) -> tuple[int | None, str] | None:
    """The first part of the record that cannot be canonically encoded (so no key can have
    signed it), or None."""
    parts: list[tuple[int | None, str, Any]] = [(i, f"entry {i}", e)
                                                for i, e in enumerate(t.entries)]
    parts.append((None, "the hand_end", t.hand_end))
    parts.extend((None, "a sign-off", so) for so in t.sign_offs)
    for where, what, value in parts:
        try:
            signing.canonical(value)
        except (TypeError, ValueError, OverflowError, RecursionError):
            return where, what
    return None


def audit_hand_file(path: str, t: Transcript, state: MatchState | None) -> HandCheck:
    """Audit one recorded hand on `state` (None: its hand_start's) and list what is
    missing for it to be fair. Chain faults are added by the caller, then `judge_hand`."""
    odd = _unsignable(t)
    if odd is not None:
        where, what = odd
        h = HandCheck(path, t, HandAudit(Verdict([record_fault(
            "unsignable", f"{what} holds a value no signed message can hold (a float, an "
                          "extension type…): the file was altered", where)]), t.entries[0]))
        return h
    try:
        report = audit_transcript(t, state)
    except Exception as exc:  # noqa: BLE001 - a record the auditor cannot digest: say so
        h = HandCheck(path, t, HandAudit(Verdict(), t.entries[0]))
        h.log_hash = log_hash(t.entries)
        h.missing.append(f"a verdict: the audit could not finish on this record "
                         f"({type(exc).__name__}: {exc})")
        return h
    h = HandCheck(path, t, report, list(report.verdict.faults))
    h.log_hash = log_hash(t.entries)
    h.notes.extend(report.notes)
    h.notes.extend(report.verdict.notes)
    h.notes[:] = [n for n in h.notes if n not in ("incomplete: no hand_end",
                                                  "the record has no hand_end")
                  and not n.endswith("signed another history or result")]
    if any(f.what == "bad_hand_start" for f in report.verdict.faults):
        return h
    end = t.hand_end
    if report.closed and not h.faults and isinstance(end, Mapping) \
            and end.get("verdict") != {"fair": True, "faults": []}:
        h.faults.append(Fault(None, "false_verdict", None, "the host's signed hand_end "
                              "reports faults in a log where there are none", party="host"))
    if any(f.what == "wrong_result" for f in h.faults):
        h.notes.append("the hand_end differs from the log's outcome in: "
                       + ", ".join(_end_diff(t.hand_end or {}, report, h.log_hash)))
    hs = t.entries[0]
    present: set[int] = set()
    for so in merge_sign_offs(t.sign_offs, carried_sign_offs(t.hand_end)
                              if report.closed else []):
        if sign_off_problem(hs, so) is None:
            seat = int(so["seat"])
            present.add(seat)
            if so.get("transcript_hash") == h.log_hash:
                h.saw_log.add(seat)
            else:
                h.other_log.add(seat)
    h.signed = list(report.signed)
    h.disputed = sorted(present - set(report.signed))
    if t.hand_end is None:
        h.missing.append("the host's hand_end (the hand was never closed)")
    for s in report.unsigned:
        name = h.seat_name(s)
        label = f"seat {s}" + (f" ({name})" if name else "")
        if s in h.disputed:
            h.missing.append(f"{label}'s sign-off on this result: it signed another history or "
                             "result (the record cannot say whose account is wrong)")
        else:
            h.missing.append(f"{label}'s sign-off")
    for s in report.excused:
        h.notes.append(f"seat {s} ({h.seat_name(s) or '?'}) did not sign off: a signed "
                       "timeout put it out of the hand, so none is owed")
    return h


def _end_diff(end: Mapping[str, Any], report: HandAudit, computed: bytes) -> list[str]:
    out = []
    assert report.outcome is not None and report.state_after is not None
    if end.get("result") != report.outcome.result.to_wire():
        out.append("result")
    if end.get("outcome") != report.outcome.to_wire():
        out.append(f"outcome (stated {(end.get('outcome') or {}).get('kind')!r}, the log "
                   f"gives {report.outcome.kind!r})")
    stated = end.get("state")
    if not isinstance(stated, Mapping) or not same_state(stated, report.state_after.snapshot()):
        out.append("state (" + state_diff(stated if isinstance(stated, Mapping) else {},
                                           report.state_after.snapshot()) + ")")
    if end.get("match_over") is not report.state_after.is_over:
        out.append(f"match_over (stated {end.get('match_over')!r}, the fold gives "
                   f"{report.state_after.is_over})")
    if end.get("result_hash") != report.result_hash(computed):
        out.append("result_hash")
    return out or ["?"]


# --------------------------------------------------------------------------- the match

def _host_fault(what: str, detail: str) -> Fault:
    return Fault(None, what, 0, detail, party="host")


def record_fault(what: str, detail: str, where: int | None = None) -> Fault:
    return Fault(None, what, where, detail, party="record")


def _fresh(hs: Mapping[str, Any]) -> MatchState:
    return MatchState.of_hand_start({**hs, "state": {}})


def _with_clock(state: MatchState, hs: Mapping[str, Any]) -> MatchState:
    """The auditor's state with the host's clock (the one part nobody else can know)."""
    out = state.copy()
    used = (hs.get("state") or {}).get("clock_used") if isinstance(hs.get("state"), Mapping) \
        else None
    if isinstance(used, list) and len(used) == out.n_seats and all(_is_int(u) for u in used):
        out.clock_used = list(used)
    return out


def audit_match(hands: Sequence[tuple[str, Transcript]], *, alone: bool = False,
                result: Any = None, result_path: str | None = None,
                foreign: Sequence[tuple[str, bytes]] = (),
                key_check: Callable[[str, str, bytes], tuple[str, str]] | None = None,
                source: str = "") -> MatchAudit:
    """Audit the hands of one match (see the module docstring). `hands`: (path, transcript)
    of one match id, any order. `alone`: a single file verified by itself (no chain, no
    missing hands). `result`: result.json's parsed value (or a string saying why it could
    not be read). `foreign`: (path, match id) of files found among this match's that belong
    to another match. `key_check(role, name, key)`: (status, detail) as
    `storage.known_keys.KeyJudge.check` gives them."""
    ordered = sorted(hands, key=lambda pt: (
        pt[1].entries[0].get("hand_no") if _is_int(pt[1].entries[0].get("hand_no"))
        else 1 << 40, pt[0]))
    mid = ordered[0][1].entries[0].get("match_id") if ordered else None
    ma = MatchAudit(mid if isinstance(mid, bytes) else None, source, alone)
    for path, other in foreign:
        ma.faults.append(record_fault(
            "other_match", f"{path} is a hand of another match ({other.hex()}), put among the "
                           f"hands of match {ma.match_id.hex() if ma.match_id else '?'}"))
    walk = _MatchWalk(ma, key_check)
    for merged in _one_record_per_hand(ordered):
        walk.hand(merged)
    _match_end(ma, walk.fold, result, result_path)
    return ma


def _one_record_per_hand(ordered: Sequence[tuple[str, Transcript]]) -> list[MergedHand]:
    """The copies of each hand merged into one record (`table.records.merge_copies`), in
    hand order: the walk audits one record per hand and keeps what the copies prove."""
    by_no: dict[Any, list[tuple[str, Transcript]]] = {}
    for path, t in ordered:
        no = t.entries[0].get("hand_no")
        by_no.setdefault(no if _is_int(no) else ("?", path), []).append((path, t))
    return [merge_copies(group) for group in by_no.values()]


def _hand_span(lo: int, hi: int) -> str:
    """'hand 3' or 'hands 3–5' (1-based), for the hands a record lacks."""
    return f"hand{'s' if hi > lo else ''} {lo}" + (f"–{hi}" if hi > lo else "")


@dataclass
class _Link:
    """Where one hand sits in the match: the chain faults of its hand_start, what the chain
    says of it (notes) or lacks before it (missing), and the state to audit it on (the
    auditor's own fold with the host's clock; None: the hand_start's word)."""

    faults: list[Fault] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    state: MatchState | None = None


@dataclass
class _MatchWalk:
    """The hands of one match in order, each audited on what the hands before it left: the
    fold (the match after the last sound hand, the auditor's own), the first signed
    hand_start (the match's binding), the hand before, and the keys already weighed (each
    key is judged once, in the first hand that names it)."""

    ma: MatchAudit
    key_check: Callable[[str, str, bytes], tuple[str, str]] | None
    fold: MatchState | None = None
    first_hs: Mapping[str, Any] | None = None
    prev: HandCheck | None = None
    seen_keys: dict[tuple[str, str, bytes], KeyUse] = field(default_factory=dict)

    def hand(self, merged: MergedHand) -> None:
        """Audit the next hand: link it to the chain, audit it on the state that gives,
        weigh its keys, then carry the fold through it."""
        ma, path, t = self.ma, merged.path, merged.transcript
        hs = t.entries[0]
        signed_hs = _hs_signed(hs)
        hand_no = hs.get("hand_no") if _is_int(hs.get("hand_no")) else None
        if signed_hs and hand_no is not None:
            link = self._link(path, hs, hand_no)
        else:
            link = _Link()
            if not ma.alone:
                link.notes.append("the chain cannot be checked through this hand (its "
                                  "hand_start is not the host's)")
        h = audit_hand_file(path, t, link.state)
        h.faults[:0] = link.faults
        h.notes.extend(link.notes)
        h.missing[:0] = link.missing
        h.faults.extend(merged.faults)
        h.notes.extend(merged.notes)
        h.missing.extend(merged.missing)
        judge_hand(h)
        if h.trusted:
            ma.chain_ok = ma.chain_ok and not any(f.what in CHAIN_FAULTS or f.what in (
                "other_host",) for f in h.trusted)
        if link.missing:
            ma.chain_ok = False
            ma.gaps = True
        if signed_hs:
            self._weigh_keys(h, hs, path)
        ma.hands.append(h)
        self._carry_fold(h, hand_no, signed_hs, link.state)
        self.prev = h

    def _link(self, path: str, hs: Mapping[str, Any], hand_no: int) -> _Link:
        """Check a host-signed hand_start against the hand before it with the one chain
        check (table/chain.py), every link collected."""
        ma = self.ma
        ma.chain_checked = ma.chain_checked or not ma.alone
        link = _Link()
        if hs.get("protocol") != PROTOCOL_ID:
            link.notes.append(f"protocol {hs.get('protocol')!r}, not {PROTOCOL_ID}")
        binding = Binding.of(self.first_hs) if self.first_hs is not None else None
        if self.first_hs is None:
            self.first_hs = hs
        else:
            link.notes.extend(_new_occupants(self.first_hs, self.prev, hs))
        if self.prev is None:
            before, fold = self._opening(hs, hand_no, link)
        else:
            before, fold = self._after(self.prev, path, hand_no, link)
        link.faults.extend(record_fault(cf.what, cf.detail, 0) if cf.what == "other_host"
                           else _host_fault(cf.what, cf.detail)
                           for cf in chain_faults(hs, before, binding))
        if fold is not None and not fold.is_over:
            link.state = _with_clock(fold, hs)
        return link

    def _opening(self, hs: Mapping[str, Any], hand_no: int,
                 link: _Link) -> tuple[Before | str | None, MatchState | None]:
        """The first hand here: the match's first hand starts fresh; a later one either
        is verified alone (its state taken on trust) or the hands before it are missing."""
        ma = self.ma
        if hand_no == 0:
            try:
                fold: MatchState | None = _fresh(hs)
            except MatchStateError:
                fold = None             # chain_faults names it
            ma.fold_from = 0
            if ma.alone:
                link.notes.append("verified alone: the chain to earlier hands was not "
                                  "checked (this is the match's first hand: its fresh "
                                  "start was)")
            return FIRST, fold
        if ma.alone:
            link.notes.append("verified alone: the chain to earlier hands was not checked "
                              "(the match state is the hand_start's word)")
            return None, None
        link.missing.append(_hand_span(1, hand_no) + " of the match (the chain starts at "
                            f"hand {hand_no + 1})")
        ma.fold_from = hand_no
        return None, None

    def _after(self, prev: HandCheck, path: str, hand_no: int,
               link: _Link) -> tuple[Before | str | None, MatchState | None]:
        """A hand after another: what the hand before closed with (its hand_end, else the
        auditor's own result when the hand was sound) and the fold, unless hands lie
        between them."""
        expected = prev.hand_no + 1
        if hand_no > expected:
            link.missing.append(_hand_span(expected + 1, hand_no) + " of the match "
                                f"(between {prev.path} and {path})")
            self.ma.fold_from = hand_no
            return None, None
        end = prev.transcript.hand_end if prev.closed else None
        want_prev = end.get("result_hash") if end is not None else (
            prev.expected_result_hash() if prev.sound else None)
        if want_prev is None:
            link.notes.append(f"the link to hand {expected} cannot be checked (it has no "
                              "result of its own)")
        stated = end.get("state") if end is not None else None
        fold = self.fold
        return Before(prev.hand_no, want_prev, fold.snapshot() if fold is not None else None,
                      stated if isinstance(stated, Mapping) else None,
                      over=fold is not None and fold.is_over), fold

    def _weigh_keys(self, h: HandCheck, hs: Mapping[str, Any], path: str) -> None:
        """Weigh each key the hand_start names (`key_check`) the first time it appears; a
        key that is not the one pinned for its name makes the hand prove nothing against
        anyone, a name met with another key is a warning."""
        ma = self.ma
        uses = [("host", "host", hs.get("host_key"))] + [
            (f"seat {s}", h.seat_name(s), k) for s, k in enumerate(hs.get("seat_keys") or [])]
        for role, name, k in uses:
            if not isinstance(k, bytes):
                continue
            ident = (role, name, k)
            if ident in self.seen_keys:
                if self.seen_keys[ident].status == "mismatch":
                    h.pin_failed = True
                continue
            status, detail = self.key_check(role, name, k) if self.key_check is not None \
                else ("", "")
            use = KeyUse(role, name, k, status, h.hand_no, detail)
            self.seen_keys[ident] = use
            ma.keys.append(use)
            if status == "mismatch":
                h.pin_failed = True
                ma.faults.append(record_fault(
                    "key_mismatch", f"{role} ({name}) signs with key {k.hex()[:16]}…, which "
                                    f"is not the key pinned for {name!r} ({detail}) "
                                    f"(first in hand {h.hand_no + 1}, {path}): this is not "
                                    "the record of the people pinned, and it proves "
                                    "nothing against them"))
            elif status == "clash":
                ma.warnings.append(
                    f"{role} is named {name!r} here with key {k.hex()}; this machine met "
                    f"{name!r} with key {detail} — names are labels, the key is the "
                    "identity: compare the fingerprints with the person")
        if h.pin_failed:
            # statements of keys that are not the pinned people's convict nobody
            h.discounted.extend(h.trusted)
            h.trusted, h.primary = [], None

    def _carry_fold(self, h: HandCheck, hand_no: int | None, signed_hs: bool,
                    state: MatchState | None) -> None:
        """The fold through this hand (from a state taken on trust if it had to be): only
        a sound hand of a host-signed hand_start carries it; after any other the fold is
        the auditor's own again only from the next fresh start."""
        if h.sound and hand_no is not None and signed_hs:
            if state is None:
                self.ma.fold_from = hand_no
            self.fold = h.report.state_after
        else:
            self.fold = None
            self.ma.fold_from = (hand_no if hand_no is not None else 0) + 1


def _new_occupants(first_hs: Mapping[str, Any], prev: HandCheck | None,
                   hs: Mapping[str, Any]) -> list[str]:
    """Seats whose key differs from the first hand's and from the hand before: someone new
    sits there (a note, not a fault: a seat may change hands between hands)."""
    notes = []
    for s, (a, b) in enumerate(zip(first_hs.get("seat_keys") or [],
                                   hs.get("seat_keys") or [])):
        if a != b and prev is not None and \
                (prev.hs.get("seat_keys") or [None] * 16)[s] != b:
            notes.append(f"seat {s} has a new occupant from this hand on (key "
                         f"{bytes(b).hex()[:16]})")
    return notes


def _match_end(ma: MatchAudit, fold: MatchState | None, result: Any,
               result_path: str | None) -> None:
    """After the last hand: the file names against the hand numbers, the fold against the
    last hand_end and result.json, or a note that the match is not over yet."""
    if not ma.alone:
        _check_names(ma)
    last = ma.hands[-1] if ma.hands else None
    ma.computed = fold.copy() if fold is not None else None
    if last is not None and last.closed and last.transcript.hand_end is not None:
        ma.stated = last.transcript.hand_end.get("state")
        over = last.transcript.hand_end.get("match_over")
        ma.stated_over = over if isinstance(over, bool) else None
    if result is not None and not ma.alone:
        _check_result(ma, result, result_path or "result.json")
    elif not ma.alone and last is not None and ma.computed is not None \
            and not ma.computed.is_over:
        ma.notes.append(f"the match is not over after hand {last.hand_no + 1} (still being "
                        "played, or its later hands are not here): verified as far as it goes")


def _check_names(ma: MatchAudit) -> None:
    """`hand-NNN.p2pb` must hold hand NNN: the file names are the record's order of the
    match, and a name that contradicts the signed hand number was changed by hand."""
    wrong = []
    for h in ma.hands:
        m = HAND_FILE.match(os.path.basename(h.path))
        if m and h.hand_no >= 0 and int(m.group(1)) != h.hand_no + 1:
            wrong.append(f"{os.path.basename(h.path)} holds hand {h.hand_no + 1}")
    if wrong:
        ma.chain_ok = False
        ma.faults.append(record_fault(
            "reordered", "the hand files are not in the order their signed hand numbers "
                         f"give ({', '.join(wrong[:4])}): renamed or reordered after the fact"))


# --------------------------------------------------------------------------- result.json

def _end_reason(ma: MatchAudit) -> str | None:
    """Why the fold says the match ended (what the host writes as `reason`), or None."""
    st, last = ma.computed, ma.hands[-1]
    assert st is not None
    if st.end is not None:
        return str(st.end.get("reason"))
    out = last.report.outcome
    if out is not None and out.kind == "forfeit":
        return "forfeit"
    if out is not None and out.kind == "abandon":
        return "timeout" if out.cause in ("timeout", "match_clock") else "abandonment"
    if st.match.is_over:
        return "target"
    return None


def _diff(stated: Any, computed: Any) -> str:
    if isinstance(stated, Mapping) and isinstance(computed, Mapping):
        keys = [k for k in sorted(set(stated) | set(computed))
                if stated.get(k) != computed.get(k)]
        first = [k for k in ("totals", "winner", "over") if k in keys]
        rest = [k for k in keys if k not in first]
        return "; ".join(f"{k}: result.json {stated.get(k)!r}, the hands give "
                         f"{computed.get(k)!r}" for k in (first + rest)[:4])
    return f"result.json {stated!r}, the hands give {computed!r}"


def _check_result(ma: MatchAudit, result: Any, path: str) -> None:
    """result.json is unsigned: whatever in it the signed hands contradict is the record's
    fault; hands it counts that are not here are missing."""
    ma.result_path = path
    if isinstance(result, str):
        ma.faults.append(record_fault("bad_result_file", f"{path}: {result}"))
        return
    if not isinstance(result, Mapping):
        ma.faults.append(record_fault("bad_result_file", f"{path} is not a JSON object"))
        return
    ma.result = result
    last = ma.hands[-1] if ma.hands else None
    if ma.match_id is not None and result.get("match_id") not in (None, ma.match_id.hex()):
        ma.faults.append(record_fault("other_match", f"{path} is the result of match "
                                       f"{result.get('match_id')}, not {ma.match_id.hex()}"))
        return
    if last is None:
        return
    _check_result_hands(ma, result, path, last)
    if ma.gaps:
        ma.notes.append(f"the standings in {path} were not compared: hands of the match are "
                        "missing")
        return
    if ma.computed is None:
        ma.notes.append(f"the standings in {path} could not be recomputed (the last hand "
                        "has no outcome of its own)")
        return
    _check_result_standings(ma, result, path, last)


def _check_result_hands(ma: MatchAudit, result: Mapping[str, Any], path: str,
                        last: HandCheck) -> None:
    """What result.json says of the record itself (host key, how many hands and which
    files, who sat where) against the signed hands: a hand it counts that is not here is
    missing, and then its standings cannot be compared."""
    hk = last.hs.get("host_key")
    if isinstance(hk, bytes) and result.get("host_key") not in (None, hk.hex()):
        ma.faults.append(record_fault("wrong_result_file", f"{path} names host key "
                                       f"{str(result.get('host_key'))[:16]}…, the hands "
                                       f"{hk.hex()[:16]}…"))
    n = result.get("hands")
    have = last.hand_no + 1
    if _is_int(n):
        if n > have:
            ma.gaps = True
            ma.missing.append(_hand_span(have + 1, n) + f" ({path} counts {n} hands)")
        elif n < have:
            ma.faults.append(record_fault("wrong_result_file", f"{path} counts {n} hands; "
                                           f"the signed chain has {have}"))
    listed = result.get("transcripts")
    if isinstance(listed, list):
        present = {os.path.basename(h.path) for h in ma.hands}
        gone = [str(x) for x in listed if str(x) not in present]
        if gone and not (_is_int(n) and n > have):
            ma.missing.append(f"{', '.join(gone[:4])} ({path} lists "
                              f"{'them' if len(gone) > 1 else 'it'})")
    seats = result.get("seats")
    keys = last.hs.get("seat_keys") or []
    if isinstance(seats, list):
        for s in seats:
            if not isinstance(s, Mapping) or not _is_int(s.get("seat")):
                continue
            i, ident = s["seat"], s.get("identity")
            if 0 <= i < len(keys) and isinstance(ident, str) and ident != bytes(keys[i]).hex():
                ma.faults.append(record_fault("wrong_result_file", f"{path} names key "
                                               f"{ident[:16]}… at seat {i}; the last hand has "
                                               f"{bytes(keys[i]).hex()[:16]}…"))


def _check_result_standings(ma: MatchAudit, result: Mapping[str, Any], path: str,
                            last: HandCheck) -> None:
    """result.json's standings and end reason against the fold of the signed results: an
    abandonment between hands (no hand records it) is the host's word, so standings it
    would explain are unproven rather than false."""
    assert ma.computed is not None
    have = last.hand_no + 1
    computed = jsonish(ma.computed.standings())
    stated = result.get("standings")
    reason = result.get("reason")
    expected = _end_reason(ma)
    if stated != computed:
        explained = False
        if reason == "abandonment" and expected is None:
            who = _abandoned_between(ma, stated)
            if who is not None:
                explained = True        # nothing unsigned is believed: unproven, not FAIR
                ma.missing.append(f"a signed statement for {path}'s claim: it says the "
                                  f"match ended between hands by seat {who} "
                                  f"({last.seat_name(who)})'s abandonment, which no signed "
                                  "statement backs (the host's word only)")
        if not explained:
            ma.faults.append(record_fault(
                "wrong_standings", f"the standings in {path} are not what the signed results "
                                   f"give: {_diff(stated, computed)}"))
    elif reason is not None:
        if expected is not None and reason != expected:
            ma.faults.append(record_fault("wrong_reason", f"{path} says the match ended by "
                                           f"{reason!r}; the hands say {expected!r}"))
        elif expected is None and reason != "hands":
            ma.faults.append(record_fault("wrong_reason", f"{path} says the match ended by "
                                           f"{reason!r}, but the hands leave it unfinished"))
        elif expected is None:
            ma.notes.append(f"{path}: ended by the host's hand limit after {have} hand(s) "
                            "(the limit is the host's setting, not signed)")


def _abandoned_between(ma: MatchAudit, stated: Any) -> int | None:
    """The seat whose abandonment between hands (TABLE-6/9, no hand records it) would turn
    the fold into the stated standings, if one does."""
    assert ma.computed is not None
    st = ma.computed
    sides = st.match.standings().get("sides") or [[s] for s in range(st.n_seats)]
    for seat in range(st.n_seats):
        for cause in ("grace", "abandon"):
            trial = st.copy()
            try:
                trial.record(forfeit_result([list(x) for x in sides], seat, cause, st.n_seats))
            except (ValueError, MatchStateError):
                continue
            if jsonish(trial.standings()) == stated:
                return seat
    return None
