// The device report: what a runner writes must read back to the same
// verify report field by field (a second path: the parser, not the
// writer, rebuilds the structure), and malformed reports fail naming the
// line.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "etkit/bundled/device_report.h"

namespace etkit::bundled {
namespace {

VerifyReport sample_report() {
  VerifyReport v;
  v.rtol = 1e-5;
  v.atol = 1e-8;
  v.load_seconds = 0.125;
  v.passed = 1;
  v.failed = 1;
  CaseReport pass{"forward", 0, true, {}, 0.5};
  OutputReport o;
  o.index = 0;
  o.dtype = ScalarType::kFloat;
  o.shape = {1, 12};
  o.numel = 12;
  pass.outputs.push_back(o);
  CaseReport fail{"my method", 7, false, {}, 1.0 / 3.0};
  OutputReport bad = o;
  bad.passed = false;
  bad.mismatched = 2;
  bad.max_abs_error = std::numeric_limits<double>::infinity();
  bad.max_abs_position = {0, 3};
  bad.max_rel_error = 0.1 + 0.2;
  bad.max_rel_position = {0, 5};
  bad.first_mismatches = {{{0, 3}, 1.0, std::numeric_limits<double>::infinity()}, {{0, 5}, -2.5, std::nan("")}};
  fail.outputs.push_back(bad);
  OutputReport structural;
  structural.index = 1;
  structural.passed = false;
  structural.structural_error = "shape mismatch: expected [2], got [3] - 100% off";
  fail.outputs.push_back(structural);
  CaseReport error{"other", 2, false, {}, 0.25, "method 'other': no kernel for aten::foo.out"};
  v.errors = 1;
  v.cases = {pass, fail, error};
  return v;
}

TEST(DeviceReport, VerifyReportRoundTripsExactly) {
  DeviceReport written;
  written.verify = sample_report();
  auto read = parse_device_report(format_device_report(written));
  ASSERT_TRUE(read.ok()) << read.error().message();
  const VerifyReport& a = written.verify;
  const VerifyReport& b = read->verify;
  EXPECT_FALSE(read->failed);
  EXPECT_EQ(b.rtol, a.rtol);
  EXPECT_EQ(b.atol, a.atol);
  EXPECT_EQ(b.load_seconds, a.load_seconds);
  EXPECT_EQ(b.passed, 1u);
  EXPECT_EQ(b.failed, 1u);
  EXPECT_EQ(b.errors, 1u);
  ASSERT_EQ(b.cases.size(), 3u);
  EXPECT_EQ(b.cases[2].error, "method 'other': no kernel for aten::foo.out");
  EXPECT_EQ(b.cases[1].error, "");
  EXPECT_EQ(b.cases[1].method, "my method");
  EXPECT_EQ(b.cases[1].case_index, 7u);
  EXPECT_EQ(b.cases[1].seconds, 1.0 / 3.0);
  ASSERT_EQ(b.cases[1].outputs.size(), 2u);
  const OutputReport& bad = b.cases[1].outputs[0];
  EXPECT_FALSE(bad.passed);
  EXPECT_EQ(bad.shape, (std::vector<int64_t>{1, 12}));
  EXPECT_TRUE(std::isinf(bad.max_abs_error));
  EXPECT_EQ(bad.max_rel_error, 0.1 + 0.2);
  EXPECT_EQ(bad.max_rel_position, (std::vector<int64_t>{0, 5}));
  ASSERT_EQ(bad.first_mismatches.size(), 2u);
  EXPECT_EQ(bad.first_mismatches[1].expected, -2.5);
  EXPECT_TRUE(std::isnan(bad.first_mismatches[1].actual));
  EXPECT_EQ(b.cases[1].outputs[1].structural_error, "shape mismatch: expected [2], got [3] - 100% off");
  EXPECT_TRUE(b.cases[0].outputs[0].structural_error.empty());
}

TEST(DeviceReport, ErrorsAndRunsRoundTrip) {
  DeviceReport failed;
  failed.failed = true;
  failed.error_code = ErrorCode::kMissingKernel;
  failed.error_message = "method 'forward': no kernel for 1 operator: cortex_m::pad.out";
  auto read = parse_device_report(format_device_report(failed));
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->failed);
  EXPECT_EQ(read->error_code, ErrorCode::kMissingKernel);
  EXPECT_EQ(read->error_message, failed.error_message);

  DeviceReport run;
  run.kind = DeviceReport::Kind::kRun;
  run.outputs = 3;
  run.latencies_ms = {1.5, 2.25};
  run.traced = true;
  run.trace = TraceTotals{4, 95, 3, 0, 1, 4096, 12};
  read = parse_device_report(format_device_report(run));
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->traced);
  EXPECT_EQ(read->trace.events, 95u);
  EXPECT_EQ(read->trace.dropped_events, 3u);
  EXPECT_EQ(read->trace.debug_bytes, 4096u);
  EXPECT_EQ(read->trace.intermediate_values, 12u);
  EXPECT_EQ(read->kind, DeviceReport::Kind::kRun);
  EXPECT_EQ(read->outputs, 3u);
  EXPECT_EQ(read->latencies_ms, (std::vector<double>{1.5, 2.25}));
}

TEST(DeviceReport, MalformedReportsNameTheLine) {
  EXPECT_FALSE(parse_device_report("").ok());
  EXPECT_FALSE(parse_device_report("hello\n").ok());
  auto bad = parse_device_report("etkit-device-report 2\nverify 1 2 3 x 0\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.error().message()).find("line 2"), std::string::npos) << bad.error().message();
  // An output announcing mismatches the report does not hold.
  DeviceReport written;
  written.verify = sample_report();
  std::string text = format_device_report(written);
  text = text.substr(0, text.rfind("mismatch"));
  EXPECT_FALSE(parse_device_report(text).ok());
  EXPECT_FALSE(parse_device_report("etkit-device-report 2\nmismatch 0 1 2\n").ok());
  EXPECT_FALSE(parse_device_report("etkit-device-report 2\ncase m 0 1 0 -\noutput 0 1 - 6 - 1 0 0 - 0 - 99999999\n").ok());
}

}  // namespace
}  // namespace etkit::bundled
