#!/usr/bin/python3
"""Static int8 MobileNetV2 through XNNPACK against the float XNNPACK program
and against libtorch's own quantized path (torchvision's quantizable
MobileNetV2, QNNPACK engine), unreduced at 1x3x224x224, one thread, one run
at a time; then traced against untraced runs of both programs and how well
the traced per-node times add up to their DELEGATE_CALL.

    bench/xnnpack_int8_bench.py ETINSPECT [--iterations N] [--warmup N] [--dir DIR]

Medians of N runs each. The traced/untraced ratio is the cost of per-node
profiling: a traced run gives XNNPACK one runtime per node (this XNNPACK
reports no per-operator times).
"""
import argparse
import json
import os
import subprocess
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from network_bench import export_full_size  # noqa: E402
from network_bench import median_call_ms  # noqa: E402
from xnnpack_bench import etkit_ms, per_node_coverage  # noqa: E402


def etkit_traced_ms(etinspect, program, iterations, warmup, trace):
    result = subprocess.run([etinspect, "run", program, "--fill", "random", "--threads", "1",
                             "--iterations", str(iterations), "--warmup", str(warmup), "--etdump", trace,
                             "--json"], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)["latency_ms"]["median"]


def libtorch_int8_ms(iterations, warmup):
    """torchvision's quantizable MobileNetV2, fused and statically quantized
    (per-channel weights) for QNNPACK, calibrated on random images."""
    import torchvision
    torch.set_num_threads(1)
    torch.backends.quantized.engine = "qnnpack"
    model = torchvision.models.quantization.mobilenet_v2(quantize=False).eval()
    model.fuse_model()
    model.qconfig = torch.ao.quantization.get_default_qconfig("qnnpack")
    torch.ao.quantization.prepare(model, inplace=True)
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(1, 3, 224, 224, generator=generator))
    torch.ao.quantization.convert(model, inplace=True)
    return median_call_ms(model, (torch.randn(1, 3, 224, 224, generator=generator),), iterations, warmup)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("etinspect")
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--dir", default="/tmp/etkit_xnnpack_int8_bench")
    args = parser.parse_args()
    names = ["mobilenet_v2_xnnpack_full", "mobilenet_v2_xnnpack_int8_full"]
    export_full_size(names, args.dir)
    program = {n: os.path.join(args.dir, n, n + ".pte") for n in names}
    float_ms = etkit_ms(args.etinspect, program[names[0]], 1, args.iterations, args.warmup)
    int8_ms = etkit_ms(args.etinspect, program[names[1]], 1, args.iterations, args.warmup)
    theirs = libtorch_int8_ms(args.iterations, args.warmup)
    print("MobileNetV2 1x3x224x224, one thread, median of %d runs (ms)" % args.iterations)
    print("%-28s %8.2f" % ("etkit XNNPACK fp32", float_ms))
    print("%-28s %8.2f   (fp32/int8 %.2f)" % ("etkit XNNPACK int8", int8_ms, float_ms / int8_ms))
    print("%-28s %8.2f   (libtorch/etkit int8 %.2f)" % ("libtorch int8 (QNNPACK)", theirs, theirs / int8_ms))
    print("traced vs untraced, one thread, median of %d runs (ms)" % args.iterations)
    samples = [("mobilenet_v2_xnnpack", os.path.join(ROOT, "samples", "mobilenet_v2_xnnpack")),
               ("mobilenet_v2_xnnpack_int8", os.path.join(ROOT, "samples", "mobilenet_v2_xnnpack_int8"))]
    for name, directory in samples:
        pte = os.path.join(directory, name + ".pte")
        untraced = etkit_ms(args.etinspect, pte, 1, args.iterations, args.warmup)
        traced = etkit_traced_ms(args.etinspect, pte, args.iterations, args.warmup,
                                 os.path.join(args.dir, name + ".etdp"))
        nodes, median, low, high = per_node_coverage(args.etinspect, pte, os.path.join(directory, name + ".etrecord"),
                                                     args.dir, 20)
        print("%-28s untraced %6.3f traced %6.3f ratio %.3f; %d node rows, per-node sum / DELEGATE_CALL "
              "median %.3f (min %.3f, max %.3f)" % (name, untraced, traced, traced / untraced, nodes, median,
                                                   low, high))


if __name__ == "__main__":
    main()
