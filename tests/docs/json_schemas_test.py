#!/usr/bin/python3
"""Every report etinspect prints with --json matches its schema in
docs/schemas/ (JSON Schema 2020-12, checked with Debian's python3-jsonschema):
keys required and typed, no undocumented key, and every subcommand whose help
offers --json has a schema. Each command runs on shipped samples in the
variants that change the report's shape (traced or not, gated or not, one
bundle or several, a program's plan or a trace's allocations).

Usage: json_schemas_test.py --repo DIR --etinspect PATH
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import jsonschema


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--etinspect", required=True)
    args = parser.parse_args()
    repo = os.path.abspath(args.repo)
    schemas_dir = os.path.join(repo, "docs", "schemas")
    sample = lambda p: os.path.join(repo, "samples", p)
    problems = []

    def etinspect(*argv, ok=(0,)):
        done = subprocess.run([args.etinspect, *argv], capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"))
        if done.returncode not in ok:
            problems.append(f"etinspect {' '.join(argv)}: exit {done.returncode}: {done.stderr[-500:]}")
            return None
        return done.stdout

    help_text = subprocess.run([args.etinspect, "--help"], capture_output=True, text=True).stdout
    subcommands = [line.split()[0] for line in help_text.split("Subcommands:")[1].splitlines() if line.strip()]
    for sub in subcommands:
        sub_help = subprocess.run([args.etinspect, "help", sub], capture_output=True, text=True).stdout
        if "--json" in sub_help and not os.path.exists(os.path.join(schemas_dir, sub + ".schema.json")):
            problems.append(f"{sub} prints --json but docs/schemas/{sub}.schema.json does not exist")

    with tempfile.TemporaryDirectory(prefix="etkit-schemas-") as tmp:
        t = lambda name: os.path.join(tmp, name)
        cnn, cnn_bpte, cnn_record = sample("tutorial_cnn/tutorial_cnn.pte"), sample("tutorial_cnn/tutorial_cnn.bpte"), \
            sample("tutorial_cnn/tutorial_cnn.etrecord")
        llama = sample("tiny_llama/tiny_llama.pte")
        calls = {
            "run": [("run", cnn, "--json"),
                    ("run", cnn_bpte, "--bundled-input", "1", "--iterations", "3", "--warmup", "1", "--print-outputs",
                     "--etdump", t("a.etdp"), "--debug-level", "intermediates", "--debug-buffer", t("a.bin"), "--json"),
                    ("run", cnn, "--iterations", "6", "--etdump", t("b.etdp"), "--json"),
                    ("run", cnn, "--etdump", t("alloc.etdp"), "--trace-allocations", "--json"),
                    ("run", sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte"), "--etdump", t("x.etdp"), "--json")],
            "verify": [("verify", cnn_bpte, "--json"), ("verify", cnn_bpte, sample("resnet18/resnet18.bpte"), "--json"),
                       ("verify", cnn_bpte, t("missing.bpte"), "--json")],
            "table": [("table", t("a.etdp"), "--json"), ("table", t("a.etdp"), "--etrecord", cnn_record, "--debug-buffer",
                                                         t("a.bin"), "--json"),
                      ("table", t("x.etdp"), "--program", sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte"), "--json")],
            "diff": [("diff", t("a.etdp"), t("b.etdp"), "--json"),
                     ("diff", t("a.etdp"), t("b.etdp"), "--fail-above", "5", "--fail-total-above", "5", "--etrecord",
                      cnn_record, "--stat", "min", "--json")],
            "modules": [("modules", t("a.etdp"), "--etrecord", cnn_record, "--json")],
            "gap": [("gap", t("a.etdp"), "--debug-buffer", t("a.bin"), "--reference", t("a.etdp"),
                     "--reference-debug-buffer", t("a.bin"), "--etrecord", cnn_record, "--program", cnn, "--json")],
            "memory": [("memory", cnn, "--json"), ("memory", t("alloc.etdp"), "--json")],
            "generate": [("generate", llama, "--prompt-tokens", "1,2,3", "--max-new", "4", "--etdump", t("g.etdp"),
                          "--json")],
            "steps": [("steps", t("g.etdp"), "--json")],
            "size": [("size", cnn, "--json"), ("size", cnn_bpte, "--etrecord", cnn_record, "--top", "3", "--json")],
            "diff-program": [("diff-program", sample("mobilenet_v2/mobilenet_v2.pte"),
                              sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte"), "--json")],
            "info": [("info", cnn, cnn_bpte, cnn_record, sample("tiny_llama/tiny_llama.pte"), "--json")],
            "trace": [("trace", t("a.etdp"), "-o", t("a.json"), "--json"),
                      ("trace", t("x.etdp"), "-o", t("x.json"), "--layout", "sequence", "--json")],
            "bundle": [("bundle", cnn_bpte, "--extract", t("extracted"), "--json"),
                       ("bundle", cnn, "--add-case", t("extracted/forward/case0/input_0.npy") + "=" +
                        t("extracted/forward/case0/expected_0.npy"), "-o", t("again.bpte"), "--json")],
        }
        checked = 0
        for sub, variants in calls.items():
            with open(os.path.join(schemas_dir, sub + ".schema.json"), encoding="utf-8") as f:
                schema = json.load(f)
            jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema)
            for argv in variants:
                out = etinspect(*argv, ok=(0, 1))
                if out is None:
                    continue
                errors = sorted(validator.iter_errors(json.loads(out)), key=lambda e: list(e.path))
                for error in errors[:5]:
                    problems.append(f"{' '.join(os.path.basename(a) for a in argv)}: at "
                                    f"{'/'.join(str(p) for p in error.path) or '(root)'}: {error.message[:300]}")
                checked += 1
        # info on a trace and a .ptd-less broken file: the error objects.
        out = etinspect("info", t("a.etdp"), t("a.bin"), "--json", ok=(0, 1, 2))
        if out is not None:
            with open(os.path.join(schemas_dir, "info.schema.json"), encoding="utf-8") as f:
                for error in jsonschema.Draft202012Validator(json.load(f)).iter_errors(json.loads(out)):
                    problems.append(f"info on a trace and a non-file: {error.message[:300]}")
            checked += 1

    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{checked} reports checked against docs/schemas/, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
