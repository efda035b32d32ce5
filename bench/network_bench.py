#!/usr/bin/python3
"""Whole-network latency: etkit's portable runtime vs PyTorch eager (Debian's
libtorch, one thread) on the unreduced MobileNetV2 and ResNet-18 at
1x3x224x224, exported by samples/export with --full-size.

    bench/network_bench.py ETINSPECT [--iterations N] [--warmup N] [--dir DIR]

Prints median milliseconds and the ratio etkit / libtorch; upstream's
portable runtime figures (849 ms, 3.7 s on this kind of machine) are quoted
from issue #7 for the 5x comparison, not measured here.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "samples", "export"))
import models  # noqa: E402
from export_samples import SEED  # noqa: E402

UPSTREAM_MS = {"mobilenet_v2_full": 849.0, "resnet18_full": 3700.0}


def median_call_ms(model, inputs, iterations, warmup):
    """Median ms of model(*inputs) over `iterations` calls after `warmup`."""
    times = []
    with torch.no_grad():
        for i in range(warmup + iterations):
            start = time.perf_counter()
            model(*inputs)
            if i >= warmup:
                times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def torch_median_ms(sample, iterations, warmup):
    generator = torch.Generator().manual_seed(SEED)
    model = models.randomize_batch_norms(sample.build(), generator).eval()
    return median_call_ms(model, sample.make_inputs(generator), iterations, warmup)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("etinspect")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/etkit_network_bench")
    args = parser.parse_args()
    torch.set_num_threads(1)
    subprocess.run([sys.executable, os.path.join(ROOT, "samples", "export", "export_samples.py"),
                    "--full-size", "--out", args.dir], check=True, stdout=subprocess.DEVNULL)
    print("%-18s %12s %14s %12s %18s" % ("model", "etkit (ms)", "libtorch (ms)", "etkit/torch",
                                          "upstream/etkit"))
    for sample in models.samples(full_size=True):
        program = os.path.join(args.dir, sample.name, sample.name + ".pte")
        result = subprocess.run([args.etinspect, "run", program, "--fill", "random",
                                 "--iterations", str(args.iterations), "--warmup", str(args.warmup),
                                 "--json"], capture_output=True, text=True, check=True)
        ours = json.loads(result.stdout)["latency_ms"]["median"]
        theirs = torch_median_ms(sample, args.iterations, args.warmup)
        print("%-18s %12.1f %14.1f %12.2f %18.1f" % (sample.name, ours, theirs, ours / theirs,
                                                     UPSTREAM_MS[sample.name] / ours))


if __name__ == "__main__":
    main()
