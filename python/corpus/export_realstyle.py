"""Exports models built after the public structure of real deployed models
that stress what xrl must execute and verify: recurrent layers, old-opset
Clip, nested control flow on a sample rate (random weights from fixed
seeds, no downloads).

  silero_like: a Silero-VAD-v5-style voice-activity model, scripted so that
      the exporter writes nested If nodes: the 16 kHz branch, or (nested)
      the 8 kHz branch, or zeros for any other rate. Each rate has its own
      network: a fixed Conv1d "STFT" front end and its magnitude, a Conv1d
      encoder, an LSTM decoder fed and returning the recurrent state
      (state [2, batch, hidden]), a 1x1 Conv1d head and a sigmoid (opset 16).
  paddle_det_like: a PaddleOCR-style DB text detector at opset 10 (as
      paddle2onnx writes it): a MobileNetV3-like backbone whose ReLU6 and
      hard-swish are the attribute form of Clip, a feature pyramid with
      nearest upsampling, and a head of transposed convolutions and a
      sigmoid; height and width are dynamic.
  paddle_rec_like: a PaddleOCR-style CRNN text recogniser at opset 10: a
      convolutional backbone with Clip activations pooled to one row, a
      two-layer bidirectional LSTM over the width, a linear classifier and
      a softmax; the width is dynamic.
  lstm_tagger: a token tagger, embedding -> bidirectional LSTM -> linear
      per token (opset 14, dynamic sequence).
  gru_tagger: the same with a two-layer bidirectional GRU (ONNX GRU with
      linear_before_reset, as PyTorch exports it).

Usage: export_realstyle.py OUTDIR [NAME...]
"""

import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

from common import export, seed_all


class VADNet(nn.Module):
    """One sample rate's network: STFT-like front end, encoder, LSTM, head."""

    def __init__(self, window, bins=16, hidden=32):
        super().__init__()
        self.bins = bins
        self.stft = nn.Conv1d(1, 2 * bins, window, stride=window // 2, bias=False)
        self.enc = nn.Sequential(
            nn.Conv1d(bins, hidden, 3, padding=1), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 3, stride=2, padding=1), nn.ReLU())
        self.lstm = nn.LSTM(hidden, hidden)
        self.head = nn.Conv1d(hidden, 1, 1)

    def forward(self, x, h, c):
        f = self.stft(x.unsqueeze(1))
        mag = torch.sqrt(f[:, : self.bins] ** 2 + f[:, self.bins:] ** 2)
        z = self.enc(mag).permute(2, 0, 1)
        out, (hn, cn) = self.lstm(z, (h, c))
        y = torch.sigmoid(self.head(torch.relu(out.permute(1, 2, 0)))).mean(dim=2)
        return y, hn, cn


class SileroLike(nn.Module):
    """Nested Ifs on the sample rate, as Silero VAD's scripted model."""

    def __init__(self):
        super().__init__()
        self.net16 = VADNet(64)
        self.net8 = VADNet(32)

    def forward(self, x, state, sr):
        h, c = state[0:1], state[1:2]
        if int(sr) == 16000:
            y, hn, cn = self.net16(x, h, c)
        else:
            if int(sr) == 8000:
                y, hn, cn = self.net8(x, h, c)
            else:
                y, hn, cn = torch.zeros_like(x[:, :1]), h, c
        return y, torch.cat([hn, cn], 0)


def hard_swish(x):
    """x * relu6(x + 3) / 6, written out so that opset 10 exports a Clip."""
    return x * F.relu6(x + 3) / 6


class ConvBN(nn.Module):
    """Conv, BatchNorm and an activation: relu6, hard-swish or none."""

    def __init__(self, cin, cout, k, stride=1, groups=1, act="hswish"):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.act = act

    def forward(self, x):
        x = self.bn(self.conv(x))
        if self.act == "relu6":
            return F.relu6(x)
        if self.act == "hswish":
            return hard_swish(x)
        return x


class Block(nn.Module):
    """Inverted residual: expand, depthwise, project (residual when shapes agree)."""

    def __init__(self, cin, mid, cout, stride, act):
        super().__init__()
        self.expand = ConvBN(cin, mid, 1, act=act)
        self.dw = ConvBN(mid, mid, 3, stride, groups=mid, act=act)
        self.project = ConvBN(mid, cout, 1, act="none")
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.project(self.dw(self.expand(x)))
        return x + y if self.residual else y


