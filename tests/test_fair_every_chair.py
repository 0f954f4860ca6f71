"""Issue 45: fair from every chair. Each seat's own record of a hand proves it alone; copies
of one hand merge; `verify` never accuses an honest stranger (keys are identities, names
labels); nothing unsigned is believed. Every finding of the issue is a test here that fails
on the code before it (`hand_end` without sign-offs, names pinned across tables, two copies
called a cheat, ...)."""

from __future__ import annotations

import itertools
import json
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_burraco.commands.verify import collect, verify_units
from p2p_burraco.fairdeal.transcript import Transcript
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.table.audit import audit_transcript
from p2p_burraco.table.host import transcript_name
from p2p_burraco.table.inprocess import InProcessTable
from p2p_burraco.table.rules import TableRules


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "p2p_burraco", *args]


def verdict_of(paths: Sequence[Path | str]) -> tuple[int, list[Any]]:
    """`verify`'s exit status for these paths (no pins), and the match audits."""
    units, not_transcripts = collect([str(p) for p in paths])
    audits = verify_units(units, None)
    assert not not_transcripts, not_transcripts
    codes = [ma.exit_code for ma in audits]
    return (1 if 1 in codes else 2 if 2 in codes else 0), audits


def play(game: str, players: int, seed: int, hands: int,
         rules: TableRules | None = None) -> InProcessTable:
    """An honest in-process match of up to `hands` hands."""
    t = InProcessTable(SelfplayConfig(game=game, players=players, hands=hands, seed=seed,
                                      bots=("random",)), rules=rules)
    for _ in range(hands):
        if t.host.match_over or not t.host.can_deal():
            break
        t.play_hand()
    return t


def write_copies(t: InProcessTable, root: Path) -> dict[str, Path]:
    """The host's record and each seat's own, each in its own match directory."""
    mid = t.config.match_id.hex()
    out: dict[str, Path] = {}
    host = root / "host" / f"2026-01-01-{mid}"
    host.mkdir(parents=True)
    for r in t.records:
        r.transcript.save(str(host / transcript_name(r.hand_no)))
    out["host"] = host
    for s, store in enumerate(t.stores):
        d = root / f"seat{s}" / mid
        d.mkdir(parents=True)
        for (m, name), data in store.records.items():
            if m == t.config.match_id and name.endswith(".p2pb"):
                (d / name).write_bytes(data)
        out[f"seat{s}"] = d
    return out


# --------------------------------------------------------------------------- own records

def test_every_seats_own_record_of_each_hand_holds_every_sign_off(tmp_path: Path) -> None:
    """AUDIT-1: the host's hand_end carries every seat's sign-off; each seat checks them and keeps
    them in its own record, which then verifies FAIR alone (on main: INCOMPLETE, missing
    the other seats' sign-offs)."""
    t = play("briscola", 4, seed=3, hands=1)
    copies = write_copies(t, tmp_path)
    for who, d in copies.items():
        files = sorted(d.glob("hand-*.p2pb"))
        assert files, who
        for f in files:
            report = audit_transcript(Transcript.load(str(f)))
            assert report.signed == [0, 1, 2, 3], (who, report.signed)
        code, _ = verdict_of([d])
        assert code == 0, who


def test_a_hand_end_carrying_a_forged_sign_off_halts_the_seat() -> None:
    """AUDIT-1: a sign-off the host puts in its hand_end that its seat never signed is the host's
    signed lie: the seat stops (TABLE-10) and keeps the evidence."""
    t = InProcessTable(SelfplayConfig(game="briscola", players=2, seed=5, bots=("random",)))
    real = t.seats[1].receive

    def forged(msg: Any) -> Any:
        if msg.get("type") == "hand_end":
            msg = dict(msg)
            bad = dict(msg["sign_offs"][0])
            bad["result_hash"] = bytes(32)
            from p2p_burraco.fairdeal import signing
            msg["sign_offs"] = [bad, *msg["sign_offs"][1:]]
            msg = signing.sign(t.host_key, {k: v for k, v in msg.items() if k != "sig"})
        return real(msg)
    t.seats[1].receive = forged        # type: ignore[method-assign]
    t.play_hand()
    assert t.seats[1].halted and "sign-off" in t.seats[1].halted
    assert not t.seats[0].halted


