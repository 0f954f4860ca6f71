"""A Burraco match: hands, dealer rotation, per-seat and per-side totals, target, winner.

Totals are kept per seat (each seat is credited what its side scored, see scoring.py), so
that sides may change between hands (3 and 5 seats) without losing anything. Standings show
fixed partnerships as sides (2, 4, 6 seats) and single seats otherwise.
"""

from __future__ import annotations

from ..base import HandResult, Seat, WireValue
from ..cards import make_deck
from .rules import RuleSet
from .state import BurracoHand


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
        self.dealer = first_dealer % n_seats
        self.target = target if target is not None else rules.target
        self.each_for_himself = each_for_himself
        self.switched = False
        self.seat_totals = [0] * n_seats
        self.hands_played = 0
        self.history: list[HandResult] = []
        self._over = False
        self._winner: int | None = None

    def fixed_sides(self) -> list[list[Seat]]:
        """The sides the standings show."""
        if self.n_seats == 4:
            return [[0, 2], [1, 3]]
        if self.n_seats == 6:
            return [[0, 2, 4], [1, 3, 5]]
        return [[s] for s in range(self.n_seats)]

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
        same dealer."""
        if self._over:
            raise ValueError("the match is over")
        if result.reason == "void":
            return
        credit = result.extra.get("credit")
        if not isinstance(credit, (list, tuple)) or len(credit) != self.n_seats:
            raise ValueError("a Burraco hand result carries a per-seat 'credit' list")
        for s, c in enumerate(credit):
            self.seat_totals[s] += int(c)
        self.history.append(result)
        self.hands_played += 1
        self.dealer = (self.dealer + 1) % self.n_seats
        r = self.rules
        if (self.n_seats == 3 and not self.each_for_himself and r.three_seat_switch_at is not None
                and max(self.seat_totals) >= r.three_seat_switch_at):
            self.switched = True
        totals = self.side_totals()
        top = max(totals)
        leaders = [i for i, t in enumerate(totals) if t == top]
        if self.target is None:
            self._over = True
            self._winner = leaders[0] if len(leaders) == 1 else None
            return
        reached = any((t > self.target) if r.target_strict else (t >= self.target) for t in totals)
        if reached and len(leaders) == 1:  # a tie at the top plays another hand
            self._over = True
            self._winner = leaders[0]

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
        }


def new_match(rules: RuleSet, n_seats: int, *, first_dealer: Seat = 0,
              target: int | None = None, **opts: object) -> BurracoMatch:
    """GameSpec.new_match: options `each_for_himself` (3 or 5 seats)."""
    each = bool(opts.pop("each_for_himself", False))
    if opts:
        raise ValueError(f"unknown Burraco match option(s): {', '.join(sorted(opts))}")
    return BurracoMatch(rules, n_seats, first_dealer=first_dealer, target=target,
                        each_for_himself=each)
