"""The console's one message catalog: every word the console shows, keyed by a message id,
in each language (`locale/<lang>.po`, gettext's own file format, which translators and
their tools — Poedit, Weblate, msgfmt — read and write).

Why .po read directly rather than compiled .mo: the files are small, read once, and a
wheel then needs no build step; `msgfmt --check locale/it.po` still validates them.
The `msgid` is the message id (`title.your_turn`), never the English text: English is a
language like the others (`en.po`), so a changed English sentence does not orphan its
translations. A message id used but missing from a language is an internal bug, caught
by tests/test_console_catalog.py; at run time it falls back to English, then to the id.

Engine refusals and the table's log lines arrive in English (the rules engine is pure
and speaks one language, its words signed into the records). `engine_text` turns them
into the console's language with the catalog's `engine.*` entries, whose English text is
the engine's template with `{fields}`; a line no entry matches is shown as it came.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

LANGS: tuple[str, ...] = ("it", "en")
"""The console's languages (--lang, `set lang`), in the order offered."""

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquote(text: str) -> str:
    body = text.strip()
    if len(body) < 2 or body[0] != '"' or body[-1] != '"':
        raise ValueError(f"not a quoted .po string: {text!r}")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body[1:-1])


def parse_po(text: str) -> dict[str, str]:
    """msgid → msgstr of a .po file (comments, msgctxt and the header skipped; plural forms
    are not used by the console)."""
    out: dict[str, str] = {}
    key: str | None = None
    field: str | None = None
    msgid, msgstr = "", ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("msgid "):
            if key is not None and msgid:
                out[msgid] = msgstr
            msgid, msgstr, field, key = _unquote(line[6:]), "", "msgid", "x"
        elif line.startswith("msgstr "):
            msgstr, field = _unquote(line[7:]), "msgstr"
        elif line.startswith('"'):
            if field == "msgid":
                msgid += _unquote(line)
            elif field == "msgstr":
                msgstr += _unquote(line)
            else:
                raise ValueError(f"line {n}: a string continues nothing")
        elif line.startswith("msgctxt "):
            field = "msgctxt"
        else:
            raise ValueError(f"line {n}: not .po syntax: {raw!r}")
    if key is not None and msgid:
        out[msgid] = msgstr
    return out


@cache
def messages(lang: str) -> dict[str, str]:
    """The catalog of one language (read once from the package's locale/ directory)."""
    path = resources.files(__package__).joinpath("locale", f"{lang}.po")
    return parse_po(path.read_text(encoding="utf-8"))


def _lang(lang: str | None) -> str:
    return lang if lang in LANGS else "en"


def t(lang: str | None, msg_id: str, **fields: object) -> str:
    """Message `msg_id` in `lang`, its `{fields}` filled in (English when the language
    lacks it; the id itself if no language has it — a test keeps that from shipping)."""
    text = messages(_lang(lang)).get(msg_id)
    if text is None:
        text = messages("en").get(msg_id, msg_id)
    return text.format(**fields) if fields else text


def has(msg_id: str) -> bool:
    """Is `msg_id` in the catalog (English)?"""
    return msg_id in messages("en")


# ---------------------------------------------------------------------------- engine lines
_FIELD = re.compile(r"\{(\w+)\}")


@cache
def _engine_patterns() -> list[tuple[re.Pattern[str], str]]:
    """(regex over the engine's English, message id) for every `engine.*` entry; longer
    templates first, so the most specific one wins."""
    out: list[tuple[re.Pattern[str], str]] = []
    entries = sorted(((k, v) for k, v in messages("en").items() if k.startswith("engine.")),
                     key=lambda kv: -len(_FIELD.sub("", kv[1])))
    for msg_id, template in entries:
        parts = _FIELD.split(template)
        rx = ""
        for i, part in enumerate(parts):
            rx += re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)"
        out.append((re.compile(rx + r"\Z", re.S), msg_id))
    return out


_NESTED = ("why", "what")
"""Fields that are themselves engine sentences (a meld's reason after its cards)."""

_STEPS = ("action",)
"""Fields that are a step in console words (`draw`, `meld 7h 8h 9h`): verbs translated."""


def _verbs(lang: str | None, text: str) -> str:
    from .words import verb_words  # words builds on this module

    return verb_words(lang, text, hint=True)


def engine_text(lang: str | None, text: str) -> str:
    """An English line from the engine or the table in `lang` (see the module's doc); the
    line unchanged when no entry matches. In English only the engine's Italian-only words
    (Briscola's `assi`, `abbandono: …`) change, through the catalog's `show.*` entries."""
    if not text:
        return text
    english = _lang(lang) == "en"
    for rx, msg_id in _engine_patterns():
        m = rx.match(text)
        if m is None:
            continue
        if english:
            # the engine's own English stands, but for the words it writes in Italian
            show = "show." + msg_id.removeprefix("engine.")
            return t("en", show) if show in messages("en") else text
        fields = {k: (engine_text(lang, v) if k in _NESTED else
                      word(lang, v) if k.startswith("w_") else
                      _verbs(lang, v) if k in _STEPS else v)
                  for k, v in m.groupdict().items()}
        return t(lang, msg_id, **fields)
    return text


def word(lang: str | None, english: str) -> str:
    """A single word or short phrase of the engine (`closed`, `turn`, `fair`) in `lang`,
    from the catalog's `word.*` entries; unchanged when there is none."""
    key = "word." + re.sub(r"\W+", "_", english.strip().lower()).strip("_")
    if key in messages("en"):
        return t(lang, key)
    return english
