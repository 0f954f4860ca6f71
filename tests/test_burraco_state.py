"""The hand as a state machine: turn order, pile, pozzetto, closing, ends, seat counts,
atomic apply, notation and views — each test names the rule ids it checks."""

from __future__ import annotations

import pytest
from burracokit import pos

from p2p_burraco.games.base import ActionSyntaxError, RuleViolation, check_cards_conserved
from p2p_burraco.games.burraco import PRESETS, BurracoHand, deal_schedule, new_match
from p2p_burraco.games.burraco import actions as A


def do(st: BurracoHand, seat: int, text: str) -> None:
    st.apply(seat, st.parse_action(seat, text))
    check_cards_conserved(st)


def refused(st: BurracoHand, seat: int, text: str, rule: str) -> RuleViolation:
    before = (st.public_view(), [list(h) for h in st.hands], list(st.known))
    with pytest.raises(RuleViolation) as info:
        st.apply(seat, st.parse_action(seat, text))
    assert info.value.rule_id == rule, str(info.value)
    assert (st.public_view(), [list(h) for h in st.hands], list(st.known)) == before
    return info.value


# ---------------------------------------------------------------- deal and turn order

@pytest.mark.parametrize("variant,n,pozz,face_up,deck", [
    ("fibur", 2, (11, 11), True, 108), ("fibur", 3, (18, 11), True, 108),
    ("fibur", 4, (11, 11), True, 108), ("fibur", 5, (18, 11, 11), True, 162),
    ("fibur", 6, (11, 11), True, 162), ("pagat", 4, (11, 11), True, 108),
    ("buraco", 4, (11, 11), False, 108), ("classic", 2, (11, 11), True, 108),
    ("modificato", 4, (11, 11), False, 108),
])
def test_deal_schedule(variant: str, n: int, pozz: tuple[int, ...], face_up: bool,
                       deck: int) -> None:
    """FIBUR-1 FIBUR-2 PAGAT-2 CLASSIC-2 BURACO-2 MODIF-4 FIBUR-36 FIBUR-37: the public deal."""
    sch = deal_schedule(PRESETS[variant], n, 0)
    assert sch.deck_size == deck
    assert all(len(h) == 11 for h in sch.hands)
    assert tuple(len(p) for p in sch.pozzetti) == pozz
    assert (sch.face_up is not None) == face_up
    everything = sorted(p for h in sch.hands for p in h) + [p for z in sch.pozzetti for p in z]
    assert len(set(everything)) == len(everything)


def test_each_for_himself_and_switch_schedule() -> None:
    """FIBUR-34 FIBUR-38: one 11-card pozzetto per player."""
    r = PRESETS["fibur"]
    assert [len(p) for p in deal_schedule(r, 3, 0, switched=True).pozzetti] == [11, 11, 11]
    assert [len(p) for p in deal_schedule(r, 5, 0, each_for_himself=True).pozzetti] == [11] * 5


@pytest.mark.parametrize("variant,dealer,first", [
    ("fibur", 0, 1), ("pagat", 3, 0), ("classic", 1, 2), ("modificato", 1, 0),
])
def test_first_player(variant: str, dealer: int, first: int) -> None:
    """FIBUR-3 PAGAT-3 CLASSIC-3 MODIF-4: the dealer's left begins (modificato: the right)."""
    assert BurracoHand(PRESETS[variant], 4, dealer).to_move == first


def test_turn_order_draw_then_play_then_discard() -> None:
    """FIBUR-5 FIBUR-6 FIBUR-7 CLASSIC-17 PAGAT-4 BURACO-3: draw first, one discard ends the turn."""
    st = pos("fibur 4 | turn 0 draw | hand 7h 8h 9h Ks 4c | pile Qs")
    assert st.legal_kinds(0) == ("draw", "take")
    assert st.legal_kinds(1) == ()
    refused(st, 0, "meld 7h 8h 9h", "FIBUR-5")
    refused(st, 0, "discard Ks", "FIBUR-5")
    with pytest.raises(RuleViolation, match="seat 0's turn"):
        st.apply(1, A.Draw())
    do(st, 0, "draw")
    refused(st, 0, "draw", "FIBUR-5")
    do(st, 0, "meld 7h 8h 9h")
    do(st, 0, "discard Ks")
    assert st.to_move == 1 and st.phase == "draw"


