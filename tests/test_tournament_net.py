"""A registered player who is gone when the round opens: a host bot plays the seat after
`--no-show` seconds, the table plays its hands, and the event verifies (TOURN-14)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_tournament_e2e import _cli, finish, verify

pytestmark = [pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]


def test_tourn_14_a_no_show_gets_a_host_bot(tmp_path: Path) -> None:
    director = subprocess.Popen(
        _cli("tournament", "--port", "0", "--data-dir", str(tmp_path / "host"), "--dir",
             str(tmp_path / "event"), "--seed", "3", "--game", "briscola", "--players", "2",
             "--hands", "1", "--rounds", "1", "--start-when", "4", "--no-show", "1"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    assert director.stdout is not None
    port = None
    for line in director.stdout:
        if "join 127.0.0.1:" in line:
            port = int(line.split("127.0.0.1:")[1].split()[0])
            break
    assert port is not None
    zed = subprocess.Popen(_cli("join", f"127.0.0.1:{port}", "--bot", "--name", "Zed",
                                "--data-dir", str(tmp_path / "zed")),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in director.stdout:                  # wait for the event, not for a time
        if "registered Zed" in line:
            break
    zed.kill()
    zed.communicate()
    others = subprocess.Popen(_cli("tournament", "bots", f"127.0.0.1:{port}", "3",
                                   "--seed", "4"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = finish([director, others])
    for rc, out, err in results:
        assert rc == 0, out + err
    assert "Zed did not show; a host bot plays" in results[0][1]
    body = json.loads((tmp_path / "event" / "standings.json").read_text())["body"]
    assert [t["bots_for"] for t in body["rounds"][0]["tables"] if t["bots_for"]] == [["Zed"]]
    proc = verify(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_director_commands_before_the_start(tmp_path: Path) -> None:
    """The console's words, in both languages, on an event nobody has joined yet."""
    from twisted.internet.task import Clock

    from p2p_burraco.commands.tournament import handle_command
    from p2p_burraco.net.host import HostConfig, HostNode
    from p2p_burraco.net.tournament import EventConfig, Tournament

    node = HostNode(Clock(), HostConfig(data_dir=tmp_path, default_table=False, resume=False))
    event = Tournament(node, EventConfig(directory=tmp_path / "ev"))
    assert "registration open: 0" in handle_command(event, "stato")[0]
    assert handle_command(event, "next")[0] == "the tournament has not started (type `start`)"
    assert handle_command(event, "avanti")[0] == handle_command(event, "next")[0]
    assert "at least 2 are needed" in handle_command(event, "inizia")[0]
    assert event.state == "registering"
    assert "unknown command 'frob'" in handle_command(event, "frob")[0]
    assert "inizia" in handle_command(event, "aiuto")[0]
    assert handle_command(event, "esci")[1] is True
