"""Every sample on upstream's runtime and on etkit, timed in one run.

    scripts/upstream-python bench/upstream_bench.py ETINSPECT [--iterations N] [--warmup N]

Upstream's runtime is the pinned wheel's (executorch 1.5.1: portable,
optimized, quantized and LLM kernels, XNNPACK), timed with one thread of
its thread pool and with its default (every core); etkit is `etinspect run
--threads N` (its one pool, shared by the portable kernels and XNNPACK). Each
figure is the median of N executions of the bundle's first case after W
warm-up ones, inside one process per runtime (load time excluded). Prints a
Markdown table: milliseconds and the ratio etkit / upstream.

With --operators, the delegated samples are also traced on both runtimes
(upstream's wheel logs an event per XNNPACK operator, as etkit does) on one
thread, and their operators' p50 times are summed by kind (depthwise
convolutions, other convolutions, pointwise convolutions and linears,
layout, quantize/convert, element-wise, pooling, other): which operators
make a delegated sample slower or faster than upstream, and by how much. The
two XNNPACK releases name operators differently (upstream's runs a 1 x 1
convolution as a Fully Connected GEMM, Debian's as a Convolution GEMM), so
kinds are read from the names' words, not matched name by name.
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


def upstream_trace(pte, etdump, iterations):
    """One thread of upstream's runtime, traced (its ETDump with an event per
    XNNPACK operator), in a process of its own."""
    done = subprocess.run([sys.executable, __file__, "--upstream-trace", str(pte), str(etdump), str(iterations)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"upstream's traced runtime on {pte}: {done.stderr[-2000:]}")


def upstream_trace_one(pte, etdump, iterations):
    oracle.runtime._unsafe_reset_threadpool(1)
    inputs = next(iter(oracle.bundle_cases(Path(pte).with_suffix(".bpte"))))[2]
    program = Path(pte).read_bytes()  # upstream's module borrows these bytes
    module = oracle.runtime._load_for_executorch_from_buffer(program, enable_etdump=True, debug_buffer_size=0)
    for _ in range(iterations):
        module.run_method("forward", tuple(inputs))
    module.write_etdump_result_to_file(str(etdump))


# Operator kinds by the words of their names, first match wins.
OPERATOR_KINDS = [
    ("depthwise convolution", ("DWConv",)),
    ("convolution (IGEMM, 3x3 and strided)", ("IGEMM", "Deconvolution")),
    ("pointwise convolution / linear (GEMM)", ("GEMM", "Fully Connected")),
    ("layout (transpose, copy, pad)", ("Transpose", "Copy", "Constant Pad", "Depth To Space", "Space To Depth",
                                       "Concatenate", "Slice", "Split")),
    ("quantize / convert", ("Convert",)),
    ("element-wise", ("Add", "Multiply", "Subtract", "Divide", "Sigmoid", "Tanh", "Clamp", "HardSwish", "Minimum",
                      "Maximum", "ELU", "GELU", "Gelu", "Square", "Leaky", "Negate", "Abs", "Exp", "Log")),
    ("pooling", ("Pooling", "Global Average", "Max Pooling", "Average Pooling", "Mean")),
    ("softmax / attention", ("Softmax", "BatchMatrixMultiply")),
]


def operator_kind(name):
    for kind, words in OPERATOR_KINDS:
        if any(word in name for word in words):
            return kind
    return "other"


def operator_times(etdump):
    """Summed p50 milliseconds and counts of a trace's delegated operator
    events by kind."""
    rows = json.loads(oracle.etinspect("table", str(etdump), "--format", "json").stdout)
    totals = {}
    for row in rows:
        if not row["is_delegated_op"] or row["event_block_name"] != "Execute" or row["p50"] is None:
            continue
        name = row["event_name"].split(" #")[0]
        kind = operator_kind(name)
        ms, count = totals.get(kind, (0.0, 0))
        totals[kind] = (ms + row["p50"], count + 1)
    return totals


def print_operator_breakdown(samples, iterations):
    print()
    print("Delegated operators by kind, one thread, summed p50 (ms) of each runtime's own per-operator events:")
    print()
    print("| sample | operator kind | upstream (ms) | ops | etkit (ms) | ops | etkit / upstream |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as folder:
        for name, pte, inputs in samples:
            theirs, ours = Path(folder) / f"{name}.upstream.etdp", Path(folder) / f"{name}.etkit.etdp"
            args = ["run", str(pte), "--iterations", str(iterations), "--threads", "1", "--etdump", str(ours)]
            for path in oracle.save_npy(folder, inputs):
                args += ["--input", path]
            oracle.etinspect(*args)
            ours_by_kind = operator_times(ours)
            if not ours_by_kind:
                continue  # nothing delegated
            upstream_trace(pte, theirs, iterations)
            theirs_by_kind = operator_times(theirs)
            for kind in sorted(set(ours_by_kind) | set(theirs_by_kind),
                               key=lambda k: -max(ours_by_kind.get(k, (0, 0))[0], theirs_by_kind.get(k, (0, 0))[0])):
                up_ms, up_n = theirs_by_kind.get(kind, (0.0, 0))
                et_ms, et_n = ours_by_kind.get(kind, (0.0, 0))
                ratio = f"{et_ms / up_ms:.2f}" if up_ms > 0 else "—"
                print(f"| {name} | {kind} | {up_ms:.3f} | {up_n} | {et_ms:.3f} | {et_n} | {ratio} |", flush=True)


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
    if len(sys.argv) == 5 and sys.argv[1] == "--upstream-trace":
        upstream_trace_one(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("etinspect")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--sample", action="append", default=[], metavar="NAME",
                        help="only this sample (repeatable; default: every sample)")
    parser.add_argument("--operators", action="store_true",
                        help="also sum the delegated samples' per-operator times by kind on both runtimes")
    args = parser.parse_args()
    oracle.ETINSPECT = args.etinspect
    cores = os.cpu_count() or 1
    print(f"| sample | upstream, 1 thread (ms) | upstream, {cores} threads (ms) | etkit, 1 thread (ms) | "
          f"etkit, {cores} threads (ms) | etkit / upstream, 1 thread | etkit / upstream, {cores} threads |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    samples = []
    for bpte in sorted((ROOT / "samples").glob("*/*.bpte")):
        if args.sample and bpte.stem not in args.sample:
            continue
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
    if args.operators:
        print_operator_breakdown(samples, max(args.iterations, 20))


if __name__ == "__main__":
    main()
