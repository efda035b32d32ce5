#!/usr/bin/python3
"""The on-device gate's cost: wall time of `etinspect verify` on the host and
inside each emulated device (QEMU start-up, file transfer through
semihosting or qemu-user, and the emulated verification), median of N runs
per bundle; and the runners' sizes.

    bench/device_bench.py ETINSPECT [--runs N]

Run from a build whose runners were built (beside ETINSPECT). Only the
Python standard library is used.
"""
import argparse
import os
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLES = [
    ("corpus add_mul_int (10 cases)", os.path.join(ROOT, "..", "shared", "corpus", "upstream", "bundled", "add_mul_int.bpte"), []),
    ("tutorial_cnn (3 cases)", os.path.join(ROOT, "samples", "tutorial_cnn", "tutorial_cnn.bpte"), []),
    ("mobilenet_v2 (3 cases)", os.path.join(ROOT, "samples", "mobilenet_v2", "mobilenet_v2.bpte"), []),
    ("nano_gpt (3 cases)", os.path.join(ROOT, "samples", "nano_gpt", "nano_gpt.bpte"), ["--atol", "1e-6"]),
]
TARGETS = [("host", []), ("qemu-cortex-m", ["--device", "qemu-cortex-m"]), ("qemu-aarch64", ["--device", "qemu-aarch64"])]


def median_seconds(command, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(command)} exited {result.returncode}: {result.stderr}")
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("etinspect")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"verify wall time, median of {args.runs} runs (s)")
    print(f"{'bundle':32} " + " ".join(f"{name:>14}" for name, _ in TARGETS))
    for label, bundle, extra in BUNDLES:
        cells = [median_seconds([args.etinspect, "verify", *flags, *extra, bundle], args.runs) for _, flags in TARGETS]
        print(f"{label:32} " + " ".join(f"{c:14.3f}" for c in cells))
    folder = os.path.dirname(os.path.abspath(args.etinspect))
    for runner in ("etkit-runner-cortex-m55.elf", "etkit-runner-aarch64"):
        path = os.path.join(folder, runner)
        if os.path.exists(path):
            print(f"{runner}: {os.path.getsize(path)} bytes on disk")


if __name__ == "__main__":
    main()
