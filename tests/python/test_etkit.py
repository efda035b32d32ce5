"""`import etkit`: every public function against independent truth —
upstream's Inspector rules over flatc/zipfile decodings (upstream_rules.py),
the etinspect CLI as a second path, hand-derived values, and the mutated
corpus (Python exceptions only, never a crash of the interpreter).

Run by ctest with PYTHONPATH at the build tree's python/ folder and
ETINSPECT, ETKIT_FLATC, ETKIT_SOURCE_DIR and ETKIT_CORPUS_DIR set.
"""

import contextlib
import csv
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np

import etkit
import upstream_rules

SOURCE = os.environ["ETKIT_SOURCE_DIR"]
CORPUS = os.environ["ETKIT_CORPUS_DIR"]
ETINSPECT = os.environ["ETINSPECT"]
FLATC = os.environ["ETKIT_FLATC"]
ETDUMP_SCHEMA = os.path.join(SOURCE, "etdump", "schema", "etdump.fbs")
MOBILENET = os.path.join(SOURCE, "samples", "mobilenet_v2")


def trace_json(path):
    return upstream_rules.trace_json(FLATC, ETDUMP_SCHEMA, path, os.path.join(SOURCE, "core", "schema"))


def corpus(relative):
    return os.path.join(CORPUS, relative)


def cli(*args, ok=(0,)):
    done = subprocess.run([ETINSPECT, *map(str, args)], capture_output=True, text=True)
    if done.returncode not in ok:
        raise AssertionError(f"etinspect {' '.join(map(str, args))}: {done.returncode}\n{done.stderr}")
    return done


