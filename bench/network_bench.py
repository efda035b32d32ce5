#!/usr/bin/python3
"""Whole-network latency: etkit's portable runtime vs PyTorch eager (Debian's
libtorch) on the unreduced MobileNetV2 and ResNet-18 at 1x3x224x224, on one
thread and on every core, exported by upstream's exporter (samples/export/
upstream/export_samples.py --full-size, run in the pinned upstream
environment).

    bench/network_bench.py ETINSPECT [--iterations N] [--warmup N] [--dir DIR]

Prints median milliseconds, etkit's speed-up from one thread to every core,
and the ratios etkit / libtorch at each thread count. Upstream's runtime is
measured by bench/upstream_bench.py (bench/run_all runs both).
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
sys.path.insert(0, os.path.join(ROOT, "samples", "export", "upstream"))
import models  # noqa: E402  (plain torch.nn: runs on Debian's libtorch too)

SEED = 20261128
# The full-size programs upstream's exporter writes, and their models for libtorch.
FULL_SIZE = {"mobilenet_v2_full": models.MobileNetV2, "resnet18_full": models.ResNet18}


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


def torch_median_ms(build, iterations, warmup):
    generator = torch.Generator().manual_seed(SEED)
    model = models.randomize_batch_norms(build(), generator).eval()
    return median_call_ms(model, (torch.randn((1, 3, 224, 224), generator=generator),), iterations, warmup)


def export_full_size(names, directory):
    """The full-size programs, made by upstream's exporter in its environment."""
    only = sum((["--only", name] for name in names), [])
    subprocess.run([os.path.join(ROOT, "scripts", "upstream-python"),
                    os.path.join(ROOT, "samples", "export", "upstream", "export_samples.py"),
                    "--full-size", *only, "--out", directory], check=True, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("etinspect")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/etkit_network_bench")
    args = parser.parse_args()
    export_full_size(FULL_SIZE, args.dir)
    cores = os.cpu_count() or 1
    print(f"{cores} cores; medians of {args.iterations} runs after {args.warmup}")
    print("%-18s %10s %10s %8s %10s %10s %10s %10s" % (
        "model", "etkit 1t", f"etkit {cores}t", "speedup", "torch 1t", f"torch {cores}t", "ratio 1t", f"ratio {cores}t"))
    for name, build in FULL_SIZE.items():
        program = os.path.join(args.dir, name, name + ".pte")
        ours, theirs = {}, {}
        for threads in (1, cores):
            result = subprocess.run([args.etinspect, "run", program, "--fill", "random", "--threads", str(threads),
                                     "--iterations", str(args.iterations), "--warmup", str(args.warmup),
                                     "--json"], capture_output=True, text=True, check=True)
            ours[threads] = json.loads(result.stdout)["latency_ms"]["median"]
            torch.set_num_threads(threads)
            theirs[threads] = torch_median_ms(build, args.iterations, args.warmup)
        print("%-18s %10.1f %10.1f %8.2f %10.1f %10.1f %10.2f %10.2f" % (
            name, ours[1], ours[cores], ours[1] / ours[cores], theirs[1], theirs[cores], ours[1] / theirs[1],
            ours[cores] / theirs[cores]), flush=True)

if __name__ == "__main__":
    main()
