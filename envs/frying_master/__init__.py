"""Frying Master: competitive real-time card-grabbing, as a tick-based PettingZoo env.

The house plan: ``options`` (constructor options), ``cards`` + ``data/``
(component data), ``actions`` (the action table), ``engine`` (state and the
tick loop), ``rules/`` (one module per rulebook section: ``setup``,
``how_to_play``, ``end_of_round``, ``scoring``, ``stir_fry_mode``),
``legality`` (masks, ``why_illegal``), ``public`` (what one chef sees),
``observation`` (the incremental public frame), ``encoding`` (layouts and
the encoder), ``snapshot`` (snapshot checks), ``heuristic``, ``render``,
``env`` (the PettingZoo adapter). Entry points live in ``envs.frying_master_v1``.
"""
