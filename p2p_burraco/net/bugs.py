"""A bug while a node handles a frame reaches the people it affects, in one sentence.

Before, an exception in a host's table handling was logged behind the full-screen console
and answered to the one connection whose frame raised it: the other seats of that table
waited for good ("everyone is seated: waiting for the deal"). Now:

- the traceback goes to a file (`errors.write_traceback`, under the node's data directory);
- on the host, a table whose handling raised is in an unknown state, so it stops: every seat
  connected to it gets a fatal `host.internal` error whose message says it is a bug and
  where the traceback is, and the table leaves the host (its records stay on disk); a
  frame that raised outside any table gets the same error, not fatal, and the host goes on;
- on a peer, the peer stops with that sentence (its console shows it); the host sees a drop
  and the table goes on as for any absent seat (grace, then a bot).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import bug_sentence, write_traceback
from ..stages import RoomStatus, advance
from ..storage.journal import DISK_ERRORS, DiskFull
from ..wire import WireError

if TYPE_CHECKING:
    from .host import HostConnection
    from .peer import PeerConnection
    from .room import TableRoom

log = logging.getLogger("p2p_burraco.bugs")


def traceback_file(exc: BaseException, data_dir: Path | str | None) -> Path | None:
    """Where `exc`'s traceback was written, or None when no file could take it."""
    try:
        return write_traceback(exc, data_dir)
    except OSError:
        log.exception("could not write the traceback of a bug anywhere")
        return None


def host_bug(conn: HostConnection, exc: Exception, mtype: str, seq: int) -> None:
    """A host failed handling `mtype` #seq from `conn`: see the module docstring."""
    log.error("%s: failure handling %s #%d", conn.describe(), mtype, seq, exc_info=exc)
    path = traceback_file(exc, conn.node.data_dir)
    sentence = f"the host hit an {bug_sentence(exc, path)}"
    room = conn.room
    if room is None:
        conn.refuse(WireError("host.internal", f"{sentence}; nothing was changed", ref=seq))
        return
    fail_room(room, sentence)


def fail_room(room: TableRoom, sentence: str) -> None:
    """Stop a table whose state a bug left unknown: tell every connected seat, then let the
    table go (the journal and records stay where they are)."""
    node = room.node
    node.say(f"{room.id}: stopped by a bug of the host: {sentence}")
    room.status = advance(room.status, RoomStatus.OVER)
    room.stop_timers()
    for slot in room.slots:
        conn = slot.conn
        if conn is not None and not conn.closing:
            conn.refuse(WireError("host.internal", f"{sentence}; this table is closed",
                                  fatal=True))
    node.lobby.reap(room)
    if room is node.default_room:
        node.default_room = None
    node.done_if_idle()


def peer_bug(conn: PeerConnection, exc: Exception, mtype: str, seq: int) -> None:
    """A peer failed handling the host's `mtype` #seq: the peer stops with one sentence."""
    from .peer import PeerError

    if isinstance(exc, OSError) and exc.errno in DISK_ERRORS:
        peer_disk_full(conn, exc, mtype)
        return
    log.error("%s: failure handling %s #%d", conn.describe(), mtype, seq, exc_info=exc)
    node: Any = conn.node
    path = traceback_file(exc, node.config.data_dir)
    sentence = bug_sentence(exc, path)
    node.fail(PeerError(sentence))   # first: the console shows this sentence
    conn.refuse(WireError("msg.bad_value", f"could not handle {mtype!r}", fatal=True,
                          ref=seq))


DISK_FULL_CODE = "disk_full"
"""The code of a peer's PeerError when its own disk refused a write (`peer_disk_full`)."""


def peer_disk_full(conn: PeerConnection, exc: OSError, mtype: str) -> None:
    """Not a bug: the peer's own disk refused a write that its next step depends on (a seed,
    a mark, a signed statement, its copy of a hand: each is written before anything that
    depends on it is sent). Nothing was sent; the peer stops in one sentence, its files as a
    crash would leave them, and the same command again, once there is room, takes the seat
    back (the host holds it for the grace period). The host's own bots are stopped the same
    way and the host stalls their table until its disk takes writes (HostNode._bot_done)."""
    from .peer import PeerError

    node: Any = conn.node
    where = exc.filename or node.config.data_dir
    log.info("%s: disk full: %s (handling %s)", conn.describe(), where, mtype)
    error = PeerError(f"disk full: {where} — this seat cannot keep what it must before it "
                      "answers; make room and start the same command again to take the "
                      "seat back", DISK_FULL_CODE)
    error.__cause__ = exc
    node.fail(error)
    conn.drop()


def guarded(room: TableRoom, fn: Callable[[], None]) -> Callable[[], None]:
    """`fn` for a table's timer (a move clock, a grace period): a bug in it stops that
    table as `host_bug` does, rather than leaving it waiting on a timer that raised."""
    def run() -> None:
        try:
            fn()
        except DiskFull as exc:    # not a bug: the table stalls until the disk takes writes
            room.node.disk_failed(room, exc)
        except Exception as exc:  # noqa: BLE001 - a bug of the host: room_bug reports it
            room_bug(room, exc, "a timer")
    return run


def room_bug(room: TableRoom, exc: Exception, where: str) -> None:
    """A bug raised in `where` while `room` handled it (a timer, a dropped connection):
    logged, its traceback written, the table stopped in one sentence to every seat."""
    log.error("%s: failure in %s", room.id, where, exc_info=exc)
    path = traceback_file(exc, room.node.data_dir)
    fail_room(room, f"the host hit an {bug_sentence(exc, path)}")