def quiet_inspector(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return etkit.Inspector(**kwargs)


class Scratch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="etkit-python-test-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)


class DocstringExamples(Scratch):
    def test_the_module_docstrings_examples_run(self):
        import doctest

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the example's trace has no debug buffer: upstream's warning
            result = doctest.testmod(etkit, extraglobs={"samples": os.path.join(SOURCE, "samples"),
                                                        "scratch": self.dir}, optionflags=doctest.ELLIPSIS)
        self.assertGreater(result.attempted, 5)
        self.assertEqual(result.failed, 0)


class DataframeMatchesUpstream(unittest.TestCase):
    def check_against_upstream(self, relative):
        trace = trace_json(corpus(relative))
        expected = upstream_rules.expected_rows(trace)
        inspector = quiet_inspector(etdump_path=corpus(relative))
        frame = inspector.to_dataframe()
        names = [c + " (ms)" if c in upstream_rules.STAT_NAMES else c for c in upstream_rules.COLUMNS]
        self.assertEqual(list(frame.columns), names)
        self.assertEqual(len(frame), len(expected))
        for i, row in enumerate(expected):
            got = frame.iloc[i]
            with self.subTest(row=i, event=row["event_name"]):
                for column in upstream_rules.COLUMNS:
                    key = column + " (ms)" if column in upstream_rules.STAT_NAMES else column
                    if column in upstream_rules.STAT_NAMES:
                        self.assertAlmostEqual(got[key], row[column], delta=1e-9 * max(1.0, abs(row[column])))
                    elif column == "raw":
                        np.testing.assert_allclose(got[key], row[column], rtol=1e-12)
                    else:
                        self.assertEqual(got[key], row[column], column)
        return inspector, frame, expected

    def test_tutorial_trace_equals_upstreams_dataframe(self):
        inspector, frame, _ = self.check_against_upstream("upstream/etdump/tutorial_cnn.etdp")
        self.assertEqual(list(frame["event_block_name"].unique()), ["Default", "Execute"])
        self.assertEqual(frame["p10 (ms)"].dtype, np.float64)

    def test_repeated_runs_merge_and_delegated_events_are_named_by_id(self):
        _, frame, expected = self.check_against_upstream("upstream-runtime/xnn_mlp.etdp")
        self.assertTrue(any(r["is_delegated_op"] for r in expected))
        self.assertTrue(any(len(r["raw"]) == 3 for r in expected))

    @unittest.skipUnless(os.environ.get("ETKIT_MAKE_TRACE"), "needs bench/make_trace (ETKIT_BUILD_BENCH)")
    def test_large_frames_outlive_their_inspector_and_hold_one_sample_per_run_block(self):
        # 200 run blocks x 201 events: tens of MB of cells, so to_dataframe
        # takes many fresh arenas for them (python/src/bulk_arenas.h); they
        # must stay valid after the call and be released cleanly.
        with tempfile.TemporaryDirectory(prefix="etkit-large-frame-") as scratch:
            trace = os.path.join(scratch, "runs.etdp")
            subprocess.run([os.environ["ETKIT_MAKE_TRACE"], trace, "200", "--per-run-blocks"], check=True,
                           capture_output=True)
            first = quiet_inspector(etdump_path=trace).to_dataframe()
            second = quiet_inspector(etdump_path=trace).to_dataframe()
        self.assertEqual(len(first), 200 * 201)
        del first
        churn = [[i] for i in range(500_000)]  # reuses what the first frame freed
        del churn
        # One sample per block: every statistic is that sample, and the
        # non-empty containers are each row's own.
        self.assertEqual(second["raw"].map(len).tolist(), [1] * len(second))
        np.testing.assert_array_equal(second["raw"].map(lambda r: r[0]).to_numpy(), second["avg (ms)"].to_numpy())
        np.testing.assert_array_equal(second["min (ms)"].to_numpy(), second["max (ms)"].to_numpy())
        self.assertEqual(len({id(cell) for cell in second["raw"]}), len(second))
        second.loc[0, "raw"].append(-1.0)
        self.assertEqual(second.loc[1, "raw"], [second.loc[1, "avg (ms)"]])
        self.assertEqual(second["start_time"].map(len).tolist(), [1] * len(second))
        # Empty cells (this trace links no graph and logs no values) are one
        # shared dict or list, equal to upstream's {} and [], that refuses a
        # change instead of showing it in every row.
        for column, empty in [("op_types", []), ("debug_data", []), ("stack_traces", {}), ("module_hierarchy", {})]:
            self.assertEqual(second[column].tolist(), [empty] * len(second), column)
            self.assertIsInstance(second.loc[0, column], type(empty))
            self.assertEqual(len({id(cell) for cell in second[column]}), 1, column)
        with self.assertRaisesRegex(TypeError, "shared by every row"):
            second.loc[0, "op_types"].append("mutated")
        with self.assertRaisesRegex(TypeError, "shared by every row"):
            second.loc[0, "stack_traces"]["node"] = "trace"
        self.assertEqual(second.loc[1, "op_types"], [])
        self.assertEqual(dict(second.loc[0, "stack_traces"]) | {"node": "trace"}, {"node": "trace"})

    def test_event_blocks_carry_the_rows_values_under_upstreams_attribute_names(self):
        inspector = quiet_inspector(etdump_path=corpus("upstream-runtime/xnn_mlp.etdp"))
        frame = inspector.to_dataframe(include_units=False)
        events = [(b, e) for b in inspector.event_blocks for e in b.events]
        self.assertEqual(len(events), len(frame))
        for (block, event), (_, row) in zip(events, frame.iterrows()):
            self.assertEqual(block.name, row["event_block_name"])
            self.assertEqual(event.name, row["event_name"])
            self.assertEqual(event.perf_data.raw, row["raw"])
            self.assertAlmostEqual(event.perf_data.p90, row["p90"])
            self.assertEqual(event.delegate_debug_identifier, row["delegate_debug_identifier"])
            self.assertEqual(event.is_delegated_op, row["is_delegated_op"])
            self.assertEqual(event.start_time, row["start_time"])
        # An EventBlock's own frame: upstream's default is no units.
        block_frame = inspector.event_blocks[1].to_dataframe()
        self.assertIn("p50", block_frame.columns)
        self.assertEqual(len(block_frame), len(inspector.event_blocks[1].events))

    def test_tsv_and_table_leave_out_operator_calls_and_bulky_columns(self):
        inspector = quiet_inspector(etdump_path=corpus("upstream/etdump/tutorial_cnn.etdp"))
        out = io.StringIO()
        inspector.save_data_to_tsv(out)
        rows = list(csv.reader(io.StringIO(out.getvalue()), delimiter="\t"))
        header = rows[0]
        for dropped in ["raw", "delegate_debug_identifier", "stack_traces", "module_hierarchy", "debug_data"]:
            self.assertNotIn(dropped, header)
        self.assertEqual(header[1:3], ["event_block_name", "event_name"])
        trace = trace_json(corpus("upstream/etdump/tutorial_cnn.etdp"))
        kept = [r for r in upstream_rules.expected_rows(trace) if "OPERATOR_CALL" not in r["event_name"]]
        self.assertEqual([r[2] for r in rows[1:]], [r["event_name"] for r in kept])
        printed = io.StringIO()
        inspector.print_data_tabular(file=printed)
        self.assertIn("native_call_convolution.out", printed.getvalue())
        self.assertNotIn("OPERATOR_CALL", printed.getvalue())

    def test_etdump_data_reads_like_the_file(self):
        with open(corpus("upstream/etdump/tutorial_cnn.etdp"), "rb") as f:
            data = f.read()
        a = quiet_inspector(etdump_data=data).to_dataframe()
        b = quiet_inspector(etdump_path=corpus("upstream/etdump/tutorial_cnn.etdp")).to_dataframe()
        self.assertTrue(a.drop(columns=["raw", "start_time"]).equals(b.drop(columns=["raw", "start_time"])))

    def test_units_follow_the_target_time_scale(self):
        ms = quiet_inspector(etdump_path=corpus("upstream/etdump/tutorial_cnn.etdp")).to_dataframe()
        us = quiet_inspector(etdump_path=corpus("upstream/etdump/tutorial_cnn.etdp"),
                             target_time_scale=etkit.TimeScale.US).to_dataframe()
        self.assertIn("avg (us)", us.columns)
        np.testing.assert_allclose(us["avg (us)"], ms["avg (ms)"] * 1000)
        with self.assertRaises(etkit.Error):
            quiet_inspector(etdump_path=corpus("upstream/etdump/tutorial_cnn.etdp"),
                            source_time_scale=etkit.TimeScale.CYCLES)

    def test_arguments_are_checked_as_upstream_does(self):
        with self.assertRaises(ValueError):
            etkit.Inspector()
        with self.assertWarnsRegex(UserWarning, "Output Buffer not found"):
            etkit.Inspector(etdump_path=corpus("upstream/etdump/tutorial_cnn.etdp"))


class UpstreamSurface(Scratch):
    """Upstream's Inspector names added for parity (the README's table), each
    against hand-derived values or a second path through etkit."""

    def test_event_asdict_is_its_row_of_the_dataframe(self):
        inspector = quiet_inspector(etdump_path=corpus("upstream-runtime/xnn_mlp.etdp"))
        frame = inspector.to_dataframe()
        events = [e for b in inspector.event_blocks for e in b.events]
        for event, (_, row) in zip(events, frame.iterrows()):
            as_dict = event.asdict(" (ms)")
            self.assertEqual(list(as_dict), [c for c in frame.columns if c != "event_block_name"])
            for key, value in as_dict.items():
                wrapped = key in ("raw", "op_types", "stack_traces", "module_hierarchy", "debug_data", "start_time")
                self.assertEqual(value[0] if wrapped else value, row[key], key)
            self.assertEqual(len(event.to_dataframe()), 1)

    def test_delegate_time_scale_converter_converts_only_delegated_durations(self):
        trace = corpus("upstream-runtime/xnn_mlp.etdp")
        plain = quiet_inspector(etdump_path=trace)
        # A clock twice as fast as the default conversion (ns -> ms).
        doubled = quiet_inspector(etdump_path=trace, delegate_time_scale_converter=lambda name, t: 2 * t / 1e6)
        pairs = list(zip([e for b in plain.event_blocks for e in b.events],
                         [e for b in doubled.event_blocks for e in b.events]))
        self.assertTrue(any(a.is_delegated_op for a, _ in pairs))
        for a, b in pairs:
            factor = 2.0 if a.is_delegated_op else 1.0
            np.testing.assert_allclose(b.perf_data.raw, [factor * r for r in a.perf_data.raw], rtol=1e-12)
        frame = doubled.to_dataframe()
        np.testing.assert_allclose(np.concatenate(frame["raw"].to_numpy()),
                                   [r for _, b in pairs for r in b.perf_data.raw], rtol=1e-12)

    def test_num_outputs_come_from_the_records_map(self):
        import zipfile

        sample = os.path.join(SOURCE, "samples", "yolo_detector_xnnpack")
        record = os.path.join(sample, "yolo_detector_xnnpack.etrecord")
        with zipfile.ZipFile(record) as archive:
            counts = json.loads(archive.read("instruction_id_to_num_outs_map"))["forward"]
        self.assertIn(2, counts.values())  # the detector's first delegate call returns two maps
        trace = self.path("yolo.etdp")
        cli("run", os.path.join(sample, "yolo_detector_xnnpack.pte"), "--etdump", trace)
        inspector = quiet_inspector(etdump_path=trace, etrecord=record)
        calls = [e for b in inspector.event_blocks for e in b.events if e.name == "DELEGATE_CALL"]
        self.assertEqual(len(calls), len(counts))
        for event in calls:
            self.assertEqual(event.num_outputs, counts[str(event._instruction_id)])
        others = [e for b in inspector.event_blocks for e in b.events if e._instruction_id is not None
                  and str(e._instruction_id) not in counts]
        self.assertTrue(others and all(e.num_outputs == 1 for e in others))

    def test_upstreams_positional_order_and_an_etrecord_object(self):
        trace = corpus("upstream-runtime/tutorial_cnn_intermediates.etdp")  # the fixture record's program

        class SavesItself:  # what etkit uses of upstream's ETRecord object
            def __init__(self, path):
                self.path = path

            def save(self, path):
                shutil.copyfile(self.path, path)

        record = os.path.join(SOURCE, "tests", "fixtures", "corpus_programs", "tutorial_cnn.etrecord")
        by_path = quiet_inspector(etdump_path=trace, etrecord=record).to_dataframe()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            positional = etkit.Inspector(trace, None, SavesItself(record), etkit.TimeScale.NS, etkit.TimeScale.MS,
                                         None, None, None, False, "edge_dialect_graph_module").to_dataframe()
            self.assertEqual(by_path["op_types"].tolist(), positional["op_types"].tolist())
            with self.assertRaisesRegex(NotImplementedError, "edge dialect"):
                etkit.Inspector(trace, reference_graph_name="aten_dialect_output")
            with self.assertRaisesRegex(TypeError, "etrecord"):
                etkit.Inspector(trace, etrecord=42)
            with self.assertRaisesRegex(NotImplementedError, "PyTorch"):
                etkit.Inspector(trace).get_exported_program()

    def test_get_op_list_groups_a_blocks_events_by_op_type(self):
        trace = corpus("upstream-runtime/tutorial_cnn_intermediates.etdp")  # the fixture record's program
        record = os.path.join(SOURCE, "tests", "fixtures", "corpus_programs", "tutorial_cnn.etrecord")
        inspector = quiet_inspector(etdump_path=trace, etrecord=record)
        ops = inspector.get_op_list("Execute")
        frame = inspector.to_dataframe()
        execute = frame[frame["event_block_name"] == "Execute"]
        expected = {}
        for _, row in execute.iterrows():
            for op in set(row["op_types"]):
                expected[op] = expected.get(op, 0) + 1
        self.assertTrue(expected)
        self.assertEqual({op: len(events) for op, events in ops.items()}, expected)
        self.assertEqual(inspector.get_op_list("no such block"), {})

    def test_context_managers_close_the_inspector_and_the_program(self):
        with open(corpus("upstream/etdump/tutorial_cnn.etdp"), "rb") as f:
            data = f.read()
        with quiet_inspector(etdump_data=data) as inspector:
            frame = inspector.to_dataframe()
            scratch = inspector._etdump_path
            self.assertTrue(os.path.exists(scratch))
        self.assertFalse(os.path.exists(scratch))  # the in-memory trace's scratch file is gone
        self.assertEqual(len(frame), 31)  # tutorial trace: 2 load events + 29 in Execute
        with self.assertRaisesRegex(ValueError, "closed"):
            inspector.to_dataframe()
        with etkit.Program(os.path.join(MOBILENET, "mobilenet_v2.pte")) as program:
            method = program.method()
        with self.assertRaisesRegex(ValueError, "closed"):
            program.method()
        out = method.run([np.zeros(method.inputs[0].sizes, np.float32)])[0]  # the method keeps what it needs
        self.assertEqual(out.shape, (1, 100))

    def test_compare_results_hand_derived(self):
        reference = [np.array([1, 2, 3, 4], dtype=np.float32), np.zeros(2, dtype=np.float32), 3]
        actual = [np.array([1, 2, 3, 5], dtype=np.float32), np.zeros(2, dtype=np.float32), 3]
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            results = etkit.compare_results(reference, actual)
        # mse = (0+0+0+1)/4; snr = 10 log10((1+4+9+16)/4 / 0.25) = 10 log10(30);
        # cosine = 34 / sqrt(30 * 39); all rounded to two decimals, as upstream.
        self.assertEqual(results["mse"][0], 0.25)
        self.assertEqual(results["snr"][0], 14.77)
        self.assertEqual(results["cosine_similarity"][0], 0.99)
        self.assertEqual(results["mse"][1], 0.0)
        self.assertEqual([r[2] for r in results.values()], [None, None, None])
        self.assertIn("cosine_similarity", printed.getvalue())
        self.assertEqual(list(etkit.compare_results(reference, actual, metrics=["mse"])), ["mse"])


class TracedSample(Scratch):
    """The MobileNetV2 sample run and traced by the module itself."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.program = etkit.Program(os.path.join(MOBILENET, "mobilenet_v2.pte"))
        method = cls.program.method("forward")
        rng = np.random.default_rng(7)
        cls.inputs = [rng.standard_normal(method.inputs[0][1]).astype(np.float32)]
        cls.second_inputs = [rng.standard_normal(method.inputs[0][1]).astype(np.float32)]
        cls.trace = os.path.join(cls.dir, "mobilenet.etdp")
        cls.buffer = os.path.join(cls.dir, "mobilenet.bin")
        cls.outputs = method.run(cls.inputs, etdump=cls.trace, debug_buffer=cls.buffer, debug_level="intermediates")
        cls.second_trace = os.path.join(cls.dir, "second.etdp")
        cls.second_buffer = os.path.join(cls.dir, "second.bin")
        method.run(cls.second_inputs, etdump=cls.second_trace, debug_buffer=cls.second_buffer,
                   debug_level="intermediates")
        cls.record = os.path.join(MOBILENET, "mobilenet_v2.etrecord")

    def inspector(self, **extra):
        return etkit.Inspector(etdump_path=self.trace, etrecord=self.record, debug_buffer_path=self.buffer, **extra)

    def test_find_total_for_module_follows_upstreams_substring_rule(self):
        trace = trace_json(self.trace)
        keys = upstream_rules.etrecord_module_keys(self.record)
        inspector = self.inspector()
        totals = {}
        # Keys as upstream's exporter writes them: "L__self__features.1".
        for name in ["L__self__features", "features.1", "classifier", "conv", "no_such_module"]:
            expected = upstream_rules.find_total_for_module(trace, keys, name)
            totals[name] = expected
            self.assertAlmostEqual(inspector.find_total_for_module(name), expected, places=9, msg=name)
        self.assertEqual(totals["no_such_module"], 0.0)
        self.assertGreater(totals["L__self__features"], totals["features.1"])
        self.assertGreater(totals["features.1"], 0.0)

    def test_linked_events_carry_op_types_stacks_and_handles(self):
        frame = self.inspector().to_dataframe()
        conv = frame[frame["event_name"] == "native_call_convolution.out"].iloc[0]
        self.assertEqual(conv["op_types"], ["aten.convolution.default"])
        (node, stack), = conv["module_hierarchy"].items()
        self.assertEqual(stack["L__self__"][1], "models.MobileNetV2")  # samples/export/upstream/models.py
        self.assertIn("models.py", conv["stack_traces"][node])

    def test_debug_data_are_read_only_views_of_the_buffer(self):
        inspector = self.inspector()
        execute = [b for b in inspector.event_blocks if b.name == "Execute"][0]
        logged = [e for e in execute.events if e.debug_data]
        self.assertGreater(len(logged), 50)
        last = logged[-1].debug_data[0]
        self.assertFalse(last.flags.owndata)
        self.assertFalse(last.flags.writeable)
        # The last op's value is the method's output (a second path: Method.run's copy).
        np.testing.assert_array_equal(last, self.outputs[0])
        del inspector, execute, logged
        self.assertEqual(float(last.sum()), float(self.outputs[0].sum()))  # the view keeps its buffer alive

    def test_numeric_gap_with_upstreams_metrics_and_a_user_comparator(self):
        inspector = self.inspector()
        same = inspector.calculate_numeric_gap("MSE", reference=self.trace, reference_debug_buffer=self.buffer)
        self.assertEqual(list(same.columns), ["aot_debug_handle", "aot_ops", "aot_intermediate_output", "runtime_ops",
                                              "runtime_debug_handle", "runtime_intermediate_output", "gap",
                                              "stacktraces"])
        self.assertGreater(len(same), 50)
        self.assertTrue(all(g == [0.0] for g in same["gap"]))
        for metric, formula in [
            ("MSE", lambda a, b: np.mean((a - b) ** 2)),
            ("L1", lambda a, b: np.sum(np.abs(a - b))),
            ("SNR", lambda a, b: 10 * np.log10(np.mean(a ** 2) / np.mean((a - b) ** 2))),
        ]:
            gap = inspector.calculate_numeric_gap(metric, reference=self.second_trace,
                                                  reference_debug_buffer=self.second_buffer)
            for _, row in gap.iterrows():
                a = np.asarray(row["aot_intermediate_output"], dtype=np.float64)
                b = np.asarray(row["runtime_intermediate_output"], dtype=np.float64)
                np.testing.assert_allclose(row["gap"][0], formula(a, b), rtol=1e-9, err_msg=metric)

        class MaxAbs:  # any object with element_compare will do
            def __init__(self):
                self.calls = 0

            def element_compare(self, a, b):
                self.calls += 1
                return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))

        comparator = MaxAbs()
        gap = inspector.calculate_numeric_gap(comparator, reference=self.second_trace,
                                              reference_debug_buffer=self.second_buffer)
        self.assertEqual(comparator.calls, len(gap))
        self.assertGreater(max(g[0] for g in gap["gap"]), 0)

        class Zeroed(etkit.NumericalComparatorBase):
            def preprocessing(self, pairs):
                return [(h, np.zeros_like(a), rh, np.zeros_like(b)) for h, a, rh, b in pairs]

            def element_compare(self, a, b):
                return float(np.abs(a - b).sum())

        zeroed = inspector.calculate_numeric_gap(Zeroed(), reference=self.second_trace,
                                                 reference_debug_buffer=self.second_buffer)
        self.assertTrue(all(g == [0.0] for g in zeroed["gap"]))
        with self.assertRaises(ValueError):
            inspector.calculate_numeric_gap("cosine", reference=self.trace, reference_debug_buffer=self.buffer)

    def test_run_outputs_equal_the_clis(self):
        x = self.path("x.npy")
        np.save(x, self.inputs[0])
        out_dir = self.path("cli_out")
        cli("run", os.path.join(MOBILENET, "mobilenet_v2.pte"), "--input", x, "--output-dir", out_dir)
        np.testing.assert_array_equal(np.load(os.path.join(out_dir, "output_0.npy")), self.outputs[0])
        again = self.program.method().run(self.inputs)
        np.testing.assert_array_equal(again[0], self.outputs[0])


class ProgramsRun(Scratch):
    def test_backend_notes_are_log_records_of_the_etkit_logger(self):
        # A fresh interpreter: each note is said once per process. A note says
        # how the delegate runs the program, not a mistake of the caller: a log
        # record at INFO, no warning, and nothing on stderr while the
        # application leaves logging unconfigured.
        pte = os.path.join(SOURCE, 'samples/mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte')
        script = ("import logging, warnings, etkit\n"
                  "records = []\n"
                  "class Keep(logging.Handler):\n"
                  "    def emit(self, record): records.append(record)\n"
                  "with warnings.catch_warnings(record=True) as said:\n"
                  "    warnings.simplefilter('always')\n"
                  "    logging.getLogger('etkit').setLevel(logging.INFO)\n"
                  "    logging.getLogger('etkit').addHandler(Keep())\n"
                  f"    etkit.Program({pte!r}).method()\n"
                  "print(len(said), len(records), records[0].levelname if records else '',"
                  " records[0].getMessage() if records else '')\n")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ)
        self.assertEqual(done.returncode, 0, done.stderr)
        warned, logged, level, first = done.stdout.split(" ", 3)
        self.assertEqual(int(warned), 0, done.stdout)
        self.assertGreater(int(logged), 0, done.stdout)
        self.assertEqual(level, "INFO")
        self.assertIn("XNNPACK", first)
        quiet = subprocess.run([sys.executable, "-c", f"import etkit; etkit.Program({pte!r}).method()"],
                               capture_output=True, text=True, env=os.environ)
        self.assertEqual(quiet.returncode, 0, quiet.stderr)
        self.assertEqual(quiet.stderr, "")

    def test_inputs_are_named_records(self):
        method = etkit.Program(corpus("upstream/pte/add.pte")).method()
        self.assertEqual(method.inputs, [("float32", [1]), ("float32", [1])])  # still tuples
        self.assertEqual((method.inputs[1].dtype, method.inputs[1].sizes), ("float32", [1]))
        self.assertIsInstance(method.inputs[0], etkit.InputSpec)

    def test_version_is_etinspects(self):
        self.assertEqual(f"etinspect {etkit.__version__}", cli("--version").stdout.strip())

    def test_threads_sharing_a_method_get_their_own_results(self):
        # Each thread's outputs equal a run of the same input alone (the
        # method's memory is shared; runs take turns).
        import threading
        method = etkit.Program(os.path.join(MOBILENET, "mobilenet_v2.pte")).method()
        shape = method.inputs[0][1]
        rng = np.random.default_rng(8)
        inputs = [rng.standard_normal(shape).astype(np.float32) for _ in range(4)]
        alone = [method.run([x])[0] for x in inputs]
        got = [[] for _ in inputs]

        def runs(i):
            for _ in range(3):
                got[i].append(method.run([inputs[i]])[0])

        threads = [threading.Thread(target=runs, args=(i,)) for i in range(len(inputs))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for i, outputs in enumerate(got):
            self.assertEqual(len(outputs), 3)
            for output in outputs:
                np.testing.assert_array_equal(output, alone[i])

    def test_any_thread_count_gives_the_same_bytes(self):
        path = os.path.join(SOURCE, "samples", "resnet18", "resnet18.pte")
        x = np.random.default_rng(5).standard_normal((1, 3, 128, 128)).astype(np.float32)
        outputs = [etkit.Program(path, threads=t).method().run([x])[0] for t in (1, 2, 3, 0)]
        for other in outputs[1:]:
            self.assertEqual(outputs[0].tobytes(), other.tobytes())
        with self.assertRaisesRegex(ValueError, "threads"):
            etkit.Program(path, threads=-1)

    def test_a_traced_decode_step_continues_the_kv_cache(self):
        # Steps 0..2 of a KV-cache decoder; tracing step 1 changes nothing
        # it computes, nor what step 2 finds in the cache.
        program = etkit.Program(os.path.join(SOURCE, "samples", "tiny_llama", "tiny_llama.pte"))
        steps = [([[5]], [0]), ([[9]], [1]), ([[2]], [2])]
        as_arrays = [(np.array(t, np.int64), np.array(p, np.int64)) for t, p in steps]
        untraced = program.method()
        expected = [untraced.run(list(step))[0] for step in as_arrays]
        method = program.method()
        first = method.run(list(as_arrays[0]))[0]
        second = method.run(list(as_arrays[1]), etdump=self.path("step1.etdp"))[0]
        third = method.run(list(as_arrays[2]))[0]
        np.testing.assert_array_equal(first, expected[0])
        np.testing.assert_array_equal(second, expected[1])
        np.testing.assert_array_equal(third, expected[2])
        self.assertFalse(np.array_equal(expected[1], program.method().run(list(as_arrays[1]))[0]),
                         "step 1 from an empty cache should differ, or this test shows nothing")
        self.assertTrue(os.path.getsize(self.path("step1.etdp")) > 0)

    def test_external_constants_hand_derived(self):
        program = etkit.Program(corpus("upstream/ptd/add_mul_external.pte"),
                                data=[corpus("upstream/ptd/add_mul_external.ptd")])
        self.assertEqual(program.methods, ["forward"])
        out = program.method().run([np.array([[1, 2], [3, 4]], dtype=np.float32)])
        np.testing.assert_array_equal(out[0], [[5, 8], [11, 14]])  # 3x + 2
        with self.assertRaisesRegex(etkit.Error, "a|b"):
            etkit.Program(corpus("upstream/ptd/add_mul_external.pte")).method().run(
                [np.ones((2, 2), np.float32)])

    def test_channels_last_input_equals_the_clis_run(self):
        path = corpus("upstream/pte/keyword_spotting_cortex_m.pte")
        x = np.random.default_rng(3).standard_normal((1, 1, 49, 10)).astype(np.float32)
        out = etkit.Program(path).method().run([x])
        np.save(self.path("kws.npy"), x)
        cli("run", path, "--input", self.path("kws.npy"), "--output-dir", self.path("kws"))
        np.testing.assert_array_equal(out[0], np.load(self.path("kws/output_0.npy")))

    def test_python_arguments_as_python_takes_them(self):
        import pathlib
        pte, ptd = corpus("upstream/ptd/add_mul_external.pte"), corpus("upstream/ptd/add_mul_external.ptd")
        x = np.array([[1, 2], [3, 4]], dtype=np.float32)
        x.flags.writeable = False  # read-only arrays are inputs too
        for program in [etkit.Program(pathlib.Path(pte), data=pathlib.Path(ptd)), etkit.Program(pte, data=(ptd,))]:
            np.testing.assert_array_equal(program.method().run((x,))[0], [[5, 8], [11, 14]])  # 3x + 2
        method = etkit.Program(pte, data=[ptd]).method()
        for wrong, hint in [("abc", "not a str"), (x, r"not a ndarray \(pass \[array\]\)"), (5, "not a int")]:
            with self.assertRaisesRegex(TypeError, "inputs must be a list with one value per input of method "
                                                   "'forward' \\(1\\), " + hint):
                method.run(wrong)
        with self.assertRaisesRegex(TypeError, "path must be a path"):
            etkit.Program(3)
        with self.assertRaisesRegex(TypeError, "data must be a path or a list of paths"):
            etkit.Program(pte, data=3)

    def test_errors_name_the_input_and_method(self):
        method = etkit.Program(corpus("upstream/ptd/add_mul_external.pte"),
                               data=[corpus("upstream/ptd/add_mul_external.ptd")]).method()
        # Inputs the method cannot take are ValueErrors (etkit.InputError, an
        # etkit.Error too) naming run's argument.
        with self.assertRaisesRegex(ValueError, r"Method.run\(inputs\): method 'forward' takes 1 inputs, 2 given"):
            method.run([np.ones((2, 2), np.float32)] * 2)
        with self.assertRaisesRegex(etkit.InputError,
                                    r"Method.run\(inputs\): input 0 of method 'forward' is float32\[2, 2\], given a float64"):
            method.run([np.ones((2, 2))])
        with self.assertRaisesRegex(etkit.Error, "given a float64"):
            method.run([np.ones((2, 2))])
        with self.assertRaisesRegex(etkit.Error, "no_such_method"):
            etkit.Program(corpus("upstream/pte/add.pte")).method("no_such_method")
        with self.assertRaisesRegex(etkit.Error, "missing_file.pte"):
            etkit.Program(self.path("missing_file.pte"))

    def test_a_static_input_of_another_shape_is_refused_naming_both_shapes(self):
        # The tutorial CNN takes a static [1, 1, 32, 32]: a half-size image fits
        # its planned bytes, but upstream's runtime refuses to resize a static
        # tensor, and so does etkit, in Python as in the CLI.
        cnn = os.path.join(SOURCE, "samples", "tutorial_cnn", "tutorial_cnn.pte")
        method = etkit.Program(cnn).method()
        with self.assertRaisesRegex(ValueError, r"input 0 has a static shape \[1, 1, 32, 32\]; got \[1, 1, 16, 16\]"):
            method.run([np.zeros((1, 1, 16, 16), np.float32)])
        self.assertEqual(method.run([np.zeros((1, 1, 32, 32), np.float32)])[0].shape, (1, 10))
        np.save(self.path("half.npy"), np.zeros((1, 1, 16, 16), np.float32))
        done = cli("run", cnn, "--input", self.path("half.npy"), ok=(2,))
        self.assertIn("static shape [1, 1, 32, 32]; got [1, 1, 16, 16]", done.stderr)

    def test_bfloat16_outputs_are_float32_values_or_bits_on_request(self):
        method = etkit.Program(os.path.join(SOURCE, "samples/nano_gpt_bf16/nano_gpt_bf16.pte")).method()
        dtype, sizes = method.inputs[0]
        tokens = np.arange(int(np.prod(sizes)), dtype=np.int64).reshape(sizes) % 50
        values = method.run([tokens])[0]
        self.assertEqual(values.dtype, np.float32)
        bits = method.run([tokens], bfloat16="bits")[0]
        self.assertTrue(etkit.is_bfloat16(bits))
        self.assertEqual(bits.dtype, np.uint16)
        np.testing.assert_array_equal(etkit.bfloat16_to_float32(bits), values)  # exact: bfloat16 is float32's top half
        np.save(self.path("tokens.npy"), tokens)
        cli("run", os.path.join(SOURCE, "samples/nano_gpt_bf16/nano_gpt_bf16.pte"), "--input", self.path("tokens.npy"),
            "--output-dir", self.path("bf16"))
        from_cli = np.load(self.path("bf16/output_0.npy"))
        np.testing.assert_array_equal(values, from_cli.astype(np.float32) if from_cli.dtype != np.uint16
                                      else etkit.bfloat16_to_float32(from_cli))
        with self.assertRaisesRegex(ValueError, "bfloat16="):
            method.run([tokens], bfloat16="float16")

    def test_a_bfloat16_input_takes_floats_rounded_to_nearest_even_or_bits(self):
        # forward(x) = x + x on bfloat16[2, 2], written as JSON through flatc.
        sys.path.insert(0, os.path.join(SOURCE, "samples", "export", "cortex_m_reference"))
        from etexport import program as writer

        def bf16(offset):
            return {"val_type": "Tensor", "val": {"scalar_type": "BFLOAT16", "sizes": [2, 2], "dim_order": [0, 1],
                                                  "allocation_info": {"memory_id": 1, "memory_offset_low": offset}}}
        plan = {"name": "forward", "values": [bf16(0), {"val_type": "Int", "val": {"int_val": 1}}, bf16(16)],
                "inputs": [0], "outputs": [2],
                "chains": [{"inputs": [0], "outputs": [2], "instructions": [
                    {"instr_args_type": "KernelCall", "instr_args": {"op_index": 0, "args": [0, 0, 1, 2, 2]}}]}],
                "operators": [{"name": "aten::add", "overload": "out"}],
                "non_const_buffer_sizes": [0, 32], "delegates": []}
        program = writer.compile_json(writer.SCHEMAS["program"],
                                      {"version": 0, "execution_plan": [plan], "constant_buffer": [], "segments": []},
                                      FLATC)
        with open(self.path("double_bf16.pte"), "wb") as f:
            f.write(program)
        method = etkit.Program(self.path("double_bf16.pte")).method()
        # 1 + 2^-8 rounds (a tie) to even 1.0; 1 + 3 * 2^-8 up to 1 + 2^-6;
        # doubling is exact in bfloat16.
        x = np.array([[1 + 2 ** -8, 1 + 3 * 2 ** -8], [-2.5, 0.0]], dtype=np.float32)
        expected = np.array([[2.0, 2 + 2 ** -5], [-5.0, 0.0]], dtype=np.float32)
        np.testing.assert_array_equal(method.run([x])[0], expected)
        np.testing.assert_array_equal(method.run([x.astype(np.float64)])[0], expected)
        np.testing.assert_array_equal(method.run([etkit.float32_to_bfloat16(x)])[0], expected)
        with self.assertRaisesRegex(etkit.Error, "bfloat16"):
            method.run([np.zeros((2, 2), np.int32)])

    def test_bfloat16_conversions_round_to_nearest_even(self):
        values = np.array([1.0, 1 + 2 ** -8, 1 + 3 * 2 ** -8, -2.5, np.inf], dtype=np.float32)
        bits = etkit.float32_to_bfloat16(values)
        self.assertEqual([int(b) for b in bits], [0x3F80, 0x3F80, 0x3F82, 0xC020, 0x7F80])
        self.assertTrue(etkit.is_bfloat16(bits))
        np.testing.assert_array_equal(etkit.bfloat16_to_float32(bits), [1.0, 1.0, 1 + 2 ** -6, -2.5, np.inf])

    def test_traced_run_writes_a_trace_the_inspector_reads(self):
        method = etkit.Program(corpus("upstream/pte/add.pte")).method()
        inputs = [np.full(spec[1], 2, np.float32) for spec in method.inputs]
        out = method.run(inputs, etdump=self.path("add.etdp"))
        np.testing.assert_array_equal(out[0], np.full(out[0].shape, 4, np.float32))
        frame = quiet_inspector(etdump_path=self.path("add.etdp")).to_dataframe()
        self.assertIn("native_call_add.out", list(frame["event_name"]))
        with self.assertRaisesRegex(ValueError, r"debug_level=\) need etdump="):
            method.run(inputs, debug_level="intermediates")
        # In run's own argument names, not etinspect's flags.
        with self.assertRaisesRegex(ValueError, r"Method.run\(debug_level='intermediates'\) needs debug_buffer="):
            method.run(inputs, etdump=self.path("no_buffer.etdp"), debug_level="intermediates")
        with self.assertRaisesRegex(ValueError, r"'none', 'outputs' or 'intermediates', not 'all'"):
            method.run(inputs, etdump=self.path("no_buffer.etdp"), debug_buffer=self.path("b.bin"), debug_level="all")


def without_timings(value):
    """A report without its measured times (two runs never agree on them)."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if not (k.endswith("seconds") or k.endswith("_ms"))}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


class Reports(Scratch):
    def test_verify_is_the_clis_report(self):
        bundle = corpus("upstream/bundled/add_mul_int.bpte")
        report = etkit.verify(bundle)
        cli("verify", bundle, "--json-file", self.path("cli.json"))
        with open(self.path("cli.json")) as f:
            self.assertEqual(without_timings(report), without_timings(json.load(f)))
        self.assertEqual(len(report["cases"]), 10)
        self.assertTrue(all(c["status"] == "pass" for c in report["cases"]), report)

    def test_verify_reports_a_changed_expected_output_as_failing(self):
        # The bundle re-written through flatc's JSON with case 0 expecting 9 first.
        schema = os.path.join(SOURCE, "bundled", "schema", "bundled_program.fbs")
        include = ["-I", os.path.join(SOURCE, "core", "schema")]
        subprocess.run([FLATC, "--json", "--strict-json", "--raw-binary", *include, "-o", self.dir, schema, "--",
                        corpus("upstream/bundled/add_mul_int.bpte")], check=True)
        with open(self.path("add_mul_int.json")) as f:
            bundle = json.load(f)
        bundle["method_test_suites"][0]["test_cases"][0]["expected_outputs"][0]["val"]["data"][0] = 9
        with open(self.path("altered.json"), "w") as f:
            json.dump(bundle, f)
        subprocess.run([FLATC, "-b", *include, "-o", self.dir, schema, self.path("altered.json")], check=True)
        self.assertTrue(os.path.exists(self.path("altered.bpte")))  # the schema's file_extension
        report = etkit.verify(self.path("altered.bpte"))
        self.assertEqual([c["status"] for c in report["cases"]], ["fail"] + ["pass"] * 9)
        with self.assertRaises(etkit.Error):
            etkit.verify(corpus("upstream/pte/add.pte"))

    def test_memory_size_info_and_diff_are_the_clis_json(self):
        pte = os.path.join(MOBILENET, "mobilenet_v2.pte")
        self.assertEqual(etkit.memory(pte), json.loads(cli("memory", pte, "--json").stdout))
        size = etkit.size(pte)
        self.assertEqual(size["file_bytes"], os.path.getsize(pte))
        self.assertEqual(size, json.loads(cli("size", pte, "--json").stdout))
        self.assertEqual(etkit.info(pte), json.loads(cli("info", pte, "--json").stdout))
        other = os.path.join(SOURCE, "samples/mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte")
        self.assertEqual(etkit.diff_program(pte, other), json.loads(cli("diff-program", pte, other, "--json").stdout))


CORPUS_FILES = [
    "upstream/pte/add.pte", "upstream/pte/softmax.pte", "upstream/pte/keyword_spotting_cortex_m.pte",
    "upstream/pte/module_linear_inline_constants.pte", "upstream/ptd/add_mul_external.ptd",
    "upstream/bundled/add_mul_int.bpte", "upstream/etdump/tutorial_cnn.etdp",
    "upstream-runtime/xnn_mlp.etdp", "upstream-runtime/xnn_dbg.pte", "upstream/etrecord/toy_model_v0.etrecord",
]


class DistancesAreNumpys(unittest.TestCase):
    """The comparators' distances come from the inspector library (C++);
    upstream defines them as numpy formulas, which are the truth here,
    non-finite values included."""

    FORMULAS = {
        "mse": lambda a, b: np.mean((a - b) ** 2),
        "l1": lambda a, b: np.sum(np.abs(a - b)),
        "snr_db": lambda a, b: 10 * np.log10(np.mean(a ** 2) / np.mean((a - b) ** 2)),
        "max_abs": lambda a, b: np.max(np.abs(a - b)),
    }

    def check(self, a, b):
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        got = etkit.distances(a, b)
        with np.errstate(all="ignore"):
            for name, formula in self.FORMULAS.items():
                np.testing.assert_allclose(got[name], formula(a, b), rtol=1e-12, err_msg=f"{name} of {a} {b}")

    def test_random_values_of_several_shapes(self):
        rng = np.random.default_rng(5)
        for shape in [(1,), (7,), (3, 4, 5), (2, 64, 9)]:
            a = rng.standard_normal(shape)
            self.check(a, a + rng.standard_normal(shape) * 1e-3)
        a = rng.standard_normal(12)
        np.testing.assert_allclose(etkit.distances(a, 2 * a)["cosine"], 1.0, rtol=1e-12)
        np.testing.assert_allclose(etkit.distances(a, -a)["cosine"], -1.0, rtol=1e-12)

    def test_non_finite_values_as_numpy_has_them(self):
        self.check([1.0, np.nan, 3.0], [1.0, np.nan, 3.5])        # NaN anywhere: NaN
        self.check([-np.inf, 1.0], [-np.inf, 1.0])                # inf - inf is NaN
        self.check([np.inf, 1.0], [0.0, 1.0])                     # an infinite difference
        self.check([0.0, 0.0], [0.0, 0.0])                        # 0/0: a NaN SNR
        self.check([1.0, 2.0], [1.0, 2.0])                        # identical: +inf SNR
        self.assertTrue(np.isnan(etkit.MSEComparator().element_compare([np.nan], [1.0])))

    def test_values_of_two_shapes_are_refused(self):
        with self.assertRaises(ValueError):
            etkit.distances(np.zeros((2, 3)), np.zeros((3, 2)))


class CorruptCorpusRaisesOnly(Scratch):
    """Truncations and byte flips of every kind of file: each entry point
    either reads the mutant or raises a Python exception (under the test
    command's sanitizers any bad read would abort the interpreter)."""

    def mutants(self, original, rng):
        for k in range(16):
            yield f"truncated {k}/16", original[: len(original) * k // 16]
        for _ in range(24):
            i = rng.randrange(min(len(original), 512))
            data = bytearray(original)
            data[i] ^= rng.choice([0xFF, 0x01, 0x80])
            yield f"flip byte {i}", bytes(data)

    def test_every_entry_point_raises_python_exceptions_only(self):
        rng = random.Random(11)
        calls = 0
        for relative in CORPUS_FILES:
            with open(corpus(relative), "rb") as f:
                original = f.read()
            extension = os.path.splitext(relative)[1]
            for label, data in self.mutants(original, rng):
                path = self.path("mutant" + extension)
                with open(path, "wb") as f:
                    f.write(data)
                entry_points = {
                    ".pte": [lambda: etkit.Program(path).method().run([]), lambda: etkit.memory(path)],
                    ".bpte": [lambda: etkit.verify(path), lambda: etkit.Program(path)],
                    ".ptd": [lambda: etkit.Program(corpus("upstream/ptd/add_mul_external.pte"), data=[path]).method()],
                    ".etdp": [lambda: quiet_inspector(etdump_path=path).to_dataframe(),
                              lambda: etkit.memory(path)],
                    ".etrecord": [lambda: quiet_inspector(etdump_path=corpus("upstream/etdump/tutorial_cnn.etdp"),
                                                          etrecord=path).to_dataframe()],
                }[extension] + [lambda: etkit.size(path), lambda: etkit.info(path)]
                for call in entry_points:
                    calls += 1
                    try:
                        call()
                    except etkit.Error as error:
                        self.assertTrue(str(error), f"{relative} {label}: empty message")
                    except Exception as error:  # anything but etkit.Error is a defect
                        self.fail(f"{relative} {label}: {type(error).__name__}: {error}")
        self.assertGreater(calls, 1000)


if __name__ == "__main__":
    unittest.main(verbosity=2)
