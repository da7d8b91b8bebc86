"""Observation and global-state vectors for Waroong Wars.

Observations are defined from :func:`envs.waroong_wars.public.build` only
(:meth:`WaroongEncoder.encode_view`), so they hold exactly what the player
may know; ``observe`` computes the same bytes faster with
:class:`~envs.waroong_wars.observation.ObservationBuilder` (public part once
per state, the player's own cards per call). Per-player fields are in
*relative* seat order: row 0 is the observing player, row ``k`` the player
``k`` seats to its left (the same convention as the action targets), so one
policy can play every seat.

The observation is a snapshot of what is on the table now: during Shopping
(without No-Memory Chef) the player's own picks are face down and not in it,
so a policy that wants to use them must remember them (recurrent policy or
frame stacking); only the current pack is visible. The opt-in env option
``own_picks=True`` is that memory, written for the agent: a last field
``own_picks`` holds the cards of each type the player has picked so far this
round (:func:`own_picks`: its own past actions, nothing it did not choose
itself; zeros outside Shopping). It is an observation extension, not a
rule: off by default, v1's observation is unchanged.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from envs.core.encoding import Encoder
from envs.core.tables import Field, ObservationLayout
from envs.waroong_wars import public
from envs.waroong_wars.cards import Catalog, load_catalog
from envs.waroong_wars.rules.cooking import EMPTY
from envs.waroong_wars.rules.variants import slots_for
from envs.waroong_wars.observation import BatchObserver, ObservationBuilder

PHASES = ("draft", "cook", "over")
ABILITIES = ("maling", "perayu")


def menu_features(cat: Catalog) -> np.ndarray:
    """One row per menu id (and a last all-zero row for an empty slot):
    present, requirements (5), VP, supplement icons (4), dish one-hot."""
    nc, ns, nd = len(cat.categories), len(cat.supplements), len(cat.dishes)
    rows = np.zeros((len(cat.menus) + 1, 2 + nc + ns + nd), dtype=np.float32)
    for m in cat.menus:
        d = m.dish
        rows[m.id, 0] = 1
        rows[m.id, 1:1 + nc] = d.requires
        rows[m.id, 1 + nc] = d.vp
        for i in d.icons:
            rows[m.id, 2 + nc + i] = 1
        rows[m.id, 2 + nc + ns + d.index] = 1
    return rows


def _display_fields(cat: Catalog, slots: int) -> list[Field]:
    nc, ns, nd = len(cat.categories), len(cat.supplements), len(cat.dishes)
    max_req = max(max(d.requires) for d in cat.dishes)
    max_vp = max(d.vp for d in cat.dishes)
    return [
        Field("display_present", (slots,), 0, 1, "display slot holds a menu (slot 0 = leftmost)"),
        Field("display_requires", (slots, nc), 0, max_req, "cards of each category (Rice, Vegetable, Meat, Unique, Spice) the menu requires"),
        Field("display_vp", (slots,), 0, max_vp, "victory points of the menu"),
        Field("display_icons", (slots, ns), 0, 1, "supplement icons shown (Kerupuk, Sambal, Petis, Koya)"),
        Field("display_dish", (slots, nd), 0, 1, "which dish (one-hot over the 16 names; copies share a name)"),
        Field("display_cookable", (slots,), 0, 1, "slot may be cooked from (all; Constraint Mode: the 3 right-most)"),
    ]


def _turn_fields(cat: Catalog, n: int, who: str, relative: bool = True) -> list[Field]:
    """This turn's public events (v1): the menus cooked, the supplement added to each, the Mbok Bakul
    exchanges (with whom and how many cards; never which). All zero again when the turn ends."""
    nd, ns = len(cat.dishes), len(cat.supplements)
    mbok = 2 * cat.customer("mbok_bakul").count
    seats = "relative seats" if relative else "absolute seats"
    return [
        Field("cooked_dishes", (nd,), 0, max(d.copies for d in cat.dishes),
              f"menus of each dish (the 16 names) {who} has cooked this turn"),
        Field("cooked_supplements", (ns, nd), 0, 1,
              f"row = supplement (Kerupuk, Sambal, Petis, Koya) {who} added this turn, column = the dish of the "
              "menu it was added to"),
        Field("mbok_exchanged", (n,), 0, mbok,
              f"ingredient cards {who} exchanged with this player by Mbok Bakul this turn (which cards: "
              f"hidden), {seats}"),
        Field("theft_results", (n, 3), 0, max(cat.customer(k).count for k in ("maling", "perayu", "hansip")),
              f"{who}'s Maling / Perayu against this player this turn: ingredient cards stolen, customer cards "
              f"stolen, cancelled by Hansip (which card: hidden), {seats}"),
    ]


def own_picks(eng, seat: int) -> tuple[int, ...]:
    """The ingredient cards of each type ``seat`` has picked so far in this round's Shopping phase:
    the player's own past draft actions, which the player may remember although the picks lie face
    down (rulebook, Shopping phase, step 2 and the NOTE). Zeros outside Shopping (the hand is shown then).

    During Shopping the seat's hand holds exactly those picks: every round starts with empty hands
    (Cleanup shuffles every ingredient card back; ``rules.shopping.start_round``) and until the
    Shopping phase ends only the seat's own picks add to it (the sixth, forced card is taken as the
    phase ends; Cak Londho's extra card, Mbok Bakul and thefts come after). So the hand is read, and
    ``tests/waroong_wars/test_own_picks.py`` holds it equal to the picks replayed from the actions."""
    if eng.phase != "draft":
        return (0,) * eng.cat.n_types
    return tuple(eng.hands[seat])


class WaroongEncoder(Encoder):
    def __init__(self, config: Mapping[str, Any]):
        super().__init__(config)
        own = config.get("own_picks", False)
        if not isinstance(own, bool):
            raise ValueError(f"waroong_wars_v1: own_picks={own!r}; allowed: True or False")
        self.own_picks = own
        cat = self.cat = load_catalog()
        n = self.n = int(config["players"])
        nt, nk, nc = cat.n_types, len(cat.customers), len(cat.categories)
        nd, nch = len(cat.dishes), len(cat.characters)
        rl = int(config["round_limit"])
        m_size = cat.components["menu_deck_size"][n]
        self.slots = cat.components["display_size"]
        max_copies = max(d.copies for d in cat.dishes)
        max_kind = max(k.count for k in cat.customers)
        vps = sorted((m.dish.vp for m in cat.menus), reverse=True)
        max_menu_vp = float(sum(vps[:m_size]))
        tokens = cat.components["extra_vp_tokens"]
        pairs = cat.components["pair_bonus_vp"] * (m_size // 2)
        max_cust_vp = sum(k.count * max(0, k.end_vp) for k in cat.customers)
        min_cust_vp = sum(k.count * min(0, k.end_vp) for k in cat.customers)
        max_public = max_menu_vp + tokens + pairs
        max_hand = len(cat.ingredient_deck)
        main_max = max(cat.main_cards)
        deal = cat.components["cards_dealt_per_player"]
        self.features = menu_features(cat)
        self.layout = ObservationLayout([
            Field("phase", (3,), 0, 1, "one-hot: Shopping (draft), Cooking, game over"),
            Field("variants", (4,), 0, 1, "No-Memory Chef, Plain Mode, Character Mode, Constraint Mode switched on"),
            Field("round", (), 1, rl, "current round (1-based)"),
            Field("last_round", (), 0, 1, "the last menu card has been revealed: this is the last round"),
            Field("menu_deck_left", (), 0, m_size, "menu cards left in the deck"),
            Field("pick_no", (), 0, deal, "draft picks made so far this round"),
            Field("must_pick", (), 0, 1, "I still have to pick from the pack in front of me"),
            Field("picked", (n,), 0, 1, "player has picked from its current pack (relative seats)"),
            Field("pack", (nt,), 0, deal, "cards of each ingredient type in the pack in front of me (Shopping only)"),
            Field("hand_visible", (), 0, 1, "my hand is shown (always after Shopping; during it only with No-Memory Chef)"),
            Field("hand", (nt,), 0, main_max, "my ingredient cards per type (5 categories, then Kerupuk Puli, Sambal Bajak, Petis Udang, Bubuk Koya); zeros while hidden"),
            Field("customers", (nk,), 0, max_kind, "my customer cards per kind (data order: Primadona ... Tukang Bumbu)"),
            Field("score", (), min_cust_vp, max_public + max_cust_vp, "my full current score (menus, customers, tokens, pairs)"),
            *_display_fields(cat, self.slots),
            Field("hand_sizes", (n,), 0, max_hand, "ingredient cards held (face-down picks during Shopping), relative seats"),
            Field("customer_counts", (n,), 0, len(cat.customer_deck), "customer cards held, relative seats"),
            Field("go_boy", (n,), 0, 1, "holds a Go Boy!, relative seats"),
            Field("tokens", (n,), 0, tokens, "Extra VP tokens, relative seats"),
            Field("menus", (n,), 0, m_size, "menus in the scoring pile, relative seats"),
            Field("menu_vp", (n,), 0, max_menu_vp, "VP of the menus in the scoring pile, relative seats"),
            Field("pile_dishes", (n, nd), 0, max_copies, "cooked menus per dish name, relative seats"),
            Field("characters", (n, nch), 0, 1, "character one-hot (Bu Prasojo, Cak Londho, Geng Bajoel, Pak Bas, Jeng Sastro), relative seats"),
            Field("public_scores", (n,), 0, max_public, "visible score: menus + tokens + Geng Bajoel pairs, relative seats"),
            Field("active", (n,), 0, 1, "whose cooking turn it is (one-hot, relative seats)"),
            Field("first_cook", (n,), 0, 1, "holder of the First Cooking marker (one-hot, relative seats)"),
            Field("turns_taken", (), 0, n, "cooking turns finished this round"),
            Field("cooked_this_turn", (), 0, m_size, "menus the active player has cooked this turn"),
            *_turn_fields(cat, n, "the active player"),
            Field("token_supply", (), 0, tokens, "Extra VP tokens left"),
            Field("go_boy_supply", (), 0, cat.components["go_boy_cards"], "Go Boy! cards left in the supply"),
            Field("customer_deck", (), 0, len(cat.customer_deck), "customer cards left in the deck"),
            Field("customer_discard", (nk,), 0, max_kind, "used (face-up) customer cards per kind"),
            Field("pending_theft", (2,), 0, 1, "a Maling / Perayu awaits its target's answer (one-hot)"),
            Field("pending_attacker", (n,), 0, 1, "who played it (relative seats)"),
            Field("pending_target", (n,), 0, 1, "who must answer (relative seats)"),
            Field("pending_extra", (n,), 0, 1, "Bu Prasojo deciding on an extra customer card (relative seats)"),
            *([Field("own_picks", (nt,), 0, deal,
                     "option own_picks only: cards of each ingredient type I have picked so far in this round's "
                     "Shopping (my own face-down picks, remembered); zeros outside Shopping")] if own else []),
        ])
        self.state_layout = ObservationLayout([
            Field("phase", (3,), 0, 1, "one-hot: Shopping, Cooking, over"),
            Field("round", (), 1, rl, "current round"),
            Field("last_round", (), 0, 1, "last menu card revealed"),
            Field("pick_no", (), 0, deal, "draft picks made this round"),
            Field("turn", (n,), 0, 1, "cooking seat (one-hot, absolute seats)"),
            Field("first_cook", (n,), 0, 1, "marker holder (one-hot)"),
            Field("turns_taken", (), 0, n, "cooking turns finished this round"),
            Field("cooked_this_turn", (), 0, m_size, "menus cooked this turn"),
            *_turn_fields(cat, n, "the seat on turn", relative=False),
            Field("packs", (n, nt), 0, deal, "pack in front of each seat (hidden)"),
            Field("picked", (n,), 0, 1, "seat has picked from its pack"),
            Field("hands", (n, nt), 0, main_max, "ingredient cards per seat (hidden)"),
            Field("customers", (n, nk), 0, max_kind, "customer cards per seat (hidden)"),
            Field("go_boy", (n,), 0, 1, "holds a Go Boy!"),
            Field("tokens", (n,), 0, tokens, "Extra VP tokens"),
            Field("pile_dishes", (n, nd), 0, max_copies, "cooked menus per dish"),
            Field("characters", (n, nch), 0, 1, "character one-hot"),
            Field("scores", (n,), min_cust_vp, max_public + max_cust_vp, "full current scores"),
            *_display_fields(cat, self.slots),
            Field("menu_deck", (nd,), 0, max_copies, "menu cards left in the deck per dish (hidden)"),
            Field("next_menu", (nd,), 0, 1, "dish of the top menu card (hidden)"),
            Field("ingredient_deck", (nt,), 0, main_max, "undealt ingredient cards per type (hidden)"),
            Field("customer_deck", (nk,), 0, max_kind, "customer deck per kind (hidden)"),
            Field("customer_discard", (nk,), 0, max_kind, "used customer cards per kind"),
            Field("token_supply", (), 0, tokens, "Extra VP tokens left"),
            Field("go_boy_supply", (), 0, cat.components["go_boy_cards"], "Go Boy! cards left"),
            Field("pending_theft", (2,), 0, 1, "Maling / Perayu awaiting an answer"),
            Field("pending_attacker", (n,), 0, 1, "who played it"),
            Field("pending_target", (n,), 0, 1, "who must answer"),
            Field("pending_extra", (n,), 0, 1, "Bu Prasojo deciding"),
        ])
        self._o = self.layout.slices
        self._g = self.state_layout.slices
        self._variants = np.array([config["no_memory_chef"], config["plain_mode"], config["character_mode"],
                                   config["constraint_mode"]], dtype=np.float32)
        self._nd, self._nch = nd, nch
        self.fast = ObservationBuilder(self)

    # ------------------------------------------------------------------ shared blocks
    def _display(self, buf: np.ndarray, s: dict, display, constraint: bool) -> None:
        ids = [len(self.cat.menus) if m == EMPTY else m for m in display]
        f = self.features[ids]
        nc, ns = len(self.cat.categories), len(self.cat.supplements)
        buf[s["display_present"]] = f[:, 0]
        buf[s["display_requires"]] = f[:, 1:1 + nc].reshape(-1)
        buf[s["display_vp"]] = f[:, 1 + nc]
        buf[s["display_icons"]] = f[:, 2 + nc:2 + nc + ns].reshape(-1)
        buf[s["display_dish"]] = f[:, 2 + nc + ns:].reshape(-1)
        cook = np.zeros(self.slots, dtype=np.float32)
        cook[list(slots_for(constraint))] = 1
        buf[s["display_cookable"]] = cook

    def _seat_rows(self, order, piles, characters) -> tuple[np.ndarray, np.ndarray]:
        dishes = np.zeros((self.n, self._nd), dtype=np.float32)
        chars = np.zeros((self.n, self._nch), dtype=np.float32)
        for r, seat in enumerate(order):
            for m in piles[seat]:
                dishes[r, self.cat.menus[m].dish.index] += 1
            if characters[seat] >= 0:
                chars[r, characters[seat]] = 1
        return dishes, chars

    # ------------------------------------------------------------------ observation
    def observe(self, engine, agent: str) -> np.ndarray:
        """The observation of ``agent`` (the fast path: equal to :meth:`reference_observe`, see observation.py)."""
        return self.fast.observe(engine, engine.seat_of[agent])

    def batch_observer(self, num_games: int) -> BatchObserver:
        """Every seat's observation and mask of many games at once (:class:`BatchObserver`)."""
        return BatchObserver(self.fast, num_games)

    def observe_seats(self, engine, out: np.ndarray) -> None:
        """Every seat's observation into ``out`` (the fast path's one gather; see observation.py)."""
        self.fast.observe_seats(engine, out)

    def reference_observe(self, engine, agent: str) -> np.ndarray:
        """The observation by its readable definition: :meth:`encode_view` of the agent's :class:`PublicView`
        (and, with ``own_picks``, of the agent's :func:`own_picks`)."""
        seat = engine.seat_of[agent]
        return self.encode_view(public.build(engine, seat), own_picks(engine, seat) if self.own_picks else None)

    def encode_view(self, v: public.PublicView, picks: tuple[int, ...] | None = None) -> np.ndarray:
        """The observation vector of a :class:`PublicView` (nothing else is read) and, with the
        ``own_picks`` option (only then), the viewer's own picks this round (:func:`own_picks`).

        This is the definition of the observation; :class:`ObservationBuilder` computes the same
        bytes faster from the engine and a test holds the two equal."""
        if (picks is not None) != self.own_picks:
            raise ValueError(f"encode_view: own_picks is {'on' if self.own_picks else 'off'} in this encoder, so "
                             f"picks must be {'the viewer own_picks() counts' if self.own_picks else 'None'}; "
                             f"got {picks!r}")
        buf = self.layout.zeros()
        s = self._o
        n = self.n
        order = [(v.viewer + k) % n for k in range(n)]
        rel = {seat: k for k, seat in enumerate(order)}
        buf[s["phase"].start + PHASES.index(v.phase)] = 1
        buf[s["variants"]] = self._variants
        buf[s["round"]] = v.round
        buf[s["last_round"]] = v.last_round
        buf[s["menu_deck_left"]] = v.menu_deck_left
        buf[s["pick_no"]] = v.pick_no
        drafting = v.phase == "draft"
        buf[s["must_pick"]] = drafting and not v.picked[v.viewer]
        if drafting:
            buf[s["picked"]] = [v.picked[x] for x in order]
        buf[s["pack"]] = v.pack
        buf[s["hand_visible"]] = v.hand_visible
        buf[s["hand"]] = v.hand
        buf[s["customers"]] = v.customers
        buf[s["score"]] = v.score
        self._display(buf, s, v.display, v.constraint)
        buf[s["hand_sizes"]] = [v.hand_sizes[x] for x in order]
        buf[s["customer_counts"]] = [v.customer_counts[x] for x in order]
        buf[s["go_boy"]] = [v.go_boy[x] for x in order]
        buf[s["tokens"]] = [v.tokens[x] for x in order]
        buf[s["menus"]] = [len(v.piles[x]) for x in order]
        buf[s["menu_vp"]] = [sum(self.cat.menus[m].dish.vp for m in v.piles[x]) for x in order]
        dishes, chars = self._seat_rows(order, v.piles, v.characters)
        buf[s["pile_dishes"]] = dishes.reshape(-1)
        buf[s["characters"]] = chars.reshape(-1)
        buf[s["public_scores"]] = [v.public_scores[x] for x in order]
        if v.phase == "cook":
            buf[s["active"].start + rel[v.turn]] = 1
        buf[s["first_cook"].start + rel[v.first]] = 1
        buf[s["turns_taken"]] = v.turns_taken
        buf[s["cooked_this_turn"]] = len(v.cooked_this_turn)
        self._turn_events(buf, s, v.cooked_this_turn, v.cooked_supplements, [v.mbok_exchanges[x] for x in order],
                          [c for x in order for c in v.thefts[x]])
        buf[s["token_supply"]] = v.token_supply
        buf[s["go_boy_supply"]] = v.go_boy_supply
        buf[s["customer_deck"]] = v.customer_deck_size
        buf[s["customer_discard"]] = v.customer_discard
        self._pending(buf, s, v.pending, rel)
        if picks is not None:
            if len(picks) != self.cat.n_types:
                raise ValueError(f"encode_view: picks has {len(picks)} entries; allowed: one count per ingredient "
                                 f"type ({self.cat.n_types})")
            buf[s["own_picks"]] = picks
        return buf

    def _turn_events(self, buf: np.ndarray, s: dict, cooked, supplements, exchanges, thefts) -> None:
        """``cooked_dishes``, ``cooked_supplements``, ``mbok_exchanged`` and ``theft_results``
        (``exchanges`` and ``thefts``, flat, already in the row order of the vector)."""
        nd = self._nd
        for m, k in zip(cooked, supplements):
            d = self.cat.menus[m].dish.index
            buf[s["cooked_dishes"].start + d] += 1
            if k:
                buf[s["cooked_supplements"].start + (k - 1) * nd + d] = 1
        buf[s["mbok_exchanged"]] = exchanges
        buf[s["theft_results"]] = thefts

    @staticmethod
    def _pending(buf: np.ndarray, s: dict, p: dict | None, rel) -> None:
        if p is None:
            return
        if p["kind"] == "theft":
            buf[s["pending_theft"].start + ABILITIES.index(p["ability"])] = 1
            buf[s["pending_attacker"].start + rel[p["attacker"]]] = 1
            buf[s["pending_target"].start + rel[p["target"]]] = 1
        else:
            buf[s["pending_extra"].start + rel[p["seat"]]] = 1

    # ------------------------------------------------------------------ global state
    def global_state(self, e) -> np.ndarray:
        buf = self.state_layout.zeros()
        s = self._g
        n = self.n
        order = list(range(n))
        ident = {i: i for i in order}
        buf[s["phase"].start + PHASES.index(e.phase)] = 1
        buf[s["round"]] = e.round
        buf[s["last_round"]] = e.last_round
        buf[s["pick_no"]] = e.pick_no
        if e.phase == "cook":
            buf[s["turn"].start + e.turn] = 1
        buf[s["first_cook"].start + e.first] = 1
        buf[s["turns_taken"]] = e.turns_taken
        buf[s["cooked_this_turn"]] = len(e.cooked_this_turn)
        self._turn_events(buf, s, e.cooked_this_turn, e.cooked_supplements, e.mbok_exchanges,
                          [c for row in e.thefts for c in row])
        buf[s["packs"]] = np.asarray(e.packs, dtype=np.float32).reshape(-1)
        buf[s["picked"]] = e.picked
        buf[s["hands"]] = np.asarray(e.hands, dtype=np.float32).reshape(-1)
        buf[s["customers"]] = np.asarray(e.customers, dtype=np.float32).reshape(-1)
        buf[s["go_boy"]] = e.go_boy
        buf[s["tokens"]] = e.tokens
        dishes, chars = self._seat_rows(order, e.piles, e.characters)
        buf[s["pile_dishes"]] = dishes.reshape(-1)
        buf[s["characters"]] = chars.reshape(-1)
        buf[s["scores"]] = [e.score(i) for i in order]
        self._display(buf, s, e.display, e.constraint)
        deck = np.zeros(self._nd, dtype=np.float32)
        for m in e.menu_deck:
            deck[self.cat.menus[m].dish.index] += 1
        buf[s["menu_deck"]] = deck
        if e.menu_deck:
            buf[s["next_menu"].start + self.cat.menus[e.menu_deck[-1]].dish.index] = 1
        buf[s["ingredient_deck"]] = np.bincount(np.asarray(e.ingredient_deck, dtype=np.int64), minlength=self.cat.n_types)
        buf[s["customer_deck"]] = np.bincount(np.asarray(e.customer_deck, dtype=np.int64), minlength=len(self.cat.customers))
        buf[s["customer_discard"]] = e.customer_discard
        buf[s["token_supply"]] = e.token_supply
        buf[s["go_boy_supply"]] = e.go_boy_supply
        self._pending(buf, s, e.pending, ident)
        return buf

