"""The upstream op suite, run by both runtimes.

tests/upstream/op_suite/op_suite.bpte is made by upstream's exporter
(scripts/upstream/make_op_suite.py: torch.export, to_edge, to_executorch,
BundledProgram) from PyTorch's OpInfo samples over upstream's portable op
list, hand-written cases, and upstream's quantized and LLM ops; its expected
outputs are upstream's runtime's. op_suite.json maps every output to its
case, dtype and kernels and holds the tolerance per dtype; op_suite_eager.npz
holds eager PyTorch's outputs wherever upstream's runtime differs from them.

Here upstream's runtime verifies the bundle again (its outputs are still
what it computes), and `etinspect verify` runs it: integer and bool outputs
must equal upstream's, floating ones within the tolerance of their dtype.
Where etkit differs from upstream's runtime, eager PyTorch (ATen) decides: a
case where upstream's runtime differs from eager PyTorch and etkit equals it
passes, listed as such; any other difference fails, unless KNOWN_GAPS names
it with its reason (then the test checks it still differs). A YOLOX-style
detection head lowered to XNNPACK is exported here and run by both.

With ETKIT_OP_TABLE=DIR the results are written as DIR/upstream-op-suite.md
(per kernel and dtype) and DIR/upstream-op-suite.tsv (read by docs/kernels.md's
kernel table generator, tests/kernels/kernel_dtype_table.cpp).
"""

import hashlib
import json
import os
import sys
import tempfile
import unittest
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch

import oracle
from executorch.exir import to_edge_transform_and_lower
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

SUITE = oracle.REPO / "tests" / "upstream" / "op_suite"
BUNDLE, MANIFEST, EAGER = SUITE / "op_suite.bpte", SUITE / "op_suite.json", SUITE / "op_suite_eager.npz"
GENERATOR = [oracle.REPO / "scripts" / "upstream" / "make_op_suite.py",
             oracle.REPO / "scripts" / "upstream" / "op_suite_cases.py"]

# etkit's known differences from upstream's runtime that eager PyTorch does
# not settle, by (case name, dtype): the test checks they still differ, so a
# fix shows. Each says why.
_TOPK_TIES = ("ties: etkit puts the lower index first; upstream's runtime and eager PyTorch order equal values as "
              "their (unstable) partial sort leaves them")
_HALF_GRID = ("etkit samples float16/bfloat16 grids in float32 and rounds once; upstream's runtime and eager PyTorch "
              "compute the coordinates in the grid's dtype, so coarse bfloat16 coordinates pick other pixels")
_BILINEAR_U8 = ("etkit refuses uint8 bilinear upsampling (as libtorch 1.13, its kernel table's reference, does); "
                "upstream's runtime computes it in float weights with a truncating store")
KNOWN_GAPS = {
    **{("topk", d): _TOPK_TIES for d in ("int8", "int16", "int64", "bfloat16")},
    **{("grid_sampler_2d", d): _HALF_GRID for d in ("float16", "bfloat16")},
    ("nn.functional.upsample_bilinear", "uint8"): _BILINEAR_U8,
    ("max_pool2d_with_indices_backward", "float16"): "a backward op: etkit registers no training kernels",
}


# Cases (name, dtype) whose method upstream's BundledModule fails although
# its run_method computes their bundled outputs exactly (checked): the bundle
# stores channels-last inputs in contiguous order, which upstream's
# bundled-input loader copies as they are into the channels-last input
# (always fails); the others hold outputs upstream computes differently from
# one process to the next, as if read from unset memory (max_pool2d's
# indices, cat after an empty input), so they may also pass. etkit's verify
# reads each input in the dim order it is stored in.
_UNSET_MEMORY = "outputs upstream's runtime computes differently from one process to the next"
UPSTREAM_BUNDLE_VERIFY_FAILS = {
    ("conv2d channels-last", "float32"): "a channels-last input, stored in contiguous order",
    ("max_pool2d channels-last", "float32"): "a channels-last input, stored in contiguous order",
    **{("nn.functional.max_pool2d", d): _UNSET_MEMORY for d in ("int64", "bfloat16", "float32")},
    **{("cat", d): _UNSET_MEMORY for d in ("float16", "bfloat16")},
}
CHANNELS_LAST_INPUT = {("conv2d channels-last", "float32"), ("max_pool2d channels-last", "float32")}
# Upstream's runtime gives these outputs bits that depend on the CPU it runs
# on: the bundle was made on an AMD EPYC, and on an Intel Xeon (AVX-512)
# upstream's SDPA differs from it by 1-2 ulp (2 of 48 and 32 of 64 values).
# There upstream must verify them within float32's tolerance, not exactly.
UPSTREAM_CPU_DEPENDENT = {("sdpa_with_kv_cache", "float32"), ("custom_sdpa causal", "float32")}
# Those outputs (method output indices): not compared with their bundled
# values here. etkit's are compared, with the bundled values or eager
# PyTorch's.
UPSTREAM_NONDETERMINISTIC_OUTPUTS = {
    ("nn.functional.max_pool2d", "int64"): {0}, ("nn.functional.max_pool2d", "bfloat16"): {0, 1},
    ("nn.functional.max_pool2d", "float32"): {0}, ("cat", "float16"): {0}, ("cat", "bfloat16"): {0},
}


