"""End to end from the command line (PROTOCOL.md § 8.13): `selfplay --fair --record` writes
transcripts that `verify` accepts (exit 0, a human summary), one by one or as a whole match
whose hands chain by hash; a doctored file is a cheat (exit 1) naming the deviation; a file
that is no transcript at all exits 3; `bench deal` prints its figures."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from p2p_burraco.cli import main
from p2p_burraco.fairdeal import group
from p2p_burraco.fairdeal.transcript import Transcript
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.table.audit import audit_transcript
from p2p_burraco.table.inprocess import run_fair_selfplay


@pytest.mark.slow
def test_fair_selfplay_burraco_records_hands_that_verify(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    rec = tmp_path / "rec"
    assert main(["selfplay", "--game", "burraco", "--players", "4", "--hands", "1", "--fair",
                 "--record", str(rec), "--quiet", "--seed", "3"]) == 0
    files = sorted(rec.iterdir())
    assert [f.name for f in files] == ["hand-001.p2pb"]
    capsys.readouterr()
    assert main(["verify", *map(str, files)]) == 0
    out = capsys.readouterr().out
    assert "burraco (fibur), 4 seats" in out and "verdict: FAIR" in out
    assert len(re.findall(r"seat \d dealt: (?:\S+ ){10}\S+\n", out)) == 4   # 11 cards each
    assert "face up:" in out and "result (" in out


def test_fair_selfplay_briscola_and_a_doctored_file(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "rec"
    assert main(["selfplay", "--game", "briscola", "--players", "2", "--hands", "2", "--fair",
                 "--record", str(rec), "--quiet", "--seed", "3"]) == 0
    files = sorted(map(str, rec.iterdir()))
    assert len(files) >= 1
    capsys.readouterr()
    assert main(["verify", "--quiet", *files]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"{files[0]}: fair"
    # the match as a whole: its hands chain from the first to the last
    assert main(["verify", "--quiet", str(rec)]) == 0
    assert f"{len(files)} hand(s), chain OK: fair" in capsys.readouterr().out
    for f in files:
        report = audit_transcript(Transcript.load(f))
        assert report.verdict.fair and report.outcome is not None
        assert report.outcome.kind == "scored" and report.signed == [0, 1]
    # seat 1 "remembers" a better card: its first action claims another card
    t = Transcript.load(files[0])
    i = next(i for i, e in enumerate(t.entries) if e.get("type") == "action" and e["cards"])
    t.entries[i]["cards"][0] = (t.entries[i]["cards"][0] + 1) % 40
    bad = tmp_path / "bad.p2pb"
    t.save(str(bad))
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "NOT FAIR" in out and f"bad_signature at message {i}" in out
    garbage = tmp_path / "garbage.p2pb"
    garbage.write_bytes(os.urandom(64))
    assert main(["verify", str(garbage)]) == 3
    assert "not a recorded hand or match" in capsys.readouterr().out


def test_selfplay_transcripts_are_deterministic(tmp_path: Path) -> None:
    cfg = SelfplayConfig(game="briscola", players=2, hands=1, seed=9)
    run_fair_selfplay(cfg, record_dir=str(tmp_path / "a"))
    run_fair_selfplay(cfg, record_dir=str(tmp_path / "b"))
    a = (tmp_path / "a" / "hand-001.p2pb").read_bytes()
    assert a == (tmp_path / "b" / "hand-001.p2pb").read_bytes()


def test_bench_deal_prints_time_and_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    before = group.MULTIPLICATIONS[0]
    assert main(["bench", "deal", "--seats", "2", "--cards", "40", "--rounds", "1"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    m = re.fullmatch(r"deal ([\d.]+) ms, floor ([\d.]+) ms, ratio ([\d.]+)", last)
    assert m, last
    assert float(m.group(1)) > 0 and float(m.group(2)) > 0
    # 2 seats × (shuffle + lock) × 40 cards, plus 3 own + 1 public card decoded per seat
    assert group.MULTIPLICATIONS[0] - before >= 2 * 2 * 40 * 2


def test_bench_deal_refuses_impossible_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "deal", "--seats", "7", "--cards", "108"]) == 2
    assert "--seats must be 2..6" in capsys.readouterr().err
