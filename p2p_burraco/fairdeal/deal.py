"""The public side of one hand's fair deal: what every node — the host included — knows.

`PublicDeal` holds no secret: the commitments, every pass, the locked deck, the keys that
were released in the open, which envelopes went where, the cards shown face up, and the
seeds once revealed. It checks each incoming seat-authored statement against that state
(`check`, which never mutates) and records it (`apply`). The host uses it as the gate of
the table; every peer keeps one as its replica; both give it the engine's idea of who may
know a position as a callback (`audience(pos) -> seats`) — fairdeal knows no game.

The log holds two kinds of signed statements. A seat's carry its own chain (`seq` counts
every statement the seat signed in the hand, `prev_hash` names the previous one), so a seat
can never say two different things at one place of its chain without the two signatures
proving it. The host's (`HOST_TYPES`: the hand's start, refusals, timeouts, a void) carry
`at`/`head`: the log index they take and the log hash before them. A refused seat statement
that was validly signed at its place in the seat's chain goes into the log inside the
host's `refusal`, so the chain stays whole and the refusal can be judged by anyone later:
a false refusal is the host's signed lie.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from ..stages import DealPhase, advance
from . import signing
from .derive import HAND_ID_BYTES, SEED_BYTES, commitment
from .group import BadPoint, card_points, card_table, is_canonical_scalar
from .passes import claim_holds, deck_hash, deck_shape_error, decode_many, initial_deck

Audience = Callable[[int], frozenset[int]]

PHASES = ("commit", "shuffle", "lock", "deal", "reveal", "closed")
SEAT_TYPES = ("commit", "shuffle", "lock", "release", "sealed", "action", "alarm", "abandon",
              "reveal", "sign_off")
HOST_TYPES = ("hand_start", "refusal", "timeout", "hand_void")
"""Host-signed log entries (hand_end is signed too but closes the hand outside the log)."""
CHAIN_CODES = frozenset({"table.wrong_hand", "table.wrong_seat", "table.replayed_seq",
                         "table.seq_gap", "table.bad_chain", "table.bad_signature"})
"""Refusals of a statement that is not validly placed in its seat's chain: they cannot go
into the log (the statement is nobody's proven word) and change nothing."""
_X25519_PROBE = X25519PrivateKey.from_private_bytes(bytes(range(1, 33)))


def x25519_key_error(key: object) -> str | None:
    """Why `key` is not a usable X25519 public key (a low-order point makes every shared
    secret zero), or None. Checked on receipt, so a partner's sealing never fails later."""
    if not isinstance(key, bytes) or len(key) != 32:
        return "an X25519 key is 32 bytes"
    try:
        _X25519_PROBE.exchange(X25519PublicKey.from_public_bytes(key))
    except ValueError:
        return "a low-order X25519 key (every shared secret with it is zero)"
    return None
BOX_OVERHEAD = 16  # the Poly1305 tag


class DealError(ValueError):
    """A message refused. `code` is a stable table.* code; `voiding` marks a validly signed
    message that proves its author deviated (the hand must stop and be audited)."""

    def __init__(self, code: str, message: str, *, seat: int | None = None,
                 voiding: bool = False) -> None:
        self.code = code
        self.message = message
        self.seat = seat
        self.voiding = voiding
        super().__init__(f"{code}: {message}")


@dataclass
class SeatChain:
    """Where a seat's signed chain stands: the seq and prev_hash its next message must carry."""

    next_seq: int
    last_hash: bytes



@dataclass(frozen=True)
class HandStartProblem:
    """Why a `hand_start` cannot open a hand. `signed`: the host key it names did sign it,
    so a wrong field is the host's signed word (its fault), not an alteration of the
    record."""

    why: str
    signed: bool


def hand_start_problem(hs: Mapping[str, Any], *, verify_signature: bool = True
                       ) -> HandStartProblem | None:
    """The one check of a `hand_start`'s structure, place and signature (PROTOCOL § 8.6):
    what the live replica, the seat and the auditor all apply. Its links to the hand before
    are `table.chain`'s."""
    host_key = hs.get("host_key") if isinstance(hs, Mapping) else None
    signed = False
    if verify_signature and isinstance(host_key, bytes) and len(host_key) == 32:
        try:
            signed = signing.verify(host_key, hs)
        except (TypeError, ValueError, OverflowError, RecursionError):
            signed = False

    def problem(why: str) -> HandStartProblem:
        return HandStartProblem(why, signed)

    try:
        if hs.get("type") != "hand_start":
            return problem("entry 0 is not a hand_start")
        if not isinstance(hs["hand_id"], bytes) or len(hs["hand_id"]) != HAND_ID_BYTES:
            return problem("a hand_start whose hand_id is not 16 bytes")
        n, cards = hs["n_seats"], hs["n_cards"]
        if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 16:
            return problem(f"a hand_start with {n!r} seats")
        if not isinstance(cards, int) or isinstance(cards, bool) or not 2 <= cards <= 4096:
            return problem(f"a hand_start with {cards!r} cards")
        if not isinstance(hs["deck"], str) or not hs["deck"].isascii():
            return problem("a hand_start naming no deck")
        keys = hs["seat_keys"]
        if not isinstance(keys, list) or len(keys) != n:
            return problem("a hand_start without one identity key per seat")
        for k in keys:
            Ed25519PublicKey.from_public_bytes(k)
        if not isinstance(host_key, bytes):
            return problem("a hand_start naming no host key")
        Ed25519PublicKey.from_public_bytes(host_key)
        names = hs["names"]
        if not isinstance(names, list) or len(names) != n \
                or not all(isinstance(x, str) for x in names):
            return problem("hand_start: one name per seat expected")
        if not isinstance(hs["match_id"], bytes) or len(hs["match_id"]) != 16:
            return problem("a hand_start whose match_id is not 16 bytes")
        no = hs["hand_no"]
        if not isinstance(no, int) or isinstance(no, bool) or no < 0:
            return problem(f"a hand_start numbered {no!r}")
        if not isinstance(hs["prev_result"], bytes) or len(hs["prev_result"]) != 32:
            return problem("a hand_start whose prev_result is not 32 bytes")
    except (KeyError, TypeError, ValueError) as exc:
        return problem(f"malformed hand_start ({exc})")
    if hs.get("at") != 0:
        return problem(f"the hand_start takes place {hs.get('at')!r} of the log, not 0")
    if hs.get("head") != signing.chain_start():
        return problem("the hand_start's head is not the empty log's hash (a wrong field "
                       "in a statement the host signed)" if signed or not verify_signature
                       else "the hand_start's head is not the empty log's hash")
    if verify_signature and not signed:
        return problem("the hand_start is not signed by the host key it names")
    return None


@dataclass
class PublicDeal:
    """One hand's public fair-deal state, built from its `hand_start` entry."""

    hand_start: Mapping[str, Any]
    verify_signatures: bool = True
    hand_id: bytes = field(init=False)
    n_seats: int = field(init=False)
    n_cards: int = field(init=False)
    deck_id: str = field(init=False)

    def __post_init__(self) -> None:
        hs = self.hand_start
        problem = hand_start_problem(hs, verify_signature=self.verify_signatures)
        if problem is not None:
            raise ValueError(problem.why)
        self.hand_id = hs["hand_id"]
        self.n_seats = int(hs["n_seats"])
        self.n_cards = int(hs["n_cards"])
        self.deck_id = str(hs["deck"])
        self.seat_keys: list[bytes] = [bytes(k) for k in hs["seat_keys"]]
        self.host_key: bytes = bytes(hs["host_key"])
        self.points: tuple[bytes, ...] = card_points(self.deck_id, self.n_cards)
        self.table: dict[bytes, int] = card_table(self.deck_id, self.n_cards)
        self.all_seats: frozenset[int] = frozenset(range(self.n_seats))
        start = signing.entry_hash(hs)
        self.log: list[Mapping[str, Any]] = [hs]
        self.hashes: list[bytes] = [start]          # entry hash of each log entry
        self.head: bytes = signing.chain_step(signing.chain_start(), start)
        self.chains: list[SeatChain] = [SeatChain(0, start) for _ in range(self.n_seats)]
        self.phase = DealPhase.COMMIT
        self.commitments: dict[int, bytes] = {}
        self.x25519: dict[int, bytes] = {}
        self.decks: list[list[bytes]] = [initial_deck(self.deck_id, self.n_cards)]
        self.pass_entries: list[int] = []           # log index of each pass, in order
        self.published: list[dict[int, bytes]] = [{} for _ in range(self.n_cards)]
        self.keys_version = 0
        """Raised whenever `published` gains a key: a cache of what is still owed keys on it."""
        self.sealed: dict[tuple[int, int, int], int] = {}   # (pos, sender, to) → log index
        self.public_cards: dict[int, int] = {}      # positions shown face up → card
        self.seeds: dict[int, bytes] = {}
        self.bad_reveals: dict[int, int] = {}       # seat → log index of a non-matching seed
        self.alarms: list[int] = []
        self.refusals: dict[int, list[int]] = {}    # seat → log indices of its refusals
        self.timeouts: list[int] = []               # log indices of timeout statements
        self.abandoned: dict[int, int] = {}         # seat → log index of its abandon
        self.voided: int | None = None              # log index of the hand_void

    # ------------------------------------------------------------------ views
    @property
    def locked(self) -> list[bytes] | None:
        """The final locked deck L, once every seat has done its lock pass."""
        return self.decks[-1] if len(self.decks) == 2 * self.n_seats + 1 else None

    @property
    def current_deck(self) -> list[bytes]:
        return self.decks[-1]

    @property
    def next_pass_seat(self) -> int | None:
        """Whose shuffle or lock pass is due (seat order 0..n-1, shuffles then locks)."""
        if self.phase not in ("shuffle", "lock"):
            return None
        return (len(self.decks) - 1) % self.n_seats

    def keys_of(self, pos: int) -> dict[int, bytes]:
        return self.published[pos]

    def missing_keys(self, pos: int, have: Mapping[int, bytes] | None = None) -> list[int]:
        """Seats whose key of `pos` is neither published nor in `have`."""
        got = self.published[pos]
        return [s for s in range(self.n_seats) if s not in got and not (have and s in have)]

    def entry_hash_at(self, index: int) -> bytes:
        return signing.entry_hash(self.log[index])

    def keys_due(self, me: int, audience: Audience,
                 positions: Sequence[int] | None = None
                 ) -> tuple[list[tuple[int, list[int]]], dict[int, list[int]]]:
        """Keys seat `me` owes now: (public releases [(pos, audience)], sealed {to: [pos]}).
        Public knowledge: the host times the step and an auditor judges a timeout with it.

        Positions entitled to everyone: every seat publishes. Positions entitled to some
        seats: seats outside publish (the members' own locks still hide the card); members
        send their own key sealed to each other member."""
        deal = self
        public: list[tuple[int, list[int]]] = []
        sealed: dict[int, list[int]] = {}
        for pos in range(deal.n_cards) if positions is None else positions:
            aud = audience(pos)
            if not aud or me in deal.published[pos]:
                continue
            if aud == deal.all_seats:
                if pos not in deal.public_cards:
                    public.append((pos, sorted(aud)))
            elif me not in aud:
                public.append((pos, sorted(aud)))
            else:
                for m in sorted(aud - {me}):
                    if (pos, me, m) not in deal.sealed:
                        sealed.setdefault(m, []).append(pos)
        return public, sealed

    # ------------------------------------------------------------------ checking
    def check(self, msg: Mapping[str, Any], sender: int | None,
              audience: Audience | None = None) -> None:
        """Raise DealError if `msg` may not be appended now; never changes anything.

        `sender` is the seat the connection belongs to (None: a relayed entry, trust the
        `seat` field). `audience` is the engine's entitlement (needed for release/sealed)."""
        mtype = msg.get("type")
        if mtype not in SEAT_TYPES:
            raise DealError("table.wrong_phase", f"{mtype!r} is not a seat message")
        self.check_chain(msg, sender)
        self.check_content(msg, audience)

    def check_content(self, msg: Mapping[str, Any], audience: Audience | None = None) -> None:
        """`check` without the chain and signature (the caller checked them already)."""
        mtype = msg.get("type")
        if mtype not in SEAT_TYPES:
            raise DealError("table.wrong_phase", f"{mtype!r} is not a seat message")
        getattr(self, f"_check_{mtype}")(msg, int(msg["seat"]), audience)

    def check_chain(self, msg: Mapping[str, Any], sender: int | None) -> None:
        if msg.get("hand_id") != self.hand_id:
            raise DealError("table.wrong_hand", "hand_id is not this hand's")
        seat = msg.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < self.n_seats:
            raise DealError("table.wrong_seat", f"no seat {seat!r} at this table")
        if sender is not None and seat != sender:
            raise DealError("table.wrong_seat", f"seat {sender} sent a message signed as {seat}")
        chain = self.chains[seat]
        seq = msg.get("seq")
        if seq != chain.next_seq:
            if isinstance(seq, int) and not isinstance(seq, bool) and seq > chain.next_seq:
                raise DealError("table.seq_gap", f"seq {seq} skips ahead of {chain.next_seq}, "
                                f"the next expected from seat {seat}")
            raise DealError("table.replayed_seq",
                            f"seq {seq!r}, expected {chain.next_seq} from seat {seat}")
        if msg.get("prev_hash") != chain.last_hash:
            raise DealError("table.bad_chain", f"prev_hash of seat {seat} does not chain")
        if self.verify_signatures and not signing.verify(self.seat_keys[seat], msg):
            raise DealError("table.bad_signature",
                            f"the signature does not verify with seat {seat}'s key")

    def _need_phase(self, *phases: str) -> None:
        if self.phase not in phases:
            raise DealError("table.wrong_phase",
                            f"expected in phase {'/'.join(phases)}, the hand is in {self.phase}")

    def _check_commit(self, msg: Mapping[str, Any], seat: int, audience: Audience | None) -> None:
        self._need_phase("commit")
        if seat in self.commitments:
            raise DealError("table.not_due", f"seat {seat} has already committed")
        for name in ("commitment", "x25519"):
            v = msg.get(name)
            if not isinstance(v, bytes) or len(v) != 32:
                raise DealError("table.bad_message", f"{name} must be 32 bytes")
        problem = x25519_key_error(msg.get("x25519"))
        if problem:
            raise DealError("table.bad_key", f"seat {seat}'s commitment: {problem}",
                            seat=seat, voiding=True)

    def _check_pass(self, msg: Mapping[str, Any], seat: int, kind: str) -> None:
        self._need_phase(kind)
        due = self.next_pass_seat
        if seat != due:
            raise DealError("table.not_your_turn", f"the {kind} pass of seat {due} is due")
        if msg.get("input_hash") != deck_hash(self.current_deck):
            raise DealError("table.bad_input",
                            f"seat {seat}'s {kind} pass names a deck other than the current one")
        problem = deck_shape_error(msg.get("deck"), self.n_cards)
        if problem:
            raise DealError("table.bad_deck", f"seat {seat}'s {kind} pass: {problem}",
                            seat=seat, voiding=True)

    def _check_shuffle(self, msg: Mapping[str, Any], seat: int, audience: Audience | None) -> None:
        self._check_pass(msg, seat, "shuffle")

    def _check_lock(self, msg: Mapping[str, Any], seat: int, audience: Audience | None) -> None:
        self._check_pass(msg, seat, "lock")

    def _positions(self, positions: Any, what: str) -> list[int]:
        if not isinstance(positions, list) or not positions:
            raise DealError("table.bad_message", f"{what}: positions must be a non-empty list")
        for p in positions:
            if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < self.n_cards:
                raise DealError("table.unknown_position", f"{what}: no position {p!r}")
        if len(set(positions)) != len(positions):
            raise DealError("table.bad_message", f"{what}: a position is named twice")
        return positions

    def _check_keys(self, keys: Any, n: int, what: str) -> list[bytes]:
        if not isinstance(keys, list) or len(keys) != n:
            raise DealError("table.bad_message", f"{what}: one key per position")
        for k in keys:
            if not is_canonical_scalar(k):
                raise DealError("table.bad_message", f"{what}: a key is not a scalar in 1..ℓ-1")
        return keys

    def _check_release(self, msg: Mapping[str, Any], seat: int,
                       audience: Audience | None) -> None:
        self._need_phase("deal")
        positions = self._positions(msg.get("positions"), "release")
        keys = self._check_keys(msg.get("keys"), len(positions), "release")
        to = msg.get("to")
        if not isinstance(to, list) or len(to) != len(positions):
            raise DealError("table.bad_message", "release: one audience per position")
        if audience is None:
            raise DealError("table.wrong_phase", "no entitlement is known yet")
        for pos, aud, _ in zip(positions, to, keys):
            entitled = audience(pos)
            if not isinstance(aud, list) or aud != sorted(entitled):
                raise DealError("table.not_entitled",
                                f"seat {seat} released position {pos} to {aud}, but the public "
                                f"state entitles {sorted(entitled) or 'nobody'}",
                                seat=seat, voiding=True)
            if not entitled or (seat in entitled and entitled != self.all_seats):
                raise DealError("table.not_entitled",
                                f"seat {seat} may not release position {pos} to {sorted(entitled)}",
                                seat=seat, voiding=True)
            if seat in self.published[pos]:
                raise DealError("table.duplicate_key",
                                f"seat {seat} already released position {pos}")

    def _check_sealed(self, msg: Mapping[str, Any], seat: int,
                      audience: Audience | None) -> None:
        self._need_phase("deal")
        positions = self._positions(msg.get("positions"), "sealed")
        to = msg.get("to")
        if not isinstance(to, int) or not 0 <= to < self.n_seats or to == seat:
            raise DealError("table.bad_message", f"sealed: bad recipient {to!r}")
        box = msg.get("box")
        if not isinstance(box, bytes) or len(box) != 32 * len(positions) + BOX_OVERHEAD:
            raise DealError("table.bad_message", "sealed: the box has the wrong size")
        if audience is None:
            raise DealError("table.wrong_phase", "no entitlement is known yet")
        for pos in positions:
            entitled = audience(pos)
            if seat not in entitled or to not in entitled or entitled == self.all_seats:
                raise DealError("table.not_entitled",
                                f"seat {seat} sealed position {pos} for seat {to}, but the "
                                f"public state entitles {sorted(entitled) or 'nobody'}",
                                seat=seat, voiding=True)
            if (pos, seat, to) in self.sealed or seat in self.published[pos]:
                raise DealError("table.duplicate_key",
                                f"seat {seat} already gave position {pos} to seat {to}")

    def _check_action(self, msg: Mapping[str, Any], seat: int,
                      audience: Audience | None) -> None:
        self._need_phase("deal")
        positions, cards, keys = msg.get("positions"), msg.get("cards"), msg.get("keys")
        if not isinstance(positions, list) or not positions:
            if positions == [] and cards == [] and keys == []:
                return
            raise DealError("table.bad_message", "action: positions must be a list")
        self.check_proofs(seat, positions, cards, keys)

    def check_proofs(self, seat: int, positions: Any, cards: Any, keys: Any) -> None:
        """A face-up claim per position: `keys[i]` are the lock keys of positions[i] that
        are not yet public, in seat order, the author's among them (a partner's too when it
        received one sealed). Checks K·P[card] == L[pos]; a failure voids the hand."""
        positions = self._positions(positions, "proof")
        if not isinstance(cards, list) or len(cards) != len(positions):
            raise DealError("table.bad_message", "proof: one card per position")
        if not isinstance(keys, list) or len(keys) != len(positions):
            raise DealError("table.bad_message", "proof: one list of keys per position")
        locked = self.locked
        assert locked is not None
        for pos, card, ks in zip(positions, cards, keys):
            if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < self.n_cards:
                raise DealError("table.bad_message", f"proof: no card {card!r} in this deck")
            if pos in self.public_cards:
                raise DealError("table.unknown_position", f"position {pos} is already face up")
            missing = self.missing_keys(pos)
            if seat not in missing:
                raise DealError("table.unknown_position",
                                f"seat {seat}'s key of position {pos} is already public")
            self._check_keys(ks, len(missing), f"proof of position {pos}")
            hidden_from = [s for s in missing if s != seat]
            if any(s not in self._sealed_to(pos, seat) for s in hidden_from):
                raise DealError("table.unknown_position",
                                f"position {pos} is not in seat {seat}'s hand (seats "
                                f"{hidden_from} never gave it their keys)")
            given = dict(zip(missing, ks))
            all_keys = [given[s] if s in given else self.published[pos][s]
                        for s in range(self.n_seats)]
            if not claim_holds(locked[pos], all_keys, self.points[card]):
                raise DealError("table.bad_proof",
                                f"seat {seat} claims card {card} at position {pos}, "
                                "but K·P[card] ≠ L[pos]", seat=seat, voiding=True)

    def _sealed_to(self, pos: int, recipient: int) -> set[int]:
        """Seats that sent their key of `pos` sealed to `recipient`."""
        return {s for s in range(self.n_seats) if (pos, s, recipient) in self.sealed}

    def _check_alarm(self, msg: Mapping[str, Any], seat: int, audience: Audience | None) -> None:
        self._need_phase("shuffle", "lock", "deal")
        if not isinstance(msg.get("what"), str) or not isinstance(msg.get("positions"), list):
            raise DealError("table.bad_message", "alarm: what and positions are required")

    def _check_abandon(self, msg: Mapping[str, Any], seat: int,
                       audience: Audience | None) -> None:
        self._need_phase("commit", "shuffle", "lock", "deal")
        if not isinstance(msg.get("reason"), str):
            raise DealError("table.bad_message", "abandon: a reason is required")

    def _check_reveal(self, msg: Mapping[str, Any], seat: int, audience: Audience | None) -> None:
        self._need_phase("reveal")
        if seat in self.seeds or seat in self.bad_reveals:
            raise DealError("table.not_due", f"seat {seat} has already revealed")
        seed = msg.get("seed")
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise DealError("table.bad_message", "a seed is 32 bytes")

    def _check_sign_off(self, msg: Mapping[str, Any], seat: int,
                        audience: Audience | None) -> None:
        raise DealError("table.wrong_phase", "sign_off is collected beside the log, not in it")

    # ------------------------------------------------------------------ recording
    def apply(self, msg: Mapping[str, Any], msg_hash: bytes | None = None) -> int:
        """Record an already-checked seat message; returns its log index. `msg_hash` is its
        entry hash when the caller has it already."""
        seat = int(msg["seat"])
        mtype = msg["type"]
        h = msg_hash or signing.entry_hash(msg)
        index = self._append(msg, h)
        chain = self.chains[seat]
        chain.next_seq += 1
        chain.last_hash = h
        if mtype == "commit":
            self.commitments[seat] = msg["commitment"]
            self.x25519[seat] = msg["x25519"]
            if len(self.commitments) == self.n_seats:
                self.phase = advance(self.phase, DealPhase.SHUFFLE)
        elif mtype in ("shuffle", "lock"):
            self.decks.append(list(msg["deck"]))
            self.pass_entries.append(index)
            if len(self.decks) == self.n_seats + 1:
                self.phase = advance(self.phase, DealPhase.LOCK)
            elif len(self.decks) == 2 * self.n_seats + 1:
                self.phase = advance(self.phase, DealPhase.DEAL)
        elif mtype == "release":
            for pos, key in zip(msg["positions"], msg["keys"]):
                self.published[pos][seat] = key
            self.keys_version += 1
        elif mtype == "sealed":
            for pos in msg["positions"]:
                self.sealed[(pos, seat, msg["to"])] = index
        elif mtype == "action":
            for pos, card, ks in zip(msg["positions"], msg["cards"], msg["keys"]):
                for s, key in zip(self.missing_keys(pos), ks):
                    self.published[pos][s] = key
                self.public_cards[pos] = card
            self.keys_version += 1
        elif mtype == "alarm":
            self.alarms.append(index)
        elif mtype == "abandon":
            self.abandoned.setdefault(seat, index)
        elif mtype == "reveal":
            if commitment(self.hand_id, seat, msg["seed"]) == self.commitments.get(seat):
                self.seeds[seat] = msg["seed"]
            else:
                self.bad_reveals[seat] = index
        return index

    # ------------------------------------------------------------------ host statements
    def host_statement(self, key: Any, mtype: str, **fields: Any) -> dict[str, Any]:
        """A host-signed statement that takes the next place of the log (not yet appended)."""
        return signing.host_statement(key, mtype, self.hand_id, len(self.log), self.head,
                                      **fields)

    def check_host_entry(self, entry: Mapping[str, Any]) -> None:
        """Raise DealError (`table.bad_host_statement`) unless `entry` is a host statement
        signed by this hand's host key for exactly the next place of this log; a refusal's
        embedded statement must be validly signed at its place in its seat's chain."""
        mtype = entry.get("type")
        if mtype not in HOST_TYPES or mtype == "hand_start":
            raise DealError("table.bad_host_statement", f"{mtype!r} is not a host log entry")
        if entry.get("hand_id") != self.hand_id:
            raise DealError("table.bad_host_statement", f"a {mtype} of another hand")
        if entry.get("at") != len(self.log) or entry.get("head") != self.head:
            raise DealError("table.bad_host_statement",
                            f"a {mtype} made on another history (at {entry.get('at')!r}, "
                            f"the log has {len(self.log)} entries)")
        if self.verify_signatures and not signing.verify(self.host_key, entry):
            raise DealError("table.bad_host_statement",
                            f"a {mtype} not signed by the hand's host key")
        if mtype == "refusal":
            inner = entry.get("msg")
            seat = entry.get("seat")
            if not isinstance(inner, Mapping) or inner.get("seat") != seat:
                raise DealError("table.bad_host_statement", "a refusal must carry the refused "
                                "statement of the seat it names")
            try:
                self.check_chain(inner, seat if isinstance(seat, int) else None)
            except DealError as exc:    # the host logged what is nobody's proven word
                raise DealError("table.bad_host_statement", f"a refusal of a statement not "
                                f"placed in its seat's chain ({exc.code}: {exc.message})"
                                ) from None
        elif mtype == "timeout":
            seat = entry.get("seat")
            if not isinstance(seat, int) or not 0 <= seat < self.n_seats:
                raise DealError("table.bad_host_statement", f"a timeout of no seat {seat!r}")

    def append_host_entry(self, entry: Mapping[str, Any],
                          entry_hash: bytes | None = None) -> int:
        """Record a host statement (already checked, or made here by the host)."""
        mtype = entry.get("type")
        index = self._append(entry, entry_hash)
        if mtype == "refusal":
            inner = entry["msg"]
            seat = int(entry["seat"])
            chain = self.chains[seat]
            chain.next_seq += 1
            chain.last_hash = signing.entry_hash(inner)
            self.refusals.setdefault(seat, []).append(index)
        elif mtype == "timeout":
            self.timeouts.append(index)
        elif mtype == "hand_void":
            self.voided = index
            self.begin_reveal()
        return index

    def _append(self, msg: Mapping[str, Any], msg_hash: bytes | None = None) -> int:
        h = msg_hash or signing.entry_hash(msg)
        self.log.append(msg)
        self.hashes.append(h)
        self.head = signing.chain_step(self.head, h)
        return len(self.log) - 1

    def begin_reveal(self) -> None:
        """The hand is over (or void): from now on only seed reveals are accepted."""
        self.phase = advance(self.phase, DealPhase.REVEAL)

    def close(self) -> None:
        self.phase = advance(self.phase, DealPhase.CLOSED)

    @property
    def revealed_all(self) -> bool:
        return len(self.seeds) + len(self.bad_reveals) == self.n_seats

    # ------------------------------------------------------------------ public reveals
    def decode_public(self, positions: Sequence[int]) -> dict[int, int | None]:
        """Decode positions whose every key is published (a public reveal). None marks a point
        that is no card or not a valid group element — an alarm."""
        locked = self.locked
        assert locked is not None
        todo = [p for p in positions if not self.missing_keys(p)]
        if not todo:
            return {}
        keysets = [[self.published[p][s] for s in range(self.n_seats)] for p in todo]
        try:
            cards = decode_many([locked[p] for p in todo], keysets, self.table)
        except BadPoint as exc:
            bad = {todo[i] for i in exc.indices}
            good = [p for p in todo if p not in bad]
            out: dict[int, int | None] = dict.fromkeys(bad)
            out.update(self.decode_public(good) if good else {})
            return out
        return dict(zip(todo, cards))

    def learn_public(self, pos: int, card: int) -> None:
        self.public_cards[pos] = card
