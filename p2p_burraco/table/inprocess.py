"""`run_fair_selfplay`: whole hands dealt through the full fair-deal protocol in one process.

One `HostTable` (no secrets), one `SeatClient` per seat driven by a bot, and an in-memory
pump that carries every message exactly as the network would (the host's outgoing list to
the seats, each seat's answers back to the host, first in first out). Every seed and
identity key comes from the selfplay seed, so the same configuration gives byte-identical
transcripts; real play draws seeds from os.urandom instead.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections import deque
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..bots import Strategy
from ..fairdeal import signing
from ..games.base import Action, HandResult, HandState, Match, Seat
from ..selfplay import SelfplayConfig, make_match, make_strategies
from ..bots.controller import BotController
from .host import HandRecord, HostTable, Outgoing, transcript_name
from .seat import SeatClient

MAX_MESSAGES_PER_HAND = 200_000


def _derive(seed: int, label: str) -> bytes:
    return hashlib.sha256(b"p2p-burraco/selfplay/v1\x00" + str(seed).encode() + b"\x00"
                          + label.encode()).digest()


class InProcessTable:
    """A HostTable and its SeatClients wired by an in-memory pump (tests reach in here)."""

    def __init__(self, cfg: SelfplayConfig, audit_at_seats: bool = True) -> None:
        rng = random.Random(cfg.seed)
        first_dealer = random.Random(cfg.seed).randrange(cfg.players)
        make_match(cfg, rng)                      # validates the configuration (same draw)
        strategies = make_strategies(cfg, rng)
        self.cfg = cfg
        self.identities = [Ed25519PrivateKey.from_private_bytes(_derive(cfg.seed, f"id{s}"))
                           for s in range(cfg.players)]
        options: dict[str, Any] = dict(cfg.options)
        if cfg.target is not None:
            options["target"] = cfg.target
        self.records: list[HandRecord] = []
        self.host = HostTable(cfg.game, cfg.variant, cfg.players,
                              [signing.public_key_bytes(k) for k in self.identities],
                              first_dealer=first_dealer, options=options,
                              match_id=_derive(cfg.seed, "match")[:16], auto_next=False,
                              on_transcript=self.records.append)
        self.controllers = [BotController(s) for s in strategies]
        self.seats = [SeatClient(s, self.identities[s], self.controllers[s],
                                 seed_source=self._seed_for, audit=audit_at_seats)
                      for s in range(cfg.players)]
        self.to_seats: deque[Outgoing] = deque()
        self.to_host: deque[tuple[int, dict[str, Any]]] = deque()
        self.disconnected: set[int] = set()
        self.delivered = 0

    def _seed_for(self, hand_id: bytes, seat: int) -> bytes:
        return _derive(self.cfg.seed, "seed:" + hand_id.hex() + f":{seat}")

    def post(self, out: list[Outgoing]) -> None:
        self.to_seats.extend(out)

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
                if seat in self.disconnected:
                    continue
                self.to_seats.extend(self.host.receive(seat, msg))
                continue
            to, msg = self.to_seats.popleft()
            targets = range(len(self.seats)) if to is None else (to,)
            for s in targets:
                if s in self.disconnected:
                    continue
                for reply in self.seats[s].receive(msg):
                    self.to_host.append((s, reply))
        self.delivered += n

    def play_hand(self) -> HandRecord:
        """Deal and play one hand to its sign-offs."""
        before = len(self.records)
        self.post(self.host.start_hand())
        self.pump()
        if len(self.records) != before + 1:
            raise RuntimeError(f"the hand stalled in stage {self.host.stage}")
        return self.records[-1]


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
        if table.host.match_over:
            break
        record = table.play_hand()
        if record.result.reason == "void" or not record.verdict.fair:
            raise RuntimeError(f"hand {hand_no + 1} was not fair: {record.verdict}")
        if record_dir is not None:
            record.transcript.save(os.path.join(record_dir, transcript_name(record.hand_no)))
        results.append(record.result)
        if report is not None:
            assert table.host.hand is not None
            report(hand_no, table.host.hand, record.result)
    return table.host.match, results
