// etkit.info, size, memory, diff_program and verify: the session library's
// reports, written by their one printer as JSON (the same document as
// `etinspect <command> --json`) and handed to Python with their warnings.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <vector>

#include "backend_notes.h"
#include "errors.h"
#include "etkit/report/printer.h"
#include "etkit/session/file_info.h"
#include "etkit/session/file_reports.h"
#include "etkit/session/host_verification.h"
#include "etkit/session/verify_report.h"

namespace py = pybind11;

namespace etkit::python {
namespace {

// A report as (JSON text, warnings).
template <typename Report>
py::tuple as_json(const Report& report, const std::vector<std::string>& warnings) {
  std::ostringstream out;
  print(*report::make_json_printer(out), report);
  return py::make_tuple(text(out.str()), text_list(warnings));
}

py::tuple info(const std::string& path) {
  session::FileInfo file = session::describe(path);
  if (file.error) throw EtkitError(file.error->message());
  const std::vector<std::string> warnings = file.warnings;
  return as_json(std::vector<session::FileInfo>{std::move(file)}, warnings);
}

py::tuple size(const std::string& path, const std::string& etrecord) {
  std::vector<std::string> warnings;
  auto report = session::size_of_file(path, etrecord, 4, 0, warnings);
  return as_json(unwrap(std::move(report)), warnings);
}

py::tuple memory(const std::string& path, const std::string& method) {
  if (unwrap(session::kind_of_file(path)) == FileKind::kETDump) return as_json(unwrap(session::trace_memory(path)), {});
  return as_json(unwrap(session::program_memory(path, method, 0)), {});
}

py::tuple diff_program(const std::string& old_path, const std::string& new_path) {
  return as_json(unwrap(session::diff_program_files(old_path, new_path, 20)), {});
}

py::tuple verify(const std::string& bundle, double rtol, double atol, const std::string& method,
                 const std::vector<std::string>& data) {
  session::VerifyRequest request;
  request.rtol = rtol;
  request.atol = atol;
  request.method = method;
  request.data = data;
  std::vector<std::string> warnings;
  session::BundleVerification outcome;
  outcome.file = bundle;
  {
    py::gil_scoped_release released;
    auto report = session::verify_on_host(bundle, request, warnings);
    if (report.ok()) outcome.report = std::move(*report);
    else outcome.error = report.error().message();
  }
  log_backend_notes();
  if (!outcome.report) throw EtkitError(outcome.error);
  return as_json(std::vector<session::BundleVerification>{std::move(outcome)}, warnings);
}

}  // namespace

void register_reports(py::module_& m) {
  m.def("_info", &info, py::arg("path"));
  m.def("_size", &size, py::arg("path"), py::arg("etrecord"));
  m.def("_memory", &memory, py::arg("path"), py::arg("method"));
  m.def("_diff_program", &diff_program, py::arg("old"), py::arg("new"));
  m.def("_verify", &verify, py::arg("bundle"), py::arg("rtol"), py::arg("atol"), py::arg("method"), py::arg("data"));
}

}  // namespace etkit::python
