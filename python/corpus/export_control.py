"""Exports models with data-dependent control flow, scripted with
torch.jit.script so that the exporter writes ONNX If and Loop nodes
(random weights from fixed seeds).

  vad_if: a Silero-VAD-style voice-activity model: the whole computation
      sits inside an If on the sample-rate input (16 kHz branch, or an
      8 kHz branch that first drops every other sample); each branch is a
      Conv1d + BatchNorm1d + ReLU front end, a time mean and a linear head
      scaled before the sigmoid (a Gemm followed by a Mul xrl can fold).
  loop_mlp: a recurrent refinement: a Loop runs a scaled Linear + ReLU on
      the carried state as many times as the steps input says.
  loop_if: nested control flow: a Loop whose body holds an If on the sign
      of the carried state's sum, each branch a scaled Linear.

Usage: export_control.py OUTDIR [NAME...]
"""

import os
import sys

import torch
from torch import nn

from common import export, seed_all


class Branch(nn.Module):
    """Conv1d front end, time mean, scaled linear head, sigmoid."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 16, 5, padding=2)
        self.bn = nn.BatchNorm1d(16)
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x.unsqueeze(1))))
        return torch.sigmoid(self.head(h.mean(dim=2)) * 0.5)


class VADIf(nn.Module):
    """Everything happens inside one If on the sample rate."""

    def __init__(self):
        super().__init__()
        self.b16 = Branch()
        self.b8 = Branch()

    def forward(self, x, sr):
        if int(sr) == 16000:
            out = self.b16(x)
        else:
            out = self.b8(x[:, ::2])
        return out


class LoopMLP(nn.Module):
    """h <- relu(0.5 * linear(h)), steps times."""

    def __init__(self, d=32):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x, steps):
        h = x
        for _ in range(int(steps)):
            h = torch.relu(self.lin(h) * 0.5)
        return h


class LoopIf(nn.Module):
    """h <- 0.5 * a(h) if sum(h) > 0 else 0.5 * relu(b(h)), steps times."""

    def __init__(self, d=16):
        super().__init__()
        self.a = nn.Linear(d, d)
        self.b = nn.Linear(d, d)

    def forward(self, x, steps):
        h = x
        for _ in range(int(steps)):
            if bool(h.sum() > 0):
                h = self.a(h) * 0.5
            else:
                h = torch.relu(self.b(h) * 0.5)
        return h


def vad_if(path):
    seed_all(20)
    m = VADIf()
    for b in (m.b16, m.b8):
        b.bn.running_mean.uniform_(-0.5, 0.5)
        b.bn.running_var.uniform_(0.5, 2)
    m = torch.jit.script(m.eval())
    export(m, (torch.randn(1, 512), torch.tensor(16000)), path, 16, ["x", "sr"], ["prob"],
           {"x": {0: "batch", 1: "samples"}, "prob": {0: "batch"}})


def loop_mlp(path):
    seed_all(21)
    m = torch.jit.script(LoopMLP().eval())
    export(m, (torch.randn(4, 32), torch.tensor(3)), path, 16, ["x", "steps"], ["h"],
           {"x": {0: "batch"}, "h": {0: "batch"}})


def loop_if(path):
    seed_all(22)
    m = torch.jit.script(LoopIf().eval())
    export(m, (torch.randn(2, 16), torch.tensor(4)), path, 16, ["x", "steps"], ["h"],
           {"x": {0: "batch"}, "h": {0: "batch"}})


EXPORTERS = {"vad_if": vad_if, "loop_mlp": loop_mlp, "loop_if": loop_if}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or sorted(EXPORTERS)
    for name in names:
        if name not in EXPORTERS:
            sys.exit(f"export_control.py: no model named {name!r} (have {', '.join(sorted(EXPORTERS))})")
        with torch.no_grad():
            EXPORTERS[name](os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
