#!/usr/bin/python3
"""`import etkit` on the inspector benchmark's 1M-event traces: the module's
Inspector(...) plus its dataframe columns, and pandas' DataFrame assembly
reported apart, against `etinspect table` on the same file (whole process). The pandas step is
etkit.inspector._frame, what to_dataframe() does with the columns.
Median of REPEATS runs each.

    /usr/bin/python3 bench/python_inspector_bench.py BUILD_DIR [REPEATS]

BUILD_DIR holds cli/etinspect, bench/make_trace and python/etkit.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

build = os.path.abspath(sys.argv[1])
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
sys.path.insert(0, os.path.join(build, "python"))
import etkit  # noqa: E402

RUNS = 5000  # x 100 operators x 2 events + Method::execute: 1,005,000 profile events


def median_seconds(work, before=lambda: None):
    times = []
    for _ in range(repeats):
        before()  # drops the previous result outside the timed region
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


with tempfile.TemporaryDirectory(prefix="etkit-pybench-") as scratch:
    for label, extra in [("one block of 5,000 runs", []), ("5,000 blocks (one per run)", ["--per-run-blocks"])]:
        trace = os.path.join(scratch, "trace.etdp")
        subprocess.run([os.path.join(build, "bench", "make_trace"), trace, str(RUNS), *extra], check=True,
                       stdout=subprocess.DEVNULL)

        def cli():
            with open(os.devnull, "w") as sink:
                subprocess.run([os.path.join(build, "cli", "etinspect"), "table", trace], check=True, stdout=sink)

        columns = {}

        def module():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                inspector = etkit.Inspector(etdump_path=trace)
            with etkit.inspector._without_cyclic_gc():  # as to_dataframe() builds them
                columns["value"] = inspector._native.columns(" (ms)", False, etkit.inspector._EMPTY_DICT,
                                                             etkit.inspector._EMPTY_LIST)

        rows = {}

        def pandas():
            with etkit.inspector._without_cyclic_gc():
                # What to_dataframe() does with the columns (a copy: it pops keys).
                rows["frame"] = etkit.inspector._frame(dict(columns["value"]), False, None)

        cli_s = median_seconds(cli)
        module_s = median_seconds(module, before=lambda: columns.clear())
        pandas_s = median_seconds(pandas, before=lambda: rows.clear())
        print(f"{label}: {len(rows['frame']):,} rows")
        print(f"  etinspect table (process)          {cli_s * 1e3:8.1f} ms")
        print(f"  etkit.Inspector + columns          {module_s * 1e3:8.1f} ms  ({module_s / cli_s:.2f}x the CLI)")
        print(f"  pandas DataFrame from the columns  {pandas_s * 1e3:8.1f} ms")
        print(f"  to_dataframe() in all              {(module_s + pandas_s) * 1e3:8.1f} ms"
              f"  ({(module_s + pandas_s) / cli_s:.2f}x the CLI)")
