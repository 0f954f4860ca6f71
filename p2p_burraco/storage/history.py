"""The history of finished matches: one SQLite file in the user data directory, an index
over the match records (transcripts and result.json), which stay the source of truth.

Why an index: `verify` can audit any one match, but "how did Ann do against the greedy
bots last month" needs every match at once. Each finished match a host or a peer on this
machine took part in becomes rows (HIST-1): the players by name and key, the game and rule
set, each hand with its score breakdown, the result and why it ended, the transcript paths
and the verify verdict. A match is written in one transaction, in WAL mode, so a process
killed mid-write leaves the database readable with the match either wholly in or wholly
out (HIST-2); a match is written once, whoever records it first (its id is unique). The
schema is versioned (`PRAGMA user_version`) and moved forward by `MIGRATIONS`, each step
in its own transaction (HIST-3); a database from a newer program is refused, not touched.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from ..errors import UsageError

HISTORY_FILE = "history.sqlite3"

MIGRATIONS: tuple[str, ...] = (
    # 1: matches, their seats, their hands and the score lines of each side
    """
    CREATE TABLE matches (
        id INTEGER PRIMARY KEY,
        match_id TEXT NOT NULL UNIQUE,
        directory TEXT NOT NULL,
        game TEXT NOT NULL,
        variant TEXT NOT NULL,
        players INTEGER NOT NULL,
        ended TEXT NOT NULL,
        reason TEXT NOT NULL,
        hands INTEGER NOT NULL,
        sides TEXT NOT NULL,            -- JSON: [[seat, …], …] of the final standings
        totals TEXT NOT NULL,           -- JSON: [points per side]
        winner INTEGER,                 -- index into sides; NULL: no winner
        verdict TEXT NOT NULL,          -- fair | cheat | incomplete (p2p-burraco verify)
        recorded_by TEXT NOT NULL       -- host | the peer identity's name
    );
    CREATE TABLE seats (
        match INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        key TEXT NOT NULL,              -- the player's public key, hex
        bot TEXT,                       -- a host bot's strategy ('bot' if unknown); NULL: not
        PRIMARY KEY (match, seat)
    );
    CREATE TABLE hands (
        match INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
        hand_no INTEGER NOT NULL,       -- from 1
        path TEXT NOT NULL,
        kind TEXT NOT NULL,             -- scored | void | forfeit | abandon | host_fault
        reason TEXT NOT NULL,           -- closed, stock, tricks, …
        closed_by INTEGER,
        sides TEXT NOT NULL,            -- JSON: this hand's sides (they may change per hand)
        points TEXT NOT NULL,           -- JSON: points per side
        verdict TEXT NOT NULL,
        PRIMARY KEY (match, hand_no)
    );
    CREATE TABLE score_lines (
        match INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
        hand_no INTEGER NOT NULL,
        side INTEGER NOT NULL,
        line INTEGER NOT NULL,
        label TEXT NOT NULL,
        points INTEGER NOT NULL,
        PRIMARY KEY (match, hand_no, side, line)
    );
    """,
    # 2: the lookups `history --player/--game` and the recent-matches view make
    """
    CREATE INDEX seats_by_name ON seats(name);
    CREATE INDEX matches_by_game ON matches(game, ended);
    CREATE INDEX matches_by_end ON matches(ended);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class HistoryError(UsageError):
    """A history database this program cannot use, and why."""


@dataclass(frozen=True)
class SeatRow:
    seat: int
    name: str
    key: str
    bot: str | None = None


@dataclass(frozen=True)
class HandRow:
    hand_no: int                            # from 1
    path: str
    kind: str
    reason: str
    closed_by: int | None
    sides: tuple[tuple[int, ...], ...]
    points: tuple[int, ...]
    breakdown: tuple[tuple[tuple[str, int], ...], ...]     # per side: (label, points)
    verdict: str


@dataclass(frozen=True)
class MatchRecord:
    """One finished match, as the history keeps it."""

    match_id: str
    directory: str
    game: str
    variant: str
    players: int
    ended: str
    reason: str
    sides: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    winner: int | None
    verdict: str
    recorded_by: str
    seats: tuple[SeatRow, ...]
    hands: tuple[HandRow, ...] = field(default_factory=tuple)

    def side_of(self, seat: int) -> int | None:
        return next((i for i, s in enumerate(self.sides) if seat in s), None)

    def names(self, side: Sequence[int]) -> str:
        by_seat = {s.seat: s.name for s in self.seats}
        return "+".join(by_seat.get(x, f"seat {x}") for x in side)


