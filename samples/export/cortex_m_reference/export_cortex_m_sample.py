#!/usr/bin/python3
"""Exports samples/resnet8_cortex_m_int8/ with etkit's own torch 1.13 exporter.

    /usr/bin/python3 samples/export/cortex_m_reference/export_cortex_m_sample.py [--out DIR] [--flatc PATH]

The one sample upstream's tools cannot make on this machine: upstream's
cortex_m passes import its Arm backend, which needs `tosa_serializer`, a
package outside the pinned upstream environment (samples/README.md). An
MLPerf Tiny-style ResNet lowered to upstream's cortex_m:: int8 ops, whose
bundle's expected outputs come from the reference CMSIS-NN arithmetic in
etexport/cortex_m.py (PyTorch ops), not from any runtime. Needs only
Debian packages: python3-torch, python3-numpy and flatbuffers-compiler.
"""
import argparse
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from etexport.bundle import eager_outputs, write_bundle  # noqa: E402
from etexport.capture import capture  # noqa: E402
from etexport import cortex_m  # noqa: E402
from etexport.emit import emit_method, record_values  # noqa: E402
from etexport.etrecord import write_etrecord  # noqa: E402
from etexport.program import write_program  # noqa: E402
import models  # noqa: E402

SAMPLES_DIR = os.path.dirname(os.path.dirname(HERE))
NAME = "resnet8_cortex_m_int8"
SEED = 20261122
CASES = 3
CALIBRATION_RUNS = 8


def images(generator):
    return (torch.randn(1, 3, 32, 32, generator=generator),)


def export(out_dir, flatc):
    start = time.monotonic()
    generator = torch.Generator().manual_seed(SEED)
    torch.manual_seed(SEED)
    model = models.randomize_batch_norms(models.TinyResNet(), generator).eval()
    example = images(generator)
    captured = capture(model, example)
    calibration_generator = torch.Generator().manual_seed(SEED + 1)  # inputs of their own, not the bundle's
    ranges = cortex_m.ShapeCalibration()
    for inputs in [example] + [images(calibration_generator) for _ in range(CALIBRATION_RUNS)]:
        ranges.observe(record_values(captured.graph_module, list(captured.constants) + list(inputs)))
    lowered = cortex_m.lower_to_cortex_m(captured, ranges)
    constants = []
    method = emit_method("forward", lowered, example, constants, strided_dim_orders=True)
    program = write_program([method], constants, flatc)
    directory = os.path.join(out_dir, NAME)
    os.makedirs(directory, exist_ok=True)
    stem = os.path.join(directory, NAME)
    with open(stem + ".pte", "wb") as f:
        f.write(program)

    def expected(inputs):  # the reference integer arithmetic
        with torch.no_grad():
            return (lowered.graph_module(*lowered.constants, *inputs).detach().clone(),)

    bundle_cases = [(example, expected(example))]
    for _ in range(CASES - 1):
        inputs = images(generator)
        bundle_cases.append((inputs, expected(inputs)))
    gaps = [(q - f).abs() for inputs, outs in bundle_cases for q, f in zip(outs, eager_outputs(model, inputs))]
    print("%s quantized vs float outputs: max |diff| %.4g, mean |diff| %.4g" % (
        NAME, max(g.max().item() for g in gaps), sum(g.mean().item() for g in gaps) / len(gaps)), flush=True)
    with open(stem + ".bpte", "wb") as f:
        f.write(write_bundle(program, "forward", bundle_cases, flatc))
    write_etrecord(stem + ".etrecord", [method])
    print("%s: %d instructions, arena %.2f MiB, %.1f s" % (
        NAME, len(method.instructions), method.arena_size / 2**20, time.monotonic() - start), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=SAMPLES_DIR, help="output folder (default samples/)")
    parser.add_argument("--flatc", default="flatc")
    args = parser.parse_args()
    torch.set_num_threads(1)
    export(args.out, args.flatc)


if __name__ == "__main__":
    main()
