#!/usr/bin/python3
"""Tests of the Cortex-M sample's exporter (etkit's own, torch 1.13), run by ctest:

    test_exporter.py ETINSPECT [FLATC]

Its reference arithmetic against hand-derived values; the checked-in sample
is what the exporter writes; the memory plan is checked on the written .pte
itself, read back through a second path (Debian's flatc dumping it to JSON
with etkit's schema); every written file is read back by etkit.
"""
import filecmp
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from etexport import cortex_m  # noqa: E402
from etexport import int8  # noqa: E402
from etexport import memory_plan  # noqa: E402
from etexport.program import SCHEMAS  # noqa: E402

ETINSPECT = None
FLATC = "flatc"
SAMPLES = os.path.dirname(os.path.dirname(HERE))
NAME = "resnet8_cortex_m_int8"


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



class Int8Test(unittest.TestCase):
    """etexport/int8.py, which picks the Cortex-M sample's quantization
    parameters, against values derived by hand from the rules in its
    docstrings."""

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



class CortexMSampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        subprocess.run([sys.executable, os.path.join(HERE, "export_cortex_m_sample.py"), "--out", cls.tmp.name,
                        "--flatc", FLATC], check=True, stdout=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, ext):
        return os.path.join(self.tmp.name, NAME, NAME + ext)

    def test_checked_in_sample_is_what_the_exporter_writes(self):
        # Bit-exact functions of the seed (Debian's packages, an x86-64 CPU).
        for ext in (".pte", ".bpte", ".etrecord"):
            with self.subTest(file=NAME + ext):
                self.assertTrue(filecmp.cmp(self.path(ext), os.path.join(SAMPLES, NAME, NAME + ext), shallow=False),
                                "run samples/export/regenerate")

    def test_it_verifies_bit_exactly(self):
        # Expected outputs from etexport/cortex_m.py's CMSIS-NN arithmetic in
        # PyTorch ops; etkit's cortex_m:: kernels compute the same bits.
        result = subprocess.run([ETINSPECT, "verify", self.path(".bpte"), "--atol", "0", "--rtol", "0"],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("summary: 3 passed, 0 failed of 3 cases", result.stdout)

    def test_every_file_reads_back_in_etkit(self):
        for ext in (".pte", ".bpte", ".etrecord"):
            with self.subTest(file=NAME + ext):
                result = subprocess.run([ETINSPECT, "info", "--json", self.path(ext)], capture_output=True, text=True)
                self.assertEqual(result.returncode, 0, result.stderr)
                json.loads(result.stdout)

    def test_written_plan_has_no_overlapping_live_tensors(self):
        self.check_plan(dump_program(self.path(".pte"))["execution_plan"][0])

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
            size = count * {"FLOAT": 4, "LONG": 8, "BOOL": 1, "INT": 4, "CHAR": 1}[tensor["scalar_type"]]
            allocation = memory_plan.Allocation(index, size, first, last)
            allocation.offset = info.get("memory_offset_low", 0) + \
                (info.get("memory_offset_high", 0) << 32)
            self.assertLessEqual(allocation.offset + size, plan["non_const_buffer_sizes"][1])
            allocations.append(allocation)
        self.assertGreater(len(allocations), len(instructions))
        memory_plan.check(allocations)


if __name__ == "__main__":
    ETINSPECT = os.path.abspath(sys.argv.pop(1))
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        FLATC = sys.argv.pop(1)
    unittest.main()
