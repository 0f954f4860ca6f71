"""The keys a player has seen, by name: `<data-dir>/known_keys`, like SSH's known_hosts.

Why: a transcript carries the public keys it is signed with, so a file forged from end to
end (new keys, every statement re-signed) checks out by itself. What it cannot fake is a key
the auditor already knows. `p2p-burraco verify` checks every key a record names against
these pins (and against a `--keys FILE` in the same format): a key that contradicts its pin
is a forgery by whoever wrote the record; an unknown one is printed for a person to compare.

Format, one pin a line (the same for `verify --keys FILE`):

    # comment
    Anna 3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b5b4d7
    host 1f3870be274f6c49b3e31a0c6728957f
    bot 0 9a0364b9e99bb480dd25e1f0284c8555

The last word of a line is the fingerprint: the key's 64 hex digits, or a prefix of at
least 16 of them; everything before it is the name (a display name may hold spaces). The
host's key goes under the name `host`. A name may have several lines (several devices): a
key matching any of them is pinned.
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from pathlib import Path

from ..errors import UsageError
from .files import write_record

KNOWN_KEYS = "known_keys"
MIN_PREFIX = 16
KEY_HEX = 64
HOST = "host"
"""The name the host's key is pinned under."""

PINNED, UNKNOWN, MISMATCH = "pinned", "unknown", "mismatch"
KNOWN, CLASH = "known", "clash"
"""`KeyJudge` statuses: a key this machine met before (under any name); a name this
machine met with other keys only (a warning: names are labels, keys are identities)."""

_HEADER = ("# p2p-burraco known keys: `name fingerprint` per line (fingerprint = the key's hex,\n"
           "# or a prefix of at least 16 hex digits); the host's key under the name `host`.\n")


class KnownKeysError(UsageError):
    """A pin file that cannot be read as pins (the message names the line)."""


def known_keys_path(data_dir: Path | str) -> Path:
    return Path(data_dir) / KNOWN_KEYS


def _clean_name(name: str) -> str:
    name = " ".join(str(name).split())
    if not name:
        raise KnownKeysError("a pin needs a name")
    return name


def _fingerprint(text: str, where: str) -> str:
    fp = text.lower()
    if not all(c in string.hexdigits for c in fp) or not MIN_PREFIX <= len(fp) <= KEY_HEX:
        raise KnownKeysError(f"{where}: {text!r} is not a fingerprint (the key's hex, or a "
                             f"prefix of at least {MIN_PREFIX} hex digits)")
    return fp


