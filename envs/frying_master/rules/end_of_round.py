"""End of a Round.

Rulebook, "End of a Round": when someone completes the required number of
orders to finish the round, immediately, they loudly count down "3... 2...
1... Time's up!" to signal the end of the round. Any ingredients still on the
spatula must be discarded. 2 players: 6 completed orders; 3 players: 5;
4 players: 4.

Modelled: serving the round's last required order makes the chef a finisher
(:func:`note_finisher`); at the end of that tick a countdown of
``ceil(3 s / seconds_per_tick)`` ticks starts (:func:`countdown_ticks`), in
which the finishers only wait and the others still act. At time's up every
spatula's load is discarded and the round is scored (:func:`end_round`, the
scoring in :mod:`.scoring`). (project) The anti-stalling rule: a round
also ends and is scored after ``round_ticks`` play ticks; with it a match
lasts at most :func:`match_tick_bound` ticks.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

from envs.core.engine import StepResult
from envs.frying_master.cards import catalog
from envs.frying_master.rules.scoring import match_winners, score_round

if TYPE_CHECKING:
    from envs.frying_master.engine import FryingMasterEngine

#: Why a round ends (the ``ended_by`` of its result).
TICK_LIMIT, TIMES_UP = "round tick limit", "time's up"


def countdown_ticks(seconds_per_tick: float) -> int:
    """Ticks of the "3... 2... 1... Time's up!" countdown."""
    if not float(seconds_per_tick) > 0:
        raise ValueError(f"seconds_per_tick must be positive, got {seconds_per_tick!r}")
    return max(1, math.ceil(catalog().countdown_seconds / float(seconds_per_tick) - 1e-9))


def match_tick_bound(config: Mapping[str, Any]) -> int:
    """Most ticks a match can last: at most players + 1 rounds (every round
    awards a Gold Spatula), each at most players choice ticks + round_ticks
    play ticks + the countdown."""
    n = int(config["players"])
    per_round = n + int(config["round_ticks"]) + countdown_ticks(config.get("seconds_per_tick", 1.0))
    return (n + 1) * per_round


def note_finisher(eng: "FryingMasterEngine", agent: str, result: StepResult) -> None:
    """After ``agent`` served: with the round's number of completed orders it starts counting down."""
    if len(eng.completed[agent]) >= eng.orders_to_end and agent not in eng.finishers:
        eng.finishers.append(agent)
        result.events.append(f"{agent} completed {eng.orders_to_end} orders: \"3... 2... 1...\"")


def end_play_tick(eng: "FryingMasterEngine") -> str | None:
    """The end of a play tick: a finisher starts the countdown; at ``round_ticks`` play
    ticks the round ends (returns why it ends, or None)."""
    eng.play_tick += 1
    if eng.finishers:
        eng.phase = "countdown"
        eng.countdown_left = eng.countdown_ticks
    elif eng.play_tick >= eng.round_ticks:
        return TICK_LIMIT
    return None


def end_countdown_tick(eng: "FryingMasterEngine") -> str | None:
    """The end of a countdown tick: "Time's up!" after the last one (returns why the round ends, or None)."""
    eng.countdown_left -= 1
    if eng.countdown_left <= 0:
        return TIMES_UP
    return None


def end_round(eng: "FryingMasterEngine", result: StepResult, why: str) -> bool:
    """Discard the spatulas' loads, score the round, hand out the Gold Spatulas and the
    round's rewards; end the match if someone has two. Returns whether the match is over
    (otherwise the engine sets up the next round)."""
    agents, n = eng.agents, eng.n
    discarded = {a: sum(len(load) for load in eng.loads[a]) for a in agents}
    for a in agents:
        eng.loads[a] = [[] for _ in range(eng.S)]
        eng.busy[a] = [0] * eng.S
    eng._touch_all()
    res = score_round(eng.cat, eng.cat.modes[eng.mode], {a: eng.completed[a] for a in agents})
    res.update({"round": eng.round_no, "ended_by": why, "discarded_from_spatulas": discarded})
    eng.history.append(res)
    for a in res["gold"]:
        eng.gold[a] += 1
    result.events.append(f"round {eng.round_no} ends ({why}): totals {res['total']}, Gold Spatula to {res['gold']}")
    shaping = float(eng.config.get("round_shaping", 0.0))
    if shaping:
        mean = sum(res["total"].values()) / n
        for a in agents:
            result.rewards[a] += shaping * (res["total"][a] - mean)
    for a in agents:
        result.info.setdefault(a, {})["round_result"] = {
            "round": eng.round_no, "total": res["total"][a], "gold": a in res["gold"], "ended_by": why}
    winners = match_winners({a: eng.gold[a] for a in agents}, eng.cat.gold_to_win)
    if not winners:
        return False
    eng.winners = winners
    eng.phase = "over"
    k = len(winners)
    for a in agents:
        if a in winners:
            result.rewards[a] += 1.0 / k if k < n else 0.0
        else:
            result.rewards[a] -= 1.0 / (n - k)
    result.events.append(f"{winners} win the match")
    return True