def test_take_the_whole_pile_not_only_its_top() -> None:
    """PAGAT-4 FIBUR-5: the whole pile; CLASSIC-8: classic may take only the top card."""
    st = pos("pagat 4 | turn 0 draw | hand 7h 8h | pile Qs 4d 9h")
    assert "take_top" not in st.legal_kinds(0)
    with pytest.raises(RuleViolation) as info:
        st.apply(0, A.TakeTop())
    assert info.value.rule_id == "PAGAT-4"
    do(st, 0, "take")
    assert len(st.hands[0]) == 5 and st.pile == []
    cl = pos("classic 4 | turn 0 draw | hand 7h 8h 5c | side0 Ks Kd Kc | pile Qs 4d 9h")
    do(cl, 0, "take top")
    assert len(cl.hands[0]) == 4 and len(cl.pile) == 2


def test_own_cards_only() -> None:
    """FIBUR-8: a card not in the hand is refused, naming the card."""
    st = pos("fibur 4 | turn 0 play | hand 7h 8h 9h Ks")
    with pytest.raises(RuleViolation, match="7s is not in your hand") as info:
        st.parse_action(0, "meld 7s 8h 9h")
    assert info.value.rule_id == "FIBUR-8"
    h = st.hands[0]
    bogus = A.Meld(groups=(((h[0], st.known[h[1]]), (h[1], st.known[h[1]]), (h[2], st.known[h[2]])),))
    with pytest.raises(RuleViolation):
        st.apply(0, bogus)


def test_attach_only_to_own_side() -> None:
    """FIBUR-19 PAGAT-7 CLASSIC-1 BURACO-17: melds belong to a side; partners share them."""
    st = pos("fibur 4 | turn 0 play | hand 10s 6d Ks 4c | side0 7s 8s 9s | side1 3d 4d 5d")
    refused(st, 0, "attach 1 6d", "FIBUR-19")
    do(st, 0, "attach 0 10s")
    st2 = pos("fibur 4 | turn 2 play | hand 10s 6d Ks 4c | side0 7s 8s 9s | counts 11 11 11")
    do(st2, 2, "attach 0 10s")  # seat 2 attaches to its partner's meld


def test_one_set_per_rank_per_side() -> None:
    """PAGAT-9: one set of a rank per side; FIBUR-11: several allowed."""
    st = pos("pagat 4 | turn 0 play | hand Kh Kc JK 5c 6d | side0 Ks Kd Kc")
    refused(st, 0, "meld Kh Kc JK", "PAGAT-9")
    fb = pos("fibur 4 | turn 0 play | hand Kh Kc JK 5c 6d | side0 Ks Kd Kc")
    do(fb, 0, "meld Kh Kc JK")


def test_cards_on_the_table_never_return() -> None:
    """FIBUR-18 PAGAT-8 CLASSIC-5: melded and attached cards stay; a replaced wild stays in
    the meld (it never returns to the hand)."""
    st = pos("pagat 4 | turn 0 play | hand 9s 4c 5d | side0 7s 8s 2c 10s")
    do(st, 0, "attach 0 9s")  # the pinella is replaced: it moves down, it stays on the table
    m = st.melds[0]
    assert [str(st.face(p)) for p in m.positions] == ["2c", "7s", "8s", "9s", "10s"]
    assert all(st.owner[p] == -3 for p in m.positions)
    assert len(st.hands[0]) == 2
    assert not any(a.kind == "take" for a in st.legal_actions(0))


# ---------------------------------------------------------------- single pile, stalemate

def test_single_card_pile() -> None:
    """FIBUR-39 PAGAT-5: the lone card taken cannot go straight back; the other copy may."""
    st = pos("fibur 4 | turn 0 draw | hand 4c 9d Qh | pile Qs")
    do(st, 0, "take")
    qs = st.hands[0][-1]
    with pytest.raises(RuleViolation) as info:
        st.apply(0, A.Discard((qs, st.known[qs])))
    assert info.value.rule_id == "FIBUR-39"
    st2 = pos("pagat 4 | turn 0 draw | hand 4c Qs Qh | pile Qs")
    do(st2, 0, "take")
    taken = st2.hands[0][-1]
    other = st2.hands[0][1]
    with pytest.raises(RuleViolation) as info:
        st2.apply(0, A.Discard((taken, st2.known[taken])))
    assert info.value.rule_id == "PAGAT-5"
    st2.apply(0, A.Discard((other, st2.known[other])))  # the other copy is fine