class KnownKeys:
    """Pins by name (see the module docstring). `lines` keeps the file's own text (comments
    included) so that `save` after `remember` changes only what it must."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.lines: list[str] = []
        self.pins: dict[str, list[str]] = {}

    # ------------------------------------------------------------------ reading
    @classmethod
    def parse(cls, text: str, source: str = "known keys", path: Path | None = None
              ) -> KnownKeys:
        kk = cls(path)
        for n, raw in enumerate(text.splitlines(), 1):
            kk.lines.append(raw)
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.rsplit(None, 1)
            if len(parts) != 2:
                raise KnownKeysError(f"{source}, line {n}: expected `name fingerprint`")
            name, fp = _clean_name(parts[0]), _fingerprint(parts[1], f"{source}, line {n}")
            kk.pins.setdefault(name, []).append(fp)
        return kk

    @classmethod
    def load(cls, path: Path | str) -> KnownKeys:
        """The pins in `path` (none if the file does not exist)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls(path)
        except UnicodeDecodeError:
            raise KnownKeysError(f"{path}: not a text file of pins") from None
        return cls.parse(text, str(path), path)

    def save(self, path: Path | str | None = None) -> Path:
        """Write the pins atomically (`storage.files.write_record`)."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise KnownKeysError("no file to save the known keys to")
        target.parent.mkdir(parents=True, exist_ok=True)
        body = "\n".join(self.lines)
        if not any(ln.strip() for ln in self.lines):
            body = _HEADER.rstrip("\n")
        write_record(target, (body + "\n").encode("utf-8"))
        self.path = target
        return target

    # ------------------------------------------------------------------ pins
    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and " ".join(name.split()) in self.pins

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for name, fps in self.pins.items():
            for fp in fps:
                yield name, fp

    def __len__(self) -> int:
        return sum(len(v) for v in self.pins.values())

    def check(self, name: str, key: bytes) -> str:
        """"pinned" (a pin of `name` is this key), "unknown" (no pin for `name`), or
        "mismatch" (`name` is pinned to other keys only)."""
        fps = self.pins.get(" ".join(str(name).split()))
        if not fps:
            return UNKNOWN
        hexkey = bytes(key).hex()
        return PINNED if any(hexkey.startswith(fp) for fp in fps) else MISMATCH

    def remember(self, name: str, key: bytes, *, replace: bool = False,
                 also: bool = False) -> str:
        """Pin `key` under `name` (first use, as SSH does): returns what `check` said before.
        A name pinned to another key is refused (KnownKeysError) unless `replace`, which
        drops the name's other pins, or `also`, which adds this key beside them (names are
        not unique: two players may both be "Anna"). Call `save` to write."""
        name = _clean_name(name)
        key = bytes(key)
        if len(key) * 2 != KEY_HEX:
            raise KnownKeysError("a key is 32 bytes")
        before = self.check(name, key)
        if before == PINNED:
            return before
        if before == MISMATCH and also:
            self.lines.append(f"{name} {key.hex()}")
            self.pins.setdefault(name, []).append(key.hex())
            return before
        if before == MISMATCH:
            if not replace:
                raise KnownKeysError(f"{name!r} is pinned to another key "
                                     f"({', '.join(self.pins[name])})")
            self.lines = [ln for ln in self.lines if not _names(ln, name)]
            del self.pins[name]
        if not self.lines:
            self.lines = _HEADER.rstrip("\n").splitlines()
        self.lines.append(f"{name} {key.hex()}")
        self.pins.setdefault(name, []).append(key.hex())
        return before


def _names(line: str, name: str) -> bool:
    s = line.strip()
    if not s or s.startswith("#"):
        return False
    parts = s.rsplit(None, 1)
    return len(parts) == 2 and " ".join(parts[0].split()) == name


def load(path: Path | str) -> KnownKeys:
    return KnownKeys.load(path)


def save(keys: KnownKeys, path: Path | str | None = None) -> Path:
    return keys.save(path)


class KeyJudge:
    """What a key a record names is to this auditor (PROTOCOL § 9, the identity model).

    `pinned` (`verify --keys FILE`) is the auditor's own explicit word: a name it pins must
    sign with a pinned key, else the record is not the one of the people pinned
    (`mismatch`). `known` (`<data-dir>/known_keys`) is only this machine's memory of the
    keys it met and the names they used: a key met before is `known`; a key never met is
    `unknown` (shown as a fingerprint); a name met before with other keys only is a `clash`
    — a warning naming both keys, never a fault, since two people may share a name and
    every table has a `host`. The host's label is `host` in both files."""

    def __init__(self, pinned: KnownKeys | None = None, known: KnownKeys | None = None
                 ) -> None:
        self.pinned = pinned if pinned is not None else KnownKeys()
        self.known = known if known is not None else KnownKeys()

    def check(self, role: str, name: str, key: bytes) -> tuple[str, str]:
        """(status, detail): `role` "host" or "seat N", `name` the record's label."""
        label = HOST if role == HOST else name
        hexkey = bytes(key).hex()
        if label in self.pinned:
            status = self.pinned.check(label, key)
            fps = self.pinned.pins[" ".join(label.split())]
            return status, ", ".join(fps) if status == MISMATCH else ""
        met = sorted({n for n, fp in self.known if hexkey.startswith(fp)})
        if met:
            return KNOWN, ", ".join(met)
        if label != HOST and self.known.check(label, key) == MISMATCH:
            return CLASH, ", ".join(self.known.pins[" ".join(label.split())])
        return UNKNOWN, ""
