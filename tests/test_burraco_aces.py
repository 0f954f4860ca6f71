"""Where the ace stands and what the long canastas pay, played through `apply` (issue 13):
FIBUR-10 / PAGAT-8 the ace after the king, in melding and in attaching, with `legal_actions`
offering both places; BURACO-14 the 500 and 1000 only for a canasta laid in one move (a fact
of the moves that built it); BURACO-18 ace to ace however it is built."""

from __future__ import annotations

import pytest
from test_burraco_scoring import play  # a position, then steps applied with cards conserved

from p2p_burraco.games.burraco import BurracoHand
from p2p_burraco.games.burraco import actions as A
from p2p_burraco.games.burraco.notation import parse_position
from p2p_burraco.games.burraco.scoring import side_lines

LOW_RUN = "2h 3h 4h 5h 6h JK 8h 9h 10h Jh Qh Kh"      # the joker stands for the 7
CLEAN_RUN = "2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh"
A_TO_K = "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh"


def meld0(st: BurracoHand) -> tuple[str, str | None]:
    view = st.public_view()["melds"][0]
    return " ".join(view["cards"]), view["class"]


ACE_PLACES = [
    # (ids, variant, meld on the table or "", steps, placed, class)
    ("FIBUR-10 FIBUR-27", "fibur", "", f"meld {LOW_RUN} Ah", f"{LOW_RUN} Ah", "semipuro"),
    ("FIBUR-10", "fibur", "", f"meld Ah {LOW_RUN}", f"Ah {LOW_RUN}", "sporco"),
    ("FIBUR-10 FIBUR-27", "fibur", LOW_RUN, "attach 0 Ah high", f"{LOW_RUN} Ah", "semipuro"),
    ("FIBUR-10", "fibur", LOW_RUN, "attach 0 Ah low", f"Ah {LOW_RUN}", "sporco"),
    ("FIBUR-10 FIBUR-27", "fibur", LOW_RUN, "attach 0 Ah", f"{LOW_RUN} Ah", "semipuro"),
    ("FIBUR-10 FIBUR-26", "fibur", CLEAN_RUN, "attach 0 Ah high", f"{CLEAN_RUN} Ah", "pulito"),
    ("FIBUR-10 FIBUR-26", "fibur", CLEAN_RUN, "attach 0 Ah low", f"Ah {CLEAN_RUN}", "pulito"),
    ("FIBUR-10", "fibur", "Jh Qh Kh", "attach 0 Ah low", "Jh Qh Kh Ah", None),  # only high fits
    ("FIBUR-10", "fibur", "2h 3h 4h", "attach 0 Ah high", "Ah 2h 3h 4h", None),  # only low fits
    ("PAGAT-8", "pagat", LOW_RUN, "attach 0 Ah high", f"{LOW_RUN} Ah", "sporco"),
    ("PAGAT-8", "pagat", "", f"meld {LOW_RUN} Ah", f"{LOW_RUN} Ah", "sporco"),
    ("CLASSIC-4 FIBUR-10", "classic", LOW_RUN, "attach 0 Ah high", f"{LOW_RUN} Ah", "sporco"),
]


@pytest.mark.parametrize("ids,variant,table,step,placed,cls", ACE_PLACES)
def test_ace_after_the_king_in_melding_and_attaching(ids: str, variant: str, table: str,
                                                      step: str, placed: str,
                                                      cls: str | None) -> None:
    """FIBUR-10 PAGAT-8 CLASSIC-4: the ace goes before the 2 or after the K; where both fit,
    the player's word (typed order, `low`/`high`) decides, else the better burraco."""
    side = f" | side0 {table}" if table else ""
    hand = LOW_RUN + " Ah" if not table else "Ah"
    st = play(f"{variant} 2 | turn 0 play | hand {hand} 5c 9c{side}", (0, step))
    assert meld0(st) == (placed, cls), ids


