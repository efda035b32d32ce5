#!/usr/bin/python3
"""The libraries' include graph against the layers DESIGN.md draws.

Reads every `#include "etkit/<library>/…"` of each library's sources and
fails when one names a library its layer may not use (the runtime a kernel,
a reader the inspector, …), or reaches another folder by a relative path.
Prints the graph it found.

    layering_test.py REPO
"""
import os
import re
import sys

# Who may include whom: the one-way arrows of DESIGN.md ("The shape in one
# picture"). Each library may include itself.
ALLOWED = {
    "core": set(),
    "kernels": {"core"},
    "generation": {"core"},
    "etdump": {"core"},
    "bundled": {"core"},
    "etrecord": {"core"},
    "report": set(),
    "delegates": {"core", "kernels"},
    "inspector": {"core", "etdump", "bundled", "etrecord", "delegates", "report"},
    "gui/model": {"core", "kernels", "etdump", "bundled", "etrecord", "delegates", "report", "inspector"},
    # The device runner: the runtime, op sets, verifier, traces, generation
    # and the delegates its target runs; nothing host-only.
    "device": {"core", "kernels", "bundled", "etdump", "generation", "delegates"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes_by_library(repo):
    found = {}
    for library in ALLOWED:
        names = set()
        for folder, _, files in os.walk(os.path.join(repo, library)):
            for name in files:
                if not name.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for target in INCLUDE.findall(f.read()):
                        names.add((os.path.relpath(path, repo), target))
        found[library] = names
    return found


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    problems = []
    for library, includes in sorted(includes_by_library(repo).items()):
        used = set()
        for path, target in includes:
            if target.startswith("../"):
                reached = os.path.normpath(os.path.join(os.path.dirname(path), target))
                if not reached.startswith(library + os.sep):
                    problems.append(f"{path}: includes {target}, outside {library}/, by a relative path")
            match = re.match(r"etkit/([a-z_]+)/", target)
            if not match:
                continue
            other = "gui/model" if match.group(1) == "gui" else match.group(1)
            if other == library.split("/")[0] or other == library:
                continue
            used.add(other)
            if other not in ALLOWED[library]:
                problems.append(f"{path}: {library} includes {target}; {library} may use only "
                                f"{', '.join(sorted(ALLOWED[library])) or 'itself'}")
        print(f"{library} -> {', '.join(sorted(used)) or '(itself only)'}")
    for problem in problems:
        print("layering: " + problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
