"""Watching a recorded hand: every card face up, move by move (REPLAY-1).

The audit (`match_audit`, what `p2p-burraco verify` runs) re-derives the whole deal from the
seeds the transcript reveals; the replay takes the hand as dealt with every card known and
steps the pure rules engine over the moves the log records — each seat's signed `action`,
an `abandon`, and each timeout (one that put its seat out of the hand abandons it there:
the audit's replica says which). The state after each move is kept, so a viewer can go forward and back, jump
to a move, and end on the score sheet. The final state must be the audited one: a replay
that would show another hand than the one the audit judged is refused.

`text_lines` is the plain-text record for sharing (REPLAY-2): a deal diagram, one line per
move, the score sheet — the same bytes every time for the same transcript.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..games.base import HandState

_PLACE_ORDER = ("hand", "pile", "trick", "trump", "meld", "aside", "pozzetto", "taken",
                "stock")


class ReplayError(ValueError):
    """A hand that cannot be replayed, and why."""


@dataclass(frozen=True)
class Step:
    """One move: who made it, what it says, the hand after."""

    seat: int | None
    text: str
    hand: HandState


@dataclass
class HandReplay:
    """A replayable hand: the deal, the moves, the outcome and the standings after."""

    path: str
    hand_no: int                      # from 0
    game: str
    variant: str
    names: list[str]
    dealer: int
    match_id: str
    verdict: str
    start: HandState
    steps: list[Step]
    outcome: Any
    standings: Mapping[str, Any] | None

    def state(self, move: int) -> HandState:
        """The hand after `move` moves (0: as dealt)."""
        return self.start if move <= 0 else self.steps[min(move, len(self.steps)) - 1].hand

    def who(self, seat: int | None) -> str:
        if seat is None:
            return "the host"
        name = self.names[seat] if 0 <= seat < len(self.names) else ""
        return f"seat {seat} {name}".rstrip()


def load(paths: Sequence[str]) -> list[HandReplay]:
    """Audit a match directory or hand files and build each hand's replay, in hand order.
    A hand whose deal the audit could not re-derive raises ReplayError saying why."""
    from .records import collect, verify_units

    units, bad = collect(paths)
    if bad:
        raise ReplayError("; ".join(f"{p}: cannot read a transcript: {why}" for p, why in bad))
    audits = verify_units(units, None)
    if not audits or not any(ma.hands for ma in audits):
        raise ReplayError(f"no hand to replay in {', '.join(paths)}")
    out = []
    for ma in audits:
        mid = ma.match_id.hex() if ma.match_id else "?"
        for h in sorted(ma.hands, key=lambda h: h.hand_no):
            out.append(replay_hand(h, mid))
    return out


def replay_hand(h: Any, match_id: str = "?") -> HandReplay:
    """The replay of one audited hand (a `match_audit.HandCheck`)."""
    report = h.report
    if any(f.party == "record" for f in report.verdict.faults):
        raise ReplayError(f"{h.path}: hand {h.hand_no + 1} is not replayed: the record itself "
                          f"was altered or cut (verify says {h.verdict}), so its moves are "
                          "nobody's signed word")
    deal = report.verdict.deal
    if report.start is None or deal is None or report.replica is None:
        raise ReplayError(f"{h.path}: hand {h.hand_no + 1} cannot be replayed: its deal could "
                          f"not be re-derived from the seeds (verify says {h.verdict}"
                          + (f": {'; '.join(h.missing)}" if h.missing else "") + ")")
    start = report.start.copy()
    # the timeouts that put a seat out of the hand (a stall stops the hand, it abandons not)
    lost = {index: seat for seat, (why, index) in report.replica.lost.items()
            if why != "stall"}
    hand = start.copy()
    steps: list[Step] = []
    names = h.names
    for i, e in enumerate(h.transcript.entries):
        t = e.get("type")
        seat = e.get("seat")
        before = hand
        if t == "action" and not hand.is_over:
            hand = hand.copy()
            text = f"action {e.get('action')!r}"
            try:
                action = hand.action_from_wire(e.get("action") or {})
                text = str(action)
                hand.apply(int(seat), action)
            except ValueError as exc:     # the audit refused it too: shown, not applied
                steps.append(Step(seat, f"{text} — refused: {exc}", before))
                hand = before
                continue
        elif t == "abandon" and not hand.is_over:
            hand = hand.copy()
            hand.abandon(int(seat))
            text = "abandons the match (abbandona) [TABLE-9]"
        elif t == "timeout":
            text = f"the clock ran out ({e.get('kind')})"
            if i in lost and not hand.is_over:
                hand = hand.copy()
                hand.abandon(lost[i])
                text += ": out of the hand [TABLE-9]"
        elif t == "hand_void":
            text = f"the host voids the hand: {e.get('reason')}"
            steps.append(Step(None, text, hand))
            continue
        else:
            continue
        drawn = _drawn(before, hand, names)
        steps.append(Step(seat, text + (f" — {drawn}" if drawn else ""), hand))
    final = report.replica.hand
    if _where(hand) != _where(final):
        raise ReplayError(f"{h.path}: the moves do not lead to the hand the audit judged")
    after = report.state_after.standings() if report.state_after is not None else None
    hs = h.hs
    return HandReplay(h.path, h.hand_no, str(hs.get("game")), str(hs.get("variant")),
                      list(names), int(hs.get("dealer", 0)), match_id, h.verdict, start,
                      steps, report.outcome, after)


def _where(hand: HandState) -> list[tuple[str, int]]:
    return sorted(hand.physical_locations())


def _holdings(hand: HandState) -> dict[int, set[int]]:
    out: dict[int, set[int]] = {}
    for place, pos in hand.physical_locations():
        if place.startswith("hand:"):
            out.setdefault(int(place[5:]), set()).add(pos)
    return out


def _drawn(before: HandState, after: HandState, names: Sequence[str]) -> str:
    """Cards that came into a seat's hand with the move (drawn, taken, a pozzetto)."""
    was, now = _holdings(before), _holdings(after)
    parts = []
    for seat in sorted(now):
        new = sorted(now[seat] - was.get(seat, set()))
        if new:
            who = names[seat] if seat < len(names) else f"seat {seat}"
            parts.append(f"{who} gets {_cards(after, new)}")
    return "; ".join(parts)


