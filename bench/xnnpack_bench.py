#!/usr/bin/python3
"""XNNPACK delegate vs etkit's portable kernels vs PyTorch eager (Debian's
libtorch) on the unreduced MobileNetV2 at 1x3x224x224, one run at a time, on
one thread and on all cores; then how well a traced run's per-node times
add up to their DELEGATE_CALL.

    bench/xnnpack_bench.py ETINSPECT [--iterations N] [--warmup N] [--dir DIR]

etkit's portable kernels are single-threaded, so their figure is the same
at both thread counts. The per-node check uses the raw per-run times of
`etinspect table --format json`.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from network_bench import FULL_SIZE, export_full_size, torch_median_ms  # noqa: E402


def etkit_ms(etinspect, program, threads, iterations, warmup):
    result = subprocess.run([etinspect, "run", program, "--fill", "random", "--threads", str(threads),
                             "--iterations", str(iterations), "--warmup", str(warmup), "--json"],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)["latency_ms"]["median"]


def torch_ms(threads, iterations, warmup):
    torch.set_num_threads(threads)
    return torch_median_ms(FULL_SIZE["mobilenet_v2_full"], iterations, warmup)


def per_node_coverage(etinspect, program, etrecord, directory, iterations):
    """Per traced run: sum of the delegated nodes' times / DELEGATE_CALL."""
    trace = os.path.join(directory, "xnnpack_traced.etdp")
    subprocess.run([etinspect, "run", program, "--iterations", str(iterations), "--etdump", trace],
                   check=True, capture_output=True)
    table = subprocess.run([etinspect, "table", trace, "--etrecord", etrecord, "--program", program,
                            "--format", "json"], capture_output=True, text=True, check=True)
    rows = [r for r in json.loads(table.stdout) if r["event_block_name"] == "Execute"]
    calls = next(r["raw"] for r in rows if r["event_name"] == "DELEGATE_CALL")
    nodes = [r["raw"] for r in rows if r["is_delegated_op"]]
    ratios = [sum(node[i] for node in nodes) / calls[i] for i in range(len(calls))]
    return len(nodes), statistics.median(ratios), min(ratios), max(ratios)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("etinspect")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/etkit_xnnpack_bench")
    args = parser.parse_args()
    export_full_size(["mobilenet_v2_full", "mobilenet_v2_xnnpack_full"], args.dir)
    portable = os.path.join(args.dir, "mobilenet_v2_full", "mobilenet_v2_full.pte")
    delegated = os.path.join(args.dir, "mobilenet_v2_xnnpack_full", "mobilenet_v2_xnnpack_full.pte")
    cores = os.cpu_count() or 1
    portable_ms = etkit_ms(args.etinspect, portable, 1, args.iterations, args.warmup)
    print("MobileNetV2 1x3x224x224, median of %d runs (ms)" % args.iterations)
    print("%-8s %10s %10s %10s %14s %14s" % ("threads", "xnnpack", "portable", "libtorch",
                                            "portable/xnn", "libtorch/xnn"))
    for threads in (1, cores):
        xnn = etkit_ms(args.etinspect, delegated, threads, args.iterations, args.warmup)
        theirs = torch_ms(threads, args.iterations, args.warmup)
        print("%-8d %10.2f %10.2f %10.2f %14.2f %14.2f" % (threads, xnn, portable_ms, theirs,
                                                         portable_ms / xnn, theirs / xnn))
    sample_dir = os.path.join(ROOT, "samples", "mobilenet_v2_xnnpack")
    nodes, median, low, high = per_node_coverage(
        args.etinspect, os.path.join(sample_dir, "mobilenet_v2_xnnpack.pte"),
        os.path.join(sample_dir, "mobilenet_v2_xnnpack.etrecord"), args.dir, args.iterations)
    print("traced sample: %d delegated rows; per-node sum / DELEGATE_CALL median %.3f "
          "(min %.3f, max %.3f)" % (nodes, median, low, high))


if __name__ == "__main__":
    main()
