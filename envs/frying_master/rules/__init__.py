"""The rules of Frying Master, one module per rulebook section, in rulebook order.

Each module's docstring quotes the section heading it implements; the rules are
plain functions taking the engine as first argument. Sections of the rulebook
that are not rules modules: "Game Components" is the data
(:mod:`envs.frying_master.cards`), "Order Plates" is the plates' data and the
order check of :mod:`.scoring`, "Beginner's Mode" is the ``mode`` and
``teppanyaki`` options (:mod:`envs.frying_master.options`), and "Rules in
Mustache Master's Restaurant" is etiquette, not modelled.
"""

#: (rulebook section heading, module under ``envs.frying_master.rules``), in rulebook order.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("Game Setup", "setup"),
    ("How to Play", "how_to_play"),
    ("End of a Round", "end_of_round"),
    ("Scoring", "scoring"),
    ("The Stir-Fry Mode", "stir_fry_mode"),
)
