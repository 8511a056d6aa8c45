"""Crazy Kick bots: players with human reaction times.

A bot looks at what its seat sees (``CrazyKick.seat_view``: the centre card, the open
piles, how many cards are left in each face-down hand, never which) and plans its next
move with a delay drawn like a person's: a play after a reaction time (default 250–600 ms)
from the moment the centre card changed, a flip after a shorter hand movement. When the
centre card changes before a planned play is made, a bot that is already moving (the last
``commit_ms``) still presses, as people do, and may lose the race; otherwise it looks again.

:func:`simulate_match` runs bots directly on the rules core on a simulated clock (no
stations, no waiting): the bench uses it for a whole match's speed and for the figures
that say whether the decks play lively (attack length, time to a goal).
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field
from typing import Any

from controller.games.core import IllegalAction
from controller.games.crazykick import (
    RULES, STALL_HINT_S, BallOut, CrazyKickState, Flip, Play, Reshuffle, agreed_teams, load_deck, stall_key,
    stalled,
)


@dataclass(frozen=True)
class Reaction:
    """How fast a bot is, in milliseconds."""

    play_low: float = 250.0        # seeing the centre card change → pressing play
    play_high: float = 600.0
    flip_low: float = 180.0        # one flip of a hand card
    flip_high: float = 380.0
    reshuffle: float = 1500.0      # picking up the piles and shuffling
    commit: float = 150.0          # a play this close to its press is made even if the centre changed

    @classmethod
    def parse(cls, text: str) -> "Reaction":
        """``"250-600"`` → a reaction between 250 and 600 ms."""
        low, _, high = text.partition("-")
        try:
            low_ms, high_ms = float(low), float(high or low)
        except ValueError:
            low_ms = high_ms = -1.0
        if not 0 < low_ms <= high_ms:
            raise ValueError(f"reaction {text!r}: write LOW-HIGH in milliseconds, e.g. 250-600")
        return cls(play_low=low_ms, play_high=high_ms)


@dataclass(frozen=True)
class Plan:
    at_ms: float                   # when the press happens
    action: Any
    top: int | None                # the centre card the plan was made for


class KickBot:
    """One seat's player."""

    def __init__(self, seat: int, seed: int, reaction: Reaction = Reaction()) -> None:
        self.seat = seat
        self.reaction = reaction
        self.rng = random.Random(f"kickbot:{seed}:{seat}")
        self._view: tuple[CrazyKickState, CrazyKickState] | None = None   # (state, its view): asked twice a change
        self._stall: tuple[Any, float] | None = None   # (stall_key, when the bot saw that stall begin)

    def view(self, state: CrazyKickState) -> CrazyKickState:
        """What this seat sees of ``state``: all the bot decides from."""
        if self._view is None or self._view[0] is not state:
            self._view = (state, RULES.seat_view(state, self.seat))
        return self._view[1]

    def plan(self, state: CrazyKickState, now_ms: float) -> Plan | None:
        """The next move from ``now_ms``, or None when there is nothing to do, decided from
        the seat's view alone."""
        return self._plan(self.view(state), now_ms)

    def _plan(self, view: CrazyKickState, now_ms: float) -> Plan | None:
        if view.winner is not None:
            return None
        seat, r, rng = self.seat, self.reaction, self.rng
        deck = load_deck(view.edition)
        follows = deck.follows[view.top] if view.top is not None else deck.kickoff
        piles = view.piles[seat]
        playable = [k for k, pile in enumerate(piles) if pile and pile[-1] in follows]
        if playable:
            goals = [k for k in playable if deck[piles[k][-1]].goal]
            pile = goals[0] if goals else rng.choice(playable)
            return Plan(now_ms + rng.uniform(r.play_low, r.play_high), Play(seat, pile), view.top)
        if stalled(view) and self._team_has_nothing(view, follows):
            if view.team_of[seat] in agreed_teams(view):
                return None                    # said: the other team's word is awaited
            # a top button says so only once the table asks (the stall has lasted STALL_HINT_S)
            asked_ms = self._stall_seen_ms(view, now_ms) + STALL_HINT_S * 1000
            return Plan(max(now_ms, asked_ms) + rng.uniform(r.play_low, r.play_high) * 2, BallOut(seat), view.top)
        if view.hands[seat]:
            empty = [k for k, pile in enumerate(piles) if not pile]
            pile = empty[0] if empty else rng.randrange(len(piles))
            return Plan(now_ms + rng.uniform(r.flip_low, r.flip_high), Flip(seat, pile), view.top)
        if any(piles) and (not stalled(view) or any(c in follows for pile in piles for c in pile)):
            return Plan(now_ms + r.reshuffle * rng.uniform(0.8, 1.2), Reshuffle(seat), view.top)
        return None                            # in a stall with nothing of its own that fits: it waits

    def _stall_seen_ms(self, view: CrazyKickState, now_ms: float) -> float:
        """When the bot saw the present stall begin (as the table counts it: stall_key)."""
        key = stall_key(view)
        if self._stall is None or self._stall[0] != key:
            self._stall = (key, now_ms)
        return self._stall[1]

    def _team_has_nothing(self, view: CrazyKickState, follows: frozenset[int]) -> bool:
        """Whether, from what lies open, the bot's team has no card left that fits: every
        team-mate's hand is flipped through (empty, so all their cards lie open on their
        piles) and none of those cards fits. Then the team says the ball is out, as people
        do once they have looked through all their cards; it never guesses at a hand."""
        team = view.team_of[self.seat]
        mates = [s for s, t in enumerate(view.team_of) if t == team]
        return all(not view.hands[s] and not any(c in follows for pile in view.piles[s] for c in pile)
                   for s in mates)

    def keeps(self, plan: Plan, state: CrazyKickState, now_ms: float) -> bool:
        """After a change: go on with ``plan`` (still moving, or the change does not
        concern it) or plan again."""
        view = self.view(state)
        if isinstance(plan.action, Play):
            return plan.top == view.top or plan.at_ms - now_ms <= self.reaction.commit
        if isinstance(plan.action, BallOut):
            return stalled(view) and view.team_of[self.seat] not in agreed_teams(view)
        return view.centre != () or plan.top is None


