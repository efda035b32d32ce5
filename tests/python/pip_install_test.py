"""`pip install --no-build-isolation .` works offline from Debian's packages:
installs into a fresh virtual environment (with the system's site packages,
where numpy and pandas are) reusing this build folder, then imports etkit
from outside the source and build trees and runs a program with it.

    pip_install_test.py SOURCE_DIR BUILD_DIR VENV_DIR
"""

import os
import shutil
import subprocess
import sys

source, build, venv = sys.argv[1:4]
shutil.rmtree(venv, ignore_errors=True)
subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
python = os.path.join(venv, "bin", "python")
env = dict(os.environ, ETKIT_CMAKE_BUILD_DIR=build, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
env.pop("PYTHONPATH", None)  # the installed copy, not the build tree's
# pip, CMake and the compiler are not sanitized programs: no ASan preload for them.
build_env = {k: v for k, v in env.items() if k != "LD_PRELOAD"}
subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--quiet", source],
               check=True, env=build_env, cwd=venv)
check = f"""
import os, numpy as np, etkit
assert etkit.__file__.startswith({venv!r}), etkit.__file__
method = etkit.Program({os.path.join(os.environ['ETKIT_CORPUS_DIR'], 'upstream/ptd/add_mul_external.pte')!r},
                       data=[{os.path.join(os.environ['ETKIT_CORPUS_DIR'], 'upstream/ptd/add_mul_external.ptd')!r}]).method()
out = method.run([np.array([[1, 2], [3, 4]], dtype=np.float32)])[0]
assert out.tolist() == [[5, 8], [11, 14]], out
print("installed etkit at", os.path.dirname(etkit.__file__))
"""
subprocess.run([python, "-c", check], check=True, env=env, cwd=venv)
# pip's build leaves build/ and *.egg-info in the source tree: not ours to keep.
for leftover in ["python/etkit.egg-info"]:
    shutil.rmtree(os.path.join(source, leftover), ignore_errors=True)
