"""The console's commands, registered once (pyvim's `commands/`): the table below is where
`help` and tab completion come from, and where typed words — English or Italian — are
dispatched.

A command turns words into the engine's notation and asks the model to stage or send it;
it never decides legality (that is `apply` on a copy, inside the model).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..cardnames import LANGS
from ..games.base import RuleViolation
from ..games.cards import Card, NotationError
from .model import ConsoleError, ConsoleModel, cards_text

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
    """The help in Italian (shown with --lang it, and beside the English in `help CMD`)."""
    examples: tuple[str, ...] = ()
    """Lines a person can type as they are (`help CMD` lists them)."""

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
            help_it: str = "", examples: Sequence[str] = ()) -> Callable[[Handler], Handler]:
    """Register a command (decorator). A word may name only one command."""

    def register(fn: Handler) -> Handler:
        cmd = Command(name, tuple(aliases), args, help, fn, complete, tuple(games), key,
                      intent, help_it, tuple(examples))
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
        model.error = model.refusal(exc)
        return False
    except (ConsoleError, ValueError, LookupError) as exc:  # unreadable words, unknown cards
        model.error = model.display_text(str(exc))
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
        return False, model.refusal(exc)
    except (ConsoleError, ValueError, LookupError) as exc:
        if not line[-1].isspace():
            return None  # mid-word: wait for the card to be typed whole
        return False, model.display_text(str(exc))
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
    """The cards typed — names, or numbers of the hand as shown (`meld 1 2 3`) — else the
    selected ones."""
    if args:
        return " ".join(by_number(model, args))
    chosen = model.selected_cards()
    if not chosen:
        raise ConsoleError(f"{what} which cards? type them (e.g. 7h 8h 9h) or select them "
                           "with ←/→ and Space")
    return cards_text(chosen)


def by_number(model: ConsoleModel, words: list[str]) -> list[str]:
    """Words with each number of the hand as shown (1-based) replaced by that card's
    notation; a number names each card once (`meld 3 3 4` is refused)."""
    out: list[str] = []
    seen: set[int] = set()
    for word in words:
        if word.isdigit():
            n = int(word)
            if n in seen:
                raise ConsoleError(f"card number {n} is typed twice")
            seen.add(n)
            out.append(str(model.card_by_index(n)))
        else:
            out.append(word)
    return out


def _one_card(model: ConsoleModel, args: list[str], what: str) -> str:
    """One card from the words (a card, or its number in the hand as shown), else the one
    selected card, else the card under the cursor."""
    if len(args) == 2 and not any(a.isdigit() for a in args[1:]):
        args = [" ".join(args)]            # a card named in two words: `play 9 coppe`
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
         games=("burraco",), key="F2", intent=True, help_it="pesca dal tallone",
         examples=("draw", "pesca"))
def _draw(model: ConsoleModel, args: list[str]) -> Intent:
    if args:
        raise ConsoleError("draw takes no card: it is the top of the stock")
    return Intent("act", "draw")


@command("take", aliases=("raccogli", "prendi"), args="[top|meld]",
         help="take the whole discard pile; `take top`: only its top card (where the rules "
              "allow it); `take meld CARDS`: take it and open with those cards at once",
         games=("burraco",), key="F3", intent=True,
         help_it="raccogli tutti gli scarti; `raccogli cima`: solo la carta in cima; "
                 "`raccogli cala CARTE`: raccogli e apri subito con quelle carte",
         examples=("take", "take top", "take meld 7h 8h 9h", "take meld 1 2 3 / Ks Kd Kc",
                   "raccogli cima"))
def _take(model: ConsoleModel, args: list[str]) -> Intent:
    # The words (`top`/`cima`, `meld`/`cala`/`+`) are the engine's to read; the console only
    # turns hand numbers into cards (no other word of a take is a number).
    return Intent("act", " ".join(["take", *by_number(model, args)]))


@command("meld", aliases=("cala", "calo"), args="CARDS",
         help="stage a new meld (typed, numbered or selected cards; / between groups)",
         complete=complete_cards, games=("burraco",), key="F4", intent=True,
         help_it="prepara una nuova combinazione (carte scritte, numeri o selezionate)",
         examples=("meld 7h 8h 9h", "meld 1 2 3", "meld JK 7s 8s", "meld 5h 5c 2h",
                   "meld 7h 8h 9h / Ks Kd Kc", "cala 4 5 6"))
def _meld(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("stage", "meld " + _cards_or_selection(model, args, "meld"))


@command("attach", aliases=("attacca", "aggiungi"), args="N CARDS",
         help="stage cards onto our meld #N (the number on the table; low/high says "
              "where a wild goes when you may choose)", complete=complete_attach,
         games=("burraco",), key="F5", intent=True,
         help_it="attacca carte alla nostra combinazione #N",
         examples=("attach 3 10h", "attach 3 7", "attach 2 JK high", "attach 10h",
                   "attacca 3 10h"))
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
                           f"the last one says: {model.refusal(last)}")
    raise ConsoleError("your side has no meld to attach to yet")


@command("discard", aliases=("scarta", "scarto"), args="CARD",
         help="discard, ending the turn (sends the staged)",
         complete=complete_one_card, games=("burraco",), key="F6", intent=True,
         help_it="scarta una carta e chiudi il turno (manda le preparate)",
         examples=("discard 5", "discard Qs", "scarta 12"))
def _discard(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("act", "discard " + _one_card(model, args, "discard"))


@command("play", aliases=("gioca", "gioco"), args="CARD|N",
         help="play a card, or its number in your hand",
         complete=complete_one_card, games=("briscola",), key="Enter", intent=True,
         help_it="gioca una carta, o il suo numero nella mano",
         examples=("play 2", "play 1d", "play 9 coppe", "gioca 3"))
def _play(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("act", "play " + _one_card(model, args, "play"))


@command("redraw", aliases=("ripesca", "ripesco"),
         help="1st turn (modificato): put back, draw again", games=("burraco",),
         intent=True, help_it="primo turno (modificato): rimetti la carta e ripesca",
         examples=("redraw",))
def _redraw(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("act", "redraw")


@command("send", aliases=("invia", "manda"), help="lay the staged steps down now",
         games=("burraco",), key="F7", help_it="cala ora le combinazioni preparate",
         examples=("send",))
def _send(model: ConsoleModel, args: list[str]) -> None:
    model.send()


@command("undo", aliases=("annulla",), help="unstage the last step",
         games=("burraco",), key="F8", help_it="togli l'ultima preparata",
         examples=("undo",))
def _undo(model: ConsoleModel, args: list[str]) -> None:
    model.undo()


@command("clear", aliases=("svuota",), help="empty the staging area and selection",
         games=("burraco",), key="F9", help_it="svuota le preparate e la selezione",
         examples=("clear",))
def _clear(model: ConsoleModel, args: list[str]) -> None:
    model.clear_stage()


@command("select", aliases=("scegli",), args="CARDS",
         help="toggle cards in the selection", complete=complete_cards,
         help_it="seleziona o deseleziona carte", examples=("select 1 2 3", "select 7h JK",
                                                            "select"))
def _select(model: ConsoleModel, args: list[str]) -> None:
    if not args:
        model.selected.clear()
        model.message = "selection cleared"
        return
    st = model.view_state
    if st is None:
        raise ConsoleError("no hand in progress yet")
    hand = model.hand_cards()
    for card in st.deck.parse_many(by_number(model, args)):
        free = [p for p, c in hand if c == card and p not in model.selected]
        chosen = [p for p, c in hand if c == card]
        if free:
            model.selected.add(free[0])
        elif chosen:
            model.selected.discard(chosen[0])
        else:
            raise ConsoleError(f"{card} is not in your hand")


@command("help", aliases=("aiuto", "?"), args="[COMMAND]",
         help="this list, or one command explained with examples",
         complete=lambda m, typed: [] if typed else [c.name for c in commands_for(m.game)],
         key="F1", help_it="questo elenco, o un comando spiegato con esempi",
         examples=("help", "help take", "aiuto scarta"))
def _help(model: ConsoleModel, args: list[str]) -> None:
    model.help_text = help_lines(model.game, args[0] if args else None, model.lang)
    model.panel, model.panel_scroll = "help", 0


@command("score", aliases=("punti", "punteggio"),
         help="the score sheet: every hand's breakdown and the running totals", key="F10",
         help_it="il foglio dei punti: ogni mano e i totali", examples=("score",))
def _score(model: ConsoleModel, args: list[str]) -> None:
    model.panel, model.panel_scroll = "score", 0


@command("recent", aliases=("partite",), help="the latest finished matches, from the history "
         "[HIST-1]", help_it="le ultime partite giocate", examples=("recent", "partite"))
def _recent(model: ConsoleModel, args: list[str]) -> None:
    from ..table.match_record import recent_lines

    if args:
        raise ConsoleError("recent takes no words: type recent (partite)")
    model.help_text = recent_lines(model.data_dir)
    model.panel, model.panel_scroll = "recent", 0


@command("abandon", aliases=("abbandona",),
         help="give up the match: your side loses it (asks first) [TABLE-9]",
         help_it="abbandona la partita: la tua squadra la perde (chiede conferma)",
         examples=("abandon", "abbandona"))
def _abandon(model: ConsoleModel, args: list[str]) -> None:
    if args:
        raise ConsoleError("abandon takes no words: type abandon, then confirm")
    model.ask_abandon()


@command("sort", aliases=("ordina",), help="sort your hand by suit or by rank (toggles)",
         key="C-s", help_it="ordina la mano per seme o per valore", examples=("sort",))
def _sort(model: ConsoleModel, args: list[str]) -> None:
    if args:
        model.set_option("sort", args[0].lower())
    else:
        model.toggle_sort()


@command("set", aliases=("imposta",), args="WHAT on|off",
         help="console switches: bell, title (your turn), mouse (wheel scrolls the log), "
              "panel (the seats-and-log column: off gives the table the whole width), "
              "lang it|en, sort suit|rank",
         complete=lambda m, typed: ["bell", "title", "mouse", "panel", "lang", "sort"]
         if not typed
         else (list(LANGS) if typed[0] == "lang" else ["suit", "rank"] if typed[0] == "sort"
               else ["on", "off"]),
         help_it="interruttori: campanello, titolo, mouse, pannello, lingua it|en, "
                 "ordina seme|valore",
         examples=("set bell off", "set title on", "set mouse off", "set panel off",
                   "set lang it", "set sort rank"))
def _set(model: ConsoleModel, args: list[str]) -> None:
    if len(args) != 2:
        raise ConsoleError("set takes two words, e.g. set bell off")
    model.set_option(args[0].lower(), args[1].lower())


@command("say", aliases=("scrivi", "chat"), args="TEXT",
         help="a chat line to everyone at the table (signed; up to 200 characters)",
         help_it="un messaggio a tutto il tavolo (firmato; fino a 200 caratteri)",
         examples=("say good luck!", "scrivi bella mano"))
def _say(model: ConsoleModel, args: list[str]) -> None:
    if not args:
        raise ConsoleError("say what? e.g. say good luck!")
    model.say(" ".join(args))


@command("quit", aliases=("esci", "exit"),
         help="leave the table (mid-match it asks first: leaving then abandons the match)",
         key="C-q", help_it="lascia il tavolo (a partita in corso chiede conferma)",
         examples=("quit", "esci"))
def _quit(model: ConsoleModel, args: list[str]) -> None:
    model.quit()


def short_help(cmd: Command, italian: bool = False) -> str:
    """A command's help up to its first `;` or `(`: the one line of the list (`help CMD`
    has the rest)."""
    text = cmd.help_it if italian and cmd.help_it else cmd.help
    for mark in ("; ", " ("):
        text = text.split(mark)[0]
    return text


def help_lines(game: str | None, word: str | None = None, lang: str = "en") -> list[str]:
    """Help built from the command table (the same table completion uses): every command
    with its key, how to type cards (jokers, pinelle, numbers), and the keys."""
    from ..cardnames import typing_help

    italian = lang == "it"
    if word is not None:
        cmd = lookup(word)
        if cmd is None:
            raise ConsoleError(f"no command '{word}': type help for the list")
        lines = [f"{cmd.usage()}  —  {cmd.help_it if italian and cmd.help_it else cmd.help}"]
        if cmd.help_it and not italian:
            lines.append("in italiano: " + cmd.help_it)
        if cmd.aliases:
            lines.append(("anche: " if italian else "also: ") + ", ".join(cmd.aliases))
        if cmd.key:
            lines.append(("tasto: " if italian else "key: ") + cmd.key)
        if cmd.examples:
            lines.append("esempi:" if italian else "examples:")
            lines += [f"  {ex}" for ex in cmd.examples]
        if cmd.intent or cmd.name == "select":
            lines += typing_help(game, lang)
        return lines
    cmds = commands_for(game)
    lines = [f"{cmd.usage():<15} {cmd.key:<5} " + short_help(cmd, italian) for cmd in cmds]
    if game in (None, "burraco"):
        lines.append("  e.g. take top · take meld 7h 8h 9h · meld 1 2 3 · attach 3 10h · "
                     "discard 5   (help CMD: more examples)")
    lines += typing_help(game, lang)
    if not italian:
        lines.append("Italian: " + ", ".join(f"{a}={c.name}" for c in cmds
                                             for a in c.aliases[:1]))
    lines.append("Tasti: ←/→ sulla mano, Spazio seleziona, Invio fa l'azione indicata, Tab "
                 "completa, ↑/↓ cronologia, PagSu/PagGiù o rotella scorrono il registro, Esc "
                 "chiude, Ctrl-S ordina, Ctrl-Q esce." if italian else
                 "Keys: ←/→ move over your hand, Space selects, Enter does the hinted action, "
                 "Tab completes, ↑/↓ history, PgUp/PgDn or the mouse wheel scroll the log, "
                 "Esc closes, Ctrl-S sorts, Ctrl-Q leaves. The number beside a card names it "
                 "(discard 5, meld 1 2 3); ✦ marks the card just drawn; +N▼ beside a seat: "
                 "a pozzetto it holds face down.")
    return lines
