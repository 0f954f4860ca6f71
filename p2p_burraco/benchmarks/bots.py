"""`p2p-burraco bench bots`: how strong and how quick the heuristic bots are.

Plays series of games between two strategies sitting on the two sides of the table
(partners share a strategy) and prints the win rate with its counts, plus the mean and the
slowest time the measured strategy took for one move. Against another strategy games come
in pairs dealt alike with the sides swapped (a "duplicate" pairing), so a lucky deal helps
both once; against itself every game has its own deal and the sides alternate.

Each win rate comes with its 95 % Wilson score interval (ties count ½). By default a pairing
is played until that interval is no wider than ±5 points (`--precision`), at least the
`--games` minimum and at most `--max-games`: a figure without its interval says nothing about
whether a bot got stronger. The interval treats games as independent; duplicate pairs are
positively correlated in luck, which makes it a little wider than the true one, never narrower.

What a game is:

- Briscola: one match of the chosen rule set (the standard one is a single smazzata; the
  `smazzate` preset is best of three). A 60–60 smazzata is a tie.
- Burraco: one hand, won by the side with more points — or, with `--target T`, a match to T
  points (hands until a side reaches it).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import UsageError

HELP = "bot strength: heuristic against random, greedy and itself (win rates, ms per move)"
GOAL_VS_RANDOM = 0.90
MAX_HANDS_PER_MATCH = 60
Z_95 = 1.959964


def wilson(score: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion `score / n` (0..1 both ends): unlike the
    normal approximation it stays inside [0, 1] and is honest at 0 % or 100 % and small n."""
    if n <= 0:
        return 0.0, 1.0
    p = score / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..commands.argtypes import add_think

    p.add_argument("--game", default="burraco", choices=("burraco", "briscola"))
    p.add_argument("--games", type=int, default=None,
                   help="games per pairing at least (default: 200 Briscola, 40 Burraco)")
    p.add_argument("--precision", type=float, default=5.0, metavar="POINTS",
                   help="then go on until the 95 %% interval is within ± this many "
                        "percentage points (default 5; 0 plays exactly --games)")
    p.add_argument("--max-games", type=int, default=2000,
                   help="never more games than this per pairing (default 2000)")
    p.add_argument("--seed", type=int, default=0)
    add_think(p)
    p.add_argument("--players", type=int, default=None,
                   help="seats: Burraco 2, 4 or 6 (default 4); Briscola 2 or 4 (default 2)")
    p.add_argument("--variant", default=None, help="rule set (see `p2p-burraco rules`)")
    p.add_argument("--target", type=int, default=None,
                   help="Burraco: a game is a match to this many points instead of one hand")
    p.add_argument("--bot", default="heuristic", help="the strategy measured")
    p.add_argument("--jobs", type=int, default=1,
                   help="processes playing games side by side (default 1; the figures are "
                        "the same whatever it is, the move times are fair only with a core "
                        "per process)")
    p.add_argument("--against", default="random,greedy,heuristic",
                   help="comma-separated opponents, one series each")


