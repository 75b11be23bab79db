"""Action and observation spaces: gymnasium's when it is installed, else
small stand-ins with the attributes RL code uses (n, shape, dtype,
sample, contains, seed)."""

import numpy as np

try:  # pragma: no cover - depends on the machine
    import gymnasium as _gym
    from gymnasium import spaces as _spaces
except ImportError:  # pragma: no cover
    _gym = None
    _spaces = None

HAVE_GYMNASIUM = _gym is not None


class _Space:
    def __init__(self, seed=None):
        self.np_random = np.random.default_rng(seed)

    def seed(self, seed=None):
        """Reseeds sample()."""
        self.np_random = np.random.default_rng(seed)
        return [seed]


class _Discrete(_Space):
    """{0, ..., n-1}."""

    def __init__(self, n, seed=None):
        super().__init__(seed)
        self.n = int(n)
        self.shape = ()
        self.dtype = np.dtype(np.int64)

    def sample(self, mask=None):
        """A uniform action, among those where mask (length n) is non-zero."""
        if mask is None:
            return int(self.np_random.integers(self.n))
        valid = np.flatnonzero(np.asarray(mask))
        if len(valid) == 0:
            raise ValueError("sample: the mask allows no action")
        return int(self.np_random.choice(valid))

    def contains(self, x):
        """Reports whether x is an action of the space."""
        try:
            v = int(x)
        except (TypeError, ValueError):
            return False
        return v == x and 0 <= v < self.n

    def __repr__(self):
        return f"Discrete({self.n})"


class _Box(_Space):
    """An array of a fixed shape and dtype between low and high."""

    def __init__(self, low, high, shape, dtype, seed=None):
        super().__init__(seed)
        self.low, self.high = low, high
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    def sample(self, mask=None):
        """A random array (integers uniform in [low, high], floats in [low, min(high, low+1)])."""
        if np.issubdtype(self.dtype, np.integer):
            return self.np_random.integers(self.low, self.high, self.shape, endpoint=True).astype(self.dtype)
        hi = min(self.high, self.low + 1.0)
        return self.np_random.uniform(self.low, hi, self.shape).astype(self.dtype)

    def contains(self, x):
        """Reports whether x has the space's shape and lies within its bounds."""
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all(x >= self.low)) and bool(np.all(x <= self.high))

    def __repr__(self):
        return f"Box({self.low}, {self.high}, {self.shape}, {self.dtype})"


class _Dict(_Space):
    """A dict of named spaces."""

    def __init__(self, spaces, seed=None):
        super().__init__(seed)
        self.spaces = dict(spaces)

    def __getitem__(self, key):
        return self.spaces[key]

    def keys(self):
        """The names of the sub-spaces."""
        return self.spaces.keys()

    def items(self):
        """The (name, space) pairs."""
        return self.spaces.items()

    def sample(self, mask=None):
        """A sample of every sub-space."""
        return {k: s.sample() for k, s in self.spaces.items()}

    def contains(self, x):
        """Reports whether x has every key and each value is in its sub-space."""
        return isinstance(x, dict) and x.keys() == self.spaces.keys() and all(
            s.contains(x[k]) for k, s in self.spaces.items())

    def __repr__(self):
        return f"Dict({self.spaces!r})"


class _MultiDiscrete(_Space):
    """A vector of independent Discrete actions."""

    def __init__(self, nvec, seed=None):
        super().__init__(seed)
        self.nvec = np.asarray(nvec, dtype=np.int64)
        self.shape = self.nvec.shape
        self.dtype = np.dtype(np.int64)

    def sample(self, mask=None):
        """A uniform action for each component."""
        return (self.np_random.random(self.nvec.shape) * self.nvec).astype(np.int64)

    def contains(self, x):
        """Reports whether x is a valid action vector."""
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all((x >= 0) & (x < self.nvec)))


def Discrete(n):
    """gymnasium.spaces.Discrete(n), or the stand-in."""
    return _spaces.Discrete(n) if HAVE_GYMNASIUM else _Discrete(n)


def Box(low, high, shape, dtype):
    """gymnasium.spaces.Box, or the stand-in."""
    return _spaces.Box(low, high, shape, dtype) if HAVE_GYMNASIUM else _Box(low, high, shape, dtype)


def Dict(spaces):
    """gymnasium.spaces.Dict, or the stand-in."""
    return _spaces.Dict(spaces) if HAVE_GYMNASIUM else _Dict(spaces)


def MultiDiscrete(nvec):
    """gymnasium.spaces.MultiDiscrete, or the stand-in."""
    return _spaces.MultiDiscrete(nvec) if HAVE_GYMNASIUM else _MultiDiscrete(nvec)


def EnvBase():
    """The class xrl_gym's environment derives from: gymnasium.Env, or object."""
    return _gym.Env if HAVE_GYMNASIUM else object
