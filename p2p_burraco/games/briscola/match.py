"""A Briscola match (partita): smazzate in a row, the dealer moving on, and who won.

Two kinds [BRISCOLA-19, BRISCOLA-20]:

- **a punti**: card points add up over at most `hands` smazzate (default 1). A side reaching
  `target` (default 60 × hands + 1, "more than half of all points") wins at once; after the
  last smazzata the higher total wins; level totals are a tie. Without a hand cap (a target
  given alone) play goes on until a side reaches the target, and totals level one short of
  it (60-60 against 61) are a tie.
- **a smazzate**: best of an odd `hands`; a smazzata is won with 61 points, a 60-60
  smazzata counts for nobody; the match stops once the leader cannot be caught.

A tie with `knockout` set goes to play-off smazzate, each won by the side with more points,
at most three; if the third is level as well, the side that took its last trick loses
[BRISCOLA-22, BRISCOLA-23]. An abandon ends the match at once, lost by the quitter
[BRISCOLA-24].
"""

from __future__ import annotations

from typing import Any

from ..base import HandResult, WireValue
from .faces import TOTAL_POINTS, WINNING_POINTS
from .rules import MAX_PLAYOFFS, RuleSet, check_match_shape
from .state import BriscolaHand, side_of, sides_of
from .tournament import forfeit_victory_points, victory_points


