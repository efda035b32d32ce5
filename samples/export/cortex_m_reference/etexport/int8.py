"""Static int8 quantization parameters and integer arithmetic helpers the
Cortex-M lowering (cortex_m.py) builds on, in PyTorch ops.

Parameters: activations per tensor, affine int8 from the range a min/max
observer saw over calibration inputs (widened to hold 0); weights per output
channel, symmetric in [-127, 127]; biases int32 with scale input scale x
weight scale. These rules are the textbook ones (the observer's formula is
derived in the docstrings), not code from either project.

Helpers: convolutions and fully connected layers accumulate in exact
integers and requantize in float32 (scale = input scale x weight scale /
output scale, round half to even); adds use 20-bit fixed-point multipliers
and one arithmetic shift; the global average pool requantizes its integer
sum in float32.
"""
import math

import torch
import torch.fx

QMIN, QMAX = -128, 127
WEIGHT_QMAX = 127
_EPS = torch.finfo(torch.float32).eps
_F32 = torch.float32


def f32(value):
    return torch.tensor(value, dtype=_F32)


def activation_params(lo, hi):
    """(scale, zero point) of an observed range [lo, hi]: the range is widened
    to hold 0 so zero is exact, 255 steps span it, and the zero point puts lo
    on -128 (clamped into int8)."""
    lo, hi = f32(min(lo, 0.0)), f32(max(hi, 0.0))
    scale = torch.clamp((hi - lo) / (QMAX - QMIN), min=_EPS)
    zero_point = int(torch.clamp(QMIN - torch.round(lo / scale), QMIN, QMAX))
    return float(scale), zero_point


def channel_weights(weight):
    """Per-output-channel (dim 0) symmetric int8 weights: (q int8, scales f32)."""
    flat = weight.detach().to(_F32).reshape(weight.shape[0], -1)
    scales = torch.clamp(flat.abs().amax(1) / WEIGHT_QMAX, min=_EPS)
    q = torch.clamp(torch.round(flat / scales.unsqueeze(1)), -WEIGHT_QMAX, WEIGHT_QMAX)
    return q.reshape(weight.shape).to(torch.int8), scales


def bias_int32(bias, input_scale, weight_scales):
    """int32 bias and its per-channel scales (input scale x weight scale)."""
    scales = f32(input_scale) * weight_scales
    q = torch.round(bias.detach().to(torch.float64) / scales.double())
    return q.clamp(-2**31, 2**31 - 1).to(torch.int32), scales


def requantize(accumulator, scale, zero_point, lo=QMIN, hi=QMAX):
    """float32(acc) x scale in float32, clamped, rounded half to even, + zp.
    Values stay float32 tensors holding integers."""
    scaled = accumulator.to(_F32) * scale
    return torch.clamp(torch.round(scaled) + zero_point, lo, hi)


def quantize(x, scale, zero_point):
    """A fp32 -> qs8 Convert: x times the reciprocal scale."""
    return torch.clamp(torch.round(x.to(_F32) * (f32(1.0) / f32(scale))) + zero_point, QMIN, QMAX)


def dequantize(q, scale, zero_point):
    return (q - zero_point).to(_F32) * f32(scale)


def requant_scales(input_scale, weight_scales, output_scale):
    return (f32(input_scale) * weight_scales) / f32(output_scale)


def add(a, a_params, b, b_params, out_params):
    """XNNPACK's qs8 add: each input's scale over the output's as a 20-bit
    multiplier for one shift, chosen by the larger ratio's exponent."""
    (sa, za), (sb, zb), (so, zo) = a_params, b_params, out_params
    ratio_a, ratio_b = float(f32(sa) / f32(so)), float(f32(sb) / f32(so))
    exponent = math.frexp(max(ratio_a, ratio_b))[1] - 1
    shift = 20 - exponent
    if not 12 <= shift <= 30:
        raise ValueError("add scales ratio %g out of XNNPACK's range" % max(ratio_a, ratio_b))
    mult_a, mult_b = round(ratio_a * 2**shift), round(ratio_b * 2**shift)  # half to even
    acc = (a.long() - za) * mult_a + (b.long() - zb) * mult_b + (1 << (shift - 1))
    return torch.clamp((acc >> shift) + zo, QMIN, QMAX).to(_F32)


def global_average(q, in_params, out_params):
    """Mean over H and W of NCHW integers: the integer sum requantized."""
    (si, zi), (so, zo) = in_params, out_params
    count = q.shape[2] * q.shape[3]
    total = (q.double() - zi).sum(dim=(2, 3), keepdim=True)
    return requantize(total, f32(si) / (f32(so) * f32(float(count))), zo)


def clamp_bounds(low, high, params):
    """An fp32 clamp's bounds on a qs8 value: rounded into its integer grid."""
    scale, zero_point = params

    def bound(value):
        if math.isinf(value):
            return QMAX if value > 0 else QMIN
        return int(torch.clamp(torch.round(f32(value) / f32(scale) + zero_point), QMIN, QMAX))
    return bound(low), bound(high)


class Calibration:
    """Per graph node, the range of its float results over calibration runs."""

    def __init__(self):
        self.ranges = {}

    def observe(self, results):
        for node, value in results.items():
            if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel():
                lo, hi = float(value.min()), float(value.max())
                old = self.ranges.get(node)
                self.ranges[node] = (lo, hi) if old is None else (min(lo, old[0]), max(hi, old[1]))

    def params(self, node):
        if node not in self.ranges:
            raise ValueError("%s: no calibrated range" % node.name)
        return activation_params(*self.ranges[node])
