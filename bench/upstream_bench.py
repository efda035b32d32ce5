"""Every sample on upstream's runtime and on etkit, timed in one run.

    scripts/upstream-python bench/upstream_bench.py ETINSPECT [--iterations N] [--warmup N]

Upstream's runtime is the pinned wheel's (executorch 1.5.1: portable,
optimized, quantized and LLM kernels, XNNPACK), timed with one thread of
its thread pool and with its default (every core); etkit is `etinspect run`
(its portable kernels run on one thread; XNNPACK gets --threads). Each
figure is the median of N executions of the bundle's first case after W
warm-up ones, inside one process per runtime (load time excluded). Prints a
Markdown table: milliseconds and the ratio etkit / upstream.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "upstream"))
import oracle  # noqa: E402
from test_differential_runs import NOT_ON_UPSTREAM  # noqa: E402


def upstream_ms(pte, inputs, iterations, warmup, threads):
    if threads is not None:
        oracle.runtime._unsafe_reset_threadpool(threads)
    module = oracle.runtime._load_for_executorch_from_buffer(pte.read_bytes())
    times = []
    for i in range(warmup + iterations):
        start = time.perf_counter()
        module.run_method("forward", tuple(inputs))
        if i >= warmup:
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def etkit_ms(pte, inputs, iterations, warmup, threads):
    with tempfile.TemporaryDirectory() as folder:
        args = ["run", pte, "--iterations", iterations, "--warmup", warmup, "--json", "--threads", threads]
        for path in oracle.save_npy(folder, inputs):
            args += ["--input", path]
        return json.loads(oracle.etinspect(*args).stdout)["latency_ms"]["median"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("etinspect")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()
    oracle.ETINSPECT = args.etinspect
    cores = os.cpu_count() or 1
    print(f"| sample | upstream, 1 thread (ms) | upstream, {cores} threads (ms) | etkit, 1 thread (ms) | "
          f"etkit, {cores} threads (ms) | etkit / upstream, 1 thread | etkit / upstream, {cores} threads |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for bpte in sorted((ROOT / "samples").glob("*/*.bpte")):
        name = bpte.stem
        if bpte.parent.name == "tiny" or name in NOT_ON_UPSTREAM:
            continue
        inputs = next(iter(oracle.bundle_cases(bpte)))[2]
        pte = bpte.with_suffix(".pte")
        up1 = upstream_ms(pte, inputs, args.iterations, args.warmup, 1)
        upn = upstream_ms(pte, inputs, args.iterations, args.warmup, cores)
        et1 = etkit_ms(pte, inputs, args.iterations, args.warmup, 1)
        etn = etkit_ms(pte, inputs, args.iterations, args.warmup, cores)
        print(f"| {name} | {up1:.2f} | {upn:.2f} | {et1:.2f} | {etn:.2f} | {et1 / up1:.2f} | {etn / upn:.2f} |",
              flush=True)
    for name, (_, why) in sorted(NOT_ON_UPSTREAM.items()):
        if (ROOT / "samples" / name).is_dir():
            print(f"| {name} | not run: {why} | | | | | |")


if __name__ == "__main__":
    main()
