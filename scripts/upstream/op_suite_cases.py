"""The cases of the upstream op suite (scripts/upstream/make_op_suite.py).

Three sources, none of them etkit's:
- PyTorch's own OpInfo database (torch.testing._internal): for every OpInfo
  that reaches an op of upstream's portable op list, seeded samples in each
  dtype the OpInfo says the CPU supports: broadcasting, empty tensors, dim
  -1, scalar arguments, non-contiguous inputs, as PyTorch tests its ops;
- hand-written cases for what OpInfo lacks or samples too rarely
  (channels-last convolutions, upstream-specific rounding modes);
- upstream's quantized (quantized_decomposed::) and LLM (llama::) ops,
  called as torch ops with inputs derived by hand.

A case is a name, a dtype label, a function of tensors and its inputs.
"""

import random

import torch
from torch.utils import _pytree as pytree

F, I8, I32, I64, B = torch.float32, torch.int8, torch.int32, torch.int64, torch.bool

# The dtypes etkit's kernels are tested in (README's kernel table).
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]

# OpInfos whose names differ from the portable op they lower to.
EXTRA_OPINFOS = {
    "nn.functional.conv1d", "nn.functional.conv2d", "softmax", "log_softmax", "nn.functional.elu",
    "nn.functional.embedding", "nn.functional.pixel_shuffle", "nn.functional.pixel_unshuffle",
    "nn.functional.max_pool2d", "nn.functional.interpolate", "nn.functional.cdist", "nn.functional.pdist",
    "nn.functional.adaptive_avg_pool2d", "nn.functional.batch_norm", "nn.functional.layer_norm",
    "nn.functional.group_norm", "select", "narrow", "split", "nn.functional.upsample_bilinear",
    "nn.functional.upsample_nearest", "nn.functional.hardswish", "nn.functional.hardsigmoid", "nn.functional.silu",
    "clone", "contiguous", "expand", "t", "transpose", "permute", "view", "reshape", "squeeze", "unsqueeze",
    "unbind", "diagonal", "__getitem__", "triu", "argsort", "sort", "nn.functional.linear", "baddbmm", "matmul",
    "index_put", "nn.functional.mse_loss",
}
# Random or uninitialized values: nothing to compare.
NOT_COMPARABLE = {"randn", "rand", "empty", "empty_like", "new_empty", "native_dropout", "nn.functional.dropout",
                  "randint", "randn_like", "rand_like", "bernoulli", "normal", "uniform", "empty_strided"}
# Samples larger than this (elements over all inputs) are left out: the
# bundle holds every input and output.
MAX_ELEMENTS = 2048


class Case:
    def __init__(self, name, dtype, fn, inputs, source):
        self.name, self.dtype, self.fn, self.inputs, self.source = name, dtype, fn, inputs, source

    @property
    def dtype_label(self):
        return str(self.dtype).replace("torch.", "") if isinstance(self.dtype, torch.dtype) else self.dtype


def _sample_case(opinfo, dtype, sample):
    flat, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    positions = [i for i, x in enumerate(flat) if isinstance(x, torch.Tensor)]
    tensors = [flat[i] for i in positions]
    if not tensors or any(t.is_complex() or t.layout != torch.strided for t in tensors):
        return None
    if sum(t.numel() for t in tensors) > MAX_ELEMENTS:
        return None

    def fn(*given, flat=flat, positions=positions, spec=spec, call=opinfo.op):
        values = list(flat)
        for i, t in zip(positions, given):
            values[i] = t
        first, args, kwargs = pytree.tree_unflatten(values, spec)
        return call(first, *args, **kwargs)

    return Case(opinfo.name, dtype, fn, [t.detach().clone() for t in tensors], "opinfo")


