"""Every refusal cites a rule of the preset in play (issue 13): a walk over every kind of
illegal step, in every preset where it is illegal, checks that the id it cites belongs to that
preset's digest — defined there, or listed under the digest's "Shared rules". The same holds
for every id `p2p-burraco rules` prints."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from p2p_burraco.games.base import Action, RuleViolation
from p2p_burraco.games.burraco import PRESETS, BurracoHand, describe
from p2p_burraco.games.burraco import actions as A
from p2p_burraco.games.burraco.notation import parse_position

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
ID = r"(?:FIBUR|PAGAT|BURACO|CLASSIC|MODIF|TABLE)-\d+"


def digest_ids(variant: str) -> set[str]:
    """Ids a preset's digest (seeds/<preset>.md) defines or lists as shared."""
    text = (SEEDS / f"{variant}.md").read_text(encoding="utf-8")
    ids = set(re.findall(rf"^\s*-\s+\*\*({ID})\*\*", text, re.MULTILINE))
    shared = text.partition("## Shared rules")[2].split("\n## ")[0]
    return ids | set(re.findall(ID, shared))


ALL = tuple(PRESETS)
SETS = ("fibur", "pagat", "classic")
NO_SETS = ("buraco", "modificato")
NO_TOP = ("fibur", "pagat", "buraco")
TOP = ("classic", "modificato")
STRICT_CLOSE = ("fibur", "pagat")
STICKY = ("buraco", "classic", "modificato")
BURR = "side0 3d 4d 5d 6d 7d 8d 9d"
A_TO_A = "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah"

Step = str | Callable[[BurracoHand], Action]


def _ref(st: BurracoHand, pos: int) -> tuple[int, int]:
    cid = st.known[pos]
    assert cid is not None
    return (pos, cid)


def _other_seats_card(st: BurracoHand) -> Action:
    return A.Discard(_ref(st, st.hands[1][0]))


def _named_twice(st: BurracoHand) -> Action:
    r = _ref(st, st.hands[0][0])
    return A.Meld(groups=((r, r, r),))


def _empty_meld(st: BurracoHand) -> Action:
    return A.Meld(groups=())


def _redraw(st: BurracoHand) -> Action:
    return A.Redraw(_ref(st, st.hands[0][0]))


def _over(st: BurracoHand) -> Action:
    st.abandon(1)
    return A.Draw()


