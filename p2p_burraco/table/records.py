"""Several copies of one hand, merged into the one record the audit judges.

The host keeps a copy of every hand, and so does every seat (its own `hand-NNN.p2pb`). They
carry the same signed statements, so `verify` given several copies takes their union: the
log they share, the host's hand_end, and every valid sign-off any copy holds. Copies that
disagree prove something only through signatures: two statements that cannot both be true,
signed by one key, convict that key's owner — a host that signed two histories for one place
of the log (or two hand_starts, or two hand_ends), a seat that signed two statements for one
seq or two sign-offs. A disagreement nobody signed both sides of convicts nobody: the copies
are named, and the hand stays unproven (PROTOCOL § 9, "Copies of one hand merge").
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fairdeal import signing
from ..fairdeal.audit import Fault
from ..fairdeal.deal import HOST_TYPES
from ..fairdeal.transcript import Transcript
from .statements import carried_sign_offs, merge_sign_offs, sign_off_problem


@dataclass
class MergedHand:
    """The record of one hand made from its copies: what to audit, and what the copies
    themselves prove (faults), say (notes) or leave open (missing)."""

    path: str
    transcript: Transcript
    copies: list[str] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def _safe_hash(value: Any) -> bytes | None:
    try:
        return signing.entry_hash(value)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return None


def _heads(entries: Sequence[Mapping[str, Any]]) -> list[bytes] | None:
    """heads[i]: the log hash of entries[:i] (len(entries) + 1 of them)."""
    head = signing.chain_start()
    out = [head]
    for e in entries:
        h = _safe_hash(e)
        if h is None:
            return None
        head = signing.chain_step(head, h)
        out.append(head)
    return out


def _verifies(key: Any, msg: Any) -> bool:
    try:
        return isinstance(key, bytes) and isinstance(msg, Mapping) and signing.verify(key, msg)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return False


def _host_signed_end(t: Transcript, heads: list[bytes]) -> bool:
    """The host's own hand_end, over exactly this copy's log."""
    hs, end = t.entries[0], t.hand_end
    return isinstance(end, Mapping) and end.get("type") == "hand_end" \
        and end.get("hand_id") == hs.get("hand_id") \
        and end.get("transcript_hash") == heads[-1] and _verifies(hs.get("host_key"), end)


def _host_commits_from(t: Transcript, heads: list[bytes], k: int) -> int | None:
    """The first place at or after `k` where the host signed this copy's history (a host
    statement signed for exactly its place, whose `head` names entries[:i]), or
    len(entries) for its hand_end over the whole log; None if it signed none."""
    hs = t.entries[0]
    key = hs.get("host_key")
    for i in range(max(k, 1), len(t.entries)):
        e = t.entries[i]
        if e.get("type") in HOST_TYPES and e.get("at") == i and e.get("head") == heads[i] \
                and e.get("hand_id") == hs.get("hand_id") and _verifies(key, e):
            return i
    return len(t.entries) if _host_signed_end(t, heads) else None


def _seat_signed(hs: Mapping[str, Any], e: Mapping[str, Any]) -> int | None:
    keys = hs.get("seat_keys")
    seat = e.get("seat")
    if e.get("type") in HOST_TYPES or e.get("type") == "hand_start" \
            or not isinstance(seat, int) or isinstance(seat, bool) \
            or not isinstance(keys, list) or not 0 <= seat < len(keys) \
            or e.get("hand_id") != hs.get("hand_id") or not _verifies(keys[seat], e):
        return None
    return seat


def _signed_entry(hs: Mapping[str, Any], e: Any) -> bool:
    """A log entry some key of this hand signed (its seat's, or the host's)."""
    if not isinstance(e, Mapping):
        return False
    if e.get("type") in HOST_TYPES:
        return e.get("hand_id") == hs.get("hand_id") and _verifies(hs.get("host_key"), e)
    return _seat_signed(hs, e) is not None


def _seat_equivocations(hs: Mapping[str, Any], copies: Sequence[tuple[str, Transcript]]
                        ) -> list[Fault]:
    """Two different statements one seat signed for one seq, or two different sign-offs,
    across the copies: the seat's own signatures convict it."""
    by_seq: dict[tuple[int, Any], dict[Any, str]] = {}
    sign_offs: dict[int, dict[Any, str]] = {}
    for path, t in copies:
        stmts: list[Mapping[str, Any]] = list(t.entries[1:])
        stmts += [e["msg"] for e in t.entries[1:]
                  if e.get("type") == "refusal" and isinstance(e.get("msg"), Mapping)]
        for e in stmts:
            seat = _seat_signed(hs, e)
            h = _safe_hash(e)
            if seat is not None and h is not None:
                by_seq.setdefault((seat, e.get("seq")), {}).setdefault(h, path)
        for so in [*t.sign_offs, *carried_sign_offs(t.hand_end)]:
            if sign_off_problem(hs, so) is None:
                sign_offs.setdefault(int(so["seat"]), {}).setdefault(
                    (so.get("transcript_hash"), so.get("result_hash")), path)
    out = []
    for (seat, seq), seen in sorted(by_seq.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        if len(seen) > 1:
            paths = sorted(set(seen.values()))
            out.append(Fault(seat, "two_statements", None,
                             f"seat {seat} signed two different statements for seq {seq} "
                             f"({', '.join(paths)})"))
    for seat, seen in sorted(sign_offs.items()):
        if len(seen) > 1:
            paths = sorted(set(seen.values()))
            out.append(Fault(seat, "two_sign_offs", None,
                             f"seat {seat} signed off two different results of this hand "
                             f"({', '.join(paths)})"))
    return out


def merge_copies(copies: Sequence[tuple[str, Transcript]]) -> MergedHand:
    """One hand's copies (same hand number of one match) merged; see the module
    docstring."""
    first_path, first = copies[0]
    if len(copies) == 1:
        return MergedHand(first_path, first, [first_path])
    paths = [p for p, _ in copies]
    faults: list[Fault] = []
    notes: list[str] = []
    missing: list[str] = []
    copies = _one_hand_start(copies, faults)
    hs = copies[0][1].entries[0]
    # the copies' logs: identical ones merge; the primary is the one the host closed
    logs: dict[bytes, list[tuple[str, Transcript, list[bytes]]]] = {}
    for p, t in copies:
        heads = _heads(t.entries)
        if heads is None:
            faults.append(Fault(None, "unsignable", None, f"{p} holds a value no signed "
                                "message can hold: the file was altered", party="record"))
            continue
        logs.setdefault(heads[-1], []).append((p, t, heads))
    if not logs:
        return MergedHand(first_path, first, paths, faults, notes, missing)

    def rank(item: tuple[bytes, list[tuple[str, Transcript, list[bytes]]]]) -> tuple[int, int]:
        group = item[1]
        closed = any(_host_signed_end(t, heads) for _, t, heads in group)
        return (0 if closed else 1, -len(group[0][1].entries))
    ordered = sorted(logs.items(), key=rank)
    primary = ordered[0][1]
    p0, t0, heads0 = primary[0]
    hand_end = _one_hand_end(primary, faults)
    sign_offs = merge_sign_offs(*([*t.sign_offs, *carried_sign_offs(t.hand_end)]
                                  for _, t, _ in primary))
    # the other histories: what only a signer of both proves
    for _, group in ordered[1:]:
        p1, t1, heads1 = group[0]
        k = 0
        n = min(len(t0.entries), len(t1.entries))
        while k < n and heads0[k + 1] == heads1[k + 1]:
            k += 1
        if _weigh_fork(hs, (p0, t0, heads0), (p1, t1, heads1), k, faults, notes, missing):
            sign_offs = merge_sign_offs(sign_offs, t1.sign_offs)
    faults.extend(_seat_equivocations(hs, copies))
    merged = Transcript([dict(e) for e in t0.entries],
                        dict(hand_end) if isinstance(hand_end, Mapping) else None, sign_offs)
    if len(paths) > 1:
        notes.append(f"{len(paths)} copies of this hand merged: {', '.join(paths)}")
    return MergedHand(p0, merged, paths, faults, notes, missing)


def _one_hand_start(copies: Sequence[tuple[str, Transcript]], faults: list[Fault]
                    ) -> Sequence[tuple[str, Transcript]]:
    """The copies of the hand_start signed by its host key that most copies hold: two
    different ones the host signed are its fault (it dealt the hand twice); else the other
    copy is a second record, named as the one whose hand_start is not the host's."""
    starts: dict[bytes | None, list[tuple[str, Transcript]]] = {}
    for p, t in copies:
        starts.setdefault(_safe_hash(t.entries[0]), []).append((p, t))
    if len(starts) == 1:
        return copies
    # a copy whose hand_start its own host key signed stands before one altered where no
    # key signed (even one held by more copies: an edit is not outvoted into the truth)
    groups = sorted(starts.values(), key=lambda g: (
        not _verifies(g[0][1].entries[0].get("host_key"), g[0][1].entries[0]), -len(g)))
    main_hs = groups[0][0][1].entries[0]
    key = main_hs.get("host_key")
    for g in groups[1:]:
        other = g[0][1].entries[0]
        no = main_hs.get("hand_no")
        no_txt = no + 1 if isinstance(no, int) else "?"
        if _verifies(key, main_hs) and other.get("host_key") == key \
                and _verifies(key, other):
            faults.append(Fault(None, "dealt_twice", 0,
                                f"the host signed two different hand_starts for hand "
                                f"{no_txt} ({groups[0][0][0]}, {g[0][0]})", party="host"))
        else:
            faults.append(Fault(None, "two_records", None,
                                f"two different records of hand {no_txt}: "
                                f"{groups[0][0][0]} and {g[0][0]} (the second's "
                                "hand_start is not the host's)", party="record"))
    return groups[0]


def _one_hand_end(primary: Sequence[tuple[str, Transcript, list[bytes]]],
                  faults: list[Fault]) -> Any:
    """The hand_end of the primary log: one the host signed for it (two different ones
    are its fault), else any copy's."""
    ends: dict[bytes, tuple[str, Any]] = {}
    for p, t, heads in primary:
        if _host_signed_end(t, heads):
            h = _safe_hash(t.hand_end)
            if h is not None:
                ends.setdefault(h, (p, t.hand_end))
    if len(ends) > 1:
        (pa, _), (pb, _) = list(ends.values())[:2]
        faults.append(Fault(None, "two_hand_ends", None,
                            f"the host signed two different hand_ends for one log ({pa}, "
                            f"{pb})", party="host"))
    return next(iter(ends.values()))[1] if ends else next(
        (t.hand_end for _, t, _ in primary if t.hand_end is not None), None)


def _weigh_fork(hs: Mapping[str, Any], main: tuple[str, Transcript, list[bytes]],
                other: tuple[str, Transcript, list[bytes]], k: int, faults: list[Fault],
                notes: list[str], missing: list[str]) -> bool:
    """Another history that parts from the primary at message `k`: the host's fault if it
    signed both from there; an earlier copy of the primary if it stops at `k` (True: its
    sign-offs count); the record's fault if its first differing message is signed by no
    key; else nothing is proven, and one history is missing."""
    p0, t0, heads0 = main
    p1, t1, heads1 = other
    a = _host_commits_from(t0, heads0, k)
    b = _host_commits_from(t1, heads1, k)
    if a is not None and b is not None:
        faults.append(Fault(None, "two_histories", k if k < len(t0.entries) else None,
                            f"the host signed two histories from message {k}: {p0} "
                            f"(signed at {'its hand_end' if a == len(t0.entries) else a})"
                            f" and {p1} (signed at "
                            f"{'its hand_end' if b == len(t1.entries) else b})",
                            party="host"))
    elif k == len(t1.entries):
        notes.append(f"{p1} holds the log up to message {k - 1} only (an earlier copy)")
        return True
    elif not _signed_entry(hs, t1.entries[k]):
        faults.append(Fault(None, "altered_copy", None,
                            f"{p1} differs from {p0} from message {k}, which no key "
                            "signed: that copy was altered", party="record"))
    else:
        missing.append(f"one history of the hand: {p0} and {p1} differ from message {k}, "
                       "and no key signed both (nothing proven; compare the copies)")
    return False


# --------------------------------------------------------------------------- loading
# Record loading and transcript naming, once, for `verify`, the history and replay: a
# match is a unit (a directory, several directories of one match, or files grouped by
# match id), each hand's copies merged above.

_MATCH_DIR = re.compile(r"(?:^|-)([0-9a-f]{32})$")
HAND_FILE = re.compile(r"^hand-(\d+)\.p2pb$")
"""A hand record's file name (hand-NNN.p2pb), its number in the group."""


@dataclass
class Unit:
    """What is verified together: one match (a directory, or files of one match id), or
    one file alone."""

    label: str
    files: list[tuple[str, Any]] = field(default_factory=list)       # (path, Transcript)
    alone: bool = False
    is_dir: bool = False
    expected: bytes | None = None
    result: Any = None
    result_path: str | None = None
    foreign: list[tuple[str, bytes]] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)