def test_modificato_may_discard_the_card_just_taken() -> None:
    """MODIF-5: no single-card pile rule."""
    st = pos("modificato 4 | turn 0 draw | hand 4c 9d Qh | side0 3h 4h 5h | pile Qs")
    do(st, 0, "take")
    qs = st.hands[0][-1]
    st.apply(0, A.Discard((qs, st.known[qs])))


def test_stalemate_after_a_full_orbit() -> None:
    """PAGAT-20: every player in turn takes the one-card pile and discards: the hand ends."""
    st = pos("pagat 4 | turn 0 draw | hand 4c 9d | counts 2 2 2 | pile Qs")
    for seat in range(4):
        do(st, seat, "take")
        keep = st.hands[seat][-1]
        other = next(p for p in st.hands[seat] if p != keep)
        st.apply(seat, A.Discard((other, st.known[other])))
    assert st.is_over and st.end_reason == "stalemate"
    assert st.result().reason == "stalemate"
    fb = pos("fibur 4 | turn 0 draw | hand 4c 9d | counts 2 2 2 | pile Qs")
    for seat in range(3):
        do(fb, seat, "take")
        keep = fb.hands[seat][-1]
        other = next(p for p in fb.hands[seat] if p != keep)
        fb.apply(seat, A.Discard((other, fb.known[other])))
    assert not fb.is_over  # three idle turns of four: the orbit is not complete


# ---------------------------------------------------------------- pozzetto

def test_pozzetto_al_volo_continues_the_turn() -> None:
    """FIBUR-20 PAGAT-16 BURACO-10 CLASSIC-10: melding every card takes the pozzetto at once."""
    st = pos("fibur 4 | turn 0 play | hand 7h 8h 9h")
    do(st, 0, "meld 7h 8h 9h")
    assert len(st.hands[0]) == 11 and st.to_move == 0 and st.phase == "play"
    assert st.pozzetti[0].taken_by == 0 and st.pozzetti[0].in_hand
    assert st.audience(st.pozzetti[0].positions[0]) == frozenset({0})
    assert not st.is_over


def test_pozzetto_after_a_discard_waits_face_down() -> None:
    """FIBUR-20 PAGAT-16: emptying the hand by discarding (even a wild) sets the pozzetto
    aside, unseen by anyone, until the player's next turn."""
    st = pos("fibur 4 | turn 0 play | hand 7h 8h 9h JK")
    do(st, 0, "meld 7h 8h 9h")
    do(st, 0, "discard JK")
    pz = st.pozzetti[0]
    assert pz.taken_by == 0 and not pz.in_hand and st.hands[0] == []
    assert st.audience(pz.positions[0]) == frozenset()
    assert ("aside:0", pz.positions[0]) in st.physical_locations()
    for seat in (1, 2, 3):
        do(st, seat, "draw")
        do(st, seat, f"discard {st.face(st.hands[seat][0])}")
    assert st.to_move == 0 and len(st.hands[0]) == 11 and pz.in_hand
    assert st.audience(pz.positions[0]) == frozenset({0})


def test_the_other_pozzetto_is_reserved() -> None:
    """FIBUR-21 PAGAT-17 CLASSIC-10: a side takes one pozzetto; the other waits for the
    opponents, and running out again must be a closing."""
    st = pos("fibur 4 | turn 1 play | hand 7h 8h 9h | pozzetto 0")
    do(st, 1, "meld 7h 8h 9h")
    assert st.pozzetti[1].taken_by == 1 and st.team_pozzetto == {0: 0, 1: 1}
    st2 = pos("fibur 4 | turn 0 play | hand 7h 8h 9h 5c | pozzetto 0")
    refused(st2, 0, "meld 7h 8h 9h", "FIBUR-22")  # no burraco: would leave 5c undiscardable


