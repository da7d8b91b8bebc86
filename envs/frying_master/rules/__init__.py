"""The rules of Frying Master, one module per rulebook section, in rulebook order.

Each module's docstring quotes the section heading it implements; the rules are
plain functions taking the engine as first argument. Sections of the rulebook
that are not rules modules: "Game Components" is the data
(:mod:`envs.frying_master.cards`), "Order Plates" is the plates' data and the
order check of :mod:`.scoring`, "Beginner's Mode" is the ``mode`` and
``teppanyaki`` options (:mod:`envs.frying_master.options`), and "Rules in
Mustache Master's Restaurant" is etiquette, not modelled.
"""

#: (module under ``envs.frying_master.rules``, rulebook section heading), in rulebook order.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("setup", "Game Setup"),
    ("how_to_play", "How to Play"),
    ("end_of_round", "End of a Round"),
    ("scoring", "Scoring"),
    ("stir_fry_mode", "The Stir-Fry Mode"),
)
