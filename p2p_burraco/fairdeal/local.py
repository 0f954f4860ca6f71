"""A whole fair deal in one process, without a game: a secret-free gate and one
`SeatDealer` per seat, positions entitled by a plain function.

Used by the fair-deal tests (every seat count and deck size), by `bench deal` when no game
fits the requested seats and cards, and as the smallest runnable example of the protocol.
The table layer (p2p_burraco.table) does the same with a rules engine deciding entitlement.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import signing
from .audit import Verdict, audit_log
from .deal import CHAIN_CODES, SEAT_TYPES, Audience, DealError, PublicDeal
from .seat import SeatDealer
from .transcript import Transcript

PROTOCOL_ID = "p2p-burraco/fairdeal/v3"
NO_RESULT = b"\x00" * 32
"""`prev_result` of a match's first hand: no hand result precedes it."""


def make_hand_start(host: Ed25519PrivateKey, *, n_seats: int, deck_id: str, n_cards: int,
                    seat_keys: Sequence[bytes], match_id: bytes = b"\x00" * 16,
                    hand_no: int = 0, game: str = "", variant: str = "", dealer: int = 0,
                    first_dealer: int = 0, options: Mapping[str, Any] | None = None,
                    names: Sequence[str] | None = None, state: Mapping[str, Any] | None = None,
                    prev_result: bytes = NO_RESULT, clock: Mapping[str, Any] | None = None,
                    ) -> dict[str, Any]:
    """The host's signed `hand_start` (entry 0 of a hand's log). Its hand id is derived from
    the match, the hand number and every key at the table, so a seed committed for it can
    belong to no other hand, match or table."""
    host_key = signing.public_key_bytes(host)
    hand_id = hand_id_for(match_id, hand_no, host_key, seat_keys)
    return signing.host_statement(
        host, "hand_start", hand_id, 0, signing.chain_start(), match_id=match_id,
        hand_no=hand_no, game=game, variant=variant, n_seats=n_seats,
        names=list(names) if names is not None else [f"seat {s}" for s in range(n_seats)],
        first_dealer=first_dealer, dealer=dealer, deck=deck_id, n_cards=n_cards,
        seat_keys=list(seat_keys), host_key=host_key, options=dict(options or {}),
        state=dict(state or {}), prev_result=prev_result, clock=dict(clock or {}),
        protocol=PROTOCOL_ID)


def hand_id_for(match_id: bytes, hand_no: int, host_key: bytes,
                seat_keys: Sequence[bytes]) -> bytes:
    """hand_id = SHA-256(domain || match_id(16) || u32 hand_no || host key || seat keys)[:16]:
    bound to the match, the hand's place in it and the keys of everyone at the table."""
    return hashlib.sha256(b"p2p-burraco/hand-id/v2\x00" + match_id + hand_no.to_bytes(4, "big")
                          + host_key + b"".join(seat_keys)).digest()[:16]


def deterministic_seed(base: bytes, label: str) -> bytes:
    """Seeds for tests and selfplay: SHA-256(domain || base || label). Never for real play."""
    return hashlib.sha256(b"p2p-burraco/test-seed/v1\x00" + base + label.encode()).digest()