def _plain(exc: BaseException) -> str:
    from ..fairdeal.transcript import FORMAT, TranscriptError

    if isinstance(exc, TranscriptError):
        msg = str(exc)
        if msg.startswith("not msgpack"):
            return "it holds something else (a recorded hand is a hand-NNN.p2pb file)"
        if msg == f"not a {FORMAT} file":
            return "it is some other kind of record, not a recorded hand"
        return msg
    if isinstance(exc, IsADirectoryError):
        return "it is a directory"
    if isinstance(exc, FileNotFoundError):
        return "no such file or directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return f"{type(exc).__name__}: {exc}"


def _load(path: str) -> tuple[Any, str | None]:
    from ..fairdeal.transcript import Transcript

    try:
        return Transcript.load(path), None
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets one plain sentence
        return None, _plain(exc)


def _match_id(t: Any) -> bytes | None:
    mid = t.entries[0].get("match_id")
    return mid if isinstance(mid, bytes) and len(mid) == 16 else None


def _hand_no(t: Any) -> int:
    n = t.entries[0].get("hand_no")
    return n if isinstance(n, int) and not isinstance(n, bool) else -1


def _dir_id(path: Path) -> bytes | None:
    m = _MATCH_DIR.search(path.name)
    return bytes.fromhex(m.group(1)) if m else None