def _cards(hand: HandState, positions: Sequence[int]) -> str:
    out = []
    for pos in positions:
        cid = hand.card_at(pos)
        out.append("??" if cid is None else str(hand.deck[cid]))
    return " ".join(out)


def places(hand: HandState, names: Sequence[str]) -> list[tuple[str, str]]:
    """(where, cards) for every place holding cards, in a fixed order: each seat's hand,
    the discard pile or trick, melds by side, pozzetti, taken cards, the stock (next card
    first)."""
    groups: dict[str, list[int]] = {}
    for place, pos in hand.physical_locations():
        groups.setdefault(place, []).append(pos)

    def key(place: str) -> tuple[int, list[int]]:
        head, *rest = place.split(":")
        rank = _PLACE_ORDER.index(head) if head in _PLACE_ORDER else len(_PLACE_ORDER)
        return rank, [int(x) for x in rest if x.lstrip("-").isdigit()]

    out = []
    for place in sorted(groups, key=key):
        head, *rest = place.split(":")
        label = place
        if head in ("hand", "aside") and rest:
            seat = int(rest[0])
            who = names[seat] if seat < len(names) else ""
            label = (f"seat {seat} {who}".rstrip() if head == "hand"
                     else f"seat {seat}'s pozzetto aside")
        elif head == "meld" and len(rest) == 2:
            label = f"side {rest[0]} meld {rest[1]}"
        elif head == "pozzetto" and rest:
            label = f"pozzetto {int(rest[0]) + 1}"
        elif head == "taken" and rest:
            label = f"side {rest[0]} took"
        positions = groups[place]
        if head == "stock":
            out.append((label, f"{len(positions)} cards: " + _cards(hand, positions)))
        else:
            out.append((label, _cards(hand, positions)))
    return out


def score_lines(r: HandReplay) -> list[str]:
    """The score sheet: the outcome, each side's points with their breakdown, the
    standings after the hand."""
    out: list[str] = []
    if r.outcome is None:
        return ["no outcome: the audit could not judge this hand"]
    out.append(f"outcome: {r.outcome.describe()}")
    res = r.outcome.result
    for side, pts, lines in zip(res.sides, res.points, res.breakdown):
        who = "+".join(r.who(s) for s in side)
        detail = ", ".join(f"{ln.label} {ln.points:+d}" for ln in lines)
        out.append(f"{who}: {pts:+d}" + (f"  [{detail}]" if detail else ""))
    if res.closed_by is not None:
        out.append(f"closed by {r.who(res.closed_by)}")
    st = r.standings
    if st:
        totals = " | ".join(f"{'+'.join(r.who(s) for s in side)} {t}"
                            for side, t in zip(st.get("sides", []), st.get("totals", [])))
        out.append(f"standings after the hand: {totals}"
                   + (" — match over" if st.get("over") else ""))
    return out


def text_lines(r: HandReplay) -> list[str]:
    """The plain-text record of a hand (REPLAY-2): header, deal diagram, moves, score sheet."""
    out = [(f"p2p-burraco replay: match {r.match_id}, hand {r.hand_no + 1} "
            f"({Path(r.path).name})"),
           (f"{r.game} {r.variant}, {len(r.names)} seats, dealer {r.who(r.dealer)}; "
            f"verify: {r.verdict}"),
           "", "deal (every card face up):"]
    out.extend(f"  {where}: {cards}" for where, cards in places(r.start, r.names))
    out.append("")
    out.append(f"moves ({len(r.steps)}):")
    width = len(str(len(r.steps)))
    out.extend(f"  {n:>{width}}. {r.who(s.seat)}: {s.text}" for n, s in
               enumerate(r.steps, 1))
    out.append("")
    out.append("score sheet:")
    out.extend(f"  {line}" for line in score_lines(r))
    return out