# ---------------------------------------------------------------- closing

BURR = "side0 3d 4d 5d 6d 7d 8d 9d"


def test_closing_needs_pozzetto_burraco_and_a_discard() -> None:
    """FIBUR-22 PAGAT-18: the side has its pozzetto and a burraco; the last card is discarded."""
    st = pos(f"fibur 4 | turn 0 play | hand 5c | {BURR} | pozzetto 0 | counts 0 0 0")
    do(st, 0, "discard 5c")
    assert st.is_over and st.closed_by == 0 and st.end_reason == "closed"
    no_burraco = pos("fibur 4 | turn 0 play | hand 5c | side0 3d 4d 5d | pozzetto 0")
    refused(no_burraco, 0, "discard 5c", "FIBUR-22")


def test_closing_with_a_wild_is_refused() -> None:
    """FIBUR-23 PAGAT-18: the closing discard may not be a wild card."""
    st = pos(f"fibur 4 | turn 0 play | hand JK | {BURR} | pozzetto 0")
    refused(st, 0, "discard JK", "FIBUR-23")
    pg = pos(f"pagat 4 | turn 0 play | hand 2c | {BURR} | pozzetto 0")
    refused(pg, 0, "discard 2c", "PAGAT-18")


def test_never_stuck_with_only_a_wild() -> None:
    """FIBUR-23: a meld that would leave only an undiscardable wild in hand is refused, so a
    player is never left without a legal move."""
    st = pos(f"fibur 4 | turn 0 play | hand 10d JK | {BURR} | pozzetto 0")
    refused(st, 0, "attach 0 10d", "FIBUR-23")
    kinds = {a.kind for a in st.legal_actions(0)}
    assert "discard" in kinds
    acts = [str(a) for a in st.legal_actions(0)]
    assert "attach 0 10d" not in acts  # would leave only the JK, which cannot close
    do(st, 0, "attach 0 JK")  # the wild goes on; 10d stays as the closing discard
    do(st, 0, "discard 10d")
    assert st.is_over


def test_closing_without_discard_refused_under_fibur_allowed_in_classic() -> None:
    """FIBUR-24 PAGAT-18: no closing by melding everything; CLASSIC-11 MODIF-6 BURACO-11:
    the classic and Brazilian games let the last card be melded."""
    st = pos(f"fibur 4 | turn 0 play | hand 10d | {BURR} | pozzetto 0")
    refused(st, 0, "attach 0 10d", "FIBUR-24")
    cl = pos(f"classic 4 | turn 0 play | hand 10d | {BURR} | pozzetto 0 | counts 0 0 0")
    do(cl, 0, "attach 0 10d")
    assert cl.is_over and cl.closed_by == 0
    md = pos(f"modificato 4 | turn 0 play | hand 10d | {BURR} | pozzetto 0 | counts 0 0 0")
    do(md, 0, "attach 0 10d")
    assert md.is_over


def test_buraco_needs_a_clean_canasta_to_close() -> None:
    """BURACO-11: a clean canasta (option close_needs_clean)."""
    dirty = "side0 3d 4d 5d JK 7d 8d 9d"
    st = pos(f"buraco 4 | turn 0 play | hand 5c | {dirty} | pozzetto 0")
    refused(st, 0, "discard 5c", "BURACO-11")
    ok = pos(f"buraco 4 | turn 0 play | hand 5c | {BURR} | pozzetto 0")
    do(ok, 0, "discard 5c")
    assert ok.is_over


# ---------------------------------------------------------------- stock end

def test_hand_ends_at_two_stock_cards_and_the_pile_is_never_recycled() -> None:
    """FIBUR-25 PAGAT-19: the turn that leaves two stock cards is finished, then it ends."""
    st = pos("fibur 4 | turn 0 draw | hand 4c 9d | stock 3 | pile Qs")
    do(st, 0, "draw")
    assert st.stock_count == 2 and not st.is_over
    do(st, 0, "discard 4c")
    assert st.is_over and st.end_reason == "stock" and st.stock_count == 2
    assert st.closed_by is None
    assert st.legal_kinds(1) == () and list(st.legal_actions(1)) == []


