#!/usr/bin/python3
"""The libraries' include graph against the layers DESIGN.md draws.

Reads every `#include "etkit/<library>/…"` of each library's sources and
fails when one names a library its layer may not use (the runtime a kernel,
a reader the inspector, the Python module the CLI, …), reaches another
folder by a relative path, or takes a private header that is not its own
(the Python module a header of cli/src).
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
    "gui/model": {"core", "kernels", "etdump", "bundled", "etrecord", "delegates", "report", "inspector", "session"},
    # What the front ends share: loading, tracing, host verification and
    # the reports made from file paths.
    "session": {"core", "kernels", "generation", "etdump", "bundled", "etrecord", "delegates", "report", "inspector"},
    # The front ends: they present what the libraries compute.
    "python": {"core", "etdump", "etrecord", "inspector", "report", "session"},
    # The device runner: the runtime, op sets, verifier, traces, generation
    # and the delegates its target runs; nothing host-only.
    "device": {"core", "kernels", "bundled", "etdump", "generation", "delegates"},
}
# Headers CMake writes into the build tree (the op-set list, upstream's op
# lists); flatc's *_generated.h are recognised by name.
GENERATED = {"op_set_list.h", "upstream_op_lists.h"}
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


def own_header(repo, library, path, target):
    if os.path.exists(os.path.join(repo, os.path.dirname(path), target)):
        return True
    for folder, _, files in os.walk(os.path.join(repo, library)):
        if os.path.exists(os.path.join(folder, target)):
            return True
    return False


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
                # A private header must be the library's own: found beside
                # the file or in the library's folders (flatc writes the
                # *_generated.h ones into the build tree).
                generated = target.endswith("_generated.h") or target in GENERATED
                if not generated and not own_header(repo, library, path, target):
                    problems.append(f"{path}: includes {target}, a header that is not {library}'s own")
                continue
            other = "gui/model" if match.group(1) == "gui" else match.group(1)
            if other == library.split("/")[0] or other == library:
                continue
            used.add(other)
            if other not in ALLOWED[library]:
                problems.append(f"{path}: {library} includes {target}; {library} may use only "
                                f"{', '.join(sorted(ALLOWED[library])) or 'itself'}")
        print(f"{library} -> {', '.join(sorted(used)) or '(itself only)'}")
    # The Python module presents the libraries; it does not run the CLI.
    with open(os.path.join(repo, "python", "CMakeLists.txt"), encoding="utf-8") as f:
        if "etkit_cli_lib" in f.read():
            problems.append("python/CMakeLists.txt: links etkit_cli_lib; the module may use the libraries only")
    for problem in problems:
        print("layering: " + problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
