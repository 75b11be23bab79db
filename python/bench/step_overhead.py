#!/usr/bin/env python3
"""Step overhead of xrl_gym over the Go environment.

Runs `xrl env rollout --trace` (random agent, cost-model rewards) on a
model, then replays exactly the same episodes through xrl_gym (same
seeds, same actions, the same cost-model cache so that rewards agree)
and compares the wall time of each step: Go's env.Step inside the
rollout against Python's env.step (gRPC round trip, encoding, decoding
and, for padded observations, padding). Also reports the observation's
size on the wire per step. Usage, from the repository root:

    PYTHONPATH=python /usr/bin/python3 python/bench/step_overhead.py [MODEL.onnx]

Without MODEL, the cpu-preset BERT is exported to a temporary directory.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import xrl_gym  # noqa: E402


def main():
    p = argparse.ArgumentParser(description="Python vs Go environment step time")
    p.add_argument("model", nargs="?", help="ONNX model (default: the cpu-preset BERT)")
    p.add_argument("--episodes", type=int, default=6)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-candidates", type=int, default=200)
    p.add_argument("--xrl-bin", default=None)
    args = p.parse_args()
    xrl = xrl_gym.find_xrl(args.xrl_bin)
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if not model:
            model = os.path.join(tmp, "bert.onnx")
            subprocess.run([xrl, "models", "export", "bert", "-o", model], check=True, capture_output=True)
        cache, trace = os.path.join(tmp, "cost.json"), os.path.join(tmp, "trace.jsonl")
        rollout = [xrl, "env", "rollout", model, "--runtime", "cost", "--cost-cache", cache,
                   "--seed", str(args.seed), "--episodes", str(args.episodes),
                   "--max-candidates", str(args.max_candidates), "--trace", trace]
        subprocess.run(rollout, check=True, capture_output=True)  # warms the cost cache
        subprocess.run(rollout, check=True, capture_output=True)  # the timed Go run
        steps = [json.loads(line) for line in pathlib.Path(trace).read_text().splitlines()]
        go_ns = np.array([s["step_ns"] for s in steps], float)
        results = {}
        for packed in (True, False):
            py_ns, sizes = [], []
            with xrl_gym.make(model, max_candidates=args.max_candidates, cost_cache=cache,
                              xrl_bin=xrl, packed=packed) as env:
                episode = -1
                for s in steps:
                    if s["episode"] != episode:
                        episode = s["episode"]
                        env.reset(seed=s["seed"])
                    t0 = time.perf_counter_ns()
                    _, r, _, _, _ = env.step(s["action"])
                    py_ns.append(time.perf_counter_ns() - t0)
                    sizes.append(env.last_message_bytes)
                    if r != s["reward"]:
                        sys.exit(f"episode {episode} step {s['step']}: reward {r} differs from Go's {s['reward']}")
            results["packed" if packed else "padded"] = (np.array(py_ns, float), np.array(sizes, float))
    print(f"{model}: {len(steps)} steps in {args.episodes} episodes, {os.cpu_count()} cores")
    print(f"{'':14} {'median':>9} {'mean':>9}")
    print(f"{'Go env.Step':14} {np.median(go_ns) / 1e6:8.3f}ms {go_ns.mean() / 1e6:8.3f}ms")
    for name, (py, size) in results.items():
        over = py - go_ns
        print(f"{'Python ' + name:14} {np.median(py) / 1e6:8.3f}ms {py.mean() / 1e6:8.3f}ms   "
              f"overhead median {np.median(over) / 1e6:.3f}ms, mean {over.mean() / 1e6:.3f}ms")
    size = results["packed"][1]
    print(f"observation on the wire: median {np.median(size) / 1024:.1f} KiB, max {size.max() / 1024:.1f} KiB per step")


if __name__ == "__main__":
    main()
