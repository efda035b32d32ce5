"""Prints, as JSON, what etkit's Python module has of the names given as
arguments ("Inspector", "Event.asdict", ...): whether each exists, its
parameter names (positional ones, and keyword-only ones apart), a class's
dataclass fields, and for an Inspector method called on the tutorial trace
the exception it raises. With --events TRACE [ETRECORD], prints each event's
asdict() and num_outputs instead.

Runs in etkit's own interpreter (see etkit_dataframe.py for why).
"""
import dataclasses
import inspect
import json
import sys
import warnings

import etkit
import etkit.inspector as module


# Inspector methods called to see what they raise, with their arguments
# (the others print or need more than a trace).
CALLED = {"get_op_list": ["Execute"], "get_exported_program": [], "write_tensorboard_artifact": ["unused"],
          "get_vgf_neural_statistics": []}


def describe(name, trace):
    owner, _, member = name.partition(".")
    target = getattr(module, owner, None) if owner != "numerical_comparator" else getattr(etkit, owner, None)
    if target is not None and member:
        target = inspect.getattr_static(target, member, None)
    if target is None:
        return {"exists": False}
    out = {"exists": True}
    function = target.fget if isinstance(target, property) else target
    if inspect.isclass(function):
        function = function.__init__
    if callable(function):
        parameters = list(inspect.signature(function).parameters.values())[1 if member or inspect.isclass(target) else 0:]
        out["params"] = [p.name for p in parameters if p.kind != p.KEYWORD_ONLY]
        out["keyword_only"] = [p.name for p in parameters if p.kind == p.KEYWORD_ONLY]
    if inspect.isclass(target) and dataclasses.is_dataclass(target):
        out["fields"] = [f.name for f in dataclasses.fields(target)]
    if owner == "Inspector" and member in CALLED:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            inspector = etkit.Inspector(etdump_path=trace)
        try:
            getattr(inspector, member)(*CALLED[member])
            out["raises"] = None
        except Exception as error:  # noqa: BLE001  what it raises is the answer
            out["raises"] = type(error).__name__
    return out


def events(trace, record):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inspector = etkit.Inspector(etdump_path=trace, etrecord=record)
    rows = []
    for block in inspector.event_blocks:
        for event in block.events:
            row = event.asdict()
            del row["debug_data"]
            rows.append({"block": block.name, "num_outputs": event.num_outputs, "asdict": row})
    return rows


if sys.argv[1] == "--events":
    json.dump(events(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None), sys.stdout, default=str)
else:
    trace = sys.argv[1]
    json.dump({name: describe(name, trace) for name in sys.argv[2:]}, sys.stdout)
