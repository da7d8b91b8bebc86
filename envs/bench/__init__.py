"""Benchmark: seeded random legal play of every env and configuration, with PettingZoo peers.

    python -m envs.bench                          # every env, every configuration (about a minute)
    python -m envs.bench --env wok_star_v1 --first 4 --games 5 --repeats 5
    python -m envs.bench --all --json bench.json  # peers, vector env, training, scaling
    taskset -c 0 python -m envs.bench --peers     # pinned to one core (Linux)

Single process. For each configuration (``envs.test_configurations()``,
``--env`` and ``--first N`` to choose) one env is built, warmed up for a few
untimed steps, then timed over ``--repeats`` runs of ``--games`` episodes.
Each run replays the same games: episode ``g`` is reset with ``seed + g`` and
every acting agent's action is drawn uniformly from ``np.flatnonzero`` of the
action mask ``env.step`` returned for it, from a generator seeded with
``--seed``; so the runs do the same work and differ only by machine noise.

Figures (each as median and spread, the spread being min-max over the runs):

* **agent-steps/s**: agent actions applied per second of stepping (acting
  agents summed over ``env.step`` calls). Stepping time includes building
  every acting agent's observation and mask (``env.step`` returns them) and
  drawing the random actions; it excludes ``reset``.
* **joint steps/s**: ``env.step`` calls per second of stepping (for our
  envs, ticks in which every live agent acts).
* **episodes/s**: episodes per second of reset + stepping.
* **reset ms**: mean milliseconds per ``env.reset(seed=...)``, clocked apart
  from the steps.
* **peak MiB**: tracemalloc peak of the memory allocated during one reset and
  one episode of an already built env, in a separate untimed pass (tracing
  slows allocation, so the timed runs are not traced).
* **steps/episode**: mean joint steps per episode of the played games.

``--peers`` runs the same harness on PettingZoo's ``connect_four_v3`` (AEC;
each ``env.step`` call, closing ``None`` steps included, is one agent-step;
the acting agent's observation and mask come from ``env.last()``) and
``knights_archers_zombies`` (parallel, vector observations: ``_v11`` with
``obs_method="vector"`` or ``_v10`` with ``vector_state=True``; a random
action for every live agent; agent-steps = live agents summed over steps),
once before and once after our configurations, and reports both and their
drift. The **ratio** table divides each configuration's median agent-steps/s
by the faster of the peer's two medians and marks the issue's targets (at
least 3x connect_four_v3, at least 5x knights_archers_zombies) met or
MISSED. Needs pygame: ``pip install -e ".[bench]"``.

``--vector``: agent-steps/s of ``envs.vector.BatchedEnv`` at N = 1, 8, 64
games and of ``ProcessBatchedEnv`` at N = 64 (``--workers``, default the
usable cores), one configuration per env (its first test configuration);
random legal actions for the whole batch from the stacked masks; agent-steps
per batched step = the live seats (``venv.alive``) before it; about ``--vector-steps``
game-steps per run, and at least 200 batched steps (``--quick``: 8); *vs single env* = over the single-process figure above;
*vs loop of N envs* = over a Python loop stepping N separate envs through the
same games and steps (each live agent's action drawn from its mask as the
single-env harness draws), timed in turn with the batch in every repeat; *vs BatchedEnv* (process rows) = over the
in-process ``BatchedEnv`` of the same N in the same run (the issue's scaling
measure: at least 1.7x with both cores).

``--training``: ``training.throughput.run_throughput`` (SB3 rollout frames/s
through the bridge vs PPO on CartPole-v1, and end-to-end learner steps/s,
rollouts and updates, next to CartPole's; and the learner alone, on a recorded
trajectory of the game's bridge replayed at no cost, with the game's share of
the rollout; needs ``pip install -e ".[train]"``).

``--training-full`` (not part of ``--all``: minutes):
``training.throughput.run_full_configs``: each game's
``configs/<game>_full.yaml`` learning end to end on 1 and 2 processes (two
rollouts and their updates), next to PPO on CartPole-v1 with the same
algorithm settings and as many vectorised envs as the config has learner
slots, and the hours the config's ``total_timesteps`` take at that rate (the
PPO stage; warm starts come on top). Its rows join ``training`` in the JSON
with ``"kind": "full_config"``.

``--scaling``: per env and player count, the median over the measured
configurations of microseconds per agent-step and per joint step
(``relative``: over the env's smallest player count); and, per env (first
test configuration), the tracemalloc MiB held by one env after reset and by
``--mem-games`` (1,000) envs built and reset at once.

``--json PATH`` writes every figure. Top-level keys: ``schema``, ``command``,
``machine`` (cpu, cores, usable_cores, platform, python, implementation,
numpy, pettingzoo, kitchen_arena, load_average, started_at), ``settings``,
``configurations`` (one object per configuration: name, env_id, kwargs,
players, episodes_per_run, agent_steps_per_run, joint_steps_per_run,
steps_per_episode, peak_memory_mib, and agent_steps_per_s, joint_steps_per_s,
episodes_per_s, reset_ms each as ``{median, min, max, values}``), ``peers``
(per peer: name, target, games_per_run, before, after, drift), ``ratios``
(per configuration: configuration, agent_steps_per_s, vs: {peer: {ratio,
target, met, peer_agent_steps_per_s}}), ``vector``, ``training`` and
``scaling`` (cost_by_players, memory); a section not asked for is null.
"""

__all__ = ["main"]


def __getattr__(name: str):
    # ``main`` is imported when first asked for, so that ``python -m envs.bench`` can set its
    # thread variables (``__main__``) before anything imports numpy.
    if name == "main":
        from envs.bench.cli import main

        return main
    raise AttributeError(f"module 'envs.bench' has no attribute {name!r}")
