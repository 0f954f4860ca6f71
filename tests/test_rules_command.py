"""Issue 47: `p2p-burraco rules` reads like a rulebook — wrapped to the terminal, no preset
or seed jargon, no proof formula, each rule with its id — and the options it names
(`--each-for-himself`) are accepted by `play` and `host`."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from loopback import Loopback, start_table

from p2p_burraco.bots import make_strategy
from p2p_burraco.cli import main
from p2p_burraco.commands.rules import rulebook
from p2p_burraco.games import get_game
from p2p_burraco.net.host import HostConfig
from p2p_burraco.table.inprocess import BotController


@pytest.mark.parametrize("game, variant", [("burraco", v) for v in
                                           get_game("burraco").presets] + [("briscola", None)])
def test_rules_wrap_and_read_like_a_rulebook(game: str, variant: str | None,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rules", "--game", game, "--width", "80"] + (["--variant", variant] if variant else [])
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "(preset '" not in text and "seed 0" not in text
    assert "every hand ends within" not in text                      # the bound, for proofs
    spec = get_game(game)
    raw = spec.describe(spec.presets[variant or spec.default_variant])
    ids = set(re.findall(r"[A-Z]+-\d+", raw))
    assert ids and ids <= set(re.findall(r"[A-Z]+-\d+", text))       # every id still there


def test_a_rule_is_one_paragraph_with_its_id_at_the_end() -> None:
    text = rulebook("T  (preset 'x', seed 000)\n\nA turn\n- " + "word " * 30 + " [FIBUR-5]", 40)
    lines = text.splitlines()
    assert lines[0] == "T" and lines[2] == "A turn"
    assert lines[3].startswith("- ") and all(ln.startswith("  ") for ln in lines[4:])
    assert lines[-1].endswith("[FIBUR-5]") and max(map(len, lines)) <= 40


def test_each_for_himself_is_refused_in_one_sentence_where_it_does_not_apply(
        capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["host", "--each-for-himself"], ["play", "--each-for-himself", "--players", "4"],
                 ["host", "--each-for-himself", "--game", "briscola"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "--each-for-himself" in err, err


def test_each_for_himself_reaches_the_hosts_match(tmp_path: Path) -> None:
    """`host --each-for-himself --players 3` hands the option to the match: three sides."""
    import argparse

    from p2p_burraco.commands.host import add_arguments
    from p2p_burraco.commands.play import match_options
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--each-for-himself", "--players", "3"])
    options = match_options(args, args.players)
    assert options == {"each_for_himself": True}
    net = Loopback()
    ctls = [BotController(make_strategy("burraco", "random", random.Random(i)))
            for i in range(3)]
    host, _ = start_table(net, HostConfig(data_dir=tmp_path, players=3, hands=1, seed=2,
                                          match_options=options), ctls)
    room = host.lobby.tables["t1"]
    assert room.driver.state.match.each_for_himself and room.sides == [[0], [1], [2]]
