#include "backend_notes.h"

#include <pybind11/pybind11.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "etkit/session/loaded_program.h"

namespace py = pybind11;

namespace etkit::python {
namespace {

std::mutex pending_mutex;
std::vector<std::string> pending;  // guarded by pending_mutex

}  // namespace

void collect_backend_notes() {
  // Called from a load, maybe without the GIL: kept, not warned, here.
  session::set_backend_notes([](const std::string& line) {
    std::lock_guard<std::mutex> lock(pending_mutex);
    pending.push_back(line);
  });
}

void log_backend_notes() {
  std::vector<std::string> lines;
  {
    std::lock_guard<std::mutex> lock(pending_mutex);
    lines.swap(pending);
  }
  if (lines.empty()) return;
  const py::object logger = py::module_::import("logging").attr("getLogger")("etkit");
  for (const std::string& line : lines) logger.attr("info")("%s", line);
}

}  // namespace etkit::python
