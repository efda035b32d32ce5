// The compiled half of `import etkit` (etkit._etkit); python/etkit/ is the
// other half, with upstream's Inspector names.

#include <pybind11/pybind11.h>

#include "backend_notes.h"
#include "errors.h"

namespace etkit::python {
void register_inspector(pybind11::module_& m);
void register_gap(pybind11::module_& m);
void register_program(pybind11::module_& m);
void register_reports(pybind11::module_& m);
}  // namespace etkit::python

PYBIND11_MODULE(_etkit, m) {
  m.doc() = "etkit's inspector, runtime and verifier (see the etkit package)";
  m.attr("__version__") = ETKIT_VERSION;  // the project's version, as `etinspect --version` says it
  etkit::python::register_errors(m);
  etkit::python::collect_backend_notes();
  etkit::python::register_inspector(m);
  etkit::python::register_gap(m);
  etkit::python::register_program(m);
  etkit::python::register_reports(m);
}
