"""Upstream's runtime (the pinned executorch wheel's Python bindings) behind
etkit's runner contract, so `etinspect verify --device upstream-host` (or
`--runner scripts/upstream-runner`) asks "does upstream's runtime agree?":

    runner run PROGRAM.pte --method NAME [--input X.npy]... --output-dir DIR
               [--data FILE.ptd] [--etdump TRACE.etdp [--debug-buffer BUF.bin]]

Reads each input .npy (0-d arrays are scalars), runs the method once, writes
DIR/output_<i>.npy and, when asked, upstream's ETDump (and its debug buffer).
Exit 0 on success; 2 with the reason on stderr otherwise.
"""

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

from executorch.extension.pybindings import portable_lib as runtime
import executorch.kernels.quantized  # noqa: F401  registers quantized_decomposed kernels
import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  registers llama:: kernels


def parse(argv):
    parser = argparse.ArgumentParser(prog="upstream-runner")
    parser.add_argument("command", choices=["run"])
    parser.add_argument("program")
    parser.add_argument("--method", default="forward")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--output-dir", required=True)
    parser.add_argument("--data", action="append", default=[])
    parser.add_argument("--etdump")
    parser.add_argument("--debug-buffer")
    return parser.parse_args(argv)


def as_input(path):
    array = np.load(path)
    if array.ndim == 0:
        return array.item()  # a scalar argument
    return torch.from_numpy(np.ascontiguousarray(array))


def as_array(value):
    if isinstance(value, torch.Tensor):
        return (value.float() if value.dtype == torch.bfloat16 else value).numpy()
    return np.asarray(value)


def main(argv):
    args = parse(argv)
    if len(args.data) > 1:
        print("upstream-runner: upstream's Python runtime takes one .ptd file", file=sys.stderr)
        return 2
    module = runtime._load_for_executorch(
        args.program, data_path=args.data[0] if args.data else None, enable_etdump=bool(args.etdump),
        debug_buffer_size=(64 << 20) if args.debug_buffer else 0)
    outputs = module.run_method(args.method, tuple(as_input(p) for p in args.input))
    for i, value in enumerate(outputs):
        np.save(Path(args.output_dir) / f"output_{i}.npy", as_array(value))
    if args.etdump:
        module.write_etdump_result_to_file(args.etdump, args.debug_buffer)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as error:  # the runtime's own message, one line, for etinspect's error
        print(f"upstream-runner: {type(error).__name__}: {error}".replace("\n", " "), file=sys.stderr)
        sys.exit(2)
