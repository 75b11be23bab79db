"""Tests of xrl_gym against a real `xrl env serve` (bin/xrl)."""

import os
import signal
import socket
import subprocess
import time
import unittest

import numpy as np

import xrl_gym
from xrl_gym._proto import env_pb2

from common import XRL, go_rollout, tmpdir, zoo_model


def random_episode(env, seed, rng):
    """Plays one episode with uniformly random valid actions; returns the
    per-step (action, reward, terminated, truncated, info) list."""
    env.reset(seed=seed)
    steps = []
    while True:
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, r, term, trunc, info = env.step(a)
        steps.append((a, r, term, trunc, info))
        if term or trunc:
            return steps


class ConformanceTest(unittest.TestCase):
    """Same seed and actions => same trajectory and rewards as the Go
    environment (`xrl env rollout --trace`)."""

    def test_replay_matches_go_rollout(self):
        model = zoo_model("bert")
        cache = str(tmpdir() / "bert-cost.json")
        for seed, max_cands, horizon in [(5, 16, 100), (21, 4, 12)]:
            episodes = go_rollout(model, seed, 3, max_cands, cache, horizon=horizon)
            with xrl_gym.make(model, max_candidates=max_cands, horizon=horizon, seed=seed,
                              cost_cache=cache, xrl_bin=XRL) as env:
                for i, ep in enumerate(episodes):
                    # Episode i without a seed continues the sequence from seed.
                    _, info = env.reset(seed=None if i else seed)
                    self.assertEqual(info["seed"], seed + i)
                    for rec in ep:
                        _, r, term, trunc, info = env.step(rec["action"])
                        got = dict(reward=r, terminated=term, truncated=trunc, rule=info["rule"],
                                   candidates=info["candidates"], shown=info["shown"], nodes=info["nodes"],
                                   measured=info["measured"], latency_ns=info["latency_ns"], step=info["step"])
                        want = {k: rec[k] for k in got}
                        self.assertEqual(got, want, f"seed {seed} episode {i} step {rec['step']}")
                    self.assertTrue(ep[-1]["terminated"] or ep[-1]["truncated"])
                    with self.assertRaises(xrl_gym.NeedsResetError):
                        env.step(env.no_op_action)


class EnvTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.model = zoo_model("bert")
        cls.cache = str(tmpdir() / "bert-cost.json")
        cls.env = xrl_gym.make(cls.model, max_candidates=40, horizon=20, cost_cache=cls.cache, xrl_bin=XRL)

    @classmethod
    def tearDownClass(cls):
        cls.env.close()

    def test_spaces_and_masks(self):
        env = self.env
        self.assertEqual(env.action_space.n, 41)
        obs, info = env.reset(seed=2)
        self.assertIn("node_class", env.observation_space.keys())
        for k, space in env.observation_space.items():
            self.assertEqual(obs[k].shape, space.shape, k)
            self.assertEqual(obs[k].dtype, space.dtype, k)
        for _ in range(4):
            m = env.action_masks()
            self.assertEqual((m.dtype, m.shape), (np.dtype(bool), (41,)))
            self.assertTrue(m[-1], "No-Op must always be valid")
            shown = info["shown"]
            self.assertEqual(int(m[:-1].sum()), shown)
            self.assertTrue(m[:shown].all())
            np.testing.assert_array_equal(obs["action_mask"], m.astype(np.int8))
            self.assertEqual(env.action_space.sample(mask=m.astype(np.int8)) in np.flatnonzero(m), True)
            self.check_padding(obs, env.last_packed, shown)
            obs, _, term, trunc, info = env.step(0 if shown else env.no_op_action)
            if term or trunc:
                break

    def check_padding(self, obs, packed, shown):
        g = shown + 1
        np.testing.assert_array_equal(obs["num_nodes"][:g], packed["node_counts"])
        np.testing.assert_array_equal(obs["num_edges"][:g], packed["edge_counts"])
        self.assertFalse(obs["num_nodes"][g:].any() or obs["node_class"][g:].any())
        n0 = e0 = 0
        for i in range(g):
            n, e = packed["node_counts"][i], packed["edge_counts"][i]
            np.testing.assert_array_equal(obs["node_class"][i, :n], packed["node_class"][n0:n0 + n])
            self.assertFalse(obs["node_class"][i, n:].any())
            np.testing.assert_array_equal(obs["senders"][i, :e], packed["senders"][e0:e0 + e])
            np.testing.assert_array_equal(obs["edge_features"][i, :e], packed["edge_features"][e0:e0 + e])
            self.assertTrue((obs["senders"][i, :e] < n).all() and (obs["receivers"][i, :e] < n).all())
            n0, e0 = n0 + n, e0 + e
        self.assertEqual(n0, len(packed["node_class"]))

    def test_same_seed_same_episode(self):
        a = random_episode(self.env, 9, np.random.default_rng(1))
        b = random_episode(self.env, 9, np.random.default_rng(1))
        self.assertEqual([s[:4] for s in a], [s[:4] for s in b])

    def test_invalid_actions_raise(self):
        env = self.env
        env.reset(seed=4)
        shown = int(env.action_masks()[:-1].sum())
        self.assertLess(shown, 40, "the test needs a masked-out candidate action")
        for bad in [-1, 41, 1000, 1.5, "3", None, shown]:
            with self.assertRaises(xrl_gym.InvalidActionError) as cm:
                env.step(bad)
            self.assertIn(repr(bad) if not isinstance(bad, int) else str(bad), str(cm.exception))
        # The server checks too: bypass the client's check.
        with self.assertRaises(xrl_gym.InvalidActionError) as cm:
            env._call(env._stub.Step, env_pb2.StepRequest(env_id=env.env_id, action=shown), "step",
                      invalid=xrl_gym.InvalidActionError)
        self.assertIn(f"invalid action {shown}", str(cm.exception))
        env.step(env.no_op_action)  # still usable
        with self.assertRaises(xrl_gym.NeedsResetError):
            env.step(0)

    def test_unknown_env(self):
        env = self.env
        with self.assertRaises(xrl_gym.UnknownEnvError) as cm:
            env._call(env._stub.Reset, env_pb2.ResetRequest(env_id=987654), "reset")
        self.assertIn("env_id 987654", str(cm.exception))


