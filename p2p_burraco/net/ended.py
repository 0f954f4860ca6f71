"""The host's memory of ended matches, kept across its restarts (storage/ended.py).

- Who sat where at the latest ended matches (`HostNode.ended`, ENDED_SEATS seats at most),
  with each match's `match_end` body: a seat that comes back after its match ended — the
  host restarted meanwhile or not — hears that result at once (PROTOCOL § 7) and stops,
  never "our seat was given away".
- The open rematch offers (TABLE-16, net/rematch.py), with when each lapses.
- The next table id, so a restarted host never opens a table under the id of an ended match
  that a returning seat or an offer still names.

`EndedRecord` is one of what a reactor turn makes durable before its replies leave
(`HostNode.durable`): the turn that ends a match marks it, so the `match_end` leaves only
once the file holds the match's seats and its offer. A rematch request writes it at once
(`write_now`) and is refused with `host.disk_full` when it cannot.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..storage.ended import ENDED, load_ended, save_ended
from ..storage.journal import DISK_ERRORS, DiskFull

if TYPE_CHECKING:
    from .host import HostNode


def snapshot(node: HostNode) -> dict[str, Any]:
    """What `storage.ended` keeps: the ended matches (each body once, with the seats still
    remembered for it, oldest first), the offers not lapsed, the next table id."""
    matches: dict[int, dict[str, Any]] = {}
    for identity, (table, seat, body) in node.ended.items():
        entry = matches.setdefault(id(body), {"table": table, "end": body, "seats": []})
        if table in node.ended_last:
            entry["last"] = node.ended_last[table]
        entry["seats"].append([seat, identity])
    now = node.reactor.seconds()
    return {"next_table": node.lobby.next_id,
            "matches": list(matches.values()),
            "offers": [o.to_disk() for o in node.rematches.offers.values() if o.expires > now]}


class EndedRecord:
    """`ended.msgpack` as part of a turn's group commit (see the module docstring)."""

    def __init__(self, node: HostNode) -> None:
        self.node = node
        self.saved: dict[str, Any] | None = None

    def write_now(self) -> None:
        """Write the file if it changed; `DiskFull` naming it when the disk refuses."""
        body = snapshot(self.node)
        if body == self.saved:
            return
        try:
            save_ended(self.node.data_dir, body)
        except OSError as exc:
            if exc.errno in DISK_ERRORS:
                raise DiskFull(self.node.data_dir / ENDED, exc) from exc
            raise
        self.saved = body

    def sync(self) -> None:
        """At the end of the turn that ended a match (or settled an offer): a disk that
        refuses is said in one line; the memory goes on and the next change tries again."""
        try:
            self.write_now()
        except DiskFull as exc:
            self.node.say(f"disk full: {exc.path} ({os.strerror(exc.cause.errno or 0)})")


def restore_ended(node: HostNode) -> None:
    """At start: the ended matches' seats, the open offers and the next table id a previous
    run left. A file that does not read stops the start (it is never guessed)."""
    from .host import ENDED_SEATS, HostRefused

    try:
        body = load_ended(node.data_dir)
    except ValueError as exc:
        raise HostRefused(f"will not start: {exc}; nothing was changed — move it away, or "
                          "start with --fresh (which keeps it under another name)") from None
    if not body:
        return
    node.lobby.next_id = max(node.lobby.next_id, int(body.get("next_table", 1)))
    for m in body.get("matches", []):
        end = dict(m["end"])
        for seat, identity in m["seats"]:
            node.ended.pop(identity, None)
            node.ended[identity] = (str(m["table"]), int(seat), end)
        if isinstance(m.get("last"), str):
            node.ended_last[str(m["table"])] = m["last"]
    while len(node.ended) > ENDED_SEATS:
        node.ended.popitem(last=False)
    node.rematches.restore(list(body.get("offers", [])))
    node.ended_record.saved = snapshot(node)
    if node.ended or node.rematches.offers:
        node.say(f"remembers {len(node.ended)} seat(s) of ended matches and "
                 f"{len(node.rematches.offers)} open rematch offer(s)")


def last_hand(node: HostNode, table: str) -> list[tuple[str, dict[str, Any]]]:
    """The frames of an ended table's last closed hand, as its record on disk holds it (its
    log from the signed hand_start, then the hand_end with every sign-off) — what a seat
    that was away when that hand closed lacks to hold its own proof of it. Nothing when the
    record is not there or does not read (the seat still hears the result)."""
    from ..fairdeal.transcript import Transcript
    from .room import closed_frames

    path = node.ended_last.get(table)
    if path is None:
        return []
    try:
        record = Transcript.load(str(node.data_dir / path))
    except (OSError, ValueError) as exc:
        node.say(f"{table}: the last hand's record {path} does not read ({exc}); a returning "
                 "seat hears only the result")
        return []
    return closed_frames(record)
