"""Traces both ways, read by upstream's real code.

- Upstream's runtime traces every portable sample (ETDump and a debug buffer
  with intermediate outputs); `etinspect table` of each equals upstream's
  Inspector.to_dataframe() row for row (block, event, every statistic, to
  the microsecond the trace's tick conversion gives), and `etinspect gap`
  reads its debug buffer against etkit's own trace of the same inputs.
- Upstream's Inspector reads every trace etkit writes, with its debug buffer,
  and finds the events etkit's table shows.
- A trace made by upstream's serializer and saved with the runtime's 4-byte
  size prefix (every 8-byte field at 4 mod 8 in the file) reads in both.
"""

import json
import os
import struct
import subprocess
import tempfile
import unittest
from pathlib import Path

from executorch.devtools import Inspector
from executorch.devtools.etdump.serialize import deserialize_from_etdump_flatcc, serialize_to_etdump_flatcc

import oracle

# Portable float samples (the delegated and quantized ones have their own
# event names per backend; they are compared in table terms below too).
TRACED = ["tutorial_cnn", "mobilenet_v2", "deeplab_head", "nano_gpt", "resnet18"]
RUNS = 3
STATISTICS = ["p10", "p50", "p90", "avg", "min", "max"]


def first_case_inputs(name):
    bpte = oracle.REPO / "samples" / name / f"{name}.bpte"
    return next(iter(oracle.bundle_cases(bpte)))[2]


def upstream_trace(name, folder, with_values=False):
    """Traces executions of sample `name` on upstream's runtime: RUNS of them,
    or with intermediate outputs one (upstream's runtime aborts when they
    overflow its debug buffer, so the buffer is sized for one run)."""
    pte = oracle.REPO / "samples" / name / f"{name}.pte"
    module = oracle.runtime._load_for_executorch(str(pte), enable_etdump=True,
                                                 debug_buffer_size=(128 << 20) if with_values else 0)
    inputs = tuple(first_case_inputs(name))
    for _ in range(1 if with_values else RUNS):
        module.run_method("forward", inputs)
    trace, buffer = Path(folder) / f"{name}.upstream.etdp", Path(folder) / f"{name}.upstream.bin"
    module.write_etdump_result_to_file(str(trace), str(buffer))
    return trace, buffer


def etkit_trace(name, folder, with_values=True):
    """Traces RUNS executions of sample `name` with etinspect run."""
    pte = oracle.REPO / "samples" / name / f"{name}.pte"
    trace, buffer = Path(folder) / f"{name}.etkit.etdp", Path(folder) / f"{name}.etkit.bin"
    args = ["run", pte, "--iterations", RUNS, "--etdump", trace]
    if with_values:
        args += ["--debug-level", "intermediates", "--debug-buffer", buffer]
    for path in oracle.save_npy(folder, first_case_inputs(name)):
        args += ["--input", path]
    oracle.etinspect(*args)
    return trace, buffer if with_values else None


def etkit_table(trace, *extra):
    return json.loads(oracle.etinspect("table", trace, "--format", "json", "--include-operator-call", *extra).stdout)


def upstream_rows(trace, buffer=None):
    frame = Inspector(etdump_path=str(trace), debug_buffer_path=str(buffer) if buffer else None).to_dataframe()
    return frame.to_dict("records")


def row_keys(rows, upstream):
    """(block, name) per row. Upstream's Inspector names a delegated event by
    its delegate debug id; etkit's table names it as XNNPACK does
    ("Convolution (NHWC, F32) IGEMM #1") and keeps the id in its own column."""
    if upstream:
        return [(r["event_block_name"], r["event_name"]) for r in rows]
    return [(r["event_block_name"], str(r["delegate_debug_identifier"]) if r["is_delegated_op"] else r["event_name"])
            for r in rows]


