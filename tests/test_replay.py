"""Replay (REPLAY-1, REPLAY-2): a recorded 4-seat Burraco hand stepped in the console from
the first card dealt to the score sheet, and its `--text` record byte-identical across
runs (here and in another process with another hash seed)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2p_burraco.cli import main as cli_main
from p2p_burraco.console.replay import Viewer, create_replay_app
from p2p_burraco.fairdeal.transcript import Transcript
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.table.inprocess import run_fair_selfplay
from p2p_burraco.table.replay import ReplayError, load, places, text_lines


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fair-dealt, recorded hand of a 4-seat FIBUR match (what `selfplay --fair --record`
    and a host write)."""
    d = tmp_path_factory.mktemp("rec")
    run_fair_selfplay(SelfplayConfig(game="burraco", variant="fibur", players=4, hands=1,
                                     seed=3, bots=("greedy",)), record_dir=str(d))
    assert [p.name for p in sorted(d.glob("*.p2pb"))] == ["hand-001.p2pb"]
    return d


def _cards_placed(viewer: Viewer) -> int:
    state = viewer.current.state(viewer.move)
    return sum(len(cards.split(": ", 1)[-1].split()) for w, cards in
               places(state, viewer.current.names))


def test_replay_1_steps_a_4_seat_hand_from_the_deal_to_the_score_sheet(recorded: Path) -> None:
    """REPLAY-1: every card face up from the deal on; one step per recorded move (each
    seat's signed action); every card in exactly one place at every step; the score sheet
    at the end is the audited outcome."""
    hands = load([str(recorded)])
    assert [r.hand_no for r in hands] == [0]
    r = hands[0]
    actions = [e for e in Transcript.load(r.path).entries if e.get("type") == "action"]
    assert len(r.steps) == len(actions) > 20
    v = Viewer(hands * 2)          # the hand twice stands for a match of two hands
    assert any("the deal (dealer" in ln for _, ln in v.lines())
    dealt = [cards for w, cards in places(r.start, r.names) if w.startswith("seat ")]
    assert len(dealt) == 4 and all(len(c.split()) == 11 and "??" not in c for c in dealt)
    for n in range(v.last + 1):
        v.go_move(n)
        assert _cards_placed(v) == 108, f"move {n}"
    text = "\n".join(ln for _, ln in v.lines())
    assert "score sheet" in text and r.outcome.describe() in text
    assert f"move {v.last} of {v.last}" in text
    v.go_move(v.last + 1)
    assert v.move == v.last and f"has moves 0..{v.last}, not" in v.footer()[0][1]
    v.go_hand(2)
    assert (v.hand, v.move) == (1, 0)
    v.go_hand(3)
    assert v.hand == 1 and "hands 1..2, not 3" in v.footer()[0][1]


def test_replay_1_the_viewer_keys_step_back_and_forth_and_jump(recorded: Path) -> None:
    """REPLAY-1: the keys, through the real application (pipe input): → ← End Home, a move
    number, a hand number, PgDn, q."""
    hands = load([str(recorded)]) * 2      # the hand twice stands for a match of two hands
    viewer = Viewer(hands)
    seen = []

    async def main() -> int:
        with create_pipe_input() as inp:
            app = create_replay_app(viewer, input=inp, output=DummyOutput())
            task = asyncio.ensure_future(app.run_async())
            for keys in ("\x1b[C\x1b[C\x1b[C", "\x1b[D", "\x1b[F", "\x1b[H", "12\r",
                         "\x1b[6~", "2h", "1h7\r"):
                inp.send_text(keys)
                for _ in range(100):
                    await asyncio.sleep(0.002)
                    if not viewer.typed:
                        break
                await asyncio.sleep(0.01)
                seen.append((viewer.hand, viewer.move))
            inp.send_text("q")
            return await asyncio.wait_for(task, 5)

    assert asyncio.run(main()) == 0
    last = len(hands[0].steps)
    assert seen == [(0, 3), (0, 2), (0, last), (0, 0), (0, 12), (1, 0), (1, 0), (0, 7)]


