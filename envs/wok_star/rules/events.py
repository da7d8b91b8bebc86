"""Rulebook section "Optional Rules: Events".

"During step 9 of the setup procedure, shuffle all Event cards. Shuffle 2
Event cards into the Regular deck. [...] When an Event card is drawn from the
Regular deck, follow the instructions on the card. Once either 30-second
timers is up, flip the empty timer, draw the next Customer card, and proceed
with the game as usual. During the Daily Accounting phase: 1. resolve any End
of Round Event cards [...] 2. Then discard all Event cards that appeared
during this round from the game. 3. When re-shuffling the Regular deck, draw
2 new Event cards face-down and shuffle them into the deck."

What each (reconstructed) Event card does:
``resolve_drawn`` runs when a card with ``when == "drawn"`` is revealed;
``resolve_end_of_round`` runs at the start of Daily Accounting for each
``"end_of_round"`` card revealed that day, in the order they appeared.
Every key in ``data/events.json`` has exactly one function here (checked by
the tests).
"""

from __future__ import annotations

from typing import Callable

from envs.wok_star.cards import EVENT_CARD_BASE, Event


def _health_inspector(eng, e: Event) -> None:
    for i, h in enumerate(eng.ing_holder):
        if h >= 0:
            eng.ing_level[i] = max(0, eng.ing_level[i] - e.amount)


def _dropped_tray(eng, e: Event) -> None:
    live = [i for i, h in enumerate(eng.ing_holder) if h >= 0]
    top = max(live, key=lambda i: (eng.ing_level[i], -i))
    eng.ing_level[top] = max(0, eng.ing_level[top] - e.amount)


def _power_flicker(eng, e: Event) -> None:
    for d, pip in enumerate(eng.die_pip):
        if pip > 0:
            eng.roll(d)
            if eng.die_pip[d] <= e.amount:
                eng.to_dishes(d)


def _staff_meeting(eng, e: Event) -> None:
    for seat in range(eng.n):
        for pip in range(1, 7):
            d = eng.find_die(seat, pip, False)
            if d >= 0:
                eng.to_dishes(d)
                break


def _broken_dishwasher(eng, e: Event) -> None:
    eng.washes = min(eng.data.components["washes_per_day"], eng.washes + e.amount)


def _spilled_sauce(eng, e: Event) -> None:
    eng.hustle -= min(eng.hustle, e.amount)


def _walk_ins(eng, e: Event) -> None:
    for _ in range(min(e.amount, len(eng.coupons))):
        k = int(eng.rng.integers(len(eng.coupons)))
        eng.deck.append(eng.coupons.pop(k))
    order = eng.rng.permutation(len(eng.deck))
    eng.deck = [eng.deck[i] for i in order]


def _impatient_crowd(eng, e: Event) -> None:
    eng.timers = [max(0, s - eng.crowd_ticks) for s in eng.timers]


def leaving(eng, timer: int) -> None:
    """The Event card at the counter leaves and ``timer`` was flipped for the next customer: the
    Impatient Crowd takes its seconds from that timer too (without it, the flip would refill what
    the card took and the crowd would cost nothing)."""
    e = eng.data.events[eng.current - EVENT_CARD_BASE]
    if e.key == "impatient_crowd":
        eng.timers[timer] = max(0, eng.timers[timer] - eng.crowd_ticks)


def _supply_delivery(eng, e: Event) -> None:
    for i, h in enumerate(eng.ing_holder):
        if h >= 0 and eng.ing_level[i] == 0:
            eng.ing_level[i] = e.amount


def _lucky_cat(eng, e: Event) -> None:
    eng.hustle += min(e.amount, eng.hustle_supply)


def _rent_increase(eng, e: Event) -> None:
    eng.add_income(-e.amount)


def _late_count(eng) -> int:
    return sum(late for served in eng.served for _, late in served)


def _bad_review(eng, e: Event) -> None:
    eng.add_income(-e.amount * _late_count(eng))


def _food_critic(eng, e: Event) -> None:
    eng.add_income(e.amount if _late_count(eng) == 0 else -e.amount)


