"""The Python module `etkit`, built by CMake: `pip install --no-build-isolation .`

The extension etkit._etkit is the CMake target _etkit; the pure-Python
package is python/etkit/. ETKIT_CMAKE_BUILD_DIR names an existing CMake
build folder to reuse (only _etkit is brought up to date there); without it
a Release build of the module alone is configured under build/.
"""

import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = os.path.dirname(os.path.abspath(__file__))
# The one version: CMake's project() line, which etinspect --version and etkit.__version__ also say.
with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as cmake_lists:
    PROJECT_VERSION = re.search(r"project\(etkit VERSION ([0-9.]+)", cmake_lists.read()).group(1)


class CMakeExtension(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("ETKIT_CMAKE_BUILD_DIR") or os.path.join(SOURCE, "build", "python-wheel")
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            subprocess.run(["cmake", "-S", SOURCE, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                            "-DETKIT_BUILD_PYTHON=ON", "-DETKIT_BUILD_TESTS=OFF", "-DETKIT_BUILD_BENCH=OFF",
                            "-DETKIT_BUILD_GUI=OFF", "-DETKIT_BUILD_DEVICE=OFF",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        # Every core; CMake's progress lines show with `pip install -v`.
        subprocess.run(["cmake", "--build", build_dir, "--target", "_etkit", "--parallel", str(os.cpu_count() or 1)],
                       check=True)
        built = glob.glob(os.path.join(build_dir, "python", "etkit", "_etkit*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one _etkit module in {build_dir}/python/etkit, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    name="etkit",
    version=PROJECT_VERSION,
    description="ExecuTorch's Inspector, runtime and bundled-program verifier, without PyTorch",
    packages=["etkit"],
    package_dir={"": "python"},
    package_data={"etkit": ["py.typed", "_etkit.pyi"]},
    ext_modules=[Extension("etkit._etkit", sources=[])],
    cmdclass={"build_ext": CMakeExtension},
    python_requires=">=3.9",
    install_requires=["numpy"],
    zip_safe=False,
)
