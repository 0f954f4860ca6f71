"""The host and its disk: what it does at start with the matches it finds, and when a write
fails (PROTOCOL § 10, "The host's journal").

- At start (`survey_or_refuse`): a journal damaged inside, or a match directory whose
  journal is missing while its hand records are there, stops the start with one sentence
  naming the file and the offset (nothing is touched), unless `--salvage`.
- `check_options`: a restart whose options differ from the unfinished match's says so and
  asks for the same options or `--fresh` (never resumes the old match under new options,
  never silently ignores them).
- `complete_journal`: a hand whose closing event is journaled but whose record is not on
  disk (a crash or a full disk between the two) gets its record written, and a checkpoint
  after it; a match whose journal says it is over gets its `result.json` (`finish_if_over`).
- `stall`: a journal write failed (ENOSPC, EIO). Nothing that depends on it is sent: the
  host logs `disk full: PATH` in one line, tells the table's seats `host.disk_full` (fatal
  for the connection, retryable: they reconnect and resync), forgets the table's state in
  memory (it ran ahead of the disk) and deals no hand; `watch` tries every `disk_retry`
  seconds to write again and, once it can, rebuilds the table from its journal (as a restart
  would) and the match goes on by itself.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..stages import RoomStatus
from ..storage.journal import (
    RESULT,
    DiskFull,
    JournalDamaged,
    LoadedMatch,
    MatchJournal,
    load,
    salvage,
    survey,
)
from ..wire import WireError
from .bugs import guarded

if TYPE_CHECKING:
    from .host import HostNode
    from .room import TableRoom

PROBE_BYTES = 64 * 1024
"""What `watch` writes (and removes) to see whether the disk takes writes again."""


def survey_or_refuse(node: HostNode) -> list[LoadedMatch]:
    """The unfinished matches to resume; `HostRefused` if one cannot be read as it is and
    `--salvage` was not given (with it: salvaged, saying what was done)."""
    from .host import HostRefused

    found, problems = survey(node.matches_dir)
    if problems and not node.config.salvage:
        p = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        how = ("resume it from its last good checkpoint, the damaged file moved aside, "
               "never deleted" if p.kind == "damaged" else
               "set the directory aside, its hand records kept")
        raise HostRefused(f"will not start: {p.message}{more}; nothing was changed — start "
                          f"again with --salvage to {how}, or with --fresh to leave it")
    for p in problems:
        node.say(f"salvage: {salvage(p)}")
    if problems:
        found, problems = survey(node.matches_dir)
        if problems:
            raise HostRefused(f"will not start: {problems[0].message} (after --salvage)")
    return found


def _default_players(game: str, variant: str) -> int | None:
    from ..games import get_game

    spec = get_game(game)
    if variant not in spec.presets:
        return None
    allowed = tuple(spec.seat_counts(spec.presets[variant]))
    return 4 if game == "burraco" and 4 in allowed else allowed[0]


def check_options(node: HostNode, loaded: LoadedMatch) -> None:
    """`HostRefused` when this start's table options differ from the unfinished match's."""
    from ..games import get_game
    from ..table.host import MatchConfig
    from .host import HostRefused

    c = node.config
    have = MatchConfig.from_wire(loaded.header["config"])
    try:
        variant = c.variant or get_game(c.game).default_variant
    except (KeyError, ValueError):
        variant = c.variant or ""
    players = c.players if c.players is not None else _default_players(c.game, variant)
    stated = {"--game": (have.game, c.game), "--variant": (have.variant, variant),
              "--players": (have.n_seats, players),
              "--target": (loaded.header.get("target"), c.target),
              "--hands": (have.hands, c.hands)}
    differ = {k: v for k, v in stated.items() if v[0] != v[1]}
    if not differ:
        return

    def opts(pairs: dict[str, tuple[Any, Any]], i: int) -> str:
        return " ".join(f"{k} {v[i]}" if v[i] is not None else f"no {k}"
                        for k, v in pairs.items())

    started = {k: v for k, v in stated.items() if v[0] is not None}
    raise HostRefused(f"the unfinished match in {loaded.directory} was started with "
                      f"{opts(started, 0)}, and this start asks for {opts(differ, 1)}: start "
                      "again with the same options to resume it, or with --fresh to leave it "
                      "and open a new table")


def complete_journal(node: HostNode, loaded: LoadedMatch) -> LoadedMatch:
    """Write every record the journal's closed hands are missing (and a checkpoint when the
    journal's last event closed a hand); the match as it then loads."""
    from ..storage.files import write_record
    from ..table.host import MatchConfig, transcript_name
    from ..table.recovery import replay_closing

    config = MatchConfig.from_wire(loaded.header["config"])
    table, closed = replay_closing(config, node.identity, loaded.events, loaded.checkpoint)
    if not closed:
        return loaded
    wrote = []
    for _, record in closed:
        name = transcript_name(record.hand_no)
        if not (loaded.directory / name).exists():
            write_record(loaded.directory / name, record.transcript.to_bytes())
            wrote.append(name)
    if closed[-1][0] != len(loaded.events) - 1 or table.stage not in ("between", "over"):
        if wrote:
            node.say(f"{loaded.directory.name}: wrote the missing record(s) "
                     f"{', '.join(wrote)} from the journal")
        return loaded
    journal = MatchJournal.reopen(loaded.directory)
    try:
        journal.append(table.checkpoint())
        journal.sync()
    finally:
        journal.close()
    if wrote:
        node.say(f"{loaded.directory.name}: wrote the missing record(s) {', '.join(wrote)} "
                 "from the journal")
    again = load(loaded.directory)
    assert again is not None
    return again


