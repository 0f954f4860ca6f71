"""`p2p-burraco tables`: the tables advertised on the LAN, one line each (what `join` with
no address lists and picks from) [DISC-1]."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import UsageError

HELP = "list the tables hosts advertise on the LAN (zeroconf/mDNS), one line each"
DEFAULT_BROWSE = 2.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--browse-for", type=float, default=DEFAULT_BROWSE, metavar="SECONDS",
                   help=f"how long to listen for advertisements (default {DEFAULT_BROWSE:g})")
    p.add_argument("--bind", default=None, metavar="ADDR",
                   help="browse on the interface with this address only (default: all)")
    p.add_argument("--json", action="store_true", help="one JSON object per table")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="log the advertisements ignored and why")


def find_tables(seconds: float, bind: str | None = None, *,
                first_free: bool = False) -> list[Any]:
    """Browse the LAN (DISC-1); `first_free`: stop at the first table with a free seat."""
    from ..net.discovery import browse

    if not 0 < seconds <= 60:
        raise UsageError(f"--browse-for must be between 0 and 60 seconds, not {seconds:g}")
    return browse(seconds, bind=bind, until=(lambda ad: ad.free > 0) if first_free else None)


def numbered(ads: Sequence[Any]) -> list[str]:
    """The list `join` shows before asking which table."""
    return [f"{i}. {ad.line()}" for i, ad in enumerate(ads, 1)]


def choose(ads: Sequence[Any], ask: Callable[[str], str],
           say: Callable[[str], None] = print) -> Any:
    """Let a person pick one of the tables found: its number (Enter: the first with a free
    seat). Asks again on a bad answer; an empty list or end of input is a ValueError."""
    if not ads:
        raise UsageError("no table found on the LAN")
    for line in numbered(ads):
        say(line)
    free = [ad for ad in ads if ad.free > 0]
    while True:
        try:
            answer = ask(f"table number (1-{len(ads)}, Enter: the first with a free seat): ")
        except EOFError:
            raise UsageError("no table chosen") from None
        answer = answer.strip()
        if not answer and free:
            return free[0]
        if answer.isdigit() and 1 <= int(answer) <= len(ads):
            ad = ads[int(answer) - 1]
            if ad.free > 0:
                return ad
            say(f"table {answer} has no free seat")
            continue
        say(f"{answer!r} is not a number from 1 to {len(ads)}")


def as_json(ad: Any) -> dict[str, Any]:
    return {"host": ad.host, "address": ad.address, "port": ad.port, "table": ad.table,
            "game": ad.game, "variant": ad.variant, "players": ad.players, "free": ad.free,
            "seated": list(ad.seated), "fingerprint": ad.fingerprint,
            "protocol": list(ad.protocol), "instance": ad.instance}


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(name)s %(message)s", stream=sys.stderr)
    ads = find_tables(args.browse_for, args.bind)
    if args.json:
        for ad in ads:
            print(json.dumps(as_json(ad), sort_keys=True))
        return 0
    if not ads:
        print(f"no table advertised on the LAN within {args.browse_for:g} s "
              "(hosts announce when bound to a LAN address, unless --no-announce)",
              file=sys.stderr)
        return 1
    for line in numbered(ads):
        print(line)
    return 0