@pytest.mark.parametrize("variant,rule", [("buraco", "BURACO-12"), ("classic", "CLASSIC-18")])
def test_hand_ends_when_the_stock_is_exhausted(variant: str, rule: str) -> None:
    """BURACO-12 CLASSIC-18: after the turn that draws the last stock card."""
    side = "side0 3h 4h 5h | " if variant != "buraco" else ""
    st = pos(f"{variant} 4 | turn 0 draw | hand 4c 9d | {side}stock 1 | pile Qs")
    do(st, 0, "draw")
    do(st, 0, "discard 4c")
    assert st.is_over and st.stock_count == 0, rule


# ---------------------------------------------------------------- classic opening

def test_classic_take_needs_opening() -> None:
    """CLASSIC-8: an unopened pair takes only together with its opening."""
    st = pos("classic 4 | turn 0 draw | hand 7h 8h 4c 5d | pile Qs 9h")
    refused(st, 0, "take", "CLASSIC-8")
    acts = [str(a) for a in st.legal_actions(0)]
    assert "take meld 7h 8h 9h" in acts
    do(st, 0, "take meld 7h 8h 9h")
    assert st.opened(0) and len(st.hands[0]) == 3  # 4c 5d Qs


def test_classic_opening_of_75_from_1000_points() -> None:
    """CLASSIC-9: from 1000 points the opening totals 75 points or holds a buracco."""
    st = pos("classic 4 | turn 0 play | hand 7h 8h 9h Ks Kd Kc Qh Qd Qc 4c 5d")
    st.open_req = (75, 0, 75, 0)
    refused(st, 0, "meld 7h 8h 9h", "CLASSIC-9")
    do(st, 0, "meld 7h 8h 9h / Ks Kd Kc / Qh Qd Qc")  # 25 + 30 + 30 = 85
    assert st.opened(0)
    m = new_match(PRESETS["classic"], 4, first_dealer=0)
    m.seat_totals = [1000, 0, 1000, 0]
    assert m.new_hand().open_req == (75, 0, 75, 0)


def test_modificato_keeps_the_classic_pile_rules() -> None:
    """MODIF-8: apart from its changes, modificato plays as classic: top card, opening."""
    st = pos("modificato 4 | turn 0 draw | hand 7h 8h 4c 5d | pile Qs 9h")
    refused(st, 0, "take", "CLASSIC-8")
    do(st, 0, "take top meld 7h 8h 9h")
    assert st.pile and st.opened(0)


def test_modificato_first_turn_redraw() -> None:
    """MODIF-4: no face-up card; the first player may put the drawn card on the pile and
    draw again, then discards."""
    st = BurracoHand(PRESETS["modificato"], 4, 1)
    for p in range(len(st.deck)):
        st.learn(p, p)
    first = st.to_move
    assert first == 0 and st.pile == []
    assert st.legal_kinds(first) == ("draw",)
    do(st, first, "draw")
    assert "redraw" in st.legal_kinds(first)
    drawn = st.hands[first][-1]
    do(st, first, "redraw")
    assert st.pile == [drawn] and len(st.hands[first]) == 12
    assert "redraw" not in st.legal_kinds(first)
    do(st, first, f"discard {st.face(st.hands[first][0])}")
    assert st.to_move == 1
    assert "redraw" not in [a.kind for a in _play_draw(st, 1)]


def _play_draw(st: BurracoHand, seat: int) -> list[A.Action]:
    st.apply(seat, A.Draw())
    return list(st.legal_actions(seat))


# ---------------------------------------------------------------- 3, 5, 6 seats

def test_three_seats_sides_form_at_the_18() -> None:
    """FIBUR-33: alone until someone takes the 18; then the other two pair up with the 11."""
    st = pos("fibur 3 | turn 1 play | hand 7h 8h 9h | side0 3c 4c 5c | side2 Ks Kd Kc")
    assert st.teams() == [(0,), (1,), (2,)]
    do(st, 1, "meld 7h 8h 9h")
    assert len(st.hands[1]) == 18
    assert st.teams() == [(0, 2), (1,)]
    assert {m.team for m in st.melds.values() if m.by in (0, 2)} == {0}
    assert st._available_pozzetto(0) == 1