# (kind, position ({v} = the preset), seat, step, presets where the step is illegal)
WALK: list[tuple[str, str, int, Step, tuple[str, ...]]] = [
    ("not your turn", "{v} 4 | turn 0 draw | hand 4c 9d", 1, "draw", ALL),
    ("draw twice", "{v} 4 | turn 0 play | hand 4c 9d", 0, "draw", ALL),
    ("meld before drawing", "{v} 4 | turn 0 draw | hand 7h 8h 9h 4c | side0 3s 4s 5s", 0,
     "meld 7h 8h 9h", ALL),
    ("discard before drawing", "{v} 4 | turn 0 draw | hand 4c 9d", 0, "discard 4c", ALL),
    ("hand over", "{v} 4 | turn 0 draw | hand 4c 9d", 0, _over, ALL),
    ("empty stock", "{v} 4 | turn 0 draw | hand 4c 9d | stock 0 | pile Qs", 0, "draw", ALL),
    ("empty pile", "{v} 4 | turn 0 draw | hand 4c 9d | side0 3s 4s 5s", 0, "take", ALL),
    ("top card only", "{v} 4 | turn 0 draw | hand 7h 8h 4c | pile 5s 9h", 0, "take top", NO_TOP),
    ("take and meld at once", "{v} 4 | turn 0 draw | hand 7h 8h 4c | side0 3s 4s 5s | pile 9h",
     0, "take meld 7h 8h 9h", ALL),
    ("take before opening", "{v} 4 | turn 0 draw | hand 7h 8h 4c | pile 9h", 0, "take", TOP),
    ("redraw after the first turn", "{v} 4 | turn 0 play | hand 4c 9d", 0, "redraw", ALL),
    ("redraw by wire", "{v} 4 | turn 0 play | hand 4c 9d", 0, _redraw, ALL),
    ("card not held", "{v} 4 | turn 0 play | hand 4c 9d", 0, "discard Qs", ALL),
    ("another seat's card", "{v} 4 | turn 0 play | hand 4c 9d", 0, _other_seats_card, ALL),
    ("a card named twice", "{v} 4 | turn 0 play | hand 4c 9d", 0, _named_twice, ALL),
    ("no cards to meld", "{v} 4 | turn 0 play | hand 4c 9d", 0, _empty_meld, ALL),
    ("opening under 75", "{v} 4 | turn 0 play | hand 7h 8h 9h 4c 9d", 0, "meld 7h 8h 9h", TOP),
    ("second set of a rank", "{v} 4 | turn 0 play | hand Kh Kc JK 5c 6d | side0 Ks Kd Kc", 0,
     "meld Kh Kc JK", ("pagat",)),
    ("no such meld", "{v} 4 | turn 0 play | hand 4c 9d | side0 3s 4s 5s", 0, "attach 5 4c", ALL),
    ("the other side's meld", "{v} 4 | turn 0 play | hand 6d 9c | side1 3d 4d 5d", 0,
     "attach 0 6d", ALL),
    ("lone pile card back", "{v} 4 | turn 0 play | hand 4c 9d Qs | single", 0, "discard Qs",
     STRICT_CLOSE),
    ("close without a burraco", "{v} 4 | turn 0 play | hand 5c | side0 3d 4d 5d | pozzetto 0",
     0, "discard 5c", ALL),
    ("close without a clean canasta",
     "{v} 4 | turn 0 play | hand 5c | side0 3d 4d 5d JK 7d 8d 9d | pozzetto 0", 0, "discard 5c",
     ("buraco",)),
    ("close with a wild", f"{{v}} 4 | turn 0 play | hand JK | {BURR} | pozzetto 0", 0,
     "discard JK", STRICT_CLOSE),
    ("close without a discard", f"{{v}} 4 | turn 0 play | hand 10d | {BURR} | pozzetto 0", 0,
     "attach 0 10d", STRICT_CLOSE),
    ("left with only a wild", f"{{v}} 4 | turn 0 play | hand 10d JK | {BURR} | pozzetto 0", 0,
     "attach 0 10d", STRICT_CLOSE),
    ("wild cards only", "{v} 4 | turn 0 play | hand 2c 2d JK 4c 9d | side0 3s 4s 5s", 0,
     "meld 2c 2d JK", ALL),
    ("two suits", "{v} 4 | turn 0 play | hand 7s 8h 9s 4c | side0 3s 4s 5s", 0,
     "meld 7s 8h 9s", ALL),
    ("a gap", "{v} 4 | turn 0 play | hand 7s 9s 10s 4c | side0 3s 4s 5s", 0, "meld 7s 9s 10s",
     ALL),
    ("two aces", "{v} 4 | turn 0 play | hand Ah 2h 3h Ah 4c | side0 3s 4s 5s", 0,
     "meld Ah 2h 3h Ah", ALL),
    ("wrap round", "{v} 4 | turn 0 play | hand Kh Ah 2h 3h 4c | side0 3s 4s 5s", 0,
     "meld Kh Ah 2h 3h", ALL),
    ("two wilds", "{v} 4 | turn 0 play | hand 7s JK 9s 2c 4c | side0 3s 4s 5s", 0,
     "meld 7s JK 9s 2c", ALL),
    ("two cards", "{v} 4 | turn 0 play | hand 7s 8s 4c | side0 3s 4s 5s", 0, "meld 7s 8s", ALL),
    ("a set where none are played", "{v} 4 | turn 0 play | hand Ks Kd Kc 4c | side0 3s 4s 5s",
     0, "meld Ks Kd Kc", NO_SETS),
    ("two ranks in a set", "{v} 4 | turn 0 play | hand Ks Kd Qc 4c", 0, "meld Ks Kd Qc", SETS),
    ("wrong rank on a set", "{v} 4 | turn 0 play | hand Qs 4c | side0 Ks Kd Kc", 0,
     "attach 0 Qs", SETS),
    ("a second wild on a set", "{v} 4 | turn 0 play | hand 2c 4c | side0 Ks Kd Kc JK", 0,
     "attach 0 2c", SETS),
    ("a wild for a wild", "{v} 4 | turn 0 play | hand JK 4c | side0 3h 4h 2c 6h", 0,
     "attach 0 JK", ALL),
    ("a wild moved without its card", "{v} 4 | turn 0 play | hand 5s 4c | side0 7s 8s JK", 0,
     "attach 0 5s", STICKY),
    ("a run too long", f"{{v}} 4 | turn 0 play | hand JK 4c | side0 {A_TO_A}", 0, "attach 0 JK",
     ("buraco",)),
    ("a set too long", "{v} 6 | turn 0 play | hand Ks Kd Kc Kh Ks Kd Kc Kh Ks 4c", 0,
     "meld Ks Kd Kc Kh Ks Kd Kc Kh Ks", ("fibur",)),
    ("ace after an ace", "{v} 4 | turn 0 play | hand Ah 4c | side0 Jh Qh Kh Ah", 0, "attach 0 Ah",
     ALL),
]

CASES = [(kind, v, pos, seat, step) for kind, pos, seat, step, where in WALK for v in where]


@pytest.mark.parametrize("kind,variant,position,seat,step", CASES,
                         ids=[f"{v}:{k}" for k, v, *_ in CASES])
def test_every_refusal_cites_its_presets_digest(kind: str, variant: str, position: str,
                                                seat: int, step: Step) -> None:
    """FIBUR-5 PAGAT-26 BURACO-3 BURACO-18 BURACO-19 CLASSIC-17 MODIF-7: a refusal cites an id
    of the preset in play; the state is unchanged."""
    st = parse_position(position.format(v=variant))
    if variant in TOP and kind == "opening under 75":
        st.open_req = (75, 0, 75, 0)
    with pytest.raises(RuleViolation) as info:
        act = step(st) if callable(step) else st.parse_action(seat, step)
        before = st.public_view()
        try:
            st.apply(seat, act)
        finally:
            assert st.public_view() == before
    assert info.value.rule_id in digest_ids(variant), (kind, variant, str(info.value))


def test_the_walk_reaches_every_preset() -> None:
    """Each preset is walked through at least 25 kinds of illegal step."""
    for v in PRESETS:
        assert sum(1 for _, w, *_ in CASES if w == v) >= 25, v


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_rules_text_cites_only_the_presets_digest(variant: str) -> None:
    """Every id `p2p-burraco rules --variant V` prints is in V's digest (TABLE-12 included
    where the seed has no stalemate rule)."""
    printed = set(re.findall(rf"\[({ID})\]", describe(PRESETS[variant])))
    assert printed and printed <= digest_ids(variant), sorted(printed - digest_ids(variant))
