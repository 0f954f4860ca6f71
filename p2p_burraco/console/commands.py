"""The console's commands, registered once (pyvim's `commands/`): the table below is where
`help` and tab completion come from, and where typed words — English or Italian — are
dispatched.

A command turns words into the engine's notation and asks the model to stage or send it;
it never decides legality (that is `apply` on a copy, inside the model).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..games.base import RuleViolation
from ..games.cards import Card, NotationError
from .model import ConsoleError, ConsoleModel, cards_text, format_violation

BOTH = ("burraco", "briscola")


@dataclass(frozen=True)
class Intent:
    """What a game command asks for, in the engine's words: `stage` a step (meld, attach)
    or `act` now (draw, take, discard, play — ending what was staged). Handlers that return
    one have no side effects, so the same handler serves the live check while typing."""

    mode: str
    text: str


Handler = Callable[[ConsoleModel, list[str]], "Intent | None"]
Completer = Callable[[ConsoleModel, list[str]], Iterable[str]]
"""(model, the words typed so far before the one being completed) → candidate words."""


@dataclass(frozen=True)
class Command:
    """One console command: its English name, Italian words, argument shape and help."""

    name: str
    aliases: tuple[str, ...]
    args: str
    help: str
    handler: Handler
    complete: Completer | None
    games: tuple[str, ...]
    key: str = ""
    intent: bool = False
    """True for game commands: the handler only returns an Intent (no side effects)."""
    help_it: str = ""
    """The help in Italian, where the English words alone would not do."""

    @property
    def words(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def usage(self) -> str:
        return f"{self.name} {self.args}".strip()


COMMANDS: dict[str, Command] = {}
"""name → command, in registration order (the order `help` lists them)."""
_BY_WORD: dict[str, Command] = {}


def command(name: str, *, aliases: Sequence[str] = (), args: str = "", help: str,
            complete: Completer | None = None, games: Sequence[str] = BOTH,
            key: str = "", intent: bool = False,
            help_it: str = "") -> Callable[[Handler], Handler]:
    """Register a command (decorator). A word may name only one command."""

    def register(fn: Handler) -> Handler:
        cmd = Command(name, tuple(aliases), args, help, fn, complete, tuple(games), key,
                      intent, help_it)
        for word in cmd.words:
            if word in _BY_WORD:
                raise ValueError(f"console word {word!r} registered twice")
            _BY_WORD[word] = cmd
        COMMANDS[name] = cmd
        return fn

    return register


def lookup(word: str) -> Command | None:
    """The command a typed word names (English or Italian, any case)."""
    return _BY_WORD.get(word.lower())


def commands_for(game: str | None) -> list[Command]:
    return [c for c in COMMANDS.values() if game is None or game in c.games]


def run_command(model: ConsoleModel, line: str) -> bool:
    """Run one typed line. Errors — unknown words, a refused action with its rule id —
    land in `model.error` and change nothing. Returns True when the line was accepted."""
    if model.confirming is not None:
        # a question waits (abandon?): this line answers it, and nothing else is run
        return model.answer(line)
    words = line.split()
    if not words:
        return False
    cmd = lookup(words[0])
    model.error = None
    if cmd is None or (model.game is not None and model.game not in cmd.games):
        what = "unknown command" if cmd is None else f"'{words[0]}' is not a {model.game} command"
        model.error = f"{what}: '{words[0]}' — type help (aiuto) for the list"
        return False
    if cmd.name not in ("help", "score"):
        model.panel = None
    try:
        intent = cmd.handler(model, words[1:])
        if intent is not None:
            (model.stage if intent.mode == "stage" else model.act)(intent.text)
    except RuleViolation as exc:
        model.error = format_violation(exc)
        return False
    except (ConsoleError, ValueError, LookupError) as exc:  # unreadable words, unknown cards
        model.error = str(exc)
        return False
    except Exception as exc:  # noqa: BLE001 — a bug must not close the person's table: show it, go on
        model.error = f"internal error ({type(exc).__name__}): {exc}"
        model.log_line(model.error, "log.error")
        return False
    return True


def dry_run(model: ConsoleModel, line: str) -> tuple[bool, str] | None:
    """Check a half-typed game command on a copy, without staging or sending anything:
    (accepted?, what to show) — or None when there is nothing to say yet."""
    words = line.split()
    if not words or not model.my_turn or model.confirming is not None:
        return None
    cmd = lookup(words[0])
    if cmd is None or not cmd.intent or (model.game is not None and model.game not in cmd.games):
        return None
    try:
        intent = cmd.handler(model, words[1:])
        if intent is None:
            return None
        model.try_step(intent.text)
    except RuleViolation as exc:
        return False, format_violation(exc)
    except (ConsoleError, ValueError, LookupError) as exc:
        if not line[-1].isspace():
            return None  # mid-word: wait for the card to be typed whole
        return False, str(exc)
    verb = "stages" if intent.mode == "stage" else "does"
    return True, f"✓ {model.display_text(intent.text)} — Enter {verb} it"


# ---------------------------------------------------------------------------- completion
def complete_line(model: ConsoleModel, text: str) -> list[tuple[str, str]]:
    """Completions for the word being typed at the end of `text`: (word, description).
    Command words come from the table; arguments from the command's own completer."""
    words = text.split()
    if not text or text[-1].isspace():
        words.append("")
    if len(words) == 1:
        prefix = words[0].lower()
        out = []
        for cmd in commands_for(model.game):
            for word in cmd.words:
                if word.startswith(prefix):
                    out.append((word, cmd.help if word == cmd.name else f"= {cmd.name}"))
        return out
    named = lookup(words[0])
    if named is None or named.complete is None:
        return []
    prefix = words[-1].lower()
    seen: set[str] = set()
    out = []
    for cand in named.complete(model, words[1:-1]):
        if cand.lower().startswith(prefix) and cand not in seen:
            seen.add(cand)
            out.append((cand, ""))
    return out


