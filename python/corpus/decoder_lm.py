#!/usr/bin/env python3
"""Exports a GPT-style decoder language model to ONNX, as PyTorch users do.

Token and learned position embeddings, N pre-LN causal self-attention
blocks (nn.TransformerEncoderLayer with norm_first and a causal mask,
GELU), a final LayerNorm and a vocabulary head tied to nothing. Input
input_ids [batch, seq] (int64, both axes dynamic); output logits
[batch, seq, vocab] for every position. Weights are random (seeded).

    /usr/bin/python3 python/corpus/decoder_lm.py -o dec.onnx
        [--layers 4] [--dim 384] [--heads 6] [--seq 128] [--vocab 4000]

The export runs with gradients enabled (torch 1.13 cannot export the
encoder layer's inference fast path).
"""
import torch
from torch import nn

from common import add_ints, arg_parser, export, seed_all


class DecoderLM(nn.Module):
    """Embeddings, pre-LN causal blocks, final LayerNorm, vocabulary head."""

    def __init__(self, vocab, max_seq, dim, heads, layers):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_seq, dim)
        self.register_buffer("position_ids", torch.arange(max_seq).unsqueeze(0))
        causal = torch.triu(torch.full((max_seq, max_seq), float("-inf")), diagonal=1)
        self.register_buffer("causal", causal)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.1, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, input_ids):
        s = input_ids.shape[1]
        h = self.tok(input_ids) + self.pos(self.position_ids[:, :s])
        h = self.blocks(h, mask=self.causal[:s, :s])
        return self.head(self.norm(h))


def main():
    ap = arg_parser(__doc__, layers=4, dim=384, heads=6)
    ap.add_argument("--seq", type=int, default=128, help="sequence length of the example input")
    add_ints(ap, vocab=4000, opset=14, seed=0)
    a = ap.parse_args()
    seed_all(a.seed)
    m = DecoderLM(a.vocab, max(512, a.seq), a.dim, a.heads, a.layers).eval()
    ids = torch.randint(0, a.vocab, (1, a.seq), dtype=torch.int64)
    export(m, (ids,), a.output, a.opset, ["input_ids"], ["logits"],
           {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}})


if __name__ == "__main__":
    main()
