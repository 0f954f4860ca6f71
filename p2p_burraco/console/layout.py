"""The full-screen layout, built from the model (ptpython's `layout.py`): every window reads
the model at each redraw, so a network event only has to update the model and invalidate.

Fits 80×24 and up (below 100 columns in a compact form: a narrower right column, short
titles and hints); below 80×24 it says so and waits for a resize. A line too long for its
window ends in "…", never silently cut. At 100×30:

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
from typing import Any

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
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from .catalog import has
from .commands import complete_line, dry_run, help_lines, run_command
from .model import ConsoleModel, format_ms
from .views import (
    CUT,
    Line,
    clip,
    clip_text,
    display_width,
    flow,
    labelled,
    presenter_for,
    text_width,
    wrap_text,
)
from .words import t

RIGHT_WIDTH = 34
"""Columns of the right-hand column (seats, scores, log) from 100 columns up."""
COMPACT_RIGHT = 26
"""The right-hand column below 100 columns (compact seat rows)."""
MIN_COLUMNS, MIN_ROWS = 80, 24
"""The smallest terminal the table is drawn in; below it the screen asks for a resize."""


def right_width(columns: int) -> int:
    """The right column's width for a terminal `columns` wide."""
    return RIGHT_WIDTH if columns >= 100 else COMPACT_RIGHT


def terminal_size() -> tuple[int, int]:
    """(columns, rows) of the running app's output."""
    size = get_app().output.get_size()
    return size.columns, size.rows


def too_small() -> bool:
    columns, rows = terminal_size()
    return columns < MIN_COLUMNS or rows < MIN_ROWS

Render = Callable[[int, int | None], list[Line]]

_DRAW = [0]
"""Which draw of the screen is under way: a LinesControl's lines are computed once per draw
(prompt-toolkit asks each control's height many times while it divides the rows)."""


class OneDraw(FloatContainer):
    """The root: each draw (or the height asked before it) starts a new draw number, so the
    lines cached inside a draw are never seen by the next one."""

    def preferred_height(self, width: int, max_available_height: int) -> Dimension:
        _DRAW[0] += 1
        return super().preferred_height(width, max_available_height)

    def write_to_screen(self, *args: Any, **kwargs: Any) -> None:
        _DRAW[0] += 1
        super().write_to_screen(*args, **kwargs)


class LinesControl(UIControl):
    """A control that draws lines computed for the width it is given (prompt-toolkit's
    FormattedTextControl does not tell its text the width, and we lay cards out by width).
    With `bottom=True` it shows the last lines that fit (a log)."""

    def __init__(self, render: Render, bottom: bool = False,
                 on_scroll: Callable[[int], None] | None = None,
                 more_hint: Callable[[], str] = lambda: "",
                 lang: Callable[[], str] = lambda: "en", sized: bool = False) -> None:
        self.render = render
        self.sized = sized
        """The render looks at the height (else its lines for a width serve every height)."""
        self.bottom = bottom
        self.on_scroll = on_scroll
        self.more_hint = more_hint
        """Said after "↓ N more line(s)" when the lines overflow (how to see them)."""
        self.lang = lang
        self._drawn: tuple[int, int, int | None, list[Line]] | None = None

    def lines(self, width: int, height: int | None) -> list[Line]:
        """The render's lines, computed once per draw and size (the model does not change
        in the middle of a draw)."""
        if not self.sized:
            height = None
        d = self._drawn
        if d is not None and d[0] == _DRAW[0] and d[1] == width and d[2] == height:
            return d[3]
        lines = self.render(width, height)
        self._drawn = (_DRAW[0], width, height, lines)
        return lines

    def mouse_handler(self, mouse_event: MouseEvent) -> object:
        """The mouse wheel scrolls (the log); anything else is not ours."""
        if self.on_scroll is not None:
            if mouse_event.event_type == MouseEventType.SCROLL_UP:
                self.on_scroll(3)
                return None
            if mouse_event.event_type == MouseEventType.SCROLL_DOWN:
                self.on_scroll(-3)
                return None
        return NotImplemented

    def preferred_height(self, width: int, max_available_height: int, wrap_lines: bool,
                         get_line_prefix: object) -> int | None:
        return len(self.lines(width, None))

    def create_content(self, width: int, height: int) -> UIContent:
        lines = self.lines(width, height)
        if self.bottom and len(lines) > height:
            lines = lines[len(lines) - height:]
        elif len(lines) > height > 0:      # never cut rows silently: say how many more
            hidden = len(lines) - height + 1
            lines = lines[:height - 1] + [[("class:hint.key", clip_text(
                t(self.lang(), "panel.more", n=hidden, hint=self.more_hint()), width))]]
        fragments: list[StyleAndTextTuples] = [list(ln) for ln in lines]
        return UIContent(get_line=lambda i: fragments[i], line_count=len(fragments),
                         show_cursor=False)

    def is_focusable(self) -> bool:
        return False


