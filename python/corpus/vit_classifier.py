#!/usr/bin/env python3
"""Exports a torchvision VisionTransformer image classifier to ONNX.

torchvision's VisionTransformer (class token, pre-LN encoder, head on the
class token) at a chosen size; the default is ViT-S/16-like (6 layers,
hidden 384, 6 heads, MLP 1536) at 224x224; --layers 12 --dim 768
--heads 12 --mlp 3072 gives ViT-B/16. Input pixels [1, 3, H, W] (with
--dynamic-batch the batch axis is dynamic, and the class token's Expand
reads a ConstantOfShape); output logits [batch, 1000]. Weights are random.

    /usr/bin/python3 python/corpus/vit_classifier.py -o vit.onnx

The export runs with gradients enabled (torch 1.13 cannot export the
encoder's inference fast path).
"""
import torch
from torchvision.models.vision_transformer import VisionTransformer

from common import arg_parser, export, seed_all


class StaticBatchViT(VisionTransformer):
    """VisionTransformer whose class token is concatenated for a fixed batch
    (torchvision's expand exports a ConstantOfShape chain even when the
    batch is static)."""

    def forward(self, x):
        x = self._process_input(x)
        cls = torch.cat([self.class_token] * int(x.shape[0]), dim=0)
        x = self.encoder(torch.cat([cls, x], dim=1))
        return self.heads(x[:, 0])


def main():
    ap = arg_parser(__doc__, image=224, patch=16, layers=6, dim=384, heads=6, mlp=1536, opset=14, seed=0)
    ap.add_argument("--dynamic-batch", action="store_true", help="export the batch axis as dynamic")
    a = ap.parse_args()
    seed_all(a.seed)
    cls = VisionTransformer if a.dynamic_batch else StaticBatchViT
    m = cls(a.image, a.patch, a.layers, a.heads, a.dim, a.mlp).eval()
    x = torch.randn(1, 3, a.image, a.image)
    export(m, (x,), a.output, a.opset, ["pixels"], ["logits"],
           {"pixels": {0: "batch"}, "logits": {0: "batch"}} if a.dynamic_batch else None)


if __name__ == "__main__":
    main()
