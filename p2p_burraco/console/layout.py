"""The full-screen layout, built from the model (ptpython's `layout.py`): every window reads
the model at each redraw, so a network event only has to update the model and invalidate.

Fits 100×30 and up:

    title: game · hand · whose turn and its clock · scores · status
    banner (only when needed): host at fault · abandon? · host unreachable · ⚠ clock
    ┌ table (melds / pile / trick …) ───────────────┬ seats ─────────────┐
    │                                                │ scores             │
    │ staging area (Burraco)                         │ log | help | score │
    │ your hand (sorted, coloured, cursor, selection)│                    │
    └────────────────────────────────────────────────┴────────────────────┘
    hint: what Enter does · keys
    message / refusal with the rule id
    > command line (Tab completes, ↑/↓ history)
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application.current import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl, UIContent, UIControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu

from .commands import complete_line, dry_run, help_lines, run_command
from .model import ConsoleModel, format_ms
from .views import Line, clip, flow, labelled, presenter_for, wrap_text

RIGHT_WIDTH = 34
"""Columns of the right-hand column (seats, scores, log) at any screen width."""

Render = Callable[[int, int | None], list[Line]]


class LinesControl(UIControl):
    """A control that draws lines computed for the width it is given (prompt-toolkit's
    FormattedTextControl does not tell its text the width, and we lay cards out by width).
    With `bottom=True` it shows the last lines that fit (a log)."""

    def __init__(self, render: Render, bottom: bool = False) -> None:
        self.render = render
        self.bottom = bottom

    def preferred_height(self, width: int, max_available_height: int, wrap_lines: bool,
                         get_line_prefix: object) -> int | None:
        return len(self.render(width, None))

    def create_content(self, width: int, height: int) -> UIContent:
        lines = self.render(width, height)
        if self.bottom and len(lines) > height:
            lines = lines[len(lines) - height:]
        fragments: list[StyleAndTextTuples] = [list(ln) for ln in lines]
        return UIContent(get_line=lambda i: fragments[i], line_count=len(fragments),
                         show_cursor=False)

    def is_focusable(self) -> bool:
        return False


class CommandCompleter(Completer):
    """Completion straight from the command table (commands.complete_line)."""

    def __init__(self, model: ConsoleModel) -> None:
        self.model = model

    def get_completions(self, document: Document, complete_event: CompleteEvent):  # type: ignore[no-untyped-def]
        text = document.text_before_cursor
        word = "" if not text or text[-1].isspace() else text.split()[-1]
        for cand, meta in complete_line(self.model, text):
            yield Completion(cand, start_position=-len(word), display_meta=meta)


def create_command_buffer(model: ConsoleModel) -> Buffer:
    """The command line: Enter runs the line, or the hinted default action when empty."""

    def accept(buf: Buffer) -> bool:
        run_line(model, buf.text)
        return False

    return Buffer(name="command", multiline=False, completer=CommandCompleter(model),
                  history=InMemoryHistory(), accept_handler=accept,
                  complete_while_typing=False)


def run_line(model: ConsoleModel, text: str) -> None:
    """Run a typed line (empty: the default action) and redraw. While a question waits
    (abandon?), the line answers it, an empty one too."""
    line = text.strip()
    if model.confirming is not None:
        run_command(model, line)
        model.invalidate()
        return
    if not line:
        action = presenter_for(model).default_action(model)
        if action is None:
            if model.panel is not None:
                model.panel = None
            else:
                model.error = "nothing to do on Enter now: " + model.turn_hint()
            return
        line = action
    run_command(model, line)
    model.invalidate()


# ---------------------------------------------------------------------------- renderers
def title_line(model: ConsoleModel, width: int) -> list[Line]:
    pres = presenter_for(model)
    st = model.state
    parts: Line = [("class:title.app", " p2p-burraco "), ("class:title", " " + (pres.title(model) or
                                                                                 "waiting for a table"))]
    if model.hand_no:
        parts.append(("class:title", f" · hand {model.hand_no}"))
    if st is not None and not st.is_over and st.to_move is not None:
        who = st.to_move
        turn = "your turn" if who == model.seat else f"{model.seat_name(who)} to move"
        parts.append(("class:title.turn", f" · ▶ {turn} ({st.phase})"))
        clock = model.clock
        left = model.clock_left_ms()
        if clock is not None and left is not None and clock.seat == who \
                and clock.kind in ("turn", "match_clock"):
            warn = model.clock_warning() is not None
            parts.append(("class:title.warn" if warn else "class:title.clock",
                          f" ⏱ {format_ms(left)}"))
    elif st is not None and st.is_over:
        parts.append(("class:title", " · hand over"))
    if model.standings:
        parts.append(("class:title", " · score " + model.score_brief()))
    if model.status:
        alert = model.link_alert is not None
        parts.append(("class:title", " · "))
        parts.append(("class:title.alert" if alert else "class:title.status", model.status))
    used = sum(len(t) for _, t in parts)
    parts.append(("class:title", " " * max(0, width - used)))
    return [clip(parts, width)]


def banner_lines(model: ConsoleModel, width: int) -> list[Line]:
    """The line under the title that must not be missed (model.banner), padded to the
    width so its colour spans the screen; nothing when all is well."""
    banner = model.banner()
    if banner is None:
        return []
    style, text = banner
    return [clip([(f"class:{style}", f" {text} ".ljust(width))], width)]


def clock_lines(model: ConsoleModel, width: int) -> list[Line]:
    """The running clock (TABLE-1) and each seat's match clock (TABLE-2), for the right
    column; nothing while no clock runs and match clocks are off."""
    out: list[Line] = []
    text = model.clock_text()
    if text is not None:
        clock = model.clock
        assert clock is not None
        if model.clock_warning() is not None:
            style = "class:clock.warn"
        elif clock.seat == model.seat and clock.kind in ("turn", "match_clock"):
            style = "class:clock.mine"
        elif clock.kind in ("step", "grace"):
            style = "class:clock.step"
        else:
            style = "class:clock"
        out.append(clip([("class:label", "⏱ "), (style, text)], width))
    matches = model.match_clock_texts()
    if matches:
        items: list[Line] = []
        for seat, left in matches:
            style = "class:seat.me" if seat == model.seat else "class:clock"
            items.append([(style, f"{model.seat_name(seat)[:10]} {left}")])
        out += labelled("match ", items, width, sep="  ")
    return out


def hand_lines(model: ConsoleModel, width: int) -> list[Line]:
    """The person's hand: sorted, coloured, the cursor in reverse video, selection marked."""
    pres = presenter_for(model)
    cards = model.hand_cards()
    label: Line = [("class:label", pres.hand_label(model))]
    if model.selected:
        label.append(("class:dim", f" · {len(model.selected)} selected"))
    progress = model.deal_progress()
    if progress:
        label = [("class:progress", progress)]
    items: list[Line] = []
    for i, (pos, card) in enumerate(cards):
        style, text = pres.card(model, card)
        if pres.numbered_hand():
            text = f"{i + 1}) {text}"
        if pos in model.selected:
            style += " class:card.selected"
        if i == model.cursor:
            style += " class:card.cursor"
        items.append([(style, text)])
    sep = "   " if pres.numbered_hand() else " "
    body = flow(items, width, sep=sep) if items else [[("class:dim", "(no cards)")]]
    return [label] + body


