#include "etkit/bundled/verify.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "etkit/bundled/bundled_inputs.h"
#include "etkit/core/event_tracer.h"
#include "etkit/core/tensor_access.h"

namespace etkit::bundled {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

OutputReport compare_scalar(size_t index, const Value& actual, const BundledValue& expected,
                            const VerifyOptions& options) {
  OutputReport report;
  report.index = index;
  report.numel = 1;
  const bool kinds_match = (expected.kind == BundledValue::Kind::kInt && actual.tag() == ValueTag::kInt) ||
                           (expected.kind == BundledValue::Kind::kBool && actual.tag() == ValueTag::kBool) ||
                           (expected.kind == BundledValue::Kind::kDouble && actual.is_scalar());
  if (!kinds_match) {
    report.passed = false;
    report.structural_error = std::string("output is ") + to_string(actual.tag()) + ", expected " +
                              to_string(expected.kind);
    return report;
  }
  const double want = expected.kind == BundledValue::Kind::kInt    ? double(expected.int_value)
                      : expected.kind == BundledValue::Kind::kBool ? double(expected.bool_value)
                                                                   : expected.double_value;
  const double got = actual.scalar_as_double();
  const bool exact = expected.kind != BundledValue::Kind::kDouble;
  const bool close = exact ? got == want : values_close(got, want, options.rtol, options.atol);
  report.max_abs_error = std::fabs(got - want);
  report.max_rel_error = want == 0 ? (got == 0 ? 0 : INFINITY) : report.max_abs_error / std::fabs(want);
  if (!close) {
    report.passed = false;
    report.mismatched = 1;
    report.first_mismatches.push_back({{}, want, got});
  }
  return report;
}

}  // namespace

bool values_close(double actual, double expected, double rtol, double atol) {
  if (std::isnan(actual) || std::isnan(expected)) return std::isnan(actual) && std::isnan(expected);
  if (std::isinf(actual) || std::isinf(expected)) return actual == expected;
  return std::fabs(actual - expected) <= atol + rtol * std::fabs(expected);
}

namespace {

// Why the output cannot be compared element by element (its kind, dtype
// or shape differs from the expected one); empty when it can.
std::string structural_difference(const Value& actual, const BundledValue& expected, const OutputReport& report) {
  if (!actual.is_tensor()) return std::string("output is ") + to_string(actual.tag()) + ", expected a tensor";
  const Tensor& tensor = actual.unchecked_tensor();
  if (tensor.scalar_type() != expected.scalar_type) {
    return std::string("dtype ") + to_string(tensor.scalar_type()) + " differs from the expected " +
           to_string(expected.scalar_type);
  }
  const std::vector<int64_t> shape(tensor.sizes().begin(), tensor.sizes().end());
  if (shape != report.shape) {
    return "shape " + format_sizes(shape) + " differs from the expected " + format_sizes(report.shape);
  }
  return {};
}

// Compares every element at the tolerances (floating types; exactly the
// others), keeping the largest errors, their positions, the first
// mismatches and the tolerances that would have passed.
void compare_elements(const Tensor& tensor, const Tensor& expected, bool floating, const VerifyOptions& options,
                      OutputReport& report) {
  const double rtol = floating ? options.rtol : 0, atol = floating ? options.atol : 0;
  int64_t max_abs_at = -1, max_rel_at = -1;
  for (int64_t i = 0; i < report.numel; ++i) {
    const double got = element_as_double(tensor, i);
    const double want = element_as_double(expected, i);
    const bool close = values_close(got, want, rtol, atol);
    double abs_error = (std::isnan(got) && std::isnan(want)) || got == want ? 0 : std::fabs(got - want);
    if (std::isnan(abs_error)) abs_error = INFINITY;  // NaN against a number
    const double rel_error = abs_error == 0 ? 0 : (want == 0 ? INFINITY : abs_error / std::fabs(want));
    if (abs_error > report.max_abs_error || max_abs_at < 0) {
      report.max_abs_error = abs_error;
      max_abs_at = i;
    }
    if (rel_error > report.max_rel_error || max_rel_at < 0) {
      report.max_rel_error = rel_error;
      max_rel_at = i;
    }
    if (!close && floating) {  // what would have passed it
      report.atol_to_pass = std::max(report.atol_to_pass, abs_error - rtol * std::fabs(want));
      report.rtol_to_pass = std::max(report.rtol_to_pass, want == 0 || std::isinf(abs_error)
                                                              ? (abs_error > atol ? INFINITY : 0.0)
                                                              : (abs_error - atol) / std::fabs(want));
    }
    if (!close) {
      ++report.mismatched;
      if (report.first_mismatches.size() < options.mismatches_listed) {
        report.first_mismatches.push_back({unravel_index(i, tensor.sizes()), want, got});
      }
    }
  }
  if (max_abs_at >= 0) report.max_abs_position = unravel_index(max_abs_at, tensor.sizes());
  if (max_rel_at >= 0) report.max_rel_position = unravel_index(max_rel_at, tensor.sizes());
}

}  // namespace

