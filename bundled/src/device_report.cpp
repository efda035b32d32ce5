#include "etkit/bundled/device_report.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace etkit::bundled {
namespace {

constexpr const char* kMagic = "etkit-device-report 2";

// ---- writing: one record per line, space-separated tokens ----

// Strings become one token: bytes that would split it (and '%') as %XX,
// the empty string as "-" (so a literal "-" is escaped).
void put_string(std::string& out, std::string_view text) {
  if (text.empty()) {
    out += " -";
    return;
  }
  out += ' ';
  for (unsigned char c : text) {
    if (c <= 0x20 || c == '%' || c == 0x7f || (c == '-' && text.size() == 1)) {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      out += hex;
    } else {
      out += char(c);
    }
  }
}

// Doubles round-trip exactly with 17 significant digits.
void put_number(std::string& out, double v) {
  char text[40];
  std::snprintf(text, sizeof(text), " %.17g", v);
  out += text;
}

void put_int(std::string& out, int64_t v) {
  char text[24];
  std::snprintf(text, sizeof(text), " %" PRId64, v);
  out += text;
}

void put_ints(std::string& out, const std::vector<int64_t>& values) {
  if (values.empty()) {
    out += " -";
    return;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    char text[24];
    std::snprintf(text, sizeof(text), "%s%" PRId64, i == 0 ? " " : ",", values[i]);
    out += text;
  }
}

void put_output(std::string& out, const OutputReport& o) {
  out += "output";
  put_int(out, int64_t(o.index));
  put_int(out, o.passed ? 1 : 0);
  put_string(out, o.structural_error);
  put_int(out, int64_t(o.dtype));
  put_ints(out, o.shape);
  put_int(out, o.numel);
  put_int(out, o.mismatched);
  put_number(out, o.max_abs_error);
  put_ints(out, o.max_abs_position);
  put_number(out, o.max_rel_error);
  put_ints(out, o.max_rel_position);
  put_number(out, o.atol_to_pass);
  put_number(out, o.rtol_to_pass);
  put_int(out, int64_t(o.first_mismatches.size()));
  out += '\n';
  for (const Mismatch& m : o.first_mismatches) {
    out += "mismatch";
    put_ints(out, m.position);
    put_number(out, m.expected);
    put_number(out, m.actual);
    out += '\n';
  }
}

// ---- reading ----

struct LineReader {
  std::string_view text;
  size_t line = 0;
  std::string_view current;

  bool next() {
    if (text.empty()) return false;
    const size_t end = text.find('\n');
    current = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line;
    return true;
  }
};

// Tokens of one line; each read fails (returns false) past the end or on a
// token of the wrong form.
struct Tokens {
  std::string_view rest;

  bool word(std::string_view& out) {
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.empty()) return false;
    const size_t end = rest.find(' ');
    out = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    return true;
  }
  bool integer(int64_t& out) {
    std::string_view w;
    if (!word(w) || w.size() > 22) return false;
    char buffer[24];
    std::memcpy(buffer, w.data(), w.size());
    buffer[w.size()] = '\0';
    char* end = nullptr;
    out = std::strtoll(buffer, &end, 10);
    return end == buffer + w.size();
  }
  bool number(double& out) {
    std::string_view w;
    if (!word(w) || w.size() > 38) return false;
    char buffer[40];
    std::memcpy(buffer, w.data(), w.size());
    buffer[w.size()] = '\0';
    char* end = nullptr;
    out = std::strtod(buffer, &end);
    return end == buffer + w.size();
  }
  bool string(std::string& out) {
    std::string_view w;
    if (!word(w)) return false;
    out.clear();
    if (w == "-") return true;
    for (size_t i = 0; i < w.size(); ++i) {
      if (w[i] != '%') {
        out += w[i];
        continue;
      }
      if (i + 2 >= w.size()) return false;
      const char hex[3] = {w[i + 1], w[i + 2], '\0'};
      char* end = nullptr;
      const long c = std::strtol(hex, &end, 16);
      if (end != hex + 2) return false;
      out += char(c);
      i += 2;
    }
    return true;
  }
  bool ints(std::vector<int64_t>& out) {
    std::string_view w;
    if (!word(w)) return false;
    out.clear();
    if (w == "-") return true;
    while (!w.empty()) {
      const size_t comma = w.find(',');
      Tokens one{w.substr(0, comma)};
      int64_t v = 0;
      if (!one.integer(v)) return false;
      out.push_back(v);
      w = comma == std::string_view::npos ? std::string_view() : w.substr(comma + 1);
    }
    return true;
  }
};