def case_by_method(manifest):
    """method -> the (case name, dtype) it holds (one per method, or cases
    of one name and dtype: the suite groups methods so)."""
    return {case["method"]: (case["name"], case["dtype"]) for case in manifest["cases"]}


def etkit_statuses(folder, tolerance):
    """Per (method, output index): etkit's verify status and report at the
    tolerance of the output's dtype (one verify run per tolerance), and per
    method the error of a method etkit could not load or run."""
    statuses, errors = {}, {}
    for rtol, atol in sorted({tuple(t) for t in tolerance.values()}):
        report_path = Path(folder) / f"verify_{rtol}_{atol}.json"
        done = oracle.etinspect("verify", BUNDLE, "--rtol", rtol, "--atol", atol, "--json-file", report_path, check=False)
        if done.returncode not in (0, 1):
            raise AssertionError(f"etinspect verify exited {done.returncode}:\n{done.stderr[-3000:]}")
        for case in json.loads(report_path.read_text())["cases"]:
            if case["status"] == "error":
                errors[case["method"]] = case["error"]
                continue
            for output in case["outputs"]:
                if tuple(tolerance.get(output["dtype"], tolerance["exact"])) == (rtol, atol):
                    statuses[(case["method"], output["index"])] = (output["status"], output)
    return statuses, errors


class EagerJudge:
    """Where etkit and upstream's runtime differ, eager PyTorch decides:
    its outputs are in op_suite_eager.npz wherever upstream's runtime
    differs from them; etkit's come from `etinspect run` on the bundle's
    inputs."""

    def __init__(self, tolerance):
        self.tolerance = tolerance
        self.eager = np.load(EAGER)
        self.inputs, self.program, self.outputs = None, None, {}

    def etkit_outputs(self, method):
        if method not in self.outputs:
            if self.inputs is None:
                self.inputs = {m: inputs for m, _, inputs, _ in oracle.bundle_cases(BUNDLE)}
                self.program = oracle.bundle_program_bytes(BUNDLE)
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "suite.pte"
                path.write_bytes(self.program)
                self.outputs[method] = oracle.run_etkit(path, self.inputs[method], method=method)
        return self.outputs[method]

    def etkit_equals_eager_where_upstream_differs(self, case, differing):
        """True when every output where etkit differs from upstream's runtime
        is one where upstream's runtime differs from eager PyTorch, and
        etkit's equals eager PyTorch's there."""
        keys = {i: f"{case['method']}/{i}" for i in differing}
        if not all(i in case["upstream_differs_from_eager"] and keys[i] in self.eager for i in differing):
            return False
        actual = self.etkit_outputs(case["method"])
        for i in differing:
            expected = self.eager[keys[i]]
            dtype = differing[i]["dtype"]  # the output's, from etkit's verify report
            rtol, atol = self.tolerance.get(dtype, self.tolerance["exact"])
            got = actual[i]
            if got.dtype == np.uint16 and dtype == "bfloat16":  # etinspect writes bfloat16 as its bits
                got = (got.astype(np.uint32) << 16).view(np.float32)
            if got.shape != expected.shape or not np.allclose(got.astype(np.float64), expected.astype(np.float64),
                                                               rtol=rtol, atol=atol, equal_nan=True):
                return False
        return True


