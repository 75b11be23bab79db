#!/usr/bin/env python3
"""Exports two small PyTorch models with affine layers ONNX Runtime does
not fold: an MLP head with Linear -> BatchNorm1d (and a scaled output)
and a stem whose BatchNorm2d comes before an unpadded Conv.

    /usr/bin/python3 python/corpus/affine_heads.py --mlp mlp.onnx --stem stem.onnx
"""
import argparse

import torch
from torch import nn


class ScaledMLP(nn.Module):
    """Linear, BatchNorm1d, ReLU, Linear, times a temperature."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        return self.body(x) * 0.5


def randomise_bn(m):
    """Gives BatchNorm layers non-trivial running statistics."""
    for mod in m.modules():
        if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d)):
            mod.running_mean.uniform_(-1, 1)
            mod.running_var.uniform_(0.5, 2)
            mod.weight.data.uniform_(0.5, 1.5)
            mod.bias.data.uniform_(-1, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mlp", required=True, help="ONNX file for the MLP head")
    ap.add_argument("--stem", required=True, help="ONNX file for the BN-before-Conv stem")
    a = ap.parse_args()
    torch.manual_seed(0)
    mlp = ScaledMLP()
    stem = nn.Sequential(nn.BatchNorm2d(3), nn.Conv2d(3, 8, 3), nn.ReLU())
    for m in (mlp, stem):
        randomise_bn(m)
        m.eval()
    torch.onnx.export(mlp, (torch.randn(4, 16),), a.mlp, input_names=["x"], output_names=["y"], opset_version=14)
    torch.onnx.export(stem, (torch.randn(1, 3, 16, 16),), a.stem, input_names=["x"], output_names=["y"], opset_version=14)


if __name__ == "__main__":
    main()
