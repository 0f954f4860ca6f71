"""A rematch (`rematch` / `rivincita` in the console): the same people, a new match on the
same host, once every person of the finished match has asked for it (TABLE-16).

When a match ends the host keeps an *offer* for its table: the game, rule set, seats, target
and options, who sat where (identity keys) and which seats were the host's own bots. A peer
of that match reconnects and sends `rematch {table}`; the first one opens the new table
(same configuration, every seat reserved for the identity that held it, the host's bots
seated again at once) and each one is seated at its old seat as it asks. The new match
starts, as any match does, when every seat is taken — that is, when every person agreed.
Nobody else may take a reserved seat; an offer not taken up within `OFFER_S` lapses.

The offers outlive a restart of the host (`<data-dir>/ended.msgpack`, net/ended.py): an
offer is on disk before the `match_end` that makes it visible leaves, and a rematch request
is answered (`seated`) only once the offer, with the table it opened, is on disk — a full
disk refuses it with the retryable `host.disk_full`, nothing changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..storage.journal import DiskFull
from ..wire import WireError

if TYPE_CHECKING:
    from .host import HostConnection, HostNode
    from .room import TableRoom

OFFER_S = 600.0
"""Seconds a finished match's rematch stays open (TABLE-16)."""
MAX_OFFERS = 200
"""Offers kept at most (the oldest lapse first): a host's memory stays bounded."""


@dataclass
class Offer:
    """What a rematch of one finished table needs."""

    table: str
    game: str
    variant: str
    players: int
    target: int | None
    hands: int | None
    options: dict[str, Any]
    identities: list[bytes | None]
    bots: dict[int, str | None]
    """Seats held by the host's own bots: seated again at once (name kept)."""
    expires: float = 0.0
    """When it lapses, on the host's clock (reactor seconds: the wall clock when it runs)."""
    new_table: str | None = None

    def to_disk(self) -> dict[str, Any]:
        """The offer as `storage.ended` keeps it (msgpack values)."""
        return {"table": self.table, "game": self.game, "variant": self.variant,
                "players": self.players, "target": self.target, "hands": self.hands,
                "options": dict(self.options), "identities": list(self.identities),
                "bots": {int(k): v for k, v in self.bots.items()}, "expires": self.expires,
                "new_table": self.new_table}

    @classmethod
    def from_disk(cls, d: dict[str, Any]) -> Offer:
        return cls(str(d["table"]), str(d["game"]), str(d["variant"]), int(d["players"]),
                   d.get("target"), d.get("hands"), dict(d.get("options") or {}),
                   [bytes(i) if i is not None else None for i in d["identities"]],
                   {int(k): v for k, v in (d.get("bots") or {}).items()},
                   float(d["expires"]), d.get("new_table"))

    def seat_of(self, identity: bytes | None) -> int | None:
        for seat, ident in enumerate(self.identities):
            if ident is not None and ident == identity and seat not in self.bots:
                return seat
        return None


class Rematches:
    """The host's open rematch offers, by the finished table's id."""

    def __init__(self, node: HostNode) -> None:
        self.node = node
        self.offers: dict[str, Offer] = {}

    def offer(self, room: TableRoom) -> None:
        """A match ended at `room`: its people may ask for a rematch for a while."""
        if room.status != "over" or not any(not s.bot for s in room.slots):
            return                                # bots only: nobody to ask
        options = {k: v for k, v in room.options.items() if k != "target"}
        self.offers[room.id] = Offer(
            room.id, room.game, room.variant, room.players, room.target, room.hands, options,
            [s.identity for s in room.slots],
            {i: s.bot_name for i, s in enumerate(room.slots) if s.bot},
            self.node.reactor.seconds() + OFFER_S)
        while len(self.offers) > MAX_OFFERS:
            del self.offers[next(iter(self.offers))]
        self.node.reactor.callLater(OFFER_S, self._lapse, room.id)
        self.node.durable(self.node.ended_record)   # on disk before the match_end leaves

    def _lapse(self, table: str) -> None:
        offer = self.offers.get(table)
        if offer is not None and offer.expires <= self.node.reactor.seconds():
            del self.offers[table]

    def restore(self, offers: list[dict[str, Any]]) -> None:
        """At start: the offers a previous run left that have not lapsed."""
        now = self.node.reactor.seconds()
        for d in offers:
            offer = Offer.from_disk(d)
            if offer.expires <= now or offer.table in self.offers:
                continue
            self.offers[offer.table] = offer
            self.node.reactor.callLater(offer.expires - now, self._lapse, offer.table)

    def ask(self, conn: HostConnection, table: str, ref: int) -> None:
        """`rematch {table}` from a peer of that finished match: seat it at its old seat of
        the rematch table (opened by the first to ask)."""
        if conn.room is not None:
            raise WireError("lobby.already_seated",
                            f"you already sit at {conn.room.id} seat {conn.seat}", ref=ref)
        offer = self.offers.get(table)
        if offer is None:
            raise WireError("lobby.no_table", f"no finished match at {table!r} to play "
                            "again (it ended too long ago, or never)", ref=ref)
        seat = offer.seat_of(conn.peer_identity)
        if seat is None:
            raise WireError("lobby.not_seated", f"you did not play at {table!r}", ref=ref)
        lobby = self.node.lobby
        room = lobby.tables.get(offer.new_table) if offer.new_table else None
        created = room is None or room.status != "waiting"
        if created:
            try:
                room = lobby.create(offer.game, offer.variant, offer.players, offer.target,
                                    offer.hands, offer.options)
            except ValueError as exc:
                raise WireError("lobby.bad_config", str(exc), ref=ref) from None
            room.reserved = {i: ident for i, ident in enumerate(offer.identities)
                             if ident is not None and i not in offer.bots}
        assert room is not None
        previous, offer.new_table = offer.new_table, room.id
        try:                                      # durable, then the answer
            self.node.ended_record.write_now()
        except DiskFull:
            offer.new_table = previous            # nothing changed: nobody saw that table
            if created:
                lobby.tables.pop(room.id, None)
            raise
        if created:
            self.node.say(f"{room.id}: a rematch of {table}")
            for bot_seat, name in offer.bots.items():
                self.node.add_bot(room.id, bot_seat, name)
        room.join(conn, seat, ref)
        if not room.free_seats():
            self.offers.pop(table, None)          # everyone agreed: the match is on
            self.node.durable(self.node.ended_record)
