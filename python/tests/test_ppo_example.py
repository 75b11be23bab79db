"""Learning test of python/examples/ppo_torch.py: after a short training
run on ResNet-18 (cpu preset at 64x64 images), the trained policy (taking
its most likely action) beats the random agent's mean return by MARGIN at
each of several seeds. Rewards come from the deterministic roofline
latency model, so the outcome depends on the seeds alone, not on how busy
the machine is (timed cost-model rewards made runs disagree)."""

import os
import sys
import time
import unittest

from common import XRL, zoo_model

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import ppo_torch  # noqa: E402

#: How much higher the trained policy's mean return must be than the
#: random agent's. Returns are percent of the starting latency saved (plus
#: 0.1 per unmeasured step); the greedy rewrite search reaches about 52 on
#: this model and episode length, the random agent about 6-12.
MARGIN = 10.0
SEEDS = (1, 2, 3)
EVAL_SEEDS = range(500, 505)


class PPOLearningTest(unittest.TestCase):

    def test_beats_random(self):
        model = zoo_model("resnet18", image=64)
        lines = []
        for seed in SEEDS:
            t0 = time.monotonic()
            cfg = ppo_torch.Config(model=model, seed=seed, runtime="roofline", max_candidates=16, horizon=20,
                                   num_envs=2, num_steps=32, updates=5, lr=1e-3, hidden=32, layers=1, quiet=True,
                                   xrl_bin=XRL)
            policy, _ = ppo_torch.train(cfg)
            trained = ppo_torch.evaluate(cfg, policy, EVAL_SEEDS, greedy=True)
            rand = ppo_torch.evaluate(cfg, None, EVAL_SEEDS, episodes_per_seed=3)
            lines.append(f"seed {seed}: trained {trained:.2f}, random {rand:.2f} ({time.monotonic() - t0:.0f}s)")
            print(f"ppo_torch {lines[-1]}", file=sys.stderr, flush=True)
            self.assertGreaterEqual(trained, rand + MARGIN, "; ".join(lines))


if __name__ == "__main__":
    unittest.main()
