"""Reports that etinspect prints with --json, as Python objects: the same
report structs of etkit's session library, written by the same printer, so
each is `etinspect <command> --json`'s document, key for key. Errors raise
etkit.Error; warnings go to Python's warnings module."""

import json
import os
import warnings

from . import _etkit


def _report(call, *args):
    document, said = call(*args)
    for warning in said:
        warnings.warn(warning, stacklevel=3)
    return json.loads(document)


def verify(bpte, rtol=1e-5, atol=1e-8, method=None, data=()):
    """Runs every test case of a bundled program and compares the outputs
    (upstream's allclose defaults). Returns ``verify --json``'s report; a
    failing case is reported, not raised (its ``summary`` says so)."""
    return _report(_etkit._verify, os.fspath(bpte), float(rtol), float(atol), method or "",
                   [os.fspath(d) for d in data])


def memory(program, method=None):
    """The planned memory of a program's methods (``memory --json``); a
    trace gives its allocation events instead."""
    return _report(_etkit._memory, os.fspath(program), method or "")


def size(program, etrecord=None):
    """Every byte of a .pte/.bpte/.ptd attributed (``size --json``)."""
    return _report(_etkit._size, os.fspath(program), os.fspath(etrecord) if etrecord else "")


def diff_program(old, new):
    """What changed between two programs and what it cost (``diff-program --json``)."""
    return _report(_etkit._diff_program, os.fspath(old), os.fspath(new))


def info(path):
    """What a file is and holds (``info --json``)."""
    return _report(_etkit._info, os.fspath(path))