def opinfo_cases(portable_bases, per_dtype=1, seed=20261127):
    """One seeded sample per (OpInfo, dtype) for the OpInfos reaching the
    portable op list (by ATen name, or listed in EXTRA_OPINFOS)."""
    from torch.testing._internal.common_methods_invocations import op_db

    chooser = random.Random(seed)
    cases = []
    for opinfo in op_db:
        if opinfo.name in NOT_COMPARABLE or opinfo.variant_test_name:
            continue
        if not (opinfo.aten_name in portable_bases or opinfo.name in portable_bases or opinfo.name in EXTRA_OPINFOS):
            continue
        supported = opinfo.supported_dtypes("cpu")
        for dtype in DTYPES:
            if dtype not in supported:
                continue
            torch.manual_seed(seed)
            try:
                samples = list(opinfo.sample_inputs("cpu", dtype))
            except Exception:  # an OpInfo whose sampler needs what this machine lacks
                continue
            chooser.shuffle(samples)
            taken = 0
            for sample in samples:
                case = _sample_case(opinfo, dtype, sample)
                if case is not None:
                    cases.append(case)
                    taken += 1
                if taken == per_dtype:
                    break
    return cases


def _t(generator, shape, dtype=F, low=-5, high=5, channels_last=False):
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=generator).to(dtype)
    elif dtype == B:
        x = torch.randint(0, 2, shape, generator=generator).to(B)
    else:
        x = torch.randint(low, high, shape, generator=generator).to(dtype)
    return x.to(memory_format=torch.channels_last) if channels_last else x


def hand_cases(seed=20261127):
    """What OpInfo samples miss: other dim orders into convolutions and
    pools, rounding modes, integer division by negatives, detection-style
    grid ops."""
    g = torch.Generator().manual_seed(seed)
    t = lambda *a, **k: _t(g, *a, **k)  # noqa: E731
    nnf = torch.nn.functional
    return [Case(*c, "hand") for c in [
        ("div floor", I64, lambda a, b: torch.div(a, b, rounding_mode="floor"), [t((2, 3), I64), t((2, 3), I64, -4, -1)]),
        ("div trunc", I32, lambda a, b: torch.div(a, b, rounding_mode="trunc"), [t((2, 3), I32), t((2, 3), I32, 1, 5)]),
        ("remainder by negatives", I64, torch.remainder, [t((2, 3), I64), t((2, 3), I64, -4, -1)]),
        ("conv2d channels-last", F, lambda a, w: nnf.conv2d(a, w, stride=2),
         [t((1, 3, 7, 5), channels_last=True), t((4, 3, 3, 3))]),
        ("conv2d depthwise", F, lambda a, w: nnf.conv2d(a, w, padding=1, groups=3), [t((1, 3, 6, 6)), t((3, 1, 3, 3))]),
        ("max_pool2d channels-last", F, lambda a: nnf.max_pool2d(a, 2, 2), [t((1, 2, 7, 5), channels_last=True)]),
        ("avg_pool2d", F, lambda a: nnf.avg_pool2d(a, 3, 1, 1), [t((1, 2, 7, 5))]),
        ("upsample bilinear", F, lambda a: nnf.interpolate(a, size=(5, 7), mode="bilinear"), [t((1, 2, 3, 4))]),
        ("cat with empty", F, lambda a, b: torch.cat([a, b], 0), [t((0, 3)), t((2, 3))]),
        ("arange and meshgrid", I64, lambda a: torch.stack(torch.meshgrid(
            [torch.arange(a.shape[0]), torch.arange(a.shape[1])], indexing="ij"), 2) + a[..., None],
         [t((3, 4), I64)]),
        ("to int32", F, lambda a: (a * 4).to(torch.int32), [t((3, 4))]),
    ]]


