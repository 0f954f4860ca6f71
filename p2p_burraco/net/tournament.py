"""A club tournament on one host: registration, rounds of ordinary matches, standings.

Each round's tables are ordinary `TableRoom`s of the `HostNode` (fair dealing, clocks,
journal, records), opened by the director with their seats assigned by the movement
(`p2p_burraco.tournament`, pure). Players register by `join`-ing: the tournament lobby
holds their `join_table` until their table of the round opens, then seats them there. The
only hooks into the host are a Lobby subclass (`node.lobby`), a room subclass that names the
event in its `info`, and `HostConfig.on_match_end`.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred

from ..errors import UsageError
from ..tournament import vp as vpt
from ..tournament.movement import Round, danish_first, danish_next, individual_round, mitchell
from ..tournament.standings import Result, match_result, ranking, tally
from ..wire import Frame, WireError
from . import identity as ident
from .host import HostConfig, HostConnection, HostNode, Lobby
from .room import TableRoom

log = logging.getLogger(__name__)

OUT_OF_REACH = 100_000
"""The match target of a tournament table: only the number of hands ends it [TOURN-5]."""


@dataclass
class EventConfig:
    """What the director chose (`p2p-burraco tournament`)."""

    game: str = "burraco"
    variant: str | None = None
    players: int | None = None
    """Seats a table (Burraco 4; Briscola 2 or 4)."""
    format: str = "mitchell"
    rounds: int = 3
    hands: int = 3
    seed: int = 0
    start_when: int | None = None
    """Close registration by itself when this many players have registered."""
    no_show: float = 60.0
    """Seconds after a round opens before an empty seat is given to a host bot [TOURN-14]."""
    auto_next: bool = False
    """Open the next round as soon as the last table of a round ends."""
    directory: Path = Path("tournament")


@dataclass
class Player:
    identity: bytes
    name: str
    line_name: str | None
    conn: HostConnection | None = None


@dataclass
class Entrant:
    """A line (pairs formats) or one player (individual)."""

    name: str
    members: list[int] = field(default_factory=list)
    """Indices into Tournament.players."""


class TournamentRoom(TableRoom):
    """An ordinary table that says which event and round it belongs to (in `info`, which
    `seated` and `match_started` carry to the peers: a `join --bot` stays for the next
    round while rounds remain)."""

    event_info: dict[str, Any] = {}

    def info(self) -> dict[str, Any]:
        return {**super().info(), "event": dict(self.event_info)}


class TournamentLobby(Lobby):
    """The host's lobby during an event: a `join_table` registers or seats the player."""

    tournament: Tournament | None = None

    def on_join_table(self, conn: HostConnection, frame: Frame) -> None:
        if self.node.is_own_bot(conn.peer_identity) or self.tournament is None:
            super().on_join_table(conn, frame)
            return
        self.tournament.join(conn, frame)

    def on_create_table(self, conn: HostConnection, frame: Frame) -> None:
        raise WireError("lobby.bad_config", "a tournament host opens its own tables; join it "
                        "to register", ref=frame.seq)


