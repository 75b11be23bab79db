"""Exports sequence models written in torch with random weights (fixed seeds).

  encoder_classifier: a BERT-style post-LN transformer encoder (4 layers, d 384,
      6 heads, seq 128) whose classifier reads token 0; dynamic batch and
      sequence axes.
  gpt_decoder: a GPT-style decoder (2 layers) with a causal mask built in the
      graph (triu + where), dynamic sequence axis.
  lstm_classifier: an embedding, a 1-layer LSTM and a linear head.
  encoder_classifier_dyn, gpt_decoder_dyn: the same two transformers with
      512 positions and dynamic batch and sequence axes (seeded as the
      originals; their position tables differ in size, so their weights do
      too).

Usage: export_text.py OUTDIR [NAME...]
"""

import math
import os
import sys
import zlib

import torch
from torch import nn

from common import distinct_layers, export, seed_all


class EncoderClassifier(nn.Module):
    """Token + position embeddings, post-LN encoder layers, a head on token 0."""

    def __init__(self, vocab=1000, d=384, heads=6, layers=4, ff=1536, max_len=128, classes=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=False)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        distinct_layers(self.encoder)
        self.head = nn.Linear(d, classes)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        h = self.encoder(self.tok(ids) + self.pos(positions))
        return self.head(h[:, 0])


class Block(nn.Module):
    """A pre-LN decoder block with causal self-attention written out by hand."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        hd = d // self.heads
        q = q.reshape(b, t, self.heads, hd).transpose(1, 2)
        k = k.reshape(b, t, self.heads, hd).transpose(1, 2)
        v = v.reshape(b, t, self.heads, hd).transpose(1, 2)
        att = q @ k.transpose(-2, -1) / math.sqrt(hd)
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=1)
        att = torch.where(causal, torch.full_like(att, -1e4), att)
        y = att.softmax(dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class GPTDecoder(nn.Module):
    """A small GPT: embeddings, causal blocks, final norm, tied-free LM head."""

    def __init__(self, vocab=500, d=64, heads=4, layers=2, max_len=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.lm = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.tok(ids) + self.pos(positions)
        for blk in self.blocks:
            x = blk(x)
        return self.lm(self.ln(x))


class LSTMClassifier(nn.Module):
    """An embedding, one LSTM layer and a linear head on the last step."""

    def __init__(self, vocab=200, d=32, hidden=48, classes=3):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, ids):
        out, _ = self.lstm(self.tok(ids))
        return self.head(out[:, -1])


# name -> (constructor, vocab, sequence length, opset, dynamic axes)
MODELS = {
    "encoder_classifier": (EncoderClassifier, 1000, 128, 14,
                           {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}}),
    "gpt_decoder": (GPTDecoder, 500, 32, 17,
                    {"ids": {1: "seq"}, "logits": {1: "seq"}}),
    "lstm_classifier": (LSTMClassifier, 200, 16, 9, None),
    "encoder_classifier_dyn": (lambda: EncoderClassifier(max_len=512), 1000, 128, 14,
                               {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}}),
    "gpt_decoder_dyn": (lambda: GPTDecoder(max_len=512), 500, 32, 17,
                        {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = sys.argv[2:] or list(MODELS)
    for name in names:
        build, vocab, seq, opset, axes = MODELS[name]
        seed_all(zlib.crc32(name.removesuffix("_dyn").encode()))
        model = build()
        ids = torch.randint(0, vocab, (1, seq))
        export(model, (ids,), os.path.join(out, name + ".onnx"), opset, ["ids"], ["logits"], axes)
        print("exported", name, "opset", opset)


if __name__ == "__main__":
    main()
