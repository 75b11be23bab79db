#!/usr/bin/env python3
"""Exports a BERT-style encoder classifier to ONNX, as PyTorch users do.

The model: token and position embeddings with a LayerNorm, N post-LN
nn.TransformerEncoderLayer blocks (GELU), and a pooler and classifier that
read only the first token's hidden state. The input is input_ids
[batch, seq] (int64) with both axes dynamic; the output is logits
[batch, classes]. Weights are random (seeded): the graph is what matters.

    /usr/bin/python3 python/corpus/encoder_classifier.py -o enc.onnx
        [--layers 4] [--dim 384] [--heads 6] [--seq 128] [--opset 14]

torch 1.13 cannot export nn.TransformerEncoderLayer's inference fast path,
so the export runs with gradients enabled (the module is in eval mode).
"""
import torch
from torch import nn

from common import add_ints, arg_parser, export, seed_all


class EncoderClassifier(nn.Module):
    """Embeddings, post-LN encoder layers, a tanh pooler on token 0, a linear head."""

    def __init__(self, vocab, max_seq, dim, heads, layers, ffn, classes):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_seq, dim)
        # Position ids as a buffer sliced to the sequence length (as BERT
        # implementations do), exported as a Slice of a constant.
        self.register_buffer("position_ids", torch.arange(max_seq).unsqueeze(0))
        self.norm = nn.LayerNorm(dim)
        layer = nn.TransformerEncoderLayer(dim, heads, ffn, dropout=0.1, activation="gelu",
                                           batch_first=True, norm_first=False)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.pool = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, input_ids):
        pos = self.position_ids[:, : input_ids.shape[1]]
        h = self.norm(self.tok(input_ids) + self.pos(pos))
        h = self.encoder(h)
        pooled = torch.tanh(self.pool(h[:, 0]))
        return self.head(pooled)


def main():
    ap = arg_parser(__doc__, layers=4, dim=384, heads=6)
    ap.add_argument("--seq", type=int, default=128, help="sequence length of the example input")
    add_ints(ap, vocab=8000, classes=2, opset=14, seed=0)
    a = ap.parse_args()
    seed_all(a.seed)
    m = EncoderClassifier(a.vocab, max(512, a.seq), a.dim, a.heads, a.layers, 4 * a.dim, a.classes).eval()
    ids = torch.randint(0, a.vocab, (1, a.seq), dtype=torch.int64)
    export(m, (ids,), a.output, a.opset, ["input_ids"], ["logits"],
           {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}})


if __name__ == "__main__":
    main()
