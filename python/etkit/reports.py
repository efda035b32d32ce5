"""Reports that etinspect prints with --json, as Python objects: the CLI's
subcommand runs in this process, so the report is the CLI's own, key for
key. Errors raise etkit.Error with the message the CLI prints; warnings go
to Python's warnings module."""

import json
import warnings

from ._etkit import Error, _cli

_PREFIX = "etinspect: "


def _run(args, ok_codes=(0,)):
    code, out, err = _cli([str(a) for a in args])
    errors = []
    for line in err.splitlines():
        if not line.startswith(_PREFIX):
            continue
        body = line[len(_PREFIX):]
        if body.startswith("error: "):
            errors.append(body[len("error: "):])
        elif body.startswith("warning: "):
            warnings.warn(body[len("warning: "):], stacklevel=3)
    if code not in ok_codes:
        raise Error("; ".join(errors) or f"etinspect {args[0]} failed (exit code {code})")
    return json.loads(out)


def verify(bpte, rtol=1e-5, atol=1e-8, method=None, data=()):
    """Runs every test case of a bundled program and compares the outputs
    (upstream's allclose defaults). Returns ``verify --json``'s report; a
    failing case is reported, not raised (its ``summary`` says so)."""
    args = ["verify", bpte, "--json", "--rtol", repr(float(rtol)), "--atol", repr(float(atol))]
    if method:
        args += ["--method", method]
    for d in data:
        args += ["--data", d]
    return _run(args, ok_codes=(0, 1))


def memory(program, method=None):
    """The planned memory of a program's methods (``memory --json``); a
    trace gives its allocation events instead."""
    args = ["memory", program, "--json"]
    if method:
        args += ["--method", method]
    return _run(args, ok_codes=(0, 1))


def size(program, etrecord=None):
    """Every byte of a .pte/.bpte/.ptd attributed (``size --json``)."""
    args = ["size", program, "--json"]
    if etrecord:
        args += ["--etrecord", etrecord]
    return _run(args)


def diff_program(old, new):
    """What changed between two programs and what it cost (``diff-program --json``)."""
    return _run(["diff-program", old, new, "--json"])


def info(path):
    """What a file is and holds (``info --json``)."""
    return _run(["info", path, "--json"])
