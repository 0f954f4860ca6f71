"""Shared test settings: hypothesis profiles sized for a 2-core CI machine; bytecode caches
written; the user's data directory kept out of reach (see below)."""

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings
from tcpkit import Kit

# The suite starts dozens of Python processes (host, join, play, bench clients, the xdist
# workers). Where the environment sets PYTHONDONTWRITEBYTECODE, each of them would compile
# the whole package from source again; let the first one write its bytecode cache
# (`__pycache__/`, ignored by git) and the others read it.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The tests never read nor write the user's own p2p-burraco data (identity, pinned keys,
# journals: `net.identity.default_data_dir`, platformdirs): a player who has played and then
# runs the suite would otherwise see its pinned keys in `verify`'s output and its journals
# resumed. Every process the suite starts inherits this empty directory instead.
_DATA_HOME = tempfile.mkdtemp(prefix="p2pb-test-data-")
atexit.register(shutil.rmtree, _DATA_HOME, True)
os.environ["XDG_DATA_HOME"] = _DATA_HOME

settings.register_profile(
    "ci", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci")


@pytest.hookimpl(optionalhook=True)   # pytest-xdist's hook: `-p no:xdist` runs still work
def pytest_xdist_auto_num_workers(config: object) -> int:
    """`-n auto`: one worker more than the machine has CPUs. Many tests spend their time
    waiting on other processes (host, join, play) or on sockets; the extra worker runs
    meanwhile (on 2 cores: about 58 s instead of 63 s for the whole suite here)."""
    return (os.cpu_count() or 1) + 1


@pytest.fixture(scope="module")
def kit() -> Iterator[Kit]:
    """A reactor thread of its own for a test module's real-TCP hosts and peers (tcpkit)."""
    k = Kit()
    yield k
    k.stop()
