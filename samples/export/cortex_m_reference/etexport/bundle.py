"""Writes a .bpte (BP08): the program plus test cases whose expected outputs
come from the PyTorch module in eager mode, compiled by flatc."""
import torch

from .emit import SCALAR_TYPES
from .program import SCHEMAS, compile_json, tensor_bytes


def _tensor(t):
    t = t.detach().contiguous()
    return {"val_type": "Tensor", "val": {
        "scalar_type": SCALAR_TYPES[t.dtype], "sizes": list(t.shape),
        "dim_order": list(range(t.dim())), "data": list(tensor_bytes(t))}}


def write_bundle(program_bytes, method, cases, flatc="flatc"):
    """cases: [(inputs tuple, outputs tuple)]."""
    test_cases = [{"inputs": [_tensor(t) for t in inputs],
                   "expected_outputs": [_tensor(t) for t in outputs]}
                  for inputs, outputs in cases]
    document = {"version": 2,
                "method_test_suites": [{"method_name": method, "test_cases": test_cases}],
                "program": list(program_bytes)}
    return compile_json(SCHEMAS["bundled"], document, flatc)


def eager_outputs(model, inputs):
    with torch.no_grad():
        out = model(*inputs)
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)
