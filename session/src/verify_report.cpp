#include "etkit/session/verify_report.h"
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "etkit/core/tensor_access.h"
#include "etkit/report/printer.h"

namespace etkit::session {
namespace {

std::string number(double v) { return fmt::format("{:.6g}", v); }

// The shortest text (3 significant digits or more) of a number no smaller
// than `v`: a tolerance printed so that passing it to --atol passes.
std::string at_least(double v) {
  for (int digits = 3; digits < 17; ++digits) {
    const std::string text = fmt::format("{:.{}g}", v, digits);
    if (std::strtod(text.c_str(), nullptr) >= v) return text;
  }
  return fmt::format("{:.17g}", v);
}

std::string signature(const bundled::OutputReport& o) {
  return std::string(to_string(o.dtype)) + format_sizes(o.shape);
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters even when escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') out += ' ';
        else out += c;
    }
  }
  return out;
}

// A figure that may be infinite or NaN (an expected 0, a NaN output): JSON
// has no such numbers, so it is null.
void finite_or_null(report::Printer& out, std::string_view key, double v) {
  if (std::isfinite(v)) out.field(key, v);
  else out.null_field(key, "none");
}

}  // namespace

std::string describe_output(const bundled::OutputReport& o) {
  std::string text = "output " + std::to_string(o.index) + " " + signature(o) + ": ";
  if (!o.structural_error.empty()) return text + o.structural_error;
  if (o.passed) {
    return text + "max abs error " + number(o.max_abs_error) + ", max rel error " + number(o.max_rel_error);
  }
  const double share = o.numel ? 100.0 * double(o.mismatched) / double(o.numel) : 0;
  text += std::to_string(o.mismatched) + " of " + std::to_string(o.numel) + " elements (" + number(share) +
          "%) differ; max abs error " + number(o.max_abs_error) + " at " + format_sizes(o.max_abs_position) +
          "; max rel error " + number(o.max_rel_error) + " at " + format_sizes(o.max_rel_position);
  for (const bundled::Mismatch& m : o.first_mismatches) {
    text += "\n    " + format_sizes(m.position) + ": expected " + number(m.expected) + ", actual " + number(m.actual);
  }
  return text;
}

void write_verify_text(std::ostream& out, const std::string& file, const bundled::VerifyReport& report,
                       bool colour) {
  const char* pass = colour ? "\033[32mPASS\033[0m" : "PASS";
  const char* fail = colour ? "\033[1;31mFAIL\033[0m" : "FAIL";
  const char* error = colour ? "\033[1;31mERROR\033[0m" : "ERROR";
  for (const bundled::CaseReport& c : report.cases) {
    if (!c.error.empty()) {
      out << file << ": " << c.method << " case " << c.case_index << ": " << error << " (" << c.error << ")\n";
      continue;
    }
    double max_abs = 0, max_rel = 0;
    // The outputs' dtypes, since what an error figure means depends on
    // them (a bfloat16 output carries 8 significant bits).
    std::string dtypes;
    for (const auto& o : c.outputs) {
      max_abs = std::max(max_abs, o.max_abs_error);
      max_rel = std::max(max_rel, o.max_rel_error);
      const std::string dtype = to_string(o.dtype);
      if (("/" + dtypes + "/").find("/" + dtype + "/") == std::string::npos) {
        dtypes += (dtypes.empty() ? "" : "/") + dtype;
      }
    }
    out << file << ": " << c.method << " case " << c.case_index << ": " << (c.passed ? pass : fail)
        << " (" << (dtypes.empty() ? "no outputs" : dtypes) << ": max abs error " << number(max_abs)
        << ", max rel error " << number(max_rel) << ")\n";
    for (const auto& o : c.outputs) {
      if (!o.passed) out << "  " << describe_output(o) << "\n";
    }
  }
  // The tolerances that would have passed every failing case: a hint, not
  // advice (upstream's executor_runner defaults to atol 0.01).
  double atol_to_pass = 0, rtol_to_pass = 0;
  for (const bundled::CaseReport& c : report.cases) {
    for (const auto& o : c.outputs) {
      atol_to_pass = std::max(atol_to_pass, o.atol_to_pass);
      rtol_to_pass = std::max(rtol_to_pass, o.rtol_to_pass);
    }
  }
  if (atol_to_pass > 0 || rtol_to_pass > 0) {
    out << "the failing outputs would pass with --atol " << (std::isfinite(atol_to_pass) ? at_least(atol_to_pass) : "(none)")
        << " (at --rtol " << number(report.rtol) << ") or --rtol "
        << (std::isfinite(rtol_to_pass) ? at_least(rtol_to_pass) : "(none: an expected 0 or a NaN differs)")
        << " (at --atol " << number(report.atol) << ")\n";
  }
  const size_t total = report.passed + report.failed + report.errors;
  out << "summary: " << report.passed << " passed, " << report.failed << " failed"
      << (report.errors ? ", " + std::to_string(report.errors) + " could not run" : std::string()) << " of " << total
      << " cases (rtol " << number(report.rtol) << ", atol " << number(report.atol) << ")"
      << (report.ran_on == "host" ? std::string() : " on " + report.ran_on) << "\n";
}

