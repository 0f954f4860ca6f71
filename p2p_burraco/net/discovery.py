"""Finding a table on the LAN: DNS-SD over multicast DNS (zeroconf), the way printers and
Chromecasts are found, so nobody reads an address off the host's screen.

A host bound to a LAN address announces one `_p2p-burraco._tcp` service; its TXT record says
what a player needs to choose a table before connecting (DISC-1):

    v=1              the version of this TXT layout
    proto=1-1        the wire protocol versions the host speaks (wire.PROTOCOL_VERSIONS)
    game=burraco     the game, and `variant` its rule set
    players=4        seats at the table, `free` how many are still free
    seated=Ann,Bob   who sits there already (names, comma separated)
    table=t1         the table id to ask for
    fp=…             the first 32 hex digits of the SHA-256 of the host's identity key

A player who joins from an advertisement checks, in the handshake, that the host's key has
that fingerprint (DISC-3): an impostor answering on the advertised address is refused.
An advertisement that is malformed, speaks another protocol, or was withdrawn during the
browse is ignored with a log line (DISC-2). Zeroconf runs its own thread: nothing here
touches Twisted; the commands call `Announcer` and `browse` (blocking) from a worker thread
or before the reactor starts.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import queue
import re
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("p2p_burraco.net.discovery")

SERVICE_TYPE = "_p2p-burraco._tcp.local."
TXT_VERSION = "1"
FINGERPRINT_HEX = 32
"""Hex digits of the host key's SHA-256 an advertisement carries (128 bits)."""
MAX_SEATED_TEXT = 200
"""A TXT string holds at most 255 bytes: the list of seated names is cut to fit."""


class AdError(ValueError):
    """An advertisement that cannot be used, and why (DISC-2)."""


def key_fingerprint(public_key: bytes) -> str:
    """What an advertisement says of the host's key: enough of its SHA-256 to pin it."""
    return hashlib.sha256(public_key).hexdigest()[:FINGERPRINT_HEX]


def fingerprint_matches(public_key: bytes, advertised: str) -> bool:
    """True when `public_key` is the key the advertisement's fingerprint names (DISC-3)."""
    return len(advertised) >= 16 and hashlib.sha256(public_key).hexdigest().startswith(
        advertised.lower())


@dataclass(frozen=True)
class TableAd:
    """One advertised table, as a browser found it."""

    instance: str          # the service instance name (unique on the LAN)
    host: str              # the host machine's name, for people
    address: str           # an IPv4 address to connect to
    port: int
    game: str
    variant: str
    players: int
    free: int
    seated: tuple[str, ...]
    table: str
    protocol: tuple[int, int]
    fingerprint: str

    @property
    def target(self) -> str:
        """HOST:PORT, as `join` takes it."""
        return f"{self.address}:{self.port}"

    def line(self) -> str:
        """One line of `p2p-burraco tables` and of `join`'s list."""
        who = ", ".join(self.seated) if self.seated else "nobody yet"
        return (f"{self.host} {self.target} table {self.table}: {self.game} {self.variant}, "
                f"{self.free} of {self.players} seats free (seated: {who}) "
                f"key {self.fingerprint[:16]}")


def ad_properties(info: Mapping[str, Any], host_key: bytes,
                  protocol: tuple[int, int] | None = None) -> dict[str, str]:
    """The TXT record for a table (`TableRoom.info()`), DISC-1."""
    if protocol is None:
        from ..wire import PROTOCOL_VERSIONS

        protocol = PROTOCOL_VERSIONS
    seats = list(info.get("seats") or [])
    names = [str(s.get("name")).replace(",", " ") for s in seats if s.get("name")]
    seated = ",".join(names)
    while len(seated.encode()) > MAX_SEATED_TEXT and names:
        names.pop()
        seated = ",".join(names + ["…"])
    free = sum(1 for s in seats if s.get("identity") is None)
    return {"v": TXT_VERSION, "proto": f"{protocol[0]}-{protocol[1]}",
            "game": str(info["game"]), "variant": str(info["variant"]),
            "players": str(int(info["players"])), "free": str(free), "seated": seated,
            "table": str(info["id"]), "fp": key_fingerprint(host_key)}


