"""Waroong Wars (Second Edition): card drafting and set collection for 3-5 chefs.

Modules: ``cards`` (data), ``options`` (constructor options and variants),
``actions`` (the flat action table), ``engine`` with ``draft``, ``cooking``,
``customers``, ``scoring`` and ``legality`` (the rules), ``public`` (what
each player may see), ``encoding``, ``render``, ``heuristic`` and ``env``
(the PettingZoo adapter). The entry point is :mod:`envs.waroong_wars_v0`.
"""
