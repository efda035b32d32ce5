"""etkit's types: the package and a typed user of it (typed_usage.py) pass
Debian's mypy with the native module's stubs; wrong uses are caught (so the
stubs are what mypy reads); the report TypedDicts have the keys, required
keys and JSON types of docs/schemas; upstream's signatures show in help().

    type_check_test.py REPO    (etkit importable: PYTHONPATH at the build's python/)
"""
import inspect
import json
import os
import subprocess
import sys
import tempfile
import typing
import unittest

import etkit
import etkit.reports

REPO = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
PACKAGE = os.path.join(REPO, "python")


def mypy(*paths):
    env = dict(os.environ, MYPYPATH=PACKAGE)  # the sources and stubs, not the build's copy
    with tempfile.TemporaryDirectory() as cache:
        return subprocess.run([sys.executable, "-m", "mypy", "--config-file", os.path.join(PACKAGE, "mypy.ini"),
                               "--cache-dir", cache, *paths], capture_output=True, text=True, env=env)


class Mypy(unittest.TestCase):
    def test_the_package_and_a_typed_user_pass(self):
        done = mypy(os.path.join(PACKAGE, "etkit"), os.path.join(REPO, "tests", "python", "typed_usage.py"))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)

    def test_wrong_uses_are_caught(self):
        wrong = {
            3: ('etkit.Program(3)', "Program"),
            4: ('etkit.Program("a.pte").method().run([], bfloat16="half")', "bfloat16"),
            5: ('etkit.verify("b.bpte")["no_such_key"]', "no_such_key"),
            6: ('etkit.Inspector(etdump_path="t.etdp").find_total_for_module(7)', "find_total_for_module"),
        }
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "wrong.py")
            with open(path, "w") as f:
                f.write("import etkit\n\n" + "\n".join(code for code, _ in wrong.values()) + "\n")
            done = mypy(path)
        self.assertEqual(done.returncode, 1, done.stdout)
        for line, (_, word) in wrong.items():
            self.assertRegex(done.stdout, rf"wrong\.py:{line}: error: .*{word}", done.stdout)


_JSON_TYPES = {"string": str, "integer": int, "number": float, "array": list, "object": dict, "boolean": bool}


def schema(name, *path):
    with open(os.path.join(REPO, "docs", "schemas", f"{name}.schema.json")) as f:
        node = json.load(f)
    for step in path:
        node = node[step]
    return node


class ReportTypesFollowTheSchemas(unittest.TestCase):
    def check(self, typed, node):
        hints = typing.get_type_hints(typed)
        self.assertEqual(set(hints), set(node["properties"]), typed.__name__)
        self.assertEqual(set(typed.__required_keys__), set(node.get("required", [])), typed.__name__)
        for key, hint in hints.items():
            expected = _JSON_TYPES[node["properties"][key]["type"]]
            self.assertIs(typing.get_origin(hint) or hint, expected, f"{typed.__name__}.{key}")

    def test_each_report_type(self):
        self.check(etkit.VerifyReport, schema("verify", "$defs", "bundle"))
        self.check(etkit.MemoryPlanReport, schema("memory", "oneOf", 0))
        self.check(etkit.MemoryTraceReport, schema("memory", "oneOf", 1))
        self.check(etkit.SizeReport, schema("size"))
        self.check(etkit.DiffProgramReport, schema("diff-program"))
        info = schema("info", "items")
        self.check(etkit.FileInfo, {"properties": {k: {"type": v.get("type", "string")}
                                                   for k, v in info["properties"].items()},
                                    "required": info["required"]})


class Signatures(unittest.TestCase):
    def test_help_shows_upstreams_constructor(self):
        names = list(inspect.signature(etkit.Inspector).parameters)
        self.assertEqual(names[:4], ["etdump_path", "etdump_data", "etrecord", "source_time_scale"])

    def test_native_classes_have_python_signatures(self):
        # The native Program and Method answer inspect.signature as Python
        # classes do: parameter names and defaults, no C++ types.
        self.assertEqual(str(inspect.signature(etkit.Program)), "(path, data=None, threads=0)")
        self.assertEqual(str(inspect.signature(etkit.Program.method)), "(self, /, name='forward')")
        run = inspect.signature(etkit.Method.run)
        self.assertEqual(list(run.parameters), ["self", "inputs", "etdump", "debug_buffer", "debug_level", "bfloat16"])
        self.assertEqual(run.parameters["debug_level"].default, "none")
        for documented in (etkit.Program, etkit.Method, etkit.Method.run, etkit.Program.method):
            self.assertNotIn("etkit::", documented.__doc__ or "")
            self.assertTrue(documented.__doc__, documented)

    def test_native_class_examples_run(self):
        import doctest
        import numpy as np

        samples = os.path.join(os.environ.get("ETKIT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                               "samples")
        finder = doctest.DocTestFinder(exclude_empty=True)
        runner = doctest.DocTestRunner()
        for cls in (etkit.Program, etkit.Method):
            for test in finder.find(cls, cls.__name__, globs={"etkit": etkit, "np": np, "samples": samples}):
                runner.run(test)
        self.assertGreaterEqual(runner.tries, 4)
        self.assertEqual(runner.failures, 0)


if __name__ == "__main__":
    unittest.main()
