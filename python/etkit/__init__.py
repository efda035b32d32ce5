"""etkit: ExecuTorch's Inspector, runtime and bundled-program verifier in
Python, without PyTorch.

The names follow upstream's ``executorch.devtools.Inspector`` where it has
one (see the README's "Python API" for the two side by side); what upstream's
Python lacks (running programs on numpy arrays, verifying bundles, memory
plans, sizes) comes from etkit's C++ library, the same code as ``etinspect``.

Run a program on numpy arrays, verify its bundle, and read a trace as
upstream's Inspector does (``samples`` is the repository's samples folder;
the test suite runs these examples)::

    >>> import numpy as np
    >>> import etkit
    >>> with etkit.Program(f"{samples}/mobilenet_v2/mobilenet_v2.pte") as program:
    ...     method = program.method()
    >>> method.inputs[0]
    InputSpec(dtype='float32', sizes=[1, 3, 128, 128])
    >>> x = np.zeros(method.inputs[0].sizes, np.float32)
    >>> method.run([x], etdump=f"{scratch}/mnv2.etdp")[0].shape
    (1, 100)
    >>> etkit.verify(f"{samples}/mobilenet_v2/mobilenet_v2.bpte", atol=1e-6)["summary"]["failed"]
    0
    >>> with etkit.Inspector(etdump_path=f"{scratch}/mnv2.etdp",
    ...                      etrecord=f"{samples}/mobilenet_v2/mobilenet_v2.etrecord") as inspector:
    ...     frame = inspector.to_dataframe()
    >>> frame.loc[frame["event_name"] == "Method::execute", "event_block_name"].tolist()
    ['Execute']
"""

from ._etkit import Error, InputError, InputSpec, Method, Program, __version__
from .dtypes import bfloat16_to_float32, float32_to_bfloat16, is_bfloat16
from .inspector import Event, EventBlock, Inspector, PerfData, TimeScale, compare_results
from .numerical_comparator import (
    L1Comparator,
    MSEComparator,
    NumericalComparatorBase,
    SNRComparator,
    distances,
)
from .reports import (
    DiffProgramReport,
    FileInfo,
    MemoryPlanReport,
    MemoryTraceReport,
    SizeReport,
    VerifyReport,
    diff_program,
    info,
    memory,
    size,
    verify,
)

__all__ = [
    "DiffProgramReport",
    "Error",
    "InputError",
    "FileInfo",
    "MemoryPlanReport",
    "MemoryTraceReport",
    "SizeReport",
    "VerifyReport",
    "Event",
    "EventBlock",
    "InputSpec",
    "Inspector",
    "L1Comparator",
    "Method",
    "MSEComparator",
    "NumericalComparatorBase",
    "PerfData",
    "Program",
    "SNRComparator",
    "TimeScale",
    "distances",
    "bfloat16_to_float32",
    "compare_results",
    "diff_program",
    "float32_to_bfloat16",
    "info",
    "is_bfloat16",
    "memory",
    "size",
    "verify",
]
