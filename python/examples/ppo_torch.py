#!/usr/bin/env python3
"""Masked PPO in PyTorch on xrl's graph-rewriting environment, via xrl_gym.

A small graph network written in plain torch (index_add for message
passing and pooling) embeds the current graph and every candidate graph;
each candidate is scored by a shared head, No-Op by another, and invalid
actions are masked out. Run from the repository root:

    PYTHONPATH=python /usr/bin/python3 python/examples/ppo_torch.py bert.onnx --updates 20

All settings are the fields of Config (each with a default and a help
line); metrics use CleanRL's names (charts/episodic_return, losses/...).
"""

import argparse
import dataclasses
import os
import sys
import time

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import xrl_gym  # noqa: E402


@dataclasses.dataclass
class Config:
    """PPO and environment settings; each field becomes a command-line flag."""
    model: str = dataclasses.field(default="", metadata={"help": "ONNX model to optimise"})
    seed: int = dataclasses.field(default=1, metadata={"help": "seed of torch, numpy and the environments"})
    runtime: str = dataclasses.field(default="cost", metadata={"help": "latency model of the rewards: cost, ort, go or roofline (deterministic, analytic)"})
    cost_cache: str = dataclasses.field(default="", metadata={"help": "JSON file keeping the cost model's per-op times"})
    max_candidates: int = dataclasses.field(default=32, metadata={"help": "candidates shown per step"})
    horizon: int = dataclasses.field(default=20, metadata={"help": "steps after which an episode is truncated"})
    feedback_every: int = dataclasses.field(default=5, metadata={"help": "measure latency every N steps"})
    num_envs: int = dataclasses.field(default=2, metadata={"help": "environments stepped concurrently (one server)"})
    num_steps: int = dataclasses.field(default=64, metadata={"help": "steps per environment per update"})
    updates: int = dataclasses.field(default=8, metadata={"help": "PPO updates"})
    lr: float = dataclasses.field(default=5e-4, metadata={"help": "Adam learning rate (X-RLflow)"})
    gamma: float = dataclasses.field(default=0.99, metadata={"help": "discount"})
    gae_lambda: float = dataclasses.field(default=0.95, metadata={"help": "GAE lambda"})
    clip: float = dataclasses.field(default=0.2, metadata={"help": "PPO clip range"})
    ent_coef: float = dataclasses.field(default=0.01, metadata={"help": "entropy coefficient"})
    vf_coef: float = dataclasses.field(default=0.5, metadata={"help": "value loss coefficient"})
    epochs: int = dataclasses.field(default=4, metadata={"help": "optimisation epochs per update"})
    minibatches: int = dataclasses.field(default=4, metadata={"help": "minibatches per epoch"})
    max_grad_norm: float = dataclasses.field(default=0.5, metadata={"help": "global gradient-norm clip"})
    hidden: int = dataclasses.field(default=64, metadata={"help": "width of node and graph embeddings"})
    layers: int = dataclasses.field(default=2, metadata={"help": "message-passing layers"})
    threads: int = dataclasses.field(default=1, metadata={"help": "torch threads (leave cores to the server)"})
    xrl_bin: str = dataclasses.field(default="", metadata={"help": "xrl binary (default: $XRL_BIN, PATH, bin/xrl)"})
    quiet: bool = dataclasses.field(default=False, metadata={"help": "print only the final summary"})


# ---- Batching packed observations ----

def batch_graphs(observations):
    """Concatenates packed observations (xrl_gym, packed=True) into one
    disjoint graph batch. Returns a dict of tensors: node_class, senders,
    receivers (global node indices), edge_features, node_graph (each node's
    graph), graph_nodes (node count per graph), cur (the current graph of
    each observation), cand (candidate graphs), cand_obs (their
    observation), cand_slot (their action index) and mask [B, A]."""
    ncs, snd, rcv, ef, counts, mask = [], [], [], [], [], []
    cur, cand, cand_obs, cand_slot = [], [], [], []
    node_off = graph_off = 0
    for b, o in enumerate(observations):
        nc, ec = o["node_counts"], o["edge_counts"]
        g = len(nc)
        starts = np.repeat(np.cumsum(nc) - nc, ec) + node_off
        ncs.append(o["node_class"])
        snd.append(o["senders"] + starts)
        rcv.append(o["receivers"] + starts)
        ef.append(o["edge_features"])
        counts.append(nc)
        mask.append(o["action_mask"])
        cur.append(graph_off)
        cand.extend(range(graph_off + 1, graph_off + g))
        cand_obs.extend([b] * (g - 1))
        cand_slot.extend(range(g - 1))
        node_off += int(nc.sum())
        graph_off += g
    counts = np.concatenate(counts)
    t = lambda a, dt=torch.long: torch.as_tensor(np.asarray(a), dtype=dt)  # noqa: E731
    return {
        "node_class": t(np.concatenate(ncs)), "senders": t(np.concatenate(snd)),
        "receivers": t(np.concatenate(rcv)), "edge_features": t(np.concatenate(ef), torch.float32),
        "node_graph": t(np.repeat(np.arange(len(counts)), counts)), "graph_nodes": t(counts, torch.float32),
        "cur": t(cur), "cand": t(cand), "cand_obs": t(cand_obs), "cand_slot": t(cand_slot),
        "mask": t(np.stack(mask), torch.bool),
    }