class OpSuite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.manifest = json.loads(MANIFEST.read_text())

    def test_bundle_is_made_from_the_current_cases(self):
        digest = hashlib.sha256(b"".join(p.read_bytes() for p in GENERATOR)).hexdigest()
        self.assertEqual(self.manifest["sources_sha256"], digest,
                         "the op suite's cases changed: run scripts/upstream-python scripts/upstream/make_op_suite.py")

    def test_upstreams_runtime_still_computes_the_bundled_outputs(self):
        """Upstream's BundledModule verifies every method exactly, except the
        methods in UPSTREAM_BUNDLE_VERIFY_FAILS, whose bundled outputs its
        run_method still computes exactly."""
        verdicts = oracle.upstream_verdicts(BUNDLE, 0.0, 0.0)
        self.assertEqual(len(verdicts), len({c["method"] for c in self.manifest["cases"]}))
        case_of = case_by_method(self.manifest)
        failed = {case_of[method] for (method, _), passed in verdicts.items() if not passed}
        cpu_dependent = failed & UPSTREAM_CPU_DEPENDENT
        if cpu_dependent:
            rtol, atol = self.manifest["tolerance"]["float32"]
            within = oracle.upstream_verdicts(BUNDLE, rtol, atol)
            outside = {case_of[method] for (method, _), passed in within.items() if not passed} & cpu_dependent
            self.assertEqual(outside, set(), "upstream's runtime differs from the bundle beyond float32's tolerance")
            failed -= cpu_dependent
        self.assertLessEqual(failed, set(UPSTREAM_BUNDLE_VERIFY_FAILS),
                             "upstream's BundledModule fails more methods: " + ", ".join(map(str, failed)))
        self.assertLessEqual(CHANNELS_LAST_INPUT, failed, "upstream now reads channels-last bundled inputs")
        program = oracle.bundle_program_bytes(BUNDLE)
        differing = []
        for method, _, inputs, expected in oracle.bundle_cases(BUNDLE):
            case = case_of[method]
            if case in UPSTREAM_BUNDLE_VERIFY_FAILS:
                if case in CHANNELS_LAST_INPUT:  # upstream reads a tensor's bytes in the input's dim order
                    inputs = [inputs[0].to(memory_format=torch.channels_last)] + inputs[1:]
                actual = oracle.run_upstream(program, inputs, method=method)
                for index, (a, e) in enumerate(zip(actual, expected)):
                    e = (e.float() if e.dtype == torch.bfloat16 else e).numpy()
                    if not (a.shape == e.shape and np.array_equal(a, e, equal_nan=a.dtype.kind == "f")):
                        differing.append((case, index))
        unexpected = [(case, index) for case, index in differing
                      if index not in UPSTREAM_NONDETERMINISTIC_OUTPUTS.get(case, ())]
        self.assertEqual(unexpected, [], "upstream's run_method no longer computes its bundled outputs")

    def test_every_case_equals_upstreams_runtime_or_eager_pytorch(self):
        tolerance = self.manifest["tolerance"]
        with tempfile.TemporaryDirectory() as folder:
            statuses, errors = etkit_statuses(folder, tolerance)
        judge = EagerJudge(tolerance)
        results = []
        for case in self.manifest["cases"]:
            name, dtype, method = case["name"], case["dtype"], case["method"]
            start, count = case["outputs"]
            if method in errors:
                differing = {i: errors[method] for i in range(start, start + count)}
            else:
                outcomes = {i: statuses.get((method, i), ("missing", None)) for i in range(start, start + count)}
                differing = {i: report for i, (status, report) in outcomes.items() if status != "pass"}
            verdict = "yes"
            if differing:
                if method not in errors and judge.etkit_equals_eager_where_upstream_differs(case, differing):
                    verdict = "eager"
                elif (name, dtype) in KNOWN_GAPS:
                    verdict = f"no: {KNOWN_GAPS[(name, dtype)]}"
                else:
                    verdict = "NO"
            with self.subTest(case=name, dtype=dtype, method=method):
                if (name, dtype) in KNOWN_GAPS:
                    self.assertTrue(verdict.startswith("no: "), f"{name} {dtype} is {verdict}: drop it from KNOWN_GAPS")
                self.assertNotEqual(verdict, "NO", f"{name} {dtype} (kernels {case['kernels']}): "
                                                   f"{list(differing.values())}"[:2000])
            results.append((case, verdict))
        equal = sum(verdict == "yes" for _, verdict in results)
        eager = sum(verdict == "eager" for _, verdict in results)
        print(f"op suite: {equal} of {len(results)} cases equal upstream's runtime; {eager} more equal eager PyTorch "
              f"where upstream's runtime does not; {len(self.manifest['excluded'])} cases upstream cannot export or "
              "run are listed, not run", file=sys.stderr)
        if os.environ.get("ETKIT_OP_TABLE"):
            write_tables(Path(os.environ["ETKIT_OP_TABLE"]), self.manifest, results)


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


