"""`p2p-burraco bench host` end to end, tiny: one host process and bot clients over
loopback TCP play Briscola for ~3 s; the figures are printed, no error, at least one hand.
No timing is asserted (figures, not tests)."""

from __future__ import annotations

import re

import pytest

from p2p_burraco.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]


def test_bench_host_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "host", "--tables", "2", "--game", "briscola", "--seconds", "2"])
    out = capsys.readouterr().out
    for label in ("tables:", "hands completed:", "hands per minute:", "host CPU per hand:",
                  "host RSS:", "RSS growth per hand:", "errors:"):
        assert label in out, out
    assert re.search(r"errors:\s+0\b", out), out
    m = re.search(r"hands completed:\s+(\d+) in all", out)
    assert m is not None and int(m.group(1)) >= 1, out
    assert code == 0, out