def test_five_seats_two_pairs_of_opposite_players() -> None:
    """FIBUR-36: the first to the 18 alone; the four others pair with the one opposite."""
    st = pos("fibur 5 | turn 2 play | hand 7h 8h 9h")
    do(st, 2, "meld 7h 8h 9h")
    assert len(st.hands[2]) == 18
    assert st.teams() == [(0, 3), (1, 4), (2,)]


def test_six_seats_two_trios_and_four_two_pairs() -> None:
    """FIBUR-37 FIBUR-35 PAGAT-1 FIBUR-32: fixed partnerships."""
    assert BurracoHand(PRESETS["fibur"], 6, 0).teams() == [(0, 2, 4), (1, 3, 5)]
    assert BurracoHand(PRESETS["fibur"], 4, 0).teams() == [(0, 2), (1, 3)]
    assert BurracoHand(PRESETS["fibur"], 2, 0).teams() == [(0,), (1,)]
    with pytest.raises(ValueError):
        BurracoHand(PRESETS["pagat"], 3, 0)


# ---------------------------------------------------------------- notation, wire, views

def test_parse_and_print_round_trip_and_wire() -> None:
    """FIBUR-8: console words resolve to the seat's cards; wire form round-trips."""
    st = pos("fibur 4 | turn 0 play | hand 7h 8h 9h Ks JK 5c | side0 3c 4c 5c")
    for text in ("cala 7h 8h 9h", "meld JK 7h 8h", "attacca 0 JK", "attach 0 5c", "scarta Ks"):
        a = st.parse_action(0, text)
        assert st.action_from_wire(a.to_wire()) == a
        again = st.parse_action(0, str(a))
        assert again == a
    with pytest.raises(ActionSyntaxError):
        st.parse_action(0, "fly away")
    with pytest.raises(ActionSyntaxError):
        st.parse_action(0, "meld 7x")
    with pytest.raises(ActionSyntaxError):
        st.action_from_wire({"kind": "meld", "groups": "nope"})
    with pytest.raises(ActionSyntaxError):
        st.action_from_wire({"kind": "teleport"})


def test_views_show_what_each_may_see() -> None:
    """FIBUR-40: every view shows the hand counts; a player sees only its own cards."""
    st = pos("fibur 4 | turn 0 play | hand 7h 8h 9h | side1 3c 4c 5c | pile Qs")
    v = st.player_view(0)
    assert [c for _, c in v["hand"]] == ["7h", "8h", "9h"]
    assert v["hand_counts"] == [3, 11, 11, 11]
    pub = st.public_view()
    assert "hand" not in pub and pub["melds"][0]["cards"] == ["3c", "4c", "5c"]
    assert pub["pile"][0][1] == "Qs"
    import msgpack
    msgpack.packb(v, use_bin_type=True)
    hidden = st.hands[1][0]
    assert st.audience(hidden) == frozenset({1})
    assert st.audience(st.pile[0]) == frozenset(range(4))
    assert st.audience(len(st.deck) - 1) == frozenset()


def test_replica_without_hidden_cards_follows_the_public_stream() -> None:
    """FIBUR-2: a replica knowing only face-up cards applies the same actions."""
    full = BurracoHand(PRESETS["fibur"], 4, 3)
    host = BurracoHand(PRESETS["fibur"], 4, 3)
    for p in range(len(full.deck)):
        full.learn(p, p)
    assert full.schedule.face_up is not None
    host.learn(full.schedule.face_up, full.schedule.face_up)
    seat = full.to_move
    full.apply(seat, A.Draw())
    host.apply(seat, A.Draw())
    act = next(a for a in full.legal_actions(seat) if a.kind == "discard")
    host.apply(seat, act)
    full.apply(seat, act)
    assert host.public_view() == full.public_view()
    with pytest.raises(ValueError):
        host.learn(full.schedule.face_up, 0 if full.schedule.face_up else 1)


def test_learn_refuses_contradictions() -> None:
    st = BurracoHand(PRESETS["fibur"], 4, 0)
    st.learn(0, 5)
    with pytest.raises(ValueError):
        st.learn(0, 6)
    with pytest.raises(ValueError):
        st.learn(1, 5)