@dataclass
class Series:
    """The outcome of one pairing, from the measured strategy's side."""

    bot: str
    opponent: str
    wins: int = 0
    ties: int = 0
    losses: int = 0
    margin: int = 0                       # points for minus points against, summed
    hands: int = 0                        # hands (smazzate) played in all
    move_times: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.ties + self.losses

    def add(self, outcome: _Outcome) -> None:
        """Count one more game."""
        self.margin += outcome.margin
        self.hands += outcome.hands
        self.move_times += outcome.move_times
        if outcome.winner is None:
            self.ties += 1
        elif outcome.winner:
            self.wins += 1
        else:
            self.losses += 1

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def score(self) -> float:
        """Share of the points of the games: a win 1, a tie ½."""
        return (self.wins + self.ties / 2) / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95 % Wilson interval of `score`."""
        return wilson(self.wins + self.ties / 2, self.games)

    @property
    def half_width(self) -> float:
        lo, hi = self.interval
        return (hi - lo) / 2

    def line(self) -> str:
        n = self.games
        half = self.score
        lo, hi = self.interval
        ms = [t * 1000 for t in self.move_times]
        timing = (f"{self.bot}: mean {sum(ms) / len(ms):.2f} ms, max {max(ms):.1f} ms "
                  f"per move over {len(ms)} moves" if ms else "no moves timed")
        hands = f" ({self.hands} hands)" if self.hands != n else ""
        return (f"{self.bot} vs {self.opponent:<10} won {self.wins:>4} tied {self.ties:>3} "
                f"lost {self.losses:>4} of {n}{hands}: win rate {100 * self.win_rate:5.1f} % "
                f"(ties as ½: {100 * half:5.1f} %, 95 % interval {100 * lo:.1f}–{100 * hi:.1f}), "
                f"mean margin {self.margin / max(n, 1):+.1f}; "
                f"{timing}")


class _Timed:
    """Wraps a strategy to time each decision."""

    def __init__(self, inner: object, times: list[float]) -> None:
        self.inner = inner
        self.times = times
        self.name = getattr(inner, "name", "bot")

    def choose(self, state: object, seat: int) -> object:
        start = time.perf_counter()
        action = self.inner.choose(state, seat)  # type: ignore[attr-defined]  # the wrapped bot's own choose
        self.times.append(time.perf_counter() - start)
        return action


def check_setup(game: str, players: int) -> None:
    """The bench needs two fixed sides: refuse seat counts where sides form during play."""
    allowed = (2, 4, 6) if game == "burraco" else (2, 4)
    if players not in allowed:
        raise UsageError(f"bench bots plays {game} with {' or '.join(map(str, allowed))} seats "
                         f"(two fixed sides), not {players}")


def play_series(game: str, players: int, games: int, *, bot: str = "heuristic",
                opponent: str = "random", seed: int = 0, variant: str | None = None,
                target: int | None = None, precision: float = 0.0,
                max_games: int | None = None, think: float | None = None,
                jobs: int = 1) -> Series:
    """Play `games` games of `bot` against `opponent` (sides alternate, deals repeat in
    pairs) and return the counts; deterministic in `seed`. With `precision` (a fraction, e.g.
    0.05) it goes on, a whole pair at a time, until the 95 % interval is within ± that or
    `max_games` are played. `jobs` processes play the games side by side: each game depends
    on its number only and the stopping rule is applied to the results in game order, so the
    series is the same whatever `jobs` is (beyond the stop, games played ahead are dropped)."""
    check_setup(game, players)
    if target is not None and game != "burraco":
        raise UsageError("--target applies to Burraco (Briscola matches follow the rule set)")
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {jobs}")
    series = Series(bot, opponent)
    # Against another strategy deals repeat in pairs with the sides swapped; a strategy
    # against itself gets a fresh deal every game (a mirrored pair would tie by design).
    paired = opponent != bot
    limit = max(games, max_games or games)
    setup = _Setup(game, players, bot, opponent, seed, variant, target, think, paired)
    pool = None
    if jobs > 1:
        import multiprocessing
        pool = multiprocessing.get_context("fork").Pool(jobs)

    def enough(k: int) -> bool:
        """Stop before game `k`? Past the minimum, at a whole pair, once precise enough."""
        return k >= games and (k % 2 == 0 or not paired) and \
            (precision <= 0 or series.half_width <= precision)

    try:
        i = 0
        while i < limit:
            if enough(i):
                break
            # a batch: up to the minimum at once, then a pair per process at a time
            size = max(1, games - i) if i < games else 2 * jobs
            batch = list(range(i, min(limit, i + size)))
            outcomes = (pool.map(setup.play, batch) if pool is not None and len(batch) > 1
                        else [setup.play(k) for k in batch])
            for k, outcome in zip(batch, outcomes):
                if enough(k):
                    return series
                series.add(outcome)
            i = batch[-1] + 1
    finally:
        if pool is not None:
            pool.terminate()
    return series


@dataclass
class _Outcome:
    """One game as the series counts it (from the measured strategy's side)."""

    winner: int | None      # 1: the measured side, 0: the other, None: a tie
    margin: int
    hands: int
    move_times: list[float]


@dataclass
class _Setup:
    """Everything a game of a series depends on besides its number (picklable, so a worker
    process can play it)."""

    game: str
    players: int
    bot: str
    opponent: str
    seed: int
    variant: str | None
    target: int | None
    think: float | None
    paired: bool

    def play(self, i: int) -> _Outcome:
        """Game `i` of the series: its deal, its sides and every bot's seed come from `i`."""
        from ..bots import make_strategy
        from ..selfplay import SelfplayConfig, deal_known, make_match, play_hand

        game, players, seed, paired = self.game, self.players, self.seed, self.paired
        deal_rng = random.Random(f"bench:{seed}:{i // 2 if paired else i}")
        bot_side = i % 2
        cfg = SelfplayConfig(game=game, variant=self.variant, players=players,
                             target=self.target if game == "burraco" else None)
        match = make_match(cfg, deal_rng)
        match_hands = 1 if game == "burraco" and self.target is None else MAX_HANDS_PER_MATCH
        times: list[float] = []
        strategies = []
        for seat in range(players):
            name = self.bot if seat % 2 == bot_side else self.opponent
            rng = random.Random(f"bench:{seed}:{i}:{seat}")
            strategy = make_strategy(game, name, rng, think=self.think)
            strategies.append(_Timed(strategy, times) if name == self.bot and
                              seat % 2 == bot_side else strategy)
        points = [0, 0]
        hands = 0
        for _ in range(match_hands):
            if match.is_over:
                break
            state = match.new_hand()
            deal_known(state, deal_rng)
            result = play_hand(state, strategies, check=False)  # type: ignore[arg-type]  # BotStrategy quacks like a Strategy
            match.record(result)
            hands += 1
            for side_seats, pts in zip(result.sides, result.points):
                points[side_seats[0] % 2] += int(pts)
        winner = _winner(game, self.target, match.standings(), points)
        return _Outcome(None if winner is None else int(winner == bot_side),
                        points[bot_side] - points[1 - bot_side], hands, times)


def _winner(game: str, target: int | None, standings: dict[str, object],
            points: Sequence[int]) -> int | None:
    """The winning side (0: even seats, 1: odd seats) or None for a tie."""
    if game == "burraco" and target is None:
        if points[0] == points[1]:
            return None
        return 0 if points[0] > points[1] else 1
    winner = standings.get("winner")
    sides = standings.get("sides")
    if not isinstance(winner, int) or not isinstance(sides, list):
        return None
    return int(sides[winner][0]) % 2


def run(args: argparse.Namespace) -> int:
    from .. import bots, selfplay  # noqa: F401  (set up before the collector's policy)
    from ..games import get_game
    from ..gc_policy import apply_gc_policy

    apply_gc_policy()   # before the workers fork: they share what it froze

    game = args.game
    players = args.players or (4 if game == "burraco" else 2)
    games = args.games if args.games is not None else (200 if game == "briscola" else 40)
    if games < 1:
        raise UsageError(f"--games must be at least 1, not {games}")
    if not 0 <= args.precision <= 50:
        raise UsageError(f"--precision is in percentage points, 0 to 50, not {args.precision}")
    if args.max_games < games:
        raise UsageError(f"--max-games ({args.max_games}) is below --games ({games})")
    check_setup(game, players)
    spec = get_game(game)
    variant = args.variant or spec.default_variant
    if variant not in spec.presets:
        raise UsageError(f"unknown {game} variant {variant!r}; choose one of: "
                         f"{', '.join(spec.presets)}")
    if game == "burraco":
        unit = (f"a match to {args.target} points" if args.target is not None
                else "one hand, won on side points")
    else:
        rules = spec.presets[variant]
        unit = ("one match of the rule set: " +
                ("one smazzata" if rules.hands == 1 else
                 f"{rules.hands} smazzate a punti" if rules.match_kind == "punti"
                 else f"best of {rules.hands} smazzate"))
    opponents = [o.strip() for o in args.against.split(",") if o.strip()]
    until = (f", then on until the 95 % interval is within ±{args.precision:g} points "
             f"(at most {args.max_games})" if args.precision > 0 else "")
    print(f"bench bots: {game} {variant}, {players} seats, {games} games per pairing{until} "
          f"(a game = {unit}; sides alternate; against another strategy each deal is "
          f"played twice with the sides swapped), seed {args.seed}")
    goal_line = ""
    for opponent in opponents:
        start = time.perf_counter()
        s = play_series(game, players, games, bot=args.bot, opponent=opponent, seed=args.seed,
                        variant=variant, target=args.target,
                        precision=args.precision / 100, max_games=args.max_games,
                        think=getattr(args, "think", None), jobs=args.jobs)
        print(f"  {s.line()}  [{time.perf_counter() - start:.1f} s]", flush=True)
        if opponent == "random":
            met = "met" if s.win_rate >= GOAL_VS_RANDOM else "NOT met"
            lo, hi = s.interval
            goal_line = (f"  goal ≥ {100 * GOAL_VS_RANDOM:.0f} % against random: {met} "
                         f"({100 * s.win_rate:.1f} %, 95 % interval of the score "
                         f"{100 * lo:.1f}–{100 * hi:.1f})")
        if opponent == args.bot:
            print("    (the same strategy on both sides, a fresh deal every game: about 50 % "
                  "is the sanity check)")
    if goal_line:
        print(goal_line)
    return 0
