"""A scripted Waroong Wars player that uses public information only.

It reads ``env.unwrapped.engine.public_view(agent)`` (what that player may
know) and the printed card data, and remembers its own face-down picks
itself, as a player at the table must.

* Shopping: picks the card that best advances the most valuable set of
  display menus it could still complete with the picks left
  (VP x coverage^2, where coverage counts owned cards, Tukangs and a Go Boy!),
  plus a matching supplement's +2.
* Cooking: plays Perayu on the opponent holding the most customers (two or
  more); plays Maling when one random card is likely enough to enable a
  menu; plays Mbok Bakul to swap a useless card when one card short of a big
  menu; then cooks the best feasible set of menus, highest VP first (Geng
  Bajoel counts pair bonuses), adding supplements, paying with the Go Boy!
  before Tukangs (a kept Tukang still scores 1 VP); when nothing can be
  cooked, takes a Go Boy! if allowed, else ends the turn.
* Answers: cancels a Maling with its Hansip if its own cooking turn is still
  to come this round, a Perayu if its customers are worth more than 1 VP on
  average; Bu Prasojo always takes the extra customer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.policy import Policy, table_engine
from envs.waroong_wars.actions import action_index
from envs.waroong_wars.cards import load_catalog
from envs.waroong_wars.public import PublicView
from envs.waroong_wars.rules.characters import PAIR_POWER, PLAIN_MENU_SUPPLEMENT_POWER
from envs.waroong_wars.rules.cooking import EMPTY
from envs.waroong_wars.rules.variants import slots_for


_ARRAY_FROM = 3  # menus from which the array form is faster than the reference's loops
_TABLES_KEPT = 128  # set tables kept (a display's tables serve a whole round, for every seat and policy)
_VALUES_KEPT = 1024  # draft values kept per set table
_MEMORIES_KEPT = 256  # (seat, table) memories of this round's picks kept by one policy


def _table_key(view: PublicView) -> tuple:
    """Which table and round a memory of the seat's own picks belongs to, read from what the whole
    table sees and nothing changes while a round's Shopping lasts (the round, the menus on display,
    the characters, scores, piles, tokens, customers and supplies). A copy of the game (deep copy,
    pickle, snapshot) has the same key, so a policy copied with it remembers on; another table has
    another, so one policy serves several tables. (Two tables of one seed whose drafts part ways
    with the same public record would share one: a policy per table keeps them apart.)"""
    return (view.round, view.display, view.characters, view.public_scores, view.first, view.menu_deck_left,
            view.piles, view.tokens, view.go_boy, view.customer_counts, view.customer_deck_size,
            view.customer_discard, view.token_supply, view.go_boy_supply)

#: The set tables of every policy in this process (:meth:`HeuristicPolicy._sets_table`), by (menus, own pile,
#: powers): a table and its memos depend on nothing else (the catalog is ``load_catalog()``'s one), so the
#: seats of a game and the games of a batch that share a display share its table.
_SHARED_TABLES: dict = {}


def _bits(k: int) -> np.ndarray:
    """(2^k - 1, k) 0/1: row ``bits - 1`` marks the menus of set ``bits`` (the reference's order)."""
    return (np.arange(1, 1 << k)[:, None] >> np.arange(k)) & 1


class _SetsTable:
    """The non-empty sets of a list of menus, in :meth:`HeuristicPolicy._best_set_reference`'s order
    (row ``bits - 1`` for ``bits`` = 1 .. 2^k - 1): ``req`` (S, 5), ``size`` (S,), ``vp`` (S,) float64
    with the pair bonus, ``sup_cap`` (S,) (2 x menus that could take a supplement), and ``bonus``, the
    supplement bonuses met so far by (set, supplements held), and ``values``, the draft values met so
    far (:meth:`HeuristicPolicy._pick_values`, :meth:`HeuristicPolicy._best_set`: a search's simulations
    meet the same positions again)."""

    __slots__ = ("menus", "icons_of", "req", "size", "vp", "sup_cap", "bonus", "values")

    def __init__(self, cat, menus: list[int], own: list[int], pair: bool, jeng: bool):
        dishes = [cat.menus[m].dish for m in menus]
        n_sup = len(cat.supplements)
        self.menus = list(menus)
        self.icons_of = [d.icons or (tuple(range(n_sup)) if jeng else ()) for d in dishes]
        bits = _bits(len(menus))
        self.req = bits @ np.array([d.requires[:5] for d in dishes], dtype=np.int64).reshape(len(dishes), 5)
        self.size = self.req.sum(axis=1)
        self.vp = (bits @ np.array([d.vp for d in dishes], dtype=np.int64)).astype(np.float64)  # exact: small ints
        if pair:
            for j in range(len(bits)):
                ds = own + [dishes[i].index for i in self.members(j)]
                self.vp[j] += 5 * sum(ds.count(d) // 2 - own.count(d) // 2 for d in set(ds))
        self.sup_cap = 2.0 * (bits @ np.array([1 if ic else 0 for ic in self.icons_of], dtype=np.int64))
        self.bonus: dict = {}
        self.values: dict = {}

    def remember(self, key: tuple, compute):
        """``values[key]``, computed by ``compute()`` the first time (at most ``_VALUES_KEPT`` kept)."""
        known = self.values.get(key)
        if known is None:
            if len(self.values) >= _VALUES_KEPT:
                self.values.clear()
            known = self.values[key] = compute()
        return known

    def members(self, j: int) -> list[int]:
        """The menus' positions in set row ``j``."""
        bits = j + 1
        return [i for i in range(len(self.menus)) if bits >> i & 1]

    def chosen(self, j: int) -> list[int]:
        return [self.menus[i] for i in self.members(j)]


def _fit(t: "_SetsTable", have: np.ndarray, go_boy: int, picks_left: int | None) -> tuple[np.ndarray, np.ndarray]:
    """For main-ingredient holdings ``have`` ``(..., 5)`` (hand plus Tukangs), each set of ``t``:
    whether it can be completed (the Go Boy! cards as wild cards; with ``picks_left`` more cards,
    or as it stands when None) and its coverage, the share of its requirements held (1 when
    complete sets only are asked for): two arrays ``(..., sets)``."""
    over = np.maximum(t.req - have, 0).sum(axis=-1)
    missing = over - np.minimum(go_boy, over)  # what the Go Boy! cards do not cover
    if picks_left is None:
        return missing == 0, np.ones(missing.shape)
    # held cards and wild cards: (size - over) + min(go_boy, over) = size - missing, the same integer
    return missing <= picks_left, (t.size - missing) / t.size


class HeuristicPolicy(Policy):
    name = "heuristic"
    #: the ``recall`` values (the ``heuristic?recall=...`` spec option)
    recalls = ("memory", "world")

    def __init__(self, recall: str = "memory") -> None:
        """``recall``: how it knows its own face-down picks while Shopping: ``"memory"`` (what it
        picked in this game, as a player at the table), or ``"world"``, the picks in the engine it
        is given: for the search player's simulations, whose worlds are determinisations (in a
        simulated world a seat's hand is the picks it made there; a memory would have forgotten
        the picks made before the simulation began), and for a behaviour-cloning teacher that
        labels a student's DAgger games (``heuristic?recall=world``: the picks are the student's,
        which a memory of the teacher's own labels gets wrong once the two differ). Either way it
        reads only its own seat's picks, which its player saw when making them."""
        if recall not in self.recalls:
            raise ValueError(f"recall must be 'memory' or 'world', got {recall!r}")
        self.recall = recall
        self.cat = load_catalog()
        self.tukang_kinds = [self.cat.tukang_for(c) for c in range(5)]
        self.kind = {k.ability: k.index for k in self.cat.customers}
        # (agent, the table's key of this round: _table_key) -> the seat's picks this round; and per
        # agent the key of its last pick (overruled_by_search corrects that one)
        self._memory: dict[tuple[str, tuple], list[int]] = {}
        self._last_key: dict[str, tuple] = {}

    @property
    def forced_moves_free(self) -> bool:
        """Recalling from the world, it remembers nothing: a single legal action is just played.
        (Recalling from memory, a forced draft pick is remembered.)"""
        return self.recall == "world"

    def reset(self, seed: int | None = None) -> None:
        self._memory.clear()
        self._last_key.clear()

    def overruled_by_search(self, agent: str, chosen: int, played: int) -> None:
        """The search player whose table policy it is played ``played`` over the pick ``chosen`` it
        returned for ``agent``: its memory of the seat's face-down picks takes the card really picked.
        (Kept as chosen, the hand still had the right size, so every later pick of the round was
        reckoned with a hand the seat did not hold.) As a DAgger teacher it keeps its own picks
        (``overruled`` is not overridden), as the shipped runs were cloned; ``recall=world`` reads
        the seat's real hand there."""
        key = (agent, self._last_key.get(agent))
        mem = self._memory.get(key)
        if mem is None or chosen == played or not self._is_pick(chosen):
            return
        pick0 = action_index(3).pick0
        hand = list(mem)
        if hand[chosen - pick0] <= 0:  # not the pick it remembered: nothing to correct
            return
        hand[chosen - pick0] -= 1
        if not self._is_pick(played):  # (no card taken: the count no longer matches, so it is forgotten)
            del self._memory[key]
            return
        hand[played - pick0] += 1
        self._memory[key] = hand

    # ------------------------------------------------------------------ entry
    def act(self, observation: dict[str, np.ndarray], agent: str, env: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError(f"{agent} has no legal action")
        if legal.size == 1 and not (env is not None and self._is_pick(int(legal[0]))):
            return int(legal[0])  # a forced draft pick still goes through _pick, to be remembered
        eng = table_engine(env, "waroong_wars")
        view = eng.public_view(agent)
        ix = action_index(view.n)
        legal_set = set(int(a) for a in legal)
        if view.phase == "draft":
            return self._pick(view, legal_set, ix, agent, self._world_hand(eng, view))
        if view.pending is not None:
            if view.pending["kind"] == "extra":
                return ix.extra0 + 1 if ix.extra0 + 1 in legal_set else ix.extra0
            return self._answer(view, legal_set, ix)
        return self._cooking_turn(view, legal_set, ix)

    # ------------------------------------------------------------------ helpers
    def _is_pick(self, action: int) -> bool:
        pick0 = action_index(3).pick0  # the same for every player count (right after noop)
        return pick0 <= action < pick0 + self.cat.n_types

    def _tukangs(self, view: PublicView) -> list[int]:
        return [view.customers[k] for k in self.tukang_kinds]

    def _power(self, view: PublicView, seat: int) -> str | None:
        c = view.characters[seat]
        return None if c < 0 else self.cat.characters[c].power

    def _set_value(self, view: PublicView, menus: list[int], hand: list[int], tuk: list[int], go_boy: int,
                   picks_left: int | None) -> float:
        return self._best_set(view, menus, hand, tuk, go_boy, picks_left)[0]

    def _best_set(self, view: PublicView, menus: list[int], hand: list[int], tuk: list[int], go_boy: int,
                  picks_left: int | None) -> tuple[float, list[int]]:
        """Best VP x coverage^2 over sets of ``menus`` (complete sets only when
        ``picks_left`` is None): :meth:`_best_set_reference`'s result, computed
        for all sets at once from a table of the sets kept per display (the
        same float64 operations, so the same value and the same first best set)."""
        if len(menus) < _ARRAY_FROM:
            return self._best_set_reference(view, menus, hand, tuk, go_boy, picks_left)
        t = self._sets_table(view, menus)
        key = ("best", tuple(hand), tuple(tuk), go_boy, picks_left, view.token_supply > 0)  # as _pick_values'
        value, chosen = t.remember(key, lambda: self._best_set_of(t, view, hand, tuk, go_boy, picks_left))
        return value, list(chosen)

    def _best_set_of(self, t: "_SetsTable", view: PublicView, hand: list[int], tuk: list[int], go_boy: int,
                     picks_left: int | None) -> tuple[float, list[int]]:
        """:meth:`_best_set` computed (not remembered) for the sets of ``t``."""
        ok, cov = _fit(t, np.add(hand[:5], tuk), go_boy, picks_left)
        if not ok.any():
            return 0.0, []
        if view.token_supply > 0:  # + 2 per menu that gets a matching supplement: at most 2 per menu with icons
            low = np.where(ok, t.vp * cov * cov, -1.0)
            high = np.where(ok, (t.vp + t.sup_cap) * cov * cov, -1.0)
            floor = low.max()
            cand = np.flatnonzero(high >= floor)  # the only sets that can be (or tie) the best
            sups = tuple(hand[5:5 + len(self.cat.supplements)])
            vals = [(t.vp[j] + self._supplement_bonus(t, int(j), sups)) * cov[j] * cov[j] for j in cand.tolist()]
            k = max(range(len(vals)), key=vals.__getitem__)  # first of the maxima, as the reference's strict >
            best, j = vals[k], int(cand[k])
        else:
            vals = np.where(ok, t.vp * cov * cov, -1.0)
            j = int(vals.argmax())
            best = vals[j]
        if not best > 0.0:
            return 0.0, []
        return float(best), t.chosen(j)

    def _sets_table(self, view: PublicView, menus: list[int]) -> "_SetsTable":
        """Every non-empty set of ``menus`` (in the reference's bit order):
        requirements, VP with pair bonuses, and the menus' supplement icons.
        Kept per (menus, own pile, powers) for every policy of the process (:data:`_SHARED_TABLES`),
        which a round's picks share."""
        pair = self._power(view, view.viewer) == PAIR_POWER
        jeng = self._power(view, view.viewer) == PLAIN_MENU_SUPPLEMENT_POWER
        own = tuple(self.cat.menus[m].dish.index for m in view.piles[view.viewer]) if pair else ()
        key = (tuple(menus), own, pair, jeng)
        tables = _SHARED_TABLES
        table = tables.get(key)
        if table is None:
            if len(tables) >= _TABLES_KEPT:
                tables.clear()
            table = tables[key] = _SetsTable(self.cat, menus, list(own), pair, jeng)
        return table

    def _supplement_bonus(self, t: "_SetsTable", j: int, sups: tuple[int, ...]) -> int:
        """+2 per chosen menu that gets a supplement, first matching icon first (the reference's greedy)."""
        key = (j, sups)
        bonus = t.bonus.get(key)
        if bonus is None:
            left = list(sups)
            bonus = 0
            for icons in (t.icons_of[i] for i in t.members(j)):
                for s in icons:
                    if left[s]:
                        left[s] -= 1
                        bonus += 2
                        break
            t.bonus[key] = bonus
        return bonus

    def _best_set_reference(self, view: PublicView, menus: list[int], hand: list[int], tuk: list[int], go_boy: int,
                            picks_left: int | None) -> tuple[float, list[int]]:
        """The readable definition of :meth:`_best_set` (every set in turn; tests hold the two equal)."""
        cat = self.cat
        best = 0.0
        best_set: list[int] = []
        k = len(menus)
        reqs = [cat.menus[m].dish.requires for m in menus]
        vps = [cat.menus[m].dish.vp for m in menus]
        pair = self._power(view, view.viewer) == PAIR_POWER
        own = [cat.menus[m].dish.index for m in view.piles[view.viewer]]
        jeng = self._power(view, view.viewer) == PLAIN_MENU_SUPPLEMENT_POWER
        for bits in range(1, 1 << k):
            req = [0] * 5
            vp = 0.0
            chosen = []
            for i in range(k):
                if bits >> i & 1:
                    chosen.append(menus[i])
                    vp += vps[i]
                    for c in range(5):
                        req[c] += reqs[i][c]
            size = sum(req)
            covered = 0
            over = 0
            for c in range(5):
                have = hand[c] + tuk[c]
                covered += min(req[c], have)
                over += max(0, req[c] - have)
            wild = min(go_boy, over)
            covered += wild
            missing = over - wild
            if picks_left is None:
                if missing:
                    continue
                cov = 1.0
            else:
                if missing > picks_left:
                    continue
                cov = covered / size
            if pair:
                dishes = own + [cat.menus[m].dish.index for m in chosen]
                vp += 5 * sum(dishes.count(d) // 2 - own.count(d) // 2 for d in set(dishes))
            if view.token_supply > 0:
                sups = [hand[5 + s] for s in range(len(cat.supplements))]
                for m in chosen:
                    icons = cat.menus[m].dish.icons or (tuple(range(len(sups))) if jeng else ())
                    for s in icons:
                        if sups[s]:
                            sups[s] -= 1
                            vp += 2
                            break
            if vp * cov * cov > best:
                best, best_set = vp * cov * cov, chosen
        return best, best_set

    # ------------------------------------------------------------------ shopping
    def _pick(self, view: PublicView, legal: set[int], ix, agent: str, world: list[int] | None = None) -> int:
        hand = self._known_hand(view, agent, world)
        best, best_a = -1.0, None
        for a, v in self._pick_scores(view, legal, ix, hand):
            if v > best:
                best, best_a = v, a
        if world is not None:  # recalling from the world: nothing to remember (the simulations' hot path)
            return best_a
        hand[best_a - ix.pick0] += 1
        key = _table_key(view)
        self._memory.pop((agent, key), None)
        self._memory[(agent, key)] = hand
        self._last_key[agent] = key
        while len(self._memory) > _MEMORIES_KEPT:  # the oldest first
            del self._memory[next(iter(self._memory))]
        return best_a

    def _world_hand(self, eng: Any, view: PublicView) -> list[int] | None:
        """With ``recall="world"``, the seat's hand as the engine holds it; else ``None``."""
        return list(eng.hands[view.viewer]) if self.recall == "world" else None

    def _known_hand(self, view: PublicView, agent: str, world: list[int] | None = None) -> list[int]:
        """The seat's hand as it knows it while Shopping: visible, or its picks this round (``world``:
        as the engine holds them, ``recall="world"``; else as remembered), or none known."""
        if view.hand_visible:
            return list(view.hand)
        mem = world if world is not None else self._memory.get((agent, _table_key(view)))
        ok = mem is not None and sum(mem) == view.pick_no
        return list(mem) if ok else [0] * self.cat.n_types

    def _pick_scores(self, view: PublicView, legal: set[int], ix, hand: list[int]) -> list[tuple[int, float]]:
        """[(pick action, value)] in action order: the value of ``hand`` with that card, plus the
        tie-break toward main ingredients."""
        tuk = self._tukangs(view)
        go_boy = int(view.go_boy[view.viewer])
        menus = [m for m in view.display if m != EMPTY]
        picks_left = 6 - view.pick_no - 1
        types = [a - ix.pick0 for a in sorted(legal) if ix.pick0 <= a < ix.pick0 + self.cat.n_types]
        values = self._pick_values(view, menus, hand, tuk, go_boy, picks_left, types)
        return [(ix.pick0 + t, v + 0.01 * (5 - t if t < 5 else 0)) for t, v in zip(types, values)]

    def preferences(self, observation: dict[str, np.ndarray], agent: str, env: Any = None) -> np.ndarray | None:
        """While Shopping, the value of each legal pick (what :meth:`act` maximises; ``-inf``
        elsewhere), for the search player's ``widen=prior``; ``None`` at the other decisions.
        Reads what :meth:`act` reads and remembers nothing."""
        eng = table_engine(env, "waroong_wars")
        view = eng.public_view(agent)
        if view.phase != "draft":
            return None
        mask = np.asarray(observation["action_mask"])
        hand = self._known_hand(view, agent, self._world_hand(eng, view))
        out = np.full(mask.size, -np.inf)
        for a, v in self._pick_scores(view, set(int(a) for a in np.flatnonzero(mask)), action_index(view.n), hand):
            out[a] = v
        return out

    def _pick_values(self, view: PublicView, menus: list[int], hand: list[int], tuk: list[int], go_boy: int,
                     picks_left: int, types: list[int]) -> list[float]:
        """:meth:`_set_value` of the hand with one more card of each type in ``types`` (the draft's
        candidates), as :meth:`_pick_values_reference` computes it: every candidate against every
        set of the display's menus in one array operation (the same float64 operations element by
        element, so the same values), then the supplement bonus of the sets that can still be best."""
        if len(menus) < _ARRAY_FROM or not types:
            return self._pick_values_reference(view, menus, hand, tuk, go_boy, picks_left, types)
        t = self._sets_table(view, menus)
        # Everything else the values depend on (the table holds the menus, the viewer's pile and powers).
        key = (tuple(hand), tuple(tuk), go_boy, picks_left, tuple(types), view.token_supply > 0)
        return list(t.remember(key, lambda: self._pick_values_of(t, view, hand, tuk, go_boy, picks_left, types)))

    def _pick_values_of(self, t: "_SetsTable", view: PublicView, hand: list[int], tuk: list[int], go_boy: int,
                        picks_left: int, types: list[int]) -> list[float]:
        """:meth:`_pick_values` computed (not remembered) for the sets of ``t``."""
        base = [h + k for h, k in zip(hand[:5], tuk)]
        have = np.array([base[:ty] + [base[ty] + 1] + base[ty + 1:] if ty < 5 else base for ty in types])[:, None]
        ok, cov = _fit(t, have, go_boy, picks_left)  # (candidates, sets), have: (candidates, 1, 5)
        n_sup = len(self.cat.supplements)
        held = tuple(hand[5:5 + n_sup])
        # (no supplement held nor among the candidates: no set gets a bonus, the branch below is exact)
        if view.token_supply > 0 and (any(held) or any(5 <= ty < 5 + n_sup for ty in types)):
            # as in _best_set: the bonus only for the sets that can be (or tie) the best
            sups = [held[:ty - 5] + (held[ty - 5] + 1,) + held[ty - 4:] if 5 <= ty < 5 + n_sup else held
                    for ty in types]
            # A set's bonus is at most 2 per menu that could take a supplement (sup_cap) and 2 per
            # supplement held: the sets whose bound stays below the best value without a bonus cannot win.
            cap = 2.0 * np.array([sum(h) for h in sups], dtype=np.float64)[:, None]
            floor = np.where(ok, t.vp * cov * cov, -1.0).max(axis=1)
            high = (t.vp + np.minimum(t.sup_cap, cap)) * cov * cov
            rows, cols = np.nonzero(ok & (high >= floor[:, None]))
            best = [0.0] * len(types)  # (a value that is not > 0 counts as 0, as in _best_set)
            bonus = self._supplement_bonus
            for r, j, v, c in zip(rows.tolist(), cols.tolist(), t.vp[cols].tolist(), cov[rows, cols].tolist()):
                value = (v + bonus(t, j, sups[r])) * c * c
                if value > best[r]:
                    best[r] = value
            return best
        vals = np.where(ok, t.vp * cov * cov, -1.0).max(axis=1).tolist()
        return [v if v > 0.0 else 0.0 for v in vals]

    def _pick_values_reference(self, view: PublicView, menus: list[int], hand: list[int], tuk: list[int],
                               go_boy: int, picks_left: int, types: list[int]) -> list[float]:
        """The readable definition of :meth:`_pick_values` (one :meth:`_set_value` per candidate;
        tests hold the two equal)."""
        out = []
        for ty in types:
            hand[ty] += 1
            out.append(self._set_value(view, menus, hand, tuk, go_boy, picks_left))
            hand[ty] -= 1
        return out

    # ------------------------------------------------------------------ answers
    def _answer(self, view: PublicView, legal: set[int], ix) -> int:
        cancel, allow = ix.respond0 + 1, ix.respond0
        if cancel not in legal:
            return allow
        p = view.pending
        if p["ability"] == "maling":
            my_pos = (view.viewer - view.first) % view.n
            still_to_cook = my_pos > view.turns_taken
            return cancel if still_to_cook else allow
        held = [(k, c) for k, c in enumerate(view.customers) if c]
        total = sum(c for _, c in held)
        mean = sum(self.cat.customers[k].end_vp * c for k, c in held) / total
        return cancel if mean > 1 else allow

    # ------------------------------------------------------------------ cooking
    def _cooking_turn(self, view: PublicView, legal: set[int], ix) -> int:
        me = view.viewer
        n = view.n
        # Perayu: rob the opponent with the most customer cards (two or more).
        perayu = [a for a in legal if ix.perayu0 <= a < ix.perayu0 + n - 1]
        if perayu:
            best = max(perayu, key=lambda a: (view.customer_counts[(me + a - ix.perayu0 + 1) % n], -a))
            if view.customer_counts[(me + best - ix.perayu0 + 1) % n] >= 2:
                return best
        hand = list(view.hand)
        tuk = self._tukangs(view)
        go_boy = int(view.go_boy[me])
        cookable = [s for s in slots_for(view.constraint) if view.display[s] != EMPTY]
        menus = [view.display[s] for s in cookable]
        cooks = [a for a in legal if ix.cook0 <= a < ix.perayu0]
        if not cooks:
            a = self._short_one_card(view, legal, ix, menus, hand, tuk, go_boy)
            if a is not None:
                return a
            return ix.take_go_boy if ix.take_go_boy in legal else ix.end_turn
        return self._best_cook(view, cooks, ix, menus, hand, tuk, go_boy)

    def _best_cook(self, view: PublicView, cooks: list[int], ix, menus, hand, tuk, go_boy) -> int:
        cat = self.cat
        # The feasible set of menus worth most; cook its highest-VP menu first.
        wanted = set(self._best_set(view, menus, hand, tuk, go_boy, None)[1])

        def key(a: int) -> tuple:
            slot, g, s = ix.decode_cook(a)
            d = cat.menus[view.display[slot]].dish
            return (view.display[slot] in wanted, d.vp, s > 0, g > 0, -a)

        return max(cooks, key=key)

    def _one_card_gains(self, view: PublicView, menus: list[int], hand: list[int], tuk: list[int],
                        go_boy: int) -> list[int]:
        """For each main-ingredient type: the best VP among ``menus`` that one more card of it would
        let be cooked alone, as :meth:`_one_card_gains_reference` finds it. Every dish is worth at
        least 1 VP (the catalogue's loader refuses less) and bonuses only add, so a set of one is
        worth more than 0 exactly when the menu can be completed: the completion test decides."""
        have = [hand[c] + tuk[c] for c in range(5)]
        dishes = [self.cat.menus[m].dish for m in menus]
        gains = []
        for c in range(5):
            have[c] += 1
            best = 0
            for d in dishes:
                if d.vp > best and sum(r - h for r, h in zip(d.requires[:5], have) if r > h) <= go_boy:
                    best = d.vp
            gains.append(best)
            have[c] -= 1
        return gains

    def _one_card_gains_reference(self, view: PublicView, menus: list[int], hand: list[int], tuk: list[int],
                                  go_boy: int) -> list[int]:
        """The readable definition of :meth:`_one_card_gains` (tests hold the two equal)."""
        gains = []
        for c in range(5):
            hand[c] += 1
            gains.append(max((self.cat.menus[m].dish.vp for m in menus
                              if self._set_value(view, [m], hand, tuk, go_boy, None) > 0), default=0))
            hand[c] -= 1
        return gains

    def _short_one_card(self, view: PublicView, legal: set[int], ix, menus, hand, tuk, go_boy) -> int | None:
        """Maling or Mbok Bakul when one more card would likely let a menu be cooked."""
        cat = self.cat
        me, n = view.viewer, view.n
        gains = self._one_card_gains(view, menus, hand, tuk, go_boy)
        expected = sum(gains) / 5
        maling = [a for a in legal if ix.maling0 <= a < ix.maling0 + n - 1]
        if maling and expected > 1.2:
            my_pos = (me - view.first) % n

            def target_key(a: int) -> tuple:
                seat = (me + a - ix.maling0 + 1) % n
                to_come = (seat - view.first) % n > my_pos
                return (to_come, view.hand_sizes[seat], -a)

            return max(maling, key=target_key)
        mbok = [a for a in legal if ix.mbok0 <= a < ix.respond0]
        if mbok and max(gains) >= 5:
            needed = [sum(cat.menus[m].dish.requires[c] for m in menus) for c in range(5)]
            useless = [t for t in range(5) if hand[t] > needed[t]]
            for a in mbok:
                target, g = ix.decode_mbok(a)
                give = ix.gives[g]
                if len(give) == 1 and give[0] in useless:
                    return a
        return None