Error bad_line(const LineReader& lines, const char* what) {
  return Error::make(ErrorCode::kMalformed, "device report line %zu: %s: '%.*s'", lines.line, what,
                     int(lines.current.size() > 80 ? 80 : lines.current.size()), lines.current.data());
}

bool parse_output(Tokens& t, OutputReport& o) {
  int64_t index = 0, passed = 0, dtype = 0, mismatches = 0;
  const bool ok = t.integer(index) && t.integer(passed) && t.string(o.structural_error) && t.integer(dtype) &&
                  t.ints(o.shape) && t.integer(o.numel) && t.integer(o.mismatched) && t.number(o.max_abs_error) &&
                  t.ints(o.max_abs_position) && t.number(o.max_rel_error) && t.ints(o.max_rel_position) &&
                  t.number(o.atol_to_pass) && t.number(o.rtol_to_pass) && t.integer(mismatches);
  if (!ok || index < 0 || dtype < 0 || dtype > 255 || mismatches < 0 || mismatches > 1 << 20) return false;
  o.index = size_t(index);
  o.passed = passed != 0;
  o.dtype = ScalarType(dtype);
  o.first_mismatches.resize(size_t(mismatches));
  return true;
}

bool parse_verify_totals(Tokens& t, VerifyReport& v) {
  int64_t passed = 0, failed = 0, errors = 0;
  if (!t.number(v.rtol) || !t.number(v.atol) || !t.number(v.load_seconds) || !t.integer(passed) ||
      !t.integer(failed) || !t.integer(errors) || passed < 0 || failed < 0 || errors < 0) {
    return false;
  }
  v.passed = size_t(passed);
  v.failed = size_t(failed);
  v.errors = size_t(errors);
  return true;
}

bool parse_case(Tokens& t, CaseReport& c) {
  int64_t index = 0, passed = 0;
  if (!t.string(c.method) || !t.integer(index) || !t.integer(passed) || !t.number(c.seconds) ||
      !t.string(c.error) || index < 0) {
    return false;
  }
  c.case_index = size_t(index);
  c.passed = passed != 0;
  return true;
}

bool parse_trace_totals(Tokens& t, TraceTotals& totals) {
  int64_t v[7];
  for (int64_t& x : v) {
    if (!t.integer(x) || x < 0) return false;
  }
  totals = TraceTotals{uint64_t(v[0]), uint64_t(v[1]), uint64_t(v[2]), uint64_t(v[3]),
                       uint64_t(v[4]), uint64_t(v[5]), uint64_t(v[6])};
  return true;
}

