"""Rulebook section "Gain and Spend Hustle" (Phase 1: Open for Business).

"You may convert any 1 unused die (not in the Dirty Dishes) into a Hustle
token [...] To use a Hustle, return 1 Hustle token from the pool to the supply
and either: rotate 1 unused die up or down 1 value (a 1 to a 6 and a 6 to a
1), or move 2 Fortune cubes from any player to any other player."
"""

from __future__ import annotations

from envs.wok_star.actions import moves_by_label

ROTATE = {"up": 1, "down": -1}


def hustle_gain(eng, seat: int, pip: int, die: str) -> None:
    d = eng.find_die(seat, pip, die == "taken")
    eng.to_dishes(d)
    eng.hustle += 1
    eng.say(f"chef_{seat} turns a {pip} into Hustle (pool {eng.hustle})")


def rotate(eng, seat: int, chef: int, pip: int, die: str, direction: str) -> None:
    holder = eng.rel(seat, chef)
    d = eng.find_die(holder, pip, die == "taken")
    eng.die_pip[d] = (pip - 1 + ROTATE[direction]) % 6 + 1
    eng.hustle -= 1
    eng.say(f"chef_{seat} spends Hustle: chef_{holder}'s {pip} -> {eng.die_pip[d]}")


def move_cubes(eng, seat: int, move: str) -> None:
    for s, d in moves_by_label(eng.n)[move]:
        eng.cubes[eng.rel(seat, s)] -= 1
        eng.cubes[eng.rel(seat, d)] += 1
    eng.hustle -= 1
    eng.say(f"chef_{seat} spends Hustle to move Fortune cubes ({move})")
