// etinspect diff as a CI gate, on traces built here with a fake clock so
// the durations (and so the regression) are known exactly.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "etkit/etdump/etdump_gen.h"
#include "support/cli.h"

namespace etkit {
namespace {

uint64_t step_clock(void* context) {
  auto* state = static_cast<std::pair<uint64_t, uint64_t>*>(context);
  return state->first += state->second;  // advances by a fixed step per read
}

// One Execute block with an OPERATOR_CALL-less kernel event lasting
// `step` ns (start and end are consecutive reads).
std::string trace_with_step(const std::string& name, uint64_t step) {
  std::pair<uint64_t, uint64_t> state{1000, step};
  etdump::ETDumpGenOptions options;
  options.clock = etdump::TickSource{&step_clock, &state, 1.0};
  etdump::ETDumpGen gen(options);
  gen.create_event_block("Execute");
  gen.end_profiling(gen.start_profiling("native_call_add.out", 0, 0));
  return test::write_temp(name, test::checked(gen.serialize(), "serialize"));
}

using test::etinspect;

TEST(DiffCommand, ReportsDeltaAndGatesOnRegression) {
  const std::string before = trace_with_step("before.etdp", 10000);  // 0.01 ms
  const std::string after = trace_with_step("after.etdp", 15000);    // 0.015 ms: +50%
  auto result = etinspect({"diff", before, after, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = nlohmann::json::parse(result.out);
  ASSERT_EQ(report["events"].size(), 1u);
  const auto& row = report["events"][0];
  EXPECT_EQ(row["event"], "native_call_add.out");
  EXPECT_DOUBLE_EQ(row["p50_before"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(row["p50_after"].get<double>(), 0.015);
  EXPECT_NEAR(row["percent"].get<double>(), 50.0, 1e-9);
  EXPECT_EQ(etinspect({"diff", before, after, "--fail-above", "20"}).exit_code, 1);
  EXPECT_EQ(etinspect({"diff", before, after, "--fail-above", "60"}).exit_code, 0);
  EXPECT_EQ(etinspect({"diff", after, before, "--fail-above", "0"}).exit_code, 0);  // faster
  EXPECT_EQ(etinspect({"diff", before, "/no/such.etdp"}).exit_code, 2);
}

}  // namespace
}  // namespace etkit

namespace etkit::cli {
namespace {

// A gate across two different programs would pass on what it never compared.
TEST(DiffCommand, TracesOfDifferentProgramsAreRefusedUnlessAllowed) {
  const std::string ours = trace_with_step("add.etdp", 10000);  // one native_call_add.out
  const std::string upstream = test::corpus("upstream/etdump/tutorial_cnn.etdp");  // a CNN's kernels
  auto refused = test::etinspect({"diff", ours, upstream, "--fail-above", "10"});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("are not traces of one program"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--allow-unmatched"), std::string::npos) << refused.err;
  auto allowed = test::etinspect({"diff", ours, upstream, "--allow-unmatched", "--json"});
  EXPECT_NE(allowed.exit_code, 2) << allowed.err;
  EXPECT_NE(allowed.err.find("appear in only one trace"), std::string::npos) << allowed.err;
}

}  // namespace
}  // namespace etkit::cli
