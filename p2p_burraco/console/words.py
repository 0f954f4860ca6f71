"""The console's words in its language, from the one catalog (catalog.py, locale/*.po).

`t(lang, id, **fields)` is the catalog itself; `kinds` and `verb_words` say the engine's
action kinds and the console's typed verbs in the language, for the turn hint, the hint
line and the log.
"""

from __future__ import annotations

from .catalog import engine_text, t

__all__ = ["engine_text", "kinds", "t", "verb_words"]


def kinds(lang: str | None, names: tuple[str, ...] | list[str]) -> str:
    """Legal action kinds for the turn hint (`draw, take the pile or meld` / `pescare,
    raccogliere gli scarti o calare`)."""
    words = [t(lang, f"kind.{k}") if k in _KINDS else k for k in names]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + t(lang, "turn.or") + words[-1]


_KINDS = frozenset({"draw", "take", "take_top", "meld", "attach", "discard", "play",
                    "redraw"})
_VERBS = frozenset({"draw", "take", "meld", "attach", "discard", "play", "redraw", "send",
                    "top", "high", "low"})


def verb_words(lang: str | None, text: str, hint: bool = False) -> str:
    """Console words (`take top`, `meld 7h 8h 9h`, `attach 3 JK high`) with the verbs and
    their keywords in the language; cards and numbers unchanged. `hint`: said to the
    person (`raccogli`), else told of a seat in the log (`raccoglie`)."""
    out = []
    for i, w in enumerate(text.split(" ")):
        if w in _VERBS and (i == 0 or w in ("top", "high", "low", "meld")):
            key = "verb.take_hint" if hint and w == "take" else f"verb.{w}"
            out.append(t(lang, key))
        else:
            out.append(w)
    return " ".join(out)
