"""Frying Master: competitive real-time card-grabbing, as a tick-based PettingZoo env.

Modules: ``cards`` (data), ``table`` (the food in the middle), ``scoring``,
``actions``, ``view`` (public information), ``engine`` (rules), ``encoding``,
``render``, ``heuristic``, ``env`` (PettingZoo adapter). Entry points live in
``envs.frying_master_v0``.
"""
