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
    """`preserve`: ops to_edge must keep whole instead of decomposing (it
    decomposes e.g. pixel_shuffle and the paddings into view and index ops,
    so their own kernels would never be reached)."""

    def __init__(self, name, dtype, fn, inputs, source, preserve=()):
        self.name, self.dtype, self.fn, self.inputs, self.source = name, dtype, fn, inputs, source
        self.preserve = tuple(preserve)

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


def overload_cases(seed=20261127):
    """Kernels of upstream's portable list that neither OpInfo samples nor
    the default to_edge reach: scalar overloads called by name, and ops kept
    whole (`preserve`) where to_edge would decompose them."""
    g = torch.Generator().manual_seed(seed)
    t = lambda *a, **k: _t(g, *a, **k)  # noqa: E731
    A, nnf, U8 = torch.ops.aten, torch.nn.functional, torch.uint8
    mask = lambda shape: t(shape, B)  # noqa: E731
    cases = []
    for dtype in (F, I32, torch.float16):
        cases += [
            ("add.Scalar", dtype, lambda a: A.add.Scalar(a, 3, alpha=2), [t((2, 3), dtype)]),
            ("sub.Scalar", dtype, lambda a: A.sub.Scalar(a, 2), [t((2, 3), dtype)]),
            ("mul.Scalar", dtype, lambda a: A.mul.Scalar(a, -3), [t((2, 3), dtype)]),
            ("rsub.Scalar", dtype, lambda a: A.rsub.Scalar(a, 2), [t((2, 3), dtype)], [A.rsub.Scalar]),
            ("remainder.Scalar", dtype, lambda a: A.remainder.Scalar(a, -3), [t((2, 3), dtype)]),
            ("ne.Scalar", dtype, lambda a: A.ne.Scalar(a, 1), [t((2, 3), dtype)]),
            ("div.Scalar", dtype, lambda a: A.div.Scalar(a, 3), [t((2, 3), dtype)]),
            ("pow.Tensor_Scalar", dtype, lambda a: A.pow.Tensor_Scalar(a, 3), [t((2, 3), dtype)]),
            ("fill.Scalar", dtype, lambda a: A.fill.Scalar(a, 7), [t((2, 3), dtype)], [A.fill.Scalar]),
            ("ones and zeros", dtype, lambda a, dtype=dtype: A.ones.default([2, 3], dtype=dtype) - A.zeros.default([2, 3]) + a,
             [t((2, 3), dtype)], [A.ones.default, A.zeros.default]),
            ("max.dim and min.dim", dtype, lambda a: (A.max.dim(a, 1), A.min.dim(a, -1, True)), [t((3, 4), dtype)]),
            ("max and min of all", dtype, lambda a: (A.max.default(a), A.min.default(a)), [t((3, 4), dtype)]),
            ("floor_divide", dtype, lambda a, b: A.floor_divide.default(a, b), [t((2, 3), dtype), t((2, 3), dtype, 1, 4)],
             [A.floor_divide.default]),
            ("roll", dtype, lambda a: torch.roll(a, (1, -2), (0, 1)), [t((3, 4), dtype)], [A.roll.default]),
            ("tril", dtype, lambda a: torch.tril(a, -1), [t((4, 3), dtype)], [A.tril.default]),
            ("stack", dtype, lambda a, b: torch.stack([a, b], -1), [t((3, 2), dtype), t((3, 2), dtype)],
             [A.stack.default]),
            ("t_copy and transpose_copy", dtype, lambda a, b: (A.t_copy.default(a), A.transpose_copy.int(b, 0, -1)),
             [t((3, 2), dtype), t((3, 2, 4), dtype)], [A.t_copy.default, A.transpose_copy.int]),
            ("squeeze_copy.dim and split_copy.Tensor", dtype, lambda a, b: (A.squeeze_copy.dim(a, 1),
                                                                           *A.split_copy.Tensor(b, 2, 1)),
             [t((3, 1, 2), dtype), t((3, 5), dtype)], [A.squeeze_copy.dim]),
            ("pixel_shuffle and unshuffle", dtype, lambda a, b: (nnf.pixel_shuffle(a, 2), nnf.pixel_unshuffle(b, 2)),
             [t((1, 8, 2, 3), dtype), t((1, 2, 4, 6), dtype)], [A.pixel_shuffle.default, A.pixel_unshuffle.default]),
            ("reflection and replication pads", dtype, lambda a, b, c: (
                A.reflection_pad1d.default(a, (2, 1)), A.reflection_pad2d.default(b, (2, 1, 1, 2)),
                A.reflection_pad3d.default(c, (1, 1, 1, 0, 0, 1)), A.replication_pad1d.default(a, (2, 1)),
                A.replication_pad2d.default(b, (2, 1, 1, 2)), A.replication_pad3d.default(c, (1, 1, 1, 0, 0, 1))),
             [t((1, 2, 5), dtype), t((1, 2, 5, 4), dtype), t((1, 2, 3, 4, 3), dtype)],
             [A.reflection_pad1d.default, A.reflection_pad2d.default, A.reflection_pad3d.default,
              A.replication_pad1d.default, A.replication_pad2d.default, A.replication_pad3d.default]),
            ("scatter.value", dtype, lambda a, i: A.scatter.value(a, 1, i, 9), [t((3, 4), dtype), t((3, 2), I64, 0, 4)]),
            ("slice_scatter", dtype, lambda a, b: torch.slice_scatter(a, b, 1, 1, 3), [t((3, 4), dtype),
                                                                                       t((3, 2), dtype)]),
            ("masked_fill.Scalar", dtype, lambda a, m: A.masked_fill.Scalar(a, m, -1), [t((2, 3), dtype), mask((2, 3))],
             [A.masked_fill.Scalar]),
            ("masked_select", dtype, lambda a, m: A.masked_select.default(a, m), [t((2, 3), dtype), mask((3,))],
             [A.masked_select.default]),
            ("repeat_interleave.Tensor", I64, lambda r: A.repeat_interleave.Tensor(r, output_size=6),
             [torch.tensor([1, 2, 0, 3])], [A.repeat_interleave.Tensor]),
            ("unfold_copy", dtype, lambda a: A.unfold_copy.default(a, 1, 2, 1), [t((3, 5), dtype)],
             [A.unfold_copy.default]),
            ("copy and fill.Tensor", dtype, lambda a, b, v: (A.copy.default(a, b), A.fill.Tensor(a, v)),
             [t((2, 3), dtype), t((3,), dtype), t((), dtype)], [A.fill.Tensor]),
            ("detach_copy", dtype, lambda a: A.detach_copy.default(a), [t((2, 3), dtype)]),
        ]
    for dtype in (F, torch.float64, torch.bfloat16):
        cases += [
            ("div.Scalar_mode", dtype, lambda a: (A.div.Scalar_mode(a, -3, rounding_mode="floor"),
                                                  A.div.Scalar_mode(a, 2, rounding_mode="trunc")), [t((2, 3), dtype)]),
            ("pow.Tensor_Tensor and pow.Scalar", dtype, lambda a, b: (A.pow.Tensor_Tensor(a.abs(), b),
                                                                      A.pow.Scalar(2.0, b)),
             [t((2, 3), dtype), t((2, 3), dtype)]),
            ("glu", dtype, lambda a: nnf.glu(a, -1), [t((2, 4), dtype)], [A.glu.default]),
            ("logit", dtype, lambda a: (A.logit.default(a, 0.1), A.logit.default(a)),
             [torch.rand((2, 3), generator=g).to(dtype)], [A.logit.default]),
            ("var.correction and var_mean", dtype, lambda a: (torch.var(a, 1, correction=0, keepdim=True),
                                                              *torch.var_mean(a, 1)),
             [t((3, 4), dtype)], [A.var_mean.correction]),
            ("cdist", dtype, lambda a, b: torch.cdist(a, b), [t((3, 4), dtype), t((2, 4), dtype)]),
            ("upsample_bilinear2d antialiased", dtype, lambda a: nnf.interpolate(
                a, size=(3, 2), mode="bilinear", antialias=True), [t((1, 2, 6, 5), dtype)]),
            ("native_dropout in eval", dtype, lambda a: A.native_dropout.default(a, 0.5, False), [t((2, 3), dtype)]),
        ]
    for dtype in (I64, U8, B):
        cases += [
            ("bitwise Scalar ops", dtype, lambda a: (A.bitwise_and.Scalar(a, 6), A.bitwise_or.Scalar(a, 6),
                                                     A.bitwise_xor.Scalar(a, 5)), [t((2, 3), dtype, 0, 9)]),
            ("any.all", dtype, lambda a: A.any.default(a), [t((2, 3), dtype, 0, 2)]),
        ]
    # Not here: view_as_real_copy and _conj_physical need complex inputs,
    # which upstream's BundledProgram writes but its own reader cannot read
    # back (deserialize_from_flatbuffer_to_bundled_program: KeyError 9).
    cases += [
        ("arange.out and scalar_tensor", I64, lambda a: (A.arange.default(5) + a, A.scalar_tensor.default(3) * a),
         [t((5,), I64)], [A.arange.default]),
        ("empty", F, lambda a: A.empty.memory_format([2, 0]), [t((2, 3))]),
        ("clone and lift_fresh_copy", F, lambda a: (A.clone.default(a) * 2, A.lift_fresh_copy.default(a)),
         [t((2, 3))]),
        ("_to_copy", F, lambda a: A._to_copy.default(a * 4, dtype=torch.int32), [t((2, 3))]),
        ("copy_", F, lambda a, b: a.copy_(b) * 1, [t((2, 3)), t((3,))]),
        ("index_put_", F, lambda a, i, v: a.index_put_((i,), v, accumulate=True) * 1,
         [t((5, 2)), t((3,), I64, 0, 5), t((3, 2))]),
    ]
    return [Case(*c[:4], "overload", *c[4:]) for c in cases]


