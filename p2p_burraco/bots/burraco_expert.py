"""The expert Burraco bot: the heuristic's candidates, decided by determinized rollouts.

A decision is made the way a club player checks a hunch — "if I take this pile, what do they
do next?":

1. **Candidates.** Every step the engine offers is scored one step ahead by the heuristic's
   estimate (`_burraco_eval.Evaluator`); the best `WIDTH` of them, plus the heuristic bot's
   own choice, go on.
2. **Determinizations.** The cards the seat cannot see (other hands, the stock, untaken
   pozzetti) are dealt at random from the cards it has not seen (`_seen.unseen_ids`), over
   the positions it cannot see — the seat's view and nothing else: the real cards there are
   never read, so the bot plays the same whatever they are (tests/test_bots_hygiene.py).
3. **Rollouts.** On each determinization every candidate is applied and the hand is played
   on by greedy bots on every seat for one full orbit of turns (the opponent who may take
   the discard included), and the position is scored by the same estimate. The same deal
   and the same rollout seed serve every candidate (common random numbers), so the averages
   differ by the choice, not by luck.

The best average wins; the heuristic's choice gets the ties. The number of determinizations
comes from the time budget (`_think.Budget`), so a seed and a `--think` reproduce a game.
"""

from __future__ import annotations

import random
from itertools import islice

from ..games.base import Action, HandState, RuleViolation, Seat
from ..games.burraco import BurracoHand
from ._burraco_eval import Evaluator
from ._seen import seen_ids, unseen_ids
from ._think import DEFAULT_THINK, Budget
from .burraco_greedy import GreedyBot
from .burraco_heuristic import HeuristicBot

WIDTH = 3                  # candidates kept besides the heuristic's choice
MAX_CANDIDATES = 120       # steps scored one step ahead
ROLLOUT_STEPS = 40         # safety cap on one rollout (an orbit is ~3 steps per seat)
COST_PER_ITERATION = 0.008  # seconds per determinization (all candidates), measured
PRIOR = 2.0                # the heuristic's choice: this much extra (estimate points)


class ExpertBot:
    """See the module docstring."""

    name = "expert"
    thinks = True

    def __init__(self, rng: random.Random, think: float = DEFAULT_THINK) -> None:
        self.rng = rng
        self.think = think
        self.heuristic = HeuristicBot(random.Random(rng.getrandbits(64)))
        self.last_iterations = 0

    def choose(self, state: HandState, seat: Seat) -> Action:
        if not isinstance(state, BurracoHand):
            raise TypeError("the Burraco expert bot plays Burraco only")
        if state.to_move != seat:
            raise RuntimeError(f"it is not seat {seat}'s turn")
        budget = Budget(self.think, COST_PER_ITERATION)
        hunch = self.heuristic.choose(state, seat)
        candidates = self._candidates(state, seat, hunch)
        if len(candidates) == 1:
            self.last_iterations = 0
            return candidates[0]
        seen = seen_ids(state, seat)
        hidden = [p for p in range(len(state.deck)) if p not in seen]
        pool = unseen_ids(state, seat)
        ev = Evaluator(state, seat)
        totals = [0.0] * len(candidates)
        done = 0
        for _ in range(budget.iterations):
            if done and budget.out_of_time():
                break
            self.rng.shuffle(pool)
            deal = dict(seen)
            deal.update(zip(hidden, pool))
            root = state.with_cards(deal)
            seed = self.rng.getrandbits(64)
            for i, a in enumerate(candidates):
                totals[i] += self._rollout(root, seat, a, ev, seed)
            done += 1
        self.last_iterations = done
        scores = [t / done + (PRIOR if a is hunch else 0.0) for t, a in zip(totals, candidates)]
        best = max(range(len(candidates)), key=lambda i: (scores[i], candidates[i] is hunch))
        return candidates[best]

    def _candidates(self, state: BurracoHand, seat: Seat, hunch: Action) -> list[Action]:
        """The heuristic's choice first, then the best `WIDTH` others one step ahead."""
        ev = Evaluator(state, seat)
        scored: list[tuple[float, float, Action]] = []
        for a in islice(state.legal_actions(seat), MAX_CANDIDATES):
            if a == hunch:
                continue
            trial = state.copy()
            try:
                trial.apply(seat, a)
            except RuleViolation:
                continue
            scored.append((ev.margin(trial), self.rng.random(), a))
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        return [hunch] + [a for _, _, a in scored[:WIDTH]]

    @staticmethod
    def _rollout(root: BurracoHand, seat: Seat, action: Action, ev: Evaluator,
                 seed: int) -> float:
        """Apply `action` on a copy of the determinization, let greedy bots play one orbit
        of turns after this one, and score the position for `seat`."""
        state = root.copy()
        state.apply(seat, action)
        rng = random.Random(seed)
        bots = [GreedyBot(random.Random(rng.getrandbits(32))) for _ in range(state.n_seats)]
        stop_at = state.turns + state.n_seats - (0 if state.turn == seat else 1)
        for _ in range(ROLLOUT_STEPS):
            s = state.to_move
            if s is None or state.turns >= stop_at:
                break
            state.apply(s, bots[s].choose(state, s))
        return ev.margin(state)
