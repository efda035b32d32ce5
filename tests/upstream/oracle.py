"""Upstream's own tools as the oracle of etkit's tests.

Runs in the pinned upstream environment (scripts/upstream-python: executorch
1.5.1 and its torch), never in etkit's: upstream's runtime (the wheel's
pybindings, with its portable, optimized, quantized and LLM kernels and
XNNPACK), its bundled-program reader and its Inspector on one side; etkit's
`etinspect` (path in ETKIT_ETINSPECT) as a user runs it on the other.
"""

import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import torch

from executorch.extension.pybindings import portable_lib as runtime
import executorch.kernels.quantized  # noqa: F401  registers quantized_decomposed kernels
import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  registers llama:: kernels
from executorch.devtools.bundled_program.serialize import deserialize_from_flatbuffer_to_bundled_program

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("ETKIT_CORPUS_DIR", REPO.parent / "shared" / "corpus"))
ETINSPECT = os.environ.get("ETKIT_ETINSPECT", str(REPO / "build" / "cli" / "etinspect"))

# ExecuTorch's ScalarType numbering (shared by its schemas and etkit's).
_DTYPES = {0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64,
           5: torch.float16, 6: torch.float32, 7: torch.float64, 11: torch.bool, 15: torch.bfloat16}


def tensor_of(value):
    """A bundled Value (upstream's schema dataclass) as a torch tensor or Python scalar."""
    val = value.val
    if hasattr(val, "scalar_type"):
        dtype = _DTYPES[int(val.scalar_type.value if hasattr(val.scalar_type, "value") else val.scalar_type)]
        flat = torch.frombuffer(bytearray(val.data), dtype=dtype) if len(val.data) else torch.empty(0, dtype=dtype)
        return flat.reshape(list(val.sizes)).clone()
    for field in ("int_val", "float_val", "bool_val"):
        if hasattr(val, field):
            return getattr(val, field)
    raise TypeError(f"bundled value {type(val).__name__} is not a tensor or scalar")


def bundle_cases(bpte):
    """Every (method, case index, inputs, expected outputs) of a .bpte, read by upstream's reader."""
    bundle = deserialize_from_flatbuffer_to_bundled_program(Path(bpte).read_bytes())
    for suite in bundle.method_test_suites:
        for index, case in enumerate(suite.test_cases):
            yield (suite.method_name, index, [tensor_of(v) for v in case.inputs],
                   [tensor_of(v) for v in case.expected_outputs])


def bundle_program_bytes(bpte):
    return bytes(deserialize_from_flatbuffer_to_bundled_program(Path(bpte).read_bytes()).program)


def upstream_verdicts(bpte, rtol, atol):
    """Upstream's BundledModule verdict per (method, case): True for a pass."""
    bundle = Path(bpte).read_bytes()  # upstream's module borrows these bytes: they must outlive it
    module = runtime._load_bundled_program_from_buffer(bundle)
    verdicts = {}
    for method, index, _, _ in bundle_cases(bpte):
        try:
            module.verify_result_with_bundled_expected_output(method, index, rtol, atol)
            verdicts[(method, index)] = True
        except RuntimeError:
            verdicts[(method, index)] = False
    return verdicts


def run_upstream(program_bytes, inputs, method="forward", data_files=()):
    """Outputs of one execution on upstream's runtime, as numpy arrays."""
    if data_files:
        raise NotImplementedError("external data files: not needed by the programs tested yet")
    module = runtime._load_for_executorch_from_buffer(program_bytes)
    outputs = module.run_method(method, tuple(inputs))
    return [(o.float() if o.dtype == torch.bfloat16 else o).numpy() if isinstance(o, torch.Tensor) else np.asarray(o)
            for o in outputs]


def etinspect(*args, check=True):
    """Runs etinspect; returns the completed process (text)."""
    done = subprocess.run([ETINSPECT, *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"etinspect {' '.join(map(str, args))} exited {done.returncode}:\n{done.stderr}")
    return done


def save_npy(folder, tensors):
    paths = []
    for i, t in enumerate(tensors):
        path = Path(folder) / f"input_{i}.npy"
        array = t.view(torch.uint16).numpy() if t.dtype == torch.bfloat16 else t.numpy()
        np.save(path, array)
        paths.append(path)
    return paths


def run_etkit(program_path, inputs, method="forward"):
    """Outputs of one execution on etkit (etinspect run), as numpy arrays."""
    with tempfile.TemporaryDirectory() as folder:
        args = ["run", program_path, "--method", method, "--output-dir", folder]
        for path in save_npy(folder, inputs):
            args += ["--input", path]
        etinspect(*args)
        outputs = sorted(Path(folder).glob("output_*.npy"), key=lambda p: int(p.stem.split("_")[1]))
        return [np.load(p) for p in outputs]


def etkit_verdicts(bpte, rtol, atol):
    """etkit's verify verdict per (method, case)."""
    with tempfile.TemporaryDirectory() as folder:
        report_path = Path(folder) / "verify.json"
        done = etinspect("verify", bpte, "--rtol", rtol, "--atol", atol, "--json-file", report_path, check=False)
        if done.returncode not in (0, 1):
            raise AssertionError(f"etinspect verify {bpte} exited {done.returncode}:\n{done.stderr}")
        report = json.loads(report_path.read_text())
    return {(c["method"], c["case"]): c["status"] == "pass" for c in report["cases"]}
