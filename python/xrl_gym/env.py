"""XrlEnv: one environment instance on an `xrl env serve` server."""

import os

import grpc
import numpy as np

from . import observation, spaces
from ._proto import env_pb2, env_pb2_grpc
from .errors import (InvalidActionError, NeedsResetError, ServerUnavailableError,
                     XrlEnvError, from_rpc)

#: gRPC channel options: observations of big models exceed gRPC's default
#: 4 MB message limit.
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)]

#: Padding of observations: a graph may hold up to PAD_FACTOR times the
#: starting graph's nodes and edges (candidates are capped at twice its
#: operators).
PAD_FACTOR = 3


def open_channel(address, connect_timeout=30.0):
    """Returns a gRPC channel to address, raising ServerUnavailableError if
    the server does not answer within connect_timeout seconds."""
    ch = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
    try:
        grpc.channel_ready_future(ch).result(timeout=connect_timeout)
    except grpc.FutureTimeoutError:
        ch.close()
        raise ServerUnavailableError(f"no xrl env server answers at {address}") from None
    return ch


def create_request(model_path, shape=None, runtime="cost", max_candidates=200, horizon=100,
                   feedback_every=5, seed=0):
    """Returns the CreateEnvRequest of these settings (see make)."""
    shapes = []
    for name, dims in (shape or {}).items():
        dims = [int(d) for d in dims]
        shapes.append(env_pb2.InputShape(name=name, dims=dims))
    return env_pb2.CreateEnvRequest(
        model_path=os.path.abspath(model_path) if model_path else "", shapes=shapes,
        runtime=runtime or "", max_candidates=int(max_candidates), horizon=int(horizon),
        feedback_every=int(feedback_every), seed=int(seed))


def info_dict(info):
    """Returns a StepInfo as a dict (latencies in nanoseconds)."""
    d = {
        "step": info.step, "rule": info.rule, "no_op": info.no_op,
        "candidates": info.candidates, "shown": info.shown,
        "rule_candidates": dict(info.rule_candidates), "measured": info.measured,
        "latency_ns": info.latency_ns, "initial_latency_ns": info.initial_latency_ns,
        "best_latency_ns": info.best_latency_ns, "nodes": info.nodes,
        "candidate_time_ns": info.candidate_time_ns,
    }
    d["speedup"] = info.initial_latency_ns / info.best_latency_ns if info.best_latency_ns > 0 else 1.0
    return d


