// etinspect diff as a CI gate, on traces built here with a fake clock so
// the durations (and so the regression) are known exactly.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "etkit/etdump/etdump_gen.h"
#include "support/cli.h"
#include "support/timed_trace.h"

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
  EXPECT_DOUBLE_EQ(row["before"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(row["after"].get<double>(), 0.015);
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

namespace etkit::cli {
namespace {

// #41's must-show: two runs of one program pass the noise-aware gate; one
// op made slower fails it, named on stderr; the total gate sees the run.
// Twenty runs a side, a 25% log-normal spread and one duration in twenty
// doubled (support/timed_trace.h), the kernels of a small CNN.
class NoiseAwareGate : public ::testing::Test {
 protected:
  const std::vector<std::string> names = {"native_call_convolution.out", "native_call_relu.out",
                                          "native_call_max_pool2d_with_indices.out", "native_call_convolution.out",
                                          "native_call_relu.out", "native_call_mean.out", "native_call_addmm.out"};
  const std::vector<uint64_t> base = {180000, 8000, 45000, 90000, 4000, 2000, 1500};
  std::string write(const std::string& file, const std::vector<uint64_t>& durations, uint32_t seed) {
    return test::write_temp(file, test::timed_trace(names, test::noisy_runs(durations, 20, 0.25, 0.05, seed)));
  }
};

TEST_F(NoiseAwareGate, TwoRunsOfOneProgramPassAndASlowedOpFails) {
  const std::string before = write("noise_before.etdp", base, 11);
  const std::string again = write("noise_again.etdp", base, 12);
  std::vector<uint64_t> slower = base;
  slower[3] *= 2;  // the second convolution, made twice as slow
  const std::string slowed = write("noise_slowed.etdp", slower, 12);

  auto same = test::etinspect({"diff", before, again, "--fail-above", "10", "--json"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  const auto report = nlohmann::json::parse(same.out);
  EXPECT_EQ(report["gate"]["regressions"], 0);
  EXPECT_EQ(report["gate"]["confidence"], 0.99);
  // The default time floor: 0.1% of the whole run before.
  EXPECT_NEAR(report["gate"]["min_time"].get<double>(), 0.001 * report["total"][0]["before"].get<double>(), 1e-12);
  for (const auto& row : report["events"]) {
    EXPECT_TRUE(row["regressed"].is_boolean()) << row.dump();
    EXPECT_EQ(row["runs_before"], 20) << row.dump();
  }
  // The same traces fail a gate on the percentage alone: that is the noise.
  auto naive = test::etinspect({"diff", before, again, "--fail-above", "10", "--percent-only"});
  EXPECT_EQ(naive.exit_code, 1) << naive.out;

  auto slow = test::etinspect({"diff", before, slowed, "--fail-above", "10", "--json"});
  ASSERT_EQ(slow.exit_code, 1) << slow.out << slow.err;
  EXPECT_NE(slow.err.find("etinspect: check failed: 1 event(s) slowed down by more than 10% beyond their runs' noise"),
            std::string::npos)
      << slow.err;
  const auto slow_report = nlohmann::json::parse(slow.out);
  const auto& worst = slow_report["events"][0];  // worst first
  EXPECT_EQ(worst["event"], "native_call_convolution.out");
  EXPECT_EQ(worst["occurrence"], 1);
  EXPECT_EQ(worst["regressed"], true);
  EXPECT_EQ(worst["verdict"], "regressed");
  EXPECT_LT(worst["p_slower"].get<double>(), 0.01);

  // The whole run grows by ~27% (90 of 330 us more): the total gate.
  auto total = test::etinspect({"diff", before, slowed, "--fail-total-above", "15"});
  EXPECT_EQ(total.exit_code, 1) << total.out;
  EXPECT_NE(total.err.find("the whole run (Method::execute) slowed down by"), std::string::npos) << total.err;
  EXPECT_EQ(test::etinspect({"diff", before, again, "--fail-total-above", "15"}).exit_code, 0);
  // A floor above the slowdown (0.09 ms) lets it pass.
  EXPECT_EQ(test::etinspect({"diff", before, slowed, "--fail-above", "10", "--min-time", "0.2"}).exit_code, 0);
}

TEST_F(NoiseAwareGate, FiltersAndStatistic) {
  const std::string before = write("filter_before.etdp", base, 21);
  const std::string after = write("filter_after.etdp", base, 22);
  auto relus = test::etinspect({"diff", before, after, "--event", "relu", "--stat", "min", "--json"});
  ASSERT_EQ(relus.exit_code, 0) << relus.err;
  const auto report = nlohmann::json::parse(relus.out);
  EXPECT_EQ(report["stat"], "min");
  ASSERT_EQ(report["events"].size(), 2u);
  for (const auto& row : report["events"]) EXPECT_EQ(row["event"], "native_call_relu.out");
  auto none = test::etinspect({"diff", before, after, "--event", "softmax"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("whose name matches --event"), std::string::npos) << none.err;
  auto bad = test::etinspect({"diff", before, after, "--event", "("});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("not a regular expression"), std::string::npos) << bad.err;
  auto block = test::etinspect({"diff", before, after, "--block", "Decode"});
  EXPECT_EQ(block.exit_code, 2);
  EXPECT_NE(block.err.find("--block 'Decode'"), std::string::npos) << block.err;
  auto confidence = test::etinspect({"diff", before, after, "--confidence", "2"});
  EXPECT_EQ(confidence.exit_code, 2);
  EXPECT_NE(confidence.err.find("allowed: a number from 0.5 to 0.9999"), std::string::npos) << confidence.err;
}

// Rows named by the model: the tutorial CNN's second convolution is
// `conv2` at line 33 of the model source it was exported from
// (samples/export/upstream/models.py), not "occurrence 1".
TEST(DiffCommand, AnEtrecordNamesEachRowsModuleAndSourceLine) {
  const std::string trace = test::write_temp("cnn_modules.etdp", {});
  ASSERT_EQ(test::etinspect({"run", test::sample("tutorial_cnn/tutorial_cnn.pte"), "--iterations", "2", "--etdump",
                             trace}).exit_code, 0);
  auto result = test::etinspect({"diff", trace, trace, "--etrecord", test::sample("tutorial_cnn/tutorial_cnn.etrecord"),
                                 "--event", "convolution", "--sort", "event", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows = nlohmann::json::parse(result.out)["events"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1]["occurrence"], 1);
  EXPECT_EQ(rows[1]["module"], "conv2 (Conv2d)");
  EXPECT_NE(rows[1]["source"].get<std::string>().find("models.py:33"), std::string::npos) << rows[1].dump();
}

// A trace of one run cannot show noise: the gate says so and falls back.
TEST_F(NoiseAwareGate, TooFewRunsAreGatedOnThePercentageWithAWarning) {
  const std::string one = test::write_temp("one_run.etdp", test::timed_trace(names, {base}));
  auto result = test::etinspect({"diff", one, one, "--fail-above", "10"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.err.find("have too few runs for the noise test at 99% confidence (it takes 5 runs per trace"),
            std::string::npos)
      << result.err;
}

}  // namespace
}  // namespace etkit::cli
