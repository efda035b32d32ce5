"""An op suite made by upstream's exporter, run by both runtimes.

Each case is a one- or two-op module exported with torch.export and
upstream's to_edge / to_executorch (portable kernels, no delegate), in the
dtypes upstream's kernels take, with broadcasting, dim -1, empty tensors,
other dim orders (channels-last inputs) and scalar arguments. Upstream's
runtime and `etinspect run` get the same inputs; integer and bool outputs
must be equal, float ones within 1e-6 relative (upstream's optimized
kernels may sum in another order). Detection-head grid ops (arange, full,
meshgrid, stack, views into an XNNPACK-delegated head) are cases too.

With ETKIT_OP_TABLE=FILE the results are written as a Markdown table
(docs/upstream-op-suite.md is made so: op, dtype, equals upstream's runtime).
"""

import os
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np
import torch

import oracle
from executorch.exir import to_edge, to_edge_transform_and_lower
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

F, I32, I64, B = torch.float32, torch.int32, torch.int64, torch.bool
G = torch.Generator().manual_seed(20261127)


def t(shape, dtype=F, low=-5, high=5, channels_last=False):
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=G).to(dtype)
    elif dtype == B:
        x = torch.randint(0, 2, shape, generator=G).to(B)
    else:
        x = torch.randint(low, high, shape, generator=G).to(dtype)
    return x.to(memory_format=torch.channels_last) if channels_last else x


