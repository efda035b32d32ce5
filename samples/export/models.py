"""The sample models, with random weights from a fixed seed.

Batch-norm layers get seeded, non-trivial running statistics and affine
parameters: default initialisation makes them near-identity, and a runtime
that skipped them would still pass.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

from etexport import llm
from etexport import quantize


def randomize_batch_norms(model, generator):
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            n = module.num_features
            with torch.no_grad():
                module.running_mean.copy_(torch.randn(n, generator=generator) * 0.2)
                module.running_var.copy_(torch.rand(n, generator=generator) + 0.5)
                module.weight.copy_(torch.rand(n, generator=generator) + 0.5)
                module.bias.copy_(torch.randn(n, generator=generator) * 0.2)
    return model


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


def resnet18(width=1.0, num_classes=1000):
    """torchvision's ResNet-18; width < 1 narrows every stage (64, 128, 256,
    512 channels times width) with torchvision's own blocks."""
    model = torchvision.models.resnet18(num_classes=num_classes)
    if width == 1.0:
        return model
    block = torchvision.models.resnet.BasicBlock
    planes = [max(8, int(c * width)) for c in (64, 128, 256, 512)]
    model.inplanes = planes[0]
    model.conv1 = nn.Conv2d(3, planes[0], kernel_size=7, stride=2, padding=3, bias=False)
    model.bn1 = nn.BatchNorm2d(planes[0])
    model.layer1 = model._make_layer(block, planes[0], 2)
    model.layer2 = model._make_layer(block, planes[1], 2, stride=2)
    model.layer3 = model._make_layer(block, planes[2], 2, stride=2)
    model.layer4 = model._make_layer(block, planes[3], 2, stride=2)
    model.fc = nn.Linear(planes[3], num_classes)
    return model


# nanoGPT as in the ExecuTorch LLM guide: 2 layers, 4 heads, 128 dims.
class GPTConfig:
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
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


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
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):
        # nanoGPT's initialisation: N(0, 0.02) weights, zero biases.
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, idx):
        _, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


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
        scores = F.interpolate(coarse + detail, size=image.shape[-2:], mode="bilinear",
                               align_corners=False)
        return scores, torch.gather(scores, 1, labels)


def _image_and_labels(g):
    return (torch.randn(1, 3, 64, 64, generator=g),
            torch.randint(0, 6, (1, 1, 64, 64), generator=g))


class Sample:
    """A model and how to make its inputs."""

    def __init__(self, name, build, make_inputs, note="", delegate=None, reference=None, generates=False):
        self.name = name
        self.build = build
        self.make_inputs = make_inputs
        self.note = note
        # "xnnpack": delegate what XNNPACK takes; "xnnpack_8da4w": linears as 8da4w;
        # "xnnpack_qs8": what XNNPACK takes, static int8; "cortex_m_int8": every op
        # as upstream's cortex_m:: int8 ops (etexport/cortex_m.py)
        self.delegate = delegate
        # A context manager over the model under which eager mode computes
        # the bundle's expected outputs (quantized samples); None: plain eager.
        self.reference = reference
        # A language model over a window of tokens: the exporter also writes
        # eager PyTorch's greedy generation for `etinspect generate` to match.
        self.generates = generates


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


class ResidualBlock(nn.Module):
    """Two 3x3 convolutions with batch norm and a shortcut (a strided 1x1
    convolution when the shape changes), ReLU after the add."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + self.shortcut(x))


class TinyResNet(nn.Module):
    """The image-classification ResNet of MLPerf Tiny's kind (32x32 RGB in,
    10 classes, three residual stages of 16/32/64 channels), with a max pool
    after the stem."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.MaxPool2d(2))
        self.stage1 = ResidualBlock(16, 16, 1)
        self.stage2 = ResidualBlock(16, 32, 2)
        self.stage3 = ResidualBlock(32, 64, 2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = self.stage3(self.stage2(self.stage1(self.stem(x))))
        return self.fc(torch.flatten(self.pool(x), 1))


class TinyLlamaConfig:
    vocab_size = 256
    dim = 64
    n_layers = 2
    n_heads = 4
    n_kv_heads = 2       # grouped-query attention: two query heads per kv head
    hidden_dim = 192     # SwiGLU; a multiple of 32, the 8da4w weight group
    max_seq_len = 128
    norm_eps = 1e-5
    embedding_group = 32  # 4-bit embedding: one scale per 32 columns
    rope_theta = 10000.0


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + self.eps) * self.weight


