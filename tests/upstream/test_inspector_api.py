"""Upstream's public Inspector surface against etkit's, as the README's table
says it stands ("Python API": same / differs / absent).

Every public name of upstream's executorch.devtools.inspector (the module's
names and the public methods and properties of Inspector, EventBlock, Event
and PerfData) must be a row of the table and every row an upstream name;
"same" and "differs" names exist in etkit with upstream's parameters in
upstream's order (etkit's additions keyword-only) and dataclasses with
upstream's fields in order; "absent" names do not exist or raise
NotImplementedError. Then the calls the table calls "same" run on both
modules over the same traces and must agree.

Upstream's side runs here (scripts/upstream-python); etkit's in its own
interpreter (etkit_api_surface.py), as the two cannot share a process.
"""
import inspect
import json
import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

import oracle
import executorch.devtools.inspector as upstream
from executorch.devtools.inspector import Inspector

CLASSES = ["Inspector", "EventBlock", "Event", "PerfData"]
TUTORIAL_TRACE = oracle.CORPUS / "upstream" / "etdump" / "tutorial_cnn.etdp"


def readme_table():
    """{upstream name: "same" | "differs" | "absent"} from the README."""
    text = (oracle.REPO / "README.md").read_text()
    start = text.index("| upstream (`executorch.devtools.inspector`) | etkit | notes |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        match = re.match(r"\| `([\w.]+)` \| (same|differs|absent) \|", line)
        if not match:
            break
        rows[match.group(1)] = match.group(2)
    return rows


def upstream_names():
    names = [n for n in dir(upstream) if not n.startswith("_")]
    for cls in CLASSES:
        for member, value in vars(getattr(upstream, cls)).items():
            if member.startswith("_"):
                continue
            if isinstance(value, property) or inspect.isfunction(value):
                names.append(f"{cls}.{member}")
    return names


def upstream_params(name):
    owner, _, member = name.partition(".")
    target = getattr(upstream, owner)
    if member:
        target = inspect.getattr_static(target, member)
    function = target.fget if isinstance(target, property) else target
    if inspect.isclass(function):
        function = function.__init__
    if not callable(function):
        return None
    parameters = list(inspect.signature(function).parameters.values())
    return [p.name for p in parameters[1 if member or inspect.isclass(target) else 0:]]


def etkit_python(*args):
    env = dict(os.environ)
    for item in filter(None, os.environ.get("ETKIT_PYTHON_ENV", "").split("|")):
        key, _, value = item.partition("=")
        env[key] = value
    done = subprocess.run([os.environ.get("ETKIT_PYTHON", "/usr/bin/python3"),
                           str(Path(__file__).with_name("etkit_api_surface.py")), *map(str, args)],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise AssertionError(f"etkit_api_surface.py {' '.join(map(str, args))}: {done.stderr}")
    return json.loads(done.stdout)


@unittest.skipUnless(os.environ.get("ETKIT_PYTHON_ENV") is not None, "etkit's Python module is not built")
class InspectorSurface(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.table = readme_table()
        cls.ours = etkit_python(TUTORIAL_TRACE, *cls.table)

    def test_the_table_lists_every_upstream_name_and_no_other(self):
        self.assertEqual(sorted(self.table), sorted(upstream_names()))

    def test_present_names_take_upstreams_parameters_in_order(self):
        for name, status in self.table.items():
            with self.subTest(name=name, status=status):
                ours = self.ours[name]
                if status == "absent":
                    self.assertTrue(not ours["exists"] or ours.get("raises") == "NotImplementedError", ours)
                    continue
                self.assertTrue(ours["exists"], f"{name} is not in etkit")
                self.assertNotEqual(ours.get("raises"), "NotImplementedError")
                theirs = upstream_params(name)
                if theirs is not None:
                    self.assertEqual(ours["params"], theirs)
                cls = getattr(upstream, name, None)
                if inspect.isclass(cls) and hasattr(cls, "__dataclass_fields__"):
                    self.assertEqual(ours.get("fields", []), list(cls.__dataclass_fields__))


@unittest.skipUnless(os.environ.get("ETKIT_PYTHON_ENV") is not None, "etkit's Python module is not built")
class SameCallsAgree(unittest.TestCase):
    def compare_events(self, trace, record=None):
        theirs = Inspector(etdump_path=str(trace), etrecord=None if record is None else str(record))
        expected = []
        for block in theirs.event_blocks:
            for event in block.events:
                row = event.asdict()
                del row["debug_data"]
                expected.append({"block": block.name, "num_outputs": event.num_outputs,
                                 "asdict": json.loads(json.dumps(row, default=str))})
        ours = etkit_python("--events", trace, *([record] if record else []))
        self.assertEqual(len(ours), len(expected))
        for mine, their in zip(ours, expected):
            with self.subTest(block=their["block"], event=their["asdict"]["event_name"]):
                self.assertEqual(mine["num_outputs"], their["num_outputs"])
                self.assertEqual(sorted(mine["asdict"]), sorted(their["asdict"]))
                # Durations agree to well under the clock's 1 ns (1e-6 ms): upstream converts a
                # delegated event's two timestamps to ms and subtracts them, which rounds in
                # proportion to the readings (a steady clock's, ~1e-9 ms after hours of uptime);
                # etkit converts the difference.
                starts = their["asdict"].get("start_time", [None])[0] or [0]
                tolerance = 1e-7 + max(abs(float(t)) for t in starts) / 1e6 * 1e-14
                for key, value in their["asdict"].items():
                    if key in ("module_hierarchy", "stack_traces", "op_types"):
                        continue  # linking is compared by test_traces and test_samples
                    if isinstance(value, float):
                        self.assertAlmostEqual(mine["asdict"][key], value, delta=tolerance, msg=key)
                    elif key == "raw":
                        for a, b in zip(mine["asdict"][key][0], value[0]):
                            self.assertAlmostEqual(a, b, delta=tolerance, msg=key)
                    else:
                        self.assertEqual(mine["asdict"][key], value, key)

    def test_event_asdict_on_upstreams_trace(self):
        self.compare_events(TUTORIAL_TRACE)

    def test_event_num_outputs_and_asdict_on_a_delegated_program_with_its_record(self):
        name = "yolo_detector_xnnpack"
        sample = oracle.REPO / "samples" / name
        with tempfile.TemporaryDirectory() as folder:
            trace = Path(folder) / "trace.etdp"
            oracle.etinspect("run", sample / f"{name}.pte", "--iterations", 2, "--etdump", trace)
            self.compare_events(trace, sample / f"{name}.etrecord")


if __name__ == "__main__":
    unittest.main()