def staging_lines(model: ConsoleModel, width: int) -> list[Line]:
    """Staged steps (not yet on the table), the queue being sent, and the last refusal."""
    if model.game != "burraco":
        return []
    out: Line = [("class:label", "staged: ")]
    if not model.staged and not model.outbox:
        out.append(("class:dim", "nothing — meld/attach go here first; send lays them down"))
        return [clip(out, width)]
    items: list[Line] = []
    for step in model.outbox:
        items.append([("class:staged.sending", "⇢ " + model.display_text(step.text))])
    for i, step in enumerate(model.staged):
        items.append([("class:staged", f"{i + 1}. " + model.display_text(step.text) + " ✓")])
    lines = flow(items, max(10, width - 8), sep="  ")
    first = out + lines[0]
    return [clip(first, width)] + [clip([("", " " * 8)] + ln, width) for ln in lines[1:]]


def right_lines(model: ConsoleModel, width: int, height: int | None) -> list[Line]:
    """Seats, then the log of what everyone did (its newest lines)."""
    pres = presenter_for(model)
    head = pres.seat_lines(model, width)
    head += clock_lines(model, width)
    head.append([("class:rule", "─" * width)])
    log: list[Line] = []
    for entry in model.log:
        text = entry.text
        if entry.action is not None:
            text = f"{model.seat_name(entry.seat)}: {pres.action_label(model, entry.action)}"
        log += wrap_text(text, width, f"class:{entry.style}" if entry.style else "")
    if height is not None and len(head) + len(log) > height:
        log = log[max(0, len(log) - (height - len(head))):]
    return head + log