class BriscolaMatch:
    """Satisfies `games.base.Match`."""

    def __init__(self, rules: RuleSet, n_seats: int, *, first_dealer: int,
                 target: int | None = None, match_kind: str | None = None,
                 hands: int | None = None, knockout: bool | None = None) -> None:
        if n_seats not in rules.seat_counts:
            raise ValueError(f"rule set {rules.name!r} is played by "
                             f"{' or '.join(map(str, rules.seat_counts))}, not {n_seats} "
                             f"[{'BRISCOLA-29' if rules.carte_scoperte else 'BRISCOLA-5'}]")
        if not 0 <= first_dealer < n_seats:
            raise ValueError(f"no seat {first_dealer} to deal at a table of {n_seats}")
        kind = match_kind or rules.match_kind
        same_kind = kind == rules.match_kind
        if kind == "smazzate":
            if hands is None:
                hands = rules.hands if same_kind else 3
        elif hands is None and target is None:
            hands = rules.hands if same_kind else 1
            target = rules.target if same_kind else None
        if kind == "punti" and target is None:
            assert hands is not None
            target = (TOTAL_POINTS // 2) * hands + 1
        check_match_shape(kind, hands, target)
        self.rules = rules
        self.n_seats = n_seats
        self.kind = kind
        self.hands_cap = hands          # None: a punti match played until the target
        self.target = target            # None for a smazzate match
        self.knockout = rules.knockout if knockout is None else knockout
        self.sides = sides_of(n_seats)
        self.first_dealer = first_dealer
        self._dealer = first_dealer
        self.points = [0, 0]            # card points of the regular smazzate
        self.wins = [0, 0]              # smazzate won
        self.ties = 0
        self.regular_hands = 0
        self.playoffs: list[tuple[int, int]] = []
        self.results: list[HandResult] = []
        self.winner: int | None = None
        self.decided_by: str | None = None
        self.abandoned_by: int | None = None
        self._over = False
        self._in_playoff = False

    # --- dealing -------------------------------------------------------------------------
    @property
    def next_dealer(self) -> int:
        """Who deals the next smazzata — also the first dealer of a following match between
        the same players, since the turn to deal keeps moving on [BRISCOLA-8]."""
        return self._dealer

    def deck_size(self) -> int:
        return 40

    def new_hand(self) -> BriscolaHand:
        """The next smazzata, dealt by the public schedule, with nothing known yet."""
        if self._over:
            raise ValueError("the match is over")
        return BriscolaHand(self.rules, self.n_seats, self._dealer, stop_at=self._stop_at())

    def _stop_at(self) -> tuple[int, int]:
        """Hand points at which a side's trick ends the smazzata under vinco subito: what
        decides it — 61, or what the side still needs for the match target [BRISCOLA-21]."""
        if self.kind == "punti" and not self._in_playoff and self.target is not None:
            return (max(1, self.target - self.points[0]), max(1, self.target - self.points[1]))
        return (WINNING_POINTS, WINNING_POINTS)

    # --- results -------------------------------------------------------------------------
    def record(self, result: HandResult) -> None:
        """Count a finished smazzata; the next one is dealt by the seat after this dealer."""
        if self._over:
            raise ValueError("the match is over: no more smazzate to record")
        if tuple(map(tuple, result.sides)) != self.sides or len(result.points) != 2:
            raise ValueError(f"a result for sides {result.sides}, not this table's {self.sides}")
        if result.reason == "void":
            return  # a voided deal is dealt again by the same dealer
        self.results.append(result)
        self._dealer = (self._dealer + 1) % self.n_seats  # [BRISCOLA-8]
        pts = (int(result.points[0]), int(result.points[1]))
        quitter = result.extra.get("abandoned_by")
        if quitter is not None:
            self._record_abandon(int(quitter), pts)
        elif self._in_playoff:
            self._record_playoff(result, pts)
        else:
            self._record_regular(pts)

    def _record_abandon(self, quitter_seat: int, pts: tuple[int, int]) -> None:
        quitter = side_of(quitter_seat)
        other = 1 - quitter
        if self._in_playoff:
            self.playoffs.append(pts)
        else:
            self.regular_hands += 1
            self.points = [self.points[0] + pts[0], self.points[1] + pts[1]]
            # Over the whole match too, a lead left to the quitter counts as none.
            self.points[quitter] = min(self.points[quitter], self.points[other])
        self.abandoned_by = quitter_seat
        self._finish(other, "abandon")

    def _record_regular(self, pts: tuple[int, int]) -> None:
        self.regular_hands += 1
        self.points = [self.points[0] + pts[0], self.points[1] + pts[1]]
        if pts[0] == pts[1]:
            self.ties += 1
        else:
            self.wins[0 if pts[0] > pts[1] else 1] += 1
        if self.kind == "punti":
            over = self._punti_over()
            totals = self.points
        else:
            assert self.hands_cap is not None
            remaining = self.hands_cap - self.regular_hands
            over = abs(self.wins[0] - self.wins[1]) > remaining or remaining <= 0
            totals = self.wins
        if not over:
            return
        if totals[0] != totals[1]:
            self._finish(0 if totals[0] > totals[1] else 1, self.kind)
        elif self.knockout:
            self._in_playoff = True  # [BRISCOLA-22]
        else:
            self._finish(None, "tie")

    def _punti_over(self) -> bool:
        assert self.target is not None
        if max(self.points) >= self.target:
            return True
        if self.hands_cap is not None:
            return self.regular_hands >= self.hands_cap
        return self.points[0] == self.points[1] == self.target - 1

    def _record_playoff(self, result: HandResult, pts: tuple[int, int]) -> None:
        self.playoffs.append(pts)
        n = len(self.playoffs)
        if pts[0] != pts[1]:
            self._finish(0 if pts[0] > pts[1] else 1, f"play-off {n}")  # [BRISCOLA-22]
        elif n >= MAX_PLAYOFFS:
            last_by = result.extra.get("last_trick_by")
            if last_by is None:
                raise ValueError("a tied third play-off needs the seat that took its last trick")
            # The side that took the last trick of the third play-off loses [BRISCOLA-23].
            self._finish(1 - side_of(int(last_by)), "last trick of play-off 3")

    def _finish(self, winner: int | None, how: str) -> None:
        self.winner = winner
        self.decided_by = how
        self._over = True

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def in_playoff(self) -> bool:
        return self._in_playoff and not self._over

    def victory_points(self) -> dict[str, Any] | None:
        """Tournament VP and MP of a finished meeting of 1-3 smazzate [BRISCOLA-25/26]."""
        if not self._over or not 1 <= self.regular_hands <= 3:
            return None
        diff = self.points[0] - self.points[1]
        if self.abandoned_by is not None:
            w = 1 - side_of(self.abandoned_by)
            f = forfeit_victory_points(self.points[w] - self.points[1 - w], self.regular_hands)
            vp = [0, 0]
            mp = [0, 0]
            vp[w], vp[1 - w] = f["vp"]
            mp[w], mp[1 - w] = f["mp"]
            return {"vp": vp, "mp": mp}
        a, b = victory_points(diff, self.regular_hands)
        return {"vp": [a, b], "mp": [diff, -diff]}

    def standings(self) -> dict[str, WireValue]:
        smazzate = self.kind == "smazzate"
        vp = self.victory_points()
        return {
            "sides": [list(s) for s in self.sides],
            "totals": list(self.wins if smazzate else self.points),
            "target": (self.hands_cap // 2 + 1 if smazzate and self.hands_cap else self.target),
            "hands": len(self.results),
            "over": self._over,
            "winner": self.winner,
            "match_kind": self.kind,
            "smazzate": self.hands_cap,
            "points": list(self.points),
            "hands_won": list(self.wins),
            "ties": self.ties,
            "knockout": self.knockout,
            "playoffs": [list(p) for p in self.playoffs],
            "decided_by": self.decided_by,
            "abandoned_by": self.abandoned_by,
            "next_dealer": self._dealer,
            "victory_points": None if vp is None else vp["vp"],
            "match_points": None if vp is None else vp["mp"],
        }


def new_match(rules: RuleSet, n_seats: int, *, first_dealer: int, target: int | None = None,
              **opts: Any) -> BriscolaMatch:
    """GameSpec.new_match: options `match_kind` ("punti"/"smazzate"), `hands`, `knockout`.

    `first_dealer` comes from the deal's randomness: the engine owns none [BRISCOLA-7]."""
    allowed = {"match_kind", "hands", "knockout"}
    unknown = sorted(set(opts) - allowed)
    if unknown:
        raise ValueError(f"unknown Briscola match option(s): {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(allowed))}")
    return BriscolaMatch(rules, n_seats, first_dealer=first_dealer, target=target, **opts)
