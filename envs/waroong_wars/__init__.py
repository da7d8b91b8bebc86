"""Waroong Wars (Second Edition): card drafting and set collection for 3-5 chefs.

The house plan (docs/ARCHITECTURE.md): ``options`` (constructor options and
valid variants), ``cards`` + ``data/*.json`` (components), ``actions`` (the
flat action table), ``engine`` (state, setup, the step loop, snapshots),
``rules`` (one module per rulebook section, listed in ``rules/__init__.py``),
``legality`` (masks and ``why_illegal``), ``public`` (what each player may
see), ``observation`` (the fast observation path), ``encoding`` (the
observation layout and encoder), ``snapshot`` (snapshot checks),
``heuristic``, ``render`` and ``env`` (the PettingZoo adapter). The entry
point is :mod:`envs.waroong_wars_v1`.
"""