def quantized_cases(seed=20261127):
    """upstream's quantized_decomposed ops, per tensor, per channel and per
    token, with int8 and uint8 ranges, and the byte and 4-bit embeddings."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401  registers quantized_decomposed ops
    g = torch.Generator().manual_seed(seed)
    q = torch.ops.quantized_decomposed
    x = torch.randn((4, 6), generator=g) * 3
    scales = torch.rand((6,), generator=g) * 0.1 + 0.01
    zeros = torch.randint(-3, 4, (6,), generator=g)
    weight8 = torch.randint(-128, 128, (10, 4), generator=g, dtype=torch.int8)
    weight4 = torch.randint(0, 256, (10, 2), generator=g).to(torch.uint8)  # two 4-bit values (+8) per byte
    row_scales = torch.rand((10,), generator=g) * 0.1 + 0.01
    row_zeros = torch.randint(-3, 4, (10,), generator=g).float()  # the scales' dtype, as upstream requires
    indices = torch.randint(0, 10, (2, 3), generator=g)
    return [Case(*c, "quantized") for c in [
        ("quantize_per_tensor int8", I8, lambda a: q.quantize_per_tensor(a, 0.05, 3, -128, 127, torch.int8), [x]),
        ("quantize_per_tensor uint8", torch.uint8,
         lambda a: q.quantize_per_tensor(a, 0.05, 128, 0, 255, torch.uint8), [x]),
        ("dequantize_per_tensor int8", F, lambda a: q.dequantize_per_tensor(a, 0.05, 3, -128, 127, torch.int8),
         [torch.randint(-128, 128, (4, 6), generator=g, dtype=torch.int8)]),
        ("quantize and dequantize per tensor (tensor args)", F, lambda a, s, z: q.dequantize_per_tensor.tensor(
            q.quantize_per_tensor.tensor(a, s, z, -128, 127, torch.int8), s, z, -128, 127, torch.int8),
         [x, torch.tensor(0.04), torch.tensor(-2)]),
        ("quantize_per_channel int8", I8, lambda a, s, z: q.quantize_per_channel(a, s, z, 1, -128, 127, torch.int8),
         [x, scales, zeros]),
        ("dequantize_per_channel int8", F,
         lambda a, s, z: q.dequantize_per_channel(a, s, z, 1, -128, 127, torch.int8),
         [torch.randint(-128, 128, (4, 6), generator=g, dtype=torch.int8), scales, zeros]),
        ("choose_qparams then quantize", I8, lambda a: q.quantize_per_tensor.tensor(
            a, *q.choose_qparams.tensor(a, -128, 127, 1e-7, torch.int8), -128, 127, torch.int8), [x]),
        ("per token quantize and dequantize", F, lambda a: q.dequantize_per_token(
            q.quantize_per_token(a, *q.choose_qparams_per_token_asymmetric(a, torch.int8), -128, 127, torch.int8),
            *q.choose_qparams_per_token_asymmetric(a, torch.int8), -128, 127, torch.int8, torch.float32), [x]),
        ("embedding_byte", F, lambda w, s, z, i: q.embedding_byte(w, s, z, -128, 127, i),
         [weight8, row_scales, row_zeros, indices]),
        ("embedding_4bit", F, lambda w, s, z, i: q.embedding_4bit(w, s, z, -8, 7, i),
         [weight4, row_scales, row_zeros, indices]),
    ]]


def llm_cases(seed=20261127):
    """upstream's llama:: ops: the KV-cache update and the SDPA kernels."""
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401  registers llama:: ops
    g = torch.Generator().manual_seed(seed)
    llama = torch.ops.llama
    q, k = (torch.randn((1, 3, 2, 8), generator=g) for _ in range(2))  # [batch, seq, heads, head dim]
    cache_k, cache_v = (torch.randn((1, 6, 2, 8), generator=g) for _ in range(2))

    def update_then_read(value, cache):
        llama.update_cache(value, cache, 2)
        return cache.clone()

    return [Case(*c, "llm") for c in [
        ("custom_sdpa causal", F, lambda q_, ck, cv: llama.custom_sdpa(q_, ck, cv, 0, None, 0.0, True),
         [q, cache_k, cache_v]),
        ("update_cache", F, update_then_read, [k, cache_k.clone()]),
    ]]
