"""Models of the samples upstream's exporter makes (export_samples.py).

Shapes of program users ship, small enough to check in: a YOLO-style
detector with a grid-decoding head and a Whisper-tiny-shaped speech encoder.
Plain torch.nn (nothing beyond what the pinned upstream environment has);
weights are seeded by the exporter.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBnAct(nn.Module):
    """Convolution, batch norm, SiLU: the YOLO family's basic block."""

    def __init__(self, cin, cout, kernel=3, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.silu(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.reduce = ConvBnAct(channels, channels // 2, 1)
        self.expand = ConvBnAct(channels // 2, channels, 3)

    def forward(self, x):
        return x + self.expand(self.reduce(x))


class TinyYolo(nn.Module):
    """A YOLOX-style detector: a strided backbone, a top-down neck with
    nearest upsampling and concatenation, decoupled heads at strides 8 and
    16, and the decoding users keep in the graph (arange/meshgrid grids,
    exp of the box sizes, sigmoid scores) so the program outputs boxes.
    Output [1, anchors, 4 + 1 + classes]."""

    def __init__(self, classes=8, width=16):
        super().__init__()
        w = width
        self.stem = ConvBnAct(3, w, 3, 2)                                           # /2
        self.stage1 = nn.Sequential(ConvBnAct(w, 2 * w, 3, 2), Bottleneck(2 * w))  # /4
        self.stage2 = nn.Sequential(ConvBnAct(2 * w, 4 * w, 3, 2), Bottleneck(4 * w))  # /8
        self.stage3 = nn.Sequential(ConvBnAct(4 * w, 8 * w, 3, 2), Bottleneck(8 * w))  # /16
        self.lateral = ConvBnAct(8 * w, 4 * w, 1)
        self.fuse = ConvBnAct(8 * w, 4 * w, 3)
        self.heads = nn.ModuleList()
        for cin in (4 * w, 4 * w):
            self.heads.append(nn.ModuleDict({
                "stem": ConvBnAct(cin, 2 * w, 1),
                "box": nn.Conv2d(2 * w, 4, 1),
                "objectness": nn.Conv2d(2 * w, 1, 1),
                "classes": nn.Conv2d(2 * w, classes, 1)}))
        self.strides = (8, 16)

    def forward(self, image):
        c2 = self.stage2(self.stage1(self.stem(image)))
        c3 = self.stage3(c2)
        p3 = self.lateral(c3)
        p2 = self.fuse(torch.cat([F.interpolate(p3, scale_factor=2.0, mode="nearest"), c2], 1))
        outputs = []
        for head, feature, stride in zip(self.heads, (p2, p3), self.strides):
            x = head["stem"](feature)
            h, w = x.shape[-2:]
            raw = torch.cat([head["box"](x), head["objectness"](x), head["classes"](x)], 1)
            raw = raw.flatten(2).permute(0, 2, 1)  # [1, h*w, 5 + classes]
            ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
            grid = torch.stack((xs, ys), 2).view(1, h * w, 2).to(raw.dtype)
            centers = (raw[..., :2] + grid) * stride
            sizes = torch.exp(raw[..., 2:4]) * stride
            outputs.append(torch.cat([centers, sizes, raw[..., 4:].sigmoid()], -1))
        return torch.cat(outputs, 1)


class EncoderBlock(nn.Module):
    """A pre-norm transformer block as Whisper's encoder has them."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.attn_norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.mlp_norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.attn_norm(x)).split(d, dim=-1)
        q, k, v = (y.view(b, t, self.heads, d // self.heads).transpose(1, 2) for y in (q, k, v))
        attention = F.scaled_dot_product_attention(q, k, v)
        x = x + self.out(attention.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.mlp_norm(x))))


class SpeechEncoder(nn.Module):
    """Shaped like Whisper-tiny's encoder, reduced: two 1-D convolutions
    with GELU over log-mel frames (the second halves the frame rate),
    sinusoidal positions, pre-norm attention blocks, a final layer norm.
    Input [1, mels, frames]; output [1, frames / 2, dim]."""

    def __init__(self, mels=80, frames=200, dim=64, heads=4, layers=2):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, dim, 3, padding=1)
        self.conv2 = nn.Conv1d(dim, dim, 3, stride=2, padding=1)
        self.register_buffer("positions", self.sinusoids(frames // 2, dim), persistent=False)
        self.blocks = nn.ModuleList(EncoderBlock(dim, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(dim)

    @staticmethod
    def sinusoids(length, channels):
        scales = torch.exp(-math.log(10000) / (channels // 2 - 1) * torch.arange(channels // 2))
        angles = torch.arange(length)[:, None] * scales[None, :]
        return torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)

    def forward(self, mel):
        x = F.gelu(self.conv2(F.gelu(self.conv1(mel)))).permute(0, 2, 1)
        x = x + self.positions
        for block in self.blocks:
            x = block(x)
        return self.norm(x)


def randomize_batch_norms(model, generator):
    """Non-trivial running statistics, so folding them into convolutions
    (as upstream's XNNPACK lowering does) changes the weights."""
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            n = module.num_features
            module.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
            module.running_var.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
            module.weight.data.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
            module.bias.data.copy_(torch.randn(n, generator=generator) * 0.1)