class CommandCompleter(Completer):
    """Completion straight from the command table (commands.complete_line)."""

    def __init__(self, model: ConsoleModel) -> None:
        self.model = model

    def get_completions(self, document: Document, complete_event: CompleteEvent):  # type: ignore[no-untyped-def]  # prompt-toolkit's Completer
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
                model.error = model.t("err.enter_nothing", hint=model.turn_hint())
            return
        line = action
    run_command(model, line)
    model.invalidate()


# ---------------------------------------------------------------------------- renderers
def title_line(model: ConsoleModel, width: int) -> list[Line]:
    """The title bar; when it does not fit, a compact one (no app name, short words)."""
    for compact in (False, True):
        parts = title_parts(model, compact)
        used = text_width(parts)
        if used <= width:
            break
    parts.append(("class:title", " " * max(0, width - used)))
    return [clip(parts, width)]


def title_parts(model: ConsoleModel, compact: bool) -> Line:
    pres = presenter_for(model)
    st = model.state
    parts: Line = [] if compact else [("class:title.app", " p2p-burraco ")]
    lang = model.lang
    parts.append(("class:title", " " + (pres.title(model) or t(lang, "title.waiting_table"))))
    if model.hand_no:
        parts.append(("class:title", " · " + t(lang, "title.hand_short" if compact
                                               else "title.hand", n=model.hand_no)))
    if st is not None and not st.is_over and st.to_move is not None:
        who = st.to_move
        turn = t(lang, "title.your_turn") if who == model.seat else \
            t(lang, "title.to_move", who=model.seat_name(who))
        phase = f"phase.{st.phase}"
        phase = t(lang, phase) if has(phase) else str(st.phase)
        parts.append(("class:title.turn", f" · ▶ {turn}" if compact
                      else f" · ▶ {turn} ({phase})"))
        clock = model.clock
        left = model.clock_left_ms()
        if clock is not None and left is not None and clock.seat == who \
                and clock.kind in ("turn", "match_clock"):
            warn = model.clock_warning() is not None
            parts.append(("class:title.warn" if warn else "class:title.clock",
                          f" ⏱ {format_ms(left)}"))
    elif st is not None and st.is_over:
        parts.append(("class:title", " · " + t(lang, "title.hand_over")))
    if model.standings:
        parts.append(("class:title", " · " + ("" if compact else t(lang, "title.score"))
                      + model.score_brief()))
    if model.status:
        alert = model.link_alert is not None
        parts.append(("class:title", " · "))
        parts.append(("class:title.alert" if alert else "class:title.status",
                      status_text(model)))
    return parts


STATUS_IDS = {"connecting…": "status.connecting", "online": "status.online",
              "reconnecting…": "status.reconnecting", "disconnected": "status.disconnected",
              "match over": "status.match_over"}


def status_text(model: ConsoleModel) -> str:
    """The link's state word of the title bar, in the console's language."""
    status = model.status or ""
    return model.t(STATUS_IDS[status]) if status in STATUS_IDS else model.player_text(status)


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
        out += labelled(model.t("clock.match_label"), items, width, sep="  ")
    return out


