"""Exports small models whose GELU, LayerNorm and RMSNorm are written the ways
popular model code writes them, for the fusion-form tests.

Each model is Linear(D, H) -> activation -> Linear(H, D) (GELU forms) or
Linear(D, H) -> normalisation -> Linear(H, D) (norm forms) on an input
[1, L, D], random weights from a fixed seed; D = 16, H = 32, L = 8 unless
--hidden H (D = H / 2) and --seq L say otherwise. Files are named
FORM_opsetN.onnx.
"""

import argparse
import math
import os

import torch
from torch import nn

from common import export, seed_all


def gelu_div(x):
    """GELU as in BERT's reference code: the form ONNX Runtime fuses."""
    return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))


def gelu_mul(x):
    """GELU with 1/sqrt(2) multiplied instead of sqrt(2) divided."""
    return x * 0.5 * (1.0 + torch.erf(x * 0.7071067811865476))


def gelu_mul_late_half(x):
    """GELU with the 0.5 applied last and 1/sqrt(2) multiplied."""
    return x * (1.0 + torch.erf(x * 0.7071067811865476)) * 0.5


def gelu_tanh(x):
    """tanh-approximated GELU as in GPT-2 (gelu_new)."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def gelu_tanh_mul(x):
    """tanh-approximated GELU with x*x*x and the cubic term folded differently."""
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * x * (1.0 + 0.044715 * x * x)))


def gelu_nn(x):
    """torch.nn.functional.gelu (erf form)."""
    return nn.functional.gelu(x)


def gelu_nn_tanh(x):
    """torch.nn.functional.gelu(approximate='tanh')."""
    return nn.functional.gelu(x, approximate="tanh")


class Norm(nn.Module):
    """A normalisation over the last axis written by hand in one of several ways."""

    def __init__(self, d, kind, eps=1e-5):
        super().__init__()
        self.w = nn.Parameter(1.0 + 0.1 * torch.randn(d))
        self.b = nn.Parameter(0.1 * torch.randn(d))
        self.kind = kind
        self.eps = eps

    def forward(self, x):
        k = self.kind
        if k.startswith("ln"):
            u = x.mean(-1, keepdim=True)
            d = x - u
            if k == "ln_div":
                v = d.pow(2).mean(-1, keepdim=True)
                return self.w * (d / torch.sqrt(v + self.eps)) + self.b
            if k == "ln_rsqrt":
                v = d.pow(2).mean(-1, keepdim=True)
                return self.w * (d * torch.rsqrt(v + self.eps)) + self.b
            if k == "ln_muldd":
                v = (d * d).mean(-1, keepdim=True)
                return self.w * (d / torch.sqrt(v + self.eps)) + self.b
        v = x.pow(2).mean(-1, keepdim=True)
        if k == "rms_div":
            return self.w * (x / torch.sqrt(v + self.eps))
        if k == "rms_rsqrt":
            return self.w * (x * torch.rsqrt(v + self.eps))
        if k == "rms_muldd":
            return self.w * (x * torch.rsqrt((x * x).mean(-1, keepdim=True) + self.eps))
        raise ValueError(k)


class MLP(nn.Module):
    """Linear -> mid -> Linear."""

    def __init__(self, mid, d, h):
        super().__init__()
        self.a = nn.Linear(d, h)
        self.mid = mid
        self.b = nn.Linear(h, d)

    def forward(self, x):
        return self.b(self.mid(self.a(x)))


class Fn(nn.Module):
    """Wraps a function as a module."""

    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


GELUS = {
    "gelu_div": gelu_div,
    "gelu_mul": gelu_mul,
    "gelu_mul_late_half": gelu_mul_late_half,
    "gelu_tanh": gelu_tanh,
    "gelu_tanh_mul": gelu_tanh_mul,
    "gelu_nn": gelu_nn,
    "gelu_nn_tanh": gelu_nn_tanh,
}
NORMS = ["ln_div", "ln_rsqrt", "ln_muldd", "rms_div", "rms_rsqrt", "rms_muldd"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--outdir", required=True, help="directory to write into")
    ap.add_argument("--opsets", default="13,17", help="comma-separated opsets")
    ap.add_argument("--hidden", type=int, default=32, help="width H of the activation or normalisation")
    ap.add_argument("--seq", type=int, default=8, help="sequence length L")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    h, d = a.hidden, a.hidden // 2
    forms = [(n, lambda f=f: Fn(f)) for n, f in GELUS.items()]
    forms += [(n, lambda n=n: Norm(h, n)) for n in NORMS]
    for opset in [int(s) for s in a.opsets.split(",")]:
        for i, (name, make) in enumerate(forms):
            seed_all(i)
            m = MLP(make(), d, h)
            path = os.path.join(a.outdir, "%s_opset%d.onnx" % (name, opset))
            export(m, (torch.randn(1, a.seq, d),), path, opset, ["x"], ["y"])


if __name__ == "__main__":
    main()
