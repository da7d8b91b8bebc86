"""Wok Star (3rd Edition) on the Kitchen Arena core: see ``envs.wok_star_v1`` and docs/wok_star.md."""
