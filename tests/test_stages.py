"""The stages of a table, a room and a deal: enums equal to their old strings, with every
move in one table (p2p_burraco/stages.py); a move the table does not list is a bug."""

from __future__ import annotations

import pytest

from p2p_burraco.stages import (
    TRANSITIONS,
    DealPhase,
    RoomStatus,
    StageError,
    TableStage,
    advance,
)


def test_members_equal_the_strings_code_and_journals_used() -> None:
    assert [str(s) for s in TableStage] == ["idle", "hand", "signoff", "between", "over"]
    assert [str(s) for s in RoomStatus] == ["waiting", "playing", "over", "stalled"]
    assert [str(s) for s in DealPhase] == ["commit", "shuffle", "lock", "deal", "reveal",
                                           "closed"]
    assert TableStage.OVER == "over" and "over" in (TableStage.OVER,)


@pytest.mark.parametrize("machine", [TableStage, RoomStatus, DealPhase])
def test_every_stage_has_its_moves_listed(machine: type) -> None:
    assert set(TRANSITIONS[machine]) == set(machine)
    for here, nexts in TRANSITIONS[machine].items():
        assert all(isinstance(n, machine) for n in nexts), here


def test_a_listed_move_is_made_from_the_member_or_the_old_string() -> None:
    assert advance("idle", TableStage.HAND) is TableStage.HAND
    assert advance(TableStage.SIGNOFF, TableStage.BETWEEN) is TableStage.BETWEEN
    assert advance("deal", DealPhase.REVEAL) is DealPhase.REVEAL


@pytest.mark.parametrize("current, new", [
    ("over", TableStage.HAND),          # a match never comes back from its end
    ("hand", TableStage.BETWEEN),       # a hand closes through its sign-off
    ("playing", RoomStatus.WAITING),
    ("deal", DealPhase.COMMIT),
    ("closed", DealPhase.DEAL),
    ("no such stage", TableStage.OVER),
])
def test_an_unlisted_move_is_a_bug_not_bad_input(current: str, new: TableStage) -> None:
    with pytest.raises(StageError) as exc:
        advance(current, new)
    assert not isinstance(exc.value, ValueError)


def test_the_owners_hold_the_enums_through_a_whole_hand() -> None:
    from test_table_host import make_table

    t = make_table("briscola", players=2, seed=3)
    assert type(t.host.stage) is TableStage and t.host.stage == "idle"
    t.play_hand()
    assert type(t.host.stage) is TableStage and t.host.stage in ("between", "over")
    assert t.host.replica is not None
    assert type(t.host.replica.deal.phase) is DealPhase