# ---- The policy ----

def mlp(inp, hidden, out):
    return nn.Sequential(nn.Linear(inp, hidden), nn.Tanh(), nn.Linear(hidden, out))


class GraphPolicy(nn.Module):
    """Graph encoder plus candidate-scoring policy head and value head."""

    def __init__(self, num_classes, edge_dim, hidden=64, layers=2):
        super().__init__()
        self.embed = nn.Embedding(num_classes, hidden)
        self.edge = nn.Linear(edge_dim, hidden)
        self.node_update = nn.Linear(2 * hidden, hidden)
        self.mp = nn.ModuleList(nn.Linear(2 * hidden, hidden) for _ in range(layers))
        self.score = mlp(3 * hidden, hidden, 1)
        self.noop = mlp(hidden, hidden, 1)
        self.value = mlp(hidden, hidden, 1)

    def encode(self, b):
        """Returns one embedding per graph of the batch."""
        h = self.embed(b["node_class"])
        n, recv, send = h.shape[0], b["receivers"], b["senders"]
        incoming = torch.zeros_like(h).index_add_(0, recv, self.edge(b["edge_features"]))
        h = torch.relu(self.node_update(torch.cat([incoming, h], 1)))
        deg = torch.zeros(n).index_add_(0, recv, torch.ones(len(recv))).clamp_(min=1).unsqueeze(1)
        for lin in self.mp:
            msg = torch.zeros_like(h).index_add_(0, recv, h[send]) / deg
            h = h + torch.relu(lin(torch.cat([h, msg], 1)))
        g = torch.zeros(len(b["graph_nodes"]), h.shape[1]).index_add_(0, b["node_graph"], h)
        return g / b["graph_nodes"].clamp(min=1).unsqueeze(1)

    def forward(self, b):
        """Returns masked logits [B, A] and values [B]."""
        g = self.encode(b)
        gc = g[b["cur"]]
        cand = g[b["cand"]]
        base = gc[b["cand_obs"]]
        scores = self.score(torch.cat([cand, cand - base, base], 1)).squeeze(1)
        logits = torch.full(b["mask"].shape, -1e9)
        logits[b["cand_obs"], b["cand_slot"]] = scores
        logits[:, -1] = self.noop(gc).squeeze(1)
        logits = logits.masked_fill(~b["mask"], -1e9)
        return logits, self.value(gc).squeeze(1)


def masked_entropy(logits, mask):
    """Entropy of the categorical over valid actions only."""
    logp = torch.log_softmax(logits, -1)
    p = logp.exp()
    return -(torch.where(mask, p * logp, torch.zeros_like(p))).sum(-1)


