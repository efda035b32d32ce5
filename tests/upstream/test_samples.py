"""The samples made by upstream's tools, read by etkit as a user reads them.

- `etinspect gap` against references upstream's own Inspector machinery
  makes: its IntermediateOutputCapturer runs the ETRecord's edge graph in
  PyTorch and keeps each node's output by debug handle, the values upstream's
  numeric-gap analysis compares with. Every op of every portable sample is
  near them; a weight perturbed in the .pte's bytes diverges first at the op
  that reads it.
- A trace of a sample tabulated with upstream's ETRecord carries op types,
  module hierarchy and source lines that point at the model's own code.
"""

import json
import re
import struct
import subprocess
import tempfile
import unittest
import zipfile
from pathlib import Path

import numpy as np
import torch

import oracle
from executorch.devtools.etrecord import parse_etrecord
from executorch.devtools.inspector._intermediate_output_capturer import IntermediateOutputCapturer

SAMPLES = oracle.REPO / "samples"
PORTABLE = ["tutorial_cnn", "mobilenet_v2", "resnet18", "nano_gpt", "deeplab_head"]
MODELS_SOURCE = SAMPLES / "export" / "upstream" / "models.py"


def sample(name, ext):
    return SAMPLES / name / f"{name}{ext}"


def write_references(name, folder):
    """Upstream's intermediate outputs of the bundle's first case, one
    <debug handle>.npy per edge node (its first output), and the inputs."""
    _, _, inputs, _ = next(oracle.bundle_cases(sample(name, ".bpte")))
    record = parse_etrecord(str(sample(name, ".etrecord")))
    captured = IntermediateOutputCapturer(record.edge_dialect_program.module()).run_and_capture(*inputs)
    for handles, value in captured.items():
        value = value[0] if isinstance(value, (list, tuple)) else value
        if len(handles) == 1 and isinstance(value, torch.Tensor):
            np.save(folder / f"{handles[0]}.npy", value.detach().float().numpy() if value.dtype == torch.bfloat16
                    else value.detach().numpy())
    return oracle.save_npy(folder, inputs)