def finish_if_over(room: TableRoom) -> None:
    """A match the journal says is over but whose result.json is missing: write it now."""
    journal = room.journal
    if room.status == "over" and journal is not None and not (journal.dir / RESULT).exists():
        room.status = RoomStatus.PLAYING     # end_match moves it to over again
        room.end_match()


def stall(node: HostNode, room: TableRoom, exc: DiskFull, abort: bool = False) -> None:
    """See the module docstring. `abort`: the seats' held output must never leave (an fsync
    failed after it was written), so their connections are cut rather than told."""
    if room.id in node.stalled:
        return
    node.say(f"disk full: {exc.path}")
    node.stalled[room.id] = room
    room.status = RoomStatus.STALLED
    room.stop_timers()
    for slot in room.slots:
        conn, slot.conn = slot.conn, None
        if conn is None:
            continue
        room.unseat(conn)
        if abort and conn.transport is not None:
            conn.transport.abortConnection()  # type: ignore[attr-defined]  # a TCP transport (ITCPTransport) has it
        else:
            conn.refuse(WireError("host.disk_full", _message(), fatal=True))
    if room.journal is not None:
        room.journal.close()


def _message() -> str:
    from .host import DISK_FULL_MESSAGE

    return DISK_FULL_MESSAGE


def watch(node: HostNode) -> None:
    """Every `disk_retry` seconds: stall a table whose journal broke outside a request, and
    try to bring stalled tables back (see the module docstring)."""
    if not node.all_done.called:             # first: a bug below must not end the watch
        node._disk_watch = node.reactor.callLater(node.config.disk_retry, watch, node)
    stall_broken(node)
    _start_waiting(node)
    for table_id, room in list(node.stalled.items()):
        guarded(room, functools.partial(_try_resume, node, table_id, room))()


def writable(directory: Path) -> bool:
    """Whether `directory` takes a small write and its fsync again (what a resume needs)."""
    probe = directory / f".probe.{secrets.token_hex(4)}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            view = memoryview(b"\0" * PROBE_BYTES)
            while view:                      # a short write means the disk is full
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        return True
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()


def _try_resume(node: HostNode, table_id: str, room: TableRoom) -> None:
    from .room import TableRoom as Room

    journal = room.journal
    if journal is None:
        return
    if not writable(journal.dir):
        if table_id not in node.disk_said:
            node.disk_said.add(table_id)
            node.say(f"{table_id}: waits for the disk, no hand is dealt; trying again every "
                     f"{node.config.disk_retry:g} s")
        return
    try:
        loaded = load(journal.dir)
        if loaded is None:
            return
        loaded = complete_journal(node, loaded)
        new = Room.restore(node, loaded)
    except DiskFull:
        return                              # not yet: the next tick tries again
    except (JournalDamaged, OSError) as exc:
        node.say(f"{table_id}: cannot go on from its journal: {exc}")
        return
    del node.stalled[table_id]
    node.disk_said.discard(table_id)
    if node.lobby.tables.get(table_id) is room:
        node.lobby.tables[table_id] = new
    if node.default_room is room:
        node.default_room = new
    node.say(f"{table_id}: the disk takes writes again; the match goes on")
    finish_if_over(new)


