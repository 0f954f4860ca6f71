"""`p2p-burraco verify FILE…`: audit recorded hands; exit 0 only when every one is fair.

Each transcript is re-derived from the seeds revealed in it: commitments, every shuffle and
lock pass, every released key and sealed envelope, every face-up card, every action replayed
through the rules, the score, and the seats' signatures over the whole history. The summary
says which rule set, who sat where, which cards each seat was dealt, the score and the
verdict — or exactly who deviated, and at which message.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

HELP = "audit recorded hand transcripts: fair, or who cheated and where (exit 0 only if fair)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="transcript files (hand-NNN.p2pb)")
    p.add_argument("--quiet", action="store_true", help="one line per file")


def _cards(hand: Any, positions: list[int]) -> str:
    out = []
    for pos in positions:
        cid = hand.card_at(pos)
        out.append("??" if cid is None else str(hand.deck[cid]))
    return " ".join(out)


def summarize(path: str, report: Any, transcript: Any) -> list[str]:
    """The human summary of one audited hand."""
    hs = report.hand_start
    head = (f"{path}: {hs.get('game')} ({hs.get('variant')}), {hs.get('n_seats')} seats, "
            f"hand {int(hs.get('hand_no', 0)) + 1}, dealer seat {hs.get('dealer')}, "
            f"{hs.get('n_cards')} cards ({hs.get('deck')})")
    lines = [head]
    keys = hs.get("seat_keys") or []
    lines.append("  seats: " + ", ".join(f"{s} (key {bytes(k).hex()[:12]}…)"
                                          for s, k in enumerate(keys)))
    start = report.start
    if start is not None and report.verdict.deal is not None:
        n = int(hs["n_seats"])
        everyone = frozenset(range(n))
        dealt: dict[int, list[int]] = {s: [] for s in range(n)}
        face_up: list[int] = []
        shared = 0
        for pos in range(len(start.deck)):
            aud = start.audience(pos)
            if aud == everyone:
                face_up.append(pos)
            elif len(aud) == 1:
                dealt[next(iter(aud))].append(pos)
            elif aud:
                shared += 1
        for s in range(n):
            lines.append(f"  seat {s} dealt: {_cards(start, dealt[s])}")
        if face_up:
            lines.append(f"  face up: {_cards(start, face_up)}")
        undealt = len(start.deck) - sum(len(v) for v in dealt.values()) - len(face_up)
        if undealt:
            lines.append(f"  face down (stock, pozzetti…): {undealt} cards")
    for e in transcript.entries:
        if e.get("type") == "hand_void":
            lines.append(f"  hand void: {e.get('reason')} — {e.get('detail') or ''}".rstrip(" —"))
    end = transcript.hand_end or {}
    result = end.get("result")
    if isinstance(result, dict):
        parts = []
        for side, pts in zip(result.get("sides", []), result.get("points", [])):
            parts.append(f"{'+'.join(f'seat {s}' for s in side)} {int(pts):+d}")
        lines.append(f"  result ({result.get('reason') or '?'}): {' | '.join(parts)}")
    for note in report.notes + report.verdict.notes:
        lines.append(f"  note: {note}")
    if report.verdict.fair:
        lines.append("  verdict: FAIR — every step re-derived from the seeds checks out")
    else:
        lines.append(f"  verdict: NOT FAIR — {len(report.verdict.faults)} fault(s):")
        for f in report.verdict.faults:
            lines.append(f"    {f}")
    return lines


def run(args: argparse.Namespace) -> int:
    from ..fairdeal.transcript import Transcript, TranscriptError
    from ..table.audit import audit_transcript

    all_fair = True
    for path in args.files:
        try:
            transcript = Transcript.load(path)
        except (OSError, TranscriptError) as exc:
            print(f"{path}: cannot read a transcript: {exc}")
            all_fair = False
            continue
        report = audit_transcript(transcript)
        all_fair &= report.verdict.fair
        if args.quiet:
            print(f"{path}: {'fair' if report.verdict.fair else 'NOT FAIR: ' + str(report.verdict)}")
        else:
            print("\n".join(summarize(path, report, transcript)))
    if len(args.files) > 1:
        print(f"{len(args.files)} file(s): {'all fair' if all_fair else 'NOT all fair'}")
    sys.stdout.flush()
    return 0 if all_fair else 1