def test_replay_2_text_is_byte_identical_across_runs(recorded: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """REPLAY-2: `replay --text` of a hand: a deal diagram (each seat's cards as verify
    reports them dealt), one line per move, the score sheet — the same bytes in this
    process twice and in another process with another hash seed."""
    path = str(recorded / "hand-001.p2pb")
    assert cli_main(["replay", path, "--text"]) == 0
    first = capsys.readouterr().out
    assert cli_main(["replay", str(recorded), "--text", "--hand", "1"]) == 0
    assert capsys.readouterr().out == first
    other = subprocess.run([sys.executable, "-m", "p2p_burraco.cli", "replay", path, "--text"],
                           capture_output=True, env={**os.environ, "PYTHONHASHSEED": "12345"},
                           timeout=60, check=False)
    assert other.returncode == 0 and other.stdout == first.encode()
    lines = first.splitlines()
    assert lines[1].startswith("burraco fibur, 4 seats")
    assert cli_main(["verify", path]) == 0
    verify = capsys.readouterr().out
    for s in range(4):
        dealt = next(ln for ln in verify.splitlines() if f"seat {s} dealt:" in ln)
        mine = next(ln for ln in lines if ln.startswith(f"  seat {s} "))
        assert dealt.split(": ", 1)[1] == mine.split(": ", 1)[1]
    moves = [ln for ln in lines if ln.strip()[:1].isdigit() and ". seat " in ln]
    assert len(moves) == len(load([path])[0].steps)
    assert lines[lines.index("score sheet:") + 1].startswith("  outcome: played to its end")


def test_replay_bad_input_is_named(recorded: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """REPLAY-1 bad input: a clear error, exit 2 — a hand the record lacks, a file that is no
    transcript, a name that is neither a file nor a match id, a match id the history lacks,
    a record altered after it was signed."""
    junk = tmp_path / "junk.p2pb"
    junk.write_bytes(b"nope")
    cases = [
        (["replay", str(recorded), "--hand", "5", "--text"], "holds hand(s) 1"),
        (["replay", str(junk), "--text"], "cannot read a transcript"),
        (["replay", "no/such/thing"], "no such file or directory, and not a match id"),
        (["replay", "deadbeef00", "--data-dir", str(tmp_path)], "no match 'deadbeef00'"),
    ]
    altered = Transcript.load(str(recorded / "hand-001.p2pb"))
    action = next(e for e in altered.entries if e.get("type") == "action"
                  and e["action"].get("kind") == "discard")
    action["action"]["card"][1] = (action["action"]["card"][1] + 1) % 108
    (tmp_path / "altered").mkdir()
    altered.save(str(tmp_path / "altered" / "hand-001.p2pb"))
    cases.append((["replay", str(tmp_path / "altered" / "hand-001.p2pb"), "--text"],
                  "the record itself was altered or cut"))
    for argv, why in cases:
        assert cli_main(argv) == 2
        assert why in capsys.readouterr().err
    with pytest.raises(ReplayError):
        load([str(tmp_path / "empty")])


@pytest.mark.parametrize("how", ["abandon", "clock"])
def test_replay_1_an_abandonment_or_a_lost_clock_is_a_step(how: str, tmp_path: Path) -> None:
    """REPLAY-1: a hand that ended by an `abandon` statement (TABLE-9) or a Briscola move
    clock run out (TABLE-4) replays to the audited end: the step names it and the score
    sheet is the abandonment's."""
    from test_table_clocks import expect_deadline
    from test_table_host import actions_in_log, make_table

    from p2p_burraco.table.rules import TableRules

    if how == "abandon":
        t = make_table("briscola", 2, seed=11, audit=False)
        t.step({"e": "deal"})
        t.pump(until=lambda: actions_in_log(t) >= 5)
        t.seats[1].request_abandon()
        t.pump()
        want = "abandons the match"
    else:
        t = make_table("briscola", 2, seed=1, rules=TableRules(turn_ms=30_000),
                       sleeps={0: lambda n: n == 1, 1: lambda n: n == 1})
        t.step({"e": "deal"})
        t.pump()
        mover = t.host.replica.hand.to_move
        expect_deadline(t, 30_000, mover, "turn")
        want = "the clock ran out (turn): out of the hand [TABLE-9]"
    path = tmp_path / "hand-001.p2pb"
    path.write_bytes(t.records[-1].transcript.to_bytes())
    (r,) = load([str(path)])
    assert want in r.steps[-1].text and r.steps[-1].hand.is_over
    assert r.outcome.kind == "abandon"
    text = "\n".join(text_lines(r))
    assert "abbandono" in text



@pytest.mark.parametrize("party,refused", [("host", False), ("seat", False),
                                           ("record", True)])
def test_replay_1_only_an_altered_record_is_refused(recorded: Path, party: str,
                                                    refused: bool) -> None:
    """REPLAY-1: a hand whose verdict convicts the host or a seat is replayed (that is worth
    watching); one whose record was altered or cut (a fault of the record: no key signed
    it) is refused, since its moves are nobody's signed word."""
    from p2p_burraco.commands.verify import collect, verify_units
    from p2p_burraco.fairdeal.audit import Fault
    from p2p_burraco.table.replay import replay_hand

    units, _ = collect([str(recorded)])
    (h,) = verify_units(units, None)[0].hands
    seat = 1 if party == "seat" else None
    h.report.verdict.faults.append(Fault(seat, "false_timeout", 3, "injected", party))
    if refused:
        with pytest.raises(ReplayError, match="the record itself was altered or cut"):
            replay_hand(h)
    else:
        assert replay_hand(h).steps


def test_replay_at_80x24_speaks_like_the_console(recorded: Path) -> None:
    """Issue 47: the viewer names cards as the console does (Q♥, not Qh), seats by name and
    sides by letter; its keys fit one 80-column line; at the last move the score sheet is
    on the first rows of an 80×24 screen."""
    import math

    from p2p_burraco.console.replay import HINT

    hands = load([str(recorded)])
    v = Viewer(hands)
    assert len(HINT) <= 80
    v.go_move(v.last)
    lines = [ln for _, ln in v.lines()]
    text = "\n".join(lines)
    assert "♥" in text and not re.search(r"\b(?:10|[2-9AJQK])[hdcs]\b", text), text
    assert "side A" in text and "side 0" not in text and "seat 0" not in text
    end = lines.index("")                              # the score sheet ends here
    assert "score sheet" in lines[:end]
    used = sum(max(1, math.ceil(len(ln) / 80)) for ln in lines[:end])
    assert used <= 22, "\n".join(lines[:end])          # 24 rows less the two of the keys
