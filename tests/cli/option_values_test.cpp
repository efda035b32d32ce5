// Every numeric option of every subcommand at 0, -1, a huge value, nan and
// a word: each value is either refused before any work (exit 2, the message
// naming the option and the value) or meaningfully accepted (exit 0). No
// value may be silently taken to mean something else ("everything", "off").

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>
#include <string>
#include <vector>

#include "support/cli.h"

namespace etkit {
namespace {

using test::etinspect;
using test::sample;
using test::temp;


// Traces every case below reads: two traced runs of the tutorial CNN with
// intermediate outputs (equal, so a gap between them passes).
class OptionValues : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* tag : {"a", "b"}) {
      auto run = etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--iterations", "2", "--etdump",
                            temp(std::string("values_") + tag + ".etdp"), "--debug-level", "intermediates",
                            "--debug-buffer", temp(std::string("values_") + tag + ".bin")});
      ASSERT_EQ(run.exit_code, 0) << run.err;
    }
  }
};

enum Verdict { kRefused, kAccepted };

struct Case {
  std::vector<std::string> command;  // the subcommand and its other arguments
  std::string option;
  std::vector<std::pair<std::string, Verdict>> values;
};

// 0, -1, huge, nan, word for a count that must be at least 1.
std::vector<std::pair<std::string, Verdict>> count_from_one() {
  return {{"0", kRefused}, {"-1", kRefused}, {"99999999999999999999", kRefused}, {"nan", kRefused},
          {"many", kRefused}};
}
// The same for an index or count that may be 0.
std::vector<std::pair<std::string, Verdict>> count_from_zero() {
  return {{"0", kAccepted}, {"-1", kRefused}, {"99999999999999999999", kRefused}, {"nan", kRefused},
          {"many", kRefused}};
}
// A tolerance or threshold: any finite number >= 0.
std::vector<std::pair<std::string, Verdict>> non_negative() {
  return {{"0", kAccepted}, {"-1", kRefused}, {"1e300", kAccepted}, {"nan", kRefused}, {"tight", kRefused}};
}

TEST_F(OptionValues, NoValueIsSilentlyAccepted) {
  const std::string pte = sample("tutorial_cnn/tutorial_cnn.pte");
  const std::string bpte = sample("tutorial_cnn/tutorial_cnn.bpte");
  const std::string a = temp("values_a.etdp"), b = temp("values_b.etdp");
  const std::vector<std::string> gap = {"gap", a, "--debug-buffer", temp("values_a.bin"), "--reference", b,
                                        "--reference-debug-buffer", temp("values_b.bin")};
  const std::vector<Case> cases = {
      {{"run", pte}, "--iterations", count_from_one()},
      {{"run", pte}, "--warmup", count_from_zero()},
      {{"run", pte}, "--seed", count_from_zero()},
      {{"run", bpte}, "--bundled-input", count_from_zero()},
      {{"verify", bpte}, "--rtol", non_negative()},
      {{"verify", bpte}, "--atol", non_negative()},
      {{"verify", bpte}, "--case", count_from_zero()},
      {{"table", a}, "--top", count_from_one()},
      {{"modules", a, "--etrecord", sample("tutorial_cnn/tutorial_cnn.etrecord")}, "--depth", count_from_one()},
      {{"diff", a, b}, "--fail-above", {{"0", kAccepted}, {"-1", kRefused}, {"1e300", kAccepted},
                                        {"nan", kRefused}, {"ten", kRefused}}},
      {{"diff", a, b}, "--top", count_from_one()},
      {gap, "--atol", non_negative()},
      {gap, "--rtol", non_negative()},
      // Blocks 1 and 2 hold the runs; 0 is the load block, without outputs.
      {gap, "--run-block", {{"0", kRefused}, {"1", kAccepted}, {"-1", kRefused}, {"99999999999999999999", kRefused},
                        {"nan", kRefused}, {"last", kRefused}}},
  };
  for (const Case& c : cases) {
    for (const auto& [value, verdict] : c.values) {
      std::vector<std::string> args = c.command;
      args.push_back(c.option);
      args.push_back(value);
      const std::string call = c.command[0] + " " + c.option + " " + value;
      const auto result = etinspect(args);
      if (verdict == kAccepted) {
        // A gate's threshold may make it fail (exit 1: diff --fail-above 0 on
        // noise, verify --rtol 0 on last-bit differences): a real verdict.
        const bool gate = c.option == "--fail-above" || c.option == "--rtol" || c.option == "--atol";
        EXPECT_TRUE(result.exit_code == 0 || (gate && result.exit_code == 1)) << call << ": " << result.err;
        continue;
      }
      EXPECT_EQ(result.exit_code, 2) << call << ": " << result.err;
      EXPECT_NE(result.err.find(c.option), std::string::npos) << call << ": " << result.err;
      EXPECT_NE(result.err.find(value.substr(0, 8)), std::string::npos) << call << ": " << result.err;
    }
  }
}

}  // namespace
}  // namespace etkit
