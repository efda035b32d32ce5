#!/usr/bin/python3
"""Tests of the sample exporter, run by ctest:

    test_exporter.py ETINSPECT [FLATC]

The memory plan is checked on the written .pte itself, read back through a
second path (Debian's flatc dumping it to JSON with etkit's schema), and
every written file is read back by etkit.
"""
import filecmp
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import unittest
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from etexport import cortex_m  # noqa: E402
from etexport import int8  # noqa: E402
from etexport import memory_plan  # noqa: E402
from etexport import quantize  # noqa: E402
from etexport.program import SCHEMAS  # noqa: E402

ETINSPECT = None
FLATC = "flatc"
SAMPLES = os.path.dirname(HERE)
NAMES = ["tutorial_cnn", "mobilenet_v2", "resnet18", "nano_gpt"]


def export(out_dir, *extra):
    subprocess.run([sys.executable, os.path.join(HERE, "export_samples.py"), "--out", out_dir,
                    "--flatc", FLATC, *extra], check=True, stdout=subprocess.DEVNULL)


def dump_program(path):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([FLATC, "--json", "--strict-json", "--raw-binary", "-o", tmp,
                        SCHEMAS["program"], "--", path], check=True)
        [name] = os.listdir(tmp)
        with open(os.path.join(tmp, name)) as f:
            # flatc writes non-finite doubles as bare inf / nan.
            text = re.sub(r"(:\s*)(-?)inf\b", r"\1\2Infinity", f.read())
            return json.loads(re.sub(r"(:\s*)nan\b", r"\1NaN", text))


class MemoryPlanTest(unittest.TestCase):
    def test_tensors_alive_together_get_disjoint_bytes(self):
        a = memory_plan.Allocation("a", 100, 0, 2)
        b = memory_plan.Allocation("b", 40, 1, 3)
        c = memory_plan.Allocation("c", 100, 3, 4)  # starts after a ends
        size = memory_plan.plan([a, b, c])
        self.assertEqual(a.offset, 0)
        self.assertEqual(b.offset, 112)   # after a, 16-byte aligned
        self.assertEqual(c.offset, 0)     # reuses a's bytes
        self.assertEqual(size, 160)
        memory_plan.check([a, b, c])

    def test_check_rejects_overlap(self):
        a = memory_plan.Allocation("a", 64, 0, 5)
        b = memory_plan.Allocation("b", 64, 2, 3)
        a.offset, b.offset = 0, 32
        with self.assertRaises(AssertionError):
            memory_plan.check([a, b])


class QuantizeTest(unittest.TestCase):
    """etexport/quantize.py, which writes the 8da4w weights and simulates the
    arithmetic for the bundle's expected outputs, against hand-derived values."""

    def test_nibbles_are_stored_plus_8_even_column_low(self):
        import torch
        q = torch.tensor([[-8, 7, 0, -1]], dtype=torch.int8)
        # (-8 + 8) | (7 + 8) << 4 = 0xF0; (0 + 8) | (-1 + 8) << 4 = 0x78
        self.assertEqual(quantize.pack_nibbles(q).tolist(), [[0xF0, 0x78]])

    def test_weights_round_to_the_nearest_step_of_their_group(self):
        import torch
        torch.manual_seed(0)
        w = torch.randn(8, 64)
        q, scales = quantize.quantize_weight(w)
        self.assertEqual(scales.dtype, torch.bfloat16)
        self.assertEqual(tuple(scales.shape), (8, 2))
        self.assertTrue(int(q.min()) >= -8 and int(q.max()) <= 7)
        step = scales.float().repeat_interleave(32, dim=1)
        # Half a step, except at a group's positive extreme: max/7.5 (rounded
        # to bf16, at most 2^-8 low) lands at up to 7.53 steps and is clamped
        # to 7, so at most 0.53 steps.
        error = (quantize.dequantize_weight(q, scales) - w).abs()
        self.assertTrue(bool((error <= step * 0.5 + 1e-7).logical_or(error <= step * 0.53).all()))
        self.assertTrue(bool(((error <= step * 0.5 + 1e-7) | (w > 0)).all()))

    def test_per_token_quantization_by_hand(self):
        import torch
        # [-1, 0, 3]: multiplier 255 / 4 = 63.75; zero point -128 + 63.75 = -64.25 -> -64;
        # -1 -> -64 - 64 = -128, 3 -> 191 - 64 = 127; back: (q + 64) / 63.75.
        row = torch.tensor([[-1.0, 0.0, 3.0]])
        expected = torch.tensor([[-64.0 / 63.75, 0.0, 191.0 / 63.75]])
        self.assertTrue(torch.allclose(quantize.fake_quantize_per_token(row), expected, rtol=0, atol=1e-6))
        # All zeros: multiplier 1, zero point from the max end (127), zeros stay zeros.
        self.assertEqual(quantize.fake_quantize_per_token(torch.zeros(1, 4)).tolist(), [[0.0] * 4])


