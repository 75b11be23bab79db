"""Vision transformers written the way their authors write them, for the
corpus of exporters' styles (export_styles.py). torchvision's own
VisionTransformer is exported by export_vision.py.

  ViTHF: a ViT classifier written like Hugging Face's modeling_vit: a
      Conv2d patch embedding flattened and transposed, a class token
      expanded to the batch, learned position embeddings, pre-LN blocks
      with LayerNorm eps 1e-12, separate query/key/value Linear layers,
      scores divided by sqrt(head_dim), GELU written out with erf, a final
      LayerNorm and a classifier on the class token.
  DeiTTimm: a DeiT classifier written like timm: class and distillation
      tokens, one packed qkv Linear reshaped to [B, N, 3, heads, head_dim],
      permuted and unbound into q, k and v, the scores multiplied by a
      constant scale, LayerNorm eps 1e-6, nn.GELU, and the average of a head
      on the class token and a head on the distillation token.
"""

import math

import torch
from torch import nn


class PatchEmbed(nn.Module):
    """Conv2d with kernel and stride the patch size, flattened to tokens."""

    def __init__(self, patch, d):
        super().__init__()
        self.projection = nn.Conv2d(3, d, kernel_size=patch, stride=patch)

    def forward(self, pixels):
        return self.projection(pixels).flatten(2).transpose(1, 2)


class ViTSelfAttention(nn.Module):
    """Separate q/k/v projections; scores / sqrt(head_dim)."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = d // heads
        self.query = nn.Linear(d, d)
        self.key = nn.Linear(d, d)
        self.value = nn.Linear(d, d)
        self.dense = nn.Linear(d, d)

    def transpose_for_scores(self, x):
        return x.view(x.size()[:-1] + (self.heads, self.head_dim)).permute(0, 2, 1, 3)

    def forward(self, h):
        q = self.transpose_for_scores(self.query(h))
        k = self.transpose_for_scores(self.key(h))
        v = self.transpose_for_scores(self.value(h))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        ctx = torch.matmul(nn.functional.softmax(scores, dim=-1), v)
        ctx = ctx.permute(0, 2, 1, 3).contiguous()
        return self.dense(ctx.view(ctx.size()[:-2] + (self.heads * self.head_dim,)))


def gelu_erf(x):
    """GELU as BERT's and ViT's reference code writes it."""
    return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))


class ViTLayer(nn.Module):
    """layernorm_before, attention, residual; layernorm_after, MLP, residual."""

    def __init__(self, d, heads, mlp):
        super().__init__()
        self.layernorm_before = nn.LayerNorm(d, eps=1e-12)
        self.attention = ViTSelfAttention(d, heads)
        self.layernorm_after = nn.LayerNorm(d, eps=1e-12)
        self.intermediate = nn.Linear(d, mlp)
        self.output = nn.Linear(mlp, d)

    def forward(self, h):
        h = self.attention(self.layernorm_before(h)) + h
        return self.output(gelu_erf(self.intermediate(self.layernorm_after(h)))) + h


class ViTHF(nn.Module):
    """Patch embedding, class token, position embeddings, ViT layers, head on the class token."""

    def __init__(self, image=64, patch=16, d=256, heads=4, layers=3, mlp=1024, classes=10):
        super().__init__()
        n = (image // patch) ** 2
        self.patch_embeddings = PatchEmbed(patch, d)
        self.cls_token = nn.Parameter(0.02 * torch.randn(1, 1, d))
        self.position_embeddings = nn.Parameter(0.02 * torch.randn(1, n + 1, d))
        self.layers = nn.ModuleList(ViTLayer(d, heads, mlp) for _ in range(layers))
        self.layernorm = nn.LayerNorm(d, eps=1e-12)
        self.classifier = nn.Linear(d, classes)

    def forward(self, pixel_values):
        x = self.patch_embeddings(pixel_values)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1) + self.position_embeddings
        for layer in self.layers:
            x = layer(x)
        return self.classifier(self.layernorm(x)[:, 0, :])


class TimmAttention(nn.Module):
    """Packed qkv reshaped, permuted and unbound; scores times a constant scale."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.scale = (d // heads) ** -0.5
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        x = (attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class TimmMlp(nn.Module):
    """fc1, nn.GELU, fc2."""

    def __init__(self, d, hidden):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class TimmBlock(nn.Module):
    """x + attn(norm1(x)), then x + mlp(norm2(x)), LayerNorm eps 1e-6."""

    def __init__(self, d, heads, mlp):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d, eps=1e-6), nn.LayerNorm(d, eps=1e-6)
        self.attn = TimmAttention(d, heads)
        self.mlp = TimmMlp(d, mlp)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class DeiTTimm(nn.Module):
    """Class and distillation tokens, timm blocks, the mean of two heads."""

    def __init__(self, image=64, patch=8, d=96, heads=3, layers=4, mlp=384, classes=10):
        super().__init__()
        self.patch_embed = PatchEmbed(patch, d)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d))
        self.dist_token = nn.Parameter(torch.zeros(1, 1, d))
        self.pos_embed = nn.Parameter(torch.zeros(1, (image // patch) ** 2 + 2, d))
        for p in (self.cls_token, self.dist_token, self.pos_embed):
            nn.init.trunc_normal_(p, std=0.02)
        self.blocks = nn.Sequential(*[TimmBlock(d, heads, mlp) for _ in range(layers)])
        self.norm = nn.LayerNorm(d, eps=1e-6)
        self.head = nn.Linear(d, classes)
        self.head_dist = nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch_embed(x)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        dist = self.dist_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, dist, x), dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return (self.head(x[:, 0]) + self.head_dist(x[:, 1])) / 2
