"""An in-process table with a plain seeded deal, driving `SeatController`s directly:
`p2p-burraco play --offline` (no network, no fair-deal crypto) and the console's tests.

Every seat gets its own replica of the hand and learns only what the engine's `audience`
entitles it to, exactly as a networked peer does — so the console shows the same thing
offline as online. The master copy knows the whole deal; nobody reads it but the table.

Controllers may submit at once (bots) or later (the person): the table is a trampoline, so
a submit from inside `your_turn` never recurses into the next turn.
"""

from __future__ import annotations

import collections
import random
from collections.abc import Callable, Sequence

from ..controller import SeatController, Submit
from ..games.base import Action, HandState, RuleViolation, Seat, check_cards_conserved
from ..selfplay import SelfplayConfig, deal_known, make_match
from ..table.events import ActionPlayed, SeatEvent, SeatsChanged, StandingsChanged

MAX_REFUSALS = 50
"""A controller refused this many times in a row is a bug, not a person thinking."""


class LocalTable:
    """Plays a match among the given controllers in this process."""

    VERDICT = "not audited (offline deal, no cryptography)"

    def __init__(self, cfg: SelfplayConfig, controllers: Sequence[SeatController],
                 names: Sequence[str] | None = None, check: bool = True,
                 schedule: Callable[[Callable[[], None]], None] | None = None) -> None:
        self.cfg = cfg
        self.rng = random.Random(cfg.seed)
        self.match = make_match(cfg, self.rng)
        if len(controllers) != cfg.players:
            raise ValueError(f"{cfg.players} seats but {len(controllers)} controllers")
        self.controllers = list(controllers)
        self.names = list(names) if names else [f"seat {i}" for i in range(cfg.players)]
        self.check = check
        # how the next hand is started once one ends (the console waits a moment)
        self.schedule = schedule or (lambda fn: fn())
        self.master: HandState | None = None
        self.replicas: list[HandState] = []
        self.hands_played = 0
        self._pending: collections.deque[tuple[Seat, Action]] = collections.deque()
        self._waiting: Seat | None = None
        self._turn_id = 0
        self._driving = False
        self._refusals = 0
        self.actions: list[tuple[Seat, Action]] = []

    # ------------------------------------------------------------------ hands
    def start(self) -> None:
        self._broadcast(SeatsChanged(tuple(self.names)))
        self.start_hand()

    def start_hand(self) -> None:
        fresh = self.match.new_hand()
        self.replicas = [fresh.copy() for _ in range(self.cfg.players)]
        self.master = fresh
        deal_known(self.master, self.rng)
        self._sync_knowledge()
        self.actions.clear()
        self._waiting = None
        standings = self.match.standings()
        for seat, ctl in enumerate(self.controllers):
            ctl.notify(SeatsChanged(tuple(self.names), seat))
            ctl.notify(StandingsChanged(dict(standings)))
            ctl.hand_started(self.replicas[seat], seat)
        self._drive()

    def _end_hand(self) -> None:
        assert self.master is not None
        if self.check:
            check_cards_conserved(self.master)
        result = self.master.result()
        self.match.record(result)
        self.hands_played += 1
        self._sync_knowledge()
        standings = self.match.standings()
        for seat, ctl in enumerate(self.controllers):
            ctl.notify(StandingsChanged(dict(standings)))
            ctl.hand_ended(self.replicas[seat], result, self.VERDICT)
        if self.match.is_over or self.hands_played >= self.cfg.hands:
            final = self.match.standings()
            for ctl in self.controllers:
                ctl.match_ended(final)
            self.master = None
            return
        self.master = None
        self.schedule(self.start_hand)

    # ------------------------------------------------------------------ turns
    def _submitter(self, seat: Seat, turn_id: int) -> Submit:
        def submit(action: Action) -> None:
            if turn_id != self._turn_id or self._waiting != seat:
                raise RuntimeError(f"seat {seat} submitted outside its turn")
            self._waiting = None
            self._pending.append((seat, action))
            self._drive()
        return submit

    def _drive(self) -> None:
        """Apply queued submissions and ask the next seat, until someone must think."""
        if self._driving:
            return
        self._driving = True
        try:
            while self.master is not None:
                if self._pending:
                    seat, action = self._pending.popleft()
                    self._apply(seat, action)
                    continue
                if self.master.is_over:
                    self._end_hand()
                    if self.master is None:
                        break
                    continue
                if self._waiting is not None:
                    break
                mover = self.master.to_move
                assert mover is not None
                self._waiting = mover
                self._turn_id += 1
                self.controllers[mover].your_turn(self.replicas[mover], mover,
                                                  self._submitter(mover, self._turn_id))
        finally:
            self._driving = False

    def _apply(self, seat: Seat, action: Action) -> None:
        assert self.master is not None
        try:
            self.master.apply(seat, action)
        except RuleViolation as exc:
            self._refusals += 1
            if self._refusals > MAX_REFUSALS:
                raise RuntimeError(f"seat {seat} refused {MAX_REFUSALS} times: {exc}") from exc
            self.controllers[seat].rejected(self.replicas[seat], seat, str(exc))
            return
        self._refusals = 0
        for replica in self.replicas:
            replica.apply(seat, action)
        self._sync_knowledge()
        if self.check:
            check_cards_conserved(self.master)
        self.actions.append((seat, action))
        self._broadcast(ActionPlayed(seat, str(action)))

    def _sync_knowledge(self) -> None:
        """Teach each replica what it is now entitled to see (the fair-deal layer's job
        on a real table)."""
        master = self.master
        if master is None:
            return
        for pos in range(len(master.deck)):
            card = master.card_at(pos)
            if card is None:
                continue
            audience = master.audience(pos)
            for seat in audience:
                replica = self.replicas[seat]
                if replica.card_at(pos) is None:
                    replica.learn(pos, card)

    def _broadcast(self, event: SeatEvent) -> None:
        for ctl in self.controllers:
            ctl.notify(event)          # a frozen value: every controller may keep it