namespace {

void print_output(report::Printer& out, const bundled::OutputReport& o) {
  out.begin_object("");
  out.field("index", uint64_t(o.index));
  out.field("status", o.passed ? "pass" : "fail");
  out.field("dtype", to_string(o.dtype));
  out.int_list("shape", o.shape);
  if (!o.structural_error.empty()) out.field("error", o.structural_error);
  out.field("mismatched", o.mismatched);
  out.field("mismatch_share", o.numel ? double(o.mismatched) / double(o.numel) : 0.0);
  finite_or_null(out, "max_abs_error", o.max_abs_error);
  out.int_list("max_abs_position", o.max_abs_position);
  finite_or_null(out, "max_rel_error", o.max_rel_error);
  out.int_list("max_rel_position", o.max_rel_position);
  finite_or_null(out, "atol_to_pass", o.atol_to_pass);
  finite_or_null(out, "rtol_to_pass", o.rtol_to_pass);
  out.begin_list("mismatches");
  for (const auto& m : o.first_mismatches) {
    out.begin_object("");
    out.int_list("position", m.position);
    finite_or_null(out, "expected", m.expected);
    finite_or_null(out, "actual", m.actual);
    out.end_object();
  }
  out.end_list();
  out.end_object();
}

void print_case(report::Printer& out, const bundled::CaseReport& c) {
  out.begin_object("");
  out.field("method", c.method);
  out.field("case", uint64_t(c.case_index));
  out.field("status", !c.error.empty() ? "error" : c.passed ? "pass" : "fail");
  if (!c.error.empty()) out.field("error", c.error);
  out.field("seconds", c.seconds);
  out.begin_list("outputs");
  for (const auto& o : c.outputs) print_output(out, o);
  out.end_list();
  out.end_object();
}

// One bundle's fields: its cases, or (`report` empty) the error that kept
// it from running and no cases.
void print_bundle_fields(report::Printer& out, const BundleVerification& bundle) {
  const bundled::VerifyReport* report = bundle.report ? &*bundle.report : nullptr;
  out.field("file", bundle.file);
  out.field("ran_on", report ? report->ran_on : bundle.ran_on);
  out.field("rtol", report ? report->rtol : bundle.rtol);
  out.field("atol", report ? report->atol : bundle.atol);
  if (!report) out.field("error", bundle.error);
  out.begin_object("summary");
  out.field("cases", uint64_t(report ? report->cases.size() : 0));
  out.field("passed", uint64_t(report ? report->passed : 0));
  out.field("failed", uint64_t(report ? report->failed : 0));
  out.field("errors", uint64_t(report ? report->errors : 1));
  out.field("load_seconds", report ? report->load_seconds : 0.0);
  out.end_object();
  out.begin_list("cases");
  if (report) {
    for (const bundled::CaseReport& c : report->cases) print_case(out, c);
  }
  out.end_list();
}

// A bundle that could not run: one testcase "load" with the error.
void write_load_error_case(std::ostream& out, const BundleVerification& bundle) {
  out << "    <testcase classname=\"" << xml_escape(bundle.file) << "\" name=\"load\" time=\"0\">\n";
  out << "      <error type=\"error\" message=\"" << xml_escape(bundle.error) << "\">" << xml_escape(bundle.error)
      << "</error>\n    </testcase>\n";
}

void write_error_suite(std::ostream& out, const BundleVerification& bundle) {
  out << "  <testsuite name=\"" << xml_escape(bundle.file) << "\" hostname=\"" << xml_escape(bundle.ran_on)
      << "\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"0\">\n";
  write_load_error_case(out, bundle);
  out << "  </testsuite>\n";
}

// One case: passed, an error, or a failure carrying the failing outputs.
void write_case(std::ostream& out, const std::string& classname, const bundled::CaseReport& c) {
  out << "    <testcase classname=\"" << xml_escape(classname) << "\" name=\"case " << c.case_index << "\" time=\""
      << number(c.seconds) << "\"";
  if (c.passed) {
    out << "/>\n";
    return;
  }
  if (!c.error.empty()) {
    out << ">\n      <error type=\"error\" message=\"" << xml_escape(c.error) << "\">" << xml_escape(c.error)
        << "</error>\n    </testcase>\n";
    return;
  }
  std::string message, details;
  for (const auto& o : c.outputs) {
    if (o.passed) continue;
    const std::string text = describe_output(o);
    if (message.empty()) message = text.substr(0, text.find('\n'));
    details += text + "\n";
  }
  out << ">\n      <failure type=\"mismatch\" message=\"" << xml_escape(message) << "\">" << xml_escape(details)
      << "</failure>\n    </testcase>\n";
}

// One testsuite per method, in the order the cases ran.
void write_report_suites(std::ostream& out, const std::string& file, const bundled::VerifyReport& report) {
  size_t i = 0;
  while (i < report.cases.size()) {
    const std::string method = report.cases[i].method;
    size_t end = i, failures = 0, errors = 0;
    double time = 0;
    while (end < report.cases.size() && report.cases[end].method == method) {
      const bool error = !report.cases[end].error.empty();
      errors += error;
      failures += !error && !report.cases[end].passed;
      time += report.cases[end].seconds;
      ++end;
    }
    out << "  <testsuite name=\"" << xml_escape(file + ":" + method) << "\" hostname=\"" << xml_escape(report.ran_on)
        << "\" tests=\"" << end - i << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" time=\""
        << number(time) << "\">\n";
    for (; i < end; ++i) write_case(out, file + "." + method, report.cases[i]);
    out << "  </testsuite>\n";
  }
}

// A fleet: one testsuite per device, named after it, with every bundle's
// cases there (classname FILE.METHOD) and a "load" case per bundle that
// could not run.
void write_device_suite(std::ostream& out, const std::string& device, const std::vector<BundleVerification>& all) {
  std::vector<BundleVerification> bundles;
  for (const BundleVerification& b : all) {
    if (b.ran_on == device) bundles.push_back(b);
  }
  const VerifyTotals t = totals(bundles);
  out << "  <testsuite name=\"" << xml_escape(device) << "\" hostname=\"" << xml_escape(device) << "\" tests=\""
      << t.cases + t.unreadable << "\" failures=\"" << t.failed << "\" errors=\"" << t.errors << "\" time=\""
      << number(t.seconds) << "\">\n";
  for (const BundleVerification& b : bundles) {
    if (!b.report) {
      write_load_error_case(out, b);
      continue;
    }
    for (const bundled::CaseReport& c : b.report->cases) write_case(out, b.file + "." + c.method, c);
  }
  out << "  </testsuite>\n";
}

// The devices the verifications ran on, in their order.
std::vector<std::string> devices_of(const std::vector<BundleVerification>& bundles) {
  std::vector<std::string> devices;
  for (const BundleVerification& b : bundles) {
    if (std::find(devices.begin(), devices.end(), b.ran_on) == devices.end()) devices.push_back(b.ran_on);
  }
  return devices;
}

}  // namespace

