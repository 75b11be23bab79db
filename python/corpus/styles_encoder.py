"""Transformer encoders written the way their authors write them, for the
corpus of exporters' styles (export_styles.py).

  BertHF: a BERT classifier written like Hugging Face's modeling_bert:
      word, position and token-type embeddings (the token types a zero
      buffer sliced and expanded to the input), LayerNorm eps 1e-12,
      separate query/key/value Linear layers with the heads split by
      view(size()[:-1] + (heads, head_dim)) and permute, scores divided by
      sqrt(head_dim), the attention_mask input turned into an additive mask
      ((1 - mask) * -10000), post-LN residuals, erf GELU, a tanh pooler on
      token 0 and a classifier.
  PackedEncoder: a sentence-embedding encoder: one packed qkv Linear sliced
      into q, k and v, q scaled by a constant before the product, a boolean
      attention_mask applied with masked_fill, pre-LN blocks with tanh GELU,
      masked mean pooling and an L2 normalisation of the embedding.
"""

import math

import torch
from torch import nn


class BertEmbeddings(nn.Module):
    """Word + token-type + position embeddings, LayerNorm (eps 1e-12)."""

    def __init__(self, vocab, d, max_pos, type_vocab):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, d)
        self.position_embeddings = nn.Embedding(max_pos, d)
        self.token_type_embeddings = nn.Embedding(type_vocab, d)
        self.LayerNorm = nn.LayerNorm(d, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(max_pos).expand((1, -1)))
        self.register_buffer("token_type_ids", torch.zeros((1, max_pos), dtype=torch.long))

    def forward(self, input_ids):
        input_shape = input_ids.size()
        seq_length = input_shape[1]
        position_ids = self.position_ids[:, :seq_length]
        token_type_ids = self.token_type_ids[:, :seq_length].expand(input_shape[0], seq_length)
        h = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        h = h + self.position_embeddings(position_ids)
        return self.LayerNorm(h)


class BertSelfAttention(nn.Module):
    """Separate q/k/v projections; scores / sqrt(head_dim) + additive mask."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = d // heads
        self.all_head_size = d
        self.query = nn.Linear(d, d)
        self.key = nn.Linear(d, d)
        self.value = nn.Linear(d, d)

    def transpose_for_scores(self, x):
        new_shape = x.size()[:-1] + (self.heads, self.head_dim)
        return x.view(new_shape).permute(0, 2, 1, 3)

    def forward(self, h, mask):
        q = self.transpose_for_scores(self.query(h))
        k = self.transpose_for_scores(self.key(h))
        v = self.transpose_for_scores(self.value(h))
        scores = torch.matmul(q, k.transpose(-1, -2))
        scores = scores / math.sqrt(self.head_dim)
        scores = scores + mask
        probs = nn.functional.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return ctx.view(ctx.size()[:-2] + (self.all_head_size,))


class BertLayer(nn.Module):
    """Attention, dense + residual + LayerNorm, erf-GELU FFN + residual + LayerNorm."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.attention = BertSelfAttention(d, heads)
        self.attention_output = nn.Linear(d, d)
        self.attention_norm = nn.LayerNorm(d, eps=1e-12)
        self.intermediate = nn.Linear(d, ffn)
        self.output = nn.Linear(ffn, d)
        self.output_norm = nn.LayerNorm(d, eps=1e-12)

    def forward(self, h, mask):
        a = self.attention_norm(self.attention_output(self.attention(h, mask)) + h)
        i = nn.functional.gelu(self.intermediate(a))
        return self.output_norm(self.output(i) + a)


class BertHF(nn.Module):
    """A BERT sequence classifier taking input_ids and attention_mask."""

    def __init__(self, vocab=2000, d=256, heads=4, layers=4, ffn=1024, max_pos=512, type_vocab=2, classes=3):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab, d, max_pos, type_vocab)
        self.layers = nn.ModuleList(BertLayer(d, heads, ffn) for _ in range(layers))
        self.pooler = nn.Linear(d, d)
        self.classifier = nn.Linear(d, classes)

    def forward(self, input_ids, attention_mask):
        ext = attention_mask[:, None, None, :]
        ext = ext.to(dtype=torch.float32)
        ext = (1.0 - ext) * -10000.0
        h = self.embeddings(input_ids)
        for layer in self.layers:
            h = layer(h, ext)
        pooled = torch.tanh(self.pooler(h[:, 0]))
        return self.classifier(pooled)


class PackedBlock(nn.Module):
    """Pre-LN block: packed qkv sliced, q scaled, boolean mask, tanh-GELU FFN."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads = heads
        self.scale = (d // heads) ** -0.5
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.ffn = nn.Sequential(nn.Linear(d, ffn), nn.GELU(approximate="tanh"), nn.Linear(ffn, d))

    def forward(self, x, keep):
        b, s, d = x.shape
        hd = d // self.heads
        qkv = self.qkv(self.norm1(x))
        q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
        q = q.reshape(b, s, self.heads, hd).transpose(1, 2) * self.scale
        k = k.reshape(b, s, self.heads, hd).transpose(1, 2)
        v = v.reshape(b, s, self.heads, hd).transpose(1, 2)
        att = q @ k.transpose(-2, -1)
        att = att.masked_fill(~keep[:, None, None, :], torch.finfo(att.dtype).min)
        y = att.softmax(dim=-1) @ v
        x = x + self.out(y.transpose(1, 2).reshape(b, s, d))
        return x + self.ffn(self.norm2(x))


class PackedEncoder(nn.Module):
    """A sentence encoder: embeddings, packed-qkv blocks, masked mean pooling, L2 norm."""

    def __init__(self, vocab=1500, d=128, heads=8, layers=3, ffn=512, max_pos=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_pos, d)
        self.blocks = nn.ModuleList(PackedBlock(d, heads, ffn) for _ in range(layers))
        self.norm = nn.LayerNorm(d)

    def forward(self, input_ids, attention_mask):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.tok(input_ids) + self.pos(positions)
        for blk in self.blocks:
            x = blk(x, attention_mask)
        x = self.norm(x)
        m = attention_mask.unsqueeze(-1).to(x.dtype)
        pooled = (x * m).sum(dim=1) / m.sum(dim=1).clamp(min=1e-9)
        return nn.functional.normalize(pooled, p=2.0, dim=1)
