#!/usr/bin/python3
"""The samples' manifest: a hash of every checked-in sample file and of the
sources that make them, so a sample cannot drift from its generator.

    samples/export/manifest.py --write    # after samples/export/regenerate
    samples/export/manifest.py --check    # a test: exit 1 naming what differs

ETRecords made by upstream's generate_etrecord are not byte-identical from
one run to the next: their zip entries carry the time of writing, and each
graph node's `from_node` provenance names its graph by `graph_id`, a Python
object address. Their hash covers every entry's name and content with those
ids masked; every other file is hashed byte for byte. Standard library only.
"""

import argparse
import hashlib
import json
import re
import sys
import zipfile
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[1]
REPO = SAMPLES.parent
MANIFEST = SAMPLES / "manifest.json"
# What makes the samples: the exporters and the pinned upstream environment.
GENERATOR_SOURCES = ["samples/export/regenerate", "samples/export/manifest.py", "samples/export/upstream/*.py",
                     "samples/export/cortex_m_reference/*.py", "samples/export/cortex_m_reference/etexport/*.py",
                     "samples/tiny/make_tiny_samples.py", "scripts/upstream/requirements.lock"]
GRAPH_ID = re.compile(rb'(graph_id[\\"]*: )\d+')  # at any depth of JSON quoting


def etrecord_hash(path):
    digest = hashlib.sha256()
    with zipfile.ZipFile(path) as archive:
        for name in sorted(archive.namelist()):
            digest.update(name.encode() + b"\0")
            digest.update(GRAPH_ID.sub(rb"\g<1>0", archive.read(name)) + b"\0")
    return digest.hexdigest()


def file_hash(path):
    if path.suffix == ".etrecord" and zipfile.is_zipfile(path):
        return etrecord_hash(path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sample_files():
    return sorted(p for p in SAMPLES.glob("*/*") if p.is_file() and p.parent.name != "export" and p.suffix != ".py")


def generator_hash():
    digest = hashlib.sha256()
    for pattern in GENERATOR_SOURCES:
        for path in sorted(REPO.glob(pattern)):
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def current():
    return {"generator": generator_hash(),
            "files": {str(p.relative_to(SAMPLES)): file_hash(p) for p in sample_files()}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true")
    action.add_argument("--check", action="store_true")
    args = parser.parse_args()
    now = current()
    if args.write:
        MANIFEST.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"{MANIFEST.relative_to(REPO)}: {len(now['files'])} files", file=sys.stderr)
        return 0
    recorded = json.loads(MANIFEST.read_text())
    problems = []
    if recorded["generator"] != now["generator"]:
        problems.append("the exporters or the upstream lock changed since the samples were made")
    for name in sorted(set(recorded["files"]) | set(now["files"])):
        if name not in now["files"]:
            problems.append(f"{name}: listed, but not in samples/")
        elif name not in recorded["files"]:
            problems.append(f"{name}: in samples/, but not made by the generator")
        elif recorded["files"][name] != now["files"][name]:
            problems.append(f"{name}: not what the generator made")
    for problem in problems:
        print(f"samples/manifest.json: {problem}", file=sys.stderr)
    if problems:
        print("run samples/export/regenerate (it rewrites the samples and the manifest)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