def hand_lines(model: ConsoleModel, width: int) -> list[Line]:
    """The person's hand: sorted, coloured, the cursor in reverse video, selection marked."""
    pres = presenter_for(model)
    cards = model.hand_cards()
    label: Line = [("class:label", pres.hand_label(model))]
    if model.selected:
        label.append(("class:dim", model.t("hand.selected", n=len(model.selected))))
    progress = model.deal_progress()
    if progress:
        label = [("class:progress", progress)]
    fresh = [card for pos, card in cards if pos in model.fresh]
    if fresh:   # said in words too, in the console's language: `✦ new card: 7 of hearts`
        said = "hand.fresh_one" if len(fresh) == 1 else "hand.fresh_many"
        for k in (3, 2, 1):   # as many names as fit one line (a big pile taken), then +N more
            names = ", ".join(model.card_name(c) for c in fresh[:k]) + \
                (f" +{len(fresh) - k}" if fresh[k:] else "")
            said_text = "✦ " + model.t(said, names=names)
            if display_width(said_text) <= width:
                break
        label.append(("class:card.fresh", " · " + said_text))
    heads = flow([[(style, part)] for style, text in label
                  for part in text.split(" · ") if part], width, sep=" · ")
    items: list[Line] = []
    for i, (pos, card) in enumerate(cards):
        style, text = pres.card(model, card)
        if pos in model.selected:
            style += " class:card.selected"
        if i == model.cursor:
            style += " class:card.cursor"
        item: Line = [("class:card.index", f"{i + 1}:")]   # the number `discard 5` takes
        if pos in model.fresh:
            item = [("class:card.fresh", f"✦{i + 1}:")]
        items.append(item + [(style, text)])
    body = flow(items, width, sep="  ") if items else [[("class:dim", model.t("hand.no_cards"))]]
    return heads + body


def staging_lines(model: ConsoleModel, width: int) -> list[Line]:
    """Staged steps (not yet on the table), the queue being sent, and the last refusal."""
    if model.game != "burraco":
        return []
    label = model.t("stage.label")
    out: Line = [("class:label", label)]
    if not model.staged and not model.outbox:
        long = model.t("stage.nothing_long")
        out.append(("class:dim", long if display_width(long + label) <= width
                    else model.t("stage.nothing")))
        return [clip(out, width)]
    items: list[Line] = []
    for step in model.outbox:
        items.append([("class:staged.sending", "⇢ " + model.step_text(step.text))])
    for i, step in enumerate(model.staged):
        items.append([("class:staged", f"{i + 1}. " + model.step_text(step.text) + " ✓")])
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
    if height is not None:
        log = scroll_window(model, log, max(1, height - len(head)), width)
    return head + log


def panel_scrolled(model: ConsoleModel, lines: list[Line]) -> list[Line]:
    """An open panel's lines from `model.panel_scroll` on (PgDn/PgUp move through it)."""
    model.panel_scroll = max(0, min(model.panel_scroll, len(lines) - 1))
    if model.panel_scroll:
        hidden = model.panel_scroll + 1          # the marker takes the row of one more line
        return [[("class:hint.key", model.t("panel.above", n=hidden))]] + lines[hidden:]
    return lines


def scroll_window(model: ConsoleModel, log: list[Line], room: int, width: int) -> list[Line]:
    """The `room` log rows shown: the newest, or `model.log_scroll` rows further back
    (PgUp/PgDn, the mouse wheel). A marker row says when older or newer lines are hidden."""
    if len(log) <= room:
        model.log_scroll = 0
        return log
    back = max(0, min(model.log_scroll, len(log) - room + 2))
    model.log_scroll = back                      # never past the oldest line
    end = len(log) - back
    newer: list[Line] = []
    if back:
        newer = [[("class:hint.key", clip_text(model.t("log.newer", n=back), width))]]
    start = max(0, end - (room - len(newer)))
    older: list[Line] = []
    if start > 0:
        start += 1                               # the marker takes the row of one more line
        older = [[("class:hint.key", clip_text(model.t("log.older", n=start), width))]]
    return older + log[start:end] + newer