VerifyTotals totals(const std::vector<BundleVerification>& bundles) {
  VerifyTotals t;
  for (const BundleVerification& b : bundles) {
    if (!b.report) {
      ++t.errors;
      ++t.unreadable;
      continue;
    }
    t.cases += b.report->cases.size();
    t.passed += b.report->passed;
    t.failed += b.report->failed;
    t.errors += b.report->errors;
    t.seconds += b.report->load_seconds;
    for (const auto& c : b.report->cases) t.seconds += c.seconds;
  }
  return t;
}

void print(report::Printer& out, const std::vector<BundleVerification>& bundles) {
  out.begin_object("");
  if (bundles.size() == 1) {
    print_bundle_fields(out, bundles[0]);
    out.end_object();
    out.finish();
    return;
  }
  const VerifyTotals t = totals(bundles);
  out.begin_object("summary");
  out.field("bundles", uint64_t(bundles.size()));
  out.field("cases", uint64_t(t.cases));
  out.field("passed", uint64_t(t.passed));
  out.field("failed", uint64_t(t.failed));
  out.field("errors", uint64_t(t.errors));
  if (const std::vector<std::string> devices = devices_of(bundles); devices.size() > 1) {
    out.string_list("devices", devices);
  }
  out.end_object();
  out.begin_list("bundles");
  for (const BundleVerification& b : bundles) {
    out.begin_object("");
    print_bundle_fields(out, b);
    out.end_object();
  }
  out.end_list();
  out.end_object();
  out.finish();
}

void write_verify_junit(std::ostream& out, const std::vector<BundleVerification>& bundles) {
  const VerifyTotals t = totals(bundles);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"etinspect verify\" tests=\"" << t.cases + t.unreadable << "\" failures=\"" << t.failed
      << "\" errors=\"" << t.errors << "\" time=\"" << number(t.seconds) << "\">\n";
  if (const std::vector<std::string> devices = devices_of(bundles); devices.size() > 1) {
    for (const std::string& device : devices) write_device_suite(out, device, bundles);
    out << "</testsuites>\n";
    return;
  }
  for (const BundleVerification& b : bundles) {
    if (b.report) write_report_suites(out, b.file, *b.report);
    else write_error_suite(out, b);
  }
  out << "</testsuites>\n";
}

}  // namespace etkit::session
