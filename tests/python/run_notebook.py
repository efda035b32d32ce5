"""Executes a notebook end to end with nbclient (Debian's python3-nbclient
and python3-ipykernel) from its own folder; fails on the first cell that
raises, and when a code cell shows nothing.

    run_notebook.py NOTEBOOK SCRATCH_DIR [--write]

--write stores the executed notebook over NOTEBOOK (its rendered outputs
are checked in).
"""

import os
import sys

import nbformat
from nbclient import NotebookClient

path, scratch = sys.argv[1], sys.argv[2]
os.makedirs(scratch, exist_ok=True)
notebook = nbformat.read(path, as_version=4)
client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                        resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}})
client.execute()
silent = [i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code" and not cell.outputs]
if silent:
    sys.exit(f"{path}: code cells {silent} produced no output")
errors = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs if o.output_type == "error"]
if errors:
    sys.exit(f"{path}: {errors[0].ename}: {errors[0].evalue}")
nbformat.write(notebook, os.path.join(scratch, os.path.basename(path)))
if "--write" in sys.argv[3:]:
    nbformat.write(notebook, path)
print(f"{path}: {sum(c.cell_type == 'code' for c in notebook.cells)} code cells executed")
