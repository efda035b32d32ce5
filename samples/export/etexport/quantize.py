"""8da4w quantization as upstream's XNNPACK flow runs it, in PyTorch ops:
linear weights 4-bit symmetric per group of 32 input channels with bf16
scales (stored + 8, two per byte, the even column in the low nibble), and
activations quantized per row (token) at run time with XNNPACK's rule.

The exporter quantizes weights with these functions, and the bundles'
expected outputs come from the same functions applied in eager mode
(`simulate_8da4w`): the integer arithmetic inside etkit is not used to
make its own references.
"""
import contextlib

import torch
import torch.nn.functional as F

GROUP = 32


def quantize_weight(weight, group=GROUP):
    """[N, K] float -> (q int8 [N, K] in [-8, 7], scales bfloat16 [N, K / group])."""
    n, k = weight.shape
    blocks = weight.detach().float().reshape(n, k // group, group)
    scales = (blocks.abs().amax(-1) / 7.5).clamp(min=1e-8).to(torch.bfloat16)
    q = torch.round(blocks / scales.float().unsqueeze(-1)).clamp(-8, 7)
    return q.reshape(n, k).to(torch.int8), scales


def dequantize_weight(q, scales, group=GROUP):
    n, k = q.shape
    return (q.float().reshape(n, k // group, group) * scales.float().unsqueeze(-1)).reshape(n, k)


def pack_nibbles(q):
    """int8 [N, K] (K even) -> uint8 [N, K / 2]: q + 8, even column low."""
    u = (q.to(torch.int16) + 8).to(torch.uint8)
    return (u[:, 0::2] | (u[:, 1::2] << 4)).contiguous()


def fake_quantize_per_token(x):
    """XNNPACK's dynamic int8 quantization of each row, then back to float
    (all in float32): range widened to 0, multiplier 255 / (max - min), the
    zero point from the end that loses less, round half to even."""
    rows = x.reshape(-1, x.shape[-1]).float()
    lo = rows.amin(-1).clamp(max=0.0)
    hi = rows.amax(-1).clamp(min=0.0)
    same = lo == hi
    multiplier = torch.where(same, torch.ones_like(lo), 255.0 / torch.where(same, torch.ones_like(lo), hi - lo))
    descaled_lo, descaled_hi = lo * multiplier, hi * multiplier
    zero = torch.where((-128.0 + descaled_lo) + (127.0 + descaled_hi) > 0, -128.0 - descaled_lo, 127.0 - descaled_hi)
    zero = torch.round(zero.clamp(-128.0, 127.0))
    scale = 1.0 / multiplier
    inverse = 1.0 / scale
    scaled = torch.maximum(torch.minimum(rows * inverse.unsqueeze(1), (127.0 - zero).unsqueeze(1)),
                           (-128.0 - zero).unsqueeze(1))
    q = torch.round(scaled) + zero.unsqueeze(1)
    return ((q - zero.unsqueeze(1)) * scale.unsqueeze(1)).reshape(x.shape)


@contextlib.contextmanager
def simulate_8da4w(model):
    """Inside: every nn.Linear of `model` computes with per-token quantized
    activations and its 4-bit weights, as the delegated program does."""
    saved = []
    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            q, scales = quantize_weight(module.weight)
            weight = dequantize_weight(q, scales)

            def forward(x, module=module, weight=weight):
                return F.linear(fake_quantize_per_token(x), weight, module.bias)
            saved.append((module, module.forward))
            module.forward = forward
    try:
        yield model
    finally:
        for module, forward in saved:
            module.forward = forward
