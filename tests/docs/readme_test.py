#!/usr/bin/python3
"""The README's commands cannot drift from the code.

1. Every code block that holds a command (etinspect, scripts/, python, pip,
   cmake) carries a doc-test annotation in an HTML comment right after it:
     <!-- doc-test: exit=0 stdout="summary: 3 passed" -->  run it, check both
     <!-- doc-test: main -->       the main command: its etinspect steps run
     <!-- doc-test: ci -->         the test command: .ci/run must be exactly it
     <!-- doc-test: synopsis -->   placeholders (BUNDLE.bpte): options checked only
     <!-- doc-test: covered-by=NAME -->  run by the ctest test NAME (must exist)
   A block without one fails the test.
2. Every option the README names for a subcommand (`etinspect SUB ... --opt`
   in a code span or block, or `SUB --opt` in a code span) is one that
   `etinspect help SUB` lists: a renamed option cannot linger in the docs.

Usage: readme_test.py --repo DIR --etinspect PATH [--python-path DIR] [--python-preload LIBS]
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

COMMAND_WORDS = ("etinspect", "build/cli/etinspect", "scripts/", "python", "/usr/bin/python3", "pip ", "cmake ",
                 "PYTHONPATH=")


def code_blocks(lines):
    """(first line number, lines, annotation or None) of each fenced or
    indented code block."""
    blocks = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            start = i + 1
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            i += 1
        elif line.startswith("    ") and i > 0 and lines[i - 1].strip() == "" and not line.lstrip().startswith(("-", "|")):
            start = i + 1
            body = []
            while i < len(lines) and (lines[i].startswith("    ") or (lines[i].strip() == "" and i + 1 < len(lines)
                                                                      and lines[i + 1].startswith("    "))):
                body.append(lines[i][4:])
                i += 1
        else:
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].strip() == "":
            j += 1
        annotation = None
        if j < len(lines):
            match = re.match(r"\s*<!-- doc-test: (.*?) -->\s*$", lines[j])
            if match:
                annotation = match.group(1)
        blocks.append((start, body, annotation))
    return blocks


def holds_command(body):
    return any(l.strip().startswith(COMMAND_WORDS) for l in body)


def parse_annotation(text):
    fields = {}
    for key, value in re.findall(r'(\w[\w-]*)(?:=("[^"]*"|\S+))?', text):
        fields[key] = value.strip('"') if value else True
    return fields


class Help:
    def __init__(self, etinspect):
        self.etinspect = etinspect
        self.cache = {}
        out = subprocess.run([etinspect, "--help"], capture_output=True, text=True).stdout
        self.subcommands = set(re.findall(r"^  ([a-z][a-z-]*)\s", out, re.M))

    def options(self, sub):
        if sub not in self.cache:
            out = subprocess.run([self.etinspect, "help", sub], capture_output=True, text=True).stdout
            self.cache[sub] = set(re.findall(r"(--[a-z][a-z0-9-]*)", out))
        return self.cache[sub]


def named_options(readme, help_):
    """(line, subcommand, option) for every option the README names for a
    subcommand."""
    found = []
    # A command continued with a backslash is one line (numbered as its first).
    joined = re.sub(r"\\\n\s*", lambda m: " " + "\x00" * m.group(0).count("\n"), readme)
    for number, line in enumerate(joined.split("\n"), 1):
        number += sum(l.count("\x00") for l in joined.split("\n")[:number - 1])
        line = line.replace("\x00", "")
        spans = re.findall(r"`([^`]+)`", line)
        if line.startswith(("etinspect ", "    etinspect ", "build/cli/etinspect ")) or "&& build/cli/etinspect" in line:
            spans.append(line)
        for span in spans:
            for segment in re.split(r"&&|;|\|", span):
                words = segment.split()
                while words and words[0] in ("etinspect", "build/cli/etinspect", "build-test/cli/etinspect"):
                    words = words[1:]
                    if words and words[0] in help_.subcommands:
                        sub = words[0]
                        for word in words[1:]:
                            for option in re.findall(r"^(--[a-z][a-z0-9-]*)", word):
                                found.append((number, sub, option))
                    words = []
                if len(words) >= 2 and words[0] in help_.subcommands and words[1].startswith("--"):
                    for option in re.findall(r"(--[a-z][a-z0-9-]*)", words[1]):
                        found.append((number, words[0], option))
    return found


def run_block(body, workdir, env):
    script = "set -euo pipefail\n" + "\n".join(body) + "\n"
    return subprocess.run(["bash", "-c", script], cwd=workdir, env=env, capture_output=True, text=True, timeout=600)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--etinspect", required=True)
    parser.add_argument("--python-path", default="", help="the build's python/ folder (the README's build/python)")
    parser.add_argument("--python-preload", default="",
                        help="LD_PRELOAD for blocks that import a sanitized module (ASan's runtime first)")
    args = parser.parse_args()
    args.repo = os.path.abspath(args.repo)
    readme_path = os.path.join(args.repo, "README.md")
    readme = open(readme_path, encoding="utf-8").read()
    lines = readme.split("\n")
    help_ = Help(args.etinspect)
    problems = []
    ran = 0

    for number, sub, option in named_options(readme, help_):
        if option not in help_.options(sub):
            problems.append(f"README.md:{number}: `{sub} {option}`: etinspect {sub} has no such option")

    with tempfile.TemporaryDirectory(prefix="etkit-readme-") as workdir:
        # The README's paths: samples/ and build/ (the main command's build
        # folder) as a fresh clone would have them, etinspect on PATH.
        os.symlink(os.path.join(args.repo, "samples"), os.path.join(workdir, "samples"))
        os.makedirs(os.path.join(workdir, "build", "cli"))
        os.makedirs(os.path.join(workdir, "bin"))
        for link in (os.path.join(workdir, "build", "cli", "etinspect"), os.path.join(workdir, "bin", "etinspect")):
            os.symlink(os.path.abspath(args.etinspect), link)
        if args.python_path:
            os.symlink(os.path.abspath(args.python_path), os.path.join(workdir, "build", "python"))
        env = dict(os.environ, PATH=os.path.join(workdir, "bin") + os.pathsep + os.environ["PATH"], NO_COLOR="1")

        for start, body, annotation in code_blocks(lines):
            if not holds_command(body):
                continue
            where = f"README.md:{start}"
            if annotation is None:
                problems.append(f"{where}: a command block without a <!-- doc-test: ... --> annotation")
                continue
            fields = parse_annotation(annotation)
            if "synopsis" in fields:
                continue
            if "covered-by" in fields:
                name = fields["covered-by"]
                cmake = open(os.path.join(args.repo, "tests", "CMakeLists.txt"), encoding="utf-8").read()
                if f"add_test(NAME {name}" not in cmake:
                    problems.append(f"{where}: covered-by={name}, but tests/CMakeLists.txt adds no test {name}")
                continue
            if "ci" in fields:
                ci = open(os.path.join(args.repo, ".ci", "run"), encoding="utf-8").read()
                if body[0].strip() not in ci.split("\n"):
                    problems.append(f"{where}: .ci/run does not call exactly this command")
                continue
            if "main" in fields:
                # Its etinspect steps (install, configure, build and the GUI's
                # picture are what the rest of the suite checks).
                steps = [s.strip() for s in body[0].split("&&") if s.strip().startswith("build/cli/etinspect")]
                for step in steps:
                    done = run_block([step], workdir, env)
                    ran += 1
                    if done.returncode != 0:
                        problems.append(f"{where}: main command step exited {done.returncode}: {step}\n{done.stderr[-600:]}")
                continue
            block_env = env
            if any("python" in l for l in body):
                if not args.python_path:
                    print(f"{where}: skipped: no Python module in this build")
                    continue
                if args.python_preload:
                    block_env = dict(env, LD_PRELOAD=args.python_preload, ASAN_OPTIONS="detect_leaks=0")
            done = run_block(body, workdir, block_env)
            ran += 1
            expected = int(fields.get("exit", 0))
            if done.returncode != expected:
                problems.append(f"{where}: exited {done.returncode}, expected {expected}\n{done.stderr[-800:]}")
            wanted = fields.get("stdout")
            if wanted and wanted not in done.stdout:
                problems.append(f"{where}: stdout lacks {wanted!r}\n{done.stdout[-800:]}")
            wanted = fields.get("stderr")
            if wanted and wanted not in done.stderr:
                problems.append(f"{where}: stderr lacks {wanted!r}\n{done.stderr[-800:]}")

    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"README: {ran} command blocks or steps run, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
