"""Prints etkit.Inspector(etdump_path=ARGV[1]).to_dataframe() as JSON records.

Runs in etkit's own interpreter (Debian's Python, where the etkit module is
built), not in the upstream environment: the two cannot share a process
(the module is built against Debian's numpy 1.x, the wheel needs numpy 2).
test_traces.py compares what this prints with upstream's dataframe.
"""
import json
import sys

import etkit

frame = etkit.Inspector(etdump_path=sys.argv[1]).to_dataframe()
records = frame.drop(columns=["debug_data"]).to_dict("records")
json.dump({"columns": list(frame.columns), "records": records}, sys.stdout, default=str)