class DetectionHead(unittest.TestCase):
    def test_grid_ops_into_an_xnnpack_head_equal_upstreams_runtime(self):
        torch.manual_seed(7)
        grid, inputs = Grid().eval(), [torch.randn(1, 3, 8, 10)]
        program = to_edge_transform_and_lower(torch.export.export(grid, tuple(inputs)),
                                              partitioner=[XnnpackPartitioner()]).to_executorch().buffer
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "grid.pte"
            path.write_bytes(program)
            actual = oracle.run_etkit(path, inputs)
        expected = oracle.run_upstream(program, inputs)
        self.assertEqual(len(actual), len(expected))
        for a, e in zip(actual, expected):
            np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5)


def write_tables(folder, manifest, results):
    """Per kernel and dtype: the cases that call it, and whether each equals
    upstream's runtime; then what upstream could not export or run, and the
    op-list kernels no case reaches."""
    listed = [k for kernels in manifest["op_lists"].values() for k in kernels]
    listed_set = set(listed)

    def listed_name(kernel):
        """The op list's name of a kernel the manifest names by its
        functional overload (to_out_variant finds none for pow.Tensor_Scalar
        or llama::update_cache): its _out or .out entry."""
        for candidate in (kernel, kernel + "_out", kernel + ".out"):
            if candidate in listed_set:
                return candidate
        return kernel

    cells = defaultdict(list)
    for case, verdict in results:
        for kernel in case["kernels"]:
            if "::" in kernel:  # kernels, not getitem or higher-order wrappers
                cells[(listed_name(kernel), case["dtype"])].append((case["name"], verdict))
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "upstream-op-suite.tsv", "w") as tsv:
        tsv.write("kernel\tdtype\tequals_upstream\n")
        for (kernel, dtype), verdicts in sorted(cells.items()):
            worst = "no" if any(v.startswith("no") for _, v in verdicts) else "eager" if any(
                v == "eager" for _, v in verdicts) else "yes"
            tsv.write(f"{kernel}\t{dtype}\t{worst}\n")
    lines = [
        "# Op suite: etkit against upstream's runtime", "",
        "Made by `tests/upstream/test_op_suite.py` (`ETKIT_OP_TABLE=docs ctest -R upstream.op_suite`) from the",
        f"bundle `scripts/upstream/make_op_suite.py` makes with upstream's exporter (executorch {manifest['executorch']},",
        f"torch {manifest['torch']}): {len(results)} cases from PyTorch's OpInfo samples, hand-written cases and",
        "upstream's quantized and LLM ops, run by upstream's runtime and by `etinspect verify`; integer and bool",
        "outputs equal, floating ones within a tolerance per dtype (float32: 1e-5 relative or 1e-6 absolute).", "",
        "| kernel | dtype | cases | equals upstream's runtime |", "| --- | --- | --- | --- |"]
    for (kernel, dtype), verdicts in sorted(cells.items()):
        bad = [f"{name}: " + ("no: upstream's runtime differs from eager PyTorch, etkit equals it" if verdict == "eager"
                              else verdict) for name, verdict in verdicts if verdict != "yes"]
        lines.append(f"| `{kernel}` | {dtype} | {len(verdicts)} | {'yes' if not bad else '; '.join(bad)} |")
    lines += ["", "## Cases upstream cannot export or run", "",
              "Left out of the bundle by the generator, with the stage that failed and upstream's message.", "",
              "| case | dtype | stage | message |", "| --- | --- | --- | --- |"]
    for item in manifest["excluded"]:
        message = item["reason"].replace("|", "\\|")
        lines.append(f"| {item['name']} | {item['dtype']} | {item['stage']} | {message} |")
    covered = {kernel for kernel, _ in cells}
    missing = [k for k in listed if k not in covered]
    lines += ["", "## Kernels of upstream's op lists no case reaches", "",
              ", ".join(f"`{k}`" for k in missing) if missing else "None."]
    (folder / "upstream-op-suite.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)