class Int8Test(unittest.TestCase):
    """etexport/int8.py, which picks the int8 sample's quantization
    parameters and computes its expected outputs, against values derived by
    hand from the rules in its docstrings."""

    def test_activation_range_is_widened_to_zero_and_spread_over_255_steps(self):
        # [-1, 3]: scale 4/255; zero point -128 - round(-1 / (4/255)) = -128 + 64 = -64.
        scale, zero_point = int8.activation_params(-1.0, 3.0)
        self.assertAlmostEqual(scale, 4 / 255, places=7)
        self.assertEqual(zero_point, -64)
        # [0.5, 2] holds no zero: widened to [0, 2], zero on -128.
        scale, zero_point = int8.activation_params(0.5, 2.0)
        self.assertAlmostEqual(scale, 2 / 255, places=7)
        self.assertEqual(zero_point, -128)

    def test_weights_are_symmetric_per_output_channel(self):
        import torch
        q, scales = int8.channel_weights(torch.tensor([[0.5, -2.0], [0.1, 0.0]]))
        # Row 0: scale 2/127, 0.5 -> 31.75 -> 32, -2 -> -127; row 1: 0.1 -> 127.
        self.assertEqual(q.tolist(), [[32, -127], [127, 0]])
        self.assertAlmostEqual(float(scales[0]), 2 / 127, places=7)

    def test_requantization_rounds_half_to_even(self):
        import torch
        out = int8.requantize(torch.tensor([5.0, 7.0, -5.0, 1000.0]), int8.f32(0.5), 1)
        # 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, each + 1; 500 clamps to 127.
        self.assertEqual(out.tolist(), [3.0, 5.0, -1.0, 127.0])

    def test_add_uses_one_shift_of_20_bit_multipliers(self):
        import torch
        # Scales 0.5 and 0.25 over 1: the larger ratio 0.5 = 2^-1 gives shift
        # 21, multipliers 2^20 and 2^19; the shift rounds half up.
        a = torch.tensor([3.0, 1.0, -1.0, 3.0])
        b = torch.tensor([1.0, 0.0, 0.0, 2.0])
        out = int8.add(a, (0.5, 0), b, (0.25, 0), (1.0, 0))
        # 1.75 -> 2, 0.5 -> 1, -0.5 -> 0, 2.0 -> 2
        self.assertEqual(out.tolist(), [2.0, 1.0, 0.0, 2.0])

    def test_convert_multiplies_by_the_reciprocal_scale(self):
        import torch
        # scale 0.5: x * 2 rounded half to even, + zero point 3, clamped.
        out = int8.quantize(torch.tensor([0.25, 0.75, -100.0]), 0.5, 3)
        self.assertEqual(out.tolist(), [3.0, 5.0, -128.0])


