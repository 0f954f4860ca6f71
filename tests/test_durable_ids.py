"""A seeded host run twice on one data directory (`play --seed N` twice): the second match
gets an id of its own, so it never collides with the first's directory and journal ("journal
exists: a match id is never reused" was the crash)."""

from __future__ import annotations

import random
from pathlib import Path

from p2p_burraco.bots import make_strategy
from p2p_burraco.net.host import HostConfig
from p2p_burraco.net.loopback import Loopback, start_table
from p2p_burraco.table.inprocess import BotController


def bot(seed: int) -> BotController:
    return BotController(make_strategy("briscola", "random", random.Random(seed)))


def test_the_same_seed_twice_plays_two_matches_with_two_ids(tmp_path: Path) -> None:
    ids = []
    for _ in range(2):
        net = Loopback()
        cfg = HostConfig(data_dir=tmp_path, game="briscola", variant="smazzate", players=2,
                         hands=1, seed=7)
        host, peers = start_table(net, cfg, [bot(0), bot(1)])
        for _ in range(200):
            if all(p.done.called for p in peers):
                break
            net.advance(1.0)
        assert all(p.done.called for p in peers)
        ids.append(host.lobby.tables["t1"].match_id)
    assert ids[0] != ids[1]
    dirs = sorted((tmp_path / "matches").iterdir())
    assert len(dirs) == 2 and all((d / "result.json").exists() for d in dirs)


def test_a_new_match_id_is_none_a_directory_has(tmp_path: Path) -> None:
    from p2p_burraco.storage.journal import new_match_id

    a, b = new_match_id(tmp_path), new_match_id(tmp_path)
    assert len(a) == len(b) == 16 and a != b
