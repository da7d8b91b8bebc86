"""A text picture of the Wok Star table (public information only)."""

from __future__ import annotations

from envs.core.render import bar, box, rule, table
from envs.wok_star.cards import load_data


def _dice(area_row, own: bool) -> str:
    off = 0 if own else 6
    return " ".join(f"{p + 1}{'' if own else '*'}" for p in range(6) for _ in range(int(area_row[off + p])))


def render_table(engine) -> str:
    data = load_data()
    view = engine.public_view(engine.agents[0])
    t = view.table
    n = t["n"]
    lines = []
    day = f"day {t['day']}/4" if t["day"] else "setup"
    lines.append(rule(f"WOK STAR  {day}  {t['difficulty']}  phase: {t['phase']}  tick {engine.tick}"))
    goals = "  ".join(f"d{k + 1} ${g}{'*' if t['goal_cubes'][k] else ''}" for k, g in enumerate(t["goals"]))
    money = f"   money to spend ${t['money']}" if t["phase"] == "prep" else ""
    lines.append(f"income today ${t['income']}   goals: {goals}  (* = goal cube still on the tracker){money}")
    full = t["timer_full"]
    stopped = "  STOPPED (washing)" if t["phase"] == "wash" else ""
    lo, hi = t["timers"]
    lines.append(f"timers: A {bar(lo, full, 15)} {lo:>3}/{full}   B {bar(hi, full, 15)} {hi:>3}/{full}{stopped}"
                 f"   washes left {t['washes_left']}")
    cur = t["current"]
    if cur["kind"] == "customer":
        rec = data.recipes[cur["recipe"]]
        needs = ", ".join(f"{data.ingredients[i].name} ({t['ing_level'][i]})" for i in rec.ingredients)
        late = ""
        if t["timers"][0] == 0 and t["timers"][1] == 0:
            late = f"  LATE ({t['late_ticks']}/{t['patience']} ticks waited)"
        lines.append(f"customer: {rec.name} ${cur['income']}{' (coupon)' if cur['coupon'] else ''} for chef_{cur['holder']}"
                     f" - needs {needs}{late}")
    elif cur["kind"] == "event":
        e = data.events[cur["event"]]
        lines.append(f"EVENT at the counter: {e.name} - {e.text}")
    else:
        lines.append("counter: no card")
    lines.append(f"Regular deck: {t['deck_size']} cards ({t['coupons_in_deck']} coupons, {t['events_in_deck']} events)"
                 f"   Coupon deck: {t['coupon_pile']}   Hustle pool {t['hustle']} (supply {t['hustle_supply']})")
    rows = []
    for i, ing in enumerate(data.ingredients):
        if t["ing_holder"][i] < 0:
            continue
        u = t["ing_unlocked"][i]
        methods = " | ".join(("" if k < u else "[covered] ") + m.text() for k, m in enumerate(ing.methods))
        rows.append([ing.name, f"{bar(t['ing_level'][i], t['track_top'], t['track_top'])} {t['ing_level'][i]}",
                     f"chef_{t['ing_holder'][i]}", methods])
    lines.append(table(rows, ["ingredient", "track", "card", "methods"]))
    rows = []
    for s in range(n):
        recipes = ", ".join(data.recipes[r].name for r, h in enumerate(t["recipe_holder"]) if h == s)
        ch = t["character"][s]
        who = "" if ch < 0 else data.characters[ch].key + (" (used)" if t["power_used"][s] else "")
        own = _dice(t["area"][s], True)
        taken = _dice(t["area"][s], False)
        rows.append([f"chef_{s}", f"[{own}{' ' + taken if taken else ''}]", t["dirty"][s], t["pool"][s], t["cubes"][s],
                     f"{t['on_time'][s]}/{t['late'][s]}", recipes, who])
    lines.append(table(rows, ["chef", "unused dice", "dirty", "pool", "cubes", "served ok/late", "recipes", "character"]))
    if t["phase"] == "prep":
        offers = ", ".join(f"[{k}] {data.recipes[r].name} ${data.recipes[r].price}" for k, r in enumerate(t["offers"]) if r >= 0)
        lines.append(f"offers: {offers or 'none left'}   turn: chef_{t['turn']}   passes {t['passes']}/{n}")
    elif t["phase"] == "choose_character":
        free = [c.key for c in data.characters if c.id not in t["character"]]
        lines.append(f"decision: chef_{t['turn']} chooses a character; free: {', '.join(free)}")
    elif t["phase"] == "goal_cubes":
        lines.append(f"decision: chef_{t['turn']} gives {t['cubes_passed']} goal Fortune cube(s) to a chef")
    elif t["turn"] >= 0:
        lines.append(f"decision: chef_{t['turn']}")
    if t["pending"]:
        lines.append("Ingredient cards to give: " + ", ".join(data.ingredients[i].name for i in t["pending"]))
    if t["history"]:
        lines.append("days: " + "  ".join(f"d{d} ${inc}/{goal}" for d, inc, goal in t["history"]))
    if t["won"] >= 0:
        lines.append("RESULT: " + ("WIN - the restaurant is saved" if t["won"] == 1 else "LOSS - the restaurant closes its doors"))
    lines.append(box("log", t["log"] or ["(nothing yet)"]))
    return "\n".join(lines)
