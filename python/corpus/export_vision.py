"""Exports torchvision image models with random weights (fixed seeds) at small sizes.

A name ending in _dyn is the model of the name without it, with the same
weights and a dynamic batch axis. vit_torchvision is torchvision's ViT at a
larger size than vit_tiny (3 layers, hidden 192, 3 heads, 64x64 images in
8x8 patches) with a dynamic batch axis.

Usage: export_vision.py OUTDIR
"""

import os
import sys
import zlib

import torchvision.models as tvm
from torchvision.models.swin_transformer import SwinTransformer
from torchvision.models.vision_transformer import VisionTransformer

import torch

from common import export, seed_all


def random_head(vit):
    """Gives a torchvision ViT's classifier random weights: torchvision starts
    it at zero, so every logit would be 0 whatever the image, and no check of
    the outputs could tell a wrong rewrite of the layers before it from a
    right one."""
    torch.nn.init.normal_(vit.heads.head.weight, std=0.02)
    torch.nn.init.normal_(vit.heads.head.bias, std=0.02)
    return vit


def vit_tiny():
    """A ViT with torchvision's own class at a small configuration."""
    return random_head(VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                         hidden_dim=64, mlp_dim=128, num_classes=10))


def swin_tiny():
    """A Swin transformer with torchvision's own class at a small configuration."""
    return SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4],
                           window_size=[4, 4], num_classes=10)


def vit_torchvision():
    """torchvision's ViT at a size where each of the 3 heads is 64 wide."""
    return random_head(VisionTransformer(image_size=64, patch_size=8, num_layers=3, num_heads=3,
                                         hidden_dim=192, mlp_dim=768, num_classes=10))


# name -> (constructor, input height/width, opset, batch axis dynamic)
MODELS = {
    "resnet18": (lambda: tvm.resnet18(num_classes=10), 64, 9, False),
    "squeezenet1_1": (lambda: tvm.squeezenet1_1(num_classes=10), 64, 10, False),
    "mobilenet_v2": (lambda: tvm.mobilenet_v2(num_classes=10), 64, 11, True),
    "efficientnet_b0": (lambda: tvm.efficientnet_b0(num_classes=10), 64, 12, False),
    "mobilenet_v3_small": (lambda: tvm.mobilenet_v3_small(num_classes=10), 64, 13, True),
    "vit_tiny": (vit_tiny, 32, 14, False),
    "swin_tiny": (swin_tiny, 32, 16, False),
    "resnet18_dyn": (lambda: tvm.resnet18(num_classes=10), 64, 9, True),
    "squeezenet1_1_dyn": (lambda: tvm.squeezenet1_1(num_classes=10), 64, 10, True),
    "efficientnet_b0_dyn": (lambda: tvm.efficientnet_b0(num_classes=10), 64, 12, True),
    "vit_tiny_dyn": (vit_tiny, 32, 14, True),
    "swin_tiny_dyn": (swin_tiny, 32, 16, True),
    "vit_torchvision": (vit_torchvision, 64, 14, True),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = sys.argv[2:] or list(MODELS)
    for name in names:
        build, hw, opset, dyn = MODELS[name]
        seed_all(zlib.crc32(name.removesuffix("_dyn").encode()))
        model = build()
        x = torch.randn(1, 3, hw, hw)
        axes = {"image": {0: "batch"}, "logits": {0: "batch"}} if dyn else None
        export(model, (x,), os.path.join(out, name + ".onnx"), opset, ["image"], ["logits"], axes)
        print("exported", name, "opset", opset)


if __name__ == "__main__":
    main()
