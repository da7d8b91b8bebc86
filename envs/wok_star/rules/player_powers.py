"""Rulebook section "Optional Rules: Player Powers".

"Each player selects a Wang Family Character card and places it in front of
them. [...] Each player power may be used once per round by the player who
owns the card. To use a power, follow the instructions on your Wang Family
Character card, then flip it over to indicate the power has been used. You
may flip it back over during the Next Day Prep."

Each chef owns one character (``choose_character`` in seat order at team
setup; waiting takes the first free one); its power works once per day
(``power_used`` flips back at Next Day Prep). Chris's tip needs no decision
and is taken automatically the first time he qualifies (a later tip is worth
the same, so waiting never helps); the other powers are actions of their
owner:

* Lily (``lily_restart``) and Auntie (``auntie_reseat``) act on the timers
  and the counter, so only while the timers run (``open``);
* Grandpa, Mama and Uncle work on ingredients and dice, so in ``open``,
  ``wash`` and ``closed``.
"""

from __future__ import annotations

from envs.wok_star.rules import open_for_business as ofb

POWER_ACTIONS = {
    "lily_restart": ("lily", ("open",)),
    "grandpa_substitute": ("grandpa", ("open", "wash", "closed")),
    "mama_reroll": ("mama", ("open", "wash", "closed")),
    "uncle_deliver": ("uncle", ("open", "wash", "closed")),
    "auntie_reseat": ("auntie", ("open",)),
}


def has_power(eng, seat: int, key: str) -> bool:
    c = eng.character[seat]
    return (eng.config["powers"] and c >= 0 and eng.data.characters[c].key == key
            and not eng.power_used[seat])


# ---------------------------------------------------------------------------- additional setup
def choose_character(eng, seat: int, character: str) -> None:
    eng.character[seat] = eng.data.character_id(character)
    eng.say(f"chef_{seat} is {eng.data.characters[eng.character[seat]].name}")
    eng._decided = True


def default_character(eng) -> None:
    """The chef to choose waited: the first character still free."""
    free = [c for c in range(len(eng.data.characters)) if c not in eng.character]
    eng.character[eng.turn] = free[0]
    eng.say(f"chef_{eng.turn} waits and gets {eng.data.characters[free[0]].name}")


# ---------------------------------------------------------------------------- the powers
def _use_power(eng, seat: int, what: str) -> None:
    eng.power_used[seat] = True
    eng.say(f"chef_{seat} ({eng.data.characters[eng.character[seat]].name}) {what}")


def chris_tip(eng, seat: int, served_before: bool) -> None:
    """Chris's tip, checked at each of his serves."""
    if served_before and has_power(eng, seat, "chris"):
        eng.add_income(eng.data.characters[eng.character[seat]].amount)
        _use_power(eng, seat, "earns a tip for serving the same dish twice")


def lily_restart(eng, seat: int, timer: str) -> None:
    eng._fresh_timers.append(ofb.restart(eng.timers, timer, eng.T))
    eng.late_ticks = 0
    _use_power(eng, seat, f"restarts the {timer} timer")


def auntie_reseat(eng, seat: int) -> None:
    old = eng.current
    _use_power(eng, seat, "seats the current customer again later")
    ofb.reveal_next(eng)
    eng.deck.append(old)
    order = eng.rng.permutation(len(eng.deck))
    eng.deck = [eng.deck[i] for i in order]


def grandpa_amount(eng, seat: int) -> int:
    """Rows Grandpa's substitution moves: the card's ``amount`` (data)."""
    return eng.data.characters[eng.character[seat]].amount


def grandpa_substitute(eng, seat: int, swap: str) -> None:
    """Token ``a`` drops ``amount`` rows (it must be that high), token ``b`` rises as many (capped at the top)."""
    a_key, b_key = swap.split(">")
    a, b = eng.data.ingredient_id(a_key), eng.data.ingredient_id(b_key)
    k = grandpa_amount(eng, seat)
    eng.ing_level[a] -= k
    eng.ing_level[b] = min(eng.top, eng.ing_level[b] + k)
    _use_power(eng, seat, f"substitutes {a_key} for {b_key} ({k} row{'s' if k != 1 else ''})")


def mama_reroll(eng, seat: int) -> None:
    for d, pip in enumerate(eng.die_pip):
        if pip > 0 and eng.die_holder[d] == seat and d // 5 == seat:
            eng.roll(d)
    _use_power(eng, seat, "re-rolls her unused dice")


def uncle_deliver(eng, seat: int, ingredient: str) -> None:
    i = eng.data.ingredient_id(ingredient)
    eng.ing_level[i] = min(eng.top, eng.ing_level[i] + eng.data.characters[eng.character[seat]].amount)
    _use_power(eng, seat, f"delivers {ingredient} (now row {eng.ing_level[i]})")
