"""Every sample on upstream's runtime and on etkit, timed in one run.

    scripts/upstream-python bench/upstream_bench.py ETINSPECT [--iterations N] [--warmup N]

Upstream's runtime is the pinned wheel's (executorch 1.5.1: portable,
optimized, quantized and LLM kernels, XNNPACK), timed with one thread of
its thread pool and with its default (every core); etkit is `etinspect run
--threads N` (its one pool, shared by the portable kernels and XNNPACK). Each
figure is the median of N executions of the bundle's first case after W
warm-up ones, inside one process per runtime (load time excluded). Prints a
Markdown table: milliseconds and the ratio etkit / upstream.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "upstream"))
import oracle  # noqa: E402
from test_differential_runs import NOT_ON_UPSTREAM  # noqa: E402


def upstream_ms(pte, threads, iterations, warmup):
    """Upstream's median in a process of its own: resetting its thread pool
    between programs in one process crashes the 1.5.1 runtime."""
    done = subprocess.run([sys.executable, __file__, "--upstream-one", str(pte), str(threads), str(iterations),
                           str(warmup)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"upstream's runtime on {pte}: {done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def upstream_one(pte, threads, iterations, warmup):
    oracle.runtime._unsafe_reset_threadpool(threads)
    inputs = next(iter(oracle.bundle_cases(Path(pte).with_suffix(".bpte"))))[2]
    program = Path(pte).read_bytes()  # upstream's module borrows these bytes: they must outlive it
    module = oracle.runtime._load_for_executorch_from_buffer(program)
    times = []
    for i in range(warmup + iterations):
        start = time.perf_counter()
        module.run_method("forward", tuple(inputs))
        if i >= warmup:
            times.append((time.perf_counter() - start) * 1e3)
    print(statistics.median(times))


def etkit_ms(pte, inputs, iterations, warmup, threads):
    with tempfile.TemporaryDirectory() as folder:
        args = ["run", pte, "--iterations", iterations, "--warmup", warmup, "--json", "--threads", threads]
        for path in oracle.save_npy(folder, inputs):
            args += ["--input", path]
        return json.loads(oracle.etinspect(*args).stdout)["latency_ms"]["median"]


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--upstream-one":
        upstream_one(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
        return
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
    samples = []
    for bpte in sorted((ROOT / "samples").glob("*/*.bpte")):
        if bpte.parent.name != "tiny" and bpte.stem not in NOT_ON_UPSTREAM:
            samples.append((bpte.stem, bpte.with_suffix(".pte"), next(iter(oracle.bundle_cases(bpte)))[2]))
    times = {}
    for threads in (1, cores):
        for name, pte, inputs in samples:
            times[name, "upstream", threads] = upstream_ms(pte, threads, args.iterations, args.warmup)
            times[name, "etkit", threads] = etkit_ms(pte, inputs, args.iterations, args.warmup, threads)
    for name, _, _ in samples:
        up1, upn = times[name, "upstream", 1], times[name, "upstream", cores]
        et1, etn = times[name, "etkit", 1], times[name, "etkit", cores]
        print(f"| {name} | {up1:.2f} | {upn:.2f} | {et1:.2f} | {etn:.2f} | {et1 / up1:.2f} | {etn / upn:.2f} |",
              flush=True)
    for name, (_, why) in sorted(NOT_ON_UPSTREAM.items()):
        if (ROOT / "samples" / name).is_dir():
            print(f"| {name} | not run: {why} | | | | | |")


if __name__ == "__main__":
    main()
