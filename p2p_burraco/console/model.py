"""The console's root state object (pyvim's `Editor`, ptpython's `PythonInput`): everything the
screen shows and every decision the person makes lives here, so the app is tested on it.

`ConsoleModel` is the seat's `SeatController`: the table (network peer or an in-process
harness) tells it what happened and hands it a `submit` callback on its turns. It never
re-implements a rule. Cards laid on the table never come back (FIBUR), so melds and
attachments are first *staged*: each staged step is applied to a copy of the seat's replica
(`state.copy()`), and the engine's `RuleViolation` — with its rule id — is shown at once.
`send` (or a discard, which ends the turn) submits the staged steps one by one, one per
`your_turn`, since the table takes one action at a time.

Nothing here imports prompt-toolkit: the layout and key bindings read this object and call its
methods; `invalidate` is the only link back to the screen.
"""

from __future__ import annotations

import asyncio
import collections
import math
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, assert_never

from .. import cardnames
from ..controller import Submit
from ..games.base import Action, ActionSyntaxError, HandResult, HandState, Pos, RuleViolation, Seat
from ..games.cards import Card, NotationError, Suit
from ..table.events import (
    ActionPlayed,
    ChatSaid,
    ClockNotice,
    DealProgress,
    ErrorNotice,
    HandVoided,
    LinkStatus,
    LobbySeat,
    SeatEvent,
    SeatsChanged,
    StandingsChanged,
    TableInfo,
    TableLine,
    TablesListed,
)
from .catalog import engine_text
from .words import kinds as kind_words
from .words import t, verb_words

LOG_LINES = 400
"""How many log lines the console keeps (older lines scroll away)."""

# Suits alternate colours in the sorted hand, so neighbouring suits are easy to tell apart.
SUIT_ORDER: dict[Suit | None, int] = {
    Suit.HEARTS: 0, Suit.CLUBS: 1, Suit.DIAMONDS: 2, Suit.SPADES: 3,
    Suit.DENARI: 0, Suit.BASTONI: 1, Suit.COPPE: 2, Suit.SPADE: 3,
    None: 9,  # the joker sorts last
}


ABANDON_QUESTION = "q.abandon"
"""Asked by `abandon` (a catalog id); fits a 100-column banner."""
ABANDON_CONFIRM = frozenset({"abandon", "abbandona", "yes", "y", "si", "sì"})
QUIT_QUESTION = "q.quit"
"""Asked by quit (Ctrl-Q) while a match is on at a networked table: a confirmed quit signs
`abandon`, so the others are told at once and nobody is blamed for a missing reveal."""
QUIT_QUESTION_OFFLINE = "q.quit_offline"
QUIT_CONFIRM = frozenset({"quit", "esci", "exit", "yes", "y", "si", "sì"})
ABANDON_OFFLINE = "q.abandon_offline"
_RULE_ID = re.compile(r"\s*\[[A-Z][A-Z0-9]*-\d+[a-z]?\]")
"""A rule id in brackets (`[FIBUR-9]`): kept for `why`, never on the table."""
_MESSAGE_NO = re.compile(r"\s*\(message \d+\)")
"""A message number in the host's words (`(message 46)`): for `verify`, not the table."""


def loop_time() -> float:
    """The event loop's clock (monotonic), or the monotonic clock outside a loop."""
    try:
        return asyncio.get_running_loop().time()
    except RuntimeError:
        return time.monotonic()


def format_ms(ms: float) -> str:
    """A time left as m:ss (h:mm:ss past an hour), rounded up: 0:00 only when none is left."""
    secs = max(0, math.ceil(ms / 1000))
    hours, rest = divmod(secs, 3600)
    mins, secs = divmod(rest, 60)
    return f"{hours}:{mins:02d}:{secs:02d}" if hours else f"{mins}:{secs:02d}"


@dataclass
class ClockState:
    """The host's latest `clock` notice (display only, never evidence) and when it arrived
    on the event loop's clock: the console counts down from there."""

    seat: Seat | None
    kind: str
    ms: int | None
    match_ms: list[int]
    warn_ms: int
    at: float

    def elapsed_ms(self, now: float) -> float:
        return max(0.0, (now - self.at) * 1000)


class ConsoleError(ValueError):
    """Input the console itself cannot act on (unknown command, not your turn, no card…)."""


@dataclass(frozen=True)
class Staged:
    """One staged step: the words typed (canonical) and the engine's action for them."""

    text: str
    action: Action


@dataclass
class LogLine:
    """One line of the log; `style` is a style class name (see console/style.py)."""

    text: str
    style: str = ""
    seat: Seat | None = None
    action: str | None = None
    """For an action line: who and the raw console words (the screen labels the cards)."""


@dataclass
class HandOutcome:
    """A finished hand as the console shows it: score lines and the audit verdict."""

    number: int
    result: HandResult
    verdict: str
    names: list[str] = field(default_factory=list)


def sort_key(card: Card) -> tuple[int, int]:
    """Hand order: by suit (alternating colours), then by rank; jokers last."""
    return (SUIT_ORDER.get(card.suit, 9), card.rank)


def rank_key(card: Card) -> tuple[int, int]:
    """The other hand order (`sort`): by rank, aces high, then suit; jokers last — sets
    (tris) of a rank sit together."""
    rank = 14 if card.rank == 1 else card.rank
    return (rank if not card.is_joker else 99, SUIT_ORDER.get(card.suit, 9))


SORTS: dict[str, Callable[[Card], tuple[int, int]]] = {"suit": sort_key, "rank": rank_key}


def hand_positions(state: HandState, seat: Seat) -> list[Pos]:
    """The deck positions now in `seat`'s hand, from the engine's own location list."""
    place = f"hand:{seat}"
    return [pos for where, pos in state.physical_locations() if where == place]


