"""XrlVecEnv: several environments stepped concurrently, in the shape of
Gymnasium's vector API."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import spaces


class XrlVecEnv:
    """num_envs XrlEnv instances, on one server or spread over several.

    reset and step take and return batches: observations are dicts of
    arrays with a leading num_envs axis, rewards/terminated/truncated are
    arrays, infos is a dict mapping each info key to an array over the
    environments (Gymnasium's vector convention, with "_key" masks).
    The environments' calls run concurrently (one thread each; the server
    steps different instances in parallel).

    Episodes restart automatically in the same step (Gymnasium 0.29's
    "same-step" autoreset, as Stable-Baselines3): when environment i's
    episode ends, obs[i] is the first observation of its next episode,
    infos["final_observation"][i] and infos["final_info"][i] hold the last
    observation and info of the finished one, and infos["_final_observation"]
    marks which environments finished.
    """

    def __init__(self, envs, servers=(), channels=()):
        if not envs:
            raise ValueError("XrlVecEnv needs at least one environment")
        self.envs = list(envs)
        self._servers = list(servers)
        self._channels = list(channels)
        self.num_envs = len(self.envs)
        first = self.envs[0]
        self.single_action_space = first.action_space
        self.single_observation_space = first.observation_space
        self.action_space = spaces.MultiDiscrete([first.num_actions] * self.num_envs)
        self._pool = ThreadPoolExecutor(max_workers=self.num_envs)
        self._closed = False

    def _map(self, fn, *args):
        futures = [self._pool.submit(fn, i, *(a[i] for a in args)) for i in range(self.num_envs)]
        return [f.result() for f in futures]

    def reset(self, *, seed=None, options=None):
        """Resets every environment: env i with seed + i when seed is an
        int, seed[i] when it is a list, its own next seed when None."""
        if seed is None or isinstance(seed, int):
            seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset: {len(seeds)} seeds for {self.num_envs} environments")
        res = self._map(lambda i, s: self.envs[i].reset(seed=s, options=options), seeds)
        return _stack([r[0] for r in res]), _infos([r[1] for r in res])

    def step(self, actions):
        """Steps env i with actions[i]; returns (obs, rewards, terminated,
        truncated, infos) as batches."""
        actions = np.asarray(actions).reshape(-1)
        if len(actions) != self.num_envs:
            raise ValueError(f"step: {len(actions)} actions for {self.num_envs} environments")

        def one(i, a):
            env = self.envs[i]
            obs, r, term, trunc, info = env.step(a)
            if term or trunc:
                final_obs, final_info = obs, info
                obs, info = env.reset()
                info = dict(info, final_observation=final_obs, final_info=final_info)
            return obs, r, term, trunc, info

        res = self._map(one, actions)
        return (_stack([r[0] for r in res]), np.array([r[1] for r in res], np.float64),
                np.array([r[2] for r in res]), np.array([r[3] for r in res]),
                _infos([r[4] for r in res]))

    def action_masks(self):
        """Returns the valid actions, bool of shape (num_envs, n)."""
        return np.stack([e.action_masks() for e in self.envs])

    def close(self):
        """Closes every environment and stops the servers make_vec started."""
        if self._closed:
            return
        self._closed = True
        try:
            for e in self.envs:
                e.close()
        finally:
            self._pool.shutdown(wait=True)
            for ch in self._channels:
                ch.close()
            for s in self._servers:
                s.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _stack(obs):
    if isinstance(obs[0], dict):
        if obs[0]["node_class"].ndim == 1:  # packed observations vary in size
            return obs
        return {k: np.stack([o[k] for o in obs]) for k in obs[0]}
    return np.stack(obs)


def _infos(infos):
    """Gymnasium's vector info layout: key -> array over envs, "_key" ->
    which envs have it."""
    out = {}
    n = len(infos)
    keys = []
    for info in infos:
        keys.extend(k for k in info if k not in keys)
    for k in keys:
        have = np.array([k in info for info in infos])
        vals = [info.get(k) for info in infos]
        if all(isinstance(v, (bool, np.bool_)) for v in vals if v is not None) and have.all():
            arr = np.array(vals, bool)
        elif all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in vals) and have.all():
            arr = np.array(vals)
        else:
            arr = np.empty(n, object)
            arr[:] = vals
        out[k] = arr
        out["_" + k] = have
    return out