def main_lines(model: ConsoleModel, width: int) -> list[Line]:
    """The table — or, while open, the help or score panel in its place."""
    if model.panel == "help":
        text = model.help_text or help_lines(model.game, lang=model.lang)
        out = [[("class:label", model.t("panel.help")),
                ("class:dim", model.t("panel.help_keys"))]]
        return out + panel_scrolled(model, [ln for t in text
                                            for ln in wrap_text(t, width, "class:help")])
    if model.panel == "recent":
        out = [[("class:label", model.t("panel.recent")),
                ("class:dim", model.t("panel.recent_keys"))]]
        return out + panel_scrolled(model, [ln for t in model.help_text
                                            for ln in wrap_text(t, width, "class:help")])
    if model.panel == "score":
        out = [[("class:label", model.t("panel.score")),
                ("class:dim", model.t("panel.score_keys"))]]
        return out + panel_scrolled(model, score_lines(model, width))
    if model.state is None:
        return lobby_lines(model, width)
    return presenter_for(model).table_lines(model, width)


def lobby_lines(model: ConsoleModel, width: int) -> list[Line]:
    """The waiting screen: the table, each seat with who sits there (name, person or bot,
    key fingerprint) or "free", and what we wait for."""
    info = model.lobby_table
    word = model.t("lobby.table")
    head = word + " " + " · ".join(v for v in (info.id, info.game, info.variant) if v) \
        if info is not None else word
    out: list[Line] = [clip([("class:label", head)], width)]
    if info is not None:
        out.append(clip([("class:dim", model.t("lobby.hints_on" if model.hints_on
                                               else "lobby.hints_off"))], width))
    for entry in model.lobby:
        seat = entry.seat
        name = entry.name
        if not name:
            row: Line = [("class:dim", model.t("lobby.free", n=seat))]
        else:
            me = seat == model.seat
            who = model.t("lobby.bot" if entry.bot else "lobby.person")
            if not entry.connected:
                who += model.t("lobby.away")
            key = entry.key
            row = [("class:seat.me" if me else "class:seat",
                    model.t("lobby.seat", n=seat, name=name)),
                   ("class:dim", f"  ({model.t('lobby.you') if me else ''}{who})"
                                 + (model.t("lobby.key", key=key) if key else ""))]
        out.append(clip(row, width))
    out.append([])
    out += wrap_text(model.waiting_text(), width, "class:dim")
    return out


def score_lines(model: ConsoleModel, width: int) -> list[Line]:
    """The score sheet: the match's standing, the running totals hand by hand, then every
    hand's breakdown (melds, burraco bonuses by kind, pozzetto, closing, cards left), the
    newest first, each with its audit verdict."""
    out: list[Line] = [[("class:label", model.t("score.match"))]]
    out += wrap_text(model.standings_text(), width)
    if not model.outcomes:
        return out
    out.append([("class:label", model.t("score.running"))])
    for line in model.score_sheet():
        out += wrap_text(line, width, "class:log.score")
    for outcome in reversed(model.outcomes):
        out.append([("class:label", clip_text(model.t(
            "score.hand", n=outcome.number, reason=model.reason_text(outcome.result.reason)),
            width))])
        for text in model.result_lines(outcome):
            out += wrap_text(text, width, "class:log.score")
        out += wrap_text(model.t("score.audit", verdict=model.verdict_text(outcome.verdict)),
                         width,
                         "class:log.fair" if outcome.verdict == "fair" else "class:log.error")
    return out


def hint_line(model: ConsoleModel, width: int) -> list[Line]:
    """What Enter does, then as many of the keys as fit, whole (never half a key)."""
    pres = presenter_for(model)
    action = pres.default_action(model)
    parts: Line = []
    if action:
        parts += [("class:hint.key", model.t("keys.enter")),
                  ("class:hint", f": {pres.action_label(model, action, hint=True)}  │ ")]
    used = text_width(parts)
    keys = [k for k in pres.keys_hint(model).split(" · ") if k]
    shown: list[str] = []
    for key in keys:
        if used + display_width(key) + (3 if shown else 0) > width:
            break
        used += display_width(key) + (3 if shown else 0)
        shown.append(key)
    parts.append(("class:hint", " · ".join(shown)))
    return [clip(parts, width)]


