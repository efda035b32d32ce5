#pragma once
// Renders a verification report as terminal text, JSON, or JUnit XML.

#include <ostream>
#include <string>

#include "etkit/bundled/verify.h"

namespace etkit::cli {

/// One line per case (PASS/FAIL with its max errors), details for failing
/// outputs, and a summary line. `colour` adds ANSI colours.
void write_verify_text(std::ostream& out, const std::string& file, const bundled::VerifyReport& report,
                       bool colour);
/// {"file", "rtol", "atol", "summary", "cases": [...]}; see the README.
void write_verify_json(std::ostream& out, const std::string& file, const bundled::VerifyReport& report);
/// JUnit XML: a testsuite per method, a testcase per case, failures carry
/// the text report of the failing outputs.
void write_verify_junit(std::ostream& out, const std::string& file, const bundled::VerifyReport& report);

/// The reports of a verification that could not run (the bundle could not
/// be read, a method could not load): CI then finds a report holding the
/// error instead of a missing file.
void write_verify_error_json(std::ostream& out, const std::string& file, const std::string& error, double rtol,
                             double atol);
void write_verify_error_junit(std::ostream& out, const std::string& file, const std::string& error);

/// "output 0 int32[2, 2]: 1 of 4 elements (25%) differ; …" for one output.
std::string describe_output(const bundled::OutputReport& output);

}  // namespace etkit::cli
