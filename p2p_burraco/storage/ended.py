"""What the host keeps of its ended matches across a restart: who sat where (to answer a
returning seat with its match's result) and the open rematch offers (TABLE-16).

Why: a match's journal says it ended, but a host that restarted had forgotten, for the
seats of matches that ended before the restart, that their match was over — a seat coming
back was told "our seat was given away" — and every open rematch offer was gone.
`<data-dir>/ended.msgpack` is rewritten (atomically, durable: storage.files.write_record)
whenever a match ends or an offer changes, before the `match_end` or the rematch's `seated`
leaves; msgpack keeps each `match_end` body exactly as it went on the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgpack

from .files import write_record

ENDED = "ended.msgpack"
VERSION = 1


def save_ended(data_dir: Path, body: Mapping[str, Any]) -> None:
    """Write the ended matches' seats and the open offers (see `net.ended.snapshot`);
    durable when this returns, an OSError (ENOSPC…) when it could not be written."""
    data: bytes = msgpack.packb({"version": VERSION, **body}, use_bin_type=True)
    write_record(Path(data_dir) / ENDED, data)


def load_ended(data_dir: Path) -> dict[str, Any]:
    """What a previous run left (empty when there is no file); a file that does not read is
    a ValueError naming it (never guessed)."""
    path = Path(data_dir) / ENDED
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    try:
        body = msgpack.unpackb(raw, raw=False, strict_map_key=False)
        if not isinstance(body, dict) or body.get("version") != VERSION:
            raise ValueError("unknown layout")
        for m in body.get("matches", []):
            str(m["table"])
            dict(m["end"])
            if not isinstance(m.get("last", ""), str):
                raise ValueError("a last hand's record is not a path")
            for seat, key in m["seats"]:
                int(seat)
                if not isinstance(key, bytes):
                    raise ValueError("a seat's identity is not bytes")
        for o in body.get("offers", []):
            str(o["table"])
            float(o["expires"])
        int(body.get("next_table", 1))
    except (ValueError, KeyError, TypeError, msgpack.UnpackException) as exc:
        raise ValueError(f"{path} does not read as the host's ended matches: {exc}") from None
    return body