@dataclass
class MatchStats:
    """What a simulated match measured."""

    result: dict[str, Any]
    actions: int = 0
    refused: int = 0                          # presses that lost a race or did not fit
    ball_outs: int = 0
    attack_plays: list[int] = field(default_factory=list)    # cards played from kickoff to goal
    attack_seconds: list[float] = field(default_factory=list)  # kickoff to goal, simulated
    attack_teams: list[tuple[int, int]] = field(default_factory=list)  # per goal: (kicked off, scored)
    stalls: list[float] = field(default_factory=list)   # seconds with no open card fitting the centre
    match_seconds: float = 0.0


def simulate_match(config: dict[str, Any], seed: int, reaction: Reaction = Reaction(),
                   max_seconds: float = 4 * 3600) -> MatchStats:
    """A whole match of bots on the rules core alone, on a simulated clock."""
    rules = RULES
    state = rules.new_game(config, seed)
    bots = [KickBot(seat, seed, reaction) for seat in range(len(state.team_of))]
    plans: list[Plan | None] = [None] * len(bots)
    queue: list[tuple[float, int, int]] = []      # (time, seat, version) of each seat's plan
    version = [0] * len(bots)
    stats = MatchStats(result={})
    kickoff_ms = plays_at_kickoff = 0.0
    kicked_off = 0
    resumes_ms = 0.0
    stalled_since: float | None = None

    def replan(seat: int, now: float) -> None:
        plan = bots[seat].plan(state, max(now, resumes_ms))      # a goal's pause: wait for the whistle
        plans[seat] = plan
        version[seat] += 1
        if plan is not None:
            heapq.heappush(queue, (plan.at_ms, seat, version[seat]))

    for seat in range(len(bots)):
        replan(seat, 0.0)
    now = 0.0
    while queue and state.winner is None and now < max_seconds * 1000:
        now, seat, v = heapq.heappop(queue)
        if v != version[seat]:
            continue                        # superseded
        plan = plans[seat]
        assert plan is not None
        before = state
        try:
            state = rules.apply(state, plan.action)
        except IllegalAction:
            stats.refused += 1
            replan(seat, now)
            continue
        stats.actions += 1
        if state.attacks != before.attacks:
            kickoff_ms, plays_at_kickoff = now, before.plays
            kicked_off = load_deck(state.edition)[state.centre[0]].team_index
        if stalled(state) != (stalled_since is not None):
            if stalled_since is None:
                stalled_since = now
            else:
                stats.stalls.append((now - stalled_since) / 1000)
                stalled_since = None
        pause = rules.pause_after(before, state)
        if pause is not None:
            resumes_ms = now + pause[0] * 1000
        if state.scores != before.scores:
            stats.attack_plays.append(state.plays - int(plays_at_kickoff))
            stats.attack_seconds.append((now - kickoff_ms) / 1000)
            stats.attack_teams.append((kicked_off, 0 if state.scores[0] != before.scores[0] else 1))
        if state.last is not None and state.last.kind == "ball_out" and state.last != before.last:
            stats.ball_outs += 1
        if state.centre != before.centre or state.votes != before.votes or state.scores != before.scores:
            for other in range(len(bots)):
                current = plans[other]
                if other == seat or current is None or not bots[other].keeps(current, state, now):
                    replan(other, now)
        else:
            replan(seat, now)
            for other in range(len(bots)):
                if plans[other] is None:
                    replan(other, now)
    stats.match_seconds = now / 1000
    outcome = rules.outcome(state)
    stats.result = {"game": rules.name, "config": config, "seed": seed,
                    "scores": list(state.scores), "winner": outcome.winners[0] if outcome else None,
                    "actions": stats.actions, "finished": outcome is not None}
    return stats


BOT = KickBot