class DetLike(nn.Module):
    """MobileNetV3-like backbone, FPN, DB head."""

    def __init__(self):
        super().__init__()
        self.stem = ConvBN(3, 8, 3, 2)
        self.s1 = Block(8, 16, 8, 1, "relu6")
        self.s2 = Block(8, 24, 16, 2, "relu6")
        self.s3 = Block(16, 48, 24, 2, "hswish")
        self.s4 = Block(24, 64, 32, 2, "hswish")
        self.s5 = Block(32, 96, 48, 2, "hswish")
        self.lat = nn.ModuleList([nn.Conv2d(c, 24, 1) for c in (16, 24, 32, 48)])
        self.smooth = nn.Conv2d(24, 24, 3, padding=1)
        self.head = nn.Sequential(
            ConvBN(24, 16, 3, act="relu6"),
            nn.ConvTranspose2d(16, 16, 2, 2), nn.BatchNorm2d(16), nn.ReLU(),
            nn.ConvTranspose2d(16, 1, 2, 2))

    def forward(self, x):
        c2 = self.s2(self.s1(self.stem(x)))
        c3 = self.s3(c2)
        c4 = self.s4(c3)
        c5 = self.s5(c4)
        p = self.lat[3](c5)
        for lat, feat in ((self.lat[2], c4), (self.lat[1], c3), (self.lat[0], c2)):
            p = lat(feat) + F.interpolate(p, scale_factor=2.0, mode="nearest")
        return torch.sigmoid(self.head(self.smooth(p)))


class RecLike(nn.Module):
    """CRNN: conv backbone pooled to one row, BiLSTM over the width, classifier."""

    def __init__(self, classes=40):
        super().__init__()
        self.body = nn.Sequential(
            ConvBN(3, 16, 3, 1, act="relu6"), nn.MaxPool2d(2),
            ConvBN(16, 32, 3, 1, act="hswish"), nn.MaxPool2d((2, 1)),
            ConvBN(32, 48, 3, 1, act="hswish"), nn.MaxPool2d((2, 1)))
        self.lstm = nn.LSTM(48, 32, num_layers=2, bidirectional=True)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        f = self.body(x).mean(dim=2)  # [B, C, W/2]
        out, _ = self.lstm(f.permute(2, 0, 1))
        return F.softmax(self.fc(out), dim=2)


class Tagger(nn.Module):
    """Embedding, a bidirectional recurrent layer, a linear layer per token."""

    def __init__(self, rnn, vocab=300, dim=32, tags=9):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = rnn
        self.out = nn.Linear(2 * dim, tags)

    def forward(self, ids):
        h, _ = self.rnn(self.emb(ids))
        return self.out(h)


def randomise_bn(model):
    """Gives every BatchNorm non-trivial statistics."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2)


def silero_like(path):
    seed_all(30)
    m = torch.jit.script(SileroLike().eval())
    export(m, (torch.randn(1, 512), torch.zeros(2, 1, 32), torch.tensor(16000)), path, 16,
           ["input", "state", "sr"], ["output", "stateN"],
           {"input": {0: "batch", 1: "samples"}, "state": {1: "batch"}, "output": {0: "batch"}, "stateN": {1: "batch"}})


def paddle_det_like(path):
    seed_all(31)
    m = DetLike()
    randomise_bn(m)
    export(m.eval(), (torch.randn(1, 3, 64, 64),), path, 10, ["x"], ["maps"],
           {"x": {0: "batch", 2: "height", 3: "width"}, "maps": {0: "batch", 2: "height", 3: "width"}})


def paddle_rec_like(path):
    seed_all(32)
    m = RecLike()
    randomise_bn(m)
    export(m.eval(), (torch.randn(1, 3, 32, 64),), path, 10, ["x"], ["probs"],
           {"x": {0: "batch", 3: "width"}, "probs": {0: "steps", 1: "batch"}})


def lstm_tagger(path):
    seed_all(33)
    m = Tagger(nn.LSTM(32, 32, batch_first=True, bidirectional=True))
    export(m.eval(), (torch.randint(0, 300, (1, 24)),), path, 14, ["ids"], ["tags"],
           {"ids": {0: "batch", 1: "seq"}, "tags": {0: "batch", 1: "seq"}})


def gru_tagger(path):
    seed_all(34)
    m = Tagger(nn.GRU(32, 32, num_layers=2, batch_first=True, bidirectional=True))
    export(m.eval(), (torch.randint(0, 300, (1, 24)),), path, 14, ["ids"], ["tags"],
           {"ids": {0: "batch", 1: "seq"}, "tags": {0: "batch", 1: "seq"}})


EXPORTERS = {
    "silero_like": silero_like, "paddle_det_like": paddle_det_like, "paddle_rec_like": paddle_rec_like,
    "lstm_tagger": lstm_tagger, "gru_tagger": gru_tagger,
}


def main():
    out, names = sys.argv[1], sys.argv[2:] or sorted(EXPORTERS)
    unknown = [n for n in names if n not in EXPORTERS]
    if unknown:
        sys.exit(f"export_realstyle.py: no model named {unknown[0]!r} (have {', '.join(sorted(EXPORTERS))})")
    with torch.no_grad():
        for name in names:
            EXPORTERS[name](os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