class Op(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def binary(name, fn, dtypes, shapes=((2, 3), (2, 3))):
    return [(name, str(d).replace("torch.", ""), fn, [t(shapes[0], d), t(shapes[1], d, 1, 5)]) for d in dtypes]


# (op, dtype label, function, inputs)
CASES = (
    binary("add", torch.add, [F, I32, I64])
    + binary("add (broadcast)", torch.add, [F, I64], ((2, 1, 3), (4, 1)))
    + binary("sub", torch.sub, [F, I32])
    + binary("mul", torch.mul, [F, I32, I64])
    + binary("div", torch.div, [F])
    + binary("div floor", lambda a, b: torch.div(a, b, rounding_mode="floor"), [F, I64])
    + binary("div trunc", lambda a, b: torch.div(a, b, rounding_mode="trunc"), [I32])
    + binary("remainder", torch.remainder, [F, I64])
    + binary("maximum", torch.maximum, [F, I32])
    + binary("minimum", torch.minimum, [F, I64])
    + binary("eq", torch.eq, [F, I64])
    + binary("lt", torch.lt, [F, I32])
    + binary("bitwise_and", torch.bitwise_and, [I32, B])
    + binary("logical_or", torch.logical_or, [B])
    + binary("atan2", torch.atan2, [F])
    + binary("pow", lambda a, b: torch.pow(a.abs() + 0.5, b), [F])
    + [
        ("add scalar", "float32", lambda a: a + 2.5, [t((3, 4))]),
        ("mul scalar", "int64", lambda a: a * 3, [t((5,), I64)]),
        ("where", "float32", lambda c, a, b: torch.where(c, a, b), [t((2, 3), B), t((2, 3)), t((1, 3))]),
        ("clamp", "float32", lambda a: torch.clamp(a, -0.5, 0.7), [t((4, 5))]),
        ("clamp", "int32", lambda a: torch.clamp(a, -2, 3), [t((4, 5), I32)]),
        ("abs", "float32", torch.abs, [t((3, 7))]),
        ("abs", "int64", torch.abs, [t((3, 7), I64)]),
        ("neg", "int32", torch.neg, [t((3, 7), I32)]),
        ("exp", "float32", torch.exp, [t((3, 7))]),
        ("log", "float32", lambda a: torch.log(a.abs() + 1e-3), [t((3, 7))]),
        ("sqrt", "float32", lambda a: torch.sqrt(a.abs()), [t((3, 7))]),
        ("rsqrt", "float32", lambda a: torch.rsqrt(a.abs() + 0.1), [t((3, 7))]),
        ("sigmoid", "float32", torch.sigmoid, [t((3, 7))]),
        ("tanh", "float32", torch.tanh, [t((3, 7))]),
        ("relu", "float32", torch.relu, [t((3, 7))]),
        ("gelu", "float32", torch.nn.functional.gelu, [t((3, 7))]),
        ("gelu tanh", "float32", lambda a: torch.nn.functional.gelu(a, approximate="tanh"), [t((3, 7))]),
        ("hardtanh", "float32", torch.nn.functional.hardtanh, [t((3, 7))]),
        ("leaky_relu", "float32", lambda a: torch.nn.functional.leaky_relu(a, 0.2), [t((3, 7))]),
        ("floor", "float32", torch.floor, [t((3, 7)) * 3]),
        ("round", "float32", torch.round, [t((3, 7)) * 3]),
        ("sign", "float32", torch.sign, [t((3, 7))]),
        ("erf", "float32", torch.erf, [t((3, 7))]),
        ("sin", "float32", torch.sin, [t((3, 7))]),
        ("softmax dim -1", "float32", lambda a: torch.softmax(a, -1), [t((2, 3, 5))]),
        ("log_softmax dim 1", "float32", lambda a: torch.log_softmax(a, 1), [t((2, 3, 5))]),
        ("sum dim -1", "float32", lambda a: a.sum(-1), [t((2, 3, 5))]),
        ("sum dims keepdim", "int64", lambda a: a.sum((0, 2), keepdim=True), [t((2, 3, 5), I64)]),
        ("mean dim 1", "float32", lambda a: a.mean(1), [t((2, 3, 5))]),
        ("amax dim -1", "float32", lambda a: a.amax(-1), [t((2, 3, 5))]),
        ("amin dim 0", "int32", lambda a: a.amin(0), [t((4, 3), I32)]),
        ("argmax dim -1", "float32", lambda a: a.argmax(-1), [t((2, 3, 5))]),
        ("cumsum dim 1", "float32", lambda a: a.cumsum(1), [t((2, 6))]),
        ("cumsum dim 0", "int64", lambda a: a.cumsum(0), [t((5, 2), I64)]),
        ("var dim 1", "float32", lambda a: a.var(1), [t((3, 8))]),
        ("mm", "float32", torch.mm, [t((3, 4)), t((4, 5))]),
        ("bmm", "float32", torch.bmm, [t((2, 3, 4)), t((2, 4, 5))]),
        ("addmm", "float32", lambda c, a, b: torch.addmm(c, a, b), [t((5,)), t((3, 4)), t((4, 5))]),
        ("linear", "float32", lambda a, w, b: torch.nn.functional.linear(a, w, b), [t((2, 3, 4)), t((5, 4)), t((5,))]),
        ("conv2d", "float32", lambda a, w: torch.nn.functional.conv2d(a, w, padding=1), [t((1, 3, 7, 5)), t((4, 3, 3, 3))]),
        ("conv2d channels-last", "float32", lambda a, w: torch.nn.functional.conv2d(a, w, stride=2),
         [t((1, 3, 7, 5), channels_last=True), t((4, 3, 3, 3))]),
        ("conv2d depthwise", "float32", lambda a, w: torch.nn.functional.conv2d(a, w, padding=1, groups=3),
         [t((1, 3, 6, 6)), t((3, 1, 3, 3))]),
        ("max_pool2d", "float32", lambda a: torch.nn.functional.max_pool2d(a, 2, 2), [t((1, 2, 7, 5))]),
        ("avg_pool2d", "float32", lambda a: torch.nn.functional.avg_pool2d(a, 3, 1, 1), [t((1, 2, 7, 5))]),
        ("layer_norm", "float32", lambda a: torch.nn.functional.layer_norm(a, (5,)), [t((2, 3, 5))]),
        ("embedding", "float32", lambda w, i: torch.nn.functional.embedding(i, w), [t((10, 4)), t((2, 3), I64, 0, 10)]),
        ("index_select", "float32", lambda a, i: a.index_select(1, i), [t((3, 5)), t((4,), I64, 0, 5)]),
        ("gather dim -1", "int64", lambda a, i: a.gather(-1, i), [t((3, 5), I64), t((3, 2), I64, 0, 5)]),
        ("permute", "float32", lambda a: a.permute(2, 0, 1).contiguous(), [t((2, 3, 5))]),
        ("transpose", "int32", lambda a: a.transpose(0, 1).contiguous(), [t((3, 7), I32)]),
        ("cat dim -1", "float32", lambda a, b: torch.cat([a, b], -1), [t((2, 3)), t((2, 5))]),
        ("cat with empty", "float32", lambda a, b: torch.cat([a, b], 0), [t((0, 3)), t((2, 3))]),
        ("stack dim 1", "int64", lambda a, b: torch.stack([a, b], 1), [t((2, 3), I64), t((2, 3), I64)]),
        ("split", "float32", lambda a: torch.split(a, 2, dim=1)[1] * 1, [t((3, 5))]),
        ("slice step", "float32", lambda a: a[:, 1::2] * 1, [t((3, 7))]),
        ("select dim -1", "float32", lambda a: a[..., 2] * 1, [t((3, 4, 5))]),
        ("expand", "float32", lambda a: a.expand(3, 4, 5) * 1, [t((4, 1))]),
        ("repeat", "int32", lambda a: a.repeat(2, 3), [t((2, 3), I32)]),
        ("flip", "float32", lambda a: torch.flip(a, [0, -1]), [t((3, 4))]),
        ("topk", "float32", lambda a: torch.topk(a, 2, -1)[0], [t((3, 6))]),
        ("constant_pad_nd", "float32", lambda a: torch.nn.functional.pad(a, (1, 2, 0, 1), value=0.5), [t((2, 3, 4))]),
        ("upsample nearest", "float32", lambda a: torch.nn.functional.interpolate(a, scale_factor=2), [t((1, 2, 3, 4))]),
        ("upsample bilinear", "float32", lambda a: torch.nn.functional.interpolate(a, size=(5, 7), mode="bilinear"),
         [t((1, 2, 3, 4))]),
        ("pixel_shuffle", "float32", lambda a: torch.nn.functional.pixel_shuffle(a, 2), [t((1, 8, 3, 2))]),
        ("masked_fill", "float32", lambda a, m: a.masked_fill(m, -1.5), [t((3, 4)), t((3, 4), B)]),
        ("empty input", "float32", lambda a: torch.relu(a) + 1, [t((0, 4))]),
        ("to int32", "float32", lambda a: (a * 4).to(torch.int32), [t((3, 4))]),
    ]
)


class Grid(torch.nn.Module):
    """A YOLOX-style detection head: two levels, arange/meshgrid grids,
    full strides, views and a cat, delegated to XNNPACK where it can be."""

    def __init__(self):
        super().__init__()
        self.convs = torch.nn.ModuleList([torch.nn.Conv2d(3, 7, 3, stride=s, padding=1) for s in (1, 2)])

    def forward(self, x):
        outputs, grids, strides = [], [], []
        for conv, stride in zip(self.convs, (8, 16)):
            y = conv(x)
            h, w = y.shape[-2:]
            yv, xv = torch.meshgrid([torch.arange(h), torch.arange(w)], indexing="ij")
            grids.append(torch.stack((xv, yv), 2).view(1, -1, 2))
            strides.append(torch.full((1, h * w, 1), stride))
            outputs.append(y.flatten(start_dim=2))
        out = torch.cat(outputs, dim=2).permute(0, 2, 1)
        grids = torch.cat(grids, dim=1).type(out.dtype)
        strides = torch.cat(strides, dim=1).type(out.dtype)
        return torch.cat([(out[..., :2] + grids) * strides, torch.exp(out[..., 2:4]) * strides,
                          out[..., 4:].sigmoid()], dim=-1)


class Suite(torch.nn.Module):
    """Every case in one module (one export, one load per runtime: the
    exporter's fixed cost per program dominated); each case reads its own
    inputs and gives its own output, so each is still judged alone."""

    def __init__(self, cases):
        super().__init__()
        self.fns = [fn for _, _, fn, _ in cases]
        self.counts = [len(inputs) for _, _, _, inputs in cases]

    def forward(self, *args):
        outputs, at = [], 0
        for fn, count in zip(self.fns, self.counts):
            outputs.append(fn(*args[at:at + count]))
            at += count
        return tuple(outputs)


def export(module, inputs, delegate=False):
    program = torch.export.export(module.eval(), tuple(inputs))
    if delegate:
        return to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()]).to_executorch().buffer
    return to_edge(program).to_executorch().buffer


