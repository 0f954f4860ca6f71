"""The tournament director's two screens: the console (stdin lines) and the standings page.

The page is read-only, served by `twisted.web` on the host's own address and only when the
director asks (`--web PORT`); it refreshes itself every 10 seconds and uses large type, for a
projector across the room. `/standings.json` gives the same figures to a script.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from twisted.internet import stdio
from twisted.internet.interfaces import IListeningPort
from twisted.protocols.basic import LineReceiver
from twisted.web.resource import Resource
from twisted.web.server import Site

REFRESH_S = 10

PAGE = """<!doctype html>
<html lang="it"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="{refresh}">
<title>Classifica / Standings</title>
<style>
body {{ font-family: sans-serif; background: #0b3d1e; color: #fff; margin: 2vw; }}
h1 {{ font-size: 4vw; margin: 0 0 1vw 0; }}
p.sub {{ font-size: 2vw; margin: 0 0 2vw 0; color: #cfe; }}
table {{ border-collapse: collapse; width: 100%; font-size: 3vw; }}
td, th {{ padding: 0.4vw 1vw; border-bottom: 1px solid #4a7; text-align: left; }}
td.n {{ text-align: right; font-variant-numeric: tabular-nums; }}
h2 {{ font-size: 2.5vw; margin: 2vw 0 1vw 0; }}
ul {{ font-size: 2vw; }}
</style></head><body>
<h1>Classifica &middot; Standings</h1>
<p class="sub">{subtitle}</p>
<table><tr><th>#</th><th>Linea / Line</th><th>VP</th><th>MP</th><th>Turni / Rounds</th></tr>
{rows}
</table>
<h2>Tavoli / Tables</h2>
<ul>{tables}</ul>
</body></html>
"""


def render_page(event: Any) -> bytes:
    """The standings page as HTML bytes (escaped: names come from the players)."""
    rows = "\n".join(
        f"<tr><td class=n>{r['rank']}</td><td>{html.escape(r['name'])}</td>"
        f"<td class=n>{r['vp']}</td><td class=n>{r['mp']:+d}</td>"
        f"<td class=n>{r['played'] + r['byes']}</td></tr>"
        for r in (event.standings_rows() if event.entrants else []))
    lines = event.status_lines()
    subtitle = html.escape(lines[0]) if lines else ""
    tables = "".join(f"<li>{html.escape(x.strip())}</li>" for x in lines[1:]
                     if x.startswith("  ") and not x.startswith("   "))
    return PAGE.format(refresh=REFRESH_S, subtitle=subtitle, rows=rows, tables=tables).encode()


class StandingsPage(Resource):
    isLeaf = True

    def __init__(self, event: Any) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # twisted.web's Resource is untyped
        self.event = event

    def render_GET(self, request: Any) -> bytes:
        if request.path == b"/standings.json":
            request.setHeader(b"content-type", b"application/json; charset=utf-8")
            body = {"state": self.event.state,
                    "standings": self.event.standings_rows() if self.event.entrants else [],
                    "status": self.event.status_lines()}
            return json.dumps(body, ensure_ascii=False).encode()
        if request.path not in (b"/", b"/index.html"):
            request.setResponseCode(404)
            return b"not found"
        request.setHeader(b"content-type", b"text/html; charset=utf-8")
        return render_page(self.event)

    def render_POST(self, request: Any) -> bytes:   # read-only
        request.setResponseCode(405)
        return b"read-only"


def serve_standings(reactor: Any, event: Any, port: int, bind: str) -> IListeningPort:
    """Listen for the standings page on the host's address."""
    site = Site(StandingsPage(event))  # type: ignore[no-untyped-call]  # twisted.web's Site is untyped
    listening: IListeningPort = reactor.listenTCP(port, site, interface=bind)
    return listening


class _Director(LineReceiver):
    delimiter = b"\n"

    def __init__(self, reactor: Any, event: Any,
                 handle: Callable[[Any, str], tuple[str, bool]]) -> None:
        self.reactor = reactor
        self.event = event
        self.handle = handle

    def connectionMade(self) -> None:
        out: Any = self.transport
        out.write(b"> ")

    def lineReceived(self, line: bytes) -> None:
        text, stop = self.handle(self.event, line.decode("utf-8", "replace"))
        out: Any = self.transport
        out.write(text.encode() + b"\n> ")
        if stop:
            self.event._finish()


def director_console(reactor: Any, event: Any,
                     handle: Callable[[Any, str], tuple[str, bool]]) -> Any:
    """Read the director's commands line by line from the terminal."""
    return stdio.StandardIO(_Director(reactor, event, handle),  # type: ignore[no-untyped-call]  # Twisted's StandardIO is untyped
                            reactor=reactor)
