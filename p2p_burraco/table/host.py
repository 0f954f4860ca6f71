"""`HostTable`: the host's side of one table, sans-IO, holding no secret.

The host referees: it keeps the match, the public replica of the hand (it knows only what
has been shown face up), each seat's public identity key, and the hand's log. It never holds
a seed, a lock key it could use alone, or a hidden card: every key it sees was published
for everyone or belongs to a card already face up, and sealed envelopes stay sealed.

Sans-IO: `start_hand()`, `receive(seat, msg)`, `seat_lost(seat)`, `void_hand(reason)` and
`resync(seat)` return a list of `Outgoing(to, msg)` — `to` a seat, or None for every seat —
and change nothing else in the world. A refused message yields one `error` to its sender
(a stable `table.*` code, the rule id for an illegal action) and leaves the table exactly as
it was, except that a validly signed message proving a deviation is kept as an incident and
voids the hand (fairdeal.md, "When something goes wrong"). An exact copy of a message the
host already accepted in this hand (a peer re-sending after a reconnect) is a no-op: no
answer at all, since an error would be taken for a refusal of the seat's next message.

The hand runs: hand_start → commitments (held until all are in, then relayed) → shuffle
passes → lock passes → play (key releases as the engine's `audience` names seats; actions
checked by the engine, face-up proofs by the gate) → seed reveals → audit → hand_end →
sign-offs → the transcript is handed to `on_transcript` → the next hand (or the match end).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..fairdeal import signing
from ..fairdeal.audit import Verdict
from ..fairdeal.deal import DealError, PublicDeal
from ..fairdeal.local import PROTOCOL_ID, hand_id_for, make_hand_start
from ..fairdeal.transcript import Transcript
from ..games import get_game
from ..games.base import ActionSyntaxError, HandResult, HandState, Match, RuleViolation
from . import messages as M
from .audit import UNFAIR, audit_hand
from .replica import build_hand, public_positions, void_result


class Outgoing(NamedTuple):
    """A message for one seat (`to` an int) or for every seat (`to` None)."""

    to: int | None
    msg: dict[str, Any]


@dataclass
class HandRecord:
    """What a finished hand left: its number, result, verdict and transcript."""

    hand_no: int
    result: HandResult
    verdict: Verdict
    transcript: Transcript


class TableError(ValueError):
    """A refusal: `code` is a table.* code, `rule` the rule id for an illegal action."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        self.code = code
        self.message = message
        self.rule = rule
        super().__init__(f"{code}: {message}")