def gae(rewards, values, dones, last_value, gamma, lam):
    """Generalised advantage estimates; rewards/values/dones are [T, N]
    (dones[t] marks that the episode ended at step t)."""
    T = rewards.shape[0]
    adv = torch.zeros_like(rewards)
    last = torch.zeros_like(last_value)
    for t in reversed(range(T)):
        next_v = last_value if t == T - 1 else values[t + 1]
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_v * nonterminal - values[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv


# ---- Training and evaluation ----

def env_kwargs(cfg):
    return dict(runtime=cfg.runtime, max_candidates=cfg.max_candidates, horizon=cfg.horizon,
                feedback_every=cfg.feedback_every, cost_cache=cfg.cost_cache or None,
                xrl_bin=cfg.xrl_bin or None, packed=True)


def log(cfg, *args):
    if not cfg.quiet:
        print(*args, flush=True)


def train(cfg):
    """Trains a policy; returns it and the episodic returns seen in training."""
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    vec = xrl_gym.make_vec(cfg.model, cfg.num_envs, seed=cfg.seed * 1000, **env_kwargs(cfg))
    try:
        first = vec.envs[0]
        policy = GraphPolicy(len(first.op_classes), first.spec_proto.edge_dim, cfg.hidden, cfg.layers)
        opt = torch.optim.Adam(policy.parameters(), lr=cfg.lr, eps=1e-5)
        obs, _ = vec.reset(seed=cfg.seed * 1000)
        ep_ret = np.zeros(cfg.num_envs)
        returns = []
        start, global_step = time.time(), 0
        N, T = cfg.num_envs, cfg.num_steps
        for update in range(1, cfg.updates + 1):
            buf_obs, acts, logps, vals = [], torch.zeros(T, N, dtype=torch.long), torch.zeros(T, N), torch.zeros(T, N)
            rews, dones = torch.zeros(T, N), torch.zeros(T, N)
            for t in range(T):
                with torch.no_grad():
                    logits, v = policy(batch_graphs(obs))
                dist = torch.distributions.Categorical(logits=logits)
                a = dist.sample()
                buf_obs.append(obs)
                acts[t], logps[t], vals[t] = a, dist.log_prob(a), v
                obs, r, term, trunc, _ = vec.step(a.numpy())
                done = term | trunc
                rews[t], dones[t] = torch.as_tensor(r, dtype=torch.float32), torch.as_tensor(done, dtype=torch.float32)
                ep_ret += r
                for i in np.flatnonzero(done):
                    returns.append(float(ep_ret[i]))
                    log(cfg, f"step {global_step + N * t}: charts/episodic_return={ep_ret[i]:.3f}")
                    ep_ret[i] = 0
            global_step += N * T
            with torch.no_grad():
                _, last_v = policy(batch_graphs(obs))
            adv = gae(rews, vals, dones, last_v, cfg.gamma, cfg.gae_lambda)
            ret = adv + vals
            flat_obs = [o for step in buf_obs for o in step]
            b_act, b_logp, b_adv, b_ret = acts.reshape(-1), logps.reshape(-1), adv.reshape(-1), ret.reshape(-1)
            size = len(flat_obs)
            mb = max(size // cfg.minibatches, 1)
            stats = []
            for _ in range(cfg.epochs):
                perm = np.random.permutation(size)
                for s in range(0, size, mb):
                    idx = perm[s:s + mb]
                    b = batch_graphs([flat_obs[i] for i in idx])
                    logits, v = policy(b)
                    logp_all = torch.log_softmax(logits, -1)
                    ti = torch.as_tensor(idx)
                    logp = logp_all.gather(1, b_act[ti].unsqueeze(1)).squeeze(1)
                    ratio = (logp - b_logp[ti]).exp()
                    a_n = b_adv[ti]
                    a_n = (a_n - a_n.mean()) / (a_n.std() + 1e-8) if len(idx) > 1 else a_n
                    pg = torch.max(-a_n * ratio, -a_n * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
                    vloss = 0.5 * ((v - b_ret[ti]) ** 2).mean()
                    ent = masked_entropy(logits, b["mask"]).mean()
                    loss = pg + cfg.vf_coef * vloss - cfg.ent_coef * ent
                    opt.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
                    opt.step()
                    with torch.no_grad():
                        kl = ((ratio - 1) - (logp - b_logp[ti])).mean().item()
                    stats.append((pg.item(), vloss.item(), ent.item(), kl))
            pg_, vl_, en_, kl_ = np.mean(stats, 0)
            log(cfg, f"update {update}: losses/policy_loss={pg_:.4f} losses/value_loss={vl_:.3f} "
                     f"losses/entropy={en_:.3f} losses/approx_kl={kl_:.4f} "
                     f"charts/SPS={global_step / (time.time() - start):.1f}")
        return policy, returns
    finally:
        vec.close()


def evaluate(cfg, policy, seeds, episodes_per_seed=1, greedy=False):
    """Mean return of the policy (sampling from it, or taking its most
    likely action when greedy; random valid actions when policy is None)
    over episodes with these seeds."""
    kw = env_kwargs(cfg)
    rng = np.random.default_rng(cfg.seed + 12345)
    gen = torch.Generator().manual_seed(cfg.seed + 54321)
    total, n = 0.0, 0
    with xrl_gym.make(cfg.model, **kw) as env:
        for s in seeds:
            for _ in range(episodes_per_seed):
                obs, _ = env.reset(seed=int(s))
                while True:
                    if policy is None:
                        a = int(rng.choice(np.flatnonzero(env.action_masks())))
                    else:
                        with torch.no_grad():
                            logits, _ = policy(batch_graphs([obs]))
                        if greedy:
                            a = int(logits[0].argmax())
                        else:
                            a = int(torch.multinomial(torch.softmax(logits[0], -1), 1, generator=gen))
                    obs, r, term, trunc, _ = env.step(a)
                    total += r
                    if term or trunc:
                        break
                n += 1
    return total / n


def parse(argv=None):
    """Builds a Config from command-line flags."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help=Config.__dataclass_fields__["model"].metadata["help"])
    for f in dataclasses.fields(Config):
        if f.name == "model":
            continue
        if f.type is bool or f.type == "bool":
            p.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, action="store_true", help=f.metadata["help"])
        else:
            typ = {"int": int, "float": float, "str": str}.get(f.type, f.type)
            p.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, type=typ, default=f.default,
                           help=f"{f.metadata['help']} (default {f.default!r})")
    return Config(**vars(p.parse_args(argv)))


def main(argv=None):
    cfg = parse(argv)
    policy, _ = train(cfg)
    seeds = range(10_000, 10_005)
    trained = evaluate(cfg, policy, seeds, 2)
    rand = evaluate(cfg, None, seeds, 2)
    print(f"mean return over {2 * len(seeds)} episodes: trained {trained:.3f}, random {rand:.3f}")


if __name__ == "__main__":
    main()
