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
[BRISCOLA-24]; so does a forfeit (a seat at fault: cheat, stall, timeout…), which scores
nothing from its smazzata but is otherwise treated like an abandon [BRISCOLA-24, -26].

`snapshot()` / `restore_match` carry everything the match needs to go on, in a constant size
(not the list of past results, kept in memory as `results` for local convenience only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import HandResult, SnapshotReader, WireValue, read_forfeit
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
        self.hands_played = 0           # smazzate recorded, voids excepted
        self.results: list[HandResult] = []
        """Results recorded by this object (not restored from a snapshot; nothing needs it)."""
        self.winner: int | None = None
        self.decided_by: str | None = None
        self.abandoned_by: int | None = None
        self.forfeit_by: int | None = None
        self.forfeit_cause: str | None = None
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
        """Count a finished smazzata; the next one is dealt by the seat after this dealer.
        Atomic: on ValueError nothing changed."""
        if self._over:
            raise ValueError("the match is over: no more smazzate to record")
        if tuple(map(tuple, result.sides)) != self.sides or len(result.points) != 2:
            raise ValueError(f"a result for sides {result.sides}, not this table's {self.sides}")
        if result.reason == "void":
            return  # a voided deal is dealt again by the same dealer
        forfeit = read_forfeit(result, self.n_seats)
        pts = (int(result.points[0]), int(result.points[1]))
        quitter = None if forfeit is not None else result.extra.get("abandoned_by")
        if quitter is not None and (not isinstance(quitter, int) or isinstance(quitter, bool)
                                    or not 0 <= quitter < self.n_seats):
            raise ValueError(f"an abandoned smazzata names a seat 0..{self.n_seats - 1}, "
                             f"not {quitter!r}")
        if (forfeit is None and quitter is None and self._in_playoff and pts[0] == pts[1]
                and len(self.playoffs) + 1 >= MAX_PLAYOFFS
                and result.extra.get("last_trick_by") is None):
            raise ValueError("a tied third play-off needs the seat that took its last trick")
        self.results.append(result)
        self.hands_played += 1
        self._dealer = (self._dealer + 1) % self.n_seats  # [BRISCOLA-8]
        if forfeit is not None:
            self.forfeit_by, self.forfeit_cause = forfeit
            self._lose_by(forfeit[0], (0, 0), "forfeit")
        elif quitter is not None:
            self.abandoned_by = quitter
            self._lose_by(quitter, pts, "abandon")
        elif self._in_playoff:
            self._record_playoff(result, pts)
        else:
            self._record_regular(pts)

    def _lose_by(self, seat: int, pts: tuple[int, int], how: str) -> None:
        """`seat`'s side loses the match at once (abandon or forfeit) [BRISCOLA-24]. The
        smazzata's points count (an abandon's carry BRISCOLA-24's adjustment already; a
        forfeit's are zero); a forfeited play-off is no play-off result."""
        quitter = side_of(seat)
        other = 1 - quitter
        if self._in_playoff:
            if how == "abandon":
                self.playoffs.append(pts)
        else:
            self.regular_hands += 1
            self.points = [self.points[0] + pts[0], self.points[1] + pts[1]]
        # Over the whole match too, a lead left to the quitter counts as none.
        self.points[quitter] = min(self.points[quitter], self.points[other])
        self._finish(other, how)

    def _record_regular(self, pts: tuple[int, int]) -> None:
        self.regular_hands += 1
        self.points = [self.points[0] + pts[0], self.points[1] + pts[1]]
        if pts[0] == pts[1]:
            self.ties += 1
        else:
            self.wins[0 if pts[0] > pts[1] else 1] += 1
        over, totals = self._regular_over()
        if not over:
            return
        if totals[0] != totals[1]:
            self._finish(0 if totals[0] > totals[1] else 1, self.kind)
        elif self.knockout:
            self._in_playoff = True  # [BRISCOLA-22]
        else:
            self._finish(None, "tie")

    def _regular_over(self) -> tuple[bool, list[int]]:
        """Whether the regular smazzate have decided the match (or left it level), and the
        totals that decide it: points a punti, smazzate won a smazzate."""
        if self.kind == "punti":
            return self._punti_over(), self.points
        assert self.hands_cap is not None
        remaining = self.hands_cap - self.regular_hands
        return abs(self.wins[0] - self.wins[1]) > remaining or remaining <= 0, self.wins

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
            assert last_by is not None  # record checked it
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
        loser = self.abandoned_by if self.abandoned_by is not None else self.forfeit_by
        if loser is not None:  # abandon or forfeit alike [BRISCOLA-26]
            w = 1 - side_of(loser)
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
            "hands": self.hands_played,
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
            "forfeit_by": self.forfeit_by,
            "forfeit_cause": self.forfeit_cause,
            "next_dealer": self._dealer,
            "victory_points": None if vp is None else vp["vp"],
            "match_points": None if vp is None else vp["mp"],
        }

    # --- snapshot ------------------------------------------------------------------------
    def snapshot(self) -> dict[str, WireValue]:
        """Everything to go on with this match (see `games.base.Match.snapshot`). The first
        keys restate the match's arguments, so a restore with other ones is refused."""
        return {
            "game": "briscola", "variant": self.rules.name, "n_seats": self.n_seats,
            "first_dealer": self.first_dealer, "match_kind": self.kind,
            "hands_cap": self.hands_cap, "target": self.target, "knockout": self.knockout,
            "hands": self.hands_played, "dealer": self._dealer,
            "regular_hands": self.regular_hands, "points": list(self.points),
            "wins": list(self.wins), "ties": self.ties,
            "playoffs": [list(p) for p in self.playoffs], "in_playoff": self._in_playoff,
            "over": self._over, "winner": self.winner, "decided_by": self.decided_by,
            "abandoned_by": self.abandoned_by, "forfeit_by": self.forfeit_by,
            "forfeit_cause": self.forfeit_cause,
        }

    def _load(self, snapshot: Mapping[str, WireValue]) -> None:
        """Take over a snapshot's state (this object was just built from the same
        arguments); ValueError if it is malformed or could not come from such a match."""
        rd = SnapshotReader(snapshot, "briscola")
        n = self.n_seats
        rd.expect("game", "briscola")
        rd.expect("variant", self.rules.name)
        rd.expect("n_seats", n)
        rd.expect("first_dealer", self.first_dealer)
        rd.expect("match_kind", self.kind)
        rd.expect("hands_cap", self.hands_cap)
        rd.expect("target", self.target)
        rd.expect("knockout", self.knockout)
        hands = rd.integer("hands", 0)
        dealer = rd.integer("dealer", 0, n - 1)
        self.regular_hands = rd.integer("regular_hands", 0, self.hands_cap)
        self.points = rd.integers("points", 2, 0)
        self.wins = rd.integers("wins", 2, 0)
        self.ties = rd.integer("ties", 0)
        self.playoffs = rd.pairs("playoffs", MAX_PLAYOFFS, 0)
        self._in_playoff = rd.flag("in_playoff")
        over = rd.flag("over")
        winner = rd.opt_integer("winner", 0, 1)
        decided_by = rd.opt_text("decided_by")
        self.abandoned_by = rd.opt_integer("abandoned_by", 0, n - 1)
        self.forfeit_by = rd.opt_integer("forfeit_by", 0, n - 1)
        self.forfeit_cause = rd.opt_text("forfeit_cause")
        rd.finish()
        self.hands_played = hands
        self._dealer = dealer
        problem = self._impossible(over, winner, decided_by)
        if problem is not None:
            raise ValueError(f"briscola match snapshot: {problem}")
        if over:
            assert decided_by is not None
            self._finish(winner, decided_by)

    def _impossible(self, over: bool, winner: int | None, decided_by: str | None) -> str | None:
        """Why the state just loaded cannot come from a match built with these arguments,
        or None if it can."""
        forfeit_in_playoff = decided_by == "forfeit" and self._in_playoff
        if self.hands_played != (self.regular_hands + len(self.playoffs)
                                 + (1 if forfeit_in_playoff else 0)):
            return "hands is not the regular smazzate plus the play-offs"
        if self._dealer != (self.first_dealer + self.hands_played) % self.n_seats:
            return (f"dealer {self._dealer} is not the one after {self.hands_played} "
                    f"smazzata(e) dealt from seat {self.first_dealer}")
        if sum(self.wins) + self.ties > self.regular_hands:
            return "more smazzate won or tied than played"
        if (self.playoffs and not self._in_playoff) or (self._in_playoff and not self.knockout):
            return "play-offs without a knock-out tie [BRISCOLA-22]"
        if (self.abandoned_by is not None) != (decided_by == "abandon"):
            return "abandoned_by goes with decided_by 'abandon', and only with it"
        if (self.forfeit_by is not None) != (decided_by == "forfeit") or \
                (self.forfeit_cause is not None) != (decided_by == "forfeit"):
            return "forfeit_by and forfeit_cause go with decided_by 'forfeit', and only with it"
        regular_over, totals = self._regular_over()
        if not over:
            if winner is not None or decided_by is not None:
                return "a match not over has no winner and no decision"
            if self._in_playoff:
                if not regular_over or totals[0] != totals[1]:
                    return "play-offs, yet the regular smazzate did not end level"
                if len(self.playoffs) >= MAX_PLAYOFFS or any(a != b for a, b in self.playoffs):
                    return "a play-off decided the match, yet it is not over"
            elif regular_over:
                return "the regular smazzate decide this match, yet it is not over"
            return None
        loser = self.abandoned_by if self.abandoned_by is not None else self.forfeit_by
        if loser is not None:
            side = side_of(loser)
            if winner != 1 - side:
                return f"the side of seat {loser} lost by {decided_by}, yet winner is {winner}"
            if self.points[side] > self.points[1 - side]:
                return "a lead left to the side that lost by abandon or forfeit [BRISCOLA-24]"
            return None
        if decided_by in ("tie", self.kind):
            if self._in_playoff or not regular_over:
                return f"decided by {decided_by!r}, yet the regular smazzate did not end it"
            level = totals[0] == totals[1]
            if decided_by == "tie" and (not level or winner is not None or self.knockout):
                return "a tie needs level totals, no winner and no knock-out"
            if decided_by == self.kind and (level or winner != (0 if totals[0] > totals[1]
                                                                else 1)):
                return f"winner {winner} is not the side ahead on the totals"
            return None
        played = len(self.playoffs)
        if not self._in_playoff or not played:
            return f"decided by {decided_by!r} without play-offs"
        last = self.playoffs[-1]
        if decided_by == f"play-off {played}":
            if last[0] == last[1] or winner != (0 if last[0] > last[1] else 1):
                return f"winner {winner} did not win play-off {played}"
            return None
        if decided_by == f"last trick of play-off {MAX_PLAYOFFS}":
            if played != MAX_PLAYOFFS or any(a != b for a, b in self.playoffs) or winner is None:
                return "the last-trick rule decides only a third level play-off [BRISCOLA-23]"
            return None
        return f"unknown decision {decided_by!r}"


def restore_match(rules: RuleSet, n_seats: int, snapshot: Mapping[str, WireValue], *,
                  first_dealer: int, target: int | None = None,
                  **opts: Any) -> BriscolaMatch:
    """GameSpec.restore_match: the match `snapshot()` described, built from the same
    arguments as `new_match`; it goes on exactly as the original would. ValueError if the
    snapshot is malformed or does not fit these rules, seats and options."""
    match = new_match(rules, n_seats, first_dealer=first_dealer, target=target, **opts)
    match._load(snapshot)
    return match


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
