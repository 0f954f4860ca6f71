"""The match history (HIST-1..4): three matches recorded at their end by the host's hook,
listed with the results the transcripts give, stats that add up against the transcripts,
one transaction per match (a writer killed mid-write leaves a readable database), and the
schema's migrations."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from loopback import Loopback, start_table

from p2p_burraco.bots import make_strategy
from p2p_burraco.cli import main as cli_main
from p2p_burraco.fairdeal.transcript import Transcript
from p2p_burraco.net.host import HostConfig
from p2p_burraco.storage.history import (
    MIGRATIONS,
    SCHEMA_VERSION,
    HandRow,
    History,
    HistoryError,
    MatchRecord,
    SeatRow,
    history_path,
)
from p2p_burraco.storage.stats import burraco_kinds, compute, labels
from p2p_burraco.table.inprocess import BotController
from p2p_burraco.table.match_record import host_hook, index_records

GAMES = [("burraco", "fibur", 4, "greedy"), ("briscola", "standard", 2, "random"),
         ("briscola", "smazzate", 2, "random")]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three matches (one hand each) through a real host node and peers on the in-memory
    network, each recorded by the host's match-end hook — what `play` and `host` do."""
    data = tmp_path_factory.mktemp("data")
    for i, (game, variant, n, kind) in enumerate(GAMES):
        net = Loopback()
        cfg = HostConfig(data_dir=data, game=game, variant=variant, players=n, hands=1,
                         seed=2 + i, on_match_end=host_hook(lambda f, *a: f(*a), data, kind))
        ctls = [BotController(make_strategy(game, kind, random.Random(20 + i * 10 + s)))
                for s in range(n)]
        _, peers = start_table(net, cfg, ctls)
        assert all(p.done.called for p in peers)
    return data


def _transcripts(match_dir: Path) -> list[dict[str, Any]]:
    """Each hand's result as the host signed it in the transcript."""
    out = []
    for f in sorted(match_dir.glob("hand-*.p2pb")):
        end = Transcript.load(str(f)).hand_end
        assert end is not None
        out.append({"result": end["result"], "names": Transcript.load(str(f)).entries[0]
                    ["names"]})
    return out


