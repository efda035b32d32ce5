"""etkit: ExecuTorch's Inspector, runtime and bundled-program verifier in
Python, without PyTorch.

The names follow upstream's ``executorch.devtools.Inspector`` where it has
one (see the README's "Python API" for the two side by side); what upstream's
Python lacks (running programs on numpy arrays, verifying bundles, memory
plans, sizes) comes from etkit's C++ library, the same code as ``etinspect``.
"""

from ._etkit import Error, InputSpec, Method, Program, __version__
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
