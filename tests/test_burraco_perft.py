"""Perft-style fixture: a position in notation → its number of legal actions (a cheap exact
regression net for the move generator; the ids the positions touch are named in the file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p_burraco.games.base import check_cards_conserved
from p2p_burraco.games.burraco.notation import parse_position

FIXTURE = Path(__file__).parent / "fixtures" / "burraco_perft.txt"
CASES = [tuple(line.rsplit("=>", 1)) for line in FIXTURE.read_text(encoding="utf-8").splitlines()
         if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("position,count", CASES)
def test_perft(position: str, count: str) -> None:
    st = parse_position(position.strip())
    check_cards_conserved(st)
    seat = st.to_move
    assert seat is not None
    actions = list(st.legal_actions(seat))
    assert len(actions) == int(count)
    texts = [str(a) for a in actions]
    assert len(set(texts)) == len(texts), "the generator repeats an action"
    for a in actions:  # every generated action applies, and round-trips through text
        trial = st.copy()
        trial.apply(seat, a)
        check_cards_conserved(trial)
        assert st.parse_action(seat, str(a)).kind == a.kind
