"""`p2p-burraco verify PATH…`: audit recorded hands and whole matches, as an auditor would.

Each transcript is re-derived from the seeds revealed in it: commitments, every shuffle and
lock pass, every released key and sealed envelope, every face-up card, every action replayed
through the rules, the outcome — and then what closed it: the host's signed `hand_end` and
every seat's signed sign-off of the very result the log leads to. A match (a directory, or
several files of one match) is checked as a whole: its hands chained in order from the first,
each bound to the match, the standings folded from the outcomes by the auditor itself and
compared with the host's last signed word and with `result.json`. Keys are identities,
names labels (PROTOCOL § 9): `--keys FILE` pins, `<data-dir>/known_keys` is the keys this
machine met. Loading, merging copies and judging live in `table/` (`table.records`,
`table.match_audit`); this module only formats.

Exit status: 0 fair; 1 a cheat proven (who — a seat, the host, or the record —, which
message, why); 2 incomplete or unverifiable (what is missing); 3 not a transcript.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..table.records import Unit, collect, verify_units

__all__ = ["Unit", "collect", "verify_units", "run", "add_arguments", "key_checker"]

HELP = ("audit recorded hands and matches: fair (exit 0), a cheat proven (1), incomplete "
        "(2), not a transcript (3)")

EXIT_FAIR, EXIT_CHEAT, EXIT_INCOMPLETE, EXIT_NOT_TRANSCRIPT = 0, 1, 2, 3
RECORD_WHY = "no key signed this: the file was altered, or put together, by whoever wrote it"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="transcript files (hand-NNN.p2pb) and/or match directories "
                        "(<data-dir>/matches/<date>-<id>/); files of one match are checked "
                        "as a chain, a single file alone")
    p.add_argument("--keys", metavar="FILE", default=None,
                   help="pinned keys: lines `name fingerprint` (the key's hex or a prefix of "
                        "at least 16 hex digits; the host's key under the name `host`)")
    p.add_argument("--data-dir", metavar="DIR", default=None,
                   help="where this machine's known keys are (<DIR>/known_keys; default the "
                        "user data directory)")
    p.add_argument("--quiet", action="store_true", help="one line per hand and one per match")
    p.add_argument("--json", action="store_true", help="the whole report as JSON")


# --------------------------------------------------------------------------- pins

def key_checker(args: argparse.Namespace
                ) -> tuple[Callable[[str, str, bytes], tuple[str, str]], list[str]]:
    """check(role, name, key) from `--keys FILE` (the auditor's explicit pins) and this
    machine's memory of the keys it met (`storage.known_keys.KeyJudge`); and what was
    consulted."""
    from ..storage.known_keys import KeyJudge, KnownKeys, KnownKeysError, known_keys_path

    sources: list[str] = []
    pinned = KnownKeys()
    if args.keys:
        if not os.path.isfile(args.keys):
            raise ValueError(f"--keys {args.keys}: no such file")
        pinned = KnownKeys.load(args.keys)            # KnownKeysError: a plain ValueError
        sources.append(f"{args.keys} ({len(pinned)} pin(s))")
    known = KnownKeys()
    try:
        if args.data_dir:
            data_dir = Path(args.data_dir)
        else:
            from ..net.identity import default_data_dir

            data_dir = default_data_dir()
        path = known_keys_path(data_dir)
        known = KnownKeys.load(path)
        if len(known):
            sources.append(f"{path} ({len(known)} key(s) met)")
    except (KnownKeysError, OSError, ImportError) as exc:
        print(f"p2p-burraco verify: warning: known keys not used: {exc}", file=sys.stderr)
    return KeyJudge(pinned, known).check, sources


# --------------------------------------------------------------------------- printing

def _cards(hand: Any, positions: list[int]) -> str:
    """Cards in the engine's notation (`7h`, `Qc`): what `replay --text` prints too
    (REPLAY-2 compares the two), and what a player types."""
    out = []
    for pos in positions:
        cid = hand.card_at(pos)
        out.append("??" if cid is None else str(hand.deck[cid]))
    return " ".join(out)


def _key_status(ma: Any, role: str, key: Any) -> str:
    for use in ma.keys:
        if use.role == role and use.key == key:
            return {"pinned": "pinned", "known": f"met before as {use.detail}",
                    "unknown": "unknown", "clash": "UNKNOWN KEY FOR THIS NAME",
                    "mismatch": "NOT THE PINNED KEY", "": "unknown"}[use.status]
    return "unknown"


def fault_line(h: Any, f: Any) -> str:
    who = h.who(f) if h is not None else ("the host" if f.party == "host" else
                                          f"seat {f.seat}" if f.party == "seat"
                                          else "the record")
    where = h.message(f) if h is not None else ""
    at = f" at {where}" if where else ""
    detail = f" — {f.detail}" if f.detail else ""
    return f"{who}: {f.what}{at}{detail}"


def _culprit_text(f: Any, h: Any) -> str:
    line = fault_line(h, f)
    if f.party == "record":
        line += f" ({RECORD_WHY})"
    return line


def _result_line(h: Any) -> str | None:
    out = h.report.outcome
    result = out.result.to_wire() if out is not None else \
        (h.transcript.hand_end or {}).get("result")
    if not isinstance(result, Mapping):
        return None
    parts = []
    for side, pts in zip(result.get("sides", []), result.get("points", [])):
        who = "+".join(f"seat {s}" + (f" ({h.seat_name(s)})" if h.seat_name(s) else "")
                       for s in side)
        parts.append(f"{who} {int(pts):+d}")
    return f"  result ({result.get('reason') or '?'}): {' | '.join(parts)}"


def hand_summary(h: Any, ma: Any) -> list[str]:
    """The human summary of one audited hand."""
    hs = h.hs
    report = h.report
    head = (f"{h.path}: {hs.get('game')} ({hs.get('variant')}), {hs.get('n_seats')} seats, "
            f"hand {h.hand_no + 1}, dealer seat {hs.get('dealer')}, "
            f"{hs.get('n_cards')} cards ({hs.get('deck')})")
    lines = [head]
    keys = hs.get("seat_keys") if isinstance(hs.get("seat_keys"), list) else []
    seat_parts = []
    for s, k in enumerate(keys):
        name = h.seat_name(s)
        fp = bytes(k).hex()[:16] if isinstance(k, bytes) else "?"
        seat_parts.append(f"{name!s} (seat {s}, key {fp}, {_key_status(ma, f'seat {s}', k)})"
                          if name else f"seat {s} (key {fp}, {_key_status(ma, f'seat {s}', k)})")
    lines.append("  seats: " + ", ".join(seat_parts))
    hk = hs.get("host_key")
    if isinstance(hk, bytes):
        lines.append(f"  host: key {hk.hex()[:16]} ({_key_status(ma, 'host', hk)})")
    start = report.start
    if start is not None and report.verdict.deal is not None:
        n = int(hs["n_seats"])
        everyone = frozenset(range(n))
        dealt: dict[int, list[int]] = {s: [] for s in range(n)}
        face_up: list[int] = []
        for pos in range(len(start.deck)):
            aud = start.audience(pos)
            if aud == everyone:
                face_up.append(pos)
            elif len(aud) == 1:
                dealt[next(iter(aud))].append(pos)
        for s in range(n):
            lines.append(f"  seat {s} dealt: {_cards(start, dealt[s])}")
        if face_up:
            lines.append(f"  face up: {_cards(start, face_up)}")
        undealt = len(start.deck) - sum(len(v) for v in dealt.values()) - len(face_up)
        if undealt:
            lines.append(f"  face down (stock, pozzetti…): {undealt} cards")
    for e in h.transcript.entries:
        if e.get("type") == "hand_void":
            lines.append(f"  hand void: {e.get('reason')} — {e.get('detail') or ''}"
                         .rstrip(" —"))
    if h.pin_failed:
        lines.append("  outcome: none — not the record of the people pinned, so it decides "
                     "nothing about them")
    elif any(f.party == "record" for f in h.trusted):
        lines.append("  outcome: none — the record was altered, so it decides nothing")
    else:
        res = _result_line(h)
        if res:
            lines.append(res)
        if report.outcome is not None:
            lines.append(f"  outcome: {report.outcome.describe()}")
    if h.signed:
        lines.append("  signed off by: " + ", ".join(
            f"seat {s}" + (f" ({h.seat_name(s)})" if h.seat_name(s) else "") for s in h.signed))
    for note in h.notes:
        lines.append(f"  note: {note}")
    lines.extend("  " + ln for ln in _verdict_lines(h))
    return lines


def _also(h: Any) -> str:
    """The other parties the evidence convicts besides the one the verdict names."""
    p = h.primary
    seen = {(p.party, p.seat if p.party == "seat" else None)}
    out = []
    for f in h.trusted:
        k = (f.party, f.seat if f.party == "seat" else None)
        if k not in seen:
            seen.add(k)
            out.append(f"{h.who(f)} ({f.what} at {h.message(f)})")
    return f"; also proven: {', '.join(out)}" if out else ""


PIN_FAILED = ("verdict: NOT FAIR — a key here is not the one --keys pins for its name: not "
              "the record of the people pinned; nothing in it is counted against anyone")


def _verdict_lines(h: Any) -> list[str]:
    if h.pin_failed:
        return [PIN_FAILED]
    if h.primary is not None:
        out = [f"verdict: NOT FAIR — CHEAT by {_culprit_text(h.primary, h)}{_also(h)}"]
        if len(h.trusted) > 1:
            out.append(f"faults ({len(h.trusted)}):")
            out.extend(f"  {fault_line(h, f)}" for f in h.trusted)
        if h.discounted:
            out.append(f"(+{len(h.discounted)} further inconsistenc"
                       f"{'y' if len(h.discounted) == 1 else 'ies'} that follow from the "
                       "record's alteration, not counted against anyone; --json lists them)")
        return out
    if h.missing:
        return ["verdict: INCOMPLETE — missing: " + "; ".join(h.missing)]
    return [("verdict: FAIR — every step re-derived from the seeds checks out, and every seat "
             "signed this very result")]


def _hand_quiet(h: Any) -> str:
    if h.pin_failed:
        return f"{h.path}: NOT FAIR — not the pinned keys"
    if h.primary is not None:
        return f"{h.path}: CHEAT — {_culprit_text(h.primary, h)}{_also(h)}"
    if h.missing:
        return f"{h.path}: INCOMPLETE — missing: " + "; ".join(h.missing)
    return f"{h.path}: fair"


def _fmt_standings(st: Mapping[str, Any] | None, names: Sequence[str]) -> str:
    if not st:
        return "unknown"
    sides = st.get("sides") or []
    totals = st.get("totals") or []
    parts = []
    for side, tot in zip(sides, totals):
        who = "+".join(names[s] if 0 <= s < len(names) and names[s] else f"seat {s}"
                       for s in side)
        parts.append(f"{who} {tot}")
    out = " | ".join(parts)
    if st.get("over"):
        w = st.get("winner")
        if isinstance(w, int) and 0 <= w < len(sides):
            w = "+".join(names[s] if 0 <= s < len(names) and names[s] else f"seat {s}"
                         for s in sides[w])
        out += " — over" + (f", winner {w}" if w is not None else "")
        if st.get("decided_by"):
            out += f" ({st['decided_by']})"
    else:
        out += " — not over"
    return out


def _standings_view(st: Mapping[str, Any] | None) -> Any:
    from ..table.match_audit import jsonish

    return None if st is None else jsonish(st)


def match_summary(ma: Any) -> list[str]:
    """The match's lines: hands, chain, keys, standings recomputed vs stated, verdict."""
    hands = ma.hands
    names = hands[-1].names if hands else []
    mid = ma.match_id.hex() if ma.match_id else "?"
    nos = [h.hand_no + 1 for h in hands]
    span = f"{min(nos)}–{max(nos)}" if len(nos) > 1 else (str(nos[0]) if nos else "none")
    if not ma.chain_checked:
        chain = "chain not checked"
    elif ma.chain_ok:
        chain = "chain OK"
    else:
        chain = "chain BROKEN"
    lines = [f"match {mid} ({ma.source}): {len(hands)} hand(s) [{span}], {chain}"]
    unpinned = [u for u in ma.keys if u.status in ("unknown", "", "clash")]
    pinned = [u for u in ma.keys if u.status == "pinned"]
    met = [u for u in ma.keys if u.status == "known"]
    if pinned:
        lines.append("  pinned keys: " + ", ".join(f"{u.role} {u.name}" if u.role != "host"
                                                   else "host" for u in pinned))
    if met:
        lines.append("  keys met before: " + ", ".join(
            (f"{u.role} {u.name}" if u.role != "host" else "host")
            + (f" (met as {u.detail})" if u.detail not in (u.name, "host") else "")
            for u in met))
    if unpinned:
        lines.append("  unknown keys (compare them with the players'; pin them with these "
                     "lines in --keys FILE):")
        lines.extend(f"    {u.name} {u.key.hex()}    # {u.role}, from hand {u.hand_no + 1}"
                     for u in unpinned)
    for w in ma.warnings:
        lines.append(f"  warning: {w}")
    computed = ma.standings("computed")
    stated = ma.standings("stated")
    if computed is not None:
        frm = "" if ma.fold_from == 0 else \
            f" (from hand {ma.fold_from + 1}'s stated state on: earlier hands not folded)"
        lines.append(f"  standings recomputed{frm}: {_fmt_standings(computed, names)}")
    else:
        lines.append("  standings recomputed: not possible (the last hand has no outcome of "
                     "its own)")
    if stated is not None and hands:
        agree = computed is not None and _standings_view(computed) == _standings_view(stated)
        over = ma.stated_over
        over_ok = ma.computed is not None and over is ma.computed.is_over
        lines.append(f"  standings stated (hand {hands[-1].hand_no + 1}'s hand_end, signed by "
                     f"the host): {_fmt_standings(stated, names)} — "
                     f"{'agree' if agree else 'DIFFER'}; match_over {over} "
                     f"({'agrees' if over_ok else 'DIFFERS'})")
    elif hands:
        lines.append("  standings stated: none (the last hand has no valid hand_end)")
    if ma.result_path is not None:
        res = ma.result if isinstance(ma.result, Mapping) else None
        if res is not None:
            bad = [f for f in ma.faults if f.what in ("wrong_standings", "wrong_reason",
                                                      "wrong_result_file")]
            lines.append(f"  {os.path.basename(ma.result_path)}: reason {res.get('reason')!r}, "
                         f"{res.get('hands')} hand(s), standings "
                         f"{_fmt_standings(res.get('standings'), names)} — "
                         f"{'DIFFERS from the hands' if bad else 'agrees with the hands'}")
    for m in ma.missing:
        lines.append(f"  missing: {m}")
    for note in ma.notes:
        lines.append(f"  note: {note}")
    for f in ma.faults:
        lines.append(f"  fault: {fault_line(None, f)}")
    lines.append("  " + match_verdict(ma))
    return lines


def match_verdict(ma: Any) -> str:
    v = ma.verdict
    if v == "cheat":
        found = ma.culprit()
        assert found is not None
        f, h = found
        if f.what == "key_mismatch":
            return (f"match verdict: NOT FAIR — not signed by the keys pinned: {f.detail}; "
                    "nobody is proven at fault")
        where = f" (hand {h.hand_no + 1}, {h.path})" if h is not None else ""
        also = _also(h) if h is not None else ""
        return f"match verdict: NOT FAIR — CHEAT by {_culprit_text(f, h)}{where}{also}"
    if v == "incomplete":
        what = list(ma.missing)
        for h in ma.hands:
            what.extend(f"hand {h.hand_no + 1}: {m}" for m in h.missing)
        return "match verdict: INCOMPLETE — missing: " + "; ".join(what)
    return "match verdict: FAIR — every hand fair, chained, and the standings are the fold " \
           "of their results"


def _match_quiet(ma: Any) -> str:
    mid = ma.match_id.hex() if ma.match_id else "?"
    v = ma.verdict
    chain = "chain OK" if ma.chain_ok else "chain BROKEN"
    head = f"match {mid}: {len(ma.hands)} hand(s), {chain}"
    if v == "fair":
        return f"{head}: fair"
    return f"{head}: " + match_verdict(ma).removeprefix("match verdict: ")


# --------------------------------------------------------------------------- JSON

def _fault_json(h: Any, f: Any, trusted: bool = True) -> dict[str, Any]:
    return {"party": f.party, "seat": f.seat,
            "name": h.seat_name(f.seat) if h is not None and f.party == "seat" else None,
            "what": f.what, "where": f.where,
            "message": h.message(f) if h is not None else None,
            "detail": f.detail, "trusted": trusted}


def match_json(ma: Any) -> dict[str, Any]:
    found = ma.culprit() if ma.verdict == "cheat" else None
    culprit = None
    if found is not None:
        f, h = found
        culprit = {**_fault_json(h, f), "hand": h.hand_no + 1 if h is not None else None,
                   "path": h.path if h is not None else None}
    hands = []
    for h in ma.hands:
        out = h.report.outcome
        hands.append({
            "path": h.path, "hand": h.hand_no + 1,
            "hand_id": h.hs.get("hand_id").hex() if isinstance(h.hs.get("hand_id"), bytes)
            else None,
            "verdict": h.verdict,
            "culprit": _fault_json(h, h.primary) if h.primary is not None else None,
            "faults": [_fault_json(h, f) for f in h.trusted]
            + [_fault_json(h, f, False) for f in h.discounted],
            "missing": list(h.missing), "notes": list(h.notes),
            "outcome": out.to_wire() if out is not None and not h.pin_failed else None,
            "pin_failed": h.pin_failed,
            "signed": list(h.signed), "disputed": list(h.disputed),
        })
    return {
        "match_id": ma.match_id.hex() if ma.match_id else None, "source": ma.source,
        "alone": ma.alone, "verdict": ma.verdict, "exit": ma.exit_code, "culprit": culprit,
        "chain_checked": ma.chain_checked, "chain_ok": ma.chain_ok,
        "missing": list(ma.missing), "notes": list(ma.notes),
        "faults": [_fault_json(None, f) for f in ma.faults],
        "keys": [{"role": u.role, "name": u.name, "key": u.key.hex(),
                  "status": u.status or "unknown", "detail": u.detail,
                  "hand": u.hand_no + 1} for u in ma.keys],
        "warnings": list(ma.warnings),
        "standings": {"computed": _standings_view(ma.standings("computed")),
                      "stated": _standings_view(ma.standings("stated")),
                      "result_json": (ma.result or {}).get("standings")
                      if isinstance(ma.result, Mapping) else None},
        "match_over": {"computed": ma.computed.is_over if ma.computed is not None else None,
                       "stated": ma.stated_over},
        "hands": hands,
    }


# --------------------------------------------------------------------------- run

def run(args: argparse.Namespace) -> int:
    try:
        check, sources = key_checker(args)
    except ValueError as exc:
        print(f"p2p-burraco verify: {exc}", file=sys.stderr)
        return EXIT_INCOMPLETE
    units, not_transcripts = collect(args.paths)
    from .verify_progress import terminal_progress

    with terminal_progress(sys.stderr) as progress:
        audits = verify_units(units, check, progress)
    if not audits and not not_transcripts:
        not_transcripts.append((" ".join(args.paths), "nothing to verify"))
    codes = [ma.exit_code for ma in audits]
    if EXIT_CHEAT in codes:
        code = EXIT_CHEAT
    elif EXIT_INCOMPLETE in codes:
        code = EXIT_INCOMPLETE
    elif not_transcripts:
        code = EXIT_NOT_TRANSCRIPT
    else:
        code = EXIT_FAIR
    if args.json:
        verdict = {EXIT_FAIR: "fair", EXIT_CHEAT: "cheat", EXIT_INCOMPLETE: "incomplete",
                   EXIT_NOT_TRANSCRIPT: "not a transcript"}[code]
        print(json.dumps({"exit": code, "verdict": verdict, "pins": sources,
                          "matches": [match_json(ma) for ma in audits],
                          "not_transcripts": [{"path": p, "why": w}
                                              for p, w in not_transcripts]},
                         indent=2, sort_keys=True))
        sys.stdout.flush()
        return code
    if sources and not args.quiet:
        print("keys from: " + ", ".join(sources))
    for p, why in not_transcripts:
        print(f"{p}: not a recorded hand or match: {why}.")
    for ma in audits:
        if args.quiet:
            for h in ma.hands:
                print(_hand_quiet(h))
            if not ma.alone or ma.faults or ma.missing:
                print(_match_quiet(ma))
            continue
        for h in ma.hands:
            print("\n".join(hand_summary(h, ma)))
        if ma.alone:
            for f in ma.faults:
                print(f"  fault: {fault_line(None, f)}")
            for use in ma.keys:
                if use.status in ("unknown", "", "clash"):
                    print(f"  unknown key: {use.name} {use.key.hex()}    # {use.role}")
            for w in ma.warnings:
                print(f"  warning: {w}")
            if ma.faults or ma.missing:
                print("  " + match_verdict(ma))
        else:
            print("\n".join(match_summary(ma)))
    if len(audits) + len(not_transcripts) > 1:
        n_hands = sum(len(ma.hands) for ma in audits)
        word = {EXIT_FAIR: "all fair", EXIT_CHEAT: "a cheat is proven",
                EXIT_INCOMPLETE: "incomplete (nothing proven, something missing)",
                EXIT_NOT_TRANSCRIPT: "not everything is a transcript"}[code]
        print(f"{n_hands} hand(s) in {len(audits)} match(es) or file(s)"
              + (f", {len(not_transcripts)} unreadable" if not_transcripts else "")
              + f": {word}")
    sys.stdout.flush()
    return code
