"""What a table room needs from the host that runs it.

`TableRoom` (and the helpers that take a room's node: `bugs.fail_room`, `guarded`,
`between.HandPause`) uses exactly these members of its host, so a room is typed against this
`Protocol`, not against `HostNode`'s concrete class: a reader sees the whole surface in one
place, and a test may hand a room any object that has it. `HostNode` satisfies it (mypy
checks that where a `HostNode` is passed to `TableRoom`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from ..storage.journal import DiskFull
    from .host import HostConfig, Lobby
    from .room import TableRoom


class RoomHost(Protocol):
    """The host as a table room sees it: a clock, keys, directories, a voice, bots, and
    where a finished or failed table goes."""

    default_room: TableRoom | None
    """The table a plain `join` sits at; a room stopped by a bug stops being it."""

    @property
    def reactor(self) -> Any:
        """The host's clock: `callLater` for move clocks, grace periods and pauses."""

    @property
    def config(self) -> HostConfig: ...

    @property
    def identity(self) -> Ed25519PrivateKey:
        """The host's signing key (a match's HostTable signs with it)."""

    @property
    def public_key(self) -> bytes: ...

    @property
    def matches_dir(self) -> Path: ...

    @property
    def data_dir(self) -> Path: ...

    @property
    def bot_controller(self) -> Any:
        """None when this host cannot seat bots of its own."""

    @property
    def lobby(self) -> Lobby: ...

    def table_rules(self, game: str) -> Any: ...

    def say(self, text: str) -> None: ...

    def own_bot_name(self, identity: bytes | None) -> str | None: ...

    def random_bytes(self, n: int) -> bytes: ...

    def new_match_id(self) -> bytes: ...

    def now_ms(self) -> int: ...

    def journaled(self, journal: Any) -> None: ...

    def durable(self, journal: Any) -> None: ...

    def remember_end(self, room: TableRoom, result: dict[str, Any]) -> None: ...

    def table_over(self, room: TableRoom) -> None: ...

    def done_if_idle(self) -> None: ...

    def restart_bot(self, room: TableRoom, seat: int) -> None: ...

    def add_bot(self, table_id: str, seat: int | None, name: str | None = None) -> Any: ...

    def disk_failed(self, room: TableRoom, exc: DiskFull, abort: bool = False) -> None: ...
