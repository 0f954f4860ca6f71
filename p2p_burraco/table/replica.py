"""`HandReplica`: one hand as any node can know it from its log — and the one judge of it.

The host, every peer and every auditor build a `HandReplica` from the hand's `hand_start`
and feed it the same log. `check(seat, msg)` is the single judgement of a seat statement:
the host refuses what it rejects; a peer runs it on its own statement before signing (so a
refusal of it can only be false) and on every statement the host relays or refuses (so a
false refusal or a relayed illegal statement is caught on arrival); the audit replays it
over the record. `check_host(entry)` judges the host's own statements the same way: a
refusal of a statement `check` accepts, a timeout of a seat that owed nothing, a void with
no cause — each is a signed lie. The guarantees follow from there being one judge.

`due(seat)` says what a seat owes at this point of the log — a commitment, a pass, keys, its
move, its seed — which is what the host's clocks time and what makes a timeout true.

What the replica holds besides the engine's hand and the public deal: the state of our own
rules inside the hand (timeouts in a row, seats a bot plays for, TABLE-3) and whether the
hand has stopped and why (an alarm, a refusal that proves a deviation, a stall, a void).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..fairdeal import signing
from ..fairdeal.deal import CHAIN_CODES, SEAT_TYPES, DealError, PublicDeal
from ..games.base import (
    ActionSyntaxError,
    HandResult,
    HandState,
    Match,
    RuleViolation,
    ScoreLine,
)
from . import messages as M
from .chain import dealing_fault
from .matchstate import MatchState, MatchStateError
from .rules import TableRules


class ReplicaError(ValueError):
    """A hand_start that does not describe a hand this software can rebuild."""


class TableError(ValueError):
    """A refusal: `code` is a table.* code, `rule` the rule id for an illegal action,
    `voiding` marks a statement that proves its author deviated (the hand stops)."""

    def __init__(self, code: str, message: str, rule: str | None = None, *,
                 voiding: bool = False) -> None:
        self.code = code
        self.message = message
        self.rule = rule
        self.voiding = voiding
        super().__init__(f"{code}: {message}")

    @classmethod
    def of(cls, exc: DealError) -> TableError:
        return cls(exc.code, exc.message, voiding=exc.voiding)


@dataclass(frozen=True)
class Stop:
    """Why a hand stopped before the game ended it: `kind` alarm | refusal | stall | void,
    the seat it names (None for a void), the log index that says so."""

    kind: str
    seat: int | None
    index: int
    detail: str = ""


def result_from_wire(d: Mapping[str, Any]) -> HandResult:
    """Inverse of HandResult.to_wire."""
    try:
        return HandResult(
            sides=tuple(tuple(int(s) for s in side) for side in d["sides"]),
            points=tuple(int(p) for p in d["points"]),
            breakdown=tuple(tuple(ScoreLine(str(lbl), int(pts)) for lbl, pts in side)
                            for side in d["breakdown"]),
            closed_by=d.get("closed_by"),
            reason=str(d.get("reason", "")),
            extra=dict(d.get("extra") or {}),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplicaError(f"not a hand result: {exc}") from None


def void_result(match: Match, reason_detail: str = "") -> HandResult:
    """Zero points for every side: what a voided hand records."""
    sides_raw = match.standings().get("sides") or [[s] for s in range(match.n_seats)]
    sides = tuple(tuple(int(s) for s in side) for side in sides_raw)
    extra: dict[str, Any] = {"void": reason_detail} if reason_detail else {}
    return HandResult(sides=sides, points=tuple(0 for _ in sides),
                      breakdown=tuple(() for _ in sides), reason="void", extra=extra)


def build_hand(hs: Mapping[str, Any], state: MatchState | None = None) -> HandState:
    """The hand this `hand_start` opens, with nothing known; checked against its fields."""
    try:
        state = state or MatchState.of_hand_start(hs)
        hand = state.new_hand()
    except (MatchStateError, ValueError) as exc:
        raise ReplicaError(f"the match has no such next hand: {exc}") from None
    fault = dealing_fault(hs, hand)         # the chain check's part that needs the hand
    if fault is not None:
        raise ReplicaError(fault.detail)
    return hand


def public_positions(hand: HandState) -> list[int]:
    """Positions everyone is entitled to see right now."""
    everyone = frozenset(range(hand.n_seats))
    return [p for p in range(len(hand.deck)) if hand.audience(p) == everyone]


class HandReplica:
    """See the module docstring."""

    def __init__(self, hs: Mapping[str, Any], *, verify_signatures: bool = True,
                 state: MatchState | None = None) -> None:
        self.hs = dict(hs)
        try:
            self.state0 = state.copy() if state is not None else MatchState.of_hand_start(hs)
            self.deal = PublicDeal(self.hs, verify_signatures=verify_signatures)
        except (MatchStateError, ValueError, KeyError, TypeError) as exc:
            raise ReplicaError(str(exc)) from None
        self.hand: HandState = build_hand(self.hs, self.state0)
        self.rules: TableRules = self.state0.rules
        self.game = str(self.hs["game"])
        self.n_seats = self.deal.n_seats
        self.everyone = self.deal.all_seats
        self.timeouts = list(self.state0.timeouts)
        self.auto = list(self.state0.auto)
        self.auto_turn: set[int] = set()
        self.stop: Stop | None = None
        self.lost: dict[int, tuple[str, int]] = {}   # seat → (why it is out, log index)
        self.gone: set[int] = set()     # seats nobody waits for (away past grace, stalled)
        self.bad_public: list[int] = []
        self._token = 0
        self._aud: tuple[int, list[frozenset[int]]] | None = None
        self._open_cache: tuple[tuple[int, int, int], list[int], list[int]] | None = None
        self._ent: tuple[int, list[int]] | None = None
        self._trial: tuple[Mapping[str, Any], HandState] | None = None

    # ------------------------------------------------------------------ views
    @property
    def hand_id(self) -> bytes:
        return self.deal.hand_id

    @property
    def stage(self) -> str:
        """commit | shuffle | lock | play | reveal | closed."""
        phase = self.deal.phase
        return "play" if phase == "deal" else phase

    @property
    def over(self) -> bool:
        """Play is over: the game ended the hand, or it stopped."""
        return self.hand.is_over or self.stop is not None

    def audience_all(self) -> list[frozenset[int]]:
        """audience(pos) for every position, recomputed only when something changed it."""
        if self._aud is None or self._aud[0] != self._token:
            hand = self.hand
            every = getattr(hand, "audiences", None)
            self._aud = (self._token, every() if every is not None else
                         [hand.audience(p) for p in range(len(hand.deck))])
        return self._aud[1]

    def audience(self, pos: int) -> frozenset[int]:
        return self.audience_all()[pos]

    def _entitled(self) -> list[int]:
        """Positions someone is entitled to now (the stock is nobody's), per audience."""
        if self._ent is None or self._ent[0] != self._token:
            self._ent = (self._token, [p for p, a in enumerate(self.audience_all()) if a])
        return self._ent[1]

    def _open(self) -> tuple[list[int], list[int]]:
        """(positions whose keys may still be owed, public positions not yet decoded), kept
        until a move changes the audience, a key is published or a card is decoded face up
        (nothing else changes them): what `due` and the move's gate look at, so a step costs
        what the few open positions cost, not the whole deck. Between two moves a position
        can only leave both lists (keys and faces are only ever added), so a release
        re-checks the open positions alone."""
        deal = self.deal
        key = (self._token, deal.keys_version, len(deal.public_cards))
        cache = self._open_cache
        if cache is not None and cache[0] == key:
            return cache[1], cache[2]
        everyone, public, published = self.everyone, deal.public_cards, deal.published
        n = self.n_seats
        owed: list[int] = []
        pending: list[int] = []
        audience = self.audience_all()
        open_before = cache[1] if cache is not None and cache[0][0] == self._token else None
        for p in open_before if open_before is not None else self._entitled():
            a = audience[p]
            if a == everyone:
                if p not in public:
                    pending.append(p)
                    owed.append(p)
            elif len(a) > 1 or len(published[p]) < n - 1:
                owed.append(p)
        self._open_cache = (key, owed, pending)
        return owed, pending

    def pending_public(self) -> list[int]:
        """Public positions whose card is not yet decoded (keys still on their way)."""
        return self._open()[1]

    def seeds_in(self) -> bool:
        """Play is over and every seed the hand needs is in: a seat gone (away past its
        grace, or stalled) owes none, any other must reveal or time out."""
        if self.deal.phase != "reveal":
            return False
        return all(self.due(s) != "reveal" or s in self.gone for s in range(self.n_seats))

    def keys_due(self, seat: int) -> tuple[list[tuple[int, list[int]]], dict[int, list[int]]]:
        return self.deal.keys_due(seat, self.audience, self._open()[0])

    def due(self, seat: int) -> str | None:
        """What `seat` owes now at this point of the log, or None: commit, shuffle, lock,
        release, sealed, move, reveal (the sign-off comes after the log)."""
        deal = self.deal
        phase = deal.phase
        if phase == "commit":
            return "commit" if seat not in deal.commitments else None
        if phase in ("shuffle", "lock"):
            return phase if deal.next_pass_seat == seat else None
        if phase == "reveal":
            if seat in deal.commitments and seat not in deal.seeds \
                    and seat not in deal.bad_reveals:
                return "reveal"
            return None
        if phase != "deal":
            return None
        public, sealed = self.keys_due(seat)
        if public:
            return "release"
        if sealed:
            return "sealed"
        if self.hand.to_move == seat and not self.pending_public() \
                and not self._keys_owed_to(seat):
            return "move"       # once its cards are unlocked (TABLE-1): not before
        return None

    def _keys_owed_to(self, seat: int) -> bool:
        """Another seat still owes keys of a position `seat` is entitled to."""
        for other in range(self.n_seats):
            if other != seat:
                public, sealed = self.keys_due(other)
                if seat in sealed or any(seat in aud for _, aud in public):
                    return True
        return False

    def bot_plays(self, seat: int) -> bool:
        """A bot plays `seat`'s moves now (TABLE-3: after a timeout this turn, or for good)."""
        return self.auto[seat] or seat in self.auto_turn

    # ------------------------------------------------------------------ judging
    def check(self, seat: int, msg: Mapping[str, Any]) -> None:
        """Raise TableError unless `msg` is a statement `seat` may make now; never changes
        anything. The same judgement serves the host (refuse), the seat (before signing, and
        to judge a refusal) and the auditor."""
        mtype = msg.get("type")
        if mtype not in SEAT_TYPES or mtype == "sign_off":
            raise TableError("table.wrong_phase", f"{mtype!r} is not a statement of the log")
        try:
            self.deal.check_chain(msg, seat)
        except DealError as exc:
            raise TableError.of(exc) from None
        self.check_content(seat, msg)

    def check_content(self, seat: int, msg: Mapping[str, Any]) -> None:
        """`check` for a statement whose place in its seat's chain is already checked."""
        mtype = msg.get("type")
        if mtype != "reveal" and self.over:
            raise TableError("table.stopped" if self.stop is not None else "table.wrong_phase",
                             "the hand is over: only seeds are taken now"
                             if self.stop is None else
                             f"the hand has stopped ({self.stop.kind}): only seeds are taken")
        if mtype == "action":
            self._check_action(seat, msg)
            return
        if mtype in ("release", "sealed") and self.stage != "play":
            raise TableError("table.wrong_phase", f"keys are released in play, not {self.stage}")
        try:
            self.deal.check_content(msg, self.audience)
        except DealError as exc:
            raise TableError.of(exc) from None

    def _check_action(self, seat: int, msg: Mapping[str, Any]) -> None:
        deal, hand = self.deal, self.hand
        if self.stage != "play":
            raise TableError("table.wrong_phase", f"no moves during {self.stage}")
        if hand.to_move != seat:
            raise TableError("table.not_your_turn",
                             f"it is seat {hand.to_move}'s turn" if hand.to_move is not None
                             else "the hand is over")
        waiting = self.pending_public()
        if waiting:
            raise TableError("table.wrong_phase",
                             f"public positions {waiting[:5]} are still being revealed")
        try:
            action = hand.action_from_wire(msg.get("action") or {})
        except ActionSyntaxError as exc:
            raise TableError("table.bad_action", str(exc)) from None
        hidden = [(p, c) for p, c in action.shown() if p not in deal.public_cards]
        claimed = list(zip(msg.get("positions") or [], msg.get("cards") or []))
        if claimed != hidden or len(msg.get("keys") or []) != len(claimed) \
                or len(msg.get("positions") or []) != len(msg.get("cards") or []):
            raise TableError("table.bad_action",
                             "the proofs must name exactly the hidden cards the action shows, "
                             f"in order: {hidden}")
        audience = self.audience_all()
        for pos, _ in hidden:
            if seat not in audience[pos]:
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
            try:
                deal.check_proofs(seat, msg["positions"], msg["cards"], msg["keys"])
            except DealError as exc:
                raise TableError.of(exc) from None
        self._trial = (msg, trial)

    def check_host(self, entry: Mapping[str, Any]) -> None:
        """Raise TableError (`table.bad_host_statement`) unless a host log entry is signed
        for this place of the log and true: a refusal of a statement `check` accepts, a
        timeout of a seat that owed nothing, a void with no cause are the host's lies."""
        try:
            self.deal.check_host_entry(entry)
        except DealError as exc:
            raise TableError("table.bad_host_statement", exc.message) from None
        mtype = entry["type"]
        if mtype == "refusal":
            inner, seat = entry["msg"], int(entry["seat"])
            if entry.get("logged") is not True:
                raise TableError("table.bad_host_statement", "a refusal in the log must be "
                                 "marked logged")
            try:
                self.check_content(seat, inner)
            except TableError:
                return
            raise TableError("table.bad_host_statement",
                             f"the host refused seat {seat}'s sound {inner.get('type')} "
                             f"({entry.get('code')}: {entry.get('message')})")
        if mtype == "timeout":
            seat, kind = int(entry["seat"]), entry.get("kind")
            owed = self.due(seat)
            if kind in ("turn", "match_clock"):
                ok = owed == "move" and not (kind == "turn" and self.bot_plays(seat))
            elif kind in ("step", "grace"):
                ok = owed is not None
            else:
                ok = False
            if not ok:
                raise TableError("table.bad_host_statement",
                                 f"a {kind!r} timeout of seat {seat}, which owed "
                                 f"{owed or 'nothing'} then")
            if entry.get("count") != self._timeout_count(seat, str(kind)):
                raise TableError("table.bad_host_statement",
                                 f"a timeout counting {entry.get('count')!r} turns in a row")
        if mtype == "hand_void" and not self.bad_public:
            raise TableError("table.bad_host_statement",
                             "a void with no public card that failed to decode")

    def _timeout_count(self, seat: int, kind: str) -> int:
        return self.timeouts[seat] + 1 if kind == "turn" else self.timeouts[seat]

    # ------------------------------------------------------------------ applying
    def apply(self, msg: Mapping[str, Any], entry_hash: bytes | None = None) -> int:
        """Record a checked seat statement; returns its log index."""
        deal = self.deal
        mtype = msg["type"]
        seat = int(msg["seat"])
        trial = self._trial
        self._trial = None
        if mtype == "action":
            hand = self.hand
            if trial is not None and trial[0] is msg:
                new_hand = trial[1]
            else:
                new_hand = hand.copy()
                new_hand.apply(seat, new_hand.action_from_wire(msg.get("action") or {}))
            index = deal.apply(msg, entry_hash)
            self.hand = new_hand
            self._token += 1
            if not self.bot_plays(seat):
                self.timeouts[seat] = 0
            if new_hand.to_move != seat:
                self.auto_turn.discard(seat)
            if new_hand.is_over:
                deal.begin_reveal()
            else:
                self._reveal_public()
            return index
        index = deal.apply(msg, entry_hash)
        if mtype == "release":
            self._reveal_public()
        elif mtype == "alarm":
            self._stop(Stop("alarm", seat, index, f"{msg.get('what')}: {msg.get('detail')}"))
        elif mtype == "abandon":
            self._abandon(seat)
        return index

    def apply_host(self, entry: Mapping[str, Any], entry_hash: bytes | None = None) -> int:
        """Record a host log entry (checked by `check_host`, or made by the host itself)."""
        index = self.deal.append_host_entry(entry, entry_hash)
        mtype = entry["type"]
        if mtype == "refusal":
            seat = int(entry["seat"])
            if entry.get("code") in M.VOIDING_CODES:
                self._stop(Stop("refusal", seat, index, str(entry.get("message"))))
            elif len(self.deal.refusals.get(seat, ())) > self.rules.max_refusals:
                self._stop(Stop("stall", seat, index,
                                f"more than {self.rules.max_refusals} refused statements "
                                "in one hand [TABLE-11]"))
        elif mtype == "timeout":
            self._timeout(index, int(entry["seat"]), str(entry["kind"]))
        elif mtype == "hand_void":
            self.stop = Stop("void", entry.get("seat"), index, str(entry.get("reason")))
        return index

    def _stop(self, stop: Stop) -> None:
        if self.stop is None:
            self.stop = stop
        if self.deal.phase not in ("reveal", "closed"):
            self.deal.begin_reveal()

    def _abandon(self, seat: int) -> None:
        """The seat's side loses (TABLE-9): the engine ends the hand its own way."""
        if not self.hand.is_over:
            self.hand.abandon(seat)
            self._token += 1
        if self.deal.phase not in ("reveal", "closed"):
            self.deal.begin_reveal()

    def _timeout(self, index: int, seat: int, kind: str) -> None:
        """What a timeout does, by our rules (TABLE-3..6); a seat it puts out of the hand is
        kept in `lost` with the reason, for the outcome."""
        if kind == "turn":
            self.timeouts[seat] += 1
            if self.game == "briscola":
                self._lose(seat, "timeout", index)                     # TABLE-4
            elif self.timeouts[seat] >= self.rules.max_timeouts:
                if self.rules.bots:
                    self.auto[seat] = True                             # TABLE-3
                else:
                    self._lose(seat, "timeout", index)                 # TABLE-3, 9
            else:
                self.auto_turn.add(seat)                               # TABLE-3
        elif kind in ("match_clock", "grace"):
            self._lose(seat, kind, index)                              # TABLE-2/4, 6
            if kind == "grace":
                self.gone.add(seat)
        elif kind == "step":
            self.lost.setdefault(seat, ("stall", index))
            self.gone.add(seat)
            self._stop(Stop("stall", seat, index, "a protocol step withheld past its "
                                                  "deadline [TABLE-5]"))
        self._token += 1

    def _lose(self, seat: int, why: str, index: int) -> None:
        self.lost.setdefault(seat, (why, index))
        self._abandon(seat)

    def _reveal_public(self) -> None:
        """Decode every public position whose keys are all out (every node at the same point
        of the log); one that is no card is kept in `bad_public` (the host voids the hand)."""
        deal, hand = self.deal, self.hand
        if deal.locked is None:
            return
        todo = [p for p in self.pending_public() if not deal.missing_keys(p)]
        if not todo:
            return
        for pos, card in sorted(deal.decode_public(todo).items()):
            if card is None:
                self.bad_public.append(pos)
                continue
            try:
                hand.learn(pos, card)
            except ValueError:
                self.bad_public.append(pos)
                continue
            deal.learn_public(pos, card)

    # ------------------------------------------------------------------ the host's side
    def receive(self, seat: int, msg: Mapping[str, Any], host_key: Any
                ) -> tuple[int | None, TableError | None, dict[str, Any] | None]:
        """The host's handling of one seat statement: (log index or None, the refusal,
        the signed refusal entry — appended to the log when the statement is validly
        placed in its chain)."""
        try:
            self.check(seat, msg)
        except TableError as exc:
            mtype = msg.get("type")
            logged = exc.code not in CHAIN_CODES and mtype in SEAT_TYPES and mtype != "sign_off"
            entry = self.deal.host_statement(host_key, "refusal", seat=seat, code=exc.code,
                                             message=exc.message, rule=exc.rule,
                                             msg=dict(msg), logged=bool(logged))
            if logged:
                self.apply_host(entry)
            return None, exc, entry
        return self.apply(msg), None, None

    def entry_hash(self, index: int) -> bytes:
        return self.deal.hashes[index]


def statement_hash(msg: Mapping[str, Any]) -> bytes:
    return signing.entry_hash(msg)
