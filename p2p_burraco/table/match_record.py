"""A finished match's history record, read from its records by the auditor (HIST-1).

The host's match directory (`journal.p2pj`, `hand-NNN.p2pb`, `result.json`) and a peer's
(`identities/<name>/matches/<id>/hand-NNN.p2pb`) hold everything: the hands are audited as
`p2p-burraco verify` audits them (its `collect` and `verify_units`), and the record takes the
players, each hand's outcome and score breakdown, the standings and the verdict from that
audit — never from anyone's say-so — plus, from result.json where there is one, why the
match ended and which seats were the host's bots. `index_records` records every finished
match under a data directory that the history does not have yet (HIST-1): the history is an
index that can always be rebuilt from the records.
"""

from __future__ import annotations

import datetime as _dt
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..fairdeal.transcript import Transcript
from ..storage.history import (
    HandRow,
    History,
    MatchRecord,
    SeatRow,
    history_path,
    summary_lines,
)
from ..storage.journal import RESULT
from .match_audit import _end_reason

log = logging.getLogger("p2p_burraco.history")


def _hands(directory: Path) -> list[Path]:
    return sorted(directory.glob("hand-[0-9][0-9][0-9]*.p2pb"))


def is_finished(directory: Path) -> bool:
    """A host's match with its result.json, or a peer's whose last hand the host closed
    with `match_over`."""
    directory = Path(directory)
    if (directory / RESULT).exists():
        return True
    hands = _hands(directory)
    if not hands:
        return False
    try:
        end = Transcript.load(str(hands[-1])).hand_end
    except Exception:  # noqa: BLE001 — an unreadable last hand: not a finished match
        return False
    return bool(end and end.get("match_over") is True)


def record_of(directory: Path, recorded_by: str,
              strategies: Mapping[int, str] | None = None) -> MatchRecord:
    """The history record of a finished match directory (ValueError naming what is
    missing). `strategies`: the strategy of each seat the recording host's bots held.

    Why through `verify`'s own loading (`collect`, `verify_units`, as `replay.load`): the
    verdict the history keeps must be exactly the one `p2p-burraco verify` gives for the
    directory — a result.json that is no JSON is its `bad_result_file` cheat, an
    unreadable hand makes the match incomplete (not unrecorded), and another match's hand
    put in the directory is set aside and named."""
    from .records import collect, verify_units

    directory = Path(directory).resolve()
    units, _ = collect([str(directory)])
    unit = next((u for u in units if u.is_dir and Path(u.label) == directory and u.files),
                None)
    if unit is None:
        raise ValueError(f"{directory}: no hand transcripts (hand-NNN.p2pb) of its match")
    (ma,) = verify_units([unit], None)
    if not ma.hands:
        raise ValueError(f"{directory}: no hand of its match could be audited")
    result: Mapping[str, Any] = unit.result if isinstance(unit.result, Mapping) else {}
    first, last = ma.hands[0], ma.hands[-1]
    hs = first.hs
    keys = [bytes(k).hex() for k in hs.get("seat_keys") or []]
    names = last.names or [f"seat {i}" for i in range(len(keys))]
    bots: dict[int, str] = {}
    for s in result.get("seats") or []:
        if isinstance(s, Mapping) and s.get("bot"):
            seat = int(s["seat"])
            bots[seat] = (strategies or {}).get(seat) or "bot"
    seats = tuple(SeatRow(i, names[i] if i < len(names) else f"seat {i}", k, bots.get(i))
                  for i, k in enumerate(keys))
    # nothing unsigned is believed: the standings and the reason are the fold of the signed
    # hands (else the host's last signed hand_end), never result.json's say-so
    standings = ma.standings("computed") or ma.standings("stated") or {}
    sides = tuple(tuple(int(x) for x in s) for s in standings.get("sides") or [])
    totals = tuple(int(t) for t in standings.get("totals") or [0] * len(sides))
    winner = standings.get("winner")
    reason = (_end_reason(ma) if ma.computed is not None else None) or (
        "hands" if result.get("reason") == "hands" and ma.computed is not None
        and ma.verdict != "cheat" else None) or "unknown"
    hands = tuple(_hand_row(h) for h in ma.hands)
    ended = result.get("ended") or _dt.datetime.fromtimestamp(
        Path(unit.files[-1][0]).stat().st_mtime, _dt.UTC).isoformat()
    mid = ma.match_id.hex() if ma.match_id else directory.name[-32:]
    return MatchRecord(mid, str(directory), str(hs.get("game")), str(hs.get("variant")),
                       len(keys), str(ended), str(reason), sides, totals,
                       winner if isinstance(winner, int) else None, ma.verdict, recorded_by,
                       seats, hands)