// The record lines after the header; `pending` counts the mismatch lines
// the last output announced.
Status parse_records(LineReader& lines, DeviceReport& report) {
  size_t pending = 0;
  while (lines.next()) {
    Tokens t{lines.current};
    std::string_view kind;
    if (!t.word(kind)) continue;
    CaseReport* last_case = report.verify.cases.empty() ? nullptr : &report.verify.cases.back();
    if (kind == "mismatch") {
      if (last_case == nullptr || last_case->outputs.empty() || pending == 0) {
        return bad_line(lines, "a mismatch outside an output");
      }
      OutputReport& o = last_case->outputs.back();
      Mismatch& m = o.first_mismatches[o.first_mismatches.size() - pending];
      if (!t.ints(m.position) || !t.number(m.expected) || !t.number(m.actual)) return bad_line(lines, "bad mismatch");
      --pending;
      continue;
    }
    if (pending != 0) return bad_line(lines, "missing mismatch lines");
    if (kind == "error") {
      int64_t code = 0;
      if (!t.integer(code) || !t.string(report.error_message)) return bad_line(lines, "bad error");
      report.failed = true;
      report.error_code = ErrorCode(code);
    } else if (kind == "verify") {
      if (!parse_verify_totals(t, report.verify)) return bad_line(lines, "bad verify totals");
      report.kind = DeviceReport::Kind::kVerify;
    } else if (kind == "case") {
      CaseReport c;
      if (!parse_case(t, c)) return bad_line(lines, "bad case");
      report.verify.cases.push_back(std::move(c));
    } else if (kind == "output") {
      if (last_case == nullptr) return bad_line(lines, "an output outside a case");
      OutputReport o;
      if (!parse_output(t, o)) return bad_line(lines, "bad output");
      pending = o.first_mismatches.size();
      last_case->outputs.push_back(std::move(o));
    } else if (kind == "run") {
      int64_t outputs = 0;
      if (!t.integer(outputs) || outputs < 0) return bad_line(lines, "bad run");
      report.kind = DeviceReport::Kind::kRun;
      report.outputs = size_t(outputs);
    } else if (kind == "trace") {
      if (!parse_trace_totals(t, report.trace)) return bad_line(lines, "bad trace totals");
      report.traced = true;
    } else if (kind == "latency_ms") {
      double ms = 0;
      if (!t.number(ms)) return bad_line(lines, "bad latency");
      report.latencies_ms.push_back(ms);
    } else {
      return bad_line(lines, "unknown record");
    }
  }
  if (pending != 0) return bad_line(lines, "the report ends inside an output");
  return Ok{};
}

void put_trace(std::string& out, const DeviceReport& report) {
  if (!report.traced) return;
  const TraceTotals& t = report.trace;
  out += "trace";
  for (uint64_t v : {t.blocks, t.events, t.dropped_events, t.dropped_blocks, t.dropped_values, t.debug_bytes,
                     t.intermediate_values}) {
    put_int(out, int64_t(v));
  }
  out += '\n';
}

}  // namespace

std::string format_device_report(const DeviceReport& report) {
  std::string out = kMagic;
  out += '\n';
  put_trace(out, report);
  if (report.failed) {
    out += "error";
    put_int(out, int64_t(report.error_code));
    put_string(out, report.error_message);
    out += '\n';
  }
  if (report.kind == DeviceReport::Kind::kRun) {
    out += "run";
    put_int(out, int64_t(report.outputs));
    out += '\n';
    for (double ms : report.latencies_ms) {
      out += "latency_ms";
      put_number(out, ms);
      out += '\n';
    }
    return out;
  }
  const VerifyReport& v = report.verify;
  out += "verify";
  put_number(out, v.rtol);
  put_number(out, v.atol);
  put_number(out, v.load_seconds);
  put_int(out, int64_t(v.passed));
  put_int(out, int64_t(v.failed));
  put_int(out, int64_t(v.errors));
  out += '\n';
  for (const CaseReport& c : v.cases) {
    out += "case";
    put_string(out, c.method);
    put_int(out, int64_t(c.case_index));
    put_int(out, c.passed ? 1 : 0);
    put_number(out, c.seconds);
    put_string(out, c.error);
    out += '\n';
    for (const OutputReport& o : c.outputs) put_output(out, o);
  }
  return out;
}

Result<DeviceReport> parse_device_report(std::string_view text) {
  LineReader lines{text};
  if (!lines.next() || lines.current != kMagic) {
    return Error::make(ErrorCode::kMalformed, "not an etkit device report (first line is not '%s')", kMagic);
  }
  DeviceReport report;
  ETKIT_TRY(parse_records(lines, report));
  return report;
}

}  // namespace etkit::bundled
