#pragma once
// Verifications of bundles as a report: the outcome of each bundle (its
// cases, or why it could not run), written as terminal text, JSON (through
// report::Printer) or JUnit XML.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "etkit/bundled/verify.h"

namespace etkit::report {
class Printer;
}

namespace etkit::session {

/// One line per case (PASS/FAIL with its max errors), details for failing
/// outputs, and a summary line. `colour` adds ANSI colours.
void write_verify_text(std::ostream& out, const std::string& file, const bundled::VerifyReport& report,
                       bool colour);
/// One bundle's verification: its report, or why it could not be read or
/// run (`report` empty, `error` set).
struct BundleVerification {
  std::string file;
  std::optional<bundled::VerifyReport> report;
  std::string error;
  double rtol = 0, atol = 0;   ///< the tolerances asked for (the report's own when it ran)
  std::string ran_on = "host";
  int exit_code = 0;  ///< of the error, when it could not run: 2 bad input, 3 internal
};

/// Counts over several bundles; a bundle that could not run counts as one
/// error (and one unreadable).
struct VerifyTotals {
  size_t cases = 0, passed = 0, failed = 0, errors = 0, unreadable = 0;
  double seconds = 0;
};
VerifyTotals totals(const std::vector<BundleVerification>& bundles);

/// One bundle: {"file", "ran_on", "rtol", "atol", "summary", "cases": [...]}
/// (with "error" and no cases when it could not run); several: {"summary":
/// {"bundles", "cases", "passed", "failed", "errors"}, "bundles": [one
/// object per bundle, as above]}. See the README. Finishes the printer.
void print(report::Printer& out, const std::vector<BundleVerification>& bundles);
/// JUnit XML: a testsuite per bundle and method, a testcase per case;
/// failures carry the text report of the failing outputs, a bundle that
/// could not run is one testcase "load" with an <error>.
void write_verify_junit(std::ostream& out, const std::vector<BundleVerification>& bundles);

/// "output 0 int32[2, 2]: 1 of 4 elements (25%) differ; …" for one output.
std::string describe_output(const bundled::OutputReport& output);

}  // namespace etkit::session