_TOKEN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


def _decode(props: Mapping[Any, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in props.items():
        key = k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)
        if v is None:
            continue
        out[key] = v.decode("utf-8", "strict") if isinstance(v, bytes) else str(v)
    return out


def parse_ad(instance: str, addresses: Sequence[str], port: int, props: Mapping[Any, Any],
             server: str = "", speak: tuple[int, int] | None = None) -> TableAd:
    """A TableAd from what mDNS gave, or AdError naming what is wrong (DISC-2)."""
    if speak is None:
        from ..wire import PROTOCOL_VERSIONS

        speak = PROTOCOL_VERSIONS
    try:
        p = _decode(props)
    except UnicodeDecodeError:
        raise AdError("its TXT record is not UTF-8") from None
    if p.get("v") != TXT_VERSION:
        raise AdError(f"TXT layout version {p.get('v')!r}, we read {TXT_VERSION!r}")
    missing = [k for k in ("proto", "game", "variant", "players", "free", "table", "fp")
               if not p.get(k)]
    if missing:
        raise AdError(f"its TXT record lacks {', '.join(missing)}")
    m = re.fullmatch(r"(\d{1,3})-(\d{1,3})", p["proto"])
    if m is None:
        raise AdError(f"proto {p['proto']!r} is not LOW-HIGH")
    lo, hi = int(m.group(1)), int(m.group(2))
    if hi < speak[0] or lo > speak[1]:
        raise AdError(f"it speaks protocol {lo}..{hi}, we speak {speak[0]}..{speak[1]}")
    for k in ("game", "variant", "table"):
        if not _TOKEN.match(p[k]):
            raise AdError(f"{k} {p[k]!r} is not a plain name")
    if not p["players"].isdigit() or not p["free"].isdigit():
        raise AdError(f"players {p['players']!r} / free {p['free']!r} are not numbers")
    players, free = int(p["players"]), int(p["free"])
    if not 1 <= players <= 8 or free > players:
        raise AdError(f"{free} free of {players} seats is no table")
    fp = p["fp"].lower()
    if not re.fullmatch(r"[0-9a-f]{16,64}", fp):
        raise AdError(f"fp {p['fp']!r} is not a key fingerprint (16+ hex digits)")
    v4 = []
    for a in addresses:
        try:
            ip = ipaddress.ip_address(a)
        except ValueError:
            continue
        if ip.version == 4 and not ip.is_unspecified:
            v4.append(str(ip))
    if not v4:
        raise AdError("it gives no IPv4 address")
    if not 0 < port < 65536:
        raise AdError(f"port {port} is no TCP port")
    seated = tuple(s for s in p.get("seated", "").split(",") if s)
    host = server.removesuffix(".").removesuffix(".local") or instance.split(".")[0]
    return TableAd(instance=instance, host=host, address=v4[0], port=port, game=p["game"],
                   variant=p["variant"], players=players, free=free, seated=seated,
                   table=p["table"], protocol=(lo, hi), fingerprint=fp)


def _interfaces(bind: str | None) -> Any:
    from zeroconf import InterfaceChoice

    if bind in (None, "", "0.0.0.0"):
        return InterfaceChoice.All
    return [bind]


def _zeroconf(bind: str | None) -> Any:
    from zeroconf import IPVersion, Zeroconf

    return Zeroconf(interfaces=_interfaces(bind), ip_version=IPVersion.V4Only)


class Announcer:
    """The host's advertisement (DISC-1): registered once, its TXT updated as seats fill,
    withdrawn on close — and withdrawn while the host has no table to describe, registered
    again when it has one (`listed`). Methods block (mDNS probing takes about a second):
    call them off the reactor thread."""

    def __init__(self, bind: str, port: int, addresses: Sequence[str],
                 properties: Mapping[str, str], instance: str | None = None) -> None:
        host = socket.gethostname().split(".")[0] or "host"
        safe = re.sub(r"[^A-Za-z0-9-]", "-", host)[:40] or "host"
        self.bind = bind
        self._label = f"p2p-burraco {safe} {port}"
        self.instance = instance
        self.server = f"{safe}.local."
        self.port = port
        self.addresses = [a for a in addresses if a]
        self.properties = dict(properties)
        self._zc: Any = None
        self._info: Any = None
        self._lock = threading.Lock()
        self.closed = False
        self.listed = True
        """Whether the host wants to be advertised now, set from the reactor thread before it
        asks for `start` or `withdraw`: why each checks it, pool threads may run them in
        either order, and the last wish must win."""

    def _make_info(self) -> Any:
        from zeroconf import ServiceInfo

        return ServiceInfo(SERVICE_TYPE, f"{self.instance}.{SERVICE_TYPE}",
                           addresses=[socket.inet_aton(a) for a in self.addresses],
                           port=self.port, properties=dict(self.properties),
                           server=self.server)

    def start(self, properties: Mapping[str, str] | None = None) -> bool:
        """Register the service (allow_name_change: two hosts on one machine coexist), with
        `properties` if given. False, with a warning, when the network does not let us (no
        multicast, port 5353 refused): the host goes on, reachable by its address."""
        with self._lock:
            if properties is not None:
                self.properties = dict(properties)
            if self.closed or self._zc is not None or not self.listed:
                return False
            if self.instance is None:
                self.instance = f"{self._label} {self.properties.get('fp', '')[:8]}".strip()
            try:
                self._zc = _zeroconf(self.bind)
                self._info = self._make_info()
                self._zc.register_service(self._info, allow_name_change=True)
            except Exception as exc:  # noqa: BLE001 — zeroconf raises its own and OSError
                log.warning("not announced on the LAN: %s", exc)
                if self._zc is not None:
                    self._zc.close()
                self._zc, self.closed = None, True
                return False
            self.instance = self._info.name.removesuffix("." + SERVICE_TYPE)
        log.info("announced %s on %s (%s:%d)", self.instance, self.bind,
                 ",".join(self.addresses), self.port)
        return True

    def update(self, properties: Mapping[str, str]) -> bool:
        """Say the table's new state (seats taken or freed); False if nothing changed."""
        with self._lock:
            if dict(properties) == self.properties or self.closed:
                return False
            self.properties = dict(properties)
            if self._zc is None:
                return True
            self._info = self._make_info()
            self._zc.update_service(self._info)
            return True

    def withdraw(self) -> bool:
        """Withdraw the advertisement (a goodbye packet) while the host has no table to
        describe; `start` registers it again. False if it was not registered, or is wanted."""
        with self._lock:
            if self.listed or self._zc is None:
                return False
            zc, info = self._zc, self._info
            self._zc = None
            try:
                zc.unregister_service(info)
            finally:
                zc.close()
        log.info("withdrew %s: no table to advertise", self.instance)
        return True

    def close(self) -> None:
        """Withdraw the advertisement (a goodbye packet) and stop zeroconf's thread."""
        with self._lock:
            self.closed = True
            zc, info = self._zc, self._info
            self._zc = None
        if zc is not None:
            try:
                zc.unregister_service(info)
            finally:
                zc.close()


def browse(seconds: float = 2.0, *, bind: str | None = None,
           until: Callable[[TableAd], bool] | None = None) -> list[TableAd]:
    """The tables advertised on the LAN within `seconds` (sorted by host and table); with
    `until`, returns as soon as one advertisement satisfies it. Malformed, foreign or
    withdrawn advertisements are left out with a log line (DISC-2)."""
    from zeroconf import ServiceBrowser, ServiceStateChange

    zc = _zeroconf(bind)
    events: queue.Queue[tuple[str, bool]] = queue.Queue()   # (instance, still advertised)
    found: dict[str, TableAd] = {}

    def changed(zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        events.put((name, state_change is not ServiceStateChange.Removed))

    browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[changed])
    deadline = time.monotonic() + seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            try:
                name, alive = events.get(timeout=left)
            except queue.Empty:
                break
            if not alive:
                if found.pop(name, None) is not None:
                    log.info("ignored %s: the advertisement was withdrawn [DISC-2]", name)
                continue
            ad = _resolve(zc, name, max(0.3, min(1.0, deadline - time.monotonic())))
            if ad is None:
                found.pop(name, None)
                continue
            found[name] = ad
            if until is not None and until(ad):
                return [ad]
    finally:
        browser.cancel()
        zc.close()
    return sorted(found.values(), key=lambda a: (a.host, a.address, a.port, a.table))


def _resolve(zc: Any, name: str, timeout: float) -> TableAd | None:
    from zeroconf import ServiceInfo

    info = ServiceInfo(SERVICE_TYPE, name)
    if not info.request(zc, int(timeout * 1000)):
        log.info("ignored %s: it did not answer with its address and TXT record", name)
        return None
    try:
        ad = parse_ad(name.removesuffix("." + SERVICE_TYPE), info.parsed_addresses(),
                      int(info.port or 0), info.properties or {}, info.server or "")
    except AdError as exc:
        log.warning("ignored the advertisement %s: %s [DISC-2]", name, exc)
        return None
    why = stale(ad)
    if why is not None:
        log.warning("ignored the advertisement %s: stale, %s [DISC-2]", name, why)
        return None
    return ad


def stale(ad: TableAd, timeout: float = 0.5) -> str | None:
    """Why an advertisement is stale — nothing accepts a connection at its address (a host
    gone without its goodbye, a cache that outlived it) — or None when something listens."""
    try:
        with socket.create_connection((ad.address, ad.port), timeout=timeout):
            return None
    except OSError as exc:
        return f"nothing listens at {ad.target} ({exc.strerror or exc})"


def advertised_table(node: Any) -> dict[str, Any] | None:
    """The table a host advertises: the first still waiting for players, else the default
    one (its seats fill and free as the match goes), else none."""
    rooms = list(node.lobby.tables.values())
    waiting = [r for r in rooms if r.status == "waiting" and r.free_seats()]
    room = waiting[0] if waiting else node.default_room
    return None if room is None else dict(room.info())


def announce_host(reactor: Any, node: Any, addresses: Sequence[str],
                  refresh: float = 1.0) -> Announcer:
    """Advertise a running host node on the LAN (DISC-1) from the reactor: registration and
    updates run in the reactor's thread pool (mDNS probing blocks), the TXT record follows
    the lobby every `refresh` seconds, and the advertisement is withdrawn at shutdown.

    Why nothing is announced while the host has no table to describe: any stand-in (no
    players, no rule set) is an advertisement every browser's `parse_ad` rejects (DISC-2);
    the host is announced when a table appears and withdrawn if none is left."""
    host, port = node.address()
    info = advertised_table(node)
    props = {} if info is None else ad_properties(info, node.public_key)
    announcer = Announcer(host, port, addresses, props)
    announcer.listed = info is not None
    if announcer.listed:
        reactor.callInThread(announcer.start)

    def tick() -> None:
        if announcer.closed:
            return
        current = advertised_table(node)
        if current is None:
            if announcer.listed:
                announcer.listed = False
                reactor.callInThread(announcer.withdraw)
        else:
            props = ad_properties(current, node.public_key)
            if not announcer.listed:
                announcer.listed = True
                reactor.callInThread(announcer.start, props)
            elif props != announcer.properties:
                reactor.callInThread(announcer.update, props)
        reactor.callLater(refresh, tick)

    reactor.callLater(refresh, tick)
    reactor.addSystemEventTrigger("before", "shutdown", announcer.close)
    return announcer