class XrlEnv(spaces.EnvBase()):
    """xrl's graph-rewriting environment, served by `xrl env serve`.

    Description: the agent optimises an ONNX model's graph by applying
    verified rewrites one at a time; every step shows the current graph
    and its candidate rewrites (see docs/python.md and env.Env).

    Action space: Discrete(max_candidates + 1). Action i applies candidate
    i (valid while action_masks()[i]); the last action is No-Op, always
    valid, which ends the episode.

    Observation space: a dict of padded arrays, row 0 the current graph and
    row 1 + i candidate i (docs/python.md, "Observations"). With
    packed=True, observations are instead the wire's packed arrays (no
    padding, variable sizes; no fixed observation_space shape).

    Rewards: X-RLflow's Eq. 2, (RT_prev - RT_now) / RT_0 * 100 on measured
    steps (every feedback_every steps and at the episode's end), 0.1 on
    the others.

    Episode end: terminated on No-Op or when no candidate is left;
    truncated after horizon steps.

    Seeding: reset(seed=s) seeds the episode; reset() continues with the
    previous seed plus one (the first defaults to the seed given at
    creation), as `xrl env rollout --seed` numbers episodes. Same seed and
    actions give the same observations and rewards as the Go environment.

    Build one with xrl_gym.make or xrl_gym.connect.
    """

    metadata = {"render_modes": []}

    def __init__(self, channel, request, server=None, own_channel=True, max_nodes=None,
                 max_edges=None, packed=False, timeout=None):
        self._channel = channel
        self._own_channel = own_channel
        self._stub = env_pb2_grpc.EnvServiceStub(channel)
        self._server = server
        self._timeout = timeout
        self._closed = False
        self._done = True
        self.env_id = None
        resp = self._call(self._stub.CreateEnv, request, "create")
        self.env_id = resp.env_id
        self.spec_proto = sp = resp.spec
        self.num_actions = sp.num_actions
        self.no_op_action = sp.no_op_action
        self.op_classes = list(sp.op_classes)
        self.max_nodes = int(max_nodes or PAD_FACTOR * sp.initial_graph_nodes)
        self.max_edges = int(max_edges or PAD_FACTOR * sp.initial_graph_edges)
        self.packed = packed
        self.action_space = spaces.Discrete(sp.num_actions)
        self.observation_space = observation.observation_space(
            spaces, sp.num_actions, self.max_nodes, self.max_edges, len(self.op_classes),
            sp.edge_dim, sp.global_dim)
        self._mask = np.zeros(sp.num_actions, bool)
        self.last_packed = None
        #: Size in bytes of the last step's observation on the wire.
        self.last_message_bytes = 0

    # The RPC plumbing.

    def _call(self, fn, req, what, invalid=XrlEnvError):
        if self._closed:
            raise XrlEnvError(f"{what}: the environment is closed")
        try:
            return fn(req, timeout=self._timeout)
        except grpc.RpcError as err:
            where = f"env {self.env_id}: {what}" if self.env_id is not None else what
            exc = from_rpc(err, where, invalid)
            if self._server is not None and not self._server.alive():
                tail = self._server.stderr_tail()
                exc = ServerUnavailableError(
                    f"{where}: the xrl env serve process exited with code "
                    f"{self._server.proc.returncode}" + (f": {tail}" if tail else ""))
            raise exc from None

    def _observe(self, obs):
        p = observation.packed(obs)
        self.last_packed = p
        self._mask = p["action_mask"]
        if self.packed:
            return p
        return observation.pad(p, self.num_actions, self.max_nodes, self.max_edges)

    # The Gymnasium API.

    def reset(self, *, seed=None, options=None):
        """Starts an episode; returns (observation, info). info["seed"] is
        the episode's seed."""
        req = env_pb2.ResetRequest(env_id=self.env_id)
        if seed is not None:
            req.seed = int(seed)
        resp = self._call(self._stub.Reset, req, "reset")
        self._done = False
        info = info_dict(resp.info)
        info["seed"] = resp.seed
        return self._observe(resp.observation), info

    def step(self, action):
        """Applies action; returns (observation, reward, terminated,
        truncated, info). Raises InvalidActionError for an action outside
        the space or masked out, NeedsResetError before reset or after the
        episode's end."""
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise InvalidActionError(f"env {self.env_id}: step: action {action!r} is not an integer") from None
        if a != action or not 0 <= a < self.num_actions:
            raise InvalidActionError(
                f"env {self.env_id}: step: action {action!r} outside 0..{self.num_actions - 1}")
        if self._done:
            raise NeedsResetError(f"env {self.env_id}: step: call reset() first (the episode ended or never began)")
        if not self._mask[a]:
            raise InvalidActionError(
                f"env {self.env_id}: step: action {a} is masked out: only {int(self._mask.sum()) - 1} "
                f"candidates are shown (actions 0..{int(self._mask.sum()) - 2}) plus No-Op {self.no_op_action}")
        resp = self._call(self._stub.Step, env_pb2.StepRequest(env_id=self.env_id, action=a), "step",
                          invalid=InvalidActionError)
        self._done = resp.terminated or resp.truncated
        self.last_message_bytes = resp.observation.ByteSize()
        return (self._observe(resp.observation), resp.reward, resp.terminated, resp.truncated,
                info_dict(resp.info))

    def action_masks(self):
        """Returns the valid actions as a bool array of length
        action_space.n; the last entry (No-Op) is always True."""
        return self._mask.copy()

    def close(self):
        """Releases the instance (and stops the server if make() started it)."""
        if self._closed:
            return
        try:
            if self.env_id is not None and (self._server is None or self._server.alive()):
                try:
                    self._stub.CloseEnv(env_pb2.CloseEnvRequest(env_id=self.env_id), timeout=10)
                except grpc.RpcError:
                    pass  # the server is gone or already forgot the instance
        finally:
            self._closed = True
            if self._own_channel:
                self._channel.close()
            if self._server is not None:
                self._server.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass
