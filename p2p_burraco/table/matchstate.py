"""`MatchState`: a match as a fold over its hands' outcomes — the engine's match plus the
state of our own table rules (voids, timeouts in a row, seats a bot plays for, clocks).

Every node keeps one. The host deals each hand from it and puts its snapshot in the signed
`hand_start` (`state`); every peer folds the outcomes it computed itself (never a field only
the host asserts) and compares; an auditor folds a whole match's hands and compares with
the host's final word. The snapshot has a constant size, so a hand at 400 costs what hand 1
costs. Time is the host's to measure: `clock_used` is the one part a peer cannot recompute,
and the one part it does not compare (`comparable`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..games import get_game
from ..games.base import HandResult, HandState, Match
from .rules import TableRules

HOST_ONLY = ("clock_used",)
"""Snapshot keys only the host can know (its clock); peers do not compare them."""


class MatchStateError(ValueError):
    """A snapshot or outcome that does not fit this match."""


class MatchState:
    """See the module docstring. `end` is set when our rules end the match (unplayable after
    too many voids, or a host proven at fault); the engine's match ends it otherwise."""

    def __init__(self, game: str, variant: str, n_seats: int, first_dealer: int,
                 options: Mapping[str, Any], rules: TableRules,
                 snapshot: Mapping[str, Any] | None = None) -> None:
        spec = get_game(game)
        if variant not in spec.presets:
            raise MatchStateError(f"unknown {game} variant {variant!r}")
        self.game = game
        self.variant = variant
        self.n_seats = n_seats
        self.first_dealer = first_dealer
        self.options: dict[str, Any] = dict(options)
        self.rules = rules
        preset = spec.presets[variant]
        try:
            if snapshot is None or snapshot.get("match") is None:
                self.match: Match = spec.new_match(preset, n_seats, first_dealer=first_dealer,
                                                   **self.options)
            else:
                self.match = spec.restore_match(preset, n_seats, snapshot["match"],
                                                first_dealer=first_dealer, **self.options)
        except (TypeError, ValueError, KeyError) as exc:
            raise MatchStateError(f"cannot rebuild the match: {exc}") from None
        snap = dict(snapshot or {})
        try:
            self.voids = int(snap.get("voids", 0))
            self.timeouts = [int(x) for x in snap.get("timeouts", [0] * n_seats)]
            self.auto = [bool(x) for x in snap.get("auto", [False] * n_seats)]
            self.clock_used = [int(x) for x in snap.get("clock_used", [0] * n_seats)]
            end = snap.get("end")
            self.end: dict[str, Any] | None = dict(end) if isinstance(end, Mapping) else None
        except (TypeError, ValueError) as exc:
            raise MatchStateError(f"a malformed match state: {exc}") from None
        if not (len(self.timeouts) == len(self.auto) == len(self.clock_used) == n_seats):
            raise MatchStateError("a match state needs one entry per seat")

    @classmethod
    def of_hand_start(cls, hs: Mapping[str, Any]) -> MatchState:
        """The match as it stood before the hand a `hand_start` opens."""
        try:
            rules = TableRules.from_wire(hs.get("clock") or {})
            return cls(str(hs["game"]), str(hs["variant"]), int(hs["n_seats"]),
                       int(hs["first_dealer"]), dict(hs.get("options") or {}), rules,
                       dict(hs.get("state") or {}))
        except (KeyError, TypeError, ValueError) as exc:
            raise MatchStateError(f"cannot rebuild the match of this hand: {exc}") from None

    # ------------------------------------------------------------------ snapshots
    def snapshot(self) -> dict[str, Any]:
        """Everything needed to continue the match (msgpack-safe, constant size)."""
        return {"match": self.match.snapshot(), "voids": self.voids,
                "timeouts": list(self.timeouts), "auto": list(self.auto),
                "clock_used": list(self.clock_used),
                "end": dict(self.end) if self.end is not None else None}

    @staticmethod
    def comparable(snapshot: Mapping[str, Any]) -> dict[str, Any]:
        """The part of a snapshot a peer recomputes itself (the host's clock left out)."""
        return {k: v for k, v in snapshot.items() if k not in HOST_ONLY}

    def copy(self) -> MatchState:
        """An independent copy, through the snapshot: constant cost whatever the match's
        length (a deep copy would drag the engine's in-memory history along)."""
        return MatchState(self.game, self.variant, self.n_seats, self.first_dealer,
                          self.options, self.rules, self.snapshot())

    # ------------------------------------------------------------------ the fold
    @property
    def is_over(self) -> bool:
        return self.end is not None or self.match.is_over

    def record(self, result: HandResult, *, void: bool = False,
               end: Mapping[str, Any] | None = None) -> None:
        """Fold one hand's outcome in: its result (a void one scores nothing and counts
        toward TABLE-8), or an end of our rules (TABLE-10)."""
        if self.is_over:
            raise MatchStateError("the match is over")
        if end is not None:
            self.end = dict(end)
            return
        if void:
            self.voids += 1
            if self.voids > self.rules.max_voids:
                self.end = {"reason": "unplayable",
                            "detail": f"more than {self.rules.max_voids} void hands [TABLE-8]"}
                return
        self.match.record(result)

    def set_hand_state(self, timeouts: Sequence[int], auto: Sequence[bool],
                       clock_used: Sequence[int]) -> None:
        """Take over what a hand changed in our rules' state (TABLE-1..3)."""
        self.timeouts = [int(x) for x in timeouts]
        self.auto = [bool(x) for x in auto]
        self.clock_used = [int(x) for x in clock_used]

    def standings(self) -> dict[str, Any]:
        """The engine's standings, with our rules' ending when there is one."""
        out = dict(self.match.standings())
        out["voids"] = self.voids
        if self.end is not None:
            out["over"] = True
            out["winner"] = None
            out["decided_by"] = self.end.get("reason")
            out["end"] = dict(self.end)
        return out

    def new_hand(self) -> HandState:
        return self.match.new_hand()
