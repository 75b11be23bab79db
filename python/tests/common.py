"""Shared fixtures of the xrl_gym tests: the xrl binary and zoo models
exported once per test run."""

import json
import os
import pathlib
import subprocess
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]
XRL = os.environ.get("XRL_BIN") or str(REPO / "bin" / "xrl")

_tmp = None


def tmpdir():
    """A directory removed when the test process exits."""
    global _tmp
    if _tmp is None:
        _tmp = tempfile.TemporaryDirectory(prefix="xrl-gym-test-")
    return pathlib.Path(_tmp.name)


def xrl(*args):
    """Runs the xrl binary; returns its stdout, raising with its stderr on failure."""
    r = subprocess.run([XRL, *map(str, args)], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"xrl {' '.join(map(str, args))} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


def zoo_model(name="bert", **sizes):
    """Exports a cpu-preset zoo model (with size overrides) once; returns its path."""
    tag = "_".join(f"{k}{v}" for k, v in sorted(sizes.items()))
    path = tmpdir() / f"{name}{'_' + tag if tag else ''}.onnx"
    if not path.exists():
        args = ["models", "export", name, "-o", path]
        for k, v in sizes.items():
            args += [f"--{k}", v]
        xrl(*args)
    return str(path)


def go_rollout(model, seed, episodes, max_candidates, cost_cache, horizon=100, feedback_every=5):
    """Runs `xrl env rollout` with the random agent and returns its trace:
    a list of episodes, each a list of step records."""
    trace = tmpdir() / f"trace-{seed}-{episodes}-{max_candidates}-{horizon}.jsonl"
    xrl("env", "rollout", model, "--runtime", "cost", "--cost-cache", cost_cache, "--seed", seed,
        "--episodes", episodes, "--max-candidates", max_candidates, "--horizon", horizon,
        "--feedback-every", feedback_every, "--trace", trace)
    eps = [[] for _ in range(episodes)]
    for line in trace.read_text().splitlines():
        rec = json.loads(line)
        eps[rec["episode"]].append(rec)
    return eps