def _hand_words(model: ConsoleModel, typed: list[str]) -> list[str]:
    """Cards of the hand not yet typed on this line (a card held twice is offered twice)."""
    left: list[Card] = [c for _, c in model.hand_cards()]
    st = model.view_state
    for word in typed:
        try:
            card = st.deck.parse(word) if st is not None else None
        except NotationError:
            continue
        if card in left:
            left.remove(card)
    return [str(c) for c in left]


def complete_cards(model: ConsoleModel, typed: list[str]) -> list[str]:
    return _hand_words(model, typed)


def complete_one_card(model: ConsoleModel, typed: list[str]) -> list[str]:
    """One card: its words, or its number in the hand as shown (`play 2`)."""
    if typed:
        return []
    numbers = [str(i + 1) for i in range(len(model.hand_cards()))]
    return numbers + _hand_words(model, typed) if model.game == "briscola" else \
        _hand_words(model, typed)


def complete_attach(model: ConsoleModel, typed: list[str]) -> list[str]:
    if not typed:
        from .views import presenter_for
        return [str(n) for n in presenter_for(model).attach_targets(model)]
    return _hand_words(model, typed[1:])


# ---------------------------------------------------------------------------- helpers
def _cards_or_selection(model: ConsoleModel, args: list[str], what: str) -> str:
    if args:
        return " ".join(args)
    chosen = model.selected_cards()
    if not chosen:
        raise ConsoleError(f"{what} which cards? type them (e.g. 7h 8h 9h) or select them "
                           "with ←/→ and Space")
    return cards_text(chosen)


def _one_card(model: ConsoleModel, args: list[str], what: str) -> str:
    """One card from the words (a card, or its number in the hand as shown), else the one
    selected card, else the card under the cursor."""
    if len(args) > 1:
        raise ConsoleError(f"{what} one card, not {len(args)}")
    if args:
        word = args[0]
        if word.isdigit():
            return str(model.card_by_index(int(word)))
        return word
    chosen = model.selected_cards()
    if len(chosen) > 1:
        raise ConsoleError(f"{what} one card: {len(chosen)} are selected")
    card = chosen[0] if chosen else model.cursor_card()
    if card is None:
        raise ConsoleError(f"{what} which card? your hand is empty")
    return str(card)


# ---------------------------------------------------------------------------- commands
@command("draw", aliases=("pesca", "pesco"), help="draw from the stock",
         games=("burraco",), key="F2", intent=True)
def _draw(model: ConsoleModel, args: list[str]) -> Intent:
    if args:
        raise ConsoleError("draw takes no card: it is the top of the stock")
    return Intent("act", "draw")


@command("take", aliases=("raccogli", "prendi"), help="take the whole discard pile",
         games=("burraco",), key="F3", intent=True)