def main_lines(model: ConsoleModel, width: int) -> list[Line]:
    """The table — or, while open, the help or score panel in its place."""
    if model.panel == "help":
        text = model.help_text or help_lines(model.game)
        out = [[("class:label", "help"), ("class:dim", "  (Esc or F1 closes)")]]
        return out + [ln for t in text for ln in wrap_text(t, width, "class:help")]
    if model.panel == "recent":
        out = [[("class:label", "recent matches"), ("class:dim", "  (Esc closes)")]]
        return out + [ln for t in model.help_text for ln in wrap_text(t, width, "class:help")]
    if model.panel == "score":
        out = [[("class:label", "score"), ("class:dim", "  (Esc or F10 closes)")]]
        return out + score_lines(model, width)
    return presenter_for(model).table_lines(model, width)


def score_lines(model: ConsoleModel, width: int) -> list[Line]:
    out: list[Line] = [[("class:label", "match")]]
    out += wrap_text(model.standings_text(), width)
    if model.outcomes:
        last = model.outcomes[-1]
        out.append([("class:label", f"hand {last.number}: {last.result.reason}")])
        for t in model.result_lines(last):
            out += wrap_text(t, width, "class:log.score")
        out += wrap_text(f"audit: {last.verdict}", width,
                         "class:log.fair" if last.verdict == "fair" else "class:log.error")
    return out


def hint_line(model: ConsoleModel, width: int) -> list[Line]:
    pres = presenter_for(model)
    action = pres.default_action(model)
    parts: Line = []
    if action:
        parts += [("class:hint.key", "Enter"), ("class:hint", f": {pres.action_label(model, action)}  │ ")]
    parts.append(("class:hint", pres.keys_hint(model)))
    return [clip(parts, width)]


def message_line(model: ConsoleModel, width: int, typed: str = "") -> list[Line]:
    """The line under the hint: the live check of what is being typed (on a copy of the
    hand, at every redraw, so it follows the table), else the last refusal or message."""
    model.typing = dry_run(model, typed) if typed.strip() else None
    if model.typing is not None:
        ok, text = model.typing
        return [clip([("class:message" if ok else "class:error", text)], width)]
    if model.error:
        return [clip([("class:error", model.error)], width)]
    if model.message:
        return [clip([("class:message", model.message)], width)]
    return [[("class:dim", model.turn_hint())]]


def _window(render: Render, **kw: object) -> Window:
    return Window(LinesControl(render), wrap_lines=False, **kw)  # type: ignore[arg-type]


def create_layout(model: ConsoleModel, buffer: Buffer | None = None) -> Layout:
    """The whole screen, from the model. The command line keeps the focus."""
    pres_is_burraco = Condition(lambda: model.game == "burraco")
    buffer = buffer or create_command_buffer(model)

    table = _window(lambda w, h: main_lines(model, w), height=Dimension(min=3, weight=1))
    staging = ConditionalContainer(
        _window(lambda w, h: staging_lines(model, w), dont_extend_height=True),
        filter=pres_is_burraco)
    hand = _window(lambda w, h: hand_lines(model, w), dont_extend_height=True,
                   style="class:hand")
    left = HSplit([table, Window(height=1, char="─", style="class:rule"), staging, hand])
    right = Window(LinesControl(lambda w, h: right_lines(model, w, h)),
                   width=RIGHT_WIDTH, wrap_lines=False)
    body = VSplit([left, Window(width=1, char="│", style="class:rule"), right])
    prompt = VSplit([
        Window(FormattedTextControl([("class:prompt", "> ")]), width=2, dont_extend_width=True),
        Window(BufferControl(buffer=buffer), height=1),
    ])
    banner = ConditionalContainer(
        _window(lambda w, h: banner_lines(model, w), height=1),
        filter=Condition(lambda: model.banner() is not None))
    root = HSplit([
        _window(lambda w, h: title_line(model, w), height=1),
        banner,
        body,
        _window(lambda w, h: hint_line(model, w), height=1),
        _window(lambda w, h: message_line(model, w, buffer.text), height=1),
        prompt,
    ])
    container = FloatContainer(root, floats=[
        Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8, scroll_offset=1)),
    ])
    return Layout(container, focused_element=buffer)


def command_buffer(layout: Layout) -> Buffer:
    """The command line's buffer (for tests and key bindings)."""
    for buf in layout.find_all_windows():
        ctl = buf.content
        if isinstance(ctl, BufferControl):
            return ctl.buffer
    raise LookupError("no command line in this layout")


def buffer_empty() -> Condition:
    """True when nothing is typed: arrows and Space then act on the hand."""
    return Condition(lambda: not get_app().current_buffer.text)