def _tax_collector(eng, e: Event) -> None:
    eng.add_income(-(max(0, eng.income) // e.amount))


def _generous_tipper(eng, e: Event) -> None:
    eng.add_income(e.amount)


DRAWN: dict[str, Callable] = {
    "health_inspector": _health_inspector,
    "dropped_tray": _dropped_tray,
    "power_flicker": _power_flicker,
    "staff_meeting": _staff_meeting,
    "broken_dishwasher": _broken_dishwasher,
    "spilled_sauce": _spilled_sauce,
    "walk_ins": _walk_ins,
    "impatient_crowd": _impatient_crowd,
    "supply_delivery": _supply_delivery,
    "lucky_cat": _lucky_cat,
}
END_OF_ROUND: dict[str, Callable] = {
    "rent_increase": _rent_increase,
    "bad_review": _bad_review,
    "food_critic": _food_critic,
    "tax_collector": _tax_collector,
    "generous_tipper": _generous_tipper,
}


def add_day_events(eng) -> None:
    """Setup step 9 and each new day: 2 Event cards from the pile into the Regular deck (shuffled by the caller)."""
    if eng.config["events"]:
        for _ in range(min(eng.data.components["events_per_day"], len(eng.event_pile))):
            eng.deck.append(EVENT_CARD_BASE + eng.event_pile.pop())


def resolve_end_of_round_cards(eng) -> None:
    """Daily Accounting 1: the End of Round cards that appeared today, in the order they appeared."""
    for e in list(eng.events_today):
        ev = eng.data.events[e]
        if ev.when == "end_of_round":
            resolve_end_of_round(eng, ev)


def discard_today(eng) -> None:
    """Daily Accounting 2: the Event cards that appeared today leave the game."""
    eng.events_gone.extend(eng.events_today)
    eng.events_today = []


def resolve_drawn(eng, e: Event) -> None:
    DRAWN[e.key](eng, e)


def resolve_end_of_round(eng, e: Event) -> None:
    END_OF_ROUND[e.key](eng, e)


def check_events(data) -> None:
    """Every Event card in the data has exactly one implementation, resolved at the time it says."""
    from envs.core.data import require

    for e in data.events:
        table = DRAWN if e.when == "drawn" else END_OF_ROUND
        require(e.key in table, f"event {e.key!r} ({e.when}) has no implementation in envs/wok_star/rules/events.py")
    keys = {e.key for e in data.events}
    extra = (set(DRAWN) | set(END_OF_ROUND)) - keys
    require(not extra, f"rules/events.py implements events missing from events.json: {sorted(extra)}")


# ---------------------------------------------------------------------------- measuring what each card costs
def play_forced(key: str | None, seed: int, players: int = 2, difficulty: str = "mild") -> dict:
    """One seeded game of the heuristic team with Events on, where the only Event card is ``key``, shuffled
    into the Regular deck at every day's start (unless it is still in it); ``key=None``: no Event card at
    all. Returns the game's ``outcome()`` with ``events_seen``, the Event cards that appeared."""
    from envs.wok_star.engine import WokStarEngine
    from envs.wok_star.env import WokStarEnv
    from envs.wok_star.heuristic import HeuristicPolicy

    config = WokStarEnv.engine_config_of(WokStarEnv.config_spec().resolve(
        {"players": players, "difficulty": difficulty, "events": True}))
    eng = WokStarEngine.new(config, seed)
    card = None if key is None else EVENT_CARD_BASE + eng.data.event_id(key)

    class _Table:  # what the heuristic reads: ``env.unwrapped.engine``
        unwrapped = None
        engine = eng

    table = _Table()
    table.unwrapped = table
    team = HeuristicPolicy()
    while not eng.done:
        if eng.phase not in ("open", "wash", "closed"):  # between days: the pile holds only the forced card
            pile = [] if card is None or card in eng.deck else [card - EVENT_CARD_BASE]
            if eng.event_pile != pile:
                eng.event_pile = pile
                eng.invalidate_masks()
        joint = {a: team.act({"action_mask": eng.action_mask(a)}, a, table) for a in eng.agents}
        eng.step(joint)
    out = eng.outcome()
    out["events_seen"] = [eng.data.events[e].key for e in eng.events_gone + eng.events_today]
    return out


def measure(games: int = 300, players: int = 2, difficulty: str = "mild", seed: int = 0,
            keys: list[str] | None = None) -> list[dict]:
    """Each Event card's cost to the heuristic team: per arm (no Event card, then each card forced to
    occur every day) the win rate with its Wilson 95% interval and the mean score (the team's total
    income), over the same ``games`` seeds ``seed .. seed + games - 1``."""
    from envs.core.stats import wilson
    from envs.wok_star.cards import load_data

    keys = [e.key for e in load_data().events] if keys is None else keys
    rows = []
    for key in [None] + list(keys):
        wins, score = 0, 0.0
        for g in range(games):
            out = play_forced(key, seed + g, players, difficulty)
            wins += bool(out["winners"])
            score += out["scores"]["chef_0"]
        lo, hi = wilson(wins, games)
        rows.append({"event": key or "none", "games": games, "win_rate": wins / games, "ci95": (lo, hi),
                     "mean_score": score / games})
    return rows


def table(rows: list[dict]) -> str:
    """The rows of :func:`measure` as a markdown table (differences against the no-event arm)."""
    from envs.wok_star.cards import load_data

    data = load_data()
    names = {e.key: e for e in data.events}
    base = rows[0]
    out = ["| Event card | when | win rate (95% CI) | vs no event | mean score | vs no event |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        e = names.get(r["event"])
        lo, hi = r["ci95"]
        out.append(f"| {e.name if e else 'none (no Event card)'} | {e.when.replace('_', ' ') if e else '-'} | "
                   f"{100 * r['win_rate']:.1f}% ({100 * lo:.0f}-{100 * hi:.0f}) | "
                   f"{100 * (r['win_rate'] - base['win_rate']):+.1f} | ${r['mean_score']:.1f} | "
                   f"{r['mean_score'] - base['mean_score']:+.1f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    from envs.core.inputs import MAX_GAMES, atomic_write_text, int_at_least, output_file_problem, run_main
    from envs.wok_star.cards import load_data
    from envs.wok_star.options import DIFFICULTIES, PLAYERS

    keys = [e.key for e in load_data().events]
    p = argparse.ArgumentParser(prog="python -m envs.wok_star.rules.events",
                                description="Measure each Event card's cost to the heuristic team.")
    p.add_argument("--measure", action="store_true", help="run the measurement (every card and no card)")
    p.add_argument("--games", type=int_at_least(1, MAX_GAMES), default=300, help="seeded games per arm (default 300)")
    p.add_argument("--players", type=int, choices=PLAYERS, default=2)
    p.add_argument("--difficulty", choices=DIFFICULTIES, default="mild")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="first seed (default 0)")
    p.add_argument("--event", action="append", choices=keys, metavar="KEY",
                   help=f"only this card (repeatable; default: all {len(keys)}): {', '.join(keys)}")
    p.add_argument("--json", help="also write the rows as JSON to this path")
    args = p.parse_args(argv)
    if not args.measure:
        p.print_help()
        return 0
    if args.event and len(set(args.event)) != len(args.event):
        p.error("--event: a card is given twice; give each once")
    problem = None if args.json is None else output_file_problem(args.json, "--json")
    if problem:  # (before the measurement: it had run whole, then failed to write)
        p.error(problem)

    def run() -> int:
        rows = measure(args.games, args.players, args.difficulty, args.seed, args.event)
        print(f"{args.games} seeded games per arm (seeds {args.seed}-{args.seed + args.games - 1}), "
              f"{args.players} players, {args.difficulty}, heuristic team, setup='team'\n")
        print(table(rows))
        if args.json:
            atomic_write_text(args.json, json.dumps(rows, indent=1) + "\n")
        return 0
    return run_main(run)


if __name__ == "__main__":
    raise SystemExit(main())
