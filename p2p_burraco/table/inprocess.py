"""`run_fair_selfplay`: whole hands dealt through the full fair-deal protocol in one process.

One `HostTable` (no secrets), one `SeatClient` per seat driven by a bot, and an in-memory
pump that carries every message exactly as the network would (the host's outgoing list to
the seats, each seat's answers back to the host, first in first out). Every seed and
identity key comes from the selfplay seed, so the same configuration gives byte-identical
transcripts; real play draws seeds from os.urandom instead.

The host is driven by events with a virtual clock (`now`, in ms): `advance(ms)` moves it and
fires whatever deadline falls due, which is how the tests run clocks and timeouts without
waiting. Every event the host journals is kept in `journal`, so a test can rebuild the host
from any prefix of it (a host killed at that point) and carry on.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..bots.controller import BotController
from ..fairdeal import signing
from ..games.base import HandResult, HandState, Match
from ..selfplay import SelfplayConfig, make_match, make_strategies
from .host import HandRecord, HostTable, MatchConfig, Outgoing, Step, transcript_name
from .rules import TableRules
from .seat import SeatClient
from .store import MemorySeatStore

MAX_MESSAGES_PER_HAND = 200_000

__all__ = ["BotController", "InProcessTable", "run_fair_selfplay"]


def _derive(seed: int, label: str) -> bytes:
    return hashlib.sha256(b"p2p-burraco/selfplay/v1\x00" + str(seed).encode() + b"\x00"
                          + label.encode()).digest()


class InProcessTable:
    """A HostTable and its SeatClients wired by an in-memory pump (tests reach in here)."""

    def __init__(self, cfg: SelfplayConfig, audit_at_seats: bool = True,
                 rules: TableRules | None = None) -> None:
        rng = random.Random(cfg.seed)
        first_dealer = random.Random(cfg.seed).randrange(cfg.players)
        make_match(cfg, rng)                      # validates the configuration (same draw)
        strategies = make_strategies(cfg, rng)
        self.cfg = cfg
        self.identities = [Ed25519PrivateKey.from_private_bytes(_derive(cfg.seed, f"id{s}"))
                           for s in range(cfg.players)]
        self.host_key = Ed25519PrivateKey.from_private_bytes(_derive(cfg.seed, "host"))
        options: dict[str, Any] = dict(cfg.options)
        if cfg.target is not None:
            options["target"] = cfg.target
        self.records: list[HandRecord] = []
        variant = cfg.variant or _default_variant(cfg.game)
        self.config = MatchConfig(
            cfg.game, variant, cfg.players, first_dealer, _derive(cfg.seed, "match")[:16],
            [signing.public_key_bytes(k) for k in self.identities],
            [f"bot {s}" for s in range(cfg.players)], options,
            rules or TableRules(turn_ms=None, step_ms=30_000, grace_ms=60_000))
        self.host = HostTable(self.config, self.host_key)
        self.controllers = [BotController(s) for s in strategies]
        fallbacks = make_strategies(cfg, random.Random(cfg.seed + 1))
        self.stores = [MemorySeatStore() for _ in range(cfg.players)]
        self.seats = [SeatClient(s, self.identities[s], self.controllers[s],
                                 seed_source=self._seed_for, audit=audit_at_seats,
                                 store=self.stores[s],
                                 host_key=signing.public_key_bytes(self.host_key),
                                 fallback=fallbacks[s].choose)
                      for s in range(cfg.players)]
        self.to_seats: deque[Outgoing] = deque()
        self.to_host: deque[tuple[int, dict[str, Any]]] = deque()
        self.disconnected: set[int] = set()
        self.journal: list[dict[str, Any]] = []
        self.lines: list[str] = []
        self.now = 0
        self.delivered = 0
        for s in range(cfg.players):
            self.host.set_connected(s, True, 0)

    def _seed_for(self, hand_id: bytes, seat: int) -> bytes:
        return _derive(self.cfg.seed, "seed:" + hand_id.hex() + f":{seat}")

    def step(self, event: dict[str, Any]) -> Step:
        """Give the host one event (at the virtual time) and queue what it sends."""
        event = {**event, "t": self.now}
        step = self.host.apply(event)
        if step.journal is not None:
            self.journal.append(step.journal)
        if step.record is not None:
            self.records.append(step.record)
        self.lines.extend(step.lines)
        self.to_seats.extend(step.out)
        return step

    def post(self, out: list[Outgoing]) -> None:
        self.to_seats.extend(out)

    def advance(self, ms: int) -> None:
        """Move the virtual clock and fire every deadline that falls due on the way."""
        target = self.now + ms
        while True:
            due = self.host.next_deadline()
            if due is None or due[0] > target:
                break
            self.now = max(self.now, due[0])
            self.step({"e": "expire"})
            self.pump()
        self.now = target

    def pump(self, limit: int = MAX_MESSAGES_PER_HAND,
             until: Callable[[], bool] | None = None) -> None:
        """Deliver until both queues are empty, or `until()` holds (checked before each
        delivery); RuntimeError past `limit` messages. Seats in `disconnected` neither
        receive nor send (as if their connection were down)."""
        n = 0
        while self.to_seats or self.to_host:
            if until is not None and until():
                return
            n += 1
            if n > limit:
                raise RuntimeError(f"the table did not settle within {limit} messages")
            if self.to_host:
                seat, msg = self.to_host.popleft()
                if self.lost_on_the_way(seat, msg):
                    continue
                self.step({"e": "msg", "seat": seat, "msg": msg})
                continue
            to, msg = self.to_seats.popleft()
            targets = range(len(self.seats)) if to is None else (to,)
            for s in targets:
                if s in self.disconnected:
                    continue
                self.deliver(s, msg)
        self.delivered += n

    def lost_on_the_way(self, seat: int, msg: Mapping[str, Any]) -> bool:
        """A seat's message the host never gets (the seat's connection is down)."""
        return seat in self.disconnected

    def deliver(self, s: int, msg: Mapping[str, Any]) -> None:
        """One message from the host reaches seat `s`; its replies head for the host."""
        for reply in self.seats[s].receive(msg):
            self.to_host.append((s, reply))

    def play_hand(self) -> HandRecord:
        """Deal and play one hand to its close."""
        before = len(self.records)
        self.step({"e": "deal"})
        self.pump()
        if len(self.records) != before + 1:
            raise RuntimeError(f"the hand stalled in stage {self.host.stage}")
        return self.records[-1]


def _default_variant(game: str) -> str:
    from ..games import get_game

    return str(get_game(game).default_variant)


def run_fair_selfplay(cfg: SelfplayConfig, record_dir: str | None = None,
                      report: Callable[[int, HandState, HandResult], None] | None = None,
                      ) -> tuple[Match, list[HandResult]]:
    """Play `cfg.hands` hands (fewer if the match ends), each dealt by the full protocol;
    write one transcript per hand into `record_dir` when given."""
    table = InProcessTable(cfg)
    if record_dir is not None:
        os.makedirs(record_dir, exist_ok=True)
    results: list[HandResult] = []
    for hand_no in range(cfg.hands):
        if table.host.match_over or not table.host.can_deal():
            break
        record = table.play_hand()
        if record.outcome.kind != "scored":
            raise RuntimeError(f"hand {hand_no + 1} was not fair: {record.outcome.describe()}")
        if record_dir is not None:
            record.transcript.save(os.path.join(record_dir, transcript_name(record.hand_no)))
        results.append(record.result)
        if report is not None:
            assert table.host.replica is not None
            report(hand_no, table.host.replica.hand, record.result)
    return table.host.state.match, results
