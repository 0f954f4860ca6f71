"""`SeatClient`: one seat's peer logic, sans-IO.

It holds this seat's secrets — the seed of each hand (from an injected source, written out
by an optional hook BEFORE the commitment leaves) and the Ed25519 identity key — its replica
of the hand (its own cards become known as keys arrive), and the SeatController that decides
its moves (a bot at once, the console whenever the person has decided).

`receive(msg)` takes one message from the host and returns the messages to send back;
controller submissions that arrive later land in `outbox` (`take_outbox()`), and
`on_outbox` is called so the network layer knows to drain it.

Everything the seat sends follows from the log it has seen: what is due is recomputed from
the replica after every message (a commitment, its pass, the keys the public state entitles
others to, its seed at the end), so a restarted peer fed the same log — with the same seed —
sends only what is still missing. At most one signed message is in flight: the next one is
signed once the host has relayed the previous back (or refused it), so a refusal can
never break the seat's chain.

Reconnecting (the same SeatClient object across a dropped connection): feed the host's
answer to `resync` through `receive_all` — entries already seen are skipped — then re-send
`unacknowledged()` if it is not None: it was lost with the old connection, or the host holds
it (a commitment waits for the others). The host takes an exact copy of an entry it already
accepted as a no-op, so the re-send is safe either way.

Events for the controller besides the SeatController calls: `progress` while the opening
deal runs (commitments, shuffle passes, lock passes, this seat's cards unlocking),
`standings` at hand start (rebuilt from `hand_start.history`) and just before `hand_ended`,
`action` after every applied action of any seat, and `error` / `void` lines.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..controller import SeatController
from ..fairdeal import signing
from ..fairdeal.audit import Fault, Verdict
from ..fairdeal.group import BadPoint
from ..fairdeal.local import PROTOCOL_ID
from ..fairdeal.seat import SeatDealer
from ..games.base import Action, ActionSyntaxError, HandResult, HandState, RuleViolation
from . import messages as M
from .audit import audit_hand
from .replica import ReplicaError, build_hand, build_match, result_from_wire, void_result

DEAL_PHASES = ("commit", "shuffle", "lock", "deal")

SeedSource = Callable[[bytes, int], bytes]
"""(hand_id, seat) → a fresh 32-byte seed (os.urandom in real play)."""
SeedSink = Callable[[bytes, int, bytes], None]
"""(hand_id, seat, seed): persist the seed before the commitment is sent."""


def random_seed(hand_id: bytes, seat: int) -> bytes:
    return os.urandom(32)


class SeatClient:
    """The peer logic of one seat (see the module docstring)."""

    def __init__(self, seat: int, identity: Ed25519PrivateKey, controller: SeatController, *,
                 seed_source: SeedSource = random_seed, persist_seed: SeedSink | None = None,
                 audit: bool = True, max_rejections: int = 50,
                 on_outbox: Callable[[], None] | None = None) -> None:
        self.seat = seat
        self._identity = identity
        self.public_key = signing.public_key_bytes(identity)
        self.controller = controller
        self._seed_source = seed_source
        self._persist_seed = persist_seed
        self.audit = audit
        self.max_rejections = max_rejections
        self.on_outbox = on_outbox
        self.outbox: list[dict[str, Any]] = []
        self.hand_start: dict[str, Any] | None = None
        self.hand: HandState | None = None
        self._dealer: SeatDealer | None = None
        self.results: list[tuple[HandResult, Verdict]] = []
        self.standings: dict[str, Any] | None = None
        self.match_over = False
        self._reset_hand()
        self._pumping = False

    def _reset_hand(self) -> None:
        # messages sent and not yet answered, oldest first: [entry hash, message, stale]. The
        # host answers each in order — relayed back if accepted, an error if refused — so
        # an error always belongs to the oldest one. Stale: sent before a hand_void, moot.
        self._unresolved: deque[list[Any]] = deque()
        self._seen: set[bytes] = set()
        self._asked = False
        self._turn_token = 0
        self._pending: Action | None = None
        self._alarm: tuple[str, list[int], int | None, str] | None = None
        self._alarmed = False
        self._hand_end: dict[str, Any] | None = None
        self._signed_off = False
        self.verdict: Verdict | None = None
        self._aud_cache: tuple[int, list[frozenset[int]]] | None = None
        # the opening deal's progress: positions this seat is dealt or shown, last `done` told
        self._deal_positions: list[int] = []
        self._progress_done: int | None = None
        self._progress_over = False

    def _audience(self) -> list[frozenset[int]]:
        """audience(pos) for every position, recomputed only when an action changed it."""
        hand = self.hand
        assert hand is not None
        if self._aud_cache is None or self._aud_cache[0] != self._turn_token:
            self._aud_cache = (self._turn_token,
                               [hand.audience(p) for p in range(len(hand.deck))])
        return self._aud_cache[1]

    # ------------------------------------------------------------------ I/O surface
    def receive(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One message from the host; returns what to send back."""
        self._handle(msg)
        self._pump()
        return self.take_outbox()

    def receive_all(self, msgs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """A batch (e.g. a resync): everything is read before anything is sent."""
        for m in msgs:
            self._handle(m)
        self._pump()
        return self.take_outbox()

    def take_outbox(self) -> list[dict[str, Any]]:
        out, self.outbox = self.outbox, []
        return out

    def unacknowledged(self) -> dict[str, Any] | None:
        """The signed message in flight — sent, and neither relayed back nor refused by the
        host — or None. After a reconnect, call it once the resync answer has gone through
        `receive_all`, and send it again unless `receive_all` has just returned it (then it
        is new and goes out with the rest). Messages made moot by a hand_void are not
        returned: the host would only refuse them."""
        live: list[dict[str, Any]] = [u[1] for u in self._unresolved if not u[2]]
        return live[0] if live else None

    def _send(self, msg: dict[str, Any]) -> None:
        self._unresolved.append([signing.entry_hash(msg), msg, False])
        self.outbox.append(msg)

    # ------------------------------------------------------------------ incoming
    def _handle(self, msg: Mapping[str, Any]) -> None:
        mtype = msg.get("type")
        if mtype == "hand_start":
            self._on_hand_start(msg)
        elif mtype == "error":
            self._on_error(msg)
        elif self.hand_start is None or msg.get("hand_id") != self.hand_start["hand_id"]:
            return  # another hand's message (late, or before we joined): not ours to judge
        elif mtype == "hand_end":
            self._on_hand_end(msg)
        elif mtype == "hand_void" or mtype in M.SEAT_AUTHORED:
            self._on_entry(msg)

    def _on_hand_start(self, hs: Mapping[str, Any]) -> None:
        if self.hand_start is not None and hs.get("hand_id") == self.hand_start["hand_id"]:
            return  # a resync repeats it
        keys = hs.get("seat_keys") or []
        if hs.get("protocol") != PROTOCOL_ID:
            self._notify("error", f"the host speaks {hs.get('protocol')!r}, not {PROTOCOL_ID}")
            return
        if self.seat >= len(keys) or keys[self.seat] != self.public_key:
            self._notify("error", f"hand_start does not name this identity at seat {self.seat}")
            return
        try:
            match = build_match(hs)
            standings = dict(match.standings())   # before new_hand: the match so far
            hand = build_hand(hs, match)
        except ReplicaError as exc:
            self._notify("error", f"cannot rebuild the hand: {exc}")
            return
        hand_id = hs["hand_id"]
        seed = self._seed_source(hand_id, self.seat)
        if self._persist_seed is not None:
            self._persist_seed(hand_id, self.seat, seed)   # before the commitment leaves
        self.hand_start = dict(hs)
        self.hand = hand
        self._dealer = SeatDealer(self.seat, self._identity, seed, self.hand_start)
        self._reset_hand()
        self._seen.add(signing.entry_hash(hs))
        self.standings = standings
        self.controller.notify({"type": "standings", **standings})
        self.controller.hand_started(hand, self.seat)
        audience = self._audience()
        self._deal_positions = [p for p in range(len(hand.deck)) if self.seat in audience[p]]
        self._report_progress()

    def _on_entry(self, msg: Mapping[str, Any]) -> None:
        dealer, hand = self._dealer, self.hand
        assert dealer is not None and hand is not None
        h = signing.entry_hash(msg)
        if h in self._seen:
            return
        self._seen.add(h)
        if any(u[0] == h for u in self._unresolved):
            while self._unresolved and self._unresolved.popleft()[0] != h:
                pass
        msg = dict(msg)
        if hand.is_over and dealer.deal.phase == "deal":
            dealer.deal.begin_reveal()
        index = dealer.receive(msg, self._audience().__getitem__ if not hand.is_over else None,
                               entry_hash=h)
        mtype = msg["type"]
        if mtype == "hand_void":
            for u in self._unresolved:
                u[2] = True           # the host refuses them now: nothing waits on them
            self._notify("void", f"the hand is void: {msg.get('reason')} {msg.get('detail')}")
            self._report_progress()
            return
        if mtype == "action":
            self._apply_action(index, msg)
        elif mtype in ("release", "sealed") or mtype == "lock" and dealer.deal.phase == "deal":
            self._decode()
        if dealer.problems and self._alarm is None:
            what, positions, ref, detail = dealer.problems[0]
            self._alarm = (what, positions, ref, detail)
        self._report_progress()

    def _report_progress(self) -> None:
        """Tell the controller how far the opening deal has got, once per step: every
        commitment, each shuffle and lock pass, each of this seat's cards (and the face-up
        ones) unlocked. Ends with done == total when the seat can play, or the deal stops."""
        dealer, hand = self._dealer, self.hand
        if self._progress_over or dealer is None or hand is None:
            return
        deal = dealer.deal
        n = deal.n_seats
        mine = self._deal_positions
        total = 3 * n + len(mine)
        passes = len(deal.pass_entries)
        if deal.phase not in DEAL_PHASES or hand.is_over:
            done, text = total, "the deal stopped"
        elif deal.phase == "commit":
            done, text = len(deal.commitments), "fair deal: every seat commits to its seed"
        elif deal.phase == "shuffle":
            done, text = n + passes, f"fair deal: shuffle pass {passes + 1}/{n}"
        elif deal.phase == "lock":
            done, text = n + passes, f"fair deal: lock pass {passes - n + 1}/{n}"
        else:
            known = sum(1 for p in mine if hand.card_at(p) is not None)
            done, text = 3 * n + known, f"fair deal: unlocking your cards {known}/{len(mine)}"
        if done == self._progress_done:
            return
        self._progress_done = done
        self._progress_over = done >= total
        self.controller.notify({"type": "progress", "text": text, "done": done,
                                "total": total})

    def _apply_action(self, index: int, msg: Mapping[str, Any]) -> None:
        hand, dealer = self.hand, self._dealer
        assert hand is not None and dealer is not None
        author = msg["seat"]
        try:
            action = hand.action_from_wire(msg.get("action") or {})
            hand.apply(author, action)
        except (RuleViolation, ActionSyntaxError, ValueError, LookupError) as exc:
            self._raise_alarm("illegal_action", [], index,
                              f"the host relayed an action the rules refuse: {exc}")
            return
        for pos, card in zip(msg["positions"], msg["cards"]):
            dealer.learn_public(pos, card)
        self._turn_token += 1
        self._asked = False
        self._pending = None
        self.controller.notify({"type": "action", "seat": author, "action": str(action),
                                "wire": msg.get("action")})
        if not hand.is_over:
            self._decode()

    def _decode(self) -> None:
        """Decode every position this seat may now know: its own as their keys arrive, and
        each public one once every seat's key of it is out (a public card this seat held
        already is decoded too, as a check of the others' keys)."""
        hand, dealer = self.hand, self._dealer
        assert hand is not None and dealer is not None
        deal = dealer.deal
        if deal.locked is None or hand.is_over:
            return
        everyone = deal.all_seats
        mine: list[int] = []
        public: list[int] = []
        audience = self._audience()
        for pos in range(deal.n_cards):
            aud = audience[pos]
            if aud == everyone:
                if pos not in deal.public_cards and not deal.missing_keys(pos):
                    public.append(pos)
            elif self.seat in aud and hand.card_at(pos) is None:
                mine.append(pos)
        found, bad = dealer.decode(mine)
        for pos, card in deal.decode_public(public).items():
            if card is None or hand.card_at(pos) not in (None, card):
                bad.append(pos)
            else:
                found[pos] = card
                deal.learn_public(pos, card)
                dealer.learn_public(pos, card)
        for pos, card in sorted(found.items()):
            try:
                hand.learn(pos, card)
            except ValueError:
                bad.append(pos)
        if bad:
            self._raise_alarm("no_card", sorted(bad), None,
                              f"positions {sorted(bad)} decode to no card of this deck, or to "
                              "a card already seen elsewhere")

    def _raise_alarm(self, what: str, positions: list[int], ref: int | None,
                     detail: str) -> None:
        if self._alarm is None:
            self._alarm = (what, positions, ref, detail)

    def _on_hand_end(self, msg: Mapping[str, Any]) -> None:
        dealer, hand = self._dealer, self.hand
        assert dealer is not None and hand is not None and self.hand_start is not None
        if self._hand_end is not None:
            return
        self._hand_end = dict(msg)
        deal = dealer.deal
        if msg.get("transcript_hash") != deal.head:
            self._notify("error", "the host closed the hand on a history other than ours")
        if self.audit:
            report = audit_hand(deal.log)
            verdict = report.verdict
            result = report.result or void_result(build_match(self.hand_start), "unaudited")
            if verdict.fair and report.final is not None and report.final.is_over \
                    and verdict.deal is not None:
                for pos, card in enumerate(verdict.deal):
                    if hand.card_at(pos) is None:
                        hand.learn(pos, card)
        else:
            verdict = Verdict.from_wire(msg.get("verdict") or {})
            result = result_from_wire(msg["result"])
        if result.to_wire() != msg.get("result"):
            self._notify("error", "the host's score of this hand differs from ours")
        host_verdict = Verdict.from_wire(msg.get("verdict") or {})
        if host_verdict.fair != verdict.fair:
            verdict.faults.append(Fault(None, "verdict_differs", None,
                                        f"the host said {host_verdict}"))
        self.verdict = verdict
        self.results.append((result, verdict))
        self.standings = dict(msg.get("standings") or {})
        self.controller.notify({"type": "standings", **self.standings})
        self.controller.hand_ended(hand, result, str(verdict))
        if msg.get("match_over"):
            self.match_over = True

    def _on_error(self, msg: Mapping[str, Any]) -> None:
        text = f"{msg.get('code')}: {msg.get('message')}"
        if msg.get("rule"):
            text += f" [{msg['rule']}]"
        refused = self._unresolved.popleft() if self._unresolved else None
        if refused is not None and not refused[2] and refused[1].get("type") == "action" \
                and self.hand is not None:
            self._asked = False
            self.controller.rejected(self.hand, self.seat, text)
            return
        self._notify("error", text)

    def _notify(self, kind: str, text: str) -> None:
        self.controller.notify({"type": kind, "text": text})

    # ------------------------------------------------------------------ what is due
    def _busy(self) -> bool:
        """A live message is awaiting the host's answer (at most one is in flight)."""
        return any(not u[2] for u in self._unresolved)

    def _pump(self) -> None:
        if self._pumping:
            return
        self._pumping = True
        try:
            while not self._busy():
                msg = self._next_message()
                if msg is None:
                    break
                self._send(msg)
        finally:
            self._pumping = False

    def _next_message(self) -> dict[str, Any] | None:
        dealer, hand = self._dealer, self.hand
        if dealer is None or hand is None:
            return None
        deal = dealer.deal
        if self._hand_end is not None:
            if not self._signed_off:
                self._signed_off = True
                if self.match_over:
                    self.controller.match_ended(self.standings or {})
                return dealer.make_sign_off(deal.head)
            return None
        if hand.is_over and deal.phase in ("deal", "shuffle", "lock"):
            deal.begin_reveal()
        if deal.phase == "reveal":
            if self.seat in deal.commitments and self.seat not in deal.seeds \
                    and self.seat not in deal.bad_reveals:
                return dealer.make_reveal()
            return None
        if self._alarm is not None and not self._alarmed \
                and deal.phase in ("shuffle", "lock", "deal"):
            self._alarmed = True
            what, positions, ref, detail = self._alarm
            return dealer.make_alarm(what, positions, ref, detail)
        if self._alarmed:
            return None
        if deal.phase == "commit":
            return dealer.make_commit() if self.seat not in deal.commitments else None
        if deal.phase in ("shuffle", "lock"):
            if not dealer.pass_due():
                return None
            try:
                return dealer.make_pass()
            except BadPoint as exc:
                ref = deal.pass_entries[-1] if deal.pass_entries else None
                self._alarmed = True
                return dealer.make_alarm("bad_point", list(exc.indices), ref,
                                         f"the deck I received holds no valid group element at "
                                         f"positions {list(exc.indices)[:6]}")
        if deal.phase != "deal":
            return None
        public, sealed = dealer.releases_due(self._audience().__getitem__)
        if public:
            return dealer.make_release(public)
        for to, positions in sorted(sealed.items()):
            return dealer.make_sealed(to, positions)
        if hand.to_move != self.seat or not self._ready():
            return None
        if self._pending is not None:
            action, self._pending = self._pending, None
            return self._action_message(action)
        attempts = 0
        while not self._asked:
            attempts += 1
            if attempts > self.max_rejections:   # a bot that never finds a legal move
                raise RuntimeError(f"seat {self.seat}'s controller was refused "
                                   f"{self.max_rejections} times in a row")
            self._asked = True
            self.controller.your_turn(hand, self.seat, self._submitter(self._turn_token))
            if self._pending is not None:
                action, self._pending = self._pending, None
                return self._action_message(action)
            # still asked: the controller answers later; not asked: it was refused at once
        return None

    def _ready(self) -> bool:
        """Every position this seat is entitled to is known to it (keys have arrived)."""
        hand, dealer = self.hand, self._dealer
        assert hand is not None and dealer is not None
        audience = self._audience()
        for pos in range(len(hand.deck)):
            if hand.card_at(pos) is None and self.seat in audience[pos]:
                return False
        return True

    def _submitter(self, token: int) -> Callable[[Action], None]:
        """The `submit` callback of one turn (a stale one is refused as too late)."""
        def submit(action: Action) -> None:
            self._submit(token, action)
        return submit

    def _submit(self, token: int, action: Action) -> None:
        """The controller's decision (now or later): checked here against the replica so an
        honest seat never has a move refused (and never shows a key for nothing)."""
        hand = self.hand
        if hand is None or token != self._turn_token or hand.to_move != self.seat \
                or self._hand_end is not None:
            if hand is not None:
                self.controller.rejected(hand, self.seat, "too late: that turn is over")
            return
        trial = hand.copy()
        try:
            trial.apply(self.seat, action)
        except RuleViolation as exc:
            self._asked = False
            self.controller.rejected(hand, self.seat, f"{exc.message} [{exc.rule_id}]")
        except (ActionSyntaxError, ValueError, LookupError) as exc:
            self._asked = False
            self.controller.rejected(hand, self.seat, str(exc))
        else:
            self._pending = action
        if not self._pumping:
            self._pump()
            if self.outbox and self.on_outbox is not None:
                self.on_outbox()

    def _action_message(self, action: Action) -> dict[str, Any]:
        dealer = self._dealer
        assert dealer is not None
        deal = dealer.deal
        hidden = [(p, c) for p, c in action.shown() if p not in deal.public_cards]
        return dealer.make_action(action.to_wire(), hidden)
