"""Match snapshots: `Match.snapshot()` / `GameSpec.restore_match` for both engines.

The host's `hand_start` carries a constant-size snapshot of the match instead of its whole
history; every peer compares it with its own fold, and an auditor rebuilds the hand from it.
So: a restored match must go on *exactly* as the original (standings, the next hand's
dealer, deal schedule, opening requirements and vinco-subito stops, the end), its snapshot
must equal the one it came from, the snapshot must be msgpack-safe and not grow with the
number of hands, and a malformed or foreign snapshot must be refused with a ValueError.
Rules exercised along the way: FIBUR-4, FIBUR-31, FIBUR-34, FIBUR-38, PAGAT-25, CLASSIC-9,
CLASSIC-16, BURACO-16, BRISCOLA-8, BRISCOLA-19 … BRISCOLA-24.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_burraco.games import get_game
from p2p_burraco.games.base import HandResult, Match, forfeit_result
from p2p_burraco.games.briscola import BriscolaHand, sides_of
from p2p_burraco.games.burraco import BurracoHand


@dataclass(frozen=True)
class Config:
    game: str
    variant: str
    n_seats: int
    first_dealer: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)

    def new(self) -> Match:
        spec = get_game(self.game)
        return spec.new_match(spec.presets[self.variant], self.n_seats,  # type: ignore[no-any-return]
                              first_dealer=self.first_dealer, **self.options)

    def restore(self, snap: Mapping[str, Any]) -> Match:
        spec = get_game(self.game)
        return spec.restore_match(spec.presets[self.variant],  # type: ignore[no-any-return]
                                  self.n_seats, snap, first_dealer=self.first_dealer,
                                  **self.options)


BURRACO_CONFIGS = [
    Config("burraco", "fibur", 2, 1, {"target": 505}),
    Config("burraco", "fibur", 2, 0),
    Config("burraco", "fibur", 3, 2),                          # FIBUR-34: 3×11 from 1000
    Config("burraco", "fibur", 3, 0, {"each_for_himself": True, "target": 1005}),
    Config("burraco", "fibur", 4, 3, {"target": 1005}),
    Config("burraco", "fibur", 5, 4, {"target": 1005}),
    Config("burraco", "fibur", 5, 1, {"each_for_himself": True}),
    Config("burraco", "fibur", 6, 5, {"target": 1005}),
    Config("burraco", "pagat", 2, 0),                          # PAGAT-25: must exceed
    Config("burraco", "pagat", 4, 1),
    Config("burraco", "classic", 2, 1),                        # CLASSIC-9: 75 from 1000
    Config("burraco", "classic", 4, 2),
    Config("burraco", "modificato", 4, 0),
    Config("burraco", "buraco", 2, 1),                         # BURACO-16: one hand
    Config("burraco", "buraco", 4, 3),
]

BRISCOLA_CONFIGS = [
    Config("briscola", "standard", 2, 1),                      # a punti, one smazzata
    Config("briscola", "standard", 4, 3, {"hands": 3}),        # a punti over three
    Config("briscola", "standard", 2, 0, {"target": 121}),     # a punti, target alone
    Config("briscola", "smazzate", 2, 1),                      # best of three
    Config("briscola", "smazzate", 4, 2, {"hands": 5, "knockout": True}),
    Config("briscola", "torneo-ko", 2, 0),                     # play-offs
    Config("briscola", "torneo-ko", 4, 1, {"hands": 2}),
    Config("briscola", "torneo-ko", 2, 1, {"match_kind": "smazzate", "hands": 3}),
    Config("briscola", "vinco-subito", 2, 0, {"hands": 3}),
    Config("briscola", "carte-scoperte", 4, 0),
]

# One step of a match: (kind, a, b, seat, extra). Played hands dominate; voids, abandons and
# forfeits are rarer, as at a table.
KINDS = ["play"] * 12 + ["void", "void", "abandon", "forfeit"]
CAUSES = ["cheat", "stall", "timeout", "abandon"]
steps_st = st.lists(st.tuples(st.sampled_from(KINDS), st.integers(-600, 1600),
                              st.integers(-600, 1600), st.integers(0, 5), st.integers(0, 120)),
                    min_size=1, max_size=14)
briscola_steps_st = st.lists(
    st.tuples(st.sampled_from(KINDS), st.sampled_from([0, 20, 40, 59, 60, 60, 60, 60, 60, 61, 80, 120]),
              st.integers(0, 20), st.integers(0, 3), st.integers(0, 120)),
    min_size=1, max_size=14)


def burraco_result(m: Match, step: tuple[str, int, int, int, int]) -> HandResult:
    """A result as a hand (or the table) would report it, from one drawn step."""
    kind, a, b, seat, extra = step
    n = m.n_seats
    seat %= n
    sides = [list(s) for s in m.standings()["sides"]]
    if kind == "forfeit":
        return forfeit_result(sides, seat, CAUSES[extra % len(CAUSES)], n)
    zeros = [0] * n
    if kind in ("void", "abandon"):
        ex: dict[str, Any] = {"credit": zeros}
        if kind == "abandon":
            ex["abandoned_by"] = seat
        return HandResult(sides=tuple((s,) for s in range(n)), points=tuple(zeros),
                          breakdown=tuple(() for _ in range(n)), reason=kind, extra=ex)
    if n in (4, 6):  # fixed partnerships: partners are credited alike (FIBUR-35, -37)
        credit = [a if s % 2 == 0 else b for s in range(n)]
    else:
        credit = [(a, b, a // 2 + extra, b // 2 - extra, extra * 5)[s] for s in range(n)]
    return HandResult(sides=tuple((s,) for s in range(n)), points=tuple(credit),
                      breakdown=tuple(() for _ in range(n)), reason="closed",
                      extra={"credit": credit})


def briscola_result(m: Match, step: tuple[str, int, int, int, int]) -> HandResult:
    kind, a, unplayed, seat, extra = step
    n = m.n_seats
    seat %= n
    sides = sides_of(n)
    if kind == "forfeit":
        return forfeit_result([list(s) for s in sides], seat, CAUSES[extra % len(CAUSES)], n)
    if kind == "void":
        return HandResult(sides=sides, points=(0, 0), breakdown=((), ()), reason="void")
    b = 120 - a
    quitter = None
    if kind == "abandon":
        quitter = seat
        b = max(0, b - unplayed)  # some points still in play
    return HandResult(sides=sides, points=(a, b), breakdown=((), ()),
                      reason="abandon" if quitter is not None else "tricks",
                      extra={"abandoned_by": quitter, "last_trick_by": extra % n,
                             "credit": [7] * n})  # Briscola ignores a credit


def next_hand_facts(m: Match) -> Any:
    """What the next hand is: dealer, deal schedule, opening needs, stops, public view."""
    if m.is_over:
        return None
    h = m.new_hand()
    if isinstance(h, BurracoHand):
        return (h.dealer, h.schedule, h.open_req, h.dynamic, h.hand_no,
                [len(p.positions) for p in h.pozzetti], h.public_view())
    assert isinstance(h, BriscolaHand)
    return (h.dealer, h.stop_at, h.schedule, h.public_view())


def observe(m: Match) -> Any:
    return (m.snapshot(), m.standings(), m.is_over, next_hand_facts(m))


def wire_safe(v: Any, where: str = "snapshot") -> None:
    """Only None, bool, int, str, lists and str-keyed maps: no floats, no tuples."""
    if v is None or isinstance(v, (bool, int, str)):
        return
    if isinstance(v, list):
        for i, x in enumerate(v):
            wire_safe(x, f"{where}[{i}]")
        return
    if isinstance(v, dict):
        for k, x in v.items():
            assert isinstance(k, str), f"{where}: key {k!r}"
            wire_safe(x, f"{where}.{k}")
        return
    raise AssertionError(f"{where}: {type(v).__name__} {v!r} is not msgpack-safe")


def over_the_wire(snap: Mapping[str, Any]) -> dict[str, Any]:
    out = msgpack.unpackb(msgpack.packb(snap), raw=False)
    assert isinstance(out, dict)
    return out


def check_restores(cfg: Config, steps: list[tuple[str, int, int, int, int]],
                   restore_at: int) -> None:
    """Play `steps` on a match; at every step a match restored from the snapshot (sent over
    msgpack) must look the same and take the next result the same way; one restored at
    `restore_at` must then follow the original to the end."""
    make = burraco_result if cfg.game == "burraco" else briscola_result
    m = cfg.new()
    follower: Match | None = None
    for i, step in enumerate(steps):
        if m.is_over:
            break
        snap = m.snapshot()
        wire_safe(snap)
        r = cfg.restore(over_the_wire(snap))
        assert r.snapshot() == snap
        assert observe(r) == observe(m)
        if i == restore_at % len(steps):
            follower = cfg.restore(over_the_wire(snap))
        result = make(m, step)
        m.record(result)
        r.record(result)
        assert observe(r) == observe(m)
        if follower is not None:
            follower.record(result)
            assert observe(follower) == observe(m)
    final = m.snapshot()
    wire_safe(final)
    assert cfg.restore(over_the_wire(final)).snapshot() == final
    if m.is_over:
        with pytest.raises(ValueError):
            cfg.restore(final).new_hand()


@pytest.mark.parametrize("cfg", BURRACO_CONFIGS, ids=lambda c: f"{c.variant}-{c.n_seats}"
                         f"{'-each' if c.options.get('each_for_himself') else ''}")
@given(steps=steps_st, restore_at=st.integers(0, 20))
def test_burraco_restore_goes_on_exactly(cfg: Config, steps: list[Any], restore_at: int) -> None:
    """FIBUR-4 FIBUR-31 FIBUR-34 FIBUR-38 PAGAT-25 CLASSIC-9 CLASSIC-16 BURACO-16: a match
    restored at any point goes on exactly as the original."""
    check_restores(cfg, steps, restore_at)


@pytest.mark.parametrize("cfg", BRISCOLA_CONFIGS, ids=lambda c: f"{c.variant}-{c.n_seats}-"
                         f"{'-'.join(f'{k}{v}' for k, v in c.options.items())}")
@given(steps=briscola_steps_st, restore_at=st.integers(0, 20))
def test_briscola_restore_goes_on_exactly(cfg: Config, steps: list[Any],
                                          restore_at: int) -> None:
    """BRISCOLA-8 BRISCOLA-19 BRISCOLA-20 BRISCOLA-21 BRISCOLA-22 BRISCOLA-23 BRISCOLA-24: a
    match restored at any point goes on exactly as the original."""
    check_restores(cfg, steps, restore_at)


# ---------------------------------------------------------------- fixed examples

def test_burraco_three_seat_switch_survives_a_restore() -> None:
    """FIBUR-34: the 3×11 switch is part of the snapshot, even once totals fall back."""
    cfg = Config("burraco", "fibur", 3)
    m = cfg.new()
    m.record(burraco_result(m, ("play", 1000, 0, 0, 0)))
    m.record(burraco_result(m, ("play", -600, 0, 0, 0)))
    snap = m.snapshot()
    assert snap["switched"] is True and max(snap["seat_totals"]) < 1000
    h = cfg.restore(snap).new_hand()
    assert [len(p.positions) for p in h.pozzetti] == [11, 11, 11] and not h.dynamic


def test_classic_opening_threshold_survives_a_restore() -> None:
    """CLASSIC-9: a side at 1000 or more opens with 75 points, after a restore too."""
    cfg = Config("burraco", "classic", 2)
    m = cfg.new()
    m.record(burraco_result(m, ("play", 1000, 300, 0, 0)))
    assert cfg.restore(m.snapshot()).new_hand().open_req == (75, 0)


def test_briscola_playoffs_survive_a_restore() -> None:
    """BRISCOLA-22 BRISCOLA-23: a level match in play-offs is restored in play-offs."""
    cfg = Config("briscola", "torneo-ko", 2)
    m = cfg.new()
    for _ in range(2):
        m.record(briscola_result(m, ("play", 60, 0, 0, 0)))
    r = cfg.restore(m.snapshot())
    assert r.standings()["playoffs"] == [[60, 60]] and not r.is_over
    for x in (m, r):
        x.record(briscola_result(x, ("play", 60, 0, 0, 0)))
        x.record(briscola_result(x, ("play", 60, 0, 0, 1)))  # seat 1 took the last trick
    assert observe(r) == observe(m)
    assert r.standings()["winner"] == 0
    assert r.standings()["decided_by"] == "last trick of play-off 3"


def test_briscola_hands_counted_without_history() -> None:
    """BRISCOLA-8: hands played and the next dealer come from counters, not past results."""
    cfg = Config("briscola", "smazzate", 4, 1)
    m = cfg.new()
    m.record(briscola_result(m, ("play", 80, 0, 0, 0)))
    m.record(briscola_result(m, ("void", 0, 0, 0, 0)))
    r = cfg.restore(m.snapshot())
    assert r.standings()["hands"] == 1 and r.standings()["next_dealer"] == 2
    assert r.new_hand().dealer == 2


@pytest.mark.parametrize("cfg,steps", [
    (Config("burraco", "fibur", 4, 0, {"target": 100_000}), ("play", 1500, -600, 0, 0)),
    (Config("briscola", "standard", 2, 0, {"target": 10_000}), ("play", 61, 0, 0, 0)),
    (Config("briscola", "torneo-ko", 2, 0, {"match_kind": "smazzate", "hands": 99}),
     ("play", 61, 0, 0, 0)),
])
def test_snapshot_size_does_not_grow(cfg: Config, steps: tuple[str, int, int, int, int]) -> None:
    """A hand at 40 costs what hand 1 costs: the snapshot holds no past results."""
    make = burraco_result if cfg.game == "burraco" else briscola_result
    m = cfg.new()
    m.record(make(m, steps))
    first = len(msgpack.packb(m.snapshot()))
    for _ in range(40):
        if m.is_over:
            break
        m.record(make(m, steps))
    assert len(msgpack.packb(m.snapshot())) <= first + 8  # a few more digits at most


# ---------------------------------------------------------------- refusals

def finished(cfg: Config, steps: list[tuple[str, int, int, int, int]]) -> dict[str, Any]:
    make = burraco_result if cfg.game == "burraco" else briscola_result
    m = cfg.new()
    for s in steps:
        m.record(make(m, s))
    return m.snapshot()


BUR = Config("burraco", "fibur", 4, 1, {"target": 505})
BRI = Config("briscola", "torneo-ko", 2, 1)
BUR_SNAP = finished(BUR, [("play", 300, 100, 0, 0)])
BRI_SNAP = finished(BRI, [("play", 60, 0, 0, 0)])


@pytest.mark.parametrize("cfg,snap,change,message", [
    (BUR, BUR_SNAP, {"hands": True}, "integer"),
    (BUR, BUR_SNAP, {"hands": -1}, "hands"),
    (BUR, BUR_SNAP, {"seat_totals": [300, 100]}, "4 entries"),
    (BUR, BUR_SNAP, {"seat_totals": [300.0, 100, 300, 100]}, "integer"),
    (BUR, BUR_SNAP, {"dealer": 1}, "dealer"),
    (BUR, BUR_SNAP, {"variant": "pagat"}, "variant"),
    (BUR, BUR_SNAP, {"game": "briscola"}, "game"),
    (BUR, BUR_SNAP, {"n_seats": 2}, "n_seats"),
    (BUR, BUR_SNAP, {"target": 2005}, "target"),
    (BUR, BUR_SNAP, {"first_dealer": 0}, "first_dealer"),
    (BUR, BUR_SNAP, {"switched": True}, "3×11"),
    (BUR, BUR_SNAP, {"winner": 0}, "not over"),
    (BUR, BUR_SNAP, {"over": True, "decided_by": "target", "winner": 0}, "target"),
    (BUR, BUR_SNAP, {"over": True, "decided_by": "abandon", "winner": 0}, "abandoned_by"),
    (BUR, BUR_SNAP, {"over": True, "decided_by": "abandon", "abandoned_by": 0, "winner": 0},
     "winner"),
    (BUR, BUR_SNAP, {"over": True, "decided_by": "forfeit", "forfeit_by": 1, "winner": 0},
     "forfeit"),
    (BUR, BUR_SNAP, {"seat_totals": [600, 100, 600, 100]}, "not over"),
    (BUR, BUR_SNAP, {"colour": "blue"}, "unknown key"),
    (BUR, {k: v for k, v in BUR_SNAP.items() if k != "dealer"}, {}, "missing"),
    (BRI, BRI_SNAP, {"knockout": False}, "knockout"),
    (BRI, BRI_SNAP, {"match_kind": "smazzate"}, "match_kind"),
    (BRI, BRI_SNAP, {"hands": 2}, "hands"),
    (BRI, BRI_SNAP, {"points": [60]}, "2 entries"),
    (BRI, BRI_SNAP, {"points": [60, -1]}, "points"),
    (BRI, BRI_SNAP, {"in_playoff": False}, "not over"),
    (BRI, BRI_SNAP, {"playoffs": [[1, 2]] * 4}, "playoffs"),
    (BRI, BRI_SNAP, {"playoffs": [[70, 50]], "hands": 2, "dealer": 1}, "play-off"),
    (BRI, BRI_SNAP, {"over": True, "decided_by": "abandon", "winner": 1}, "abandoned_by"),
    (BRI, BRI_SNAP, {"over": True, "decided_by": "forfeit", "forfeit_by": 0, "winner": 0,
                     "forfeit_cause": "cheat", "hands": 2, "dealer": 1}, "lost by"),
    (BRI, BRI_SNAP, {"over": True, "decided_by": "play-off 1", "winner": 0}, "play-off"),
    (BRI, BRI_SNAP, {"over": True, "decided_by": "punti", "winner": 0}, "regular"),
    (BRI, BRI_SNAP, {"forfeit_cause": ""}, "forfeit_cause"),
])
def test_malformed_or_foreign_snapshot_is_refused(cfg: Config, snap: dict[str, Any],
                                                  change: dict[str, Any], message: str) -> None:
    bad = {**snap, **change}
    with pytest.raises(ValueError, match=message):
        cfg.restore(bad)


@pytest.mark.parametrize("cfg", [BUR, BRI])
@pytest.mark.parametrize("snap", [None, [], "snapshot", {1: 2}])
def test_a_snapshot_is_a_map(cfg: Config, snap: Any) -> None:
    with pytest.raises(ValueError, match="map"):
        cfg.restore(snap)


def test_restore_with_other_arguments_is_refused() -> None:
    with pytest.raises(ValueError, match="target"):
        Config("burraco", "fibur", 4, 1, {"target": 1005}).restore(BUR_SNAP)
    with pytest.raises(ValueError, match="each_for_himself"):
        Config("burraco", "fibur", 3, 0, {"each_for_himself": True}).restore(
            finished(Config("burraco", "fibur", 3), []))
    with pytest.raises(ValueError, match="first_dealer"):
        Config("briscola", "torneo-ko", 2, 0).restore(BRI_SNAP)
    with pytest.raises(ValueError, match="unknown Briscola match option"):
        Config("briscola", "torneo-ko", 2, 1, {"colour": 1}).restore(BRI_SNAP)


ODD = [None, True, False, -1, 0, 1, 2, 7, 61, 10**9, "", "x", "abandon", "forfeit", "target",
       "play-off 1", [], [0, 0], [0, 0, 0, 0], [[60, 60]], {}, 1.5]


@pytest.mark.parametrize("cfg", BURRACO_CONFIGS[:6] + BRISCOLA_CONFIGS[:7],
                         ids=lambda c: f"{c.game}-{c.variant}-{c.n_seats}")
@given(steps=st.data(), key=st.integers(0, 30), value=st.sampled_from(ODD))
def test_a_tampered_snapshot_is_refused_or_round_trips(cfg: Config, steps: st.DataObject,
                                                       key: int, value: Any) -> None:
    """Any one key changed: a ValueError, never another exception; if accepted, the match
    it gives has that very snapshot (nothing silently dropped or coerced)."""
    drawn = steps.draw(briscola_steps_st if cfg.game == "briscola" else steps_st)
    make = burraco_result if cfg.game == "burraco" else briscola_result
    m = cfg.new()
    for s in drawn:
        if m.is_over:
            break
        m.record(make(m, s))
    snap = m.snapshot()
    name = sorted(snap)[key % len(snap)]
    bad = {**snap, name: value}
    try:
        r = cfg.restore(bad)
    except ValueError:
        return
    assert r.snapshot() == bad