def deterministic_identity(base: bytes, label: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(deterministic_seed(base, "id:" + label))


class LocalTable:
    """Host gate + seats, passing messages by hand. The gate holds no secret."""

    def __init__(self, hand_start: Mapping[str, Any], seeds: Sequence[bytes],
                 identities: Sequence[Ed25519PrivateKey], audience: Audience,
                 host: Ed25519PrivateKey) -> None:
        self.hand_start = dict(hand_start)
        self.host = host
        self.gate = PublicDeal(self.hand_start, verify_signatures=True)
        self.seats = [SeatDealer(s, identities[s], seeds[s], self.hand_start)
                      for s in range(len(seeds))]
        self.audience = audience
        self.relayed = 1        # log entries the seats have (the hand_start they start from)

    @classmethod
    def new(cls, n_seats: int, deck_id: str, n_cards: int, audience: Audience,
            base: bytes = b"local") -> LocalTable:
        ids = [deterministic_identity(base, str(s)) for s in range(n_seats)]
        host = deterministic_identity(base, "host")
        hs = make_hand_start(host, match_id=hashlib.sha256(base).digest()[:16],
                             n_seats=n_seats, deck_id=deck_id, n_cards=n_cards,
                             seat_keys=[signing.public_key_bytes(k) for k in ids])
        seeds = [deterministic_seed(base, f"seat{s}") for s in range(n_seats)]
        return cls(hs, seeds, ids, audience, host)

    # ------------------------------------------------------------------ the gate
    def post(self, msg: Mapping[str, Any], sender: int, relay: bool = True) -> int:
        """The host's handling of one seat message: check, record, relay (DealError if
        refused; a refusal that proves a deviation is kept as an incident)."""
        try:
            self.gate.check(msg, sender, self.audience)
        except DealError as exc:
            mtype = msg.get("type")
            if exc.code not in CHAIN_CODES and mtype in SEAT_TYPES and mtype != "sign_off":
                self.refuse(msg, exc)           # validly placed in its chain: logged
            if exc.voiding:
                self.void(exc.code.split(".")[-1], exc.seat, exc.message)
            raise
        index = self.gate.apply(msg)
        if relay:
            self.relay_pending()
        return index

    def relay(self, msg: Mapping[str, Any]) -> None:
        for seat in self.seats:
            seat.receive(msg, self.audience)

    def relay_pending(self) -> None:
        """Relay the log entries the seats have not had yet, in log order — none while the
        commitments are held (as the host does: no seat commits knowing another's)."""
        if self.gate.phase == "commit":
            return
        log = self.gate.log
        while self.relayed < len(log):
            self.relayed += 1
            self.relay(log[self.relayed - 1])

    def refuse(self, msg: Mapping[str, Any], exc: DealError) -> None:
        """The host's signed refusal of a statement validly placed in its seat's chain: a
        log entry carrying the statement, so anyone can judge the refusal later."""
        entry = self.gate.host_statement(self.host, "refusal", seat=int(msg["seat"]),
                                         code=exc.code, message=exc.message, rule=None,
                                         msg=dict(msg), logged=True)
        self.gate.append_host_entry(entry)
        self.relay_pending()

    def void(self, reason: str, seat: int | None = None, detail: str = "") -> None:
        """Stop the hand (a signed `hand_void` entry, relayed); seeds are revealed next."""
        entry = self.gate.host_statement(self.host, "hand_void", reason=reason, seat=seat,
                                         detail=detail)
        self.gate.append_host_entry(entry)
        self.relay_pending()

    # ------------------------------------------------------------------ the protocol
    def commit_all(self) -> None:
        msgs = [s.make_commit() for s in self.seats]
        for s, m in enumerate(msgs):       # the host holds every commitment first…
            self.post(m, s, relay=False)
        self.relay_pending()               # …then relays the set

    def passes(self) -> None:
        while self.gate.phase in ("shuffle", "lock"):
            seat = self.gate.next_pass_seat
            assert seat is not None
            self.post(self.seats[seat].make_pass(), seat)

    def release_all(self) -> None:
        for s in self.seats:
            public, sealed = s.releases_due(self.audience)
            if public:
                self.post(s.make_release(public), s.seat)
            for to, positions in sealed.items():
                self.post(s.make_sealed(to, positions), s.seat)

    def decode_all(self) -> list[tuple[dict[int, int], list[int]]]:
        """Every seat decodes what it is entitled to; the gate decodes public positions."""
        out = []
        for s in self.seats:
            mine = [p for p in range(self.gate.n_cards) if s.seat in self.audience(p)]
            out.append(s.decode(mine))
        public = [p for p in range(self.gate.n_cards)
                  if self.audience(p) == self.gate.all_seats and p not in self.gate.public_cards]
        for pos, card in self.gate.decode_public(public).items():
            if card is not None:
                self.gate.learn_public(pos, card)
        return out

    def deal(self) -> list[tuple[dict[int, int], list[int]]]:
        self.commit_all()
        self.passes()
        self.release_all()
        return self.decode_all()

    def reveal_all(self, skip: Sequence[int] = ()) -> None:
        if self.gate.phase != "reveal":
            self.gate.begin_reveal()
        for s in self.seats:
            s.deal.begin_reveal()
        for s in self.seats:
            if s.seat not in skip:
                self.post(s.make_reveal(), s.seat)

    def finish(self) -> tuple[Transcript, Verdict]:
        """Audit at the gate, close the hand, collect every seat's sign-off."""
        verdict = audit_log(self.gate.log)
        head = self.gate.head
        hs = self.hand_start
        # no game here: the result hash (PROTOCOL.md § 8.2) of an empty result whose
        # outcome is the fair-deal verdict
        result_hash = hashlib.sha256(b"p2p-burraco/result/v1\x00" + signing.canonical({
            "match_id": hs["match_id"], "hand_no": hs["hand_no"], "hand_id": hs["hand_id"],
            "prev_result": hs["prev_result"], "transcript_hash": head, "result": {},
            "outcome": verdict.to_wire(), "state": {}})).digest()
        end = signing.sign(self.host, {
            "type": "hand_end", "hand_id": self.gate.hand_id, "result": {},
            "verdict": verdict.to_wire(), "transcript_hash": head,
            "result_hash": result_hash, "standings": {}, "match_over": False})
        sign_offs = [s.make_sign_off(head, result_hash) for s in self.seats]
        t = Transcript([dict(e) for e in self.gate.log], end, sign_offs)
        return t, verdict


def hands_schedule(n_seats: int, n_cards: int, per_seat: int,
                   public: int = 1) -> Callable[[int], frozenset[int]]:
    """A plain opening deal: positions [s*per_seat, (s+1)*per_seat) to seat s, then `public`
    positions face up, the rest hidden to all (stock)."""
    everyone = frozenset(range(n_seats))

    def audience(pos: int) -> frozenset[int]:
        if pos < n_seats * per_seat:
            return frozenset({pos // per_seat})
        if pos < n_seats * per_seat + public:
            return everyone
        return frozenset()
    return audience