OutputReport compare_output(size_t index, const Value& actual, const BundledValue& expected,
                            const VerifyOptions& options) {
  if (expected.kind != BundledValue::Kind::kTensor) {
    return compare_scalar(index, actual, expected, options);
  }
  OutputReport report;
  report.index = index;
  report.dtype = expected.scalar_type;
  report.shape.assign(expected.sizes.begin(), expected.sizes.end());
  report.structural_error = structural_difference(actual, expected, report);
  if (!report.structural_error.empty()) {
    report.passed = false;
    return report;
  }
  auto expected_view = tensor_view(expected);
  if (!expected_view.ok()) {
    report.passed = false;
    report.structural_error = expected_view.error().message();
    return report;
  }
  const Tensor& tensor = actual.unchecked_tensor();
  report.numel = tensor.numel();
  // Floating types compare with tolerances; everything else exactly.
  const bool floating = expected.scalar_type == ScalarType::kFloat ||
                        expected.scalar_type == ScalarType::kDouble ||
                        expected.scalar_type == ScalarType::kHalf ||
                        expected.scalar_type == ScalarType::kBFloat16;
  compare_elements(tensor, *expected_view, floating, options, report);
  report.passed = report.mismatched == 0;
  return report;
}

namespace {

// Sets one case's inputs, executes and compares its outputs into `report`.
Status run_case(Method& method, const TestCase& test_case, size_t index, const VerifyOptions& options,
                EventTracer* tracer, CaseReport& report) {
  ETKIT_TRY(set_inputs(method, test_case));
  Status run = method.execute();
  if (tracer != nullptr) tracer->set_bundled_input_index(static_cast<int32_t>(index));
  ETKIT_TRY(run);
  if (test_case.expected_outputs.size() != method.output_count()) {
    return Error::make(ErrorCode::kInvalidArgument, "the case expects %zu outputs, the method has %zu",
                       test_case.expected_outputs.size(), method.output_count());
  }
  for (size_t o = 0; o < test_case.expected_outputs.size(); ++o) {
    report.outputs.push_back(compare_output(o, method.output(o), test_case.expected_outputs[o], options));
    report.passed &= report.outputs.back().passed;
  }
  return Ok{};
}

}  // namespace

Result<VerifyReport> verify(const BundledProgram& bundle, const Program& program,
                            const MethodOptions& method_options, const VerifyOptions& options) {
  VerifyReport report;
  report.rtol = options.rtol;
  report.atol = options.atol;
  size_t total = 0;
  bool method_found = options.method.empty();
  for (const MethodTestSuite& suite : bundle.suites()) {
    if (!options.method.empty() && suite.method_name != options.method) continue;
    method_found = true;
    if (options.case_index >= 0 && size_t(options.case_index) >= suite.cases.size()) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: case %lld: method '%s' has %zu test cases (allowed: 0 to %zu)",
                         bundle.name().c_str(), static_cast<long long>(options.case_index),
                         suite.method_name.c_str(), suite.cases.size(),
                         suite.cases.empty() ? size_t(0) : suite.cases.size() - 1);
    }
    total += options.case_index >= 0 ? 1 : suite.cases.size();
  }
  if (!method_found) {
    std::string suites;
    for (const auto& suite : bundle.suites()) suites += (suites.empty() ? "" : ", ") + suite.method_name;
    return Error::make(ErrorCode::kNotFound, "%s: no test suite for method '%s' (suites: %s)",
                       bundle.name().c_str(), options.method.c_str(), suites.empty() ? "none" : suites.c_str());
  }
  EventTracer* tracer = method_options.tracer;
  for (const MethodTestSuite& suite : bundle.suites()) {
    if (!options.method.empty() && suite.method_name != options.method) continue;
    const auto load_start = Clock::now();
    auto method = Method::load(program, suite.method_name, method_options);
    report.load_seconds += seconds_since(load_start);
    for (size_t c = 0; c < suite.cases.size(); ++c) {
      if (options.case_index >= 0 && size_t(options.case_index) != c) continue;
      const auto start = Clock::now();
      CaseReport case_report;
      case_report.method = suite.method_name;
      case_report.case_index = c;
      Status ran = method.ok() ? run_case(**method, suite.cases[c], c, options, tracer, case_report)
                               : Status(method.error());
      if (!ran.ok()) {
        case_report.passed = false;
        case_report.error = ran.error().message();
      }
      case_report.seconds = seconds_since(start);
      (!case_report.error.empty() ? report.errors : case_report.passed ? report.passed : report.failed) += 1;
      report.cases.push_back(std::move(case_report));
      if (options.progress) options.progress(report.cases.size(), total);
    }
  }
  return report;
}

}  // namespace etkit::bundled