# --------------------------------------------------------------------------- the lobby
def _lobby_entry(room: TableRoom) -> dict[str, Any]:
    return {"id": room.id, "game": room.game, "variant": room.variant,
            "players": room.players, "target": room.target, "hands": room.hands,
            "options": {k: v for k, v in room.options.items() if k != "target"},
            "seats": [{"seat": i, "name": s.name, "identity": s.identity.hex(),
                       "bot_name": s.bot_name}
                      for i, s in enumerate(room.slots) if s.identity is not None],
            # TABLE-16: a rematch table's seats stay kept for their people across a restart
            "reserved": {str(i): key.hex() for i, key in sorted(room.reserved.items())}}


def _waiting_entries(node: HostNode) -> list[dict[str, Any]]:
    """What lobby.json holds: each waiting table someone sits at."""
    return [_lobby_entry(r) for r in node.lobby.tables.values()
            if r.status == "waiting" and any(s.taken for s in r.slots)]


def save_lobby(node: HostNode) -> None:
    """Write who sits at each waiting table (storage.lobby) if it changed since the last
    write. A disk that refuses it is said in one line; the lobby in memory goes on (the next
    change tries again)."""
    from ..storage.lobby import LOBBY
    from ..storage.lobby import save_lobby as write

    tables = _waiting_entries(node)
    if tables == (node.lobby_saved if node.lobby_saved is not None else []):
        return
    try:
        write(node.data_dir, tables)
    except OSError as exc:
        node.say(f"disk full: {node.data_dir / LOBBY} ({os.strerror(exc.errno or 0)})")
        return
    node.lobby_saved = tables


class LobbyRecord:
    """`lobby.json` as one of what a reactor turn makes durable before its replies leave
    (`HostNode.durable`): a request that seats or unseats someone marks it, the turn's output
    is held, and its `sync` writes the file before the group is released — so nobody is told
    a seat the file does not hold."""

    def __init__(self, node: HostNode) -> None:
        self.node = node

    def sync(self) -> None:
        save_lobby(self.node)


def set_aside_unreadable(node: HostNode) -> None:
    """`--fresh`: lobby.json and ended.msgpack are not read, but one that does not read is
    moved aside under a name of its own and said, never overwritten by this run's first
    write (a damaged file is kept)."""
    from ..storage.ended import ENDED, load_ended
    from ..storage.journal import set_aside
    from ..storage.lobby import LOBBY, load_lobby

    for name, read in ((LOBBY, load_lobby), (ENDED, load_ended)):
        try:
            read(node.data_dir)
        except ValueError as exc:
            aside = set_aside(node.data_dir / name, "damaged")
            node.say(f"{exc}: kept as {aside.name}, not read (--fresh)")


