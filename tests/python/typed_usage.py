"""Uses of etkit's API as a typed program would write them: type_check_test.py
runs mypy over it (with the package's stubs), so a stub that drifts from the
API breaks here. Not run."""
import numpy as np

import etkit


def run_sample(path: str) -> float:
    with etkit.Program(path, data=[]) as program:
        method = program.method("forward")
        spec: etkit.InputSpec = method.inputs[0]
        assert spec.sizes is not None
        outputs = method.run([np.zeros(spec.sizes, np.float32)], etdump=None, bfloat16="bits")
    first = outputs[0]
    assert isinstance(first, np.ndarray)
    return float(first.sum())


def verify_sample(path: str) -> int:
    report: etkit.VerifyReport = etkit.verify(path, atol=1e-6)
    return len(report["cases"]) + int(report["atol"] > 0)


def size_of(path: str) -> int:
    return etkit.size(path)["file_bytes"]


def inspect_trace(path: str) -> float:
    with etkit.Inspector(etdump_path=path, delegate_time_scale_converter=lambda name, t: t) as inspector:
        frame = inspector.to_dataframe()
        del frame
        return inspector.find_total_for_module("layer1") + sum(
            len(events) for events in inspector.get_op_list("Execute").values())