class ErrorTest(unittest.TestCase):

    def test_missing_model(self):
        with self.assertRaises(xrl_gym.ServerUnavailableError) as cm:
            xrl_gym.make(str(tmpdir() / "nope.onnx"), xrl_bin=XRL)
        self.assertIn("nope.onnx", str(cm.exception))

    def test_bad_requests_on_running_server(self):
        with xrl_gym.make(zoo_model("bert"), max_candidates=8, xrl_bin=XRL) as env:
            addr = env._server.address
            cases = [
                (dict(model_path=str(tmpdir() / "nope.onnx")), xrl_gym.UnknownEnvError, "nope.onnx"),
                (dict(model_path=zoo_model("bert"), runtime="tpu"), xrl_gym.XrlEnvError, "tpu"),
                (dict(model_path=zoo_model("bert"), shape={"ids": [0, 3]}), xrl_gym.XrlEnvError, "dimension 0"),
                (dict(model_path=zoo_model("bert"), horizon=-2), xrl_gym.XrlEnvError, "horizon"),
            ]
            for kw, exc, text in cases:
                with self.assertRaises(exc, msg=str(kw)) as cm:
                    xrl_gym.connect(addr, **kw)
                self.assertIn(text, str(cm.exception))

    def test_no_server(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        t0 = time.monotonic()
        with self.assertRaises(xrl_gym.ServerUnavailableError):
            xrl_gym.connect(f"127.0.0.1:{port}", zoo_model("bert"), connect_timeout=2)
        self.assertLess(time.monotonic() - t0, 10)

    def test_server_death_raises(self):
        env = xrl_gym.make(zoo_model("bert"), max_candidates=8, xrl_bin=XRL)
        try:
            env.reset(seed=1)
            env._server.proc.send_signal(signal.SIGKILL)
            env._server.proc.wait()
            t0 = time.monotonic()
            with self.assertRaises(xrl_gym.ServerUnavailableError) as cm:
                env.step(env.no_op_action)
            self.assertLess(time.monotonic() - t0, 10, "a dead server must not block")
            self.assertIn("exited", str(cm.exception))
        finally:
            env.close()

    def test_server_stops_with_its_client(self):
        env = xrl_gym.make(zoo_model("bert"), max_candidates=8, xrl_bin=XRL)
        proc = env._server.proc
        env.close()
        self.assertIsNotNone(proc.poll(), "closing the environment must stop its server")
        self.assertEqual(proc.returncode, 0)


class VectorTest(unittest.TestCase):

    def test_four_envs_in_parallel_match_single_envs(self):
        model, cache = zoo_model("bert"), str(tmpdir() / "bert-cost.json")
        kw = dict(max_candidates=12, horizon=15, cost_cache=cache, xrl_bin=XRL)
        rng = np.random.default_rng(3)
        with xrl_gym.make_vec(model, 4, **kw) as vec:
            self.assertEqual(vec.action_space.shape, (4,))
            obs, infos = vec.reset(seed=30)
            self.assertEqual(obs["node_class"].shape[0], 4)
            np.testing.assert_array_equal(infos["seed"], [30, 31, 32, 33])
            actions, rewards, ends = [], [], np.zeros(4, bool)
            finished = 0
            for _ in range(40):
                masks = vec.action_masks()
                self.assertEqual(masks.shape, (4, 13))
                a = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
                obs, r, term, trunc, infos = vec.step(a)
                actions.append(np.where(ends, -1, a))
                rewards.append(np.where(ends, np.nan, r))
                done = term | trunc
                if done.any():
                    self.assertTrue(infos["_final_observation"][done].all())
                    for i in np.flatnonzero(done):
                        self.assertEqual(infos["final_observation"][i]["node_class"].shape,
                                         obs["node_class"][i].shape)
                    finished += int(done.sum())
                ends |= done
                if ends.all():
                    break
            self.assertGreater(finished, 0)
        # Each environment's first episode equals a single environment's.
        with xrl_gym.make(model, **kw) as env:
            for i in range(4):
                env.reset(seed=30 + i)
                for t in range(len(actions)):
                    if actions[t][i] < 0:
                        break
                    _, r, term, trunc, _ = env.step(int(actions[t][i]))
                    self.assertEqual(r, rewards[t][i], f"env {i} step {t}")

    def test_several_servers(self):
        model = zoo_model("bert")
        servers = [xrl_gym.ServerProcess([model, "--max-candidates", "8"], XRL) for _ in range(2)]
        try:
            with xrl_gym.make_vec(model, 4, addresses=[s.address for s in servers], max_candidates=8) as vec:
                vec.reset(seed=1)
                vec.step([8, 0, 8, 0])
                for s in servers:
                    with xrl_gym.connect(s.address, model, max_candidates=8) as probe:
                        info = probe._stub.GetServerInfo(env_pb2.GetServerInfoRequest())
                        self.assertEqual(info.open_envs, 3, s.address)  # two of the vector's + the probe
        finally:
            for s in servers:
                s.stop()


class ShapeTest(unittest.TestCase):
    """A PyTorch-exported model with symbolic dimensions, bound with shape=."""

    def test_torch_exported_model(self):
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = torch.nn.Linear(16, 32)
                self.b = torch.nn.Linear(16, 32)
                self.c = torch.nn.Linear(32, 8)

            def forward(self, x):
                return self.c(torch.relu(self.a(x)) + torch.relu(self.b(x)))

        torch.manual_seed(0)
        path = str(tmpdir() / "torch_net.onnx")
        torch.onnx.export(Net(), torch.randn(2, 16), path, input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, opset_version=13)
        with xrl_gym.make(path, shape={"x": [8, 16]}, max_candidates=8, xrl_bin=XRL) as env:
            obs, info = env.reset(seed=0)
            self.assertGreater(info["candidates"], 0, "two Linear layers reading x should merge")
            x_edges = obs["edge_features"][0, :obs["num_edges"][0]]
            self.assertTrue(np.isclose(x_edges[:, 2], 8 / 4096).any(), "the bound batch size 8 must show in edge features")
            _, r, _, _, info = env.step(0)
            self.assertTrue(info["rule"])
        with self.assertRaises(xrl_gym.ServerUnavailableError) as cm:
            xrl_gym.make(path, shape={"z": [8, 16]}, xrl_bin=XRL)
        self.assertIn('"z"', str(cm.exception))


if __name__ == "__main__":
    unittest.main()
