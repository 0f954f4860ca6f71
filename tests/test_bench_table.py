"""`bench table`: its counters count every call of the cryptography they wrap, and the bench
runs a real table (host and seats each in its own process) to its figures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from waits import load_scale

ROOT = Path(__file__).resolve().parents[1]

COUNT_A_DEAL = """
from p2p_burraco.benchmarks import counting
counting.install()
from p2p_burraco.fairdeal import LocalTable, group, hands_schedule, signing
signing._remember = lambda *a: None   # one process plays every node: check each for real
t = LocalTable.new(3, "italian40", 40, hands_schedule(3, 40, 3), base=b"count")
t.deal()
t.reveal_all()
t.finish()
c = counting.COUNTS
print(c["mult"], group.MULTIPLICATIONS[0], c["verify"], c["sign"], c["x25519"])
"""


def run_python(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return done.stdout


def test_the_counters_see_every_multiplication_check_and_signature() -> None:
    mult, group_count, verify, sign, x25519 = map(int, run_python(COUNT_A_DEAL).split())
    # fairdeal.group counts its own multiplications: the wrapper sees each one
    assert mult == group_count > 0
    assert verify > 0 and sign > 0
    assert x25519 == 0          # a LocalTable deal exchanges no keys: nothing uncounted hides


def test_installing_after_fairdeal_is_refused() -> None:
    out = run_python("import p2p_burraco.fairdeal\n"
                     "from p2p_burraco.benchmarks import counting\n"
                     "try:\n    counting.install()\n"
                     "except RuntimeError:\n    print('refused')")
    assert out.strip() == "refused"


def test_count_lines_are_read_back_and_looked_up_by_time() -> None:
    from p2p_burraco.benchmarks.table import at, samples

    lines = [(0.0, "bench-count t=10.0000 cpu=1.5000 mult=5 verify=6 sign=7 x25519=8"),
             (0.0, "something else"),
             (0.0, "bench-count t=11.0000 cpu=2.0000 mult=50 verify=60 sign=70 x25519=80")]
    got = samples(lines)
    assert [s.counts["mult"] for s in got] == [5, 50]
    assert at(got, 10.5) is got[0] and at(got, 12) is got[1] and at(got, 9) is None


@pytest.mark.timeout(180)
def test_bench_table_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    from p2p_burraco.cli import main

    # about 20 hands in 2 s on a quiet machine (every row needs one): longer when it is busy
    seconds = 2 * load_scale()
    code = main(["bench", "table", "--game", "briscola", "--seconds", f"{seconds:.1f}",
                 "--warmup", "0.3"])
    out = capsys.readouterr().out
    print(f"ran {seconds:.1f} s")
    assert "bench table: briscola" in out and "tracebacks" not in out
    if "no hand closed in the window" in out:      # a machine too busy even then: said so
        assert code == 1
        return
    assert code == 0
    rows = {line.split()[0] + (line.split()[1] if line.split()[0] == "seat" else "")
            for line in out.splitlines()[5:] if line.strip()}
    assert {"host", "seat0", "seat1", "table"} <= rows
