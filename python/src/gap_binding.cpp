// etkit._gap_rows: the pairs of runtime and reference values that
// Inspector.calculate_numeric_gap hands to a comparator. Matching (debug
// handles, fused ops, delegate values) is the inspector library's
// numeric_gap, the same as `etinspect gap`; the distance is the caller's.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "errors.h"
#include "etkit/inspector/gap_report.h"
#include "etkit/inspector/numeric_gap.h"
#include "etkit/session/gap_files.h"

namespace py = pybind11;

namespace etkit::python {
namespace {

py::array values_array(const std::vector<double>& values, const std::vector<int64_t>& sizes) {
  std::vector<py::ssize_t> shape(sizes.begin(), sizes.end());
  py::array_t<double> array(py::ssize_t(values.size()), values.data());
  return array.attr("reshape")(shape);
}

py::tuple gap_rows(const std::string& etdump_path, const std::string& debug_buffer_path, const std::string& reference,
                   const std::optional<std::string>& reference_debug_buffer,
                   const std::optional<std::string>& etrecord_path, const std::optional<std::string>& program_path,
                   const std::string& method) {
  session::GapFiles files;
  files.etdump = etdump_path;
  files.debug_buffer = debug_buffer_path;
  files.program = program_path.value_or("");
  files.etrecord = etrecord_path.value_or("");
  files.reference = reference;
  files.reference_debug_buffer = reference_debug_buffer.value_or("");
  files.reference_program = files.program;  // the same program's trace, or a folder
  files.how_to_record =
      "record them with Method.run(..., etdump=…, debug_buffer=…, debug_level=\"intermediates\") or etinspect run "
      "--debug-level intermediates";
  inspector::GapOptions options;
  options.method = method;
  options.keep_values = true;
  std::vector<std::string> warnings;
  const std::unique_ptr<session::GapComparison> gap = unwrap(session::compare_gap_files(files, options, warnings));
  const inspector::GapReport& report = gap->report;
  py::list rows;
  for (const inspector::GapRow& row : report.rows) {
    if (row.status != inspector::GapStatus::kOk && row.status != inspector::GapStatus::kDiverged) continue;
    py::dict item;
    item["instruction_id"] = row.instruction_id;
    item["delegate_debug_id"] = row.delegate_debug_id;
    item["op"] = text(row.op);
    item["node"] = text(row.node);
    item["handles"] = py::tuple(py::cast(row.handles));
    item["source"] = text(row.source);
    item["runtime"] = values_array(row.actual_values, row.actual_sizes);
    item["reference"] = values_array(row.reference_values, row.reference_sizes);
    rows.append(item);
  }
  return py::make_tuple(rows, text_list(warnings));
}

// Upstream's distances between a reference and a runtime value, computed
// by the inspector's compare_values as numpy would (plain float64
// arithmetic): {"mse", "l1", "snr_db", "cosine", "max_abs"}.
py::dict compare(const py::array_t<double, py::array::forcecast>& reference,
                 const py::array_t<double, py::array::forcecast>& actual) {
  std::vector<py::ssize_t> reference_shape(reference.shape(), reference.shape() + reference.ndim());
  std::vector<py::ssize_t> actual_shape(actual.shape(), actual.shape() + actual.ndim());
  if (reference_shape != actual_shape) {
    throw py::value_error("the two values must have one shape; got " + std::string(py::str(reference.attr("shape"))) +
                          " and " + std::string(py::str(actual.attr("shape"))));
  }
  const auto flat = [](const py::array_t<double, py::array::forcecast>& array) {
    const py::array_t<double, py::array::c_style | py::array::forcecast> contiguous(array);
    return std::vector<double>(contiguous.data(), contiguous.data() + contiguous.size());
  };
  const inspector::GapMetrics metrics =
      inspector::compare_values(flat(actual), flat(reference), inspector::NonFinite::kPlainArithmetic);
  py::dict result;
  result["mse"] = metrics.mse;
  result["l1"] = metrics.l1;
  result["snr_db"] = metrics.snr_db;
  result["cosine"] = metrics.cosine;
  result["max_abs"] = metrics.max_abs;
  return result;
}

}  // namespace

void register_gap(py::module_& m) {
  m.def("_compare", &compare, py::arg("reference"), py::arg("actual"));
  m.def("_gap_rows", &gap_rows, py::arg("etdump_path"), py::arg("debug_buffer_path"), py::arg("reference"),
        py::arg("reference_debug_buffer"), py::arg("etrecord_path"), py::arg("program_path"), py::arg("method"));
}

}  // namespace etkit::python