class HostTable:
    """One table's referee. Stages: idle → commit → shuffle → lock → play → reveal →
    signoff → (next hand) … → over."""

    def __init__(self, game: str, variant: str | None, n_seats: int,
                 seat_keys: Sequence[bytes], *, first_dealer: int = 0,
                 options: Mapping[str, Any] | None = None, match_id: bytes,
                 auto_next: bool = True,
                 on_transcript: Callable[[HandRecord], None] | None = None) -> None:
        spec = get_game(game)
        self.game = game
        self.variant = variant or spec.default_variant
        if self.variant not in spec.presets:
            raise ValueError(f"unknown {game} variant {self.variant!r}; choose one of: "
                             f"{', '.join(spec.presets)}")
        if len(seat_keys) != n_seats:
            raise ValueError(f"{n_seats} seats need {n_seats} identity keys")
        if len(match_id) != 16:
            raise ValueError("match_id must be 16 bytes")
        self.n_seats = n_seats
        self.first_dealer = first_dealer
        self.options: dict[str, Any] = dict(options or {})
        self.match: Match = spec.new_match(spec.presets[self.variant], n_seats,
                                           first_dealer=first_dealer, **self.options)
        self.seat_keys = [bytes(k) for k in seat_keys]
        self.match_id = bytes(match_id)
        self.auto_next = auto_next
        self.on_transcript = on_transcript
        self.history: list[dict[str, Any]] = []
        self.records: list[HandRecord] = []
        self.hand_no = 0
        self.stage = "idle"
        self.hand: HandState | None = None
        self.deal: PublicDeal | None = None
        self.relayed = 0                  # log entries already sent to the seats
        self.lost: set[int] = set()
        self.void_reason: str | None = None
        self.hand_end: dict[str, Any] | None = None
        self.sign_offs: dict[int, dict[str, Any]] = {}
        self._last_audit: Any = None

    # ------------------------------------------------------------------ public facts
    @property
    def match_over(self) -> bool:
        return self.match.is_over

    def standings(self) -> dict[str, Any]:
        return dict(self.match.standings())

    @property
    def hand_id(self) -> bytes | None:
        return self.deal.hand_id if self.deal is not None else None

    def public_view(self) -> dict[str, Any] | None:
        return self.hand.public_view() if self.hand is not None else None

    # ------------------------------------------------------------------ hand lifecycle
    def start_hand(self) -> list[Outgoing]:
        """Deal a new hand: broadcast its `hand_start` (entry 0 of its log)."""
        if self.stage not in ("idle", "between"):
            raise ValueError(f"a hand is in progress (stage {self.stage})")
        if self.match.is_over:
            raise ValueError("the match is over")
        hand = self.match.new_hand()
        hs = make_hand_start(
            hand_id=hand_id_for(self.match_id, self.hand_no), n_seats=self.n_seats,
            deck_id=hand.deck.kind.value, n_cards=len(hand.deck), seat_keys=self.seat_keys,
            match_id=self.match_id, hand_no=self.hand_no, game=self.game, variant=self.variant,
            dealer=hand.dealer, first_dealer=self.first_dealer, options=self.options,
            history=self.history)
        assert hs["protocol"] == PROTOCOL_ID
        build_hand(hs)  # the replica every peer will build must be this one
        self.hand = hand
        self.deal = PublicDeal(hs, verify_signatures=True)
        self.lost = set()
        self.void_reason = None
        self.hand_end = None
        self.sign_offs = {}
        self.relayed = 1
        self.stage = "commit"
        return [Outgoing(None, hs)]

    def replace_seat(self, seat: int, public_key: bytes) -> None:
        """A new occupant (a bot, or the player on a new device) from the next hand on."""
        if not 0 <= seat < self.n_seats or len(public_key) != 32:
            raise ValueError("bad seat or key")
        self.seat_keys[seat] = bytes(public_key)

    def resync(self, seat: int) -> list[Outgoing]:
        """Everything of the current hand a reconnected seat may have missed, in order."""
        if self.deal is None:
            return []
        out = [Outgoing(seat, dict(e)) for e in self.deal.log[:self.relayed]]
        if self.hand_end is not None:
            out.append(Outgoing(seat, self.hand_end))
        return out

    # ------------------------------------------------------------------ incoming
    def receive(self, seat: int, msg: Mapping[str, Any]) -> list[Outgoing]:
        """One table message from `seat` (already validated by the wire schema)."""
        mtype = msg.get("type")
        try:
            if mtype == "resync":
                return self.resync(seat)
            if not 0 <= seat < self.n_seats:
                raise TableError("table.wrong_seat", f"no seat {seat} at this table")
            if mtype in M.SEAT_AUTHORED and self._already_accepted(seat, msg):
                return []
            if self.match.is_over and self.stage in ("over", "idle", "between"):
                raise TableError("table.match_over", "the match is over")
            if self.deal is None or self.stage in ("idle", "between", "over"):
                raise TableError("table.no_hand", "no hand is in progress")
            if mtype not in M.SEAT_AUTHORED:
                raise TableError("table.wrong_phase", f"a seat does not send {mtype!r}")
            handler = getattr(self, f"_on_{mtype}")
            out: list[Outgoing] = handler(seat, msg)
            return out
        except TableError as exc:
            return [Outgoing(seat, M.error(exc.code, exc.message, exc.rule))]
        except DealError as exc:
            if exc.voiding and self.stage in ("commit", "shuffle", "lock", "play"):
                out = [Outgoing(seat, M.error(exc.code, exc.message))]
                out += self.void_hand(exc.code.split(".")[-1], seat=exc.seat, detail=exc.message,
                                      evidence={"code": exc.code, "msg": dict(msg)})
                return out
            return [Outgoing(seat, M.error(exc.code, exc.message))]

    def _already_accepted(self, seat: int, msg: Mapping[str, Any]) -> bool:
        """`msg` is an exact copy (same entry hash) of a message `seat` already had accepted
        in the current hand — in the log, held (a commitment), or a sign-off."""
        deal = self.deal
        if deal is None or msg.get("hand_id") != deal.hand_id or msg.get("seat") != seat:
            return False
        if msg.get("type") == "sign_off":
            kept = self.sign_offs.get(seat)
            return kept is not None and signing.entry_hash(kept) == signing.entry_hash(msg)
        seq = msg.get("seq")
        if not isinstance(seq, int) or not 0 <= seq < deal.chains[seat].next_seq:
            return False    # the cheap test first: only an old seq can be a copy
        for entry in reversed(deal.log):
            if entry.get("type") in M.SEAT_AUTHORED and entry.get("seat") == seat \
                    and entry.get("seq") == seq:
                return signing.entry_hash(entry) == signing.entry_hash(msg)
        return False

    def _accept(self, seat: int, msg: Mapping[str, Any], relay: bool = True) -> list[Outgoing]:
        assert self.deal is not None and self.hand is not None
        self.deal.check(msg, seat, self.hand.audience)
        self.deal.apply(dict(msg))
        if relay:
            return self._relay_pending()
        return []

    def _relay_pending(self) -> list[Outgoing]:
        assert self.deal is not None
        out = [Outgoing(None, dict(e)) for e in self.deal.log[self.relayed:]]
        self.relayed = len(self.deal.log)
        return out

    def _on_commit(self, seat: int, msg: Mapping[str, Any]) -> list[Outgoing]:
        assert self.deal is not None
        self._accept(seat, msg, relay=False)
        if self.deal.phase == "commit":
            return []                      # hold them until every seat has committed
        self.stage = "shuffle"
        return self._relay_pending()

    def _on_shuffle(self, seat: int, msg: Mapping[str, Any]) -> list[Outgoing]:
        out = self._accept(seat, msg)
        assert self.deal is not None
        self.stage = self.deal.phase if self.deal.phase != "deal" else "play"
        return out

    _on_lock = _on_shuffle

    def _on_release(self, seat: int, msg: Mapping[str, Any]) -> list[Outgoing]:
        if self.stage != "play":
            raise TableError("table.wrong_phase", f"keys are released in play, not {self.stage}")
        out = self._accept(seat, msg)
        return out + self._reveal_public()

    def _on_sealed(self, seat: int, msg: Mapping[str, Any]) -> list[Outgoing]:
        if self.stage != "play":
            raise TableError("table.wrong_phase", f"envelopes travel in play, not {self.stage}")
        return self._accept(seat, msg)

    def _reveal_public(self) -> list[Outgoing]:
        """Decode every public position whose keys are all out; a point that is no card
        voids the hand (the audit will say whose key or pass was wrong)."""
        assert self.deal is not None and self.hand is not None
        todo = [p for p in public_positions(self.hand) if p not in self.deal.public_cards
                and not self.deal.missing_keys(p)]
        if not todo:
            return []
        found = self.deal.decode_public(todo)
        bad = sorted(p for p, c in found.items() if c is None)
        for pos, card in found.items():
            if card is None:
                continue
            try:
                self.hand.learn(pos, card)
            except ValueError:
                bad.append(pos)
                continue
            self.deal.learn_public(pos, card)
        if bad:
            return self.void_hand("bad_reveal", detail=f"public positions {bad} decode to no "
                                  "card of this deck (a wrong key or pass)")
        return []

    def _pending_public(self) -> list[int]:
        assert self.deal is not None and self.hand is not None
        return [p for p in public_positions(self.hand) if p not in self.deal.public_cards]

    def _on_action(self, seat: int, msg: Mapping[str, Any]) -> list[Outgoing]:
        deal, hand = self.deal, self.hand
        assert deal is not None and hand is not None
        deal.check_chain(msg, seat)
        if self.stage != "play" or deal.phase != "deal":
            raise TableError("table.wrong_phase", f"no actions during {self.stage}")
        if hand.to_move != seat:
            raise TableError("table.not_your_turn",
                             f"it is seat {hand.to_move}'s turn" if hand.to_move is not None
                             else "the hand is over")
        waiting = self._pending_public()
        if waiting:
            raise TableError("table.wrong_phase",
                             f"public positions {waiting[:5]} are still being revealed")
        try:
            action = hand.action_from_wire(msg.get("action") or {})
        except ActionSyntaxError as exc:
            raise TableError("table.bad_action", str(exc)) from None
        hidden = [(p, c) for p, c in action.shown() if p not in deal.public_cards]
        claimed = list(zip(msg.get("positions") or [], msg.get("cards") or []))
        if claimed != [(p, c) for p, c in hidden] or \
                len(msg.get("keys") or []) != len(claimed):
            raise TableError("table.bad_action",
                             "the proofs must name exactly the hidden cards the action shows, "
                             f"in order: {hidden}")
        for pos, _ in hidden:
            if seat not in hand.audience(pos):
                raise TableError("table.unknown_position",
                                 f"position {pos} is not in seat {seat}'s hand")
        trial = hand.copy()
        try:
            trial.apply(seat, action)
        except RuleViolation as exc:
            raise TableError("table.illegal_action", exc.message, exc.rule_id) from None
        except (ValueError, LookupError) as exc:
            raise TableError("table.bad_action", str(exc)) from None
        if claimed:
            deal.check_proofs(seat, msg["positions"], msg["cards"], msg["keys"])
        deal.apply(dict(msg))
        self.hand = trial
        out = self._relay_pending()
        if trial.is_over:
            deal.begin_reveal()
            self.stage = "reveal"
        else:
            out += self._reveal_public()
        return out

    def _on_alarm(self, seat: int, msg: Mapping[str, Any]) -> list[Outgoing]:
        out = self._accept(seat, msg)
        return out + self.void_hand("alarm", seat=seat,
                                    detail=f"seat {seat}: {msg.get('what')} — {msg.get('detail')}")

    def _on_reveal(self, seat: int, msg: Mapping[str, Any]) -> list[Outgoing]:
        if self.stage != "reveal":
            raise TableError("table.wrong_phase", "seeds are revealed when the hand is over")
        out = self._accept(seat, msg)
        return out + self._maybe_finish()

    def _on_sign_off(self, seat: int, msg: Mapping[str, Any]) -> list[Outgoing]:
        deal = self.deal
        assert deal is not None
        if self.stage != "signoff":
            raise TableError("table.wrong_phase", "sign-offs come after hand_end")
        if seat in self.sign_offs:
            raise TableError("table.replayed_seq", f"seat {seat} has already signed off")
        deal.check_chain(msg, seat)
        if not isinstance(msg.get("transcript_hash"), bytes):
            raise TableError("table.bad_message", "transcript_hash must be bytes")
        self.sign_offs[seat] = dict(msg)   # kept even if it disputes: it is evidence
        out: list[Outgoing] = []
        if msg["transcript_hash"] != deal.head:
            out.append(Outgoing(seat, M.error("table.bad_transcript_hash",
                                              "your transcript hash differs from the host's")))
        return out + self._maybe_close()

    # ------------------------------------------------------------------ endings
    def seat_lost(self, seat: int) -> list[Outgoing]:
        """The net layer gave up on a seat (its grace period expired): void the hand if it is
        still being dealt or played, or stop waiting for its reveal / sign-off."""
        if not 0 <= seat < self.n_seats:
            raise ValueError(f"no seat {seat}")
        self.lost.add(seat)
        if self.stage in ("commit", "shuffle", "lock", "play"):
            return self.void_hand("seat_lost", seat=seat,
                                  detail=f"seat {seat} was lost past its grace period")
        if self.stage == "reveal":
            return self._maybe_finish()
        if self.stage == "signoff":
            return self._maybe_close()
        return []

    def void_hand(self, reason: str, seat: int | None = None, ref: int | None = None,
                  detail: str = "", evidence: Mapping[str, Any] | None = None
                  ) -> list[Outgoing]:
        """Stop the hand: every seat reveals its seed, the audit names who deviated, the hand
        scores zero and the match goes on."""
        deal = self.deal
        if deal is None or self.stage not in ("commit", "shuffle", "lock", "play"):
            return []
        self.void_reason = reason
        entry = {"type": "hand_void", "hand_id": deal.hand_id, "reason": reason, "seat": seat,
                 "ref": ref, "detail": detail, "evidence": dict(evidence) if evidence else None}
        deal.append_host_entry(entry)
        deal.begin_reveal()
        self.stage = "reveal"
        return self._relay_pending() + self._maybe_finish()

    def _expected_reveals(self) -> set[int]:
        assert self.deal is not None
        return {s for s in self.deal.commitments if s not in self.lost}

    def _maybe_finish(self) -> list[Outgoing]:
        deal = self.deal
        assert deal is not None
        have = set(deal.seeds) | set(deal.bad_reveals)
        if not self._expected_reveals() <= have:
            return []
        return self._finish()

    def _finish(self) -> list[Outgoing]:
        """Every expected seed is in: audit, score, close with hand_end."""
        deal, hand = self.deal, self.hand
        assert deal is not None and hand is not None
        report = audit_hand(deal.log)
        self._last_audit = report
        verdict = report.verdict
        if self.void_reason is None and verdict.fair and report.result is not None \
                and verdict.deal is not None:
            for pos, card in enumerate(verdict.deal):
                if hand.card_at(pos) is None:
                    hand.learn(pos, card)
            result = hand.result()
        else:
            result = void_result(self.match, self.void_reason or UNFAIR)
        self.match.record(result)
        self.history.append(result.to_wire())
        self._result = result
        self._verdict = verdict
        deal.close()
        self.stage = "signoff"
        self.hand_end = {"type": "hand_end", "hand_id": deal.hand_id, "result": result.to_wire(),
                         "verdict": verdict.to_wire(), "transcript_hash": deal.head,
                         "standings": dict(self.match.standings()),
                         "match_over": self.match.is_over}
        return [Outgoing(None, self.hand_end)] + self._maybe_close()

    def _maybe_close(self) -> list[Outgoing]:
        deal = self.deal
        assert deal is not None
        waiting = {s for s in range(self.n_seats) if s not in self.lost} - set(self.sign_offs)
        if self.stage != "signoff" or waiting:
            return []
        assert self.hand_end is not None
        transcript = Transcript([dict(e) for e in deal.log], dict(self.hand_end),
                                [self.sign_offs[s] for s in sorted(self.sign_offs)])
        record = HandRecord(self.hand_no, self._result, self._verdict, transcript)
        self.records.append(record)
        self.hand_no += 1
        self.stage = "over" if self.match.is_over else "between"
        if self.on_transcript is not None:
            self.on_transcript(record)
        if self.stage == "between" and self.auto_next:
            return self.start_hand()
        return []


def transcript_name(hand_no: int) -> str:
    """File name of a hand's transcript (hand_no from 0): what `p2p-burraco verify` reads,
    the same in a host's data dir and a `selfplay --fair --record` directory."""
    return f"hand-{hand_no + 1:03d}.p2pb"
