"""xrl_gym: xrl's graph-rewriting environment for Python RL code.

The environment runs in Go, in an `xrl env serve` process; this package
talks to it over gRPC (proto/xrl/env/v1/env.proto) and presents it with
Gymnasium's API. It needs only grpcio, protobuf and numpy (and uses
gymnasium's spaces and Env base class when gymnasium is installed).

    import xrl_gym
    env = xrl_gym.make("bert.onnx", max_candidates=32)
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample(mask=env.action_masks().astype("int8")))

See docs/python.md for the observation layout, the vector environment and
multi-machine use.
"""

from ._server import ServerProcess, find_xrl
from .env import XrlEnv, create_request, open_channel
from .errors import (InvalidActionError, NeedsResetError, ObservationOverflowError,
                     ServerUnavailableError, UnknownEnvError, XrlEnvError)
from .observation import pad, packed
from .spaces import HAVE_GYMNASIUM
from .vector import XrlVecEnv

__all__ = [
    "make", "connect", "make_vec", "XrlEnv", "XrlVecEnv", "XrlEnvError", "InvalidActionError",
    "NeedsResetError", "UnknownEnvError", "ServerUnavailableError", "ObservationOverflowError",
    "ServerProcess", "find_xrl", "packed", "pad", "HAVE_GYMNASIUM",
]

_ENV_KEYS = ("max_nodes", "max_edges", "packed", "timeout")


def _server_args(model_path, shape, runtime, max_candidates, horizon, feedback_every, cost_cache,
                 server_args):
    args = [model_path, "--runtime", runtime, "--max-candidates", str(max_candidates),
            "--horizon", str(horizon), "--feedback-every", str(feedback_every)]
    for name, dims in (shape or {}).items():
        args += ["--shape", f"{name}={'x'.join(str(int(d)) for d in dims)}"]
    if cost_cache:
        args += ["--cost-cache", cost_cache]
    return args + list(server_args)


def make(model_path, shape=None, runtime="cost", max_candidates=200, horizon=100, feedback_every=5,
         xrl_bin=None, seed=0, cost_cache=None, server_args=(), **env_kwargs):
    """Starts an `xrl env serve` process for model_path and returns an
    XrlEnv on it; closing the environment stops the process.

    shape maps input names to dimension lists ({"x": [1, 3, 224, 224]}).
    runtime is the reward's latency model: "cost", "ort" or "go".
    seed is the first episode's seed when reset() is called without one.
    cost_cache names a JSON file keeping the cost model's per-op times
    (deterministic rewards across runs). The binary is xrl_bin, else
    $XRL_BIN, else xrl on PATH, else the repository's bin/xrl.
    env_kwargs: max_nodes, max_edges (padding; default 3x the starting
    graph), packed (unpadded observations), timeout (seconds per call).
    """
    _check_kwargs(env_kwargs)
    server = ServerProcess(_server_args(model_path, shape, runtime, max_candidates, horizon,
                                        feedback_every, cost_cache, server_args), xrl_bin)
    try:
        ch = open_channel(server.address)
    except Exception:
        server.stop()
        raise
    req = create_request(model_path, shape, runtime, max_candidates, horizon, feedback_every, seed)
    try:
        return XrlEnv(ch, req, server=server, **env_kwargs)
    except Exception:
        ch.close()
        server.stop()
        raise


def connect(address, model_path, shape=None, runtime="cost", max_candidates=200, horizon=100,
            feedback_every=5, seed=0, connect_timeout=30.0, **env_kwargs):
    """Creates an environment on a running server at address (HOST:PORT).
    model_path is a path on the server's machine; the other arguments are
    as for make."""
    _check_kwargs(env_kwargs)
    ch = open_channel(address, connect_timeout)
    req = create_request(model_path, shape, runtime, max_candidates, horizon, feedback_every, seed)
    try:
        return XrlEnv(ch, req, **env_kwargs)
    except Exception:
        ch.close()
        raise


def make_vec(model_path, num_envs, addresses=None, shape=None, runtime="cost", max_candidates=200,
             horizon=100, feedback_every=5, xrl_bin=None, seed=0, cost_cache=None, server_args=(),
             connect_timeout=30.0, **env_kwargs):
    """Returns an XrlVecEnv of num_envs environments.

    Without addresses, one `xrl env serve` process is started and holds
    them all. With addresses (a list of HOST:PORT of running servers, e.g.
    one per machine), environment i is created on addresses[i % len].
    Environment i's default seed sequence starts at seed + 100003 * i.
    """
    if num_envs < 1:
        raise ValueError(f"make_vec: num_envs must be positive, got {num_envs}")
    _check_kwargs(env_kwargs)
    servers = []
    if not addresses:
        servers.append(ServerProcess(_server_args(model_path, shape, runtime, max_candidates, horizon,
                                                  feedback_every, cost_cache, server_args), xrl_bin))
        addresses = [servers[0].address]
    channels, envs = {}, []
    try:
        for i in range(num_envs):
            addr = addresses[i % len(addresses)]
            if addr not in channels:
                channels[addr] = open_channel(addr, connect_timeout)
            req = create_request(model_path, shape, runtime, max_candidates, horizon, feedback_every,
                                 seed + 100003 * i)
            envs.append(XrlEnv(channels[addr], req, own_channel=False, **env_kwargs))
    except Exception:
        for e in envs:
            e.close()
        for ch in channels.values():
            ch.close()
        for s in servers:
            s.stop()
        raise
    return XrlVecEnv(envs, servers, channels.values())


def _check_kwargs(kw):
    bad = [k for k in kw if k not in _ENV_KEYS]
    if bad:
        raise TypeError(f"unexpected keyword arguments {bad}; known: {list(_ENV_KEYS)}")