def summary_lines(rec: MatchRecord, hands: bool = False) -> list[str]:
    """One match: when, id, game, players by side with totals, the winner, why it ended,
    the verdict; with `hands`, each hand's outcome and score lines."""
    parts = [f"{rec.names(side)} {total}" for side, total in zip(rec.sides, rec.totals)]
    winner = rec.names(rec.sides[rec.winner]) if rec.winner is not None \
        and 0 <= rec.winner < len(rec.sides) else "none"
    bots = [s for s in rec.seats if s.bot]
    out = [f"{rec.ended[:16].replace('T', ' ')}  {rec.match_id[:12]}  {rec.game} "
           f"{rec.variant}: {' | '.join(parts)}; winner {winner} ({rec.reason}); "
           f"{len(rec.hands)} hand(s); verify: {rec.verdict}"
           + (f"; bots: {', '.join(f'{s.name} ({s.bot})' for s in bots)}" if bots else "")]
    if hands:
        for h in rec.hands:
            pts = " | ".join(f"{rec.names(side)} {p:+d}" for side, p in zip(h.sides, h.points))
            closer = f", closed by {rec.seats[h.closed_by].name}" \
                if h.closed_by is not None and h.closed_by < len(rec.seats) else ""
            out.append(f"    hand {h.hand_no} ({h.kind}, {h.reason}{closer}): {pts}")
            for side, lines in zip(h.sides, h.breakdown):
                if lines:
                    out.append(f"      {rec.names(side)}: "
                               + ", ".join(f"{lbl} {p:+d}" for lbl, p in lines))
        out.append(f"    records: {rec.directory}")
    return out


def history_path(data_dir: Path) -> Path:
    return Path(data_dir) / HISTORY_FILE