@pytest.mark.parametrize("variant,table,ids", [
    ("fibur", LOW_RUN, "FIBUR-10"), ("fibur", CLEAN_RUN, "FIBUR-10"),
    ("pagat", LOW_RUN, "PAGAT-8"), ("buraco", CLEAN_RUN, "BURACO-18"),
])
def test_legal_actions_offer_both_places_of_the_ace(variant: str, table: str, ids: str) -> None:
    """FIBUR-10 PAGAT-8 BURACO-18: where the ace fits at both ends, both are offered, and
    each offered action puts it where it says."""
    st = parse_position(f"{variant} 2 | turn 0 play | hand Ah 5c 9c | side0 {table}")
    placed = set()
    for act in st.legal_actions(0):
        if isinstance(act, A.Attach):
            trial = st.copy()
            trial.apply(0, trial.parse_action(0, str(act)))
            placed.add(meld0(trial)[0])
    assert placed == {f"Ah {table}", f"{table} Ah"}, ids
    melds = parse_position(f"{variant} 2 | turn 0 play | hand {table} Ah 5c 9c")
    offered = {" ".join(str(melds.face(p)) for p, _ in a.groups[0])
               for a in melds.legal_actions(0) if isinstance(a, A.Meld) and len(a.groups[0]) == 13}
    assert {f"Ah {table}", f"{table} Ah"} <= offered, ids


BURACO_SCRIPT = "buraco 2 | turn 0 play | hand {hand} 5c 9c 9d | hand1 4s 4d 4c 6s 6d"
ROYALS = [
    # (ids, hand, steps, bonus lines paid for canastas)
    ("BURACO-14", A_TO_K, [f"meld {A_TO_K}"], [500]),
    ("BURACO-14", A_TO_K, ["meld Ah 2h 3h 4h 5h 6h 7h", "attach 0 8h 9h 10h Jh Qh Kh"], [200]),
    ("BURACO-14", A_TO_K, ["meld Ah 2h 3h 4h 5h 6h 7h"] + [f"attach 0 {c}" for c in
                                                           ("8h", "9h", "10h", "Jh", "Qh", "Kh")],
     [200]),
    ("BURACO-14 BURACO-18", A_TO_K, [f"meld {CLEAN_RUN} Ah"], [500]),
    ("BURACO-14", f"{A_TO_K} Ah", [f"meld {A_TO_K} Ah"], [1000]),
    ("BURACO-14 BURACO-18", f"{A_TO_K} Ah", [f"meld {A_TO_K}", "attach 0 Ah"], [200]),
    ("BURACO-14 BURACO-18", f"{A_TO_K}", [f"meld {CLEAN_RUN}", "attach 0 Ah"], [200]),
    ("BURACO-18", f"Ah {LOW_RUN} Ah", [f"meld Ah {LOW_RUN} Ah"], [100]),
    ("BURACO-18", f"Ah {LOW_RUN} Ah", [f"meld Ah {LOW_RUN}", "attach 0 Ah"], [100]),
    ("BURACO-14", f"{A_TO_K} JK", [f"meld {A_TO_K}", "attach 0 JK"], [100]),
]


@pytest.mark.parametrize("ids,hand,steps,paid", ROYALS)
def test_buraco_500_and_1000_only_in_one_move(ids: str, hand: str, steps: list[str],
                                              paid: list[int]) -> None:
    """BURACO-14: clean A–K 500, clean A–A 1000, only when laid in one move; BURACO-18: a run
    may go from ace to ace however it is built (an ordinary canasta if not in one move)."""
    st = play(BURACO_SCRIPT.format(hand=hand), *[(0, s) for s in steps])
    lines = side_lines(st, 0, (0,))
    assert [ln.points for ln in lines if "canasta" in ln.label] == paid, (ids, lines)


def test_buraco_500_not_for_a_canasta_finished_on_a_later_turn() -> None:
    """BURACO-14: A–7 laid, the turn passes, 8–K attached later: an ordinary clean canasta."""
    st = play(BURACO_SCRIPT.format(hand=A_TO_K), (0, "meld Ah 2h 3h 4h 5h 6h 7h"),
              (0, "discard 5c"), (1, "draw"), (1, "discard 4s"), (0, "draw"),
              (0, "attach 0 8h 9h 10h Jh Qh Kh"))
    lines = side_lines(st, 0, (0,))
    assert [ln.points for ln in lines if "canasta" in ln.label] == [200]
    assert any("one move" in ln.label for ln in lines if "canasta" in ln.label)
