"""Game Setup.

Rulebook, "Game Setup": scatter all the Food Cards and Spice Tiles in the
centre of the table (either side face-up); each player chooses one Spatula
Card; shuffle the Order Plates, draw one and use its back as the Stir-Fry
Mode (set aside for the game); divide the rest into two equal piles; from a
random starting player, clockwise, each takes one Order Plate from either
pile; "Wok on Fire!".

Modelled: every round is set up afresh (:func:`start_round`, no ticks): the
first plate of the shuffled pool whose mode was not yet played is the mode
card (a fixed ``mode`` sets none aside), pile A gets the odd plate, every card
lands image-up with probability 1/2 in a hidden random order. Then
``players`` choice ticks (:func:`end_choice_tick`): only the chooser acts;
a chooser who does not choose (``noop``) takes pile A (B if A is empty).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.decks import Deck
from envs.core.engine import StepResult
from envs.frying_master.actions import PILES
from envs.frying_master.rules.how_to_play import refill_piles
from envs.frying_master.rules.stir_fry_mode import round_spatulas

if TYPE_CHECKING:
    from envs.frying_master.engine import FryingMasterEngine


def start_match(eng: "FryingMasterEngine") -> None:
    """A new match: no Gold Spatulas, no rounds played, round 1 set up."""
    eng.gold = {a: 0 for a in eng.agents}
    eng.history = []
    eng.set_aside = []
    eng.modes_played = []
    eng.winners = []
    eng.round_no = 0
    start_round(eng)


def start_round(eng: "FryingMasterEngine") -> None:
    """Set up the next round: mode, piles, the scattered table, empty hands, the choice queue."""
    cat = eng.cat
    rng = eng.rng
    eng.round_no += 1
    pool = [p for p in range(len(cat.plates)) if p not in eng.set_aside]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    fixed = eng.config["mode"]
    if fixed == "drawn":
        # The top plate (last) is the mode card; skip plates whose mode was already played.
        for k in range(len(pool) - 1, -1, -1):
            if cat.plates[pool[k]].mode not in eng.modes_played:
                break
        mode_plate = pool.pop(k)
        eng.set_aside.append(mode_plate)
        eng.mode = cat.plates[mode_plate].mode
    else:
        eng.mode = cat.mode(fixed).idx
    eng.modes_played.append(eng.mode)
    half = (len(pool) + 1) // 2
    eng.piles = [Deck(pool[:half]), Deck(pool[half:])]
    eng.discard = []
    eng.table.scatter([f.count for f in cat.foods], rng)
    agents, n_foods, S = eng.agents, eng.n_foods, eng.S
    eng.plates = {a: None for a in agents}
    eng.plate_cards = {a: [0] * n_foods for a in agents}
    eng.loads = {a: [[] for _ in range(S)] for a in agents}
    eng.busy = {a: [0] * S for a in agents}
    eng.completed = {a: [] for a in agents}
    first = int(rng.integers(eng.n))
    eng.choose_queue = [agents[(first + i) % eng.n] for i in range(eng.n)]
    eng.phase = "choose"
    eng.play_tick = 0
    eng.countdown_left = 0
    eng.finishers = []
    eng.spatulas = round_spatulas(eng.config, cat, eng.mode)
    eng._touch_all()


def end_choice_tick(eng: "FryingMasterEngine", result: StepResult) -> None:
    """The end of one choice tick: a chooser who took no plate takes the default pile;
    after the last chooser, "Wok on Fire!" starts the play phase."""
    chooser = eng.choose_queue.pop(0)
    if eng.plates[chooser] is None:  # hesitated: takes the default pile
        p = 0 if eng.piles[0] else 1
        eng.plates[chooser] = eng.piles[p].draw()
        eng._touch(chooser)
        refill_piles(eng)
        result.events.append(f"{chooser} hesitates and takes pile {PILES[p]}")
    if not eng.choose_queue:
        eng.phase = "play"
        result.events.append(f"\"Wok on Fire!\" round {eng.round_no}, {eng.cat.modes[eng.mode].name}")