class History:
    """The open history database (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(str(self.path), timeout=10.0, isolation_level=None)
            self.db.execute("PRAGMA foreign_keys = ON")
            mode = self._wal()
            self.db.execute("PRAGMA synchronous = NORMAL" if mode == "wal"
                            else "PRAGMA synchronous = FULL")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise HistoryError(f"{self.path}: not a history database ({exc})") from None

    def _wal(self, wait: float = 10.0) -> str:
        """Switch to WAL (HIST-2); the journal mode it is in. Why the retry: SQLite answers
        "database is locked" at once, without the busy timeout, when connections opening a
        fresh file together race to switch it; the switch is tried again for `wait` s."""
        deadline = time.monotonic() + wait
        while True:
            try:
                return str(self.db.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.005)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- schema ----------------------------------------------------------------------
    @property
    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        """Bring the schema to SCHEMA_VERSION, one migration per transaction (HIST-3).

        Why the version is read again inside each step's write transaction: several
        connections may open one fresh database at once (the host's threads recording two
        tables that end together, a peer's hook and the console's recent view); the first to
        take the write lock applies a step, the others then see it applied and skip it."""
        self._refuse_newer(self.version)
        for version in range(1, SCHEMA_VERSION + 1):
            if self.version >= version:         # already applied (read without the lock)
                continue
            with self._transaction():
                have = self.version             # under the write lock: the version that is
                self._refuse_newer(have)
                if have >= version:             # another connection applied it meanwhile
                    continue
                for statement in _statements(MIGRATIONS[version - 1]):
                    self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version = {version}")

    def _refuse_newer(self, have: int) -> None:
        if have > SCHEMA_VERSION:
            raise HistoryError(f"{self.path}: schema version {have} is newer than this "
                               f"program's {SCHEMA_VERSION}: upgrade p2p-burraco")

    class _Tx:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, exc_type: object, *rest: object) -> None:
            self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")

    def _transaction(self) -> History._Tx:
        return History._Tx(self.db)

    # --- writing ---------------------------------------------------------------------
    def has(self, match_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM matches WHERE match_id = ?",
                               (match_id,)).fetchone() is not None

    def has_directory(self, directory: str) -> bool:
        return self.db.execute("SELECT 1 FROM matches WHERE directory = ?",
                               (directory,)).fetchone() is not None

    def add(self, rec: MatchRecord) -> bool:
        """Write a match in one transaction (HIST-2); False if it is already there."""
        with self._transaction() as db:
            if self.has(rec.match_id):
                return False
            cur = db.execute(
                "INSERT INTO matches (match_id, directory, game, variant, players, ended, "
                "reason, hands, sides, totals, winner, verdict, recorded_by) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (rec.match_id, rec.directory, rec.game, rec.variant, rec.players, rec.ended,
                 rec.reason, len(rec.hands), _j(rec.sides), _j(rec.totals), rec.winner,
                 rec.verdict, rec.recorded_by))
            mid = cur.lastrowid
            db.executemany("INSERT INTO seats VALUES (?,?,?,?,?)",
                           [(mid, s.seat, s.name, s.key, s.bot) for s in rec.seats])
            db.executemany("INSERT INTO hands VALUES (?,?,?,?,?,?,?,?,?)",
                           [(mid, h.hand_no, h.path, h.kind, h.reason, h.closed_by,
                             _j(h.sides), _j(h.points), h.verdict) for h in rec.hands])
            db.executemany("INSERT INTO score_lines VALUES (?,?,?,?,?,?)",
                           [(mid, h.hand_no, side, i, label, pts) for h in rec.hands
                            for side, lines in enumerate(h.breakdown)
                            for i, (label, pts) in enumerate(lines)])
        return True

    # --- reading ---------------------------------------------------------------------
    def matches(self, *, player: str | None = None, game: str | None = None,
                limit: int | None = None) -> list[MatchRecord]:
        """Matches, the latest first; `player` by name, `game` by name."""
        where, params = [], []
        if player is not None:
            where.append("id IN (SELECT match FROM seats WHERE name = ?)")
            params.append(player)
        if game is not None:
            where.append("game = ?")
            params.append(game)
        sql = "SELECT * FROM matches" + (" WHERE " + " AND ".join(where) if where else "") \
            + " ORDER BY ended DESC, id DESC" + (f" LIMIT {int(limit)}" if limit else "")
        cur = self.db.execute(sql, params)
        cols = [d[0] for d in cur.description]
        return [self._record(dict(zip(cols, row))) for row in cur.fetchall()]

    def match(self, ref: str) -> MatchRecord | None:
        """A match by its id, or a unique prefix of it (8+ hex digits)."""
        if not re.fullmatch(r"[0-9a-f]{1,32}", ref):
            return None
        if len(ref) < 8:                # too short a prefix to name a match: the whole id only
            cur = self.db.execute("SELECT * FROM matches WHERE match_id = ? LIMIT 2", (ref,))
        else:
            cur = self.db.execute("SELECT * FROM matches WHERE match_id LIKE ? LIMIT 2",
                                  (ref + "%",))
        cols = [d[0] for d in cur.description]
        rows = cur.fetchall()
        if len(rows) != 1:
            return None
        return self._record(dict(zip(cols, rows[0])))

    def _record(self, m: Mapping[str, Any]) -> MatchRecord:
        seats = tuple(SeatRow(*row) for row in self.db.execute(
            "SELECT seat, name, key, bot FROM seats WHERE match = ? ORDER BY seat", (m["id"],)))
        lines: dict[tuple[int, int], list[tuple[str, int]]] = {}
        for hand_no, side, label, pts in self.db.execute(
                "SELECT hand_no, side, label, points FROM score_lines WHERE match = ? "
                "ORDER BY hand_no, side, line", (m["id"],)):
            lines.setdefault((hand_no, side), []).append((label, pts))
        hands = []
        for h in self.db.execute("SELECT hand_no, path, kind, reason, closed_by, sides, "
                                 "points, verdict FROM hands WHERE match = ? ORDER BY hand_no",
                                 (m["id"],)):
            sides = _tuples(json.loads(h[5]))
            hands.append(HandRow(h[0], h[1], h[2], h[3], h[4], sides,
                                 tuple(json.loads(h[6])),
                                 tuple(tuple(lines.get((h[0], i), ())) for i in
                                       range(len(sides))), h[7]))
        return MatchRecord(m["match_id"], m["directory"], m["game"], m["variant"],
                           m["players"], m["ended"], m["reason"],
                           _tuples(json.loads(m["sides"])), tuple(json.loads(m["totals"])),
                           m["winner"], m["verdict"], m["recorded_by"], seats, tuple(hands))

    def integrity(self) -> str:
        return str(self.db.execute("PRAGMA integrity_check").fetchone()[0])


def _j(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _tuples(value: Any) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(x) for x in s) for s in value)


def _statements(script: str) -> Iterator[str]:
    plain = "\n".join(ln.split("--")[0] for ln in script.splitlines())
    for part in plain.split(";"):
        if part.strip():
            yield part.strip()