def canonical(value: Any) -> bytes:
    """The bytes the standings signature covers: sorted keys, no blanks, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign_standings(body: dict[str, Any], key: Any) -> dict[str, Any]:
    return {"body": body, "host_key": ident.public_bytes(key).hex(),
            "signature": key.sign(canonical(body)).hex()}


class Tournament:
    """The event: registration, rounds, results, standings, records."""

    def __init__(self, node: HostNode, cfg: EventConfig) -> None:
        self.node = node
        self.cfg = cfg
        self.players: list[Player] = []
        self.by_identity: dict[bytes, int] = {}
        self.entrants: list[Entrant] = []
        self.rounds: list[Round] = []
        self.results: list[list[Result | None]] = []
        self.rooms: list[list[TournamentRoom]] = []
        self.bots: list[list[list[str]]] = []
        self.state = "registering"          # registering → playing → between → over
        self.done: Deferred[None] = Deferred()
        self.on_change: Callable[[], None] | None = None
        self.started_at = _dt.datetime.now(_dt.UTC).isoformat()
        self._no_show: Any = None
        vpt.check_hands(cfg.game, cfg.hands)
        probe = TableRoom(node, "probe", cfg.game, cfg.variant, cfg.players, None, cfg.hands,
                          self._options())
        self.seats = probe.players
        self.variant = probe.variant
        if len(probe.sides) != 2:
            raise UsageError(f"a tournament table has two sides; {cfg.game} with "
                             f"{self.seats} seats has {len(probe.sides)}")
        self.per_side = len(probe.sides[0])
        if cfg.format == "individual" and (cfg.game != "burraco" or self.seats != 4):
            raise UsageError("the individual format is for Burraco at 4 seats (partners "
                             "change each round) [TOURN-11]")
        self.per_entrant = 1 if cfg.format == "individual" else self.per_side

    def _options(self) -> dict[str, Any]:
        if self.cfg.game == "briscola":
            return {"match_kind": "smazzate", "hands": self.cfg.hands}
        return {}

    # --- registration ------------------------------------------------------------------
    def join(self, conn: HostConnection, frame: Frame) -> None:
        i = self.by_identity.get(conn.peer_identity)
        if i is None:
            if self.state != "registering":
                raise WireError("lobby.no_table", "registration for this tournament is closed",
                                ref=frame.seq)
            line = frame.body["table"]
            if line is not None and (not isinstance(line, str) or not 0 < len(line) <= 32):
                raise WireError("msg.bad_value", "the line name (--table) has 1-32 characters",
                                ref=frame.seq)
            same = [p for p in self.players if p.line_name == line] if line else []
            if len(same) >= self.per_entrant and self.cfg.format != "individual":
                raise WireError("lobby.table_full", f"line {line!r} already has "
                                f"{len(same)} players", ref=frame.seq)
            i = len(self.players)
            self.players.append(Player(conn.peer_identity, conn.peer_name, line))
            self.by_identity[conn.peer_identity] = i
            self.node.say(f"registered {conn.peer_name} (player {i + 1}"
                          + (f", line {line}" if line else "") + ")")
            self.players[i].conn = conn
            self._changed()
            if self.cfg.start_when is not None and len(self.players) >= self.cfg.start_when:
                self.node.reactor.callLater(0, self.start)
            return
        self.players[i].conn = conn
        self._seat_if_open(i)

    def _seat_if_open(self, i: int) -> None:
        """Seat player i at its table of the current round if that table still waits."""
        conn = self.players[i].conn
        if conn is None or conn.room is not None or conn not in self.node.connections:
            return
        if self.state != "playing":
            return
        for room, seats in zip(self.rooms[-1], self._seat_plan(len(self.rooms) - 1),
                               strict=True):
            if i in seats:
                seat = seats.index(i)
                if room.status == "waiting" and not room.slots[seat].taken:
                    room.join(conn, seat, 0)
                return

    def form_entrants(self) -> list[Entrant]:
        """TOURN-13: named lines first (in the order their first player registered), then
        the players who named none, in order, k at a time."""
        k = self.per_entrant
        if k == 1:
            return [Entrant(p.name, [i]) for i, p in enumerate(self.players)]
        named: dict[str, list[int]] = {}
        loose: list[int] = []
        for i, p in enumerate(self.players):
            if p.line_name:
                named.setdefault(p.line_name, []).append(i)
            else:
                loose.append(i)
        out = [Entrant(n, m) for n, m in named.items() if len(m) == k]
        short = [m for m in named.values() if len(m) != k]
        for m in short:
            loose.extend(m)
        loose.sort()
        while len(loose) >= k:
            m, loose = loose[:k], loose[k:]
            out.append(Entrant("+".join(self.players[x].name for x in m), m))
        for x in loose:
            self.node.say(f"{self.players[x].name} has no partner and cannot play [TOURN-13]")
        return out

    def start(self) -> str:
        """Close registration and open the first round; a sentence saying what happened."""
        if self.state != "registering":
            return "the tournament has already started"
        entrants = self.form_entrants()
        need = 4 if self.cfg.format == "individual" else 2
        if len(entrants) < need:
            return (f"{len(entrants)} line(s) registered: at least {need} are needed to start")
        if self.cfg.format == "mitchell":
            mitchell(len(entrants), self.cfg.rounds)       # refuses too many rounds
        self.entrants = entrants
        self.state = "playing"
        self.node.say(f"registration closed: {len(entrants)} "
                      f"{'players' if self.per_entrant == 1 else 'lines'}; seed {self.cfg.seed}")
        self.open_round()
        return f"round 1 of {self.cfg.rounds} opened"

    # --- rounds --------------------------------------------------------------------------
    def standings_order(self) -> list[int]:
        lines = tally(len(self.entrants), self.rounds, self.results, self.cfg.game,
                      self.cfg.hands)
        return [ln.entrant for ln in ranking(lines)]

    def next_pairing(self) -> Round:
        r, n, fmt = len(self.rounds), len(self.entrants), self.cfg.format
        if fmt == "mitchell":
            return mitchell(n, self.cfg.rounds)[r]
        if fmt == "danish":
            if r == 0:
                return danish_first(n, self.cfg.seed)
            return danish_next(self.standings_order(), self.rounds)
        return individual_round(n, self.rounds, self.cfg.seed + r)

    def _seat_plan(self, r: int) -> list[list[int]]:
        """Per table of round r: the player index of each seat (side A on sides[0])."""
        plans = []
        for tb, room in zip(self.rounds[r].tables, self.rooms[r], strict=True):
            seats = [-1] * room.players
            for side, ents in zip(room.sides, (tb.a, tb.b), strict=True):
                members = [m for e in ents for m in self.entrants[e].members]
                for seat, m in zip(side, members, strict=True):
                    seats[seat] = m
            plans.append(seats)
        return plans

    def open_round(self) -> None:
        rnd = self.next_pairing()
        r = len(self.rounds)
        self.rounds.append(rnd)
        self.results.append([None] * len(rnd.tables))
        self.bots.append([[] for _ in rnd.tables])
        rooms = []
        for t, _tb in enumerate(rnd.tables):
            room = TournamentRoom(self.node, f"r{r + 1}t{t + 1}", self.cfg.game,
                                  self.variant, self.seats,
                                  OUT_OF_REACH if self.cfg.game == "burraco" else None,
                                  self.cfg.hands, self._options())
            room.event_info = {"round": r + 1, "rounds": self.cfg.rounds, "table": t + 1,
                               "format": self.cfg.format}
            self.node.lobby.tables[room.id] = room
            rooms.append(room)
        self.rooms.append(rooms)
        self.state = "playing"
        byes = ", ".join(self.entrants[b].name for b in rnd.byes)
        self.node.say(f"round {r + 1} of {self.cfg.rounds}: {len(rooms)} table(s)"
                      + (f"; bye: {byes}" if byes else ""))
        for i in range(len(self.players)):
            self._seat_if_open(i)
        self._no_show = self.node.reactor.callLater(self.cfg.no_show, self.fill_no_shows)
        self._changed()

    def fill_no_shows(self) -> int:
        """TOURN-14: every seat of the round still empty gets a host bot; how many."""
        self._no_show = None
        if self.state != "playing":
            return 0
        n = 0
        r = len(self.rooms) - 1
        for t, (room, seats) in enumerate(zip(self.rooms[r], self._seat_plan(r),
                                              strict=True)):
            for seat, who in enumerate(seats):
                if room.status == "waiting" and not room.slots[seat].taken:
                    name = f"bot-for-{self.players[who].name}"[:32]
                    self.node.say(f"{room.id}: {self.players[who].name} did not show; a host "
                                  f"bot plays seat {seat} [TOURN-14]")
                    self.bots[r][t].append(self.players[who].name)
                    self.node.add_bot(room.id, seat, name)
                    n += 1
        return n

    def match_over(self, room: Any) -> None:
        """on_match_end: a table of the current round finished; score it."""
        if not isinstance(room, TournamentRoom) or not self.rooms:
            return
        r = len(self.rooms) - 1
        if room not in self.rooms[r]:
            return
        t = self.rooms[r].index(room)
        st = room.standings or {}
        res = match_result(self.cfg.game, self.cfg.hands, st, room.reason or "hands")
        self.results[r][t] = res
        self.node.say(f"{room.id}: VP {res.vp[0]}-{res.vp[1]}, MP {res.mp[0]:+d}")
        if all(x is not None for x in self.results[r]):
            self.round_over()
        self._changed()

    def round_over(self) -> None:
        if self._no_show is not None and self._no_show.active():
            self._no_show.cancel()
        self._no_show = None
        r = len(self.rounds)
        self.write_records()
        if r >= self.cfg.rounds:
            self.state = "over"
            self._release_waiting()
            self.node.say("the tournament is over: " + "; ".join(
                f"{i + 1}. {row['name']} {row['vp']} VP" for i, row in
                enumerate(self.standings_rows()[:3])))
            self.node.reactor.callLater(1.5, self._finish)
            return
        self.state = "between"
        if self.cfg.auto_next:
            self.node.reactor.callLater(0.5, self.next_round)
        else:
            self.node.say(f"round {r} over; type `next` to open round {r + 1}")

    def _release_waiting(self) -> None:
        """Players still waiting for a table (a bye in the last round) hear that the event is
        over, so their `join` ends as after a last match."""
        for p in self.players:
            conn = p.conn
            if conn is not None and conn.room is None and conn in self.node.connections:
                conn.send("error", {"code": "lobby.no_table", "message": "the tournament is "
                                    "over", "ref": None, "fatal": False, "rule": None})

    def _finish(self) -> None:
        if not self.done.called:
            self.done.callback(None)

    def next_round(self) -> str:
        if self.state != "between":
            return {"registering": "the tournament has not started (type `start`)",
                    "playing": "the round is still being played",
                    "over": "the tournament is over"}[self.state]
        self.open_round()
        return f"round {len(self.rounds)} of {self.cfg.rounds} opened"

    # --- standings and records ----------------------------------------------------------
    def standings_rows(self) -> list[dict[str, Any]]:
        lines = tally(len(self.entrants), self.rounds, self.results, self.cfg.game,
                      self.cfg.hands)
        return standings_rows(lines, self.entrants_json())

    def entrants_json(self) -> list[dict[str, Any]]:
        return [{"n": i + 1, "name": e.name,
                 "members": [{"name": self.players[m].name,
                              "key": self.players[m].identity.hex()} for m in e.members]}
                for i, e in enumerate(self.entrants)]

    def body(self) -> dict[str, Any]:
        """Everything `tournament verify` needs, signed as one value."""
        rounds = []
        for r, rnd in enumerate(self.rounds):
            tables = []
            for t, tb in enumerate(rnd.tables):
                room = self.rooms[r][t]
                res = self.results[r][t]
                jdir = room.journal.dir if room.journal is not None else None
                tables.append({**tb.to_json(), "table": room.id,
                               "match_id": room.match_id.hex() or None,
                               "dir": str(jdir.relative_to(self.cfg.directory))
                               if jdir is not None else None,
                               "bots_for": list(self.bots[r][t]),
                               "result": res.to_json() if res is not None else None})
            rounds.append({"tables": tables, "byes": list(rnd.byes)})
        return {"kind": "p2p-burraco tournament", "version": 1,
                "event": {"game": self.cfg.game, "variant": self.variant,
                          "players": self.seats, "format": self.cfg.format,
                          "rounds": self.cfg.rounds, "hands": self.cfg.hands,
                          "seed": self.cfg.seed, "started": self.started_at},
                "entrants": self.entrants_json(), "rounds": rounds,
                "complete": self.state == "over" or (
                    len(self.rounds) == self.cfg.rounds
                    and all(x is not None for x in self.results[-1])),
                "standings": self.standings_rows()}

    def write_records(self) -> Path:
        """standings.json, signed with the host key; written whole, then renamed."""
        path = self.cfg.directory / "standings.json"
        signed = sign_standings(self.body(), self.node.identity)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(signed, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                       encoding="utf-8")
        tmp.replace(path)
        return path

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:  # a display problem must not stop the event
                log.exception("on_change failed")

    # --- the director's screen ----------------------------------------------------------
    def status_lines(self) -> list[str]:
        """Every table of the round: hand, scores, clock; then the standings."""
        out = []
        if self.state == "registering":
            out.append(f"iscrizioni aperte / registration open: {len(self.players)} "
                       "giocatori / player(s): "
                       + ", ".join(p.name + (f" [{p.line_name}]" if p.line_name else "")
                                   for p in self.players))
            return out
        r = len(self.rounds)
        state = {"playing": "in gioco / playing", "between": "tra i turni / between rounds",
                 "over": "finito / over"}.get(self.state, self.state)
        out.append(f"turno / round {r} di / of {self.cfg.rounds} ({state}) — "
                   f"{self.cfg.format}, {self.cfg.game} {self.variant}, {self.cfg.hands} "
                   "mani / hands a turno / round")
        now = self.node.now_ms()
        for t, room in enumerate(self.rooms[-1]):
            out.append("  " + table_line(room, self.rounds[-1].tables[t], self.entrants,
                                          self.results[-1][t], now))
        for b in self.rounds[-1].byes:
            out.append(f"  riposo / bye: {self.entrants[b].name}")
        out.append("standings / classifica:")
        for i, row in enumerate(self.standings_rows()):
            out.append(f"  {i + 1:>2}. {row['name']:<28} {row['vp']:>4} VP {row['mp']:>+7d} MP")
        return out


def table_line(room: TableRoom, tb: Any, entrants: list[Entrant], res: Result | None,
               now_ms: int) -> str:
    a = "+".join(entrants[e].name for e in tb.a)
    b = "+".join(entrants[e].name for e in tb.b)
    if res is not None:
        return (f"{room.id}: {a} v {b}: finita / over, VP {res.vp[0]}-{res.vp[1]} "
                f"MP {res.mp[0]:+d}")
    if room.status == "waiting":
        return (f"{room.id}: {a} v {b}: in attesa / waiting ({len(room.free_seats())} "
                "posti liberi / seats free)")
    driver = room.driver
    hand = driver.hand_no + 1 if driver is not None else 0
    totals = driver.standings().get("totals", []) if driver is not None else []
    at = getattr(room, "_deadline_at", None)
    clock = f", orologio / clock {max(0, (at - now_ms) // 1000)} s" if at is not None else ""
    return (f"{room.id}: {a} v {b}: mano / hand {hand} di / of {room.hands}, "
            f"punti / score {'-'.join(str(x) for x in totals)}{clock}")


def standings_rows(lines: list[Any], entrants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ranked rows every record and screen shows (TOURN-12)."""
    return [{"rank": i + 1, "entrant": ln.entrant + 1, "name": entrants[ln.entrant]["name"],
             "vp": ln.vp, "mp": ln.mp, "played": ln.played, "byes": ln.byes}
            for i, ln in enumerate(ranking(lines))]