def test_a_stalled_seat_owes_no_sign_off(tmp_path: Path) -> None:
    """AUDIT-2: a seat that withholds a step is timed out (`step`, signed by the host): the hand
    closes on its forfeit without its sign-off, and every copy of it is complete — FAIR,
    not INCOMPLETE forever (on main: `missing: seat 1's sign-off`)."""
    t = InProcessTable(SelfplayConfig(game="briscola", players=2, seed=7, bots=("random",)),
                       rules=TableRules(turn_ms=None, step_ms=30_000, grace_ms=60_000))
    t.step({"e": "deal"})
    t.pump(until=lambda: t.host.replica is not None and t.host.replica.due(1) == "release")
    t.disconnected.add(1)                # its program stops answering; the link stays up
    t.pump()
    t.advance(30_001)
    t.pump()
    assert t.records, t.host.stage
    record = t.records[-1]
    assert (record.outcome.kind, record.outcome.cause) == ("forfeit", "stall")
    report = audit_transcript(record.transcript)
    assert report.signed == [0] and report.unsigned == [] and report.excused == [1]
    copies = write_copies(t, tmp_path)
    assert verdict_of([copies["host"]])[0] == 0
    assert verdict_of([copies["seat0"]])[0] == 0
    assert verdict_of([copies["host"], copies["seat0"]])[0] == 0


# --------------------------------------------------------------------------- the property

@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), players=st.sampled_from([2, 4]),
       hands=st.integers(1, 2), pick=st.randoms(use_true_random=False))
def test_every_copy_alone_and_together_is_fair(tmp_path_factory: pytest.TempPathFactory,
                                               seed: int, players: int, hands: int,
                                               pick: random.Random) -> None:
    """AUDIT-4: random honest Briscola matches: every copy (the host's, each seat's) verifies FAIR
    alone, every pair and all of them together (files given one by one, and directories)."""
    print(f"seed={seed} players={players} hands={hands}")
    root = tmp_path_factory.mktemp("copies")
    t = play("briscola", players, seed, hands)
    copies = list(write_copies(t, root).values())
    for d in copies:
        assert verdict_of([d])[0] == 0, d
    combos = [list(c) for c in itertools.combinations(copies, 2)]
    combos.append(copies)
    for combo in pick.sample(combos, min(4, len(combos))) + [copies]:
        files = [f for d in combo for f in sorted(d.glob("hand-*.p2pb"))]
        code, audits = verdict_of(files)
        assert code == 0, (combo, [a.verdict for a in audits],
                           [a.faults for a in audits])
        assert verdict_of(combo)[0] == 0, combo
    shutil.rmtree(root)


# --------------------------------------------------------------------------- over TCP

