"""Models of the samples upstream's exporter makes (export_samples.py).

Shapes of program users ship, reduced to be small enough to check in: the
profiling tutorial's CNN, MobileNetV2, ResNet-18, a DeepLabV3-style head,
nanoGPT and one of its blocks, a YOLO-style detector with a grid-decoding
head and a Whisper-tiny-shaped speech encoder. Plain torch.nn (the pinned
upstream environment has no torchvision: the two torchvision architectures
are written here from their papers' layer tables); weights are seeded by
the exporter.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TutorialCNN(nn.Module):
    """The CNN of ExecuTorch's profiling tutorial: conv/relu/maxpool twice,
    then three linear layers (the ops of the corpus tutorial_cnn trace)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5)
        self.conv2 = nn.Conv2d(16, 32, 5)
        self.fc1 = nn.Linear(32 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def _divisible_by_8(channels):
    """MobileNetV2 rounds every width to a multiple of 8, never below 90%."""
    rounded = max(8, int(channels + 4) // 8 * 8)
    return rounded + 8 if rounded < 0.9 * channels else rounded


def conv_bn_relu6(cin, cout, kernel, stride=1, groups=1):
    return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU6())


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expansion, 3x3 depthwise, linear 1x1
    projection; a shortcut when the shape is kept."""

    def __init__(self, cin, cout, stride, expansion):
        super().__init__()
        hidden = cin * expansion
        layers = [conv_bn_relu6(cin, hidden, 1)] if expansion != 1 else []
        layers += [conv_bn_relu6(hidden, hidden, 3, stride, groups=hidden),
                   nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.conv = nn.Sequential(*layers)
        self.shortcut = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.conv(x) if self.shortcut else self.conv(x)


class MobileNetV2(nn.Module):
    """MobileNetV2 (Sandler et al. 2018, table 2) at a width multiplier."""

    # expansion t, output channels c, repeats n, first stride s
    STAGES = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
              (6, 320, 1, 1))

    def __init__(self, width=1.0, classes=1000):
        super().__init__()
        channels = _divisible_by_8(32 * width)
        last = _divisible_by_8(1280 * max(1.0, width))
        layers = [conv_bn_relu6(3, channels, 3, 2)]
        for t, c, n, s in self.STAGES:
            out = _divisible_by_8(c * width)
            for i in range(n):
                layers.append(InvertedResidual(channels, out, s if i == 0 else 1, t))
                channels = out
        layers.append(conv_bn_relu6(channels, last, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last, classes))

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


class BasicBlock(nn.Module):
    """ResNet's two-convolution block; a strided 1x1 projection when the
    shape changes."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(out + (self.downsample(x) if self.downsample is not None else x))


class ResNet18(nn.Module):
    """ResNet-18 (He et al. 2016): a 7x7 stem and max pool, four stages of
    two basic blocks (64, 128, 256, 512 channels times `width`)."""

    def __init__(self, width=1.0, classes=1000):
        super().__init__()
        planes = [max(8, int(c * width)) for c in (64, 128, 256, 512)]
        self.conv1 = nn.Conv2d(3, planes[0], 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(planes[0])
        stages, cin = [], planes[0]
        for i, cout in enumerate(planes):
            stride = 1 if i == 0 else 2
            stages.append(nn.Sequential(BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)))
            cin = cout
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.fc = nn.Linear(planes[3], classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class SegmentationHead(nn.Module):
    """A DeepLabV3-style segmentation net at small size: a strided conv
    backbone, an atrous (dilated) conv and a 1x1 classifier at 1/4 of the
    input, bilinear upsampling to 1/2, a sub-pixel refinement branch
    (reflection padding, conv, pixel_shuffle) added there, bilinear
    upsampling to the input size; and, per pixel, the score of a given
    label (torch.gather), as a loss or a confidence map reads it."""

    def __init__(self, classes=6):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.atrous = nn.Conv2d(32, 32, 3, padding=2, dilation=2)
        self.classifier = nn.Conv2d(32, classes, 1)
        self.refine = nn.Conv2d(32, classes * 4, 3)

    def forward(self, image, labels):
        features = self.backbone(image)
        logits = self.classifier(F.relu(self.atrous(features)))
        coarse = F.interpolate(logits, scale_factor=2.0, mode="bilinear", align_corners=False)
        detail = F.pixel_shuffle(self.refine(F.pad(features, (1, 1, 1, 1), mode="reflect")), 2)
        scores = F.interpolate(coarse + detail, size=image.shape[-2:], mode="bilinear", align_corners=False)
        return scores, torch.gather(scores, 1, labels)


class GPTConfig:
    """nanoGPT as in the ExecuTorch LLM guide, reduced: 2 layers, 4 heads, 128 dims."""
    block_size = 64
    vocab_size = 512
    n_layer = 2
    n_head = 4
    n_embd = 128


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        mask = torch.tril(torch.ones(config.block_size, config.block_size))
        self.register_buffer("bias", mask.view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q, k, v = (y.view(b, t, self.n_head, c // self.n_head).transpose(1, 2) for y in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class NanoGPT(nn.Module):
    def __init__(self, config=GPTConfig()):
        super().__init__()
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.block_size, config.n_embd)
        self.h = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying, as nanoGPT
        for module in self.modules():  # nanoGPT's initialisation: N(0, 0.02) weights, zero biases
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)

    def forward(self, idx):
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


class TransformerBlockConfig(GPTConfig):
    """One nanoGPT block at the size of a small on-device language model's
    layer slice: 64 channels (two groups of 32 per linear input), 16 tokens."""
    block_size = 16
    n_head = 4
    n_embd = 64


class TransformerBlock(nn.Module):
    def __init__(self, config=TransformerBlockConfig()):
        super().__init__()
        self.block = Block(config)

    def forward(self, x):
        return self.block(x)


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
    return model