def start_tournament(reactor: Any, host_cfg: HostConfig, cfg: EventConfig, key: Any,
                     bot_controller: Callable[[], Any] | None,
                     on_match_end: Callable[[Any], None] | None = None) -> Tournament:
    """A HostNode with no default table, its lobby the tournament's; listening."""
    from ..gc_policy import apply_gc_policy

    apply_gc_policy()
    host_cfg.default_table = False
    host_cfg.resume = False
    host_cfg.keep = False
    host_cfg.exit_when_done = False
    node = HostNode(reactor, host_cfg, key, bot_controller)
    node.matches_dir = cfg.directory / "matches"
    lobby = TournamentLobby(node)
    node.lobby = lobby
    event = Tournament(node, cfg)
    lobby.tournament = event

    def ended(room: Any) -> None:
        if on_match_end is not None:
            on_match_end(room)
        event.match_over(room)

    host_cfg.on_match_end = ended
    node.port = reactor.listenTCP(host_cfg.port, node, interface=host_cfg.bind)
    return event


def follow_event(reactor: Any, connect: Callable[[], Any], tries: int = 20) -> Deferred[Any]:
    """A `join` peer through a whole event: after each match, while the table said more
    rounds remain, connect again (same identity) and wait to be seated for the next round.
    Fires with the last match's standings. A reconnection between rounds that the host
    refuses because the old connection is not gone yet (`auth.identity_in_use`) is tried
    again a second later; outside an event nothing changes (one match, as before)."""
    result: Deferred[Any] = Deferred()

    last: list[Any] = [None]

    def attach(node: Any, left: int) -> None:
        node.done.addCallbacks(lambda st: finished(node, st),
                               lambda f: failed(node, f, left))

    def finished(node: Any, standings: Any) -> None:
        last[0] = standings
        ev = node.table_info.get("event") if isinstance(node.table_info, dict) else None
        if isinstance(ev, dict) and int(ev.get("round", 0)) < int(ev.get("rounds", 0)):
            reactor.callLater(0.2, lambda: attach(connect(), tries))
        elif not result.called:
            result.callback(standings)

    def failed(node: Any, failure: Any, left: int) -> None:
        code = getattr(failure.value, "code", "")
        if code == "auth.identity_in_use" and left > 0 and last[0] is not None:
            reactor.callLater(1.0, lambda: attach(connect(), left - 1))
        elif code == "lobby.no_table" and last[0] is not None and not result.called:
            result.callback(last[0])        # a bye in the last round: the event is over
        elif not result.called:
            result.errback(failure)

    attach(connect(), tries)
    return result


def all_of(waits: list[Deferred[Any]]) -> Deferred[Any]:
    """Fires when every one has (the first failure fails it)."""
    from twisted.internet.defer import gatherResults

    return gatherResults(waits, consumeErrors=True)