class ConsoleModel:
    """Root state of the console and the person's `SeatController`."""

    def __init__(self, name: str | None = None, *, game: str | None = None,
                 target: int | None = None, variant: str | None = None,
                 lang: str | None = None) -> None:
        self.name = name or "you"
        self.lang = lang if lang in cardnames.LANGS else "en"   # every word shown (--lang)
        self.last_refusal: RuleViolation | None = None   # what `why` explains
        self.hint_given: str | None = None     # this turn's hint, once asked (one a turn)
        self.on_rematch: Callable[[str], None] | None = None
        """Set by whoever connects (`run_console_peer`): play again with the same people at
        the same host — a new link that asks for our seat at the rematch table (TABLE-16)."""
        self.rematch_of: str | None = None     # the finished table we asked to play again
        self.sort_by = "suit"                  # hand order: "suit" or "rank" (`sort`)
        self.fresh: set[Pos] = set()           # cards just drawn/taken: marked until we act
        self._pile_seen: list[str] = []        # the discard pile at the last event (take)
        self._hand_seen: set[Pos] = set()      # our hand's positions at the last event
        self.game = game                 # known before the first hand when `play` starts it
        self.variant = variant
        self.target = target
        self.seat: Seat | None = None
        self.state: HandState | None = None       # the seat's replica (the table mutates it)
        self.preview: HandState | None = None     # replica + steps sent-but-pending + staged
        self.names: list[str] = []
        self.hand_no = 0
        # staging area and the queue of steps handed to the table one turn at a time
        self.staged: list[Staged] = []
        self.outbox: list[Staged] = []
        self._submit: Submit | None = None
        self.in_flight: Staged | None = None
        # hand navigation
        self.cursor = 0
        self.selected: set[Pos] = set()
        # messages
        self.log: collections.deque[LogLine] = collections.deque(maxlen=LOG_LINES)
        self.error: str | None = None
        self.message: str | None = None
        self.status: str | None = None
        self.progress: str | None = None
        self.typing: tuple[bool, str] | None = None   # live check of the line being typed
        self.panel: str | None = None          # None (the log), "help" or "score"
        self.help_text: list[str] = []
        self.data_dir: Any = None              # where the history is (`recent`)
        # scores
        self.standings: dict[str, Any] | None = None
        self.outcomes: list[HandOutcome] = []
        self.match_over = False
        self.quit_requested = False
        # clocks (TABLE-1/2): the latest notice, counted down locally; paused while the
        # host is unreachable (it stops the clocks meanwhile and restarts them)
        self.now: Callable[[], float] = loop_time
        self.clock: ClockState | None = None
        self._clock_paused_at: float | None = None
        # the link and the match's fate: shown in the banner under the title
        self.link_alert: str | None = None     # "host unreachable, retrying…"
        self.fault: str | None = None          # the host is at fault (TABLE-10)
        self.confirming: str | None = None     # a question waiting for its answer
        self.abandoned = False
        self.failure: str | None = None        # why the link to the table failed for good
        self.bell = True                       # ring when our turn comes (`bell off`)
        self.title_alert = True                # say so in the terminal's title (`title off`)
        self._alerted = False
        self.on_alert: Callable[[str], None] = lambda kind: None
        """Set by the app: "turn" rings/retitles, "wait" puts the title back."""
        self.lobby: list[LobbySeat] = []       # the table's seats before the deal (join)
        self.lobby_table: TableInfo | None = None   # its id, game, variant, players, status
        self.log_scroll = 0                    # log lines scrolled back from the newest
        self.panel_scroll = 0                  # rows scrolled down in the help/score panel
        self.side_panel = True                 # the seats-and-log column (`set panel off`)
        self.mouse = True                      # the wheel scrolls the log (`set mouse off`)
        self._hand_open = False                # between hand_started and hand_ended
        self._log_count = 0                    # lines ever logged (the deque forgets)
        self._hand_mark = 0                    # _log_count when this hand started
        # links to the screen and the app (set by create_application / run_console_peer)
        self.invalidate: Callable[[], None] = lambda: None
        self.on_quit: Callable[[], None] = lambda: None
        self.on_say: Callable[[str], bool] | None = None
        """Set by whoever connects the peer: send a signed chat line (None offline)."""
        self.on_abandon: Callable[[], bool | None] | None = None
        """Set by whoever connects the peer (`run_console_peer`): sign `abandon` (TABLE-9);
        False when there is no match to abandon. None offline: abandoning is not offered."""

    # ------------------------------------------------------------------ SeatController
    def hand_started(self, state: HandState, seat: Seat) -> None:
        """A new hand: forget the old staging, keep names, scores and log.

        The same hand may start again while we think it is in progress: the seat's program
        was rebuilt (a restart, a resync) and replays the hand's log. The table is then
        redrawn from the new replica, and the action lines logged since the hand began are
        dropped, since the replay logs them again."""
        number = self._hand_number()
        resumed = self._hand_open and number in (None, self.hand_no)
        self.state = state
        self.seat = seat
        self.game = state.game
        self.staged.clear()
        self.outbox.clear()
        self.in_flight = None
        self._submit = None
        self.selected.clear()
        self.cursor = 0
        self.error = None
        self.progress = None
        if resumed:
            self._forget_hand_actions()
            self.log_line(self.t("log.hand_resumed", n=self.hand_no), "log.hand")
        else:
            self.hand_no = number if number is not None else self.hand_no + 1
            self._hand_mark = self._log_count
            self.log_line(self.t("log.hand_starts", n=self.hand_no,
                                 who=self.seat_name(state.dealer)), "log.hand")
        self._hand_open = True
        self.hint_given = None
        self.panel = None if self.panel == "score" else self.panel   # the next deal
        self.log_scroll = 0
        self.fresh = set()
        self.refresh()
        self._snapshot()
        self.invalidate()

    def _hand_number(self) -> int | None:
        """This hand's number from the table's standings (hands played, void hands, + 1),
        so a console started mid-match numbers hands as the table does; None if unknown."""
        st = self.standings or {}
        hands = st.get("hands")
        if not isinstance(hands, int) or isinstance(hands, bool):
            return None
        voids = st.get("voids")
        return hands + (voids if isinstance(voids, int) else 0) + 1

    def _forget_hand_actions(self) -> None:
        """Drop the action lines logged since this hand started (a replay repeats them)."""
        lines = list(self.log)
        since = min(len(lines), max(0, self._log_count - self._hand_mark))
        keep = len(lines) - since
        tail = [ln for ln in lines[keep:] if ln.action is None]
        self.log = collections.deque(lines[:keep] + tail, maxlen=LOG_LINES)
        self._log_count = self._hand_mark + len(tail)

    def your_turn(self, state: HandState, seat: Seat, submit: Submit) -> None:
        """Our move: either continue sending queued steps or wait for the person."""
        self.state = state
        self.seat = seat
        self._submit = submit
        self.in_flight = None
        self.progress = None
        if self.outbox:
            self._flush()
        else:
            self.refresh()
            self.message = self.t("turn.your_turn", hint=self.turn_hint())
            self.log_scroll = 0            # the log follows the game (our move)
            self._turn_alert()
        self._snapshot()
        self.invalidate()

    def rejected(self, state: HandState, seat: Seat, error: str) -> None:
        """The table refused a step we sent: show why, drop the rest of the queue."""
        self.state = state
        dropped = len(self.outbox)
        self.outbox.clear()
        self.in_flight = None
        self._remember_refusal(error)
        error = self.player_text(error.removeprefix("refused: "))
        self.error = self.t("err.refused", why=error)
        self.log_line(self.error, "log.error")
        if dropped:
            self.log_line(self.t("err.queued_dropped", n=dropped), "log.error")
        self.refresh()
        self.invalidate()

    def notify(self, event: SeatEvent) -> None:
        """A public event from the table: names, progress, actions, standings, log lines
        (one typed value of `table.events`; every kind is handled, as mypy checks)."""
        match event:
            case SeatsChanged():
                self._on_seats(event)
            case DealProgress():
                self._on_progress(event)
            case ActionPlayed():
                if event.state is not None:
                    self.state = event.state   # the table's replica after this action
                self._on_action(event)
            case ChatSaid():
                self._append(LogLine(f"💬 {self.seat_name(event.seat)}: {event.text}",
                                     "log.chat"))
            case StandingsChanged():
                self.standings = dict(event.standings)
                if isinstance(self.standings.get("target"), int):
                    self.target = self.standings["target"]
            case ClockNotice():
                self._on_clock(event)
            case LinkStatus():
                self._on_status(event.text)
            case TableLine():
                text, style = self._on_table_line(event.text, event.style)
                self.log_line(text, style)
            case ErrorNotice():
                self.error = self.player_text(event.text)
                style = "log.error"
                if is_host_fault(event.text):
                    self.fault = self.error
                    style = "log.fault"
                self.log_line(self.error, style)
            case HandVoided():
                self.log_line(self.player_text(event.text), "log.void")
            case TablesListed():
                pass                  # the lobby's list: not for the table screen
            case _:
                assert_never(event)
        self.refresh()
        self._snapshot()
        self.invalidate()

    def _on_seats(self, event: SeatsChanged) -> None:
        """Who sits where; from a host, the waiting screen's seats and table too."""
        self.names = list(event.names)
        if event.seats is not None:
            self.lobby = list(event.seats)
        if event.table is not None:
            self.lobby_table = event.table
        if event.you is not None:
            self.seat = event.you

    def _on_progress(self, event: DealProgress) -> None:
        """The deal's progress line: a bar of `done`/`total`, gone once the deal is done."""
        text = self.player_text(event.text)
        done, total = event.done, event.total
        if total > 0:
            if done >= total:
                self.progress = None
            else:
                bar = "#" * (20 * done // total)
                self.progress = f"{text} [{bar:<20}] {done}/{total}"
        else:
            self.progress = text

    def _on_action(self, event: ActionPlayed) -> None:
        """An action line in the log (what a take picked up beside it); our own applied
        step is no longer in flight, and the cards it brought are marked fresh."""
        seat, text = event.seat, event.action
        mine = seat == self.seat
        if not mine:
            self.hint_given = None   # someone else moved: our next turn may ask again
        if mine:
            self.in_flight = None  # the table applied our step to the replica
            self.fresh = set(self._hand_positions()) - self._hand_seen
        st = self.state
        if self._alerted and (st is None or st.is_over or st.to_move != self.seat):
            self._alerted = False          # our turn is over: the title goes back
            self.on_alert("wait")
        self.progress = None
        if text.split()[:1] == ["take"]:  # say what was picked up
            taken = self._left_pile()
            if taken:
                text += " ⇐ " + " ".join(taken)
        self._append(LogLine(f"{self.seat_name(seat)}: {text}",
                             "log.mine" if mine else "log.other", seat=seat, action=text))

    def say(self, text: str) -> None:
        """`say …`: a chat line to everyone at the table, signed by our key; it shows in
        every seat's log when the host relays it back (our copy included)."""
        if self.on_say is None:
            raise ConsoleError(self.t("err.chat_offline"))
        try:
            sent = self.on_say(text)
        except ValueError as exc:          # empty, too long, not printable
            raise ConsoleError(self.t("err.not_sent", why=exc)) from None
        if not sent:
            raise ConsoleError(self.t("err.not_seated"))
        self.error = None
        self.message = self.t("msg.said")

    def scroll_log(self, rows: int) -> None:
        """Scroll the log `rows` back (negative: forward); the screen clamps it."""
        self.log_scroll = max(0, self.log_scroll + rows)
        self.invalidate()

    def set_option(self, name: str, value: str) -> str:
        """`set bell|title|mouse on|off`, `set lang it|en`, `set sort suit|rank`: the
        console's own switches (nothing here reaches the table). Returns what was set."""
        switches = {"bell": "bell", "campanello": "bell", "title": "title_alert",
                    "titolo": "title_alert", "mouse": "mouse", "panel": "side_panel",
                    "pannello": "side_panel"}
        if name in switches:
            if value not in ("on", "off", "si", "sì", "no"):
                raise ConsoleError(self.t("err.set_on_off", name=name, value=repr(value)))
            setattr(self, switches[name], value in ("on", "si", "sì"))
            text = f"{name} {self.t('msg.on' if value in ('on', 'si', 'sì') else 'msg.off')}"
        elif name in ("lang", "lingua"):
            if value not in cardnames.LANGS:
                raise ConsoleError(self.t("err.set_lang", value=repr(value),
                                          langs=self.t("turn.or").join(cardnames.LANGS)))
            self.lang = value
            text = f"{name} {value}"
        elif name in ("sort", "ordina"):
            if value not in ("suit", "rank", "seme", "valore"):
                raise ConsoleError(self.t("err.set_sort", value=repr(value)))
            self.sort_by = "suit" if value in ("suit", "seme") else "rank"
            text = f"{name} {self.t('sort.' + self.sort_by)}"
        else:
            raise ConsoleError(self.t("err.set_what", name=repr(name)))
        self.message = self.t("msg.set", what=text)
        return text

    def free_seats(self) -> list[int]:
        """Seats of the table not taken yet (from the host's seat list)."""
        return [s.seat for s in self.lobby if not s.name]

    def waiting_text(self) -> str:
        """Before the first deal: whom we wait for, never a bare '-'."""
        if self.status in (None, "connecting…"):
            return self.t("lobby.connecting")
        free = self.free_seats()
        if free:
            return self.t("lobby.waiting_free", n=len(free), seats=", ".join(map(str, free)))
        if self.lobby:
            return self.t("lobby.all_seated")
        return self.t("lobby.waiting")

    def name_seats(self, text: str) -> str:
        """`seat 2 back` → `Bob back`: a player reads names, never seat numbers (a seat
        nobody named yet stays `seat 2`)."""

        def named(m: re.Match[str]) -> str:
            seat = int(m.group(1))
            name = self.names[seat] if 0 <= seat < len(self.names) else ""
            if seat == self.seat:
                return self.seat_name(seat)
            if not name or name == m.group(0):
                return self.t("seat_n", n=seat)
            return name

        text = re.sub(r"(?<![(\w])seat (\d+)'s\b",
                      lambda m: named(m) + "'s", text)
        return _SEAT_RE.sub(named, text)

    def ask_rematch(self) -> None:
        """`rematch`/`rivincita` after a match: ask the host for a new match with the same
        people; it starts when every person has asked (TABLE-16). The finished match's
        scores stay in the log; the table starts afresh."""
        if not self.match_over:
            raise ConsoleError(self.t("rematch.not_over"))
        if self.on_rematch is None:
            raise ConsoleError(self.t("rematch.offline"))
        table = (self.lobby_table.id if self.lobby_table is not None else None) or ""
        if not table:
            raise ConsoleError(self.t("rematch.no_table"))
        self.rematch_of = table
        self.match_over = False
        self.abandoned = False
        self.failure = None
        self.fault = None
        self.outcomes = []
        self.standings = None
        self.hand_no = 0
        self.state = self.preview = None
        self.clock = None
        self.panel = None
        self.lobby = []
        self.log_line(self.t("rematch.asked"), "log.hand")
        self.error = None
        self.message = self.t("rematch.waiting")
        self.on_rematch(table)

    @property
    def hints_on(self) -> bool:
        """The table lets the console suggest a move (the host's table info says `hints`;
        offline, and before the table said, yes)."""
        return self.lobby_table is None or self.lobby_table.hints

    def hint(self) -> str:
        """`hint`/`suggerimento`: the move the heuristic bot would make now, on our own
        view of the hand (what the seat knows, nothing more), shown and not played — at most
        one a turn, and only where the table allows hints."""
        if not self.hints_on:
            raise ConsoleError(self.t("hint.off"))
        if self.hint_given is not None:
            raise ConsoleError(self.t("hint.again", move=self.hint_given))
        st = self.view_state
        if not self.my_turn or st is None or self.seat is None:
            raise ConsoleError(self.t("hint.not_turn", hint=self.turn_hint()))
        import random

        from ..bots import make_strategy

        strategy = make_strategy(st.game, "heuristic", random.Random(self.hand_no))
        action = strategy.choose(st.copy(), self.seat)
        if action is None:
            raise ConsoleError(self.t("hint.none"))
        self.hint_given = self.step_text(str(action))
        self.error = None
        self.message = self.t("hint.shown", move=self.hint_given)
        return self.hint_given

    def t(self, msg_id: str, **fields: object) -> str:
        """A catalog message in the console's language."""
        return t(self.lang, msg_id, **fields)

    def player_text(self, text: str) -> str:
        """A line from the engine or the table as a player reads it: names for seats, no
        rule ids or message numbers (`why` shows the rule), in the console's language,
        cards labelled as on screen."""
        text = _MESSAGE_NO.sub("", _RULE_ID.sub("", self.name_seats(text)))
        return self.display_text(engine_text(self.lang, text))

    def _remember_refusal(self, text: str) -> None:
        """Keep the rule behind a refusal the table sent as text (`… [FIBUR-9]`), for
        `why`."""
        m = re.search(r"\[([A-Z][A-Z0-9]*-\d+[a-z]?)\]\s*$", text)
        if m is not None:
            message = _RULE_ID.sub("", text).removeprefix("refused: ").strip()
            self.last_refusal = RuleViolation(m.group(1), message)

    def why(self) -> list[str]:
        """`why`/`perché`: the last refusal's rule, with its id and its text from seeds/."""
        exc = self.last_refusal
        if exc is None:
            raise ConsoleError(self.t("err.no_why"))
        from .rulebook import rule_text

        st = self.view_state
        rule = rule_text(exc.rule_id, self.game, getattr(st, "rules", None))
        return [self.t("why.refused", why=self.player_text(exc.message)),
                self.t("why.title", rule=exc.rule_id, text=rule or "")]

    def _turn_alert(self) -> None:
        """Our turn has come: ring the bell and retitle the terminal, once per turn (both
        switchable: `bell off`, `title off`)."""
        if not self._alerted:
            self._alerted = True
            self.on_alert("turn")

    def _hand_positions(self) -> list[Pos]:
        st = self.state
        return [] if st is None or self.seat is None else hand_positions(st, self.seat)

    def _snapshot(self) -> None:
        """Remember the pile and our hand as the table holds them now: the next action is
        told against them (what a `take` picked up, which card a draw brought)."""
        self._pile_seen = self._pile_now()
        self._hand_seen = set(self._hand_positions())

    def _pile_now(self) -> list[str]:
        """The discard pile as the replica holds it, bottom first ("?" for a card not known)."""
        st = self.state
        refs = getattr(st, "pile_refs", None)
        if st is None or not callable(refs):
            return []
        return [str(st.deck[c]) if c is not None else "?" for _, c in refs()]

    def _left_pile(self) -> list[str]:
        """The cards that left the pile since the last snapshot, in pile order. Why a
        comparison and not the `take` words: which cards a take picks up is the engine's rule
        (top only or the whole pile, per rule set); the console only reports what happened."""
        still = collections.Counter(self._pile_now())
        gone: list[str] = []
        for card in self._pile_seen:
            if still[card] > 0:
                still[card] -= 1
            else:
                gone.append(card)
        return gone

    def hand_ended(self, state: HandState, result: HandResult, verdict: str) -> None:
        """Show the score breakdown and the audit verdict; keep them until the next hand."""
        self.state = state
        self._submit = None
        self.outbox.clear()
        self.staged.clear()
        self.in_flight = None
        self.progress = None
        self._hand_open = False
        self._stop_clock()
        outcome = HandOutcome(self.hand_no, result, verdict, list(self.names))
        self.outcomes.append(outcome)
        if self.standings is None or "totals" not in self.standings \
                or self.standings.get("hands", -1) != len(self.outcomes):
            self._accumulate(result)
        self.log_line(self.t("log.hand_over", n=self.hand_no,
                             reason=self.reason_text(result.reason)), "log.hand")
        for side, pts in zip(result.sides, result.points):
            self.log_line(f"{' + '.join(self.seat_name(s) for s in side)}: {pts:+d}", "log.score")
        self.log_line(self.t("log.audit", verdict=self.verdict_text(verdict)),
                      "log.fair" if verdict == "fair" else "log.error")
        self.message = self.t("msg.hand_over", verdict=self.verdict_text(verdict))
        self.log_scroll = 0
        # the breakdown stays up until the person closes it or the next deal (TABLE-12)
        self.panel, self.panel_scroll = "score", 0
        self.refresh()
        self.invalidate()

    def match_ended(self, standings: dict[str, Any]) -> None:
        self.standings = dict(standings)
        self.match_over = True
        self.confirming = None
        self._stop_clock()
        self.log_line(self.t("log.match_over", standings=self.standings_text()), "log.hand")
        self.message = self.t("msg.match_over_rematch" if self.on_rematch is not None
                              else "msg.match_over", standings=self.standings_text())
        self.invalidate()

    # ------------------------------------------------------------------ clocks
    def _on_clock(self, event: ClockNotice) -> None:
        """The host's clock notice: which seat's clock runs and how much it has left now."""
        self.clock = ClockState(seat=event.seat, kind=event.kind,
                                ms=event.ms if event.seat is not None else None,
                                match_ms=list(event.match_ms), warn_ms=event.warn_ms,
                                at=self.now())
        self._clock_paused_at = None   # a fresh notice: the host's clocks run again

    def _stop_clock(self) -> None:
        """No move clock runs once the hand is over (the match clocks stay shown)."""
        if self.clock is not None:
            self.clock.seat = None
            self.clock.ms = None
        self._clock_paused_at = None

    def _clock_time(self, now: float | None) -> float:
        """The time the countdown has reached: `now`, or the moment it was paused."""
        if self._clock_paused_at is not None:
            return self._clock_paused_at
        return self.now() if now is None else now

    def _pause_clock(self) -> None:
        if self.clock is not None and self._clock_paused_at is None:
            self._clock_paused_at = self.now()

    def _resume_clock(self) -> None:
        if self.clock is not None and self._clock_paused_at is not None:
            self.clock.at += max(0.0, self.now() - self._clock_paused_at)
        self._clock_paused_at = None

    @property
    def clock_paused(self) -> bool:
        return self._clock_paused_at is not None

    def clock_left_ms(self, now: float | None = None) -> int | None:
        """Milliseconds left on the running clock, or None when no clock runs."""
        c = self.clock
        if c is None or c.seat is None or c.ms is None:
            return None
        return max(0, int(c.ms - c.elapsed_ms(self._clock_time(now))))

    def match_clock_ms(self, seat: Seat, now: float | None = None) -> int | None:
        """What is left of `seat`'s clock for the whole match (TABLE-2), None when off. The
        seat whose move runs spends it while the move's clock runs."""
        c = self.clock
        if c is None or not 0 <= seat < len(c.match_ms):
            return None
        left = float(c.match_ms[seat])
        if seat == c.seat and c.kind in ("turn", "match_clock") and c.ms is not None:
            left -= c.elapsed_ms(self._clock_time(now))
        return max(0, int(left))

    def clock_text(self, now: float | None = None) -> str | None:
        """The running clock in words: `your move 1:23`, `Bob's move 0:42`, `Bob's step
        0:25`, `Bob away: grace 1:40` (with `, paused` while the host is unreachable)."""
        left = self.clock_left_ms(now)
        c = self.clock
        if left is None or c is None or c.seat is None:
            return None
        mine = c.seat == self.seat
        who, ms = self.seat_name(c.seat), format_ms(left)
        if c.kind in ("turn", "match_clock"):
            text = self.t("clock.your_move", t=ms) if mine else \
                self.t("clock.their_move", who=who, t=ms)
            if c.kind == "match_clock":
                text += self.t("clock.match_clock")
        elif c.kind == "step":
            text = self.t("clock.step_mine", t=ms) if mine else self.t("clock.step", who=who, t=ms)
        elif c.kind == "grace":
            text = self.t("clock.grace_mine", t=ms) if mine else \
                self.t("clock.grace", who=who, t=ms)
        else:
            text = self.t("clock.other", who=who, t=ms)
        return text + (self.t("clock.paused") if self.clock_paused else "")

    def seat_away(self, seat: int) -> bool:
        """The seat's player is away (dropped, its seat held): the seats panel says so."""
        return any(e.seat == seat and e.name and not e.connected for e in self.lobby)

    def clock_warning(self, now: float | None = None) -> str | None:
        """`⚠ 12 s left …` while less than `warn_ms` is left on OUR move's clock (TABLE-1)
        or match clock (TABLE-2); None otherwise."""
        c = self.clock
        left = self.clock_left_ms(now)
        if c is None or left is None or c.seat != self.seat or self.seat is None \
                or c.kind not in ("turn", "match_clock") or left >= c.warn_ms:
            return None
        secs = math.ceil(left / 1000)
        if c.kind == "match_clock":
            return self.t("warn.match_clock", s=secs)
        if self.game == "briscola":
            return self.t("warn.move_lose", s=secs)
        return self.t("warn.move_bot", s=secs)

    def match_clock_texts(self, now: float | None = None) -> list[tuple[Seat, str]]:
        """Each seat's match clock (TABLE-2) as shown, when the table runs them."""
        c = self.clock
        if c is None or not c.match_ms:
            return []
        out = []
        for seat in range(len(c.match_ms)):
            left = self.match_clock_ms(seat, now)
            if left is not None:
                out.append((seat, format_ms(left)))
        return out

    def banner(self, now: float | None = None) -> tuple[str, str] | None:
        """The one line under the title that must not be missed: (style class, text) — a
        host at fault, a question, the host unreachable, our clock running out."""
        if self.fault:
            return "banner.fault", self.fault
        if self.confirming == "abandon":
            return "banner.confirm", self.t(ABANDON_QUESTION)
        if self.confirming == "quit":
            return "banner.confirm", self.quit_question()
        if self.link_alert:
            return "banner.link", "⚠ " + self.player_text(self.link_alert) + (
                self.t("banner.paused") if self.clock_paused else "")
        warn = self.clock_warning(now)
        if warn:
            return "banner.warn", warn
        return None

    # ------------------------------------------------------------------ link and log lines
    def _on_status(self, text: str) -> None:
        """A line from the network layer: the link's state in the title bar; while the host
        is unreachable, a banner (one log line, updated, not one per retry)."""
        state = link_state(text)
        self.status = state
        style = "log.status"
        if state == "reconnecting…":
            self.link_alert = text
            self._pause_clock()
            style = "log.link"
            last = self.log[-1] if self.log else None
            if last is not None and last.style == "log.link" and last.action is None:
                self.log[-1] = LogLine(self.player_text(text), style)
                return
        elif state == "online":
            if self.link_alert:
                style = "log.link"
            self.link_alert = None
            self._resume_clock()
        elif state == "disconnected":
            self.link_alert = text
            self.clock = None
            self._clock_paused_at = None
            style = "log.error"
        self.log_line(self.player_text(text), style)

    def _on_table_line(self, text: str, style: str) -> tuple[str, str]:
        """A log line from the table, styled by what it says (timeouts, faults), with seat
        numbers turned into names. A timeout of our own seat ends our turn here too."""
        m = _TIMEOUT_RE.match(text)
        if m:
            seat, kind = int(m.group(1)), m.group(2)
            said = self.reason_text(kind)
            who = self.t("you") if seat == self.seat else self.seat_name(seat)
            text = self.t("log.ran_out", who=who, kind=said)
            if seat == self.seat:
                self._submit = None          # too late: that turn is no longer ours
                self.in_flight = None
                self.outbox.clear()
                self.staged.clear()
                self.message = self.t("log.you_ran_out", kind=said)
            return text, style or "log.timeout"
        low = text.lower()
        fault = is_host_fault(text)
        text = self.player_text(text)
        if fault:
            self.fault = text
            return text, style or "log.fault"
        if "time ran out" in low or "timeout" in low or "abandon" in low:
            return text, style or "log.timeout"
        return text, style

    # ------------------------------------------------------------------ abandon (TABLE-9)
    def ask_abandon(self) -> None:
        """First step of `abandon`: ask, change nothing. Refused when there is nothing to
        abandon, or offline (no peer: nobody else's match is at stake)."""
        if self.on_abandon is None:
            raise ConsoleError(self.t(ABANDON_OFFLINE))
        if self.match_over:
            raise ConsoleError(self.t("q.match_over_nothing"))
        if self.abandoned:
            raise ConsoleError(self.t("q.already_abandoned"))
        self.confirming = "abandon"
        self.error = None
        self.message = self.t(ABANDON_QUESTION)

    def answer(self, line: str) -> bool:
        """The line typed while a question waits: confirms it (`abandon`, `abbandona`,
        `yes`, `sì`) or cancels it (anything else, an empty line too; nothing else is run).
        True when it confirmed and the hook accepted."""
        question, self.confirming = self.confirming, None
        words = line.split()
        if question == "quit":
            if len(words) == 1 and words[0].lower() in QUIT_CONFIRM:
                self._leave()
                return True
            self.error = None
            self.message = self.t("q.stay")
            return False
        if question != "abandon":
            return False
        if len(words) != 1 or words[0].lower() not in ABANDON_CONFIRM:
            self.error = None
            self.message = self.t("q.not_abandoned")
            return False
        return self._abandon()

    def cancel_question(self) -> None:
        if self.confirming is not None:
            self.answer("")

    def _abandon(self) -> bool:
        hook = self.on_abandon
        if hook is None:
            self.error = self.t(ABANDON_OFFLINE)
            return False
        try:
            ok = hook()
        except Exception as exc:  # noqa: BLE001 — the peer's trouble is shown, not raised
            self.error = self.t("q.could_not_abandon", why=exc)
            self.log_line(self.error, "log.error")
            return False
        if ok is False:
            self.error = self.t("q.no_match")
            return False
        self.abandoned = True
        self.staged.clear()
        self.error = None
        self.message = self.t("q.abandoned")
        self.log_line(self.message, "log.timeout")
        self.refresh()
        return True

    # ------------------------------------------------------------------ derived state
    @property
    def my_turn(self) -> bool:
        """True while the table waits for our action (and none is in flight)."""
        return self._submit is not None and self.in_flight is None

    @property
    def view_state(self) -> HandState | None:
        """What the hand and table panels show: the replica with staged steps applied."""
        return self.preview if self.preview is not None else self.state

    def seat_name(self, seat: Seat | None) -> str:
        if seat is None:
            return "-"
        if seat == self.seat:
            return self.name if self.name != "you" else self.t("you")
        if 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return self.t("seat_n", n=seat)

    def hand_cards(self) -> list[tuple[Pos, Card]]:
        """Our hand (after staged steps), sorted by suit then rank."""
        st = self.view_state
        if st is None or self.seat is None:
            return []
        out: list[tuple[Pos, Card]] = []
        for pos in hand_positions(st, self.seat):
            cid = st.card_at(pos)
            if cid is not None:
                out.append((pos, st.deck[cid]))
        key = SORTS.get(self.sort_by, sort_key)
        out.sort(key=lambda pc: (key(pc[1]), pc[0]))
        return out

    def toggle_sort(self) -> str:
        """Sort the hand by suit or by rank (the other one from now); the cursor stays on
        its card."""
        card_pos = self.hand_cards()[self.cursor][0] if self.hand_cards() else None
        self.sort_by = "rank" if self.sort_by == "suit" else "suit"
        positions = [p for p, _ in self.hand_cards()]
        if card_pos in positions:
            self.cursor = positions.index(card_pos)
        self.message = self.t("msg.sorted", how=self.t("sort." + self.sort_by))
        return self.sort_by

    def hidden_in_hand(self) -> int:
        """Cards in our (previewed) hand this replica cannot see yet — the pozzetto a staged
        meld would pick up is only revealed once the steps reach the table."""
        st = self.view_state
        if st is None or self.seat is None:
            return 0
        return sum(1 for p in hand_positions(st, self.seat) if st.card_at(p) is None)

    def legal_kinds(self) -> tuple[str, ...]:
        st = self.view_state
        if st is None or self.seat is None or not self.my_turn:
            return ()
        return tuple(st.legal_kinds(self.seat))

    def deal_progress(self) -> str | None:
        """A progress line while the deal runs: the table's own, or — when it sends none —
        how many of our dealt cards the fair-deal keys have unlocked so far."""
        if self.progress:
            return self.progress
        st = self.state
        if st is None or self.seat is None or st.is_over:
            return None
        mine = hand_positions(st, self.seat)
        unknown = sum(1 for p in mine if st.card_at(p) is None)
        if not unknown:
            return None
        done = len(mine) - unknown
        bar = "#" * (20 * done // max(1, len(mine)))
        return f"{self.t('hand.unlocking')} [{bar:<20}] {done}/{len(mine)}"

    def turn_hint(self) -> str:
        """One line saying what the person can do now (from the engine's legal kinds)."""
        if self.my_turn and self.staged and self.hidden_in_hand() and self.preview is not None:
            return self.t("turn.pozzetto_send")
        kinds = self.legal_kinds()
        if not kinds:
            if self.my_turn and self.staged:
                return self.t("turn.staged_end")
            if self.state is not None and self.state.is_over:
                return self.t("turn.hand_over")
            if self.state is None:
                return self.waiting_text()
            return self.t("turn.waiting_for", who=self.seat_name(self.state.to_move))
        return self.t("turn.you_may", kinds=kind_words(self.lang, kinds))

    # ------------------------------------------------------------------ staging
    def refresh(self) -> None:
        """Rebuild the preview from the replica plus queued and staged steps. A staged step
        the engine now refuses (the hand changed under it) is dropped with its reason.

        A step already handed to the table, or queued for it, that no longer fits the
        replica we hold is not dropped here: the table has the last word on it (it answers
        with `your_turn` or `rejected`, which clears the queue), and the replica we hold may
        simply be older than the table's — a table that replaces its hand object at each
        action hands us the new one only with the next `your_turn`. The last preview stays
        shown meanwhile."""
        st = self.state
        if st is None or self.seat is None:
            self.preview = None
            return
        flying = [self.in_flight] if self.in_flight is not None else []
        if not self.outbox and not self.staged and not flying:
            self.preview = None
        else:
            preview = st.copy()
            for queue in (flying, self.outbox, self.staged):
                kept: list[Staged] = []
                for step in queue:
                    try:
                        preview.apply(self.seat, step.action)
                    except RuleViolation as exc:
                        if queue is not self.staged and self.preview is not None:
                            return      # sent or queued: the table decides (see above)
                        self.error = self.t("stage.dropped", step=self.step_text(step.text),
                                            why=self.refusal(exc))
                        break
                    kept.append(step)
                if len(kept) != len(queue):
                    if queue is flying:
                        self.in_flight = None
                        self.outbox.clear()
                    if queue is not self.staged:
                        self.staged.clear()
                    queue[:] = kept
                    break
            self.preview = preview
        positions = {pos for pos, _ in self.hand_cards()}
        self.selected &= positions
        self.cursor = max(0, min(self.cursor, len(positions) - 1))

    def parse(self, text: str, state: HandState | None = None) -> Action:
        """The engine's action for console words, on the preview (or a given) state."""
        st = state if state is not None else self.view_state
        if st is None or self.seat is None:
            raise ConsoleError(self.t("err.no_hand"))
        try:
            return st.parse_action(self.seat, text)
        except (ActionSyntaxError, NotationError) as exc:
            raise ConsoleError(self.t("err.cannot_read", text=text,
                                      why=engine_text(self.lang, str(exc)))) from None

    def try_step(self, text: str) -> tuple[Action, HandState]:
        """Parse and apply `text` on a copy of the preview; RuleViolation propagates."""
        if not self.my_turn:
            if self.in_flight is not None or self.outbox:
                raise ConsoleError(self.t("err.wait_previous"))
            raise ConsoleError(self.t("err.not_your_turn", hint=self.turn_hint()))
        base = self.view_state
        assert base is not None and self.seat is not None
        trial = base.copy()
        action = self.parse(text, trial)
        trial.apply(self.seat, action)
        return action, trial

    def stage(self, text: str) -> Staged:
        """Add one step (a meld, an attachment) to the staging area after the engine has
        accepted it on a copy. Nothing reaches the table until `send` or a discard."""
        action, trial = self.try_step(text)
        step = Staged(str(action) or text, action)
        self.staged.append(step)
        self.preview = trial
        self.selected.clear()
        self.refresh()
        self.error = None
        self.message = self.t("stage.staged", step=self.step_text(step.text))
        return step

    def act(self, text: str) -> Staged:
        """An action that commits (draw, take, discard, play…): validated after the staged
        steps, then everything staged is sent in order, this last."""
        action, trial = self.try_step(text)
        step = Staged(str(action) or text, action)
        self.outbox.extend(self.staged)
        self.staged.clear()
        self.outbox.append(step)
        self.preview = trial
        self.selected.clear()
        self.error = None
        self.message = None
        self.log_scroll = 0            # the log follows the game (our move)
        self._flush()
        return step

    def send(self) -> int:
        """Submit the staged steps (without ending the turn). Returns how many were queued."""
        if not self.staged:
            raise ConsoleError(self.t("err.nothing_staged"))
        if not self.my_turn:
            raise ConsoleError(self.t("err.not_your_turn", hint=self.turn_hint()))
        n = len(self.staged)
        self.outbox.extend(self.staged)
        self.staged.clear()
        self.error = None
        self.log_scroll = 0
        self.message = self.t("stage.sending", n=n)
        self._flush()
        return n

    def undo(self) -> Staged:
        if not self.staged:
            raise ConsoleError(self.t("err.nothing_to_undo"))
        step = self.staged.pop()
        self.refresh()
        self.error = None
        self.message = self.t("stage.unstaged", step=self.step_text(step.text))
        return step

    def clear_stage(self) -> int:
        n = len(self.staged)
        self.staged.clear()
        self.selected.clear()
        self.refresh()
        self.error = None
        self.message = self.t("stage.cleared", n=n) if n else self.t("stage.already_empty")
        return n

    def _flush(self) -> None:
        """Hand the next queued step to the table if it is waiting for us. The table may
        call `your_turn` again from inside `submit` (in-process tables do): that re-enters
        here and sends the following step."""
        if not self.outbox or self._submit is None or self.in_flight is not None:
            return
        step = self.outbox.pop(0)
        submit, self._submit = self._submit, None
        self.in_flight = step
        submit(step.action)  # the table answers with your_turn / rejected / notify
        self.refresh()
        self.invalidate()

    # ------------------------------------------------------------------ hand navigation
    def move_cursor(self, delta: int) -> None:
        n = len(self.hand_cards())
        if n:
            self.cursor = (self.cursor + delta) % n

    def toggle_selected(self) -> None:
        cards = self.hand_cards()
        if not cards:
            return
        pos = cards[self.cursor][0]
        self.selected ^= {pos}
        self.move_cursor(1)

    def cursor_card(self) -> Card | None:
        cards = self.hand_cards()
        if not cards:
            return None
        return cards[min(self.cursor, len(cards) - 1)][1]

    def selected_cards(self) -> list[Card]:
        """The selected cards in hand order (what `meld`/`attach` use with no card typed)."""
        return [c for p, c in self.hand_cards() if p in self.selected]

    def card_by_index(self, index: int) -> Card:
        """The n-th card of the hand as shown (1-based), for `play 2` / `discard 3`."""
        cards = self.hand_cards()
        if not 1 <= index <= len(cards):
            raise ConsoleError(self.t("err.no_card_number", n=index, k=len(cards)))
        return cards[index - 1][1]

    # ------------------------------------------------------------------ text helpers
    def deck_style(self) -> str | None:
        """The deck's display style (Briscola: napoletane, piacentine, french)."""
        st = self.view_state
        return getattr(getattr(st, "rules", None), "display", None)

    def card_label(self, card: Card) -> str:
        """A card as this console shows it everywhere (cardnames.card_label)."""
        return cardnames.card_label(card, self.game, self.deck_style())

    def card_name(self, card: Card) -> str:
        """A card's spoken name in the console's language and the rule set's words
        (cardnames.card_name)."""
        return cardnames.card_name(card, self.game, self.lang, self.deck_style(),
                                   self.rule_names())

    def rule_names(self) -> dict[str, str] | None:
        """The Burraco rule set's own words (pinella, jolly, …): from the hand's rules,
        else from the variant we were told; None while neither is known."""
        names = getattr(getattr(self.view_state, "rules", None), "names", None)
        if names is None and self.game == "burraco" and self.variant:
            from ..games.burraco.rules import PRESETS

            preset = PRESETS.get(self.variant)
            names = preset.names if preset is not None else None
        return dict(names) if names else None

    def display_text(self, text: str) -> str:
        """Console words or an engine message with its card words shown as labels
        (`meld 7♥ 8♥ 9♥`, `refused: 9 coppe is not in your hand`)."""
        st = self.view_state
        parse = getattr(getattr(st, "deck", None), "parse", None)
        if parse is None:
            return text
        return cardnames.name_cards(text, parse, self.game, self.deck_style())

    def refusal(self, exc: RuleViolation) -> str:
        """A refusal as a player reads it: the engine's words in the console's language,
        cards named as on screen; the rule id waits for `why`."""
        self.last_refusal = exc
        return self.t("err.refused", why=self.player_text(exc.message))

    def step_text(self, text: str) -> str:
        """Console words (`meld 7h 8h 9h`) as shown: verbs in the language, cards labelled."""
        return self.display_text(verb_words(self.lang, text, hint=True))

    def reason_text(self, reason: str | None) -> str:
        """Why a hand ended, or which clock ran out, in words (`closed` → `chiusura`)."""
        from .catalog import word

        return word(self.lang, reason or "end")

    def verdict_text(self, verdict: str) -> str:
        """The audit's verdict: `fair` in the language; anything else as a player reads it."""
        return self.t("word.fair") if verdict == "fair" else self.player_text(verdict)

    def log_line(self, text: str, style: str = "") -> None:
        for part in text.splitlines() or [""]:
            self._append(LogLine(part, style))

    def _append(self, line: LogLine) -> None:
        self.log.append(line)
        self._log_count += 1

    def result_lines(self, outcome: HandOutcome) -> list[str]:
        res = outcome.result
        lines = []
        for side, pts, breakdown in zip(res.sides, res.points, res.breakdown):
            who = " + ".join(self.seat_name(s) for s in side)
            lines.append(f"{who}: {pts:+d}")
            for ln in breakdown:     # the engine's lines, in words, cards named as on screen
                lines.append(f"   {self.player_text(ln.label):<28} {ln.points:+5d}")
        return lines

    def score_sheet(self) -> list[str]:
        """One line per hand played: each side's points and its running total
        (`h2  A +120 = 710 · B -35 = 85`)."""
        running: dict[tuple[int, ...], int] = {}
        letters: dict[tuple[int, ...], str] = {}
        lines = []
        for outcome in self.outcomes:
            res = outcome.result
            parts = []
            for side, pts in zip(res.sides, res.points):
                key = tuple(side)
                letters.setdefault(key, self.side_letter(len(letters)))
                running[key] = running.get(key, 0) + pts
                parts.append(f"{letters[key]} {pts:+d} = {running[key]}")
            lines.append(f"{self.t('title.hand_short', n=outcome.number):<4} "
                         + " · ".join(parts))
        legend = " · ".join(f"{letter} {'+'.join(self.seat_name(s) for s in side)}"
                            for side, letter in letters.items())
        return lines + [legend]

    def totals(self) -> tuple[list[list[int]], list[int]]:
        """Sides and match totals (from the table's standings, or summed here)."""
        st = self.standings or {}
        sides = st.get("sides")
        totals = st.get("totals")
        if isinstance(sides, list) and isinstance(totals, list):
            return [list(s) for s in sides], [int(t) for t in totals]
        return [], []

    def side_letter(self, side_index: int) -> str:
        return "ABCDEF"[side_index] if side_index < 6 else str(side_index)

    def score_brief(self) -> str:
        """Scores for the title bar: `A 120 · B 340 → 2005` (A is our side when known)."""
        sides, totals = self.totals()
        if not sides:
            return ""
        parts = []
        for i, (side, total) in enumerate(zip(sides, totals)):
            mark = "*" if self.seat in side else ""
            parts.append(f"{self.side_letter(i)}{mark} {total}")
        target = self.target if self.target is not None else (self.standings or {}).get("target")
        if target is None and self.one_hand_match():
            return " · ".join(parts) + self.t("title.one_hand")     # buraco: BURACO-16
        return " · ".join(parts) + (f" → {target}" if target is not None else "")

    def one_hand_match(self) -> bool:
        """A Burraco match of one hand (a preset with no target, as buraco's BURACO-16):
        the table says so where another shows its target."""
        st = self.standings or {}
        return self.game == "burraco" and "target" in st and st["target"] is None \
            and self.target is None

    def standings_text(self) -> str:
        sides, totals = self.totals()
        if not sides:
            return self.t("score.none")
        parts = [f"{'+'.join(self.seat_name(s) for s in side)} {pts}"
                 for side, pts in zip(sides, totals)]
        line = " | ".join(parts)
        target = self.target if self.target is not None else (self.standings or {}).get("target")
        if target is not None:
            line += self.t("score.target", n=target)
        elif self.one_hand_match():
            line += self.t("score.one_hand")
        winner = (self.standings or {}).get("winner")
        if self.match_over and isinstance(winner, int) and winner < len(sides):
            line += self.t("score.winner",
                           who="+".join(self.seat_name(s) for s in sides[winner]))
        return line

    def _accumulate(self, result: HandResult) -> None:
        sides, totals = self.totals()
        if [list(s) for s in result.sides] != sides:
            sides, totals = [list(s) for s in result.sides], [0] * len(result.sides)
        totals = [t + p for t, p in zip(totals, result.points)]
        st = dict(self.standings or {})
        st.update({"sides": sides, "totals": totals, "hands": len(self.outcomes)})
        if self.target is not None:
            st.setdefault("target", self.target)
        self.standings = st

    def quit(self) -> None:
        """Leave the table: at once when nothing is at stake, else after a confirmation
        (`quit_question`); a confirmed quit mid-match is an `abandon` (TABLE-9)."""
        if self.match_in_progress():
            self.confirming = "quit"
            self.error = None
            self.message = self.quit_question()
            self.invalidate()
            return
        self._leave()

    def match_in_progress(self) -> bool:
        """A match we are part of is on (a hand dealt, the match not over, the link up)."""
        return (self.hand_no > 0 and not self.match_over and not self.abandoned
                and self.failure is None and self.fault is None
                and self.status != "disconnected")

    def quit_question(self) -> str:
        """What leaving costs, asked before it happens (in the console's language)."""
        return self.t(QUIT_QUESTION if self.on_abandon is not None else QUIT_QUESTION_OFFLINE)

    def _leave(self) -> None:
        """Quit for good; mid-match at a networked table, sign `abandon` first."""
        if self.match_in_progress() and self.on_abandon is not None:
            self._abandon()
        self.quit_requested = True
        self.on_quit()


_SEAT_RE = re.compile(r"(?<!\w)seat (\d+)\b(?! of)")
"""A bare `seat N` in a table's log line (not one already beside a name, in brackets)."""
_TIMEOUT_RE = re.compile(r"^seat (\d+) ran out of time \((\w+)\)$")


def is_host_fault(text: str) -> bool:
    """A line saying the host is at fault (TABLE-10): the match stops for us."""
    low = text.lower()
    return "host is at fault" in low or "table-10" in low


def link_state(text: str) -> str:
    """A status line from the network, boiled down to the word the title bar shows."""
    low = text.lower()
    for words, state in ((("lost", "reconnect", "unreachable", "retrying"), "reconnecting…"),
                         (("released", "disconnect", "failed", "refused"), "disconnected"),
                         (("connected", "back at", "seat"), "online")):
        if any(w in low for w in words):
            return state
    return text[:24]


def cards_text(cards: Iterable[Card]) -> str:
    """Cards as typed words (what parse_action reads)."""
    return " ".join(str(c) for c in cards)

