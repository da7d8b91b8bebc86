"""Shared helpers of the search tests: seeded positions of every game, the hidden parts of a
state (per game, written independently of the determinisations), and a scrambler that changes
only hidden information."""

from __future__ import annotations

import importlib

import numpy as np

import envs
from envs.core.seeding import make_rng
from envs.wok_star.cards import EVENT_CARD_BASE, is_event_card


def game_of(env_id: str) -> str:
    return env_id.rsplit("_v", 1)[0]


def determinizer(env_id: str):
    return importlib.import_module(f"envs.{game_of(env_id)}.determinize").determinize


def one_config_per_player_count(env_id: str) -> list[dict]:
    seen, out = set(), []
    for c in envs.test_configurations(env_id):
        if c.kwargs.get("players") not in seen:
            seen.add(c.kwargs.get("players"))
            out.append(dict(c.kwargs))
    return out


def positions(env_id: str, kwargs: dict, seed: int, count: int = 3):
    """``count`` (env, engine) positions of one seeded game of random legal play, a deep copy each,
    spread over the whole game (one seeded tick in each of ``count`` equal stretches of it)."""
    env = envs.get_env_module(env_id).parallel_env(**kwargs)
    env.reset(seed=seed)
    rng = make_rng(seed)
    eng = env.unwrapped.engine
    seen = []
    while not eng.done and eng.tick < 3000:
        seen.append(eng.clone())
        eng.step({a: int(rng.choice(eng.legal_actions(a))) for a in eng.live_agents()})
    edges = np.linspace(0, len(seen), count + 1).astype(int)
    picks = sorted({int(rng.integers(lo, hi)) for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo})
    return env, [seen[i] for i in picks]


def deciders(eng) -> list[str]:
    """The seats with a choice now (more than one legal action), else every live seat."""
    live = eng.live_agents()
    return [a for a in live if len(eng.legal_actions(a)) > 1] or live


# ---------------------------------------------------------------------- hidden parts, per game
def card_multisets(env_id: str, eng, viewer: str) -> dict:
    """Every card kind's multiset across the places a determinisation may deal it to (must be kept)."""
    g = game_of(env_id)
    if g == "frying_master":
        return {"face_down_foods": sorted(f for d in eng.table.down for f in d),
                "unseen_plates": sorted(eng.set_aside + eng.piles[0].cards + eng.piles[1].cards)}
    if g == "wok_star":
        return {"deck_and_piles": sorted(eng.deck + eng.coupons + [EVENT_CARD_BASE + e for e in eng.event_pile])}
    v = eng.seat_of[viewer]
    ingredients = list(eng.ingredient_deck)
    for s in range(eng.n):
        for t, k in enumerate(eng.hands[s]):
            ingredients += [t] * k
        for t, k in enumerate(eng.packs[s]):
            ingredients += [t] * k
    customers = list(eng.customer_deck)
    for s in range(eng.n):
        for t, k in enumerate(eng.customers[s]):
            customers += [t] * k
    return {"ingredients": sorted(ingredients), "customers": sorted(customers),
            "menus_in_deck": len(eng.menu_deck), "own_customers": list(eng.customers[v])}


def scramble(env_id: str, eng, viewer: str, seed: int):
    """A copy of ``eng`` that differs only in what ``viewer`` cannot see (and its generator)."""
    rng = make_rng(seed)
    out = eng.clone()
    g = game_of(env_id)
    if g == "frying_master":
        out.table.down = [[d[i] for i in rng.permutation(len(d))] for d in out.table.down]
        for pile in out.piles:  # below the tops
            below = pile.cards[:-1]
            pile.cards[:-1] = [below[i] for i in rng.permutation(len(below))]
        a, b = out.piles[0].cards, out.piles[1].cards
        if len(a) > 1 and len(b) > 1:  # swap a plate below pile A's top with one below pile B's
            a[0], b[0] = b[0], a[0]
    elif g == "wok_star":
        data = out.data
        coupons_in = [i for i, c in enumerate(out.deck) if not is_event_card(c) and data.customers[c].coupon]
        if coupons_in and out.coupons:  # another unseen Coupon in the deck
            i, k = coupons_in[0], int(rng.integers(len(out.coupons)))
            out.deck[i], out.coupons[k] = out.coupons[k], out.deck[i]
        events_in = [i for i, c in enumerate(out.deck) if is_event_card(c)]
        if events_in and out.event_pile:
            i, k = events_in[0], int(rng.integers(len(out.event_pile)))
            out.deck[i], out.event_pile[k] = EVENT_CARD_BASE + out.event_pile[k], out.deck[i] - EVENT_CARD_BASE
        out.deck = [out.deck[i] for i in rng.permutation(len(out.deck))]
        out.event_pile = [out.event_pile[i] for i in rng.permutation(len(out.event_pile))]
    else:
        v = out.seat_of[viewer]
        others = [s for s in range(out.n) if s != v]
        # Swap a card between each opponent's hand (and pack, while Shopping) and the deck.
        for s in others:
            _swap_with_deck(out.hands[s], out.ingredient_deck, rng)
            if out.phase == "draft":
                _swap_with_deck(out.packs[s], out.ingredient_deck, rng)
            _swap_with_deck(out.customers[s], out.customer_deck, rng)
        out.ingredient_deck = [out.ingredient_deck[i] for i in rng.permutation(len(out.ingredient_deck))]
        out.customer_deck = [out.customer_deck[i] for i in rng.permutation(len(out.customer_deck))]
        out.menu_deck = [out.menu_deck[i] for i in rng.permutation(len(out.menu_deck))]
    out.rng = make_rng(seed + 1)
    if hasattr(out, "touch"):
        out.touch()
    out.invalidate_masks()
    return out


def _swap_with_deck(counts: list[int], deck: list[int], rng) -> None:
    """One card of the count row ``counts`` (kinds) trades places with one card of ``deck``."""
    held = [t for t, k in enumerate(counts) if k]
    if held and deck:
        t = held[int(rng.integers(len(held)))]
        k = int(rng.integers(len(deck)))
        counts[t] -= 1
        counts[deck[k]] += 1
        deck[k] = t


def observation(env, eng, agent: str) -> np.ndarray:
    return env.unwrapped.encoder.observe(eng, agent)
