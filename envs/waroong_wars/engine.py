"""The Waroong Wars rules engine (pure Python + numpy).

One step is one simultaneous draft pick (Shopping) or one decision of the
player whose turn it is (Cooking); everyone else can only wait (``noop``).
The rules live in :mod:`envs.waroong_wars.rules` (one module per rulebook
section) and what is legal in :mod:`~envs.waroong_wars.legality`; this class
holds the state, sets up (:mod:`~envs.waroong_wars.rules.setup`), wires the
actions to the rules and snapshots (a snapshot is checked fully by
:mod:`~envs.waroong_wars.snapshot` before it is used).

State (every field is a plain list/int, so scenario tests can set them):

=====================  ==================================================
``phase``              "draft", "cook" or "over"
``round``, ``first``   round number (1-based); seat holding the First Cooking marker
``menu_deck``          menu card ids, top = last
``display``            6 menu ids, slot 0 = leftmost, -1 = empty
``last_round``         the last menu card has been revealed
``ingredient_deck``    undealt ingredient types this round, top = last
``packs``, ``picked``  per seat: the pack in front of it (counts per type); picked from it yet
``pick_no``            picks made this round (0..6)
``hands``              per seat: ingredient cards (counts per type): face-down picks during Shopping
``go_boy``             per seat: holds a Go Boy!; ``go_boy_supply``
``customers``          per seat: customer cards (counts per kind)
``customer_deck``      kinds, top = last; ``customer_discard``: face-up counts per kind
``tokens``             per seat: Extra VP tokens; ``token_supply``
``piles``              per seat: cooked menu ids (scoring pile)
``characters``         per seat: character index (-1 outside Character Mode)
``turn``               seat cooking now; ``turns_taken`` this round; ``cooked_this_turn``
``cooked_supplements`` per menu in ``cooked_this_turn``: the supplement added (0 none, 1 + index)
``mbok_exchanges``     per seat: ingredient cards the player on turn exchanged with it by Mbok Bakul this turn
``thefts``             per seat: [ingredient cards, customer cards] the player on turn stole from it this turn, and
                       [2] its Maling / Perayu cancelled by that seat's Hansip
``pending``            None, ``{"kind": "theft", "ability", "attacker", "target"}`` or ``{"kind": "extra", "seat"}``
``ended_by``           why the game ended ("" while it runs)
=====================  ==================================================
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

import numpy as np

from envs.core.config import engine_options
from envs.core.engine import StepResult, TickEngine
from envs.core.seeding import copy_rng
from envs.core.tables import ActionTable
from envs.waroong_wars import legality, public
from envs.waroong_wars import snapshot as snapshot_checks
from envs.waroong_wars.actions import action_index
from envs.waroong_wars.cards import load_catalog
from envs.waroong_wars.options import GAME_OPTIONS, NOT_RULES, check_variants
from envs.waroong_wars.rules import characters, cleanup, cooking, customers, scoring, setup, shopping
from envs.waroong_wars.snapshot import STATE_KEYS


class WaroongEngine(TickEngine):
    ENGINE_NAME: ClassVar[str] = "waroong_wars"
    OPTIONS = engine_options("WaroongEngine", GAME_OPTIONS, realtime=False, not_rules=NOT_RULES)
    SNAPSHOT_VERSION: ClassVar[int] = 2  # 2 (v1): cooked_supplements, mbok_exchanges, thefts
    LOAD_BUILDS_FRESH_STATE: ClassVar[bool] = True  # snapshot.check_state returns fresh lists for every field

    # ------------------------------------------------------------------ construction
    @classmethod
    def agent_ids(cls, config: Mapping[str, Any]) -> list[str]:
        check_variants(config)
        return [f"player_{i}" for i in range(int(config["players"]))]

    @classmethod
    def action_table(cls, config: Mapping[str, Any]) -> ActionTable:
        return action_index(int(config["players"])).table

    def _init_common(self, config: dict, rng: np.random.Generator, tick: int) -> None:
        super()._init_common(config, rng, tick)
        self.cat = load_catalog()
        self.n = len(self.agents)
        self.ix = action_index(self.n)
        self.n_actions = self.ix.table.n
        self.seat_of = {a: i for i, a in enumerate(self.agents)}
        self.no_memory = bool(config["no_memory_chef"])
        self.customers_on = not config["plain_mode"]
        self.characters_on = bool(config["character_mode"])
        self.constraint = bool(config["constraint_mode"])
        self.round_limit = int(config["round_limit"])
        self.vp_shaping = float(config["vp_shaping"])
        self.menu_deck_size = self.cat.components["menu_deck_size"][self.n]
        self.tukang_kinds = [self.cat.tukang_for(c) for c in range(len(self.cat.categories))]
        self.ability_kind = {k.ability: k.index for k in self.cat.customers if k.ability != "tukang" and k.ability != "score"}
        self._powers = [c.power for c in self.cat.characters]
        self._scores_before: list[int] | None = None
        # VP shaping's scores after a step, kept for the next step's "before" while the state is
        # unchanged (the state_version it was left at; see step_validated)
        self._scores_after: tuple[int, list[int]] | None = None
        self._scores_carry: list[int] | None = None
        # Flat lookup tables for the per-step scoring and observation code (see rules/scoring.py).
        self.menu_vp = [m.dish.vp for m in self.cat.menus]
        self.menu_dish = [m.dish.index for m in self.cat.menus]
        self.customer_vp = [k.end_vp for k in self.cat.customers]
        self.menu_needs = [tuple((c, r) for c, r in enumerate(m.dish.requires) if r) for m in self.cat.menus]
        self.menu_icons = [m.dish.icons for m in self.cat.menus]
        self.pick_masks = legality.pick_masks(self.n_actions, self.ix.pick0)
        # cook_base[slot][go_boy_for]: the index of that cook action without a supplement.
        self.cook_base = [[self.ix.cook(slot, g, 0) for g in range(self.ix.go_boy_options)]
                          for slot in range(self.cat.components["display_size"])]
        # Bumped whenever the state may have changed (a step, invalidate_masks()); with ``tick`` it keys
        # the public observation block that the encoder caches here (see observation.py).
        self.state_version = 0
        self.obs_cache: tuple | None = None

    def _setup(self) -> None:
        setup.set_up(self)

    # ------------------------------------------------------------------ helpers
    def power(self, seat: int) -> str | None:
        """The power key of the seat's character (None outside Character Mode)."""
        c = self.characters[seat]
        return None if c < 0 else self._powers[c]

    def public_view(self, agent: str) -> public.PublicView:
        """Exactly what ``agent`` may know now (see :mod:`envs.waroong_wars.public`)."""
        try:
            seat = self.seat_of[agent]
        except (KeyError, TypeError):
            self.check_agent(agent)
            raise
        return public.build(self, seat)

    def score(self, seat: int) -> int:
        return scoring.score(self, seat)

    # ------------------------------------------------------------------ caches
    def invalidate_masks(self) -> None:
        """Call after any state change made outside ``step`` (drops cached masks and observation parts)."""
        super().invalidate_masks()
        self.state_version += 1
        self.obs_cache = None

    def step_validated(self, joint: dict[str, int]) -> StepResult:
        after = self._scores_after
        self._scores_carry = after[1] if after is not None and after[0] == self.state_version else None
        self._scores_after = None
        self.state_version += 1
        self.obs_cache = None
        result = super().step_validated(joint)
        self.state_version += 1
        self.obs_cache = None
        if self._scores_carry is not None:  # end_tick's scores: this state's, until it changes
            self._scores_after = (self.state_version, self._scores_carry)
        self._scores_carry = None
        return result

    # ------------------------------------------------------------------ legality
    def _compute_mask(self, agent: str) -> np.ndarray:
        """``agent``'s mask; every other seat's is built in the same pass and stored in the core's
        mask cache (which the core empties on every state change, as ``invalidate_masks`` does)."""
        masks = legality.compute_masks(self)
        self._mask_cache.update(zip(self.agents, masks))
        return masks[self.seat_of[agent]]

    def _why_illegal(self, agent: str, action: int) -> str:
        if int(action) == 0 and not self.action_mask(agent)[0]:
            return legality.must_decide_reason(self, self.seat_of[agent])
        reason = legality.illegal_reason(self, self.seat_of[agent], int(action))
        return reason or "legal now"

    def default_action(self, agent: str) -> int:
        """What ``illegal_action="noop"`` plays for a player who must decide (``noop`` is not
        legal then): ``end_turn`` on one's Cooking turn, else the lowest legal index (a
        drafter's first available ingredient; not using Hansip against a theft; declining an
        extra customer). Everyone else: ``noop``."""
        m = self.action_mask(agent)
        if m[0]:
            return 0
        if m[self.ix.end_turn]:
            return int(self.ix.end_turn)
        return super().default_action(agent)

    def conflict(self, agent: str, action: int) -> str | None:
        # Only draft picks are simultaneous, and each touches only the picker's own pack;
        # in the Cooking phase a single player acts. Nothing can pre-empt anything.
        return None

    @property
    def done(self) -> bool:
        return self.phase == "over"

    # ------------------------------------------------------------------ stepping
    def begin_tick(self, joint: dict[str, int], result: StepResult) -> None:
        if self.vp_shaping:
            carry = self._scores_carry
            self._scores_before = carry if carry is not None else [scoring.score(self, s) for s in range(self.n)]
        self._scores_carry = None

    def apply(self, agent: str, action: int, result: StepResult) -> None:
        seat = self.seat_of[agent]
        ix = self.ix
        if action < ix.cook0:
            shopping.pick(self, seat, action - ix.pick0)
        elif action < ix.perayu0:
            cooking.cook(self, seat, *ix.decode_cook(action), result)
        elif action < ix.maling0:
            customers.use_theft(self, seat, "perayu", action - ix.perayu0 + 1, result)
        elif action < ix.mbok0:
            customers.use_theft(self, seat, "maling", action - ix.maling0 + 1, result)
        elif action < ix.respond0:
            target, give = ix.decode_mbok(action)
            customers.use_mbok_bakul(self, seat, target, ix.gives[give], result)
        elif action < ix.extra0:
            customers.respond(self, seat, bool(action - ix.respond0), result)
        elif action < ix.take_go_boy:
            characters.extra_customer(self, seat, bool(action - ix.extra0), result)
        elif action == ix.take_go_boy:
            cleanup.take_go_boy(self, seat, result)
            cooking.advance_turn(self, result)  # taking a Go Boy! ends the turn
        else:
            cooking.end_turn(self, seat, result)

    def end_tick(self, joint: dict[str, int], result: StepResult) -> None:
        if self.phase == "draft":
            shopping.after_picks(self, result)
        if self.vp_shaping and self._scores_before is not None:
            after = [scoring.score(self, s) for s in range(self.n)]
            for s, a in enumerate(self.agents):
                result.rewards[a] += self.vp_shaping * (after[s] - self._scores_before[s])
            self._scores_before = None
            self._scores_carry = after
        if self.phase == "over":
            for a, r in zip(self.agents, scoring.rank_rewards(self)):
                result.rewards[a] += r

    # ------------------------------------------------------------------ results
    def outcome(self) -> dict:
        keys = scoring.rank_keys(self)
        win = scoring.winners(self) if self.done else []
        order = sorted(range(self.n), key=lambda s: keys[s], reverse=True)
        return {
            "winners": [self.agents[s] for s in win],
            "scores": {a: float(keys[s][0]) for s, a in enumerate(self.agents)},
            "menus": {a: keys[s][1] for s, a in enumerate(self.agents)},
            "breakdown": {a: scoring.breakdown(self, s) for s, a in enumerate(self.agents)},
            "ranking": [self.agents[s] for s in order],
            "rounds": self.round,
            "ended_by": self.ended_by,
        }

    def outcome_seen_by(self, agent: str) -> dict:
        """Before the game's end (a truncated episode) the other seats' customer cards are face down:
        their scores, breakdowns and the ranking count only what the table sees (``scoring.public_score``),
        the seat's own its whole score (it holds its cards). The game's end scores every card openly:
        the outcome. (A truncation's info had shown every seat's hidden customer points.)"""
        self.check_agent(agent)
        if self.done:
            return self.outcome()
        out = self.outcome()
        me = self.agents.index(agent)
        seen = [scoring.score(self, s) if s == me else scoring.public_score(self, s) for s in range(self.n)]
        keys = [(seen[s], len(self.piles[s])) for s in range(self.n)]
        out["scores"] = {a: float(seen[s]) for s, a in enumerate(self.agents)}
        out["breakdown"] = {a: b if s == me else {k: v for k, v in b.items() if k != "customers"}
                            for s, (a, b) in enumerate(out["breakdown"].items())}
        out["ranking"] = [self.agents[s] for s in sorted(range(self.n), key=lambda s: keys[s], reverse=True)]
        return out

    # ------------------------------------------------------------------ snapshots
    def state_dict(self) -> dict:
        return {k: _plain(getattr(self, k)) for k in STATE_KEYS}

    def clone(self) -> "WaroongEngine":
        """An independent deep copy (its own rng in the same state): ``from_dict(to_dict())``
        without the snapshot checks, as Wok Star's. A copy of a live engine is the same state, so
        there is nothing to check; snapshots from anywhere else go through ``from_dict``, which
        checks them (``load_state_dict``). What ``_init_common`` derives from the config (read-only
        tables, and the memo of Shopping pick masks, read-only arrays keyed by the pack) is shared
        with this engine instead of derived again; the state is copied."""
        obj = type(self).__new__(type(self))
        obj.__dict__.update(self.__dict__)
        obj.config = dict(self.config)  # plain values (check_config)
        obj.rng = copy_rng(self.rng)
        obj._mask_cache = {}
        obj._scores_before = obj._scores_after = obj._scores_carry = None
        for key in STATE_KEYS:
            setattr(obj, key, _plain(getattr(self, key)))
        obj.state_version = 0
        obj.invalidate_masks()
        return obj

    @classmethod
    def check_config(cls, config: Mapping[str, Any]) -> None:
        """This game's config, checked before the core builds the engine from a snapshot."""
        snapshot_checks.check_config(config)

    def load_state_dict(self, state: dict) -> None:
        """Adopt a ``state_dict()`` after checking it fully (:mod:`envs.waroong_wars.snapshot`): a bad
        one raises SnapshotError naming the field, and nothing of this engine has changed then."""
        snapshot_checks.check_config(self.config)
        fields = snapshot_checks.check_state(self, state, self.tick)
        for key in STATE_KEYS:
            setattr(self, key, fields[key])
        self.invalidate_masks()


def _plain(value: Any) -> Any:
    """A deep copy of plain state data (scalars, and lists and dicts of them or of such containers)."""
    if isinstance(value, list):
        for v in value:
            if isinstance(v, (list, dict)):
                return [_plain(v) for v in value]
        return value[:]  # scalars only
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value

