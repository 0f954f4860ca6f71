"""The text of one rule, by its id, for `why`/`perché` after a refusal: the table shows a
refusal in a player's words, and `why` names the rule behind it with its id and text.

The texts come from what the program already ships, so `why` works from an installed
wheel: the rule set's own description (`p2p-burraco rules`, one line per rule with its
id) and, for the table's own rules (TABLE-n), the summary in table/rules.py.
"""

from __future__ import annotations

import re
from typing import Any

_BURRACO_LINE = re.compile(r"^- (?P<text>.*?)\s+\[(?P<ids>[^\]]+)\]\s*$")
_BRACKETS = re.compile(r"\s*\[(?P<ids>[A-Z][A-Z0-9]*-[^\]]*)\]")
_TABLE_LINE = re.compile(r"^- (?P<id>TABLE-\d+)\s+(?P<text>.*)$")


def _ids(text: str) -> set[str]:
    """`FIBUR-11, FIBUR-12` or `BRISCOLA-11..13` → the ids it names."""
    out: set[str] = set()
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"([A-Z][A-Z0-9]*)-(\d+)\.\.(\d+)", part)
        if m:
            out |= {f"{m.group(1)}-{n}" for n in range(int(m.group(2)), int(m.group(3)) + 1)}
        else:
            out.add(part)
    return out


def table_rule(rule_id: str) -> str | None:
    """A TABLE-n rule's summary (table/rules.py), continuation lines joined."""
    from ..table import rules as table_rules

    doc = table_rules.__doc__ or ""
    found: list[str] = []
    for line in doc.splitlines():
        m = _TABLE_LINE.match(line)
        if m:
            if found:
                break
            if m.group("id") == rule_id:
                found.append(m.group("text").strip())
        elif found and line.startswith("  "):
            found.append(line.strip())
        elif found:
            break
    return " ".join(found) or None


def rule_text(rule_id: str, game: str | None, rules: Any) -> str | None:
    """The rule `rule_id` in plain words, from the rules in play; None when not found."""
    if rule_id.startswith("TABLE-"):
        return table_rule(rule_id)
    if game is None or rules is None:
        return None
    from ..games import get_game

    try:
        text = get_game(game).describe(rules)
    except Exception:  # noqa: BLE001 — a rule set that cannot describe itself: no text
        return None
    texts: list[str] = []
    if game == "burraco":
        for line in text.splitlines():
            m = _BURRACO_LINE.match(line)
            if m and rule_id in _ids(m.group("ids")):
                texts.append(m.group("text"))
    else:
        entry = ""
        entries: list[str] = []
        for line in text.splitlines()[1:]:
            if line.startswith("  ") and not line.startswith("   "):
                if entry:
                    entries.append(entry)
                entry = line.strip()
            else:
                entry += " " + line.strip()
        entries.append(entry)
        for entry in entries:
            for m in _BRACKETS.finditer(entry):
                if rule_id in _ids(m.group("ids")):
                    texts.append(re.sub(r"\s+", " ", _BRACKETS.sub("", entry)))
    return " ".join(texts) or None