def message_line(model: ConsoleModel, width: int, typed: str = "") -> list[Line]:
    """The line under the hint: the live check of what is being typed (on a copy of the
    hand, at every redraw, so it follows the table), else the last refusal or message."""
    model.typing = dry_run(model, typed) if typed.strip() else None
    if model.typing is not None:
        ok, text = model.typing
        style = "class:message" if ok else "class:error"
    elif model.error:
        style, text = "class:error", model.error
    elif model.message:
        style, text = "class:message", model.message
    else:
        style, text = "class:dim", model.turn_hint()
    lines = wrap_text(text, width, style)        # a long refusal wraps (up to 3 rows)
    if len(lines) > MESSAGE_ROWS:
        lines = lines[:MESSAGE_ROWS]
        lines[-1] = [(style, clip_text(text_of(lines[-1]) + " " + CUT, width))]
    return lines


MESSAGE_ROWS = 3
"""Rows the message line may grow to (a refusal with its rule id wraps, never cut)."""


def text_of(line: Line) -> str:
    return "".join(t for _, t in line)


def too_small_lines(width: int, height: int | None) -> list[Line]:
    """Shown instead of the table below MIN_COLUMNS×MIN_ROWS, until the terminal grows."""
    columns, rows = terminal_size()
    lang = _LANG[0]
    lines = [t(lang, "small.size", c=columns, r=rows, mc=MIN_COLUMNS, mr=MIN_ROWS),
             t(lang, "small.larger"), t(lang, "small.quit")]
    return [ln for t in lines for ln in wrap_text(t, width, "class:error")]


_LANG = ["en"]
"""The language of the too-small screen (set by create_layout from the model)."""


def _window(render: Render, **kw: object) -> Window:
    return Window(LinesControl(render), wrap_lines=False, **kw)  # type: ignore[arg-type]  # Window's kwargs, passed through


def create_layout(model: ConsoleModel, buffer: Buffer | None = None) -> Layout:
    """The whole screen, from the model. The command line keeps the focus."""
    pres_is_burraco = Condition(lambda: model.game == "burraco")
    buffer = buffer or create_command_buffer(model)

    table = Window(LinesControl(lambda w, h: main_lines(model, w),
                                more_hint=lambda: model.t("panel.pgdn"),
                                lang=lambda: model.lang),
                   wrap_lines=False, height=Dimension(min=3, weight=1))
    staging = ConditionalContainer(
        _window(lambda w, h: staging_lines(model, w), dont_extend_height=True),
        filter=pres_is_burraco)
    hand = _window(lambda w, h: hand_lines(model, w), dont_extend_height=True,
                   style="class:hand")
    left = HSplit([table, Window(height=1, char="─", style="class:rule"), staging, hand])
    right = Window(LinesControl(lambda w, h: right_lines(model, w, h),
                                on_scroll=model.scroll_log, sized=True),
                   width=lambda: right_width(terminal_size()[0]), wrap_lines=False)
    side = Condition(lambda: model.side_panel)       # `set panel off` folds it away
    body = VSplit([left, ConditionalContainer(
        VSplit([Window(width=1, char="│", style="class:rule"), right]), filter=side)])
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
        _window(lambda w, h: message_line(model, w, buffer.text),
                height=Dimension(min=1, max=MESSAGE_ROWS), dont_extend_height=True),
        prompt,
    ])
    def small_check() -> bool:
        _LANG[0] = model.lang
        return too_small()

    small = Condition(small_check)
    root = HSplit([
        ConditionalContainer(root, filter=~small),
        ConditionalContainer(_window(too_small_lines), filter=small),
    ])
    container = OneDraw(root, floats=[
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