def restore_lobby(node: HostNode) -> None:
    """At start: the waiting tables a previous run left, each seat held for its player (a
    host bot's restarted) for the grace period; a table whose options are this start's
    becomes the default table instead of a new one."""
    from ..games import get_game
    from ..storage.lobby import load_lobby
    from .host import HostRefused

    try:
        tables = load_lobby(node.data_dir)
    except ValueError as exc:
        raise HostRefused(f"will not start: {exc}; nothing was changed — move it away, or "
                          "start with --fresh (which keeps it under another name)") from None
    c = node.config
    for t in tables:
        if t["id"] in node.lobby.tables:
            continue
        try:
            room = _room_class()(node, str(t["id"]), str(t["game"]), t.get("variant"),
                                  t.get("players"), t.get("target"), t.get("hands"),
                                  dict(t.get("options") or {}))
        except (ValueError, KeyError) as exc:
            node.say(f"lobby: table {t['id']} not restored: {exc}")
            continue
        node.lobby.adopt(room)
        room.reserved = {int(i): bytes.fromhex(key)
                         for i, key in (t.get("reserved") or {}).items()}
        for s in t["seats"]:
            i = int(s["seat"])
            if not 0 <= i < room.players:
                continue
            slot = room.slots[i]
            slot.identity = bytes.fromhex(s["identity"])
            slot.name = s.get("name")
            slot.bot_name = s.get("bot_name")
            slot.bot = slot.bot_name is not None
            slot.away = node.reactor.callLater(room.table_rules.grace_ms / 1000, guarded(
                room, functools.partial(_lobby_seat_expired, node, room, i)))
            if slot.bot:
                node.restart_bot(room, i)
        node.say(f"{room.id}: lobby restored — {len(t['seats'])} of {room.players} seat(s) "
                 "held for their players")
        variant = c.variant or get_game(c.game).default_variant
        players = c.players if c.players is not None else _default_players(c.game, variant)
        if c.default_table and node.default_room is None and \
                (room.game, room.variant, room.players, room.target, room.hands) == \
                (c.game, variant, players, c.target, c.hands):
            node.default_room = room
    node.lobby_saved = _waiting_entries(node)


def _room_class() -> type[TableRoom]:
    from .room import TableRoom as Room

    return Room


def _lobby_seat_expired(node: HostNode, room: TableRoom, seat: int) -> None:
    """A seat held across a restart whose player did not come back within the grace."""
    from .room import SeatSlot

    slot = room.slots[seat]
    slot.away = None
    if room.status != "waiting" or slot.conn is not None or not slot.taken:
        return
    node.say(f"{room.id}: {slot.name} (seat {seat}) did not come back; the seat is free "
             "again")
    room.slots[seat] = SeatSlot()
    room.broadcast_lobby()
    save_lobby(node)


def back_in_lobby(node: HostNode, room: TableRoom) -> None:
    """A player back at a waiting table: the match starts once every seat is back."""
    if room.status == "waiting" and not room.free_seats() and \
            all(s.conn is not None for s in room.slots):
        room.start_match()
    save_lobby(node)


# --------------------------------------------------------------------------- clocks
class DiskGuardedClock:
    """The host's reactor, whose timed calls (a move clock, a grace period, a deal after a
    return) stall their table on a failed write instead of dying in a traceback: a write that
    fails outside any request is said in one line, like one that fails inside a request."""

    def __init__(self, reactor: Any, node: HostNode) -> None:
        self._reactor = reactor
        self._node = node

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reactor, name)

    def callLater(self, delay: float, f: Any, *args: Any, **kw: Any) -> Any:  # noqa: N802
        def guarded() -> Any:
            try:
                return f(*args, **kw)
            except DiskFull as exc:
                stalled = stall_broken(self._node)
                if not stalled:
                    self._node.say(f"disk full: {exc.path}")
                return None
        return self._reactor.callLater(delay, guarded)


def stall_broken(node: HostNode) -> bool:
    """Stall every table whose journal broke and is not stalled yet; whether any was."""
    found = False
    for room in list(node.lobby.tables.values()):
        journal = room.journal
        if journal is not None and journal.broken is not None and room.id not in node.stalled:
            stall(node, room, journal.broken)
            found = True
    return found


# --------------------------------------------------------------------------- a match's start
def start_later(node: HostNode, room: TableRoom | None) -> bool:
    """The last seat was taken but the match's first record could not be written: the
    seats stay as they are (no one is told their seat is gone) and `watch` starts the
    match once the disk takes writes. False when that is not what failed."""
    if room is None or room.status != "waiting" or room.driver is not None \
            or room.free_seats():
        return False
    node.say(f"{room.id}: every seat is taken; the match starts once the host can write")
    return True


def _start_waiting(node: HostNode) -> None:
    """Full waiting tables whose match could not start for the disk: try again."""
    for room in list(node.lobby.tables.values()):
        if room.status != "waiting" or room.driver is not None or room.free_seats() \
                or not all(s.conn is not None for s in room.slots):
            continue
        try:
            room.start_match()
        except DiskFull:
            return
        save_lobby(node)