class CortexMTest(unittest.TestCase):
    """etexport/cortex_m.py, whose reference arithmetic gives the Cortex-M
    sample's expected outputs, against values derived by hand from
    CMSIS-NN's documented rules."""

    def test_multiplier_is_a_q31_mantissa_and_a_power_of_two(self):
        # 0.3 = 0.6 * 2^-1: round(0.6 * 2^31) = 1288490189; 1.0 = 0.5 * 2^1.
        self.assertEqual(cortex_m.quantize_multiplier(0.3), (1288490189, -1))
        self.assertEqual(cortex_m.quantize_multiplier(1.0), (1 << 30, 1))
        with self.assertRaises(ValueError):
            cortex_m.quantize_multiplier(2.0 ** -40)

    def test_requantize_rounds_twice_half_away_from_zero(self):
        import torch
        # Multiplier 2^30 (one half) and shift -1: x / 4 in two roundings.
        # 5: high multiply (5 * 2^30 + 2^30) >> 31 = 3, then 3 / 2 = 1.5 -> 2.
        # -5: (-5 * 2^30 + 2^30) >> 31 = -2, then -1 exactly. 1000 -> 500 -> 250.
        out = cortex_m.requantize(torch.tensor([5, -5, 1000, -1000, 6]), 1 << 30, -1)
        # -1000 -> -500 -> -250; 6 -> 3 -> 1.5 -> 2.
        self.assertEqual(out.tolist(), [2, -1, 250, -250, 2])
        # A positive shift scales before the multiply: 3 * 2 * 0.5 = 3.
        self.assertEqual(cortex_m.requantize(torch.tensor([3]), 1 << 30, 1).tolist(), [3])

    def test_average_rounds_half_away_from_zero(self):
        import torch
        # Windows of 2x2: sums 2 (0.5 -> 1), -2 (-0.5 -> -1), 5 (1.25 -> 1), -6 (-1.5 -> -2).
        x = torch.tensor([[[[1, 1, -1, -1, 2, 1, -2, -2],
                            [0, 0, 0, 0, 1, 1, -1, -1]]]], dtype=torch.int8)
        out = cortex_m._quantized_avg_pool2d(x, [2, 2], [2, 2], [0, 0], False, 0, 1 << 30, 1, None)
        self.assertEqual(out.flatten().tolist(), [1, -1, 1, -2])

    def test_add_scales_inputs_by_2_to_the_20_over_twice_the_larger_scale(self):
        import torch
        # Scales 0.5 and 0.25 into 0.5, as the lowering sets them: inputs
        # (q << 20) times 0.5 / 1 and 0.25 / 1, the sum times 1 / (2^20 * 0.5).
        ma, sa = cortex_m.quantize_multiplier(0.5)
        mb, sb = cortex_m.quantize_multiplier(0.25)
        mo, so = cortex_m.quantize_multiplier(1.0 / (1 << 20) / 0.5)
        out = cortex_m._quantized_add(torch.tensor([3, -3]), 0, ma, sa, torch.tensor([2, 1]), 0, mb, sb,
                                      5, mo, so, -128, 127)
        # (3*0.5 + 2*0.25) / 0.5 = 4, + 5; (-1.5 + 0.25) / 0.5 = -2.5 -> -3 (away from zero), + 5.
        self.assertEqual(out.tolist(), [9, 2])


class ExportedSamplesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        export(cls.tmp.name, "--references")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name, ext):
        return os.path.join(self.tmp.name, name, name + ext)

    def check_written_and_verifies(self, name, *verify_args, cases=3):
        """The checked-in .pte and ETRecord are what the exporter writes, and
        both bundles (fresh and checked in) verify with `verify_args`."""
        for ext in (".pte", ".etrecord"):
            self.assertTrue(filecmp.cmp(self.path(name, ext), os.path.join(SAMPLES, name, name + ext),
                                        shallow=False), "run samples/export/export_samples.py to regenerate")
        for bundle in (self.path(name, ".bpte"), os.path.join(SAMPLES, name, name + ".bpte")):
            result = subprocess.run([ETINSPECT, "verify", bundle, *verify_args], capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn("summary: %d passed, 0 failed of %d cases" % (cases, cases), result.stdout)

    def test_checked_in_samples_are_what_the_exporter_writes(self):
        # Programs and records are bit-exact functions of the seed (on the
        # same Debian packages and an x86-64 CPU with AVX2). A bundle's
        # expected outputs come from eager PyTorch, whose kernels may differ
        # in the last bits on another CPU: the bundle must embed the same
        # program, and its outputs are checked by the verify test.
        for name in NAMES:
            for ext in (".pte", ".etrecord"):
                with self.subTest(file=name + ext):
                    self.assertTrue(filecmp.cmp(self.path(name, ext),
                                                os.path.join(SAMPLES, name, name + ext),
                                                shallow=False),
                                    "run samples/export/export_samples.py to regenerate")
            with self.subTest(file=name + ".bpte"):
                with open(os.path.join(SAMPLES, name, name + ".pte"), "rb") as f:
                    program = f.read()
                with open(os.path.join(SAMPLES, name, name + ".bpte"), "rb") as f:
                    self.assertIn(program, f.read())

    def test_written_plan_has_no_overlapping_live_tensors(self):
        for name in NAMES:
            with self.subTest(model=name):
                plan = dump_program(self.path(name, ".pte"))["execution_plan"][0]
                self.check_plan(plan)

    def check_plan(self, plan):
        values = plan["values"]
        instructions = plan["chains"][0]["instructions"]
        end = len(instructions)
        life = {}
        for index in plan["inputs"]:
            life[index] = [-1, -1]
        for position, instruction in enumerate(instructions):
            args = instruction["instr_args"]["args"]
            for index in args:
                items = values[index]["val"].get("items", []) \
                    if values[index]["val_type"] == "TensorList" else [index]
                for item in items:
                    span = life.setdefault(item, [position, position])
                    span[1] = position
        for index in plan["outputs"]:
            life.setdefault(index, [end, end])[1] = end
        allocations = []
        for index, (first, last) in life.items():
            tensor = values[index]["val"]
            info = tensor.get("allocation_info")
            if values[index]["val_type"] != "Tensor" or info is None:
                continue
            count = 1
            for s in tensor.get("sizes", []):
                count *= s
            size = count * {"FLOAT": 4, "LONG": 8, "BOOL": 1, "INT": 4}[tensor["scalar_type"]]
            allocation = memory_plan.Allocation(index, size, first, last)
            allocation.offset = info.get("memory_offset_low", 0) + \
                (info.get("memory_offset_high", 0) << 32)
            self.assertLessEqual(allocation.offset + size, plan["non_const_buffer_sizes"][1])
            allocations.append(allocation)
        self.assertGreater(len(allocations), len(instructions))
        memory_plan.check(allocations)

    def test_every_file_reads_back_in_etkit(self):
        for name in NAMES:
            for ext in (".pte", ".bpte", ".etrecord"):
                with self.subTest(file=name + ext):
                    result = subprocess.run([ETINSPECT, "info", "--json", self.path(name, ext)],
                                            capture_output=True, text=True)
                    self.assertEqual(result.returncode, 0, result.stderr)
                    json.loads(result.stdout)

    def test_bfloat16_sample_verifies_and_stays_near_the_float32_sample(self):
        # The tolerance samples/README.md states: eager bfloat16 in Debian's
        # PyTorch 1.13 accumulates its matrix multiplies in bfloat16, etkit
        # in float32 (as later ATen releases do).
        name = "nano_gpt_bf16"
        for ext in (".pte", ".etrecord"):
            self.assertTrue(filecmp.cmp(self.path(name, ext), os.path.join(SAMPLES, name, name + ext),
                                        shallow=False), "run samples/export/export_samples.py to regenerate")
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "report.json")
            result = subprocess.run([ETINSPECT, "verify", os.path.join(SAMPLES, name, name + ".bpte"),
                                     "--atol", "0.02", "--json", report], capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            with open(report) as f:
                cases = json.load(f)["cases"]
        self.assertEqual([c["outputs"][0]["dtype"] for c in cases], ["bfloat16"] * 3)
        # Second reference: the float32 sample on the same tokens, through
        # etkit, read back with NumPy.
        with tempfile.TemporaryDirectory() as tmp:
            outputs = {}
            for sample in ("nano_gpt", name):
                out = os.path.join(tmp, sample)
                subprocess.run([ETINSPECT, "run", os.path.join(SAMPLES, sample, sample + ".bpte"),
                                "--bundled-input", "0", "--output-dir", out], check=True, capture_output=True)
                outputs[sample] = np.load(os.path.join(out, "output_0.npy"))
            error = np.abs(outputs[name].astype(np.float64) - outputs["nano_gpt"])
            self.assertLess(error.max(), 0.02)
            self.assertLess(error.mean(), 0.002)

    def test_bundles_verify_against_eager_pytorch(self):
        # atol 1e-6: float32 sums in another order than ATen's (see samples/README.md).
        for name in NAMES:
            for bundle in (self.path(name, ".bpte"), os.path.join(SAMPLES, name, name + ".bpte")):
                with self.subTest(bundle=bundle):
                    result = subprocess.run([ETINSPECT, "verify", bundle, "--atol", "1e-6"],
                                            capture_output=True, text=True)
                    self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_8da4w_sample_is_what_the_exporter_writes_and_verifies(self):
        # Its expected outputs simulate the quantization in eager PyTorch;
        # etkit's integer kernels meet them within float rounding (1e-5).
        name = "transformer_8da4w"
        self.check_written_and_verifies(name, "--atol", "1e-5")

    def test_int8_sample_is_what_the_exporter_writes_and_verifies_bit_exactly(self):
        # Its expected outputs come from etexport/int8.py's integer arithmetic
        # (XNNPACK's requantization rules written in PyTorch ops); Debian's
        # XNNPACK, run by etkit, computes the same bits.
        name = "mobilenet_v2_xnnpack_int8"
        self.check_written_and_verifies(name, "--atol", "0", "--rtol", "0")

    def test_cortex_m_sample_is_what_the_exporter_writes_and_verifies_bit_exactly(self):
        # Expected outputs from etexport/cortex_m.py's CMSIS-NN arithmetic in
        # PyTorch ops; etkit's cortex_m:: kernels compute the same bits.
        name = "resnet8_cortex_m_int8"
        self.check_written_and_verifies(name, "--atol", "0", "--rtol", "0")

    def test_8da4w_llama_is_what_the_exporter_writes_and_its_steps_verify(self):
        # Eager PyTorch simulating 8da4w; etkit's integer path within 1e-5.
        name = "tiny_llama_8da4w"
        self.check_written_and_verifies(name, "--atol", "1e-5", cases=8)

    def test_llama_sample_is_what_the_exporter_writes_and_its_steps_verify_in_order(self):
        # The bundle's cases are successive decode steps of one loaded method
        # (its KV caches carry): eager PyTorch's logits within 1e-6.
        name = "tiny_llama"
        self.check_written_and_verifies(name, "--atol", "1e-6", cases=8)
        with open(os.path.join(SAMPLES, name, "eager_generation.json")) as f:
            checked_in = json.load(f)
        with open(os.path.join(self.tmp.name, name, "eager_generation.json")) as f:
            self.assertEqual(json.load(f), checked_in)
        # The KV caches are mutable buffers: planned, with an initial state.
        plan = dump_program(self.path(name, ".pte"))
        self.assertEqual(len(plan["mutable_data_segments"]), 1)
        forward = next(p for p in plan["execution_plan"] if p["name"] == "forward")
        stateful = [v["val"] for v in forward["values"]
                    if v["val_type"] == "Tensor" and v["val"].get("allocation_info")
                    and v["val"].get("data_buffer_idx", 0) > 0]
        self.assertEqual(len(stateful), 4)  # k and v of two layers
        names = sorted(p["name"] for p in plan["execution_plan"])
        self.assertEqual(names, ["enable_dynamic_shape", "forward", "get_max_seq_len", "get_n_layers",
                                 "get_vocab_size", "use_kv_cache", "use_sdpa_with_kv_cache"])

    def test_references_cover_every_instruction(self):
        for name in NAMES:
            with self.subTest(model=name):
                plan = dump_program(self.path(name, ".pte"))["execution_plan"][0]
                with open(os.path.join(self.tmp.name, name, "reference", "index.json")) as f:
                    index = json.load(f)
                ids = sorted(entry["instruction_id"] for entry in index.values())
                self.assertEqual(ids, list(range(len(plan["chains"][0]["instructions"]))))


class GapTest(unittest.TestCase):
    """etinspect gap against the exporter's eager references, and a weight
    perturbed in the .pte bytes that must show as the first divergence."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        export(cls.tmp.name, "--references", "--cases", "1")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def gap(self, name, program):
        folder = os.path.join(self.tmp.name, name)
        trace = os.path.join(folder, "run.etdp")
        buffer = os.path.join(folder, "run.bin")
        subprocess.run([ETINSPECT, "run", program, "--input",
                        os.path.join(folder, "reference", "input_0.npy"), "--etdump", trace,
                        "--debug-level", "intermediates", "--debug-buffer", buffer],
                       check=True, stdout=subprocess.DEVNULL)
        result = subprocess.run([ETINSPECT, "gap", trace, "--debug-buffer", buffer, "--reference",
                                 os.path.join(folder, "reference"), "--etrecord",
                                 os.path.join(folder, name + ".etrecord"), "--json"],
                                capture_output=True, text=True)
        self.assertIn(result.returncode, (0, 1), result.stderr)
        return result.returncode, json.loads(result.stdout)

    def test_every_op_of_every_sample_is_near_zero(self):
        for name in NAMES:
            with self.subTest(model=name):
                code, report = self.gap(name, os.path.join(self.tmp.name, name, name + ".pte"))
                self.assertEqual(code, 0, [r for r in report["rows"] if r["status"] != "ok"][:3])
                self.assertEqual(report["missing_references"], 0)
                for row in report["rows"]:
                    self.assertLess(row["max_abs"], 1e-4, row)
                    cosine = row["cosine"]
                    self.assertGreater(cosine, 0.99999, row)

    def test_a_second_trace_as_reference(self):
        # Two runs of the same program agree exactly; a run of the perturbed
        # program against the original diverges.
        name = "tutorial_cnn"
        folder = os.path.join(self.tmp.name, name)
        program = os.path.join(folder, name + ".pte")
        traces = []
        for tag in ("a", "b"):
            trace, buffer = os.path.join(folder, tag + ".etdp"), os.path.join(folder, tag + ".bin")
            subprocess.run([ETINSPECT, "run", program, "--fill", "random", "--seed", "7", "--etdump",
                            trace, "--debug-level", "intermediates", "--debug-buffer", buffer],
                           check=True, stdout=subprocess.DEVNULL)
            traces.append((trace, buffer))
        result = subprocess.run([ETINSPECT, "gap", traces[0][0], "--debug-buffer", traces[0][1],
                                 "--reference", traces[1][0], "--reference-debug-buffer",
                                 traces[1][1], "--json"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        report = json.loads(result.stdout)
        self.assertEqual(len(report["rows"]), 15)
        # Identical values: SNR is +inf, which JSON writes as null.
        self.assertTrue(all(r["max_abs"] == 0 and r["snr_db"] is None for r in report["rows"]))
        missing = subprocess.run([ETINSPECT, "gap", traces[0][0], "--debug-buffer", traces[0][1],
                                  "--reference", traces[1][0]], capture_output=True, text=True)
        self.assertEqual(missing.returncode, 2)
        self.assertIn("--reference-debug-buffer", missing.stderr)

    def test_perturbed_weight_diverges_at_the_op_that_reads_it(self):
        name = "resnet18"
        path = os.path.join(self.tmp.name, name, name + ".pte")
        plan = dump_program(path)
        instructions = plan["execution_plan"][0]["chains"][0]["instructions"]
        values = plan["execution_plan"][0]["values"]
        # The third convolution's weight (layer1.0.conv2), read by instruction `target`.
        convolutions = [i for i, ins in enumerate(instructions)
                        if plan["execution_plan"][0]["operators"][ins["instr_args"].get("op_index", 0)]
                        ["name"] == "aten::convolution"]
        target = convolutions[2]
        weight = values[instructions[target]["instr_args"]["args"][1]]["val"]
        with open(path, "rb") as f:
            data = bytearray(f.read())
        base = int.from_bytes(data[24:32], "little")  # eh00: segment base offset
        offset = base + plan["constant_segment"]["offsets"][weight["data_buffer_idx"]]
        data[offset:offset + 4] = struct.pack("<f", 50.0)  # first weight element
        perturbed = os.path.join(self.tmp.name, name, "perturbed.pte")
        with open(perturbed, "wb") as f:
            f.write(data)
        code, report = self.gap(name, perturbed)
        self.assertEqual(code, 1)
        self.assertEqual(report["first_divergence"]["instruction_id"], target)
        before = [r for r in report["rows"] if r["instruction_id"] < target]
        self.assertTrue(before and all(r["status"] == "ok" for r in before))


class LinkedTraceTest(unittest.TestCase):
    """A trace of a checked-in sample, tabulated with its ETRecord."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.trace = os.path.join(cls.tmp.name, "resnet18.etdp")
        subprocess.run([ETINSPECT, "run", os.path.join(SAMPLES, "resnet18", "resnet18.pte"),
                        "--fill", "random", "--iterations", "3", "--etdump", cls.trace],
                       check=True, stdout=subprocess.DEVNULL)
        cls.record = os.path.join(SAMPLES, "resnet18", "resnet18.etrecord")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_table_carries_module_hierarchy_and_source_lines(self):
        result = subprocess.run([ETINSPECT, "table", self.trace, "--etrecord", self.record,
                                 "--format", "json"], capture_output=True, text=True, check=True)
        rows = [r for r in json.loads(result.stdout) if r["event_block_name"] == "Execute"
                and r["event_name"].startswith("native_call_")]
        self.assertEqual(len(rows), 70)
        first = rows[0]
        self.assertEqual(first["op_types"], ["aten.convolution.default"])
        self.assertEqual(first["debug_handles"], [1])
        [(node, trace)] = first["stack_traces"].items()
        # torchvision's ResNet._forward_impl calls conv1 on this line.
        with open("/usr/lib/python3/dist-packages/torchvision/models/resnet.py") as f:
            line = next(i for i, text in enumerate(f, 1) if "x = self.conv1(x)" in text)
        self.assertIn('resnet.py", line %d' % line, trace)
        self.assertEqual(first["module_hierarchy"][node]["L__self___conv1"],
                         ["conv1", "torch.nn.modules.conv.Conv2d"])

    def test_debug_data_of_the_last_op_is_the_program_output(self):
        # Two paths: the table's debug_data from the debug buffer, and the
        # output .npy that `run --output-dir` writes.
        trace = os.path.join(self.tmp.name, "cnn.etdp")
        buffer = os.path.join(self.tmp.name, "cnn.bin")
        subprocess.run([ETINSPECT, "run", os.path.join(SAMPLES, "tutorial_cnn", "tutorial_cnn.pte"),
                        "--fill", "random", "--seed", "3", "--etdump", trace, "--debug-level",
                        "intermediates", "--debug-buffer", buffer, "--output-dir", self.tmp.name],
                       check=True, stdout=subprocess.DEVNULL)
        result = subprocess.run([ETINSPECT, "table", trace, "--debug-buffer", buffer, "--format",
                                 "json"], capture_output=True, text=True, check=True)
        rows = [r for r in json.loads(result.stdout) if r["debug_data"]]
        last = max(rows, key=lambda r: r["start_time"][0])
        expected = np.load(os.path.join(self.tmp.name, "output_0.npy"))
        self.assertEqual(last["debug_data"][0]["sizes"], list(expected.shape))
        np.testing.assert_array_equal(np.array(last["debug_data"][0]["values"], dtype=np.float32),
                                      expected.ravel())

    def test_damaged_record_still_prints_the_table(self):
        damaged = os.path.join(self.tmp.name, "damaged.etrecord")
        with zipfile.ZipFile(damaged, "w") as archive:
            archive.writestr("ETRECORD_V0", "")
            archive.writestr("edge_dialect_exported_program/forward", "{ not json")
            archive.writestr("debug_handle_map", json.dumps({"forward": {"0": [999]}}))
        # Nothing links through a damaged graph: an error, unless asked to go on.
        refused = subprocess.run([ETINSPECT, "table", self.trace, "--etrecord", damaged],
                                 capture_output=True, text=True)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("does not belong to this trace", refused.stderr)
        result = subprocess.run([ETINSPECT, "table", self.trace, "--etrecord", damaged, "--allow-unlinked"],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("not valid JSON", result.stderr)
        self.assertIn("delegate_map is missing", result.stderr)
        rows = [line for line in result.stdout.splitlines() if "native_call_" in line]
        self.assertEqual(len(rows), 70)

    def test_module_totals_add_up_to_the_run(self):
        result = subprocess.run([ETINSPECT, "modules", self.trace, "--etrecord", self.record,
                                 "--json"], capture_output=True, text=True, check=True)
        report = json.loads(result.stdout)
        root = report["modules"][0]
        self.assertEqual(root["path"], "")
        # The root holds every linked operator event: a hand sum of the same
        # trace's rows, as etinspect table lists them (no timing involved).
        table = subprocess.run([ETINSPECT, "table", self.trace, "--etrecord", self.record, "--format", "json",
                                "--block", "Execute"], capture_output=True, text=True, check=True)
        linked = [row for row in json.loads(table.stdout) if row["module_hierarchy"]]
        self.assertEqual(root["op_events"], len(linked))
        self.assertAlmostEqual(root["total"], sum(row["avg"] for row in linked), places=9)
        # Children of a module never add up to more than the module.
        for module in report["modules"]:
            children = sum(report["modules"][c]["total"] for c in module["children"])
            self.assertLessEqual(children, module["total"] * (1 + 1e-9))


if __name__ == "__main__":
    ETINSPECT = os.path.abspath(sys.argv.pop(1))
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        FLATC = sys.argv.pop(1)
    unittest.main()