def more_quantized_and_llm_cases(seed=20261127):
    """The dtype and 2-bit embeddings, and the llama:: kernels upstream's LLM
    export can emit beyond update_cache and custom_sdpa. Not here: ops eager
    PyTorch has no CPU kernel for (quantized_decomposed::add, mixed_mm,
    mixed_linear), so no expected outputs."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401  registers quantized_decomposed ops
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401  registers llama:: ops
    g = torch.Generator().manual_seed(seed)
    q, llama = torch.ops.quantized_decomposed, torch.ops.llama
    weight8 = torch.randint(-128, 128, (10, 8), generator=g, dtype=torch.int8)
    packed = torch.randint(0, 256, (10, 2), generator=g).to(torch.uint8)  # 4 two-bit or 2 four-bit values a byte
    scales = torch.rand((10,), generator=g) * 0.1 + 0.01
    zeros = torch.randint(-1, 2, (10,), generator=g).float()
    indices = torch.randint(0, 10, (2, 3), generator=g)
    a8 = torch.randint(-128, 128, (3, 4), generator=g, dtype=torch.int8)
    q_, k_, v_ = (torch.randn((1, 2, 4, 8), generator=g) for _ in range(3))  # [batch, seq, heads, head dim]
    cache_k, cache_v = (torch.randn((1, 6, 4, 8), generator=g) for _ in range(2))
    positions = torch.tensor([[4, 1]])
    mat = torch.randn((3, 16), generator=g)
    b16 = torch.bfloat16
    cases = [
        ("embedding_byte.dtype", b16, lambda w, s, z, i: q.embedding_byte.dtype(
            w, s.to(b16), z.to(b16), -128, 127, i, dtype=b16),
         [weight8, scales, zeros, indices]),
        ("embedding_2bit", F, lambda w, s, z, i: (q.embedding_2bit(w, s, z, -2, 1, i),
                                                  q.embedding_2bit.dtype(
            w, s.to(b16), None, -2, 1, i, dtype=b16)),
         [packed, scales, zeros, indices]),
        ("embedding_4bit.dtype", b16, lambda w, s, z, i: q.embedding_4bit.dtype(
            w, s.to(b16), z.to(b16), -8, 7, i, dtype=b16),
         [packed, scales, zeros, indices]),
        ("dequantize_per_tensor.Tensor", F, lambda a, s, z: q.dequantize_per_tensor.tensor(a, s, z, -128, 127, I8),
         [a8, torch.tensor(0.04), torch.tensor(-2)]),
        ("update_cache_with_indices", F, lambda v, c, i: (llama.update_cache_with_indices(v, c, 0, i), c * 1),
         [k_, cache_k.clone(), positions]),
        ("sdpa_with_kv_cache", F, lambda a, b, c, ck, cv: llama.sdpa_with_kv_cache(a, b, c, ck, cv, 2, 2, None, 0.0,
                                                                                   True),
         [q_, k_, v_, cache_k.clone(), cache_v.clone()]),
        ("fast_hadamard_transform", F, lambda m: llama.fast_hadamard_transform(m), [mat]),
    ]
    return [Case(*c, "quantized" if c[0].startswith(("embedding", "dequant")) else "llm")
            for c in cases]
