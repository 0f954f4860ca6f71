"""The rules of our own that the table enforces around the game's rules (seeds/table.md).

The seeds say what a card game is; they do not say what happens when a player's clock runs
out at a networked table, when a client cheats, or when a hand cannot be finished. These
are ours, each with an id (TABLE-n). They are carried, host-signed, in every `hand_start`
(`clock`), so every peer and every auditor applies exactly the rules the host applied.

- TABLE-1  each move has a clock (`turn_ms`); TABLE-2 each seat a match clock (`match_ms`).
- TABLE-3  Burraco: a move whose clock runs out is played by a bot for the seat (its own
           peer's, which holds its cards) for the rest of that turn; `max_timeouts` turns in a
           row and the seat is abandoned: its peer's bot plays on if `bots` allows, else its
           side loses by abandonment (TABLE-9).
- TABLE-4  Briscola: a move or match clock that runs out loses the match (BRISCOLA-24/26).
- TABLE-5  a protocol step a connected seat owes (commit, pass, keys, seed, the bot's move
           after a timeout) must come within `step_ms`, else the seat stalls: TABLE-7.
- TABLE-6  a seat that drops keeps its seat for `grace_ms`; past it, it has abandoned (TABLE-9),
           or a host bot takes the seat where the table allows bots (TABLE-14).
- TABLE-7  a fault proven against a seat (its own signed statement shows it: a wrong pass,
           key, seed, proof or point, a false alarm, a stall) loses its side the match by
           forfeit, with the evidence in the record.
- TABLE-8  a hand stopped with nobody proven at fault is void (scores nothing, the same dealer
           deals again); at most `max_voids` per match, the next one ends it as unplayable.
- TABLE-9  abandonment (`abandon` / `abbandona`, or TABLE-3/4/6) loses the side the match.
- TABLE-10 a false host statement (a refusal of a sound statement, a timeout of a seat that
           owed nothing, a result or state other than the log's) ends the match for every
           honest peer as the host's fault, with the statement as evidence.
- TABLE-11 more than `max_refusals` refused statements from one seat in one hand is a stall.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_TURN_S = {"burraco": 90, "briscola": 30}
"""TABLE-1: per-move clocks that suit people."""
DEFAULT_STEP_S = 30
"""TABLE-5: a protocol step is automatic; 30 s covers a slow machine and a busy host."""
DEFAULT_GRACE_S = 120
"""TABLE-6: long enough for a laptop lid or a Wi-Fi hiccup."""


@dataclass(frozen=True)
class TableRules:
    """The clocks and limits of one match (all times in milliseconds; None = off)."""

    turn_ms: int | None = None
    match_ms: int | None = None
    step_ms: int = DEFAULT_STEP_S * 1000
    grace_ms: int = DEFAULT_GRACE_S * 1000
    max_timeouts: int = 3
    bots: bool = True
    max_voids: int = 3
    max_refusals: int = 16

    def __post_init__(self) -> None:
        for name in ("turn_ms", "match_ms"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or v < 1):
                raise ValueError(f"{name} must be a positive number of milliseconds or off")
        for name in ("step_ms", "grace_ms", "max_timeouts", "max_voids", "max_refusals"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < (0 if name == "grace_ms"
                                                                     else 1):
                raise ValueError(f"{name} must be a positive whole number")

    @classmethod
    def for_game(cls, game: str, *, turn_s: float | None = None, match_min: float | None = None,
                 step_s: float | None = None, grace_s: float | None = None,
                 max_timeouts: int = 3, bots: bool = True) -> TableRules:
        """The rules `host` builds from its options (defaults per game where it matters)."""
        turn = DEFAULT_TURN_S.get(game, 60) if turn_s is None else turn_s
        return cls(turn_ms=int(turn * 1000) if turn else None,
                   match_ms=int(match_min * 60_000) if match_min else None,
                   step_ms=int((DEFAULT_STEP_S if step_s is None else step_s) * 1000),
                   grace_ms=int((DEFAULT_GRACE_S if grace_s is None else grace_s) * 1000),
                   max_timeouts=max_timeouts, bots=bots)

    def to_wire(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_wire(cls, d: Mapping[str, Any]) -> TableRules:
        """The rules a `hand_start.clock` names; ValueError if it is not one."""
        known = set(cls.__dataclass_fields__)
        extra = set(d) - known
        if extra:
            raise ValueError(f"unknown table rules {sorted(extra)}")
        try:
            return cls(**{k: d[k] for k in known if k in d})
        except TypeError as exc:
            raise ValueError(f"bad table rules: {exc}") from None