def dump_program(path):
    """The program as JSON, read by Debian's flatc with etkit's schema: a
    second reader beside etinspect's."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "-o", tmp,
                        str(oracle.REPO / "core" / "schema" / "program.fbs"), "--", str(path)], check=True)
        [written] = Path(tmp).iterdir()
        text = re.sub(r"(:\s*)(-?)inf\b", r"\1\2Infinity", written.read_text())  # flatc's bare inf / nan
        return json.loads(re.sub(r"(:\s*)nan\b", r"\1NaN", text))


class GapAgainstUpstreamReferences(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.inputs = {}
        for name in PORTABLE:
            folder = Path(cls.tmp.name) / name / "reference"
            folder.mkdir(parents=True)
            cls.inputs[name] = write_references(name, folder)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def gap(self, name, program):
        folder = Path(self.tmp.name) / name
        trace, buffer = folder / "run.etdp", folder / "run.bin"
        args = ["run", program, "--etdump", trace, "--debug-level", "intermediates", "--debug-buffer", buffer]
        for path in self.inputs[name]:
            args += ["--input", path]
        oracle.etinspect(*args)
        done = oracle.etinspect("gap", trace, "--debug-buffer", buffer, "--reference", folder / "reference",
                                "--etrecord", sample(name, ".etrecord"), "--json", check=False)
        self.assertIn(done.returncode, (0, 1), done.stderr)
        return done.returncode, json.loads(done.stdout)

    def test_every_op_of_every_portable_sample_is_near_upstreams_intermediates(self):
        for name in PORTABLE:
            with self.subTest(sample=name):
                code, report = self.gap(name, sample(name, ".pte"))
                self.assertEqual(code, 0, [r for r in report["rows"] if r["status"] != "ok"][:3])
                self.assertEqual(report["missing_references"], 0)
                self.assertGreater(len(report["rows"]), 10)
                for row in report["rows"]:
                    if row["status"] == "compared later":  # shares its handle with a later op (a linear's transpose)
                        continue
                    self.assertLess(row["max_abs"], 1e-4, row)
                    if row["cosine"] is not None:  # an all-zero tensor has no direction
                        self.assertGreater(row["cosine"], 0.99999, row)

    def test_perturbed_weight_diverges_at_the_op_that_reads_it(self):
        name = "resnet18"
        path = sample(name, ".pte")
        plan = dump_program(path)
        method = plan["execution_plan"][0]
        instructions = method["chains"][0]["instructions"]
        convolutions = [i for i, ins in enumerate(instructions)
                        if method["operators"][ins["instr_args"].get("op_index", 0)]["name"] == "aten::convolution"]
        target = convolutions[2]  # the third convolution (layer1.0.conv2)
        weight = method["values"][instructions[target]["instr_args"]["args"][1]]["val"]
        data = bytearray(path.read_bytes())
        base = int.from_bytes(data[24:32], "little")  # eh00: segment base offset
        offset = base + int(plan["constant_segment"]["offsets"][weight["data_buffer_idx"]])
        data[offset:offset + 4] = struct.pack("<f", 50.0)  # its first element
        perturbed = Path(self.tmp.name) / name / "perturbed.pte"
        perturbed.write_bytes(data)
        code, report = self.gap(name, perturbed)
        self.assertEqual(code, 1)
        self.assertEqual(report["first_divergence"]["instruction_id"], target)
        before = [r for r in report["rows"] if r["instruction_id"] < target]
        self.assertTrue(before and all(r["status"] == "ok" for r in before))


class LinkedTrace(unittest.TestCase):
    """A trace of the ResNet-18 sample, tabulated with upstream's ETRecord."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.trace = Path(cls.tmp.name) / "resnet18.etdp"
        oracle.etinspect("run", sample("resnet18", ".pte"), "--fill", "random", "--iterations", "3",
                         "--etdump", cls.trace)
        cls.record = sample("resnet18", ".etrecord")
        cls.kernel_calls = len(dump_program(sample("resnet18", ".pte"))["execution_plan"][0]["chains"][0]["instructions"])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def table(self, *extra):
        done = oracle.etinspect("table", self.trace, "--etrecord", self.record, "--format", "json", *extra)
        return [r for r in json.loads(done.stdout) if r["event_block_name"] == "Execute"
                and r["event_name"].startswith("native_call_")]

    def test_table_carries_op_types_module_hierarchy_and_source_lines(self):
        rows = self.table()
        self.assertEqual(len(rows), self.kernel_calls)
        first = rows[0]
        self.assertEqual(first["op_types"], ["aten.convolution.default"])
        [(node, trace)] = first["stack_traces"].items()
        # The model's forward calls conv1 on this line of its source.
        line = next(i for i, text in enumerate(MODELS_SOURCE.read_text().splitlines(), 1)
                    if "F.max_pool2d(F.relu(self.bn1(self.conv1(x)))" in text)
        self.assertIn(f'models.py", line {line}', trace)
        self.assertIn(["conv1", "torch.nn.modules.conv.Conv2d"], list(first["module_hierarchy"][node].values()))

    def test_damaged_record_still_prints_the_table(self):
        damaged = Path(self.tmp.name) / "damaged.etrecord"
        with zipfile.ZipFile(damaged, "w") as archive:
            archive.writestr("ETRECORD_V0", "")
            archive.writestr("edge_dialect_exported_program/forward", "{ not json")
            archive.writestr("debug_handle_map", json.dumps({"forward": {"0": [999]}}))
        refused = oracle.etinspect("table", self.trace, "--etrecord", damaged, check=False)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("does not belong to this trace", refused.stderr)
        done = oracle.etinspect("table", self.trace, "--etrecord", damaged, "--allow-unlinked")
        self.assertIn("not valid JSON", done.stderr)
        self.assertIn("delegate_map is missing", done.stderr)
        self.assertEqual(len([line for line in done.stdout.splitlines() if "native_call_" in line]), self.kernel_calls)

    def test_module_totals_add_up_to_the_run(self):
        # The root holds every linked operator event: a hand sum of the same
        # trace's rows, as etinspect table lists them (no timing involved),
        # for the statistic summed (p50 by default; avg as upstream sums).
        linked = [row for row in self.table("--block", "Execute") if row["module_hierarchy"]]
        for stat in ("p50", "avg"):
            report = json.loads(oracle.etinspect("modules", self.trace, "--etrecord", self.record, "--json",
                                                 "--stat", stat).stdout)
            root = report["modules"][0]
            self.assertEqual(root["path"], "")
            self.assertEqual(report["stat"], stat)
            self.assertEqual(root["op_events"], len(linked))
            self.assertAlmostEqual(root["total"], sum(row[stat] for row in linked), places=9)
        for module in report["modules"]:  # children never add up to more than their module
            children = sum(report["modules"][c]["total"] for c in module["children"])
            self.assertLessEqual(children, module["total"] * (1 + 1e-9))

    def test_debug_data_of_the_last_op_is_the_program_output(self):
        # Two paths: the table's debug_data from the debug buffer, and the
        # output .npy that `run --output-dir` writes.
        folder = Path(self.tmp.name)
        trace, buffer = folder / "cnn.etdp", folder / "cnn.bin"
        oracle.etinspect("run", sample("tutorial_cnn", ".pte"), "--fill", "random", "--seed", "3", "--etdump", trace,
                         "--debug-level", "intermediates", "--debug-buffer", buffer, "--output-dir", folder)
        rows = [r for r in json.loads(oracle.etinspect("table", trace, "--debug-buffer", buffer, "--format",
                                                       "json").stdout) if r["debug_data"]]
        last = max(rows, key=lambda r: r["start_time"][0])
        expected = np.load(folder / "output_0.npy")
        self.assertEqual(last["debug_data"][0]["sizes"], list(expected.shape))
        np.testing.assert_array_equal(np.array(last["debug_data"][0]["values"], dtype=np.float32), expected.ravel())


class BFloat16Sample(unittest.TestCase):
    def test_bfloat16_nano_gpt_stays_near_the_float32_one(self):
        # Same weights, rounded: etkit's bfloat16 run against its float32
        # run on the same tokens, read back with NumPy.
        outputs = {}
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("nano_gpt", "nano_gpt_bf16"):
                oracle.etinspect("run", sample(name, ".bpte"), "--bundled-input", "0", "--output-dir", Path(tmp) / name)
                outputs[name] = np.load(Path(tmp) / name / "output_0.npy")
        bf16 = outputs["nano_gpt_bf16"]
        if bf16.dtype == np.uint16:  # etkit writes bfloat16 as raw bits
            bf16 = (bf16.astype(np.uint32) << 16).view(np.float32)
        error = np.abs(bf16.astype(np.float64) - outputs["nano_gpt"])
        self.assertLess(error.max(), 0.02)
        self.assertLess(error.mean(), 0.002)


if __name__ == "__main__":
    unittest.main(verbosity=2)
