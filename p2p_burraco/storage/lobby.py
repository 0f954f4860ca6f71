"""The host's lobby on disk: the tables still waiting for players, and who sits where.

Why: a match's journal starts when its seats fill; before that, who sat where lived only in
the host's memory, so a host restarted while its lobby filled forgot it and told a returning
player "our seat was given away after the grace period ran out" — the grace had not run out.
`<data-dir>/lobby.json` is rewritten (atomically, durable) on every change of a waiting
table's seats; a table leaves it when its match starts (the journal then has it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .files import write_record

LOBBY = "lobby.json"
VERSION = 1


def save_lobby(data_dir: Path, tables: Sequence[Mapping[str, Any]]) -> None:
    """Write the waiting tables (each: id, game, variant, players, target, hands, options,
    seats [{seat, name, identity (hex), bot_name}]); durable when this returns."""
    body = {"version": VERSION, "tables": [dict(t) for t in tables]}
    write_record(Path(data_dir) / LOBBY, json.dumps(body, indent=1, sort_keys=True).encode()
                 + b"\n")


def load_lobby(data_dir: Path) -> list[dict[str, Any]]:
    """The waiting tables a previous run left (none if there is no file). A file that does
    not read is a ValueError naming it (the lobby is never guessed)."""
    path = Path(data_dir) / LOBBY
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    try:
        body = json.loads(raw)
        tables = body["tables"]
        if body.get("version") != VERSION or not isinstance(tables, list):
            raise ValueError("unknown layout")
        for t in tables:
            str(t["id"])
            for s in t["seats"]:
                int(s["seat"])
                bytes.fromhex(s["identity"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path} does not read as a lobby: {exc}") from None
    return [dict(t) for t in tables]