def _take(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("act", " ".join(["take", *args]))


@command("meld", aliases=("cala", "calo"), args="CARDS",
         help="stage a new meld (typed or selected cards)", complete=complete_cards,
         games=("burraco",), key="F4", intent=True)
def _meld(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("stage", "meld " + _cards_or_selection(model, args, "meld"))


@command("attach", aliases=("attacca", "aggiungi"), args="N CARDS",
         help="stage cards onto our meld #N", complete=complete_attach,
         games=("burraco",), key="F5", intent=True)
def _attach(model: ConsoleModel, args: list[str]) -> Intent:
    from .views import presenter_for
    if args and args[0].isdigit():
        return Intent("stage", f"attach {args[0]} " +
                      _cards_or_selection(model, args[1:], "attach"))
    cards = _cards_or_selection(model, args, "attach")
    # No meld named: ask the engine which of our melds takes these cards.
    fits = []
    last: RuleViolation | None = None
    for n in presenter_for(model).attach_targets(model):
        try:
            model.try_step(f"attach {n} {cards}")
        except RuleViolation as exc:
            last = exc
            continue
        fits.append(n)
    if len(fits) == 1:
        return Intent("stage", f"attach {fits[0]} {cards}")
    if fits:
        raise ConsoleError(f"{cards} fits melds {', '.join(map(str, fits))}: "
                           f"type attach N {cards}")
    if last is not None:
        targets = ", ".join(f"#{n}" for n in presenter_for(model).attach_targets(model))
        raise ConsoleError(f"none of our melds ({targets}) takes {cards}; "
                           f"the last one says: {format_violation(last)}")
    raise ConsoleError("your side has no meld to attach to yet")


@command("discard", aliases=("scarta", "scarto"), args="CARD",
         help="discard, ending the turn (sends the staged)",
         complete=complete_one_card, games=("burraco",), key="F6", intent=True)
def _discard(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("act", "discard " + _one_card(model, args, "discard"))


@command("play", aliases=("gioca", "gioco"), args="CARD|N",
         help="play a card, or its number in your hand",
         complete=complete_one_card, games=("briscola",), key="Enter", intent=True)
def _play(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("act", "play " + _one_card(model, args, "play"))


@command("redraw", aliases=("ripesca", "ripesco"), help="1st turn (modificato): put back, draw again", games=("burraco",),
         intent=True)
def _redraw(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("act", "redraw")


@command("send", aliases=("invia", "manda"), help="lay the staged steps down now",
         games=("burraco",), key="F7")
def _send(model: ConsoleModel, args: list[str]) -> None:
    model.send()


@command("undo", aliases=("annulla",), help="unstage the last step",
         games=("burraco",), key="F8")
def _undo(model: ConsoleModel, args: list[str]) -> None:
    model.undo()


@command("clear", aliases=("svuota",), help="empty the staging area and selection",
         games=("burraco",), key="F9")
def _clear(model: ConsoleModel, args: list[str]) -> None:
    model.clear_stage()


@command("select", aliases=("scegli",), args="CARDS",
         help="toggle cards in the selection", complete=complete_cards)
def _select(model: ConsoleModel, args: list[str]) -> None:
    if not args:
        model.selected.clear()
        model.message = "selection cleared"
        return
    st = model.view_state
    if st is None:
        raise ConsoleError("no hand in progress yet")
    hand = model.hand_cards()
    for card in st.deck.parse_many(args):
        free = [p for p, c in hand if c == card and p not in model.selected]
        chosen = [p for p, c in hand if c == card]
        if free:
            model.selected.add(free[0])
        elif chosen:
            model.selected.discard(chosen[0])
        else:
            raise ConsoleError(f"{card} is not in your hand")


@command("help", aliases=("aiuto", "?"), args="[COMMAND]", help="this list, or one command explained",
         complete=lambda m, typed: [] if typed else [c.name for c in commands_for(m.game)], key="F1")
def _help(model: ConsoleModel, args: list[str]) -> None:
    model.help_text = help_lines(model.game, args[0] if args else None)
    model.panel = "help"


@command("score", aliases=("punti", "punteggio"), help="standings and the last hand's score", key="F10")
def _score(model: ConsoleModel, args: list[str]) -> None:
    model.panel = "score"


@command("recent", aliases=("partite",), help="the latest finished matches, from the history "
         "[HIST-1]", help_it="le ultime partite giocate")
def _recent(model: ConsoleModel, args: list[str]) -> None:
    from ..table.match_record import recent_lines

    if args:
        raise ConsoleError("recent takes no words: type recent (partite)")
    model.help_text = recent_lines(model.data_dir)
    model.panel = "recent"


@command("abandon", aliases=("abbandona",),
         help="give up the match: your side loses it (asks first) [TABLE-9]",
         help_it="abbandona la partita: la tua squadra la perde (chiede conferma)")
def _abandon(model: ConsoleModel, args: list[str]) -> None:
    if args:
        raise ConsoleError("abandon takes no words: type abandon, then confirm")
    model.ask_abandon()


@command("quit", aliases=("esci", "exit"), help="leave the table", key="C-q")
def _quit(model: ConsoleModel, args: list[str]) -> None:
    model.quit()


def help_lines(game: str | None, word: str | None = None) -> list[str]:
    """Help built from the command table (the same table completion uses)."""
    if word is not None:
        cmd = lookup(word)
        if cmd is None:
            raise ConsoleError(f"no command '{word}'")
        lines = [f"{cmd.usage()}  —  {cmd.help}"]
        if cmd.help_it:
            lines.append("in italiano: " + cmd.help_it)
        if cmd.aliases:
            lines.append("also: " + ", ".join(cmd.aliases))
        if cmd.key:
            lines.append("key: " + cmd.key)
        return lines
    cmds = commands_for(game)
    lines = [f"{cmd.usage():<15}{cmd.key:<6}{cmd.help}" +
             (f" · {cmd.help_it}" if cmd.help_it else "") for cmd in cmds]
    lines.append("Italian: " + ", ".join(f"{a}={c.name}" for c in cmds for a in c.aliases[:1]))
    lines.append("Keys: ←/→ move over your hand, Space selects, Enter does the hinted action, "
                 "Tab completes, ↑/↓ history, Esc closes. A number names a card of your hand "
                 "as shown (play 2, discard 5).")
    return lines
