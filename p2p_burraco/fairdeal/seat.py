"""One seat's side of the fair deal: its secrets, the messages it signs, the cards it decodes.

`SeatDealer` is transport-agnostic and knows no game: it keeps a `PublicDeal` replica fed
with the log the host relays, builds this seat's signed messages from its seed, and
decodes the positions the public state entitles it to. Which positions those are is the
caller's business (`audience(pos)`, from the game engine via the table layer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import signing
from .deal import HOST_TYPES, Audience, DealError, PublicDeal
from .derive import SeatSecrets
from .envelope import EnvelopeError, open_box, seal
from .group import BadPoint
from .passes import deck_hash, decode_many, lock_pass, shuffle_pass


class SeatDealer:
    """This seat's fair-deal state for one hand."""

    def __init__(self, seat: int, identity: Ed25519PrivateKey, seed: bytes,
                 hand_start: Mapping[str, Any], verify_signatures: bool = True,
                 deal: PublicDeal | None = None) -> None:
        self.seat = seat
        self._identity = identity
        self.deal = deal if deal is not None else \
            PublicDeal(hand_start, verify_signatures=verify_signatures)
        self._secrets = SeatSecrets(seed, self.deal.hand_id, seat, self.deal.n_cards)
        self.known: dict[int, int] = {}                  # positions this seat has decoded
        self._partner_keys: dict[tuple[int, int], bytes] = {}   # (pos, sender) → key
        self.problems: list[tuple[str, list[int], int | None, str]] = []

    @property
    def n_seats(self) -> int:
        return self.deal.n_seats

    # ------------------------------------------------------------------ incoming
    def receive(self, entry: Mapping[str, Any], audience: Audience | None,
                entry_hash: bytes | None = None) -> int:
        """Append a relayed log entry (checked against the replica); returns its index.
        A failed check is kept in `problems` (the caller raises an alarm) and the entry is
        still appended, since the host's log is the one the audit will judge. Every
        signature is checked here, live: a host cannot pass off a statement nobody made."""
        if entry.get("type") in HOST_TYPES:
            try:
                self.deal.check_host_entry(entry)
            except DealError as exc:
                self.problems.append((exc.code.split(".")[-1], [], len(self.deal.log),
                                      exc.message))
            return self.deal.append_host_entry(entry, entry_hash)
        try:
            self.deal.check(entry, None, audience)
        except DealError as exc:
            self.problems.append((exc.code.split(".")[-1], [], len(self.deal.log), exc.message))
        index = self.deal.apply(entry, entry_hash)
        self.opened(index, entry)
        return index

    def opened(self, index: int, entry: Mapping[str, Any]) -> None:
        """After a relayed entry was applied to the deal: open an envelope meant for us."""
        if entry.get("type") == "sealed" and entry.get("to") == self.seat:
            self._open_envelope(index, entry)

    def _open_envelope(self, index: int, e: Mapping[str, Any]) -> None:
        sender = e["seat"]
        try:
            keys = open_box(self._secrets.x25519_private, self.deal.x25519[sender],
                            self.deal.hand_id, sender, self.seat, e["seq"], e["positions"],
                            e["box"])
        except (EnvelopeError, KeyError) as exc:
            self.problems.append(("bad_envelope", list(e["positions"]), index, str(exc)))
            return
        for pos, key in zip(e["positions"], keys):
            self._partner_keys[(pos, sender)] = key

    # ------------------------------------------------------------------ signing
    def _sign(self, mtype: str, **fields: Any) -> dict[str, Any]:
        body = self.unsigned(mtype, **fields)
        if self.before_sign is not None:
            self.before_sign(body)
        return signing.sign(self._identity, body)

    def unsigned(self, mtype: str, **fields: Any) -> dict[str, Any]:
        """A statement of this seat at the next place of its chain, not yet signed."""
        chain = self.deal.chains[self.seat]
        return {"type": mtype, "hand_id": self.deal.hand_id, "seat": self.seat,
                "seq": chain.next_seq, "prev_hash": chain.last_hash, **fields}

    before_sign: Any = None
    """Called with each statement before it is signed (the seat's last check of it)."""

    def make_commit(self) -> dict[str, Any]:
        return self._sign("commit", commitment=self._secrets.commitment,
                          x25519=self._secrets.x25519_public)

    def pass_due(self) -> bool:
        return self.deal.next_pass_seat == self.seat

    def make_pass(self) -> dict[str, Any]:
        """This seat's shuffle or lock pass over the current deck (BadPoint if the deck holds
        an invalid point: raise an alarm against the previous pass instead)."""
        kind = self.deal.phase
        deck = self.deal.current_deck
        out = shuffle_pass(self._secrets, deck) if kind == "shuffle" \
            else lock_pass(self._secrets, deck)
        return self._sign(kind, input_hash=deck_hash(deck), deck=out)

    def make_release(self, items: Sequence[tuple[int, Sequence[int]]]) -> dict[str, Any]:
        positions = [p for p, _ in items]
        return self._sign("release", positions=positions, to=[sorted(a) for _, a in items],
                          keys=[self._secrets.lock_key(p) for p in positions])

    def make_sealed(self, to: int, positions: Sequence[int]) -> dict[str, Any]:
        chain = self.deal.chains[self.seat]
        box = seal(self._secrets.x25519_private, self.deal.x25519[to], self.deal.hand_id,
                   self.seat, to, chain.next_seq, positions,
                   [self._secrets.lock_key(p) for p in positions])
        return self._sign("sealed", to=to, positions=list(positions), box=box)

    def proofs(self, shown: Sequence[tuple[int, int]]) -> dict[str, list[Any]]:
        """The proof fields of an action showing (pos, card) pairs from this seat's hand."""
        keys: list[list[bytes]] = []
        for pos, _ in shown:
            mine = self.keys_for(pos)
            if mine is None:
                raise ValueError(f"position {pos} is not known to seat {self.seat}")
            keys.append([mine[s] for s in self.deal.missing_keys(pos)])
        return {"positions": [p for p, _ in shown], "cards": [c for _, c in shown],
                "keys": keys}

    def make_action(self, action: Mapping[str, Any],
                    shown: Sequence[tuple[int, int]]) -> dict[str, Any]:
        return self._sign("action", action=dict(action), **self.proofs(shown))

    def make_alarm(self, what: str, positions: Sequence[int], ref: int | None,
                   detail: str, evidence: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self._sign("alarm", what=what, positions=list(positions), ref=ref, detail=detail,
                          evidence=dict(evidence) if evidence is not None else None)

    def make_abandon(self, reason: str) -> dict[str, Any]:
        return self._sign("abandon", reason=reason)

    def make_reveal(self) -> dict[str, Any]:
        return self._sign("reveal", seed=self._secrets.seed)

    def make_sign_off(self, transcript_hash: bytes, result_hash: bytes) -> dict[str, Any]:
        return self._sign("sign_off", transcript_hash=transcript_hash, result_hash=result_hash)

    # ------------------------------------------------------------------ what is due
    def releases_due(self, audience: Audience,
                     positions: Sequence[int] | None = None
                     ) -> tuple[list[tuple[int, list[int]]], dict[int, list[int]]]:
        """Keys this seat owes now (see `PublicDeal.keys_due`: what is owed is public)."""
        return self.deal.keys_due(self.seat, audience, positions)

    def keys_for(self, pos: int) -> list[bytes] | None:
        """Every seat's lock key of `pos` as this seat can see them, or None if one is missing."""
        pub = self.deal.published[pos]
        out: list[bytes] = []
        for s in range(self.deal.n_seats):
            if s == self.seat:
                out.append(self._secrets.lock_key(pos))
            elif s in pub:
                out.append(pub[s])
            elif (pos, s) in self._partner_keys:
                out.append(self._partner_keys[(pos, s)])
            else:
                return None
        return out

    def decode(self, positions: Sequence[int]) -> tuple[dict[int, int], list[int]]:
        """Decode the given positions whose keys are all here: ({pos: card}, [positions that
        are no card, hold an invalid point, or repeat a card already known])."""
        locked = self.deal.locked
        assert locked is not None
        todo = [p for p in positions if p not in self.known]
        keysets = [self.keys_for(p) for p in todo]
        ready = [(p, ks) for p, ks in zip(todo, keysets) if ks is not None]
        if not ready:
            return {}, []
        bad: list[int] = []
        try:
            cards: list[int | None] = decode_many([locked[p] for p, _ in ready],
                                                  [ks for _, ks in ready], self.deal.table)
        except BadPoint as exc:
            badset = {ready[i][0] for i in exc.indices}
            bad.extend(sorted(badset))
            ready = [(p, ks) for p, ks in ready if p not in badset]
            cards = decode_many([locked[p] for p, _ in ready], [ks for _, ks in ready],
                                self.deal.table) if ready else []
        found: dict[int, int] = {}
        held = set(self.known.values())
        for (p, _), c in zip(ready, cards):
            if c is None or c in held:
                bad.append(p)
            else:
                found[p] = c
                held.add(c)
        self.known.update(found)
        return found, bad

    def learn_public(self, pos: int, card: int) -> None:
        """A card shown face up with a checked proof."""
        self.known[pos] = card
