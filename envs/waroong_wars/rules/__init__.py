"""The Waroong Wars rules, one module per rulebook section, in rulebook order.

=========================  ===============================================
rulebook section           module
=========================  ===============================================
Setting Up                 :mod:`.setup`
Gameplay: Shopping Phase   :mod:`.shopping` (the draft)
Gameplay: Cooking Phase    :mod:`.cooking` (payment, display refill, turns)
Gameplay: Cleanup Phase    :mod:`.cleanup` (new round, First Cooking marker, Go Boy!)
Ending the Game            :mod:`.end_of_game`
Scoring                    :mod:`.scoring`
Variants                   :mod:`.variants` (Constraint Mode's slots; the other variants are switches read
                           where they apply)
Character Cards            :mod:`.characters`
Customer Cards             :mod:`.customers` (with the Additional Customer Cards)
=========================  ===============================================

"Components" is :mod:`envs.waroong_wars.cards` (the data and its counts). Rules are plain
functions taking the engine as first argument; the engine (:mod:`envs.waroong_wars.engine`)
holds the state and wires the actions to them, :mod:`envs.waroong_wars.legality` says what is
legal.
"""

#: (module under ``envs.waroong_wars.rules``, rulebook section heading), in rulebook order.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("setup", "Setting Up"),
    ("shopping", "Shopping Phase"),
    ("cooking", "Cooking Phase"),
    ("cleanup", "Cleanup Phase"),
    ("end_of_game", "Ending the Game"),
    ("scoring", "Scoring"),
    ("variants", "Variants"),
    ("characters", "Character Cards"),
    ("customers", "Customer Cards"),
)
