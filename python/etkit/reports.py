"""Reports that etinspect prints with --json, as Python objects: the same
report structs of etkit's session library, written by the same printer, so
each is `etinspect <command> --json`'s document, key for key. Errors raise
etkit.Error; warnings go to Python's warnings module."""

import json
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence, TypedDict, Union

try:
    from typing import NotRequired
except ImportError:  # Python < 3.11
    from typing_extensions import NotRequired

from . import _etkit

_Path = Union[str, "os.PathLike[str]"]


# The reports' top-level keys, as docs/schemas/*.schema.json give them
# (tests/python/type_check_test.py holds the two together).
class VerifyReport(TypedDict):
    """``verify --json`` of one bundle."""

    file: str
    ran_on: NotRequired[str]
    rtol: float
    atol: float
    error: NotRequired[str]
    summary: Dict[str, Any]
    cases: List[Dict[str, Any]]


class MemoryPlanReport(TypedDict):
    """``memory --json`` of a program: its methods' planned arenas and tensors."""

    program: str
    methods: List[Dict[str, Any]]


class MemoryTraceReport(TypedDict):
    """``memory --json`` of a trace: its allocators' events."""

    trace: str
    allocators: List[Dict[str, Any]]


class SizeReport(TypedDict):
    """``size --json``: every byte of the file attributed."""

    file: str
    file_bytes: int
    parts: List[Dict[str, Any]]
    largest: NotRequired[List[Dict[str, Any]]]


class DiffProgramReport(TypedDict):
    """``diff-program --json``."""

    old: str
    new: str
    old_file_bytes: int
    new_file_bytes: int
    methods: List[Dict[str, Any]]
    methods_added: List[str]
    methods_removed: List[str]
    constants: List[Dict[str, Any]]
    constants_unchanged: int
    sizes: List[Dict[str, Any]]
    file_change: int


class FileInfo(TypedDict):
    """One file of ``info --json`` (the fields after ``kind`` depend on it)."""

    path: str
    size: int
    kind: NotRequired[str]
    error: NotRequired[str]
    error_kind: NotRequired[str]


def _report(call, *args):
    document, said = call(*args)
    for warning in said:
        warnings.warn(warning, stacklevel=3)
    return json.loads(document)


def verify(bpte: _Path, rtol: float = 1e-5, atol: float = 1e-8, method: Optional[str] = None,
           data: Sequence[_Path] = ()) -> VerifyReport:
    """Runs every test case of a bundled program and compares the outputs
    (upstream's allclose defaults). Returns ``verify --json``'s report; a
    failing case is reported, not raised (its ``summary`` says so)."""
    return _report(_etkit._verify, os.fspath(bpte), float(rtol), float(atol), method or "",
                   [os.fspath(d) for d in data])


def memory(program: _Path, method: Optional[str] = None) -> Union[MemoryPlanReport, MemoryTraceReport]:
    """The planned memory of a program's methods (``memory --json``); a
    trace gives its allocation events instead."""
    return _report(_etkit._memory, os.fspath(program), method or "")


def size(program: _Path, etrecord: Optional[_Path] = None) -> SizeReport:
    """Every byte of a .pte/.bpte/.ptd attributed (``size --json``)."""
    return _report(_etkit._size, os.fspath(program), os.fspath(etrecord) if etrecord else "")


def diff_program(old: _Path, new: _Path) -> DiffProgramReport:
    """What changed between two programs and what it cost (``diff-program --json``)."""
    return _report(_etkit._diff_program, os.fspath(old), os.fspath(new))


def info(path: _Path) -> List[FileInfo]:
    """What a file is and holds (``info --json``)."""
    return _report(_etkit._info, os.fspath(path))
