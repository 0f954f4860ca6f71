"""The replay viewer (REPLAY-1): a recorded hand with every card face up, stepped move by
move forward and back, a jump to any move or hand, and the score sheet at the end.

`Viewer` is where the viewer stands (which hand, how many moves in) and what it shows, as
lines of text; `create_replay_app` puts it on the screen with its keys. The hands come
audited and stepped by `table.replay` — nothing here knows a rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output

from .. import cardnames
from ..table.replay import HandReplay, places, score_lines

HINT = "←/→ move · Home/End deal/scores · PgUp/PgDn hand · N⏎ move N · Nh hand N · q"
"""The keys, in one line of 80 columns."""
RECENT = 6
_SIDE = re.compile(r"\bside (\d+)\b")


def player_words(r: HandReplay, text: str, state: Any = None) -> str:
    """A line of the record as the console says it: seats by name (`seat 2 Bob` → `Bob`),
    sides by letter (`side 0` → `side A`), cards by their labels (`Qh` → `Q♥`)."""
    for seat in sorted(range(len(r.names)), reverse=True):   # seat 10 before seat 1
        name = r.names[seat] or f"seat {seat}"
        text = text.replace(r.who(seat), name)
    text = re.sub(r"\bseat (\d+)\b", lambda m: (r.names[int(m.group(1))] if int(m.group(1))
                  < len(r.names) and r.names[int(m.group(1))] else m.group(0)), text)
    text = _SIDE.sub(lambda m: "side " + "ABCDEF"[int(m.group(1)) % 6], text)
    deck = getattr(state if state is not None else r.start, "deck", None)
    parse = getattr(deck, "parse", None)
    if parse is not None:
        style = getattr(getattr(r.start, "rules", None), "display", None)
        text = cardnames.name_cards(text, parse, r.game, style)
    return text


class Viewer:
    """The viewer's position over a match's hands: `hand` (index) and `move` (0: as dealt;
    the hand's last move shows the score sheet too)."""

    def __init__(self, hands: Sequence[HandReplay], hand: int = 0) -> None:
        if not hands:
            raise ValueError("nothing to replay")
        self.hands = list(hands)
        self.hand = max(0, min(hand, len(self.hands) - 1))
        self.move = 0
        self.typed = ""
        self.message = ""

    @property
    def current(self) -> HandReplay:
        return self.hands[self.hand]

    @property
    def last(self) -> int:
        return len(self.current.steps)

    def step(self, delta: int) -> None:
        self.move = max(0, min(self.last, self.move + delta))
        self.message = ""

    def go_move(self, n: int) -> None:
        if not 0 <= n <= self.last:
            self.message = f"hand {self.hand + 1} has moves 0..{self.last}, not {n}"
            return
        self.move, self.message = n, ""

    def go_hand(self, k: int) -> None:
        """Hand k (from 1), at its deal."""
        if not 1 <= k <= len(self.hands):
            self.message = f"the record has hands 1..{len(self.hands)}, not {k}"
            return
        self.hand, self.move, self.message = k - 1, 0, ""

    def lines(self) -> list[tuple[str, str]]:
        """What the screen shows: (style, line) pairs — in the console's words (names,
        side letters, card labels). At the hand's last move the score sheet comes first,
        under the header, so it is on screen at 80×24 whatever the table holds."""
        r = self.current
        state = r.state(self.move)

        def say(text: str) -> str:
            return player_words(r, text, state)

        out: list[tuple[str, str]] = [
            ("bold", (f"hand {r.hand_no + 1} ({self.hand + 1} of {len(self.hands)}) · "
                      f"{r.game} {r.variant} · verify: {r.verdict} · match {r.match_id[:8]}")),
        ]
        if self.move == 0:
            out.append(("", say(f"the deal (dealer {r.who(r.dealer)}), every card face up — "
                                f"{self.last} moves follow")))
        else:
            s = r.steps[self.move - 1]
            out.append(("", say(f"move {self.move} of {self.last}: {r.who(s.seat)}: "
                                f"{s.text}")))
        if self.move == self.last:
            out.append(("bold", "score sheet"))
            out.extend(("", say(f"  {ln}")) for ln in score_lines(r))
        out.append(("", ""))
        shown = [(say(w), say(cards)) for w, cards in places(state, r.names)]
        width = max((len(w) for w, _ in shown), default=0)
        out.extend(("", f"  {w:<{width}}  {cards}") for w, cards in shown)
        out.append(("", ""))
        lo = max(0, self.move - RECENT)
        for n in range(lo + 1, self.move + 1):
            s = r.steps[n - 1]
            out.append(("reverse" if n == self.move else "",
                        say(f"  {n:>3}. {r.who(s.seat)}: {s.text}")))
        return out

    def footer(self) -> list[tuple[str, str]]:
        """The bottom lines, always on screen: a refusal of the last key, the keys."""
        return [("fg:ansired", self.message),
                ("fg:ansigray", (f"[{self.typed}] " if self.typed else "") + HINT)]


def _fragments(lines: list[tuple[str, str]]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for style, text in lines:
        out.append((style, text))
        out.append(("", "\n"))
    return out[:-1]


def replay_keys(viewer: Viewer) -> KeyBindings:
    kb = KeyBindings()

    @kb.add("right")
    @kb.add(" ")
    def _next(event: KeyPressEvent) -> None:
        viewer.step(1)

    @kb.add("left")
    def _prev(event: KeyPressEvent) -> None:
        viewer.step(-1)

    @kb.add("home")
    def _first(event: KeyPressEvent) -> None:
        viewer.go_move(0)

    @kb.add("end")
    def _end(event: KeyPressEvent) -> None:
        viewer.go_move(viewer.last)

    @kb.add("pagedown")
    def _next_hand(event: KeyPressEvent) -> None:
        viewer.go_hand(min(len(viewer.hands), viewer.hand + 2))

    @kb.add("pageup")
    def _prev_hand(event: KeyPressEvent) -> None:
        viewer.go_hand(max(1, viewer.hand))

    for digit in "0123456789":
        @kb.add(digit)
        def _digit(event: KeyPressEvent) -> None:
            viewer.typed = (viewer.typed + event.data)[-6:]

    @kb.add("backspace")
    def _erase(event: KeyPressEvent) -> None:
        viewer.typed = viewer.typed[:-1]

    @kb.add("enter")
    def _go_move(event: KeyPressEvent) -> None:
        if viewer.typed:
            viewer.go_move(int(viewer.typed))
        viewer.typed = ""

    @kb.add("h")
    def _go_hand(event: KeyPressEvent) -> None:
        if viewer.typed:
            viewer.go_hand(int(viewer.typed))
        viewer.typed = ""

    @kb.add("q")
    @kb.add("escape")
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit(result=0)

    return kb


def create_replay_app(viewer: Viewer, input: Input | None = None,
                      output: Output | None = None) -> Application[int]:
    """The full-screen viewer (pipe input and a dummy output in the tests)."""
    body = Window(FormattedTextControl(lambda: _fragments(viewer.lines())), wrap_lines=True)
    foot = Window(FormattedTextControl(lambda: _fragments(viewer.footer())), height=2,
                  wrap_lines=True)
    return Application(layout=Layout(HSplit([body, foot])), key_bindings=replay_keys(viewer),
                       full_screen=True, input=input, output=output)


def run_replay(hands: Sequence[HandReplay], hand: int = 0, *, input: Input | None = None,
               output: Output | None = None) -> int:
    """Open the viewer on hand index `hand` until the person quits."""
    viewer = Viewer(hands, hand)
    result: Any = create_replay_app(viewer, input=input, output=output).run()
    return int(result or 0)
