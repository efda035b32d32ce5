#pragma once
/// @file
/// Runs a bundled program's test cases and compares every output with its
/// expected value, reporting how far off each output is.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "etkit/bundled/bundled_program.h"
#include "etkit/core/method.h"

namespace etkit::bundled {

struct VerifyOptions {
  double rtol = 1e-5;  ///< upstream's C++ defaults
  double atol = 1e-8;
  std::string method;  ///< only this method's suite (empty: all)
  int64_t case_index = -1;  ///< only this case (-1: all)
  size_t mismatches_listed = 5;  ///< first mismatches kept per output
  /// Called after each case with (done, total), e.g. for a progress bar.
  std::function<void(size_t, size_t)> progress;
};

struct Mismatch {
  std::vector<int64_t> position;
  double expected = 0;
  double actual = 0;
};

struct OutputReport {
  size_t index = 0;
  bool passed = true;
  /// Why the output cannot be compared element-wise ("kind", "dtype",
  /// "shape" mismatch), empty otherwise.
  std::string structural_error;
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> shape;
  int64_t numel = 0;
  int64_t mismatched = 0;
  double max_abs_error = 0;
  std::vector<int64_t> max_abs_position;
  double max_rel_error = 0;
  std::vector<int64_t> max_rel_position;
  std::vector<Mismatch> first_mismatches;
  /// Floating outputs: the smallest atol that passes every element at the
  /// run's rtol, and the smallest rtol at its atol (infinity when none
  /// does: NaN against a number, or a nonzero error on an expected 0 for
  /// rtol). 0 when the output passes as it is, or is not floating.
  double atol_to_pass = 0;
  double rtol_to_pass = 0;
};

struct CaseReport {
  std::string method;
  size_t case_index = 0;
  bool passed = true;
  std::vector<OutputReport> outputs;
  double seconds = 0;  ///< inputs + execute + compare
  /// Why the case could not run (its method does not load, its inputs do
  /// not fit, execute fails); empty when it ran. Such a case has not passed.
  std::string error;
};

struct VerifyReport {
  std::vector<CaseReport> cases;
  size_t passed = 0;
  size_t failed = 0;  ///< ran, with an output that differs
  size_t errors = 0;  ///< could not run (CaseReport::error)
  double load_seconds = 0;  ///< program and method loads, once per method
  double rtol = 0, atol = 0;
  /// Where the cases ran: "host", or the device target the caller names.
  std::string ran_on = "host";
};

/// The allclose rule: |actual - expected| <= atol + rtol * |expected|, NaN
/// equals NaN, infinities equal when their signs match; rtol = atol = 0
/// means exact.
bool values_close(double actual, double expected, double rtol, double atol);

/// Compares one runtime output with its expected value.
OutputReport compare_output(size_t index, const Value& actual, const BundledValue& expected,
                            const VerifyOptions& options);

/// Runs every selected case of `bundle`. Each method is loaded once (with
/// `method_options`, e.g. a tracer, which gets one block per case carrying
/// the case's bundled input index). A case whose method cannot load or run,
/// or whose inputs do not fit, is reported as an error and the others still
/// run; only a selection naming no case (an unknown method, a case index out
/// of range) fails the whole verification.
Result<VerifyReport> verify(const BundledProgram& bundle, const Program& program,
                            const MethodOptions& method_options, const VerifyOptions& options);

}  // namespace etkit::bundled
