"""Transformer decoders written the way their authors write them, for the
corpus of exporters' styles (export_styles.py).

  GPT2HF: a GPT-2 language model written like Hugging Face's
      modeling_gpt2: one packed c_attn Linear split into q, k and v, the
      scores divided by sqrt(head_dim) computed at run time from the value's
      shape, the causal mask sliced from a lower-triangular boolean buffer
      and applied with where(mask, scores, finfo.min), tanh GELU with pow
      (gelu_new), pre-LN blocks, a final LayerNorm and an LM head.
  LlamaLM: a LLaMA-style language model: RMSNorm (pow, mean, rsqrt),
      separate q/k/v/o projections without bias, rotary position embeddings
      (cos and sin tables sliced to the sequence, rotate_half by slices and
      a concat), grouped-query attention (key/value heads repeated by
      expand and reshape), an additive causal mask built from finfo.min by
      masked_fill on arange comparisons, SwiGLU feed-forward (silu(gate) *
      up, down) and an LM head.
"""

import math

import torch
from torch import nn


def gelu_new(x):
    """GPT-2's tanh approximation of GELU, with pow."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Attention(nn.Module):
    """Packed qkv split, run-time scale, causal mask from a sliced buffer."""

    def __init__(self, d, heads, max_pos):
        super().__init__()
        self.heads = heads
        self.head_dim = d // heads
        self.split_size = d
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        causal = torch.tril(torch.ones((max_pos, max_pos), dtype=torch.bool))
        self.register_buffer("bias", causal.view(1, 1, max_pos, max_pos))

    def split_heads(self, x):
        x = x.view(x.size()[:-1] + (self.heads, self.head_dim))
        return x.permute(0, 2, 1, 3)

    def merge_heads(self, x):
        x = x.permute(0, 2, 1, 3).contiguous()
        return x.view(x.size()[:-2] + (self.heads * self.head_dim,))

    def forward(self, h):
        q, k, v = self.c_attn(h).split(self.split_size, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
        ql, kl = q.size(-2), k.size(-2)
        causal = self.bias[:, :, kl - ql:kl, :kl]
        w = torch.where(causal, w, torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype))
        w = nn.functional.softmax(w, dim=-1)
        return self.c_proj(self.merge_heads(torch.matmul(w, v)))


class GPT2Block(nn.Module):
    """ln_1, attention, residual; ln_2, c_fc, gelu_new, c_proj, residual."""

    def __init__(self, d, heads, max_pos):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = GPT2Attention(d, heads, max_pos)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, h):
        h = h + self.attn(self.ln_1(h))
        return h + self.c_proj(gelu_new(self.c_fc(self.ln_2(h))))


class GPT2HF(nn.Module):
    """Token and position embeddings, GPT-2 blocks, ln_f, LM head."""

    def __init__(self, vocab=1000, d=192, heads=6, layers=3, max_pos=512):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_pos, d)
        self.h = nn.ModuleList(GPT2Block(d, heads, max_pos) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, input_ids):
        input_shape = input_ids.size()
        position_ids = torch.arange(0, input_shape[-1], dtype=torch.long).unsqueeze(0)
        h = self.wte(input_ids) + self.wpe(position_ids)
        for block in self.h:
            h = block(h)
        return self.lm_head(self.ln_f(h))


class RMSNorm(nn.Module):
    """weight * x * rsqrt(mean(x^2) + eps)."""

    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(d))
        self.eps = eps

    def forward(self, x):
        var = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(var + self.eps))


def rotate_half(x):
    """Swaps the two halves of the last axis, negating the second."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Rotary(nn.Module):
    """Rotary position embedding tables, sliced to the sequence length."""

    def __init__(self, head_dim, max_pos, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
        t = torch.arange(max_pos).float()
        emb = torch.cat((torch.outer(t, inv_freq),) * 2, dim=-1)
        self.register_buffer("cos_cached", emb.cos()[None, None, :, :])
        self.register_buffer("sin_cached", emb.sin()[None, None, :, :])

    def forward(self, q, k):
        s = q.shape[-2]
        cos, sin = self.cos_cached[:, :, :s, :], self.sin_cached[:, :, :s, :]
        return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


class LlamaAttention(nn.Module):
    """Separate projections, rotary, grouped-query heads, additive causal mask."""

    def __init__(self, d, heads, kv_heads, max_pos):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        self.head_dim = d // heads
        self.q_proj = nn.Linear(d, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, d, bias=False)
        self.rotary = Rotary(self.head_dim, max_pos)

    def repeat_kv(self, x):
        b, kv, s, hd = x.shape
        rep = self.heads // self.kv_heads
        return x[:, :, None, :, :].expand(b, kv, rep, s, hd).reshape(b, kv * rep, s, hd)

    def forward(self, x, mask):
        b, s, _ = x.size()
        q = self.q_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = self.rotary(q, k)
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        w = nn.functional.softmax(w + mask, dim=-1, dtype=torch.float32)
        y = torch.matmul(w, v).transpose(1, 2).reshape(b, s, self.heads * self.head_dim)
        return self.o_proj(y)


class LlamaMLP(nn.Module):
    """SwiGLU: down(silu(gate(x)) * up(x))."""

    def __init__(self, d, ffn):
        super().__init__()
        self.gate_proj = nn.Linear(d, ffn, bias=False)
        self.up_proj = nn.Linear(d, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, d, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaBlock(nn.Module):
    """RMSNorm, attention, residual; RMSNorm, SwiGLU, residual."""

    def __init__(self, d, heads, kv_heads, ffn, max_pos):
        super().__init__()
        self.input_layernorm = RMSNorm(d)
        self.self_attn = LlamaAttention(d, heads, kv_heads, max_pos)
        self.post_attention_layernorm = RMSNorm(d)
        self.mlp = LlamaMLP(d, ffn)

    def forward(self, x, mask):
        x = x + self.self_attn(self.input_layernorm(x), mask)
        return x + self.mlp(self.post_attention_layernorm(x))


def causal_mask(s, dtype):
    """The additive causal mask [1, 1, s, s]: 0 on and below the diagonal, finfo.min above."""
    mask = torch.full((s, s), torch.finfo(dtype).min)
    cond = torch.arange(mask.size(-1))
    mask.masked_fill_(cond < (cond + 1).view(mask.size(-1), 1), 0)
    return mask.to(dtype)[None, None, :, :]


class LlamaLM(nn.Module):
    """Token embeddings, LLaMA blocks, final RMSNorm, LM head."""

    def __init__(self, vocab=1000, d=256, heads=8, kv_heads=2, layers=2, ffn=688, max_pos=512):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(LlamaBlock(d, heads, kv_heads, ffn, max_pos) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        mask = causal_mask(input_ids.shape[1], x.dtype)
        for layer in self.layers:
            x = layer(x, mask)
        return self.lm_head(self.norm(x))
