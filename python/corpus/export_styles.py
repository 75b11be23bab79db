"""Exports transformers written in the styles of their exporters and authors
(random weights from fixed seeds; docs/corpus.md describes each model):

  encoders: bert_hf (Hugging Face BERT: input_ids and attention_mask),
      encoder_packed (packed qkv sliced, boolean mask, mean pooling);
  decoders: gpt2_hf (Hugging Face GPT-2: packed qkv Split, run-time scale,
      tril buffer and Where), llama_decoder (RMSNorm, rotary, grouped-query
      attention, additive causal mask, SwiGLU), decoder_torch
      (nn.TransformerEncoder, pre-LN, with a causal mask);
  vision: vit_hf (Hugging Face ViT: Conv patches, separate q/k/v),
      deit_timm (timm DeiT: packed qkv, distillation token).

Text models have dynamic batch and sequence axes, vision models a dynamic
batch axis; every position table holds 512 positions.

Usage: export_styles.py OUTDIR [NAME...]
"""

import os
import sys
import zlib

import torch

from common import distinct_layers, export, perturb_norms, seed_all
from decoder_lm import DecoderLM
from styles_decoder import GPT2HF, LlamaLM
from styles_encoder import BertHF, PackedEncoder
from styles_vision import DeiTTimm, ViTHF

TEXT_AXES = {0: "batch", 1: "seq"}
BATCH_AXIS = {0: "batch"}


def ids(vocab, batch, seq):
    """Example token ids [batch, seq]."""
    return torch.randint(0, vocab, (batch, seq), dtype=torch.int64)


def padding_mask(batch, seq, dtype):
    """Example attention mask [batch, seq]: every row but the first ends in padding."""
    m = torch.ones((batch, seq), dtype=dtype)
    for b in range(1, batch):
        m[b, seq - 3 * b:] = 0
    return m


def decoder_torch():
    """decoder_lm.py's DecoderLM at a small size, each layer with its own weights."""
    m = DecoderLM(vocab=800, max_seq=512, dim=128, heads=4, layers=3)
    distinct_layers(m.blocks)
    return m


# name -> (constructor, opset, example inputs, input names and axes, output name and axes)
MODELS = {
    "bert_hf": (BertHF, 13, lambda: (ids(2000, 2, 16), padding_mask(2, 16, torch.int64)),
                {"input_ids": TEXT_AXES, "attention_mask": TEXT_AXES}, {"logits": BATCH_AXIS}),
    "encoder_packed": (PackedEncoder, 17, lambda: (ids(1500, 1, 32), padding_mask(1, 32, torch.bool)),
                       {"input_ids": TEXT_AXES, "attention_mask": TEXT_AXES}, {"embedding": BATCH_AXIS}),
    "gpt2_hf": (GPT2HF, 13, lambda: (ids(1000, 1, 32),), {"input_ids": TEXT_AXES}, {"logits": TEXT_AXES}),
    "llama_decoder": (LlamaLM, 14, lambda: (ids(1000, 2, 16),), {"input_ids": TEXT_AXES}, {"logits": TEXT_AXES}),
    "decoder_torch": (decoder_torch, 17, lambda: (ids(800, 1, 24),), {"input_ids": TEXT_AXES}, {"logits": TEXT_AXES}),
    "vit_hf": (ViTHF, 17, lambda: (torch.randn(1, 3, 64, 64),), {"pixel_values": BATCH_AXIS}, {"logits": BATCH_AXIS}),
    "deit_timm": (DeiTTimm, 13, lambda: (torch.randn(2, 3, 64, 64),), {"pixels": BATCH_AXIS}, {"logits": BATCH_AXIS}),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = sys.argv[2:] or list(MODELS)
    for name in names:
        if name not in MODELS:
            sys.exit(f"export_styles.py: no model named {name!r} (have {', '.join(MODELS)})")
        build, opset, example, inputs, outputs = MODELS[name]
        seed_all(zlib.crc32(name.encode()))
        model = build()
        perturb_norms(model)
        axes = {**inputs, **outputs}
        export(model, example(), os.path.join(out, name + ".onnx"), opset, list(inputs), list(outputs), axes)
        print("exported", name, "opset", opset)


if __name__ == "__main__":
    main()
