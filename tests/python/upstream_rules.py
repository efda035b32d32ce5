"""A fallback, named so: upstream's Inspector rules written out from its
documented behaviour (devtools/inspector at pytorch/executorch
cff6f4dd32e630945b7188512c1f2b4f102b05ad), over files decoded without
etkit: traces through Debian's flatc (JSON), ETRecords through zipfile and
json.

The real code is the oracle where it can run: tests/upstream/test_traces.py
compares etkit.Inspector's dataframe with upstream's Inspector cell for cell
on upstream's traces and on etkit's. This module keeps the Python module's
own tests (python_module_tests, Debian's Python, which cannot import the
wheel: it needs numpy 2) checking against something other than etkit for
what that comparison does not reach: find_total_for_module's matching and
the numeric-gap metrics.
"""

import json
import os
import subprocess
import tempfile
import zipfile

import numpy as np

STAT_NAMES = ["p10", "p50", "p90", "avg", "min", "max"]
COLUMNS = ["event_block_name", "event_name", "raw"] + STAT_NAMES + [
    "op_types", "delegate_debug_identifier", "stack_traces", "module_hierarchy", "is_delegated_op",
    "delegate_backend_name", "debug_data", "start_time"]
RESERVED_FRAMEWORK_EVENT_NAMES = ("Method::init", "Program::load_method", "Method::execute")
NS_PER = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}


def trace_json(flatc, schema, path, include_dir):
    """The ETDump at `path` as JSON, decoded by flatc (size-prefixed)."""
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([flatc, "--json", "--strict-json", "--raw-binary", "--size-prefixed", "--defaults-json",
                        "-I", include_dir, "-o", out, schema, "--", path], check=True, capture_output=True)
        name = os.path.splitext(os.path.basename(path))[0] + ".json"
        with open(os.path.join(out, name), encoding="utf-8") as f:
            return json.load(f)


def _signature(event):
    profile = event["profile_event"]
    delegate = profile.get("delegate_debug_id_int", -1)
    delegate = None if delegate == -1 else delegate
    if delegate is None and profile.get("delegate_debug_id_str"):
        delegate = profile["delegate_debug_id_str"]
    return (profile.get("name", ""), profile.get("instruction_id", -1), profile.get("chain_index", 0), delegate)


def expected_rows(trace, target_unit="ms"):
    """Upstream's to_dataframe rows (no ETRecord, no debug buffer) for a
    trace of profile events: run blocks with the same name and event
    signatures merge, each event's durations over the runs."""
    blocks = []  # (name, signatures, [runs of [(start, end)]])
    for run in trace["run_data"]:
        events = [e for e in run.get("events", []) if e.get("profile_event")]
        signatures = [_signature(e) for e in events]
        key = (run.get("name", ""), tuple(signatures), run.get("bundled_input_index", -1))
        times = [(int(e["profile_event"]["start_time"]), int(e["profile_event"]["end_time"])) for e in events]
        for block in blocks:
            if block[0] == key:
                block[1].append(times)
                break
        else:
            blocks.append((key, [times]))
    rows = []
    for (name, signatures, _bundled), runs in blocks:
        for i, (event_name, _instruction, _chain, delegate) in enumerate(signatures):
            # The Inspector converts delegated events' times with the same
            # factor (its default delegate_time_scale_converter).
            durations = [float(end - start) / NS_PER[target_unit] for start, end in (run[i] for run in runs)]
            row = {
                "event_block_name": name,
                "event_name": event_name if delegate is None else str(delegate),
                "raw": durations,
                "p10": np.percentile(durations, 10), "p50": np.percentile(durations, 50),
                "p90": np.percentile(durations, 90), "avg": np.mean(durations),
                "min": min(durations), "max": max(durations),
                "op_types": [], "delegate_debug_identifier": delegate, "stack_traces": {}, "module_hierarchy": {},
                "is_delegated_op": delegate is not None, "delegate_backend_name": None, "debug_data": [],
                "start_time": [run[i][0] for run in runs],
            }
            rows.append(row)
    return rows


def etrecord_module_keys(path, method="forward"):
    """{instruction id: [module stack keys of each node]} from an ETRecord:
    its debug_handle_map, and nn_module_stack ("key,path,type;…") of the
    edge program's nodes by debug handle."""
    with zipfile.ZipFile(path) as z:
        handle_map = json.loads(z.read("debug_handle_map"))[method]
        program = json.loads(z.read("edge_dialect_exported_program/" + method))
    stacks = {}
    for node in program["graph_module"]["graph"]["nodes"]:
        metadata = node.get("metadata", {})
        if "debug_handle" not in metadata:
            continue
        frames = [f for f in metadata.get("nn_module_stack", "").split(";") if f]
        stacks.setdefault(int(metadata["debug_handle"]), []).append([f.split(",")[0] for f in frames])
    by_instruction = {}
    for instruction, handles in handle_map.items():
        keys = []
        for handle in handles if isinstance(handles, list) else [handles]:  # upstream writes one as a bare int
            keys.extend(stacks.get(int(handle), []))
        by_instruction[int(instruction)] = keys
    return by_instruction


def find_total_for_module(trace, record_keys, module_name, target_unit="ms"):
    """Upstream's rule: every non-OPERATOR_CALL event of every block whose
    nodes have a module stack key containing `module_name` adds its average
    duration (once per event, however many of its nodes match)."""
    total = 0.0
    for row, instruction in zip(expected_rows(trace, target_unit), _instructions(trace)):
        # Framework events are never linked to graph nodes.
        if row["event_name"] in ("OPERATOR_CALL", *RESERVED_FRAMEWORK_EVENT_NAMES) or instruction is None:
            continue
        for keys in record_keys.get(instruction, []):
            if keys and any(module_name in key for key in keys):
                total += row["avg"]
                break
    return total


def _instructions(trace):
    """Instruction id of each expected row, in expected_rows' order."""
    seen = []
    out = []
    for run in trace["run_data"]:
        events = [e for e in run.get("events", []) if e.get("profile_event")]
        key = (run.get("name", ""), tuple(_signature(e) for e in events), run.get("bundled_input_index", -1))
        if key in seen:
            continue
        seen.append(key)
        for e in events:
            instruction = e["profile_event"].get("instruction_id", -1)
            out.append(instruction if instruction >= 0 else None)
    return out