@pytest.mark.slow
@pytest.mark.subprocess
@pytest.mark.network
def test_four_join_peers_each_hold_a_record_that_verifies_alone(tmp_path: Path) -> None:
    """AUDIT-1: host plus four `join --bot` peers, each with its own data dir, over loopback: each
    peer's own match directory verifies with exit 0 alone, each peer's `history` says fair,
    and the host's copy with every peer's, given together, exits 0."""
    import re

    host_dir = tmp_path / "host"
    host = subprocess.Popen(_cli("host", "--pause", "0", "--port", "0", "--data-dir", str(host_dir),
                                 "--players", "4", "--game", "briscola", "--no-announce"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert host.stdout is not None
    port = None
    deadline = time.monotonic() + 30
    while port is None and time.monotonic() < deadline:
        line = host.stdout.readline()
        if not line:
            break
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        port = int(m.group(1)) if m else None
    assert port is not None, "the host did not start"
    peers = [subprocess.Popen(_cli("join", f"127.0.0.1:{port}", "--bot", "--name", f"p{i}",
                                   "--data-dir", str(tmp_path / f"p{i}")),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(4)]
    try:
        for p in peers:
            p.communicate(timeout=120)
            assert p.returncode == 0
    finally:
        for p in [*peers, host]:
            if p.poll() is None:
                p.kill()
                p.communicate()
    # verify and history read files: run in this process (the peers and the host above are
    # the processes under test), through the same `main` as the command line
    own = []
    for i in range(4):
        (d,) = (tmp_path / f"p{i}" / "identities" / f"p{i}" / "matches").iterdir()
        own.append(d)
        code, out = _main_out("verify", "--data-dir", tmp_path / f"p{i}", d)
        assert code == 0, out
        code, out = _main_out("history", "--data-dir", tmp_path / f"p{i}")
        assert code == 0 and "verify: fair" in out, out
    (hd,) = (host_dir / "matches").iterdir()
    files = [str(f) for d in [hd, *own] for f in sorted(d.glob("hand-*.p2pb"))]
    code, out = _main_out("verify", "--data-dir", tmp_path / "p0", *files)
    assert code == 0, out
    code, out = _main_out("verify", "--json", "--data-dir", tmp_path / "p0", own[0])
    assert code == 0 and json.loads(out)["verdict"] == "fair", out


def _main_out(*args: str | Path) -> tuple[int, str]:
    """`p2p-burraco ARGS` run in this process: its exit status and what it printed."""
    import contextlib
    import io

    from p2p_burraco.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main([str(a) for a in args])
    return code, buf.getvalue()



# --------------------------------------------------------------------------- identity

def _run_verify(*args: str | Path) -> tuple[int, str]:
    import contextlib
    import io

    from p2p_burraco.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["verify", *map(str, args)])
    return code, buf.getvalue()


def test_a_machine_that_met_other_hosts_never_convicts_an_honest_stranger(
        tmp_path: Path) -> None:
    """AUDIT-3: this machine met another `host` and other players called `bot 0`, `bot 1` (every
    `play` does): an honest record of another host verifies with exit 0, warns naming both
    keys of each shared name, and names nobody at fault (on main: exit 1, `CHEAT by the
    record: key_mismatch`)."""
    from p2p_burraco.storage.known_keys import KnownKeys, known_keys_path

    t = play("briscola", 2, seed=11, hands=1)
    d = write_copies(t, tmp_path / "rec")["seat0"]
    home = tmp_path / "home"
    kk = KnownKeys()
    for label, fill in (("host", 1), ("bot 0", 2), ("bot 1", 3)):
        kk.remember(label, bytes([fill]) * 32)
    kk.save(known_keys_path(home))
    code, out = _run_verify("--data-dir", home, d)
    assert code in (0, 2), out
    assert "CHEAT" not in out and "at fault" not in out
    assert (bytes([2]) * 32).hex() in out and t.config.seat_keys[0].hex() in out
    assert "warning: seat 0 is named 'bot 0'" in out


def test_a_failed_pin_is_not_fair_and_names_no_honest_party(tmp_path: Path) -> None:
    """AUDIT-3: `--keys` pins the real players; an outsider re-keys seat 1 (its own key, its own
    host key, the hand_start re-signed): not fair (exit 1), and neither the honest pinned
    seat nor anyone else is listed as proven at fault (on main: seat 0 among them)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2p_burraco.fairdeal import signing
    from p2p_burraco.fairdeal.local import hand_id_for

    t = play("briscola", 2, seed=12, hands=1)
    d = write_copies(t, tmp_path / "rec")["host"]
    f = sorted(d.glob("hand-*.p2pb"))[0]
    tr = Transcript.load(str(f))
    outsider, fake_host = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    hs = {k: v for k, v in tr.entries[0].items() if k != "sig"}
    hs["seat_keys"] = [hs["seat_keys"][0], signing.public_key_bytes(outsider)]
    hs["host_key"] = signing.public_key_bytes(fake_host)
    hs["hand_id"] = hand_id_for(hs["match_id"], hs["hand_no"], hs["host_key"],
                                hs["seat_keys"])
    tr.entries[0] = signing.sign(fake_host, hs)
    tr.save(str(f))
    pins = tmp_path / "pins"
    pins.write_text(f"host {t.host.host_public.hex()}\nbot 0 {t.config.seat_keys[0].hex()}\n"
                    f"bot 1 {t.config.seat_keys[1].hex()}\n")
    code, out = _run_verify("--data-dir", tmp_path / "home", "--keys", pins, d)
    assert code == 1, out
    verdicts = [ln for ln in out.splitlines() if "verdict" in ln]
    assert verdicts and all("CHEAT" not in ln and "also proven" not in ln for ln in verdicts)
    assert "not signed by the keys pinned" in out and "nobody is proven at fault" in out
    assert "the host is at fault" not in out and "CHEAT" not in out


# --------------------------------------------------------------------------- copies merge

def _host_resign(t: InProcessTable, end: dict[str, Any]) -> dict[str, Any]:
    from p2p_burraco.fairdeal import signing

    return signing.sign(t.host_key, {k: v for k, v in end.items() if k != "sig"})


def test_honest_copies_of_one_hand_merge_into_one_fair_record(tmp_path: Path) -> None:
    """AUDIT-4: the host's copy and a seat's honest copy of one hand, each holding some of the
    sign-offs (as every record did before hand_end carried them): together they are the
    union, FAIR (on main: `CHEAT by the record: two_records`)."""
    t = play("briscola", 2, seed=13, hands=1)
    tr = t.records[0].transcript
    assert tr.hand_end is not None
    old_end = _host_resign(t, {k: v for k, v in tr.hand_end.items() if k != "sign_offs"})
    host_copy = Transcript(tr.entries, old_end, [so for so in tr.sign_offs if so["seat"] == 0])
    seat_copy = Transcript(tr.entries, old_end, [so for so in tr.sign_offs if so["seat"] == 1])
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    host_copy.save(str(a / "hand-001.p2pb"))
    seat_copy.save(str(b / "hand-001.p2pb"))
    assert verdict_of([a / "hand-001.p2pb"])[0] == 2        # alone: a sign-off missing
    code, audits = verdict_of([a / "hand-001.p2pb", b / "hand-001.p2pb"])
    assert code == 0, [(h.faults, h.missing) for ma in audits for h in ma.hands]
    assert audits[0].hands[0].signed == [0, 1]


def test_a_host_that_signs_two_histories_is_the_hosts_fault(tmp_path: Path) -> None:
    """AUDIT-4: one seat is shown a host-signed `timeout` where the host's own record has a move:
    the two copies together convict the host, which signed both (on main: the record's
    fault, `two_records`)."""
    from p2p_burraco.fairdeal import signing
    from p2p_burraco.fairdeal.transcript import log_hash

    t = play("briscola", 2, seed=14, hands=1)
    tr = t.records[0].transcript
    k = next(i for i, e in enumerate(tr.entries) if e.get("type") == "action")
    mover = tr.entries[k]["seat"]
    lie = signing.sign(t.host_key, {
        "type": "timeout", "hand_id": tr.entries[0]["hand_id"], "at": k,
        "head": log_hash(tr.entries[:k]), "seat": mover, "kind": "turn", "count": 1,
        "detail": "the move clock ran out"})
    shown = Transcript([*tr.entries[:k], lie], None, [])
    a, b = tmp_path / "host", tmp_path / "seat"
    a.mkdir()
    b.mkdir()
    tr.save(str(a / "hand-001.p2pb"))
    shown.save(str(b / "hand-001.p2pb"))
    code, audits = verdict_of([a / "hand-001.p2pb", b / "hand-001.p2pb"])
    assert code == 1
    culprit = audits[0].culprit()
    assert culprit is not None and culprit[0].party == "host", culprit
    assert culprit[0].what == "two_histories"


def test_a_seat_that_signs_two_sign_offs_is_the_seats_fault(tmp_path: Path) -> None:
    """AUDIT-4: two copies where one seat signed off two different results: its own signatures
    convict it, and nobody else."""
    from p2p_burraco.fairdeal import signing

    t = play("briscola", 2, seed=15, hands=1)
    tr = t.records[0].transcript
    so1 = next(so for so in tr.sign_offs if so["seat"] == 1)
    other = signing.sign(t.identities[1], {**{k: v for k, v in so1.items() if k != "sig"},
                                           "result_hash": bytes(32)})
    copy = Transcript(tr.entries, tr.hand_end, [other])
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    tr.save(str(a / "hand-001.p2pb"))
    copy.save(str(b / "hand-001.p2pb"))
    code, audits = verdict_of([a / "hand-001.p2pb", b / "hand-001.p2pb"])
    assert code == 1
    culprit = audits[0].culprit()
    assert culprit is not None and (culprit[0].party, culprit[0].seat) == ("seat", 1)


# --------------------------------------------------------------------------- unsigned claims

def test_an_abandonment_only_result_json_claims_is_not_fair(tmp_path: Path) -> None:
    """AUDIT-5: result.json says the match ended between hands by seat 1's abandonment, with the
    standings that would give; no signed statement backs it: verify says so (not FAIR,
    naming the file), and the history takes the standings and the reason from the signed
    hands, not from the file (on main: FAIR, exit 0)."""
    from p2p_burraco.games.base import forfeit_result
    from p2p_burraco.storage.history import History
    from p2p_burraco.table.match_audit import jsonish
    from p2p_burraco.table.match_record import record_of

    t = InProcessTable(SelfplayConfig(game="briscola", players=2, hands=3, seed=16,
                                      bots=("random",), options={"hands": 3}))
    t.play_hand()
    assert not t.host.match_over
    d = write_copies(t, tmp_path)["host"]
    trial = t.host.state.copy()
    sides = trial.match.standings().get("sides") or [[0], [1]]
    trial.record(forfeit_result([list(x) for x in sides], 1, "grace", 2))
    claimed = jsonish(trial.standings())
    result = {"match_id": t.config.match_id.hex(), "reason": "abandonment", "hands": 1,
              "standings": claimed, "transcripts": ["hand-001.p2pb"]}
    (d / "result.json").write_text(json.dumps(result))
    code, out = _run_verify("--data-dir", tmp_path / "home", d)
    assert code == 2, out
    line = [ln for ln in out.splitlines() if "match verdict" in ln][-1]
    assert "FAIR" not in line.replace("NOT FAIR", "") and "result.json" in line
    assert "abandonment" in line
    rec = record_of(d, "host")
    assert rec.reason != "abandonment" and rec.verdict == "incomplete"
    assert list(rec.totals) == list(t.host.state.standings()["totals"])
    with History(tmp_path / "h.sqlite3") as h:
        h.add(rec)


# --------------------------------------------------------------------------- one judge

def test_a_host_signed_hand_start_with_a_wrong_head_is_refused_live_and_named_offline(
        tmp_path: Path) -> None:
    """AUDIT-6: the head of a hand_start must be the empty log's hash. Live, the seat refuses one
    whose head is wrong (signed by the host: TABLE-10, it halts naming the field); offline,
    `verify` names the field and the host, not an unsigned record (on main the live replica
    accepts it and `verify` says "not signed by the host key it names")."""
    from p2p_burraco.fairdeal import signing

    t = InProcessTable(SelfplayConfig(game="briscola", players=2, seed=17, bots=("random",)))
    real = t.seats[0].receive
    shown: list[dict[str, Any]] = []

    def bent(msg: Any) -> Any:
        if msg.get("type") == "hand_start":
            msg = signing.sign(t.host_key, {**{k: v for k, v in msg.items() if k != "sig"},
                                            "head": bytes(32)})
            shown.append(msg)
        return real(msg)
    t.seats[0].receive = bent            # type: ignore[method-assign]
    t.step({"e": "deal"})
    t.pump(limit=10_000)
    assert t.seats[0].halted and "head" in t.seats[0].halted, t.seats[0].halted
    assert t.seats[0].replica is None
    tr = Transcript([shown[0]], None, [])
    report = audit_transcript(tr)
    (fault,) = [f for f in report.verdict.faults if f.what == "bad_hand_start"]
    assert fault.party == "host" and "head" in fault.detail
    assert "not signed" not in fault.detail


def test_one_hand_start_check_and_one_chain_check() -> None:
    """AUDIT-6: `grep` finds one hand_start check and one chain check; `table/` imports nothing from
    `commands/` (issue 45: the rules were said four times)."""
    root = Path(__file__).resolve().parents[1] / "p2p_burraco"
    defs = subprocess.run(["grep", "-rnE", "--include=*.py",
                           r"def \w*(check_hand_start|hand_start_(error|problem|check)|"
                           r"chain_(faults|check)|check_chain_of)\w*\(", str(root)],
                          capture_output=True, text=True).stdout.splitlines()
    names = sorted(line.split("def ")[1].split("(")[0] for line in defs)
    assert names == ["chain_faults", "hand_start_problem"], defs
    users = subprocess.run(["grep", "-rln", "hand_start_problem", str(root)],
                           capture_output=True, text=True).stdout.split()
    assert {Path(u).name for u in users} >= {"deal.py", "audit.py", "statements.py"}
    assert "HandStart.parse(" in (root / "table" / "seat.py").read_text()
    table = root / "table"
    for f in table.glob("*.py"):
        text = f.read_text()
        assert "from ..commands" not in text and "p2p_burraco.commands" not in text, f


def test_a_seat_refuses_a_hand_start_that_changes_the_rules_mid_match() -> None:
    """AUDIT-6: the seat's live chain check holds each hand_start to the rules of the first
    one it met (`rules_changed`, as the auditor does offline): a host that re-signs hand 2
    with another move clock is refused, and the seat halts naming it."""
    from p2p_burraco.fairdeal import signing

    t = InProcessTable(SelfplayConfig(game="briscola", players=2, hands=3, seed=18,
                                      bots=("random",), options={"hands": 3}))
    real = t.seats[0].receive

    def bent(msg: Any) -> Any:
        if msg.get("type") == "hand_start" and msg.get("hand_no") == 1:
            body = {k: v for k, v in msg.items() if k != "sig"}
            body["clock"] = {**body["clock"], "max_timeouts": 99}
            msg = signing.sign(t.host_key, body)
        return real(msg)
    t.seats[0].receive = bent            # type: ignore[method-assign]
    t.play_hand()
    assert not t.seats[0].halted
    t.step({"e": "deal"})
    t.pump(limit=10_000)
    assert t.seats[0].halted and "rules changed" in t.seats[0].halted, t.seats[0].halted


def test_a_host_signed_hand_start_naming_the_wrong_dealer_is_the_hosts_fault() -> None:
    """AUDIT-6: a field the host signed that the match contradicts (the dealer the rotation
    gives) is the host's signed word, offline as live — not an unsigned record."""
    from p2p_burraco.fairdeal import signing

    t = play("briscola", 2, seed=19, hands=1)
    hs = dict(t.records[0].transcript.entries[0])
    body = {k: v for k, v in hs.items() if k != "sig"}
    body["dealer"] = 1 - body["dealer"]
    bad = signing.sign(t.host_key, body)
    report = audit_transcript(Transcript([bad], None, []))
    (fault,) = [f for f in report.verdict.faults if f.what == "bad_hand_start"]
    assert fault.party == "host" and "dealer" in fault.detail


def test_a_host_signed_hand_start_with_one_name_too_few_is_refused_live_and_named_offline(
        ) -> None:
    """AUDIT-6: one check of a hand_start's shape, live and offline alike: a signed one
    naming fewer players than seats halts the seat and is the host's fault in the audit."""
    from p2p_burraco.fairdeal import signing
    from p2p_burraco.fairdeal.deal import hand_start_problem

    t = play("briscola", 2, seed=19, hands=1)
    body = {k: v for k, v in t.records[0].transcript.entries[0].items() if k != "sig"}
    body["names"] = ["only-one"]
    bad = signing.sign(t.host_key, body)
    problem = hand_start_problem(bad)
    assert problem is not None and problem.signed and "name" in problem.why
    report = audit_transcript(Transcript([bad], None, []))
    (fault,) = [f for f in report.verdict.faults if f.what == "bad_hand_start"]
    assert fault.party == "host" and "name" in fault.detail


def test_a_copy_altered_where_no_key_signed_is_named_and_the_hand_stands(
        tmp_path: Path) -> None:
    """AUDIT-4: an honest copy and one altered after the fact (an action's signature no
    longer holds): the altered file is named as the record's fault; no seat, no host."""
    t = play("briscola", 2, seed=20, hands=1)
    tr = t.records[0].transcript
    k = next(i for i, e in enumerate(tr.entries) if e.get("type") == "action")
    bent = dict(tr.entries[k])
    bent["sig"] = bytes(64)
    altered = Transcript([*tr.entries[:k], bent, *tr.entries[k + 1:]], tr.hand_end,
                         tr.sign_offs)
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    tr.save(str(a / "hand-001.p2pb"))
    altered.save(str(b / "hand-001.p2pb"))
    code, audits = verdict_of([a / "hand-001.p2pb", b / "hand-001.p2pb"])
    assert code == 1
    culprit = audits[0].culprit()
    assert culprit is not None and culprit[0].party == "record"
    assert culprit[0].what == "altered_copy" and str(b) in culprit[0].detail


def test_a_seat_that_abandons_and_never_signs_off_leaves_the_hand_complete() -> None:
    """AUDIT-2: the seat at fault for the ending (here it abandons, then withholds its
    sign-off) owes none: its own signed `abandon` decides the hand without its word, so a
    sore loser cannot keep the hand INCOMPLETE forever."""
    t = InProcessTable(SelfplayConfig(game="briscola", players=2, seed=21, bots=("random",)),
                       rules=TableRules(turn_ms=None, step_ms=30_000, grace_ms=60_000))
    t.lost_on_the_way = (         # type: ignore[method-assign]
        lambda seat, msg: seat == 1 and msg.get("type") == "sign_off")
    t.step({"e": "deal"})
    t.pump(until=lambda: t.host.replica is not None
           and sum(e.get("type") == "action" for e in t.host.replica.deal.log) >= 2)
    t.seats[1].request_abandon()
    t.to_host.extend((1, m) for m in t.seats[1].take_outbox())
    t.pump()
    t.advance(30_001)
    t.pump()
    assert t.records, t.host.stage
    record = t.records[-1]
    assert (record.outcome.kind, record.outcome.seat) == ("abandon", 1)
    report = audit_transcript(record.transcript)
    assert report.signed == [0] and report.unsigned == [] and report.excused == [1]
    assert not report.verdict.faults


@pytest.mark.parametrize("altered_first", [True, False])
def test_a_copy_whose_hand_start_was_altered_never_outranks_the_signed_one(
        tmp_path: Path, altered_first: bool) -> None:
    """AUDIT-4: two copies that differ in their hand_start, one altered where no key signed:
    the hand stands on the signed one, whatever the order the files are given in, and the
    altered file is the one named — never the honest copy, the host or a seat."""
    t = play("briscola", 2, seed=21, hands=1)
    tr = t.records[0].transcript
    bent = dict(tr.entries[0])
    bent["sig"] = bytes(64)
    altered = Transcript([bent, *tr.entries[1:]], tr.hand_end, tr.sign_offs)
    a, b = tmp_path / "honest", tmp_path / "altered"
    a.mkdir()
    b.mkdir()
    tr.save(str(a / "hand-001.p2pb"))
    altered.save(str(b / "hand-001.p2pb"))
    files = [b / "hand-001.p2pb", a / "hand-001.p2pb"]
    _, audits = verdict_of(files if altered_first else files[::-1])
    faults = [f for ma in audits for f in [*ma.faults, *(x for h in ma.hands for x in h.faults)]]
    assert not [f for f in faults if f.party in ("host", "seat")], faults
    assert not [f for f in faults if f.what == "bad_hand_start"], faults
    (two,) = [f for f in faults if f.what == "two_records"]
    assert f"{a}/hand-001.p2pb and {b}/hand-001.p2pb" in two.detail, two.detail