def _read_result(d: Path) -> tuple[Any, str | None]:
    path = d / "result.json"
    if not path.exists():
        return None, None
    try:
        return json.loads(path.read_text(encoding="utf-8")), str(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return f"cannot be read as JSON ({_plain(exc) if isinstance(exc, OSError) else exc})", \
            str(path)


def _dominant(files: Sequence[tuple[str, Any]], hint: bytes | None) -> bytes | None:
    """The match a set of files claims to be: the directory's (or result.json's) id, else
    the id most files carry (ties: the one holding the lowest hand number)."""
    ids: dict[bytes | None, list[int]] = {}
    for _, t in files:
        ids.setdefault(_match_id(t), []).append(_hand_no(t))
    if hint is not None and hint in ids:
        return hint
    if hint is not None:
        return hint
    return min(ids, key=lambda k: (-len(ids[k]), min(ids[k]), k or b""))


def _dir_units(d: Path, not_transcripts: list[tuple[str, str]]) -> list[Unit]:
    files = sorted(p for p in d.glob("*.p2pb") if p.is_file())
    if not files:
        inner = sorted({p.parent for p in d.rglob("*.p2pb") if p.is_file()})
        if not inner:
            why = "nothing to verify there: it holds no hand transcripts (hand-NNN.p2pb)"
            not_transcripts.append((str(d), why))
            return []
        out: list[Unit] = []
        for sub in inner:
            out.extend(_dir_units(sub, not_transcripts))
        return out
    unit = Unit(str(d), is_dir=True)
    unit.result, unit.result_path = _read_result(d)
    loaded: list[tuple[str, Any]] = []
    for f in files:
        t, err = _load(str(f))
        if t is None:
            unit.unreadable.append((str(f), err or "unreadable"))
        else:
            loaded.append((str(f), t))
    if not loaded:                        # nothing in it is a transcript
        not_transcripts.extend(unit.unreadable)
        return []
    hint = _dir_id(d)
    if hint is None and isinstance(unit.result, Mapping):
        try:
            rid = bytes.fromhex(str(unit.result.get("match_id")))
            hint = rid if len(rid) == 16 else None
        except ValueError:
            hint = None
    unit.expected = _dominant(loaded, hint)
    for path, t in loaded:
        mid = _match_id(t)
        if mid != unit.expected:
            unit.foreign.append((path, mid or b""))
        else:
            unit.files.append((path, t))
    return [unit]


def _file_units(files: Sequence[tuple[str, Any]]) -> list[Unit]:
    """Files given one by one: grouped by match id and checked as a chain; a file of another
    match among a match's files (in its directory, or where one of its hands is missing) is
    named; a single file of its match is verified alone."""
    by_dir: dict[str, list[tuple[str, Any]]] = {}
    for p, t in files:
        by_dir.setdefault(os.path.dirname(os.path.abspath(p)), []).append((p, t))
    foreign: dict[bytes | None, list[tuple[str, bytes]]] = {}
    kept: list[tuple[str, Any]] = []
    for d, group in by_dir.items():
        ids = {_match_id(t) for _, t in group}
        if len(ids) > 1:
            main = _dominant(group, _dir_id(Path(d)))
            for p, t in group:
                if _match_id(t) != main:
                    foreign.setdefault(main, []).append((p, _match_id(t) or b""))
                else:
                    kept.append((p, t))
        else:
            kept.extend(group)
    groups: dict[bytes | None, list[tuple[str, Any]]] = {}
    for p, t in kept:
        groups.setdefault(_match_id(t), []).append((p, t))
    # a small group whose hands all fall in a bigger group's gaps was put there in their place
    for small in sorted(groups, key=lambda k: len(groups[k])):
        nos = {_hand_no(t) for _, t in groups[small]}
        for big, members in groups.items():
            if big == small or len(members) <= len(groups[small]) or not members:
                continue
            have = {_hand_no(t) for _, t in members}
            gaps = set(range(max(have) + 1)) - have
            if nos and nos <= gaps:
                foreign.setdefault(big, []).extend((p, small or b"") for p, _ in groups[small])
                groups[small] = []
                break
    units = []
    for mid, members in groups.items():
        if not members:
            continue
        label = members[0][0] if len(members) == 1 else \
            f"{len(members)} files of match {mid.hex() if mid else '?'}"
        u = Unit(label, list(members), alone=len(members) == 1 and not foreign.get(mid))
        u.foreign = foreign.pop(mid, [])
        u.expected = mid
        units.append(u)
    for mid, lst in foreign.items():      # a directory named for a match none of them is
        u = Unit(f"files of match {mid.hex() if mid else '?'}", [], expected=mid)
        u.foreign = lst
        units.append(u)
    return units


def _merge_dir_units(units: list[Unit]) -> list[Unit]:
    """Several directories of one match (the host's, each seat's): one unit, their hands'
    copies merged by the audit; the first result.json found is the host's note."""
    out: list[Unit] = []
    by_id: dict[bytes, Unit] = {}
    for u in units:
        same = by_id.get(u.expected) if u.expected is not None else None
        if same is None:
            if u.expected is not None:
                by_id[u.expected] = u
            out.append(u)
            continue
        same.label = f"{same.label} + {u.label}"
        same.files.extend(u.files)
        same.foreign.extend(u.foreign)
        same.unreadable.extend(u.unreadable)
        if same.result is None and u.result is not None:
            same.result, same.result_path = u.result, u.result_path
    return out


def collect(paths: Sequence[str]) -> tuple[list[Unit], list[tuple[str, str]]]:
    """Match units from the command line's paths, and the paths that are no transcript."""
    not_transcripts: list[tuple[str, str]] = []
    units: list[Unit] = []
    files: list[tuple[str, Any]] = []
    seen: set[str] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for u in _dir_units(p, not_transcripts):
                real = {os.path.realpath(f) for f, _ in u.files}
                if real & seen:
                    u.files = [(f, t) for f, t in u.files if os.path.realpath(f) not in seen]
                seen |= real
                units.append(u)
            continue
        one = os.path.realpath(raw)
        if one in seen:
            continue
        seen.add(one)
        t, err = _load(raw)
        if t is None:
            not_transcripts.append((raw, err or "unreadable"))
        else:
            files.append((raw, t))
    units = _merge_dir_units(units)
    file_units = _file_units(files)
    for fu in file_units:                 # files of a match also given as a directory
        same = next((u for u in units if u.is_dir and u.expected == fu.expected
                     and fu.expected is not None), None)
        if same is not None:
            same.files.extend(fu.files)
            same.foreign.extend(fu.foreign)
        else:
            units.append(fu)
    return units, not_transcripts


def verify_units(units: Sequence[Unit],
                 check: Callable[[str, str, bytes], tuple[str, str]] | None,
                 progress: Callable[[int, int], None] | None = None) -> list[Any]:
    """Audit every unit (a match's directory or loose hands); `progress(done, total)` in
    hands before each unit, so a terminal sees a long run move."""
    from .match_audit import audit_match

    out = []
    total, done = sum(len(u.files) for u in units), 0
    for u in units:
        if progress is not None:
            progress(done, total)
        done += len(u.files)
        if not u.files and not u.foreign and not u.unreadable:
            continue
        if not u.files:
            from .match_audit import MatchAudit

            ma = MatchAudit(u.expected, u.label, False)
        else:
            ma = audit_match(u.files, alone=u.alone, result=u.result,
                             result_path=u.result_path, foreign=u.foreign, key_check=check,
                             source=u.label)
        if not u.files and u.foreign:
            from .match_audit import record_fault

            for p, other in u.foreign:
                ma.faults.append(record_fault("other_match", f"{p} is a hand of another "
                                               f"match ({other.hex()})"))
        for p, why in u.unreadable:
            ma.missing.append(f"{os.path.basename(p)}, unreadable ({why})")
        out.append(ma)
    return out


