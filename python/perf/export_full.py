"""Exports full-size torchvision models with random weights (fixed seeds) for
timing `xrl optimize` at real-model scale: ViT-B/16 at 224x224 (86M
parameters) and MobileNetV3-Small at 224x224 with 1000 classes (2.5M
parameters, the size of PaddleOCR's detection and recognition networks),
both with a dynamic batch axis, opset 17.

Usage: export_full.py OUTDIR [NAME...]
"""

import os
import sys

import torch
import torchvision.models as tvm

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "corpus"))
from common import export, seed_all  # noqa: E402
from export_vision import random_head  # noqa: E402

MODELS = {
    "vit_b_16": lambda: random_head(tvm.vit_b_16(weights=None)),
    "mobilenet_v3_small_224": lambda: tvm.mobilenet_v3_small(weights=None),
}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or sorted(MODELS)
    os.makedirs(out, exist_ok=True)
    for name in names:
        if name not in MODELS:
            sys.exit(f"export_full.py: unknown model {name}; known: {', '.join(sorted(MODELS))}")
        seed_all(17)
        model = MODELS[name]()
        x = torch.randn(1, 3, 224, 224)
        export(model, (x,), os.path.join(out, name + ".onnx"), 17, ["image"], ["logits"],
               {"image": {0: "batch"}, "logits": {0: "batch"}})
        print(f"wrote {out}/{name}.onnx")


if __name__ == "__main__":
    main()
