"""Colours: red suits red, the joker magenta, wild cards (pinelle standing in) yellow, the
cursor in reverse video; ANSI names so any terminal theme, light or dark, stays readable."""

from __future__ import annotations

from prompt_toolkit.styles import Style

STYLE = Style.from_dict({
    "title": "bg:ansiblue ansiwhite",
    "title.app": "bg:ansiblue ansiwhite bold",
    "title.turn": "bg:ansiblue ansiyellow bold",
    "title.status": "bg:ansiblue ansiwhite italic",
    "label": "bold",
    "dim": "ansibrightblack",
    "rule": "ansibrightblack",
    "side": "ansicyan",
    "seat.me": "ansigreen bold",
    "seat.turn": "underline",
    "card.red": "ansired bold",
    "card.black": "bold",
    "card.joker": "ansimagenta bold",
    "card.wild": "ansiyellow bold",
    "card.pinella": "underline",
    "card.selected": "bg:ansiblue ansiwhite",
    "card.cursor": "reverse",
    "meld.burraco": "ansigreen bold",
    "meld.number": "ansicyan",
    "staged": "ansigreen",
    "staged.sending": "ansiyellow",
    "progress": "ansiyellow bold",
    "hint": "ansibrightblack",
    "hint.key": "ansicyan bold",
    "error": "ansired bold",
    "message": "ansigreen",
    "prompt": "ansicyan bold",
    "log.hand": "bold",
    "log.mine": "ansigreen",
    "log.other": "",
    "log.error": "ansired",
    "log.fair": "ansigreen bold",
    "log.score": "ansicyan",
    "log.status": "ansibrightblack",
    "help": "",
})
