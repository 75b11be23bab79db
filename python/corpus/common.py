"""Shared helpers for the corpus exporters: seeding and a deterministic export."""

import argparse
import os
import random

import torch


def seed_all(seed):
    """Seeds every random source the exporters touch."""
    random.seed(seed)
    torch.manual_seed(seed)


def arg_parser(doc, **ints):
    """Returns a parser described by doc's first line, with -o/--output and an
    integer option --NAME per keyword NAME=default, in order."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("-o", "--output", required=True, help="ONNX file to write")
    add_ints(ap, **ints)
    return ap


def add_ints(ap, **ints):
    """Adds an integer option --NAME per keyword NAME=default, in order."""
    for name, default in ints.items():
        ap.add_argument("--" + name, type=int, default=default)


def export(model, args, path, opset, input_names, output_names, dynamic_axes=None):
    """Exports model in eval mode to path at the given opset, atomically.

    Export runs with gradients enabled: torch 1.13 cannot export the fused
    inference fast path of nn.TransformerEncoderLayer under no_grad.
    """
    model.eval()
    tmp = path + ".tmp"
    torch.onnx.export(
        model,
        args,
        tmp,
        opset_version=opset,
        input_names=input_names,
        output_names=output_names,
        dynamic_axes=dynamic_axes,
        do_constant_folding=True,
    )
    os.replace(tmp, path)


def distinct_layers(model):
    """Re-initialises every submodule: nn.TransformerEncoder deep-copies one
    layer, and its copies would otherwise share their initial weights."""
    for m in model.modules():
        if m is not model and hasattr(m, "reset_parameters"):
            m.reset_parameters()
        if isinstance(m, torch.nn.MultiheadAttention):
            m._reset_parameters()


def perturb_norms(model):
    """Gives LayerNorm layers weights near 1 and biases near 0 instead of
    exactly 1 and 0, as trained models have."""
    for m in model.modules():
        if isinstance(m, torch.nn.LayerNorm) and m.elementwise_affine:
            m.weight.data = 1.0 + 0.1 * torch.randn_like(m.weight)
            m.bias.data = 0.1 * torch.randn_like(m.bias)