class UpstreamTracesInEtkit(unittest.TestCase):
    def test_table_equals_upstreams_inspector_on_upstream_traces(self):
        with tempfile.TemporaryDirectory() as folder:
            for name in TRACED:
                with self.subTest(sample=name):
                    trace, _ = upstream_trace(name, folder)
                    ours, theirs = etkit_table(trace), upstream_rows(trace)
                    self.assertEqual(row_keys(ours, False), row_keys(theirs, True))
                    for mine, upstream in zip(ours, theirs):
                        self.assertEqual(len(mine["raw"]), len(upstream["raw"]), mine["event_name"])
                        for a, b in zip(mine["raw"], upstream["raw"]):
                            self.assertAlmostEqual(a, b, delta=1e-6, msg=mine["event_name"])
                        for stat in STATISTICS:
                            self.assertAlmostEqual(mine[stat], upstream[f"{stat} (ms)"], delta=1e-6,
                                                   msg=f"{mine['event_name']} {stat}")

    def test_gap_reads_upstreams_debug_buffer(self):
        with tempfile.TemporaryDirectory() as folder:
            for name in ["tutorial_cnn", "mobilenet_v2"]:
                with self.subTest(sample=name):
                    trace, buffer = upstream_trace(name, folder, with_values=True)
                    reference, reference_buffer = etkit_trace(name, folder)
                    done = oracle.etinspect("gap", trace, "--debug-buffer", buffer, "--reference", reference,
                                            "--reference-debug-buffer", reference_buffer, "--json", check=False)
                    self.assertEqual(done.returncode, 0, done.stderr)
                    report = json.loads(done.stdout)
                    self.assertGreater(report["compared"], 0)

    def test_serializer_output_saved_with_a_size_prefix_reads_in_both(self):
        with tempfile.TemporaryDirectory() as folder:
            trace, _ = upstream_trace("tutorial_cnn", folder)
            body = serialize_to_etdump_flatcc(deserialize_from_etdump_flatcc(trace.read_bytes()))
            prefixed = Path(folder) / "prefixed.etdp"
            prefixed.write_bytes(struct.pack("<I", len(body)) + body)  # the flatbuffer aligned from byte 4
            theirs = upstream_rows(prefixed)
            ours = etkit_table(prefixed)
            self.assertEqual(row_keys(ours, False), row_keys(theirs, True))


# Upstream's Inspector cannot read bfloat16 intermediate outputs ("Unsupported
# scalar type in get_scalar_type_size : 15", its own limitation): those
# samples' traces are read without their debug buffer.
NO_VALUES_FOR_UPSTREAM = {"nano_gpt_bf16"}


def etkit_python_rows(trace):
    """etkit.Inspector's dataframe of `trace`, from etkit's own interpreter
    (ETKIT_PYTHON and ETKIT_PYTHON_ENV, set by the test suite)."""
    env = dict(os.environ)
    for item in filter(None, os.environ.get("ETKIT_PYTHON_ENV", "").split("|")):
        key, _, value = item.partition("=")
        env[key] = value
    done = subprocess.run([os.environ.get("ETKIT_PYTHON", "/usr/bin/python3"), str(Path(__file__).with_name(
        "etkit_dataframe.py")), str(trace)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise AssertionError(f"etkit's dataframe of {trace}: {done.stderr}")
    return json.loads(done.stdout)


class EtkitDataframeEqualsUpstreams(unittest.TestCase):
    """etkit.Inspector.to_dataframe() equals upstream's, cell for cell (the
    debug_data tensors aside), on an upstream trace and on an etkit trace."""

    @unittest.skipUnless(os.environ.get("ETKIT_PYTHON_ENV") is not None, "etkit's Python module is not built")
    def test_cell_for_cell_on_both_kinds_of_trace(self):
        with tempfile.TemporaryDirectory() as folder:
            for kind, (trace, _) in [("upstream", upstream_trace("tutorial_cnn", folder)),
                                     ("etkit", etkit_trace("tutorial_cnn", folder, with_values=False))]:
                with self.subTest(trace=kind):
                    theirs = Inspector(etdump_path=str(trace)).to_dataframe()
                    ours = etkit_python_rows(trace)
                    self.assertEqual(ours["columns"], list(theirs.columns))
                    upstream_records = theirs.drop(columns=["debug_data"]).to_dict("records")
                    self.assertEqual(len(ours["records"]), len(upstream_records))
                    for mine, upstream in zip(ours["records"], upstream_records):
                        for column, value in upstream.items():
                            if isinstance(value, float):
                                self.assertAlmostEqual(mine[column], value, delta=1e-9, msg=column)
                            elif isinstance(value, list) and value and isinstance(value[0], float):
                                self.assertEqual(len(mine[column]), len(value), column)
                                for a, b in zip(mine[column], value):
                                    self.assertAlmostEqual(a, b, delta=1e-9, msg=column)
                            else:
                                self.assertEqual(json.loads(json.dumps(mine[column], default=str)),
                                                 json.loads(json.dumps(value, default=str)), column)


class EtkitTracesInUpstream(unittest.TestCase):
    def test_upstreams_inspector_reads_every_etkit_trace(self):
        names = sorted(p.parent.name for p in (oracle.REPO / "samples").glob("*/*.bpte") if p.parent.name != "tiny")
        with tempfile.TemporaryDirectory() as folder:
            for name in names:
                with self.subTest(sample=name):
                    trace, buffer = etkit_trace(name, folder, with_values=name not in NO_VALUES_FOR_UPSTREAM)
                    theirs = upstream_rows(trace, buffer)
                    ours = etkit_table(trace)
                    self.assertEqual(row_keys(ours, False), row_keys(theirs, True))


if __name__ == "__main__":
    unittest.main(verbosity=2)
