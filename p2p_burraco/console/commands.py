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
from .words import t

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
    handler: Handler
    complete: Completer | None
    games: tuple[str, ...]
    key: str = ""
    intent: bool = False
    """True for game commands: the handler only returns an Intent (no side effects)."""

    @property
    def words(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def text(self, lang: str | None = "en") -> str:
        """The command's help in `lang` (catalog id `cmd.NAME`)."""
        return t(lang, f"cmd.{self.name}")

    @property
    def help(self) -> str:
        return self.text("en")

    def word(self, lang: str | None = "en") -> str:
        """The command's word in `lang`: its name, or its first Italian alias."""
        return self.aliases[0] if lang == "it" and self.aliases else self.name

    def args(self, lang: str | None = "en") -> str:
        return t(lang, f"cmd.{self.name}.args")

    def examples(self, lang: str | None = "en") -> tuple[str, ...]:
        """Lines a person can type as they are (`help CMD` lists them), in `lang`."""
        return tuple(e.strip() for e in t(lang, f"cmd.{self.name}.examples").split("|")
                     if e.strip())

    def usage(self, lang: str | None = "en") -> str:
        return f"{self.word(lang)} {self.args(lang)}".strip()


COMMANDS: dict[str, Command] = {}
"""name → command, in registration order (the order `help` lists them)."""
_BY_WORD: dict[str, Command] = {}


def command(name: str, *, aliases: Sequence[str] = (),
            complete: Completer | None = None, games: Sequence[str] = BOTH,
            key: str = "", intent: bool = False) -> Callable[[Handler], Handler]:
    """Register a command (decorator). A word may name only one command; its help, argument
    words and examples are the catalog's `cmd.NAME…` entries."""

    def register(fn: Handler) -> Handler:
        cmd = Command(name, tuple(aliases), fn, complete, tuple(games), key, intent)
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
        model.error = model.t("err.unknown_command", word=words[0]) if cmd is None else \
            model.t("err.not_game_command", word=words[0], game=model.game)
        return False
    if cmd.name not in ("help", "score", "why"):
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
        model.error = model.t("err.internal", kind=type(exc).__name__, text=exc)
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
    return True, model.t("msg.check_ok" if intent.mode == "stage" else "msg.check_ok_do",
                         step=model.step_text(intent.text))


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
                    out.append((word, short_help(cmd, model.lang == "it")
                                if word == cmd.word(model.lang) else f"= {cmd.word(model.lang)}"))
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
        raise ConsoleError(model.t("err.which_cards", what=_verb(model, what)))
    return cards_text(chosen)


def _verb(model: ConsoleModel, name: str) -> str:
    """A command's word in the console's language (`discard` / `scarta`)."""
    cmd = COMMANDS.get(name)
    return cmd.word(model.lang) if cmd is not None else name


def by_number(model: ConsoleModel, words: list[str]) -> list[str]:
    """Words with each number of the hand as shown (1-based) replaced by that card's
    notation; a number names each card once (`meld 3 3 4` is refused)."""
    out: list[str] = []
    seen: set[int] = set()
    for word in words:
        if word.isdigit():
            n = int(word)
            if n in seen:
                raise ConsoleError(model.t("err.card_twice", n=n))
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
        raise ConsoleError(model.t("err.one_card_not", what=_verb(model, what), n=len(args)))
    if args:
        word = args[0]
        if word.isdigit():
            return str(model.card_by_index(int(word)))
        return word
    chosen = model.selected_cards()
    if len(chosen) > 1:
        raise ConsoleError(model.t("err.one_card_selected", what=_verb(model, what),
                                   n=len(chosen)))
    card = chosen[0] if chosen else model.cursor_card()
    if card is None:
        raise ConsoleError(model.t("err.which_card_empty", what=_verb(model, what)))
    return str(card)


# ---------------------------------------------------------------------------- commands
@command("draw", aliases=("pesca", "pesco"), games=("burraco",), key="F2", intent=True)
def _draw(model: ConsoleModel, args: list[str]) -> Intent:
    if args:
        raise ConsoleError(model.t("err.draw_no_card"))
    return Intent("act", "draw")


@command("take", aliases=("raccogli", "prendi"), games=("burraco",), key="F3", intent=True)
def _take(model: ConsoleModel, args: list[str]) -> Intent:
    # The words (`top`/`cima`, `meld`/`cala`/`+`) are the engine's to read; the console only
    # turns hand numbers into cards (no other word of a take is a number).
    return Intent("act", " ".join(["take", *by_number(model, args)]))


@command("meld", aliases=("cala", "calo"), complete=complete_cards, games=("burraco",),
         key="F4", intent=True)
def _meld(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("stage", "meld " + _cards_or_selection(model, args, "meld"))


@command("attach", aliases=("attacca", "aggiungi"), complete=complete_attach,
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
        raise ConsoleError(model.t("err.fits_many", cards=cards,
                                   ids=", ".join(map(str, fits))))
    if last is not None:
        targets = ", ".join(f"#{n}" for n in presenter_for(model).attach_targets(model))
        raise ConsoleError(model.t("err.fits_none", ids=targets, cards=cards,
                                   why=model.refusal(last)))
    raise ConsoleError(model.t("err.no_meld_yet"))


@command("discard", aliases=("scarta", "scarto"), complete=complete_one_card,
         games=("burraco",), key="F6", intent=True)
def _discard(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("act", "discard " + _one_card(model, args, "discard"))


@command("play", aliases=("gioca", "gioco"), complete=complete_one_card,
         games=("briscola",), key="Enter", intent=True)
def _play(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("act", "play " + _one_card(model, args, "play"))


@command("redraw", aliases=("ripesca", "ripesco"), games=("burraco",), intent=True)
def _redraw(model: ConsoleModel, args: list[str]) -> Intent:
    return Intent("act", "redraw")


@command("send", aliases=("invia", "manda"), games=("burraco",), key="F7")
def _send(model: ConsoleModel, args: list[str]) -> None:
    model.send()


@command("undo", aliases=("annulla",), games=("burraco",), key="F8")
def _undo(model: ConsoleModel, args: list[str]) -> None:
    model.undo()


@command("clear", aliases=("svuota",), games=("burraco",), key="F9")
def _clear(model: ConsoleModel, args: list[str]) -> None:
    model.clear_stage()


@command("select", aliases=("scegli",), complete=complete_cards)
def _select(model: ConsoleModel, args: list[str]) -> None:
    if not args:
        model.selected.clear()
        model.message = model.t("msg.selection_cleared")
        return
    st = model.view_state
    if st is None:
        raise ConsoleError(model.t("err.no_hand"))
    hand = model.hand_cards()
    for card in st.deck.parse_many(by_number(model, args)):
        free = [p for p, c in hand if c == card and p not in model.selected]
        chosen = [p for p, c in hand if c == card]
        if free:
            model.selected.add(free[0])
        elif chosen:
            model.selected.discard(chosen[0])
        else:
            raise ConsoleError(model.t("err.not_in_hand", card=card))


@command("hint", aliases=("suggerimento", "suggerisci"), intent=False)
def _hint(model: ConsoleModel, args: list[str]) -> None:
    model.hint()


@command("rematch", aliases=("rivincita",))
def _rematch(model: ConsoleModel, args: list[str]) -> None:
    if args:
        raise ConsoleError(model.t("rematch.words"))
    model.ask_rematch()


@command("why", aliases=("perché", "perche"))
def _why(model: ConsoleModel, args: list[str]) -> None:
    model.help_text = model.why()
    model.panel, model.panel_scroll = "help", 0


@command("help", aliases=("aiuto", "?"), key="F1",
         complete=lambda m, typed: [] if typed else [c.name for c in commands_for(m.game)])
def _help(model: ConsoleModel, args: list[str]) -> None:
    model.help_text = help_lines(model.game, args[0] if args else None, model.lang)
    model.panel, model.panel_scroll = "help", 0


@command("score", aliases=("punti", "punteggio"), key="F10")
def _score(model: ConsoleModel, args: list[str]) -> None:
    model.panel, model.panel_scroll = "score", 0


@command("recent", aliases=("partite",))
def _recent(model: ConsoleModel, args: list[str]) -> None:
    from ..table.match_record import recent_lines

    if args:
        raise ConsoleError(model.t("err.recent_words"))
    model.help_text = [model.player_text(ln) for ln in recent_lines(model.data_dir)]
    model.panel, model.panel_scroll = "recent", 0


@command("abandon", aliases=("abbandona",))
def _abandon(model: ConsoleModel, args: list[str]) -> None:
    if args:
        raise ConsoleError(model.t("err.abandon_words"))
    model.ask_abandon()


@command("sort", aliases=("ordina",), key="C-s")
def _sort(model: ConsoleModel, args: list[str]) -> None:
    if args:
        model.set_option("sort", args[0].lower())
    else:
        model.toggle_sort()


@command("set", aliases=("imposta",),
         complete=lambda m, typed: ["bell", "title", "mouse", "panel", "lang", "sort"]
         if not typed
         else (list(LANGS) if typed[0] == "lang" else ["suit", "rank"] if typed[0] == "sort"
               else ["on", "off"]))
def _set(model: ConsoleModel, args: list[str]) -> None:
    if len(args) != 2:
        raise ConsoleError(model.t("err.set_two_words"))
    model.set_option(args[0].lower(), args[1].lower())


@command("say", aliases=("scrivi", "chat"))
def _say(model: ConsoleModel, args: list[str]) -> None:
    if not args:
        raise ConsoleError(model.t("err.say_what"))
    model.say(" ".join(args))


@command("quit", aliases=("esci", "exit"), key="C-q")
def _quit(model: ConsoleModel, args: list[str]) -> None:
    model.quit()


def short_help(cmd: Command, italian: bool = False) -> str:
    """A command's help up to its first `;` or `(`: the one line of the list (`help CMD`
    has the rest)."""
    text = cmd.text("it" if italian else "en")
    for mark in ("; ", " ("):
        text = text.split(mark)[0]
    return text


def key_name(key: str, lang: str | None) -> str:
    """A key as the help names it, in the console's language (`Enter` is `Invio`)."""
    return t(lang, "keys.enter") if key == "Enter" else key


def help_lines(game: str | None, word: str | None = None, lang: str = "en") -> list[str]:
    """Help built from the command table (the same table completion uses): every command
    with its key, how to type cards (jokers, pinelle, numbers), and the keys."""
    from ..cardnames import typing_help

    italian = lang == "it"
    if word is not None:
        cmd = lookup(word)
        if cmd is None:
            raise ConsoleError(t(lang, "err.no_help_for", word=word))
        lines = [f"{cmd.usage(lang)}  —  {cmd.text(lang)}"]
        # the other words for it: in Italian its Italian ones (English words work anyway)
        other = [w for w in (cmd.aliases if italian else cmd.words) if w != cmd.word(lang)]
        if other:
            lines.append(t(lang, "help.also") + ", ".join(other))
        if cmd.key:
            lines.append(t(lang, "help.key") + key_name(cmd.key, lang))
        examples = cmd.examples(lang)
        if examples:
            lines.append(t(lang, "help.examples"))
            lines += [f"  {ex}" for ex in examples]
        if cmd.intent or cmd.name == "select":
            lines += typing_help(game, lang)
        return lines
    cmds = commands_for(game)
    width = min(22, max(len(cmd.usage(lang)) for cmd in cmds))
    lines = [f"{cmd.usage(lang):<{width}} {key_name(cmd.key, lang):<5} "
             + short_help(cmd, italian) for cmd in cmds]
    if game in (None, "burraco"):
        lines.append(t(lang, "help.eg"))
    lines += typing_help(game, lang)
    if not italian:
        lines.append(t(lang, "help.aliases", pairs=", ".join(
            f"{a}={c.name}" for c in cmds for a in c.aliases[:1])))
    lines.append(t(lang, "help.keys"))
    return lines