def close(actual, expected):
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape:
        return False
    if e.dtype.kind in "iub":
        return np.array_equal(a, e)
    return np.allclose(a, e, rtol=1e-6, atol=1e-6, equal_nan=True)


# Cases where upstream's runtime differs from eager PyTorch (ATen) and
# etkit does not: the test checks that etkit equals eager and upstream
# still differs, so a fix on either side shows.
UPSTREAM_DIFFERS_FROM_ATEN = {
    ("remainder", "int64"): "upstream's integer remainder takes the dividend's sign (C's %); ATen's, like "
                            "Python's, takes the divisor's",
}


def run_both(program, inputs, folder, name):
    """Upstream's runtime takes each input in the memory format the program
    declares (a channels-last input as a channels-last tensor: given a
    contiguous one it reads its bytes as channels-last); etkit takes .npy
    files of the logical values and lays them out as the program declares."""
    path = Path(folder) / f"{name}.pte"
    path.write_bytes(program)
    return oracle.run_upstream(program, inputs), oracle.run_etkit(path, [x.contiguous() for x in inputs])


class OpSuite(unittest.TestCase):
    def test_every_case_equals_upstreams_runtime(self):
        results = []
        with tempfile.TemporaryDirectory() as folder:
            inputs = [x for _, _, _, case_inputs in CASES for x in case_inputs]
            suite = Suite(CASES)
            expected, actual = run_both(export(suite, inputs), inputs, folder, "suite")
            eager = suite(*inputs)
            self.assertEqual(len(actual), len(CASES))
            self.assertEqual(len(expected), len(CASES))
            grid, grid_input = Grid().eval(), [t((1, 3, 8, 10))]
            grid_expected, grid_actual = run_both(export(grid, grid_input, delegate=True), grid_input, folder, "grid")
            rows = [(name, dtype, [a], [e], [r]) for (name, dtype, _, _), a, e, r in zip(CASES, actual, expected, eager)]
            rows.append(("detection grid head (XNNPACK)", "float32", grid_actual, grid_expected, [grid(*grid_input)]))
            for name, dtype, a, e, r in rows:
                with self.subTest(op=name, dtype=dtype):
                    equal = len(a) == len(e) and all(close(x, y) for x, y in zip(a, e))
                    known = UPSTREAM_DIFFERS_FROM_ATEN.get((name, dtype))
                    if known:
                        self.assertFalse(equal, f"{name} {dtype}: upstream now agrees; drop it from the list")
                        self.assertTrue(all(close(x, np.asarray(y.detach())) for x, y in zip(a, r)),
                                        f"{name} {dtype}: etkit {a} differs from eager PyTorch {r}")
                    else:
                        self.assertTrue(equal, f"{name} {dtype}: etkit {a} upstream {e} eager {r}")
                    results.append((name, dtype, "yes" if equal else f"no: {known}" if known else "NO"))
        print(f"op suite: {sum(r[2] == 'yes' for r in results)} of {len(results)} cases equal upstream's runtime",
              file=sys.stderr)
        table = os.environ.get("ETKIT_OP_TABLE")
        if table:
            lines = ["# Op suite: etkit against upstream's runtime", "",
                     "Made by `tests/upstream/test_op_suite.py` (with ETKIT_OP_TABLE=docs/upstream-op-suite.md): every",
                     "case exported by upstream's exporter (executorch 1.5.1, torch 2.13.0), run by upstream's runtime",
                     "and by `etinspect run` on the same inputs; integers equal, floats within 1e-6.", "",
                     "| case | dtype | equals upstream's runtime |", "| --- | --- | --- |"]
            lines += [f"| {name} | {dtype} | {verdict} |" for name, dtype, verdict in results]
            Path(table).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)
