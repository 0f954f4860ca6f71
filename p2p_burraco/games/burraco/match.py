"""A Burraco match: hands, dealer rotation, per-seat and per-side totals, target, winner.

Totals are kept per seat (each seat is credited what its side scored, see scoring.py), so
that sides may change between hands (3 and 5 seats) without losing anything. Standings show
fixed partnerships as sides (2, 4, 6 seats) and single seats otherwise.

A match ends at the target (or after the one hand of a preset without one), or at once when a
hand is abandoned (TABLE-9) or forfeited (TABLE-7): the side of the seat at fault — its side
in the standings — loses, and the best of the other sides wins (none on a tie among them).

`snapshot()` / `restore_match` carry everything the match needs to go on (not the list of
past results, which stays in memory as `history` for the convenience of a local table only).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..base import HandResult, Seat, SnapshotReader, WireValue, read_forfeit
from ..cards import make_deck
from .rules import RuleSet
from .state import BurracoHand

DECIDED_BY = ("target", "hands", "abandon", "forfeit")
"""How a match can end: target reached, its one hand played, abandonment, forfeit."""


class BurracoMatch:
    """Hands until a side reaches the target (FIBUR-31, PAGAT-25, CLASSIC-16, MODIF-1), or a
    single hand when the preset has no target (BURACO-16)."""

    def __init__(self, rules: RuleSet, n_seats: int, *, first_dealer: Seat = 0,
                 target: int | None = None, each_for_himself: bool = False) -> None:
        if n_seats not in rules.seat_counts:
            raise ValueError(f"{rules.name} is played by "
                             f"{', '.join(map(str, rules.seat_counts))} players, not {n_seats}")
        if each_for_himself and n_seats not in (3, 5):
            raise ValueError("'each for himself' applies to 3 or 5 players only")
        if target is not None and target <= 0:
            raise ValueError(f"the target must be positive, not {target}")
        self.rules = rules
        self.n_seats = n_seats
        self.first_dealer = first_dealer % n_seats
        self.dealer = self.first_dealer
        self.target = target if target is not None else rules.target
        self.each_for_himself = each_for_himself
        self.switched = False
        self.seat_totals = [0] * n_seats
        self.hands_played = 0
        self.history: list[HandResult] = []
        """Results recorded by this object (not restored from a snapshot; nothing needs it)."""
        self.decided_by: str | None = None
        self.abandoned_by: Seat | None = None
        self.forfeit_by: Seat | None = None
        self.forfeit_cause: str | None = None
        self._over = False
        self._winner: int | None = None

    def fixed_sides(self) -> list[list[Seat]]:
        """The sides the standings show."""
        if self.n_seats == 4:
            return [[0, 2], [1, 3]]
        if self.n_seats == 6:
            return [[0, 2, 4], [1, 3, 5]]
        return [[s] for s in range(self.n_seats)]

    def side_of(self, seat: Seat) -> int:
        """The standings side a seat belongs to (whom an abandonment or forfeit loses)."""
        return next(i for i, side in enumerate(self.fixed_sides()) if seat in side)

    def side_totals(self) -> list[int]:
        return [self.seat_totals[side[0]] for side in self.fixed_sides()]

    def open_requirements(self) -> tuple[int, ...]:
        """Per seat: points its side's opening must reach this hand (classic, CLASSIC-9)."""
        r = self.rules
        if r.open_threshold is None:
            return (0,) * self.n_seats
        return tuple(r.open_min_points if self.seat_totals[s] >= r.open_threshold else 0
                     for s in range(self.n_seats))

    def new_hand(self) -> BurracoHand:
        if self._over:
            raise ValueError("the match is over")
        return BurracoHand(self.rules, self.n_seats, self.dealer,
                           each_for_himself=self.each_for_himself, switched=self.switched,
                           open_req=self.open_requirements(), hand_no=self.hands_played)

    def deck_size(self) -> int:
        return len(make_deck(self.rules.deck_kind(self.n_seats)))

    def record(self, result: HandResult) -> None:
        """Add a hand. A void hand (reason 'void') scores nothing and is dealt again by the
        same dealer. An abandoned (TABLE-9) or forfeited (TABLE-7) hand scores nothing and
        ends the match against the side at fault. Atomic: on ValueError nothing changed."""
        if self._over:
            raise ValueError("the match is over")
        if result.reason == "void":
            return
        credit = result.extra.get("credit")
        if not isinstance(credit, (list, tuple)) or len(credit) != self.n_seats:
            raise ValueError("a Burraco hand result carries a per-seat 'credit' list")
        forfeit = read_forfeit(result, self.n_seats)
        quitter = result.extra.get("abandoned_by")
        if quitter is not None and (not isinstance(quitter, int) or isinstance(quitter, bool)
                                    or not 0 <= quitter < self.n_seats):
            raise ValueError(f"an abandoned hand names a seat 0..{self.n_seats - 1}, "
                             f"not {quitter!r}")
        at_fault = forfeit[0] if forfeit is not None else quitter
        if at_fault is not None and any(int(c) != 0 for c in credit):
            raise ValueError("an abandoned or forfeited hand scores nothing, "
                             f"not {list(credit)}")
        self.history.append(result)
        self.hands_played += 1
        self.dealer = (self.dealer + 1) % self.n_seats
        if forfeit is not None:
            self.forfeit_by, self.forfeit_cause = forfeit
            self._end_at_fault(forfeit[0], "forfeit")
            return
        if quitter is not None:
            self.abandoned_by = quitter
            self._end_at_fault(quitter, "abandon")
            return
        for s, c in enumerate(credit):
            self.seat_totals[s] += int(c)
        r = self.rules
        if (self.n_seats == 3 and not self.each_for_himself and r.three_seat_switch_at is not None
                and max(self.seat_totals) >= r.three_seat_switch_at):
            self.switched = True
        totals = self.side_totals()
        leaders = [i for i, t in enumerate(totals) if t == max(totals)]
        if self.target is None:
            self._finish(leaders[0] if len(leaders) == 1 else None, "hands")
        elif self._target_decides():  # a tie at the top plays another hand
            self._finish(leaders[0], "target")

    def _end_at_fault(self, seat: Seat, how: str) -> None:
        self._finish(self._best_other_side(seat), how)

    def _best_other_side(self, seat: Seat) -> int | None:
        """The winner when `seat`'s side loses: the best of the others, None if they tie."""
        loser = self.side_of(seat)
        totals = self.side_totals()
        others = [i for i in range(len(totals)) if i != loser]
        top = max(totals[i] for i in others)
        leaders = [i for i in others if totals[i] == top]
        return leaders[0] if len(leaders) == 1 else None

    def _finish(self, winner: int | None, how: str) -> None:
        self._over = True
        self._winner = winner
        self.decided_by = how

    @property
    def is_over(self) -> bool:
        return self._over

    def standings(self) -> dict[str, WireValue]:
        return {
            "sides": self.fixed_sides(), "totals": self.side_totals(), "target": self.target,
            "hands": self.hands_played, "over": self._over, "winner": self._winner,
            "per_seat": list(self.seat_totals), "dealer": self.dealer,
            "variant": self.rules.name, "three_by_eleven": self.switched,
            "each_for_himself": self.each_for_himself,
            "decided_by": self.decided_by, "abandoned_by": self.abandoned_by,
            "forfeit_by": self.forfeit_by, "forfeit_cause": self.forfeit_cause,
        }

    # --- snapshot ------------------------------------------------------------------------
    def snapshot(self) -> dict[str, WireValue]:
        """Everything to go on with this match (see `games.base.Match.snapshot`). The first
        keys restate the match's arguments, so a restore with other ones is refused."""
        return {
            "game": "burraco", "variant": self.rules.name, "n_seats": self.n_seats,
            "first_dealer": self.first_dealer, "target": self.target,
            "each_for_himself": self.each_for_himself,
            "hands": self.hands_played, "dealer": self.dealer,
            "seat_totals": list(self.seat_totals), "switched": self.switched,
            "over": self._over, "winner": self._winner, "decided_by": self.decided_by,
            "abandoned_by": self.abandoned_by, "forfeit_by": self.forfeit_by,
            "forfeit_cause": self.forfeit_cause,
        }

    def _load(self, snapshot: Mapping[str, WireValue]) -> None:
        """Take over a snapshot's state (this object was just built from the same
        arguments); ValueError if it is malformed or could not come from such a match."""
        rd = SnapshotReader(snapshot, "burraco")
        n = self.n_seats
        rd.expect("game", "burraco")
        rd.expect("variant", self.rules.name)
        rd.expect("n_seats", n)
        rd.expect("first_dealer", self.first_dealer)
        rd.expect("target", self.target)
        rd.expect("each_for_himself", self.each_for_himself)
        hands = rd.integer("hands", 0)
        dealer = rd.integer("dealer", 0, n - 1)
        totals = rd.integers("seat_totals", n)
        switched = rd.flag("switched")
        over = rd.flag("over")
        winner = rd.opt_integer("winner", 0, len(self.fixed_sides()) - 1)
        decided_by = rd.opt_text("decided_by")
        abandoned_by = rd.opt_integer("abandoned_by", 0, n - 1)
        forfeit_by = rd.opt_integer("forfeit_by", 0, n - 1)
        forfeit_cause = rd.opt_text("forfeit_cause")
        rd.finish()

        def bad(why: str) -> ValueError:
            return ValueError(f"burraco match snapshot: {why}")

        if dealer != (self.first_dealer + hands) % n:
            raise bad(f"dealer {dealer} is not the one after {hands} hand(s) dealt from seat "
                      f"{self.first_dealer}")
        if hands == 0 and (any(totals) or switched or over):
            raise bad("no hand played, yet totals, a switch or an end")
        r = self.rules
        can_switch = (n == 3 and not self.each_for_himself
                      and r.three_seat_switch_at is not None)
        if switched and not can_switch:
            raise bad("the 3×11 switch does not apply to this match (FIBUR-34)")
        if can_switch and not switched and max(totals) >= (r.three_seat_switch_at or 0):
            raise bad("a total reached the 3×11 switch, yet it is off (FIBUR-34)")
        if not over:
            if (winner, decided_by, abandoned_by, forfeit_by, forfeit_cause) != (None,) * 5:
                raise bad("a match not over has no winner, decision, abandonment or forfeit")
        elif decided_by not in DECIDED_BY:
            raise bad(f"decided_by must be one of {', '.join(DECIDED_BY)}, not {decided_by!r}")
        if (abandoned_by is not None) != (decided_by == "abandon"):
            raise bad("abandoned_by goes with decided_by 'abandon', and only with it")
        if (forfeit_by is not None) != (decided_by == "forfeit") or \
                (forfeit_cause is not None) != (decided_by == "forfeit"):
            raise bad("forfeit_by and forfeit_cause go with decided_by 'forfeit', and only "
                      "with it")
        if decided_by == ("target" if self.target is None else "hands"):
            raise bad(f"a match {'without' if self.target is None else 'with'} a target does "
                      f"not end by {decided_by!r}")
        self.hands_played = hands
        self.dealer = dealer
        self.seat_totals = list(totals)
        self.switched = switched
        self.abandoned_by = abandoned_by
        self.forfeit_by = forfeit_by
        self.forfeit_cause = forfeit_cause
        if over:
            assert decided_by is not None
            expected = self._expected_winner(decided_by)
            if isinstance(expected, str):
                raise bad(expected)
            if winner != expected:
                raise bad(f"winner {winner} is not what the totals give ({expected})")
            self._finish(winner, decided_by)
        elif hands and (self.target is None or self._target_decides()):
            raise bad("the totals end this match, yet it is not over")

    def _target_decides(self) -> bool:
        """A single side at the top has reached the target: the match ends."""
        assert self.target is not None
        t = self.target
        totals = self.side_totals()
        reached = any((x > t) if self.rules.target_strict else (x >= t) for x in totals)
        return reached and totals.count(max(totals)) == 1

    def _expected_winner(self, decided_by: str) -> int | None | str:
        """The winner a finished match's state implies, or why the state is impossible."""
        if decided_by == "abandon":
            assert self.abandoned_by is not None
            return self._best_other_side(self.abandoned_by)
        if decided_by == "forfeit":
            assert self.forfeit_by is not None
            return self._best_other_side(self.forfeit_by)
        totals = self.side_totals()
        leaders = [i for i, t in enumerate(totals) if t == max(totals)]
        if decided_by == "hands":
            return leaders[0] if len(leaders) == 1 else None
        if not self._target_decides():
            return "decided by the target, yet no single side has reached it"
        return leaders[0]


def new_match(rules: RuleSet, n_seats: int, *, first_dealer: Seat = 0,
              target: int | None = None, **opts: object) -> BurracoMatch:
    """GameSpec.new_match: options `each_for_himself` (3 or 5 seats)."""
    each = bool(opts.pop("each_for_himself", False))
    if opts:
        raise ValueError(f"unknown Burraco match option(s): {', '.join(sorted(opts))}")
    return BurracoMatch(rules, n_seats, first_dealer=first_dealer, target=target,
                        each_for_himself=each)


def restore_match(rules: RuleSet, n_seats: int, snapshot: Mapping[str, WireValue], *,
                  first_dealer: Seat = 0, target: int | None = None,
                  **opts: object) -> BurracoMatch:
    """GameSpec.restore_match: the match `snapshot()` described, built from the same
    arguments as `new_match`; it goes on exactly as the original would. ValueError if the
    snapshot is malformed or does not fit these rules, seats and options."""
    match = new_match(rules, n_seats, first_dealer=first_dealer, target=target, **opts)
    match._load(snapshot)
    return match