def _hand_row(h: Any) -> HandRow:
    out = h.report.outcome
    if out is not None:
        r = out.result.to_wire()
        kind = out.kind
    else:                   # the audit could not judge it: the host's signed word, marked
        r = dict((h.transcript.hand_end or {}).get("result") or {})
        kind = "unjudged"
    sides = tuple(tuple(int(x) for x in s) for s in r.get("sides") or [])
    points = tuple(int(p) for p in r.get("points") or [0] * len(sides))
    breakdown = tuple(tuple((str(lbl), int(p)) for lbl, p in side)
                      for side in r.get("breakdown") or [[] for _ in sides])
    closed = r.get("closed_by")
    return HandRow(h.hand_no + 1, h.path, kind, str(r.get("reason") or ""),
                   closed if isinstance(closed, int) else None, sides, points, breakdown,
                   h.verdict)


def record_match(history_file: Path, directory: Path, recorded_by: str,
                 strategies: Mapping[int, str] | None = None) -> bool:
    """Record one finished match (the host's and a peer's hook at match end); False if the
    history has it already. Never raises for a bad record: it is logged and skipped."""
    try:
        with History(history_file) as history:
            if history.has_directory(str(Path(directory).resolve())):
                return False
            return history.add(record_of(directory, recorded_by, strategies))
    except Exception as exc:  # noqa: BLE001 — the history must never stop a host or a peer
        log.warning("history: %s not recorded: %s", directory, exc)
        return False


def record_roots(data_dir: Path) -> list[tuple[Path, str]]:
    """Where a data directory keeps match records, and who recorded them: the host's
    (`matches/`, `play/matches/`) and each identity's (`identities/<name>/matches/`)."""
    data_dir = Path(data_dir)
    roots = [(data_dir / "matches", "host"), (data_dir / "play" / "matches", "host")]
    ids = data_dir / "identities"
    if ids.is_dir():
        roots += [(d / "matches", d.name) for d in sorted(ids.iterdir()) if d.is_dir()]
    return roots


def index_records(history: History, data_dir: Path) -> int:
    """Record every finished match under `data_dir` the history lacks; how many were
    added. A match already indexed (by id or directory) is not read again."""
    return sum(index_root(history, root, who) for root, who in record_roots(data_dir))


def index_root(history: History, root: Path, recorded_by: str) -> int:
    """`index_records` for one directory of match directories."""
    added = 0
    if not Path(root).is_dir():
        return 0
    for d in sorted(Path(root).iterdir()):
        if not d.is_dir() or history.has(d.name[-32:]) \
                or history.has_directory(str(d.resolve())) or not is_finished(d):
            continue
        try:
            rec = record_of(d, recorded_by)
        except Exception as exc:  # noqa: BLE001 — one bad record must not hide the rest
            log.warning("history: %s not recorded: %s", d, exc)
            continue
        added += history.add(rec)
    return added


def record_peer(data_dir: Path, home: Path | None, name: str) -> int:
    """A peer's hook at the end of its match: index its identity's finished matches into
    the history of `data_dir` (nothing for an ephemeral peer, which keeps no records)."""
    if home is None:
        return 0
    try:
        with History(history_path(Path(data_dir))) as history:
            return index_root(history, Path(home) / "matches", name)
    except Exception as exc:  # noqa: BLE001 — the history must never fail a finished match
        log.warning("history: %s not indexed: %s", home, exc)
        return 0


def recent_lines(data_dir: Path | None, limit: int = 8) -> list[str]:
    """The latest finished matches, one summary each (the console's recent-matches view):
    the history of `data_dir` (default: the user's), brought up to date first."""
    if data_dir is None:
        from ..net.identity import default_data_dir

        data_dir = default_data_dir()
    with History(history_path(Path(data_dir))) as history:
        index_records(history, Path(data_dir))
        records = history.matches(limit=limit)
    if not records:
        return ["no finished matches in the history yet"]
    return [line for rec in records for line in summary_lines(rec)]


def host_hook(run: Any, data_dir: Path, strategy: str) -> Any:
    """A HostConfig.on_match_end that records each finished match into the history of
    `data_dir`, off the caller's thread (`run`: e.g. the reactor's `callInThread`; the
    audit and the write take a moment). The host's own bots played `strategy`."""
    path = history_path(Path(data_dir))

    def ended(room: Any) -> None:
        journal = getattr(room, "journal", None)
        if journal is None:
            return
        bots = {i: strategy for i, slot in enumerate(room.slots) if slot.bot}
        run(record_match, path, journal.dir, "host", bots)
    return ended