def test_hist_1_history_lists_the_three_matches_with_the_transcripts_results(
        played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """HIST-1: every finished match is in the history: players and keys, game, rule set,
    each hand with its breakdown, the result and why it ended, transcripts, verdict."""
    with History(history_path(played)) as h:
        records = h.matches()
    assert len(records) == 3
    dirs = sorted((played / "matches").iterdir())
    assert sorted(r.directory for r in records) == [str(d.resolve()) for d in dirs]
    for rec in records:
        d = Path(rec.directory)
        result = json.loads((d / "result.json").read_text())
        assert (rec.match_id, rec.game, rec.variant, rec.reason) == \
            (result["match_id"], result["game"], result["variant"], result["reason"])
        assert list(rec.totals) == result["standings"]["totals"]
        assert rec.winner == result["standings"]["winner"]
        assert [(s.name, s.key) for s in rec.seats] == \
            [(s["name"], s["identity"]) for s in result["seats"]]
        assert rec.verdict == "fair" and rec.recorded_by == "host"
        hands = _transcripts(d)
        assert [Path(hr.path).name for hr in rec.hands] == result["transcripts"]
        for hr, t in zip(rec.hands, hands):
            r = t["result"]
            assert [list(s) for s in hr.sides] == r["sides"]
            assert list(hr.points) == r["points"]
            assert [[list(x) for x in side] for side in hr.breakdown] == r["breakdown"]
            assert hr.closed_by == r["closed_by"] and hr.reason == r["reason"]
    assert cli_main(["history", "--data-dir", str(played)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 and all("verify: fair" in ln for ln in out)
    assert cli_main(["history", "--data-dir", str(played), "--game", "briscola",
                     "--hands"]) == 0
    out = capsys.readouterr().out
    assert "briscola standard" in out and "burraco" not in out and "hand 1 (scored" in out
    assert "briscola smazzate" in out
    assert cli_main(["history", "--data-dir", str(played), "--player", "nobody"]) == 0
    assert "no finished matches of nobody" in capsys.readouterr().out
    burraco = next(r for r in records if r.game == "burraco")
    assert cli_main(["replay", burraco.match_id[:12], "--data-dir", str(played), "--text",
                     "--hand", "1"]) == 0                # a match by its id, from the history
    out = capsys.readouterr().out
    assert out.startswith(f"p2p-burraco replay: match {burraco.match_id}, hand 1")


def test_hist_4_stats_add_up_against_the_transcripts(
        played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """HIST-4: matches, wins, points a hand, burraco by kind, closings — recomputed here
    from the transcripts' signed results and result.json, and compared."""
    want: dict[str, dict[str, Any]] = {}
    for d in sorted((played / "matches").iterdir()):
        result = json.loads((d / "result.json").read_text())
        st = result["standings"]
        for s in result["seats"]:
            w = want.setdefault((s["name"], s["identity"]), {"matches": 0, "wins": 0, "hands": 0,
                                            "points": 0, "burraco": Counter(),
                                            "closings": 0})
            w["matches"] += 1
            side = next(i for i, x in enumerate(st["sides"]) if s["seat"] in x)
            w["wins"] += st["winner"] == side
            for t in _transcripts(d):
                r = t["result"]
                hs = next(i for i, x in enumerate(r["sides"]) if s["seat"] in x)
                w["hands"] += 1
                w["points"] += r["points"][hs]
                w["burraco"].update(burraco_kinds(r["breakdown"][hs]))
                w["closings"] += r["closed_by"] == s["seat"]
    with History(history_path(played)) as h:
        stats = compute(h.matches())
        label = labels(h.matches())
    # a player is a key: the selfplay seats of each match have keys of their own, so the
    # `seat0` of one match is told apart from the `seat0` of another (issue 47)
    want = {label[who]: w for who, w in want.items()}
    assert len(want) > 4 and any("[" in k for k in want)
    got = {name: {"matches": ln.matches, "wins": ln.wins, "hands": ln.hands,
                  "points": ln.points, "burraco": ln.burraco, "closings": ln.closings}
           for name, ln in stats.players.items()}
    assert got == want
    assert sum(w["burraco"].total() for w in want.values()) > 0      # the kinds are counted
    pairs = list(stats.partnerships)
    assert [re.sub(r" \[\w{8}\]", "", p) for p in pairs] == ["seat0+seat2", "seat1+seat3"]
    assert cli_main(["stats", "--data-dir", str(played)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 match(es)") and "partnerships:" in out


def _record(mid: str, winner: int | None, bots: tuple[str | None, ...]) -> MatchRecord:
    lines = ((("burraco pulito ×2", 400), ("closing", 100)), (("burraco sporco ×1", 100),))
    return MatchRecord(mid, f"/m/{mid}", "burraco", "fibur", 4, f"2026-01-0{mid[-1]}",
                       "target", ((0, 2), (1, 3)), (600, 100), winner, "fair", "host",
                       tuple(SeatRow(i, n, f"{i:064x}", b) for i, (n, b) in
                             enumerate(zip(("Ann", "b1", "Bob", "b2"), bots))),
                       (HandRow(1, "hand-001.p2pb", "scored", "closed", 2, ((0, 2), (1, 3)),
                                (500, 100), lines, "fair"),
                        HandRow(2, "hand-002.p2pb", "void", "void", None, ((0, 2), (1, 3)),
                                (0, 0), ((), ()), "fair")))


def test_hist_4_records_against_bots_by_strategy_and_burraco_by_kind(tmp_path: Path) -> None:
    """HIST-4: a person's record against host bots, by strategy; void hands count for no
    points; partners share their side's burraco; closings go to the closer."""
    recs = [_record("a001", 0, (None, "greedy", None, "greedy")),
            _record("a002", 1, (None, "heuristic", None, "heuristic")),
            _record("a003", None, (None, "greedy", None, "greedy"))]
    st = compute(recs)
    ann, bob, b1 = st.players["Ann"], st.players["Bob"], st.players["b1"]
    assert (ann.matches, ann.wins, ann.hands, ann.points) == (3, 1, 3, 1500)
    assert ann.against_bots == {"greedy": [1, 0], "heuristic": [0, 1]}
    assert b1.against_bots == {}
    assert ann.burraco == Counter({"pulito (clean)": 6}) and ann.closings == 0
    assert bob.closings == 3 and b1.burraco == Counter({"sporco (dirty)": 3})
    assert st.partnerships["Ann+Bob"].closings == 3 and ann.per_hand == 500.0


def test_hist_2_a_match_is_written_once_in_one_transaction(tmp_path: Path) -> None:
    """HIST-2: the same match recorded twice (host and peer) is one row; a write that fails
    halfway leaves nothing of it."""
    with History(tmp_path / "h.sqlite3") as h:
        assert h.add(_record("b001", 0, (None,) * 4)) is True
        assert h.add(_record("b001", 0, (None,) * 4)) is False
        bad = _record("b002", 0, (None,) * 4)
        broken = MatchRecord(**{**bad.__dict__, "hands": bad.hands + bad.hands[:1]})
        with pytest.raises(sqlite3.IntegrityError):
            h.add(broken)                      # hand 1 twice: the insert fails midway
        assert [r.match_id for r in h.matches()] == ["b001"]
        assert h.db.execute("SELECT count(*) FROM seats").fetchone()[0] == 4
        assert h.match("b001") is not None and h.match("b0") is None


_WRITER = """
import sys
from p2p_burraco.storage.history import History, MatchRecord, SeatRow, HandRow
h = History(sys.argv[1])
lines = tuple((f"line {i}", i) for i in range(20))
n = 0
while True:
    hands = tuple(HandRow(k, f"hand-{k:03d}.p2pb", "scored", "closed", 0, ((0,), (1,)),
                          (k, -k), (lines, lines), "fair") for k in range(1, 201))
    h.add(MatchRecord(f"{n:032x}", f"/m/{n}", "briscola", "standard", 2, "2026", "target",
                      ((0,), (1,)), (1, 0), 0, "fair", "host",
                      (SeatRow(0, "a", "00"), SeatRow(1, "b", "11")), hands))
    n += 1
    if n == 2:
        print("writing", flush=True)
"""


@pytest.mark.subprocess
def test_hist_2_a_writer_killed_mid_write_leaves_a_readable_database(tmp_path: Path) -> None:
    """HIST-2: SIGKILL while matches are being written (one transaction each, WAL): the
    database opens, passes its integrity check, and every match in it is whole."""
    path = tmp_path / "history.sqlite3"
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "writing"
    seed = int(os.environ.get("P2P_BURRACO_KILL_SEED", "2"))
    moment = random.Random(seed).uniform(0.05, 0.3)   # inside a later match's transaction
    print(f"kill seed {seed}: SIGKILL {moment:.3f} s after the second match was written")
    time.sleep(moment)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with History(path) as h:
        assert h.integrity() == "ok"
        counts = h.db.execute("SELECT m.hands, (SELECT count(*) FROM hands WHERE match = "
                              "m.id), (SELECT count(*) FROM score_lines WHERE match = m.id) "
                              "FROM matches m").fetchall()
        assert len(counts) >= 2
        assert all(c == (200, 200, 200 * 2 * 20) for c in counts)


def test_hist_3_an_old_schema_is_migrated_and_a_newer_one_refused(tmp_path: Path) -> None:
    """HIST-3: a version-1 database moves to the current schema with its rows kept; one from
    a newer program, or a file that is no database, is refused with a clear error."""
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0] + "; PRAGMA user_version = 1;")
    db.execute("INSERT INTO matches (match_id, directory, game, variant, players, ended, "
               "reason, hands, sides, totals, winner, verdict, recorded_by) VALUES "
               "('c1', '/m', 'briscola', 'standard', 2, '2026', 'target', 0, '[[0],[1]]', "
               "'[1,0]', 0, 'fair', 'host')")
    db.commit()
    db.close()
    with History(path) as h:
        assert h.version == SCHEMA_VERSION == 2
        assert [r.match_id for r in h.matches(game="briscola")] == ["c1"]
        names = {r[0] for r in h.db.execute("SELECT name FROM sqlite_master WHERE "
                                            "type = 'index'")}
        assert "seats_by_name" in names
        h.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(HistoryError, match="newer than this program"):
        History(path)
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(HistoryError, match="not a history database"):
        History(junk)


def test_hist_1_a_match_the_hook_missed_is_indexed_from_its_records(
        played: Path, tmp_path: Path) -> None:
    """HIST-1: the history is an index — a match on disk it lacks (the host was killed
    before its hook ran) is recorded from the records when the history is opened."""
    with History(tmp_path / "fresh.sqlite3") as h:
        assert index_records(h, played) == 3
        assert index_records(h, played) == 0
        assert sorted(r.variant for r in h.matches()) == ["fibur", "smazzate", "standard"]


def test_hist_1_the_console_shows_the_recent_matches(played: Path) -> None:
    """HIST-1: the console's `recent` (`partite`) view lists the latest matches from the
    history, in place of the table until Esc."""
    from p2p_burraco.console.commands import run_command
    from p2p_burraco.console.layout import main_lines
    from p2p_burraco.console.model import ConsoleModel

    model = ConsoleModel("seat0", game="burraco")
    model.data_dir = played
    run_command(model, "partite")
    assert model.panel == "recent" and len(model.help_text) == 3
    shown = "".join(text for line in main_lines(model, 100) for _, text in line)
    assert shown.startswith("recent matches") and "burraco fibur" in shown
    assert "briscola smazzate" in shown
    assert run_command(model, "recent now") is False and "takes no words" in str(model.error)


@pytest.mark.parametrize("label,kind,n", [
    ("burraco pulito (clean, 7 cards, no wild) 7h…Kh", "pulito (clean)", 1),
    (("canasta pulita (clean, 13 cards, no wild; built in 3 moves, and the 500 is for one "
      "move only) Ah…Kh"), "pulito (clean)", 1),
    ("canasta pulita A–K in una mossa (clean, every rank, laid in one move) Ah…Kh",
     "pulito A–K (500)", 1),
    ("canasta reale A–A in una mossa (clean, ace to ace, laid in one move) Ah…Ah",
     "reale A–A (1000)", 1),
    ("burraco semipuro (semi-clean, 8 cards, 7 or more natural in a row beside the wild) 2h…9h",
     "semipuro (semi-clean)", 1),
    ("canasta sporca (dirty, 7 cards with a wild) set of 9s", "sporco (dirty)", 1),
    ("buracco pulito (clean, 7 cards, no wild) 3h…9h", "pulito (clean)", 1),   # classic
    ("burraco pulito ×2", "pulito (clean)", 2),                  # a record from before
    ("canasta 500 (A–K clean) ×1", "pulito A–K (500)", 1),
    ("cards in melds", None, 0),
    ("closing (seat 2 went out)", None, 0),
])
def test_hist_4_burraco_kinds_read_from_score_lines(label: str, kind: str | None,
                                                     n: int) -> None:
    """HIST-4: a side's burraco counted by kind from its score lines, old and new wording."""
    from p2p_burraco.storage.stats import burraco_kinds

    got = burraco_kinds([(label, 0)])
    assert got == (Counter({kind: n}) if kind else Counter())


def test_hist_3_connections_opening_a_fresh_database_at_once_all_migrate_it(
        tmp_path: Path) -> None:
    """HIST-3: four connections opening one fresh file together (two tables ending at once,
    a peer's hook beside the console's recent view) all open it: each migration step is
    applied once, by whoever takes the write lock first, and skipped by the others."""
    import threading

    path = tmp_path / "fresh" / "history.sqlite3"
    start = threading.Barrier(4)
    errors: list[BaseException] = []
    versions: list[int] = []

    def open_it() -> None:
        start.wait()
        try:
            with History(path) as h:
                versions.append(h.version)
        except BaseException as exc:  # noqa: BLE001 — reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert errors == []
    assert versions == [SCHEMA_VERSION] * 4
    with History(path) as h:
        assert h.version == SCHEMA_VERSION
        assert h.integrity() == "ok"


def test_hist_1_a_match_is_recorded_with_the_verdict_verify_gives(
        played: Path, tmp_path: Path) -> None:
    """HIST-1: the history's verdict is verify's own — a match whose result.json is no
    longer JSON is verify's `bad_result_file` cheat, recorded as such, not as "fair"."""
    import shutil

    from p2p_burraco.commands.verify import collect, verify_units
    from p2p_burraco.table.match_record import record_of

    src = min((played / "matches").iterdir())
    d = tmp_path / src.name
    shutil.copytree(src, d)
    (d / "result.json").write_text('{"standings": {"sides": [[0', encoding="utf-8")
    units, _ = collect([str(d)])
    (ma,) = verify_units(units, None)
    assert ma.verdict == "cheat"
    assert [f.what for f in ma.faults] == ["bad_result_file"]
    rec = record_of(d, "host")
    assert rec.verdict == ma.verdict == "cheat"
    assert rec.reason != "" and len(rec.hands) == 1
    with History(tmp_path / "h.sqlite3") as h:
        assert h.add(rec)
        got = h.match(rec.match_id)
        assert got is not None and got.verdict == "cheat"


def test_hist_1_a_match_is_found_by_its_id_or_a_prefix_of_eight_digits_or_more(
        tmp_path: Path) -> None:
    """HIST-1: `replay`/`history` name a match by its id or a unique prefix of 8+ hex digits
    (as `replay.resolve` takes them); a shorter prefix names none."""
    mid = "0123abcd" + "5" * 24
    with History(tmp_path / "h.sqlite3") as h:
        assert h.add(_record(mid, 0, (None,) * 4))
        assert h.add(_record("0123abce" + "6" * 24, 0, (None,) * 4))
        assert [h.match(ref) is not None for ref in (mid, mid[:8], mid[:9])] == [True] * 3
        assert h.match(mid[:7]) is None and h.match("0123abc") is None
        assert h.match(mid[:4]) is None and h.match(mid.upper()) is None


def test_hist_4_bots_sharing_a_name_are_told_apart_by_key() -> None:
    """Issue 47: two host bots both called `b1` (two machines, two keys) are two lines of
    `stats`, each named with the start of its key; one key under one name stays plain."""
    import dataclasses

    first = _record("c001", 0, (None, "greedy", None, "greedy"))
    other = _record("c002", 1, (None, "greedy", None, "greedy"))
    seats = tuple(dataclasses.replace(s, key="ab" * 32) if s.name == "b1" else s
                  for s in other.seats)
    other = dataclasses.replace(other, seats=seats)
    st = compute([first, other])
    b1 = sorted(k for k in st.players if k.startswith("b1"))
    assert len(b1) == 2 and f"b1 [{'ab' * 4}]" in b1 and all("[" in k for k in b1)
    assert all(st.players[k].matches == 1 for k in b1)
    assert st.players["Ann"].matches == 2                 # the same key: one line