class LlamaAttention(nn.Module):
    """Grouped-query attention over a KV cache held in mutable buffers,
    through upstream's llama::update_cache and llama::custom_sdpa."""

    def __init__(self, config):
        super().__init__()
        self.n_heads, self.n_kv_heads = config.n_heads, config.n_kv_heads
        self.head_dim = config.dim // config.n_heads
        self.wq = nn.Linear(config.dim, config.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(config.dim, config.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(config.dim, config.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(config.n_heads * self.head_dim, config.dim, bias=False)
        cache = (1, config.max_seq_len, config.n_kv_heads, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(cache))
        self.register_buffer("v_cache", torch.zeros(cache))

    def forward(self, x, rope, start_pos):
        seq = x.shape[1]
        q = rope(self.wq(x).view(1, seq, self.n_heads, self.head_dim))
        k = rope(self.wk(x).view(1, seq, self.n_kv_heads, self.head_dim))
        v = self.wv(x).view(1, seq, self.n_kv_heads, self.head_dim)
        torch.ops.llama.update_cache(k, self.k_cache, start_pos)
        torch.ops.llama.update_cache(v, self.v_cache, start_pos)
        y = torch.ops.llama.custom_sdpa(q, self.k_cache, self.v_cache, start_pos, None, 0.0, True)
        return self.wo(y.view(1, seq, self.n_heads * self.head_dim))


class FeedForward(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.w1 = nn.Linear(config.dim, config.hidden_dim, bias=False)
        self.w2 = nn.Linear(config.hidden_dim, config.dim, bias=False)
        self.w3 = nn.Linear(config.dim, config.hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class LlamaBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention_norm = RMSNorm(config.dim, config.norm_eps)
        self.attention = LlamaAttention(config)
        self.ffn_norm = RMSNorm(config.dim, config.norm_eps)
        self.feed_forward = FeedForward(config)

    def forward(self, x, rope, start_pos):
        h = x + self.attention(self.attention_norm(x), rope, start_pos)
        return h + self.feed_forward(self.ffn_norm(h))


class Rope(nn.Module):
    """Rotary embeddings at the input positions: x * cos + rotate_half(x) * sin,
    the tables looked up by position (an embedding) and rotate_half as a
    fixed [head_dim, head_dim] matrix."""

    def __init__(self, config):
        super().__init__()
        head_dim = config.dim // config.n_heads
        half = head_dim // 2
        inv_freq = 1.0 / (config.rope_theta ** (torch.arange(half, dtype=torch.float64) / half))
        angles = torch.arange(config.max_seq_len, dtype=torch.float64).unsqueeze(1) * inv_freq
        angles = torch.cat([angles, angles], dim=1)
        self.register_buffer("cos_table", angles.cos().float())
        self.register_buffer("sin_table", angles.sin().float())
        rotate = torch.zeros(head_dim, head_dim)
        rotate[torch.arange(half) + half, torch.arange(half)] = -1.0  # out[:half] = -x[half:]
        rotate[torch.arange(half), torch.arange(half) + half] = 1.0   # out[half:] = x[:half]
        self.register_buffer("rotate_half", rotate)
        self.cos = self.sin = None

    def at(self, positions):
        seq = positions.shape[0]
        self.cos = F.embedding(positions, self.cos_table).view(1, seq, 1, -1)
        self.sin = F.embedding(positions, self.sin_table).view(1, seq, 1, -1)
        return self

    def forward(self, x):  # the tables at the current positions: looked up by at()
        return x * self.cos + (x @ self.rotate_half) * self.sin


class TinyLlama(nn.Module):
    """A small Llama-style decoder as upstream's LLM export shapes it:
    forward(tokens [1, 1], input_pos [1]) -> logits of the last token
    [1, vocab]; RMSNorm, RoPE, SwiGLU, grouped-query attention over KV caches
    in mutable buffers (llama::update_cache, llama::custom_sdpa), token
    embeddings in 4 bits (quantized_decomposed::embedding_4bit, groups of
    32). One token per call: prefill runs the prompt token by token, as
    upstream's runner does for programs without dynamic shapes."""

    def __init__(self, config=TinyLlamaConfig()):
        super().__init__()
        self.config = config
        table = torch.randn(config.vocab_size, config.dim) * 0.5
        packed, scales = llm.quantize_embedding_4bit(table, config.embedding_group)
        self.register_buffer("tok_embeddings_packed", packed)
        self.register_buffer("tok_embeddings_scales", scales)
        self.rope = Rope(config)
        self.layers = nn.ModuleList(LlamaBlock(config) for _ in range(config.n_layers))
        self.norm = RMSNorm(config.dim, config.norm_eps)
        self.output = nn.Linear(config.dim, config.vocab_size, bias=False)
        self.tracing = False  # make_fx cannot trace .item(): see etexport/llm.py

    def reset_caches(self):
        for layer in self.layers:
            layer.attention.k_cache.zero_()
            layer.attention.v_cache.zero_()

    def forward(self, tokens, input_pos):
        start_pos = llm.TRACE_START_POS if self.tracing else int(input_pos[0])
        h = torch.ops.quantized_decomposed.embedding_4bit(
            self.tok_embeddings_packed, self.tok_embeddings_scales, None, -8, 7, tokens)
        rope = self.rope.at(input_pos)
        for layer in self.layers:
            h = layer(h, rope, start_pos)
        return self.output(self.norm(h))[:, -1, :]


def _images(shape):
    return lambda g: (torch.randn(*shape, generator=g),)


def _tokens(g):
    return (torch.randint(0, GPTConfig.vocab_size, (1, GPTConfig.block_size), generator=g),)


def samples(full_size=False):
    """The checked-in samples; full_size gives the unreduced networks at
    1x3x224x224 for benchmarks (too large to check in)."""
    if full_size:
        return [
            Sample("mobilenet_v2_full", lambda: torchvision.models.mobilenet_v2(),
                   _images((1, 3, 224, 224))),
            Sample("mobilenet_v2_xnnpack_full", lambda: torchvision.models.mobilenet_v2(),
                   _images((1, 3, 224, 224)), delegate="xnnpack"),
            Sample("mobilenet_v2_xnnpack_int8_full", lambda: torchvision.models.mobilenet_v2(),
                   _images((1, 3, 224, 224)), delegate="xnnpack_qs8"),
            Sample("resnet18_full", lambda: resnet18(), _images((1, 3, 224, 224))),
        ]
    return [
        Sample("tutorial_cnn", TutorialCNN, _images((1, 1, 32, 32))),
        Sample("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(
            width_mult=0.5, num_classes=100), _images((1, 3, 128, 128)),
            "width 0.5, 100 classes, 128x128 input (size budget)"),
        Sample("mobilenet_v2_xnnpack", lambda: torchvision.models.mobilenet_v2(
            width_mult=0.5, num_classes=100), _images((1, 3, 128, 128)),
            "the MobileNetV2 sample, delegated to XNNPACK", delegate="xnnpack"),
        Sample("mobilenet_v2_xnnpack_int8", lambda: torchvision.models.mobilenet_v2(
            width_mult=0.5, num_classes=100), _images((1, 3, 128, 128)),
            "the MobileNetV2 sample, static int8 in XNNPACK: qs8 activations, qc8w weights",
            delegate="xnnpack_qs8"),
        Sample("resnet18", lambda: resnet18(width=0.25, num_classes=100),
               _images((1, 3, 128, 128)),
               "width 0.25, 100 classes, 128x128 input (size budget)"),
        Sample("deeplab_head", SegmentationHead, _image_and_labels,
               "DeepLabV3-style head: atrous conv, bilinear upsampling, pixel_shuffle, "
               "reflection padding, gather; 64x64 input"),
        Sample("transformer_8da4w", TransformerBlock, _images((1, 16, 64)),
               "one transformer block (attention and MLP, 64 channels, 16 tokens) with 8da4w "
               "linears: per-token int8 activations, 4-bit weights in groups of 32, XNNPACK",
               delegate="xnnpack_8da4w", reference=quantize.simulate_8da4w),
        Sample("resnet8_cortex_m_int8", TinyResNet, _images((1, 3, 32, 32)),
               "MLPerf Tiny-style ResNet (residual adds, max pooling), static int8 on "
               "upstream's cortex_m:: ops, channels-last, CMSIS-NN arithmetic",
               delegate="cortex_m_int8"),
        Sample("tiny_llama", TinyLlama, None,
               "Llama-style decoder: RMSNorm, RoPE, SwiGLU, grouped-query attention, KV caches "
               "as mutable buffers, llama::update_cache and llama::custom_sdpa, 4-bit embedding",
               delegate="llm_kv_cache"),
        Sample("tiny_llama_8da4w", TinyLlama, None,
               "the tiny_llama sample with 8da4w linears in XNNPACK (per-token int8 activations, "
               "4-bit weights in groups of 32)",
               delegate="llm_kv_cache", reference=quantize.simulate_8da4w),
        Sample("nano_gpt", NanoGPT, _tokens, generates=True),
        Sample("nano_gpt_bf16", lambda: NanoGPT().to(torch.bfloat16), _tokens,
               "the nanoGPT sample in bfloat16 (weights rounded from the float32 sample's)"),
    ]
