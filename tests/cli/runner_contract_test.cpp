// The runner contract: `verify --device upstream-host` runs each bundled
// case on upstream's runtime from the pinned wheel (scripts/upstream-runner)
// and gives etkit's own verdicts, PASS and FAIL; its ETDump comes back and
// tabulates; a user's `--runner` is judged by the outputs it writes (a
// runner that echoes its input fails with the input's values as "actual")
// and by its exit code (named with its message).

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/cli.h"
#include "support/tampered_bundle.h"

namespace etkit {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::etinspect;
using test::verify_verdicts;

const std::string kBundle = test::corpus("upstream/bundled/add_mul_int.bpte");

// Host and upstream-host give the same verdicts and exit code.
void expect_etkits_verdicts(const std::vector<std::string>& args) {
  std::vector<std::string> host{"verify"}, upstream{"verify", "--device", "upstream-host"};
  host.insert(host.end(), args.begin(), args.end());
  upstream.insert(upstream.end(), args.begin(), args.end());
  const auto ours = etinspect(host), theirs = etinspect(upstream);
  EXPECT_EQ(theirs.exit_code, ours.exit_code) << theirs.err;
  ASSERT_FALSE(verify_verdicts(ours.out).empty()) << ours.err;
  EXPECT_EQ(verify_verdicts(theirs.out), verify_verdicts(ours.out)) << theirs.out << theirs.err;
  EXPECT_TRUE(contains(theirs.out, ") on upstream-host\n")) << theirs.out;
}

TEST(RunnerContract, UpstreamsRuntimeGivesEtkitsPassAndFailVerdicts) {
  const std::string tampered = test::write_temp("runner-tampered.bpte", test::tampered_corpus_bundle());
  // Case 9 is the case the tampered program gets wrong on both runtimes.
  EXPECT_TRUE(contains(etinspect({"verify", tampered, "--case", "9"}).out, "case 9: FAIL"));
  expect_etkits_verdicts({kBundle, "--case", "9"});
  expect_etkits_verdicts({tampered, "--case", "9"});
  expect_etkits_verdicts({test::sample("tutorial_cnn/tutorial_cnn.bpte"), "--case", "0"});
  // XNNPACK, int8: the bundle's outputs are upstream's runtime's, so both meet them exactly.
  expect_etkits_verdicts({test::sample("mobilenet_v2_xnnpack_int8/mobilenet_v2_xnnpack_int8.bpte"), "--case", "1",
                          "--atol", "0", "--rtol", "0"});
}

TEST(RunnerContract, UpstreamHostIsADeviceOfVerifyOnly) {
  const auto run = etinspect({"run", test::sample("tiny/affine.pte"), "--device", "upstream-host"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "it is a device of verify only")) << run.err;
}

TEST(RunnerContract, UpstreamsTraceComesBackForOneCase) {
  const std::string trace = test::temp("upstream-runner.etdp");
  const auto traced = etinspect({"verify", "--device", "upstream-host", kBundle, "--case", "2", "--etdump", trace});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  const auto table = etinspect({"table", trace, "--format", "csv"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(contains(table.out, "native_call_add.out")) << table.out;
  // Each case is one run of the runner: a trace of several is refused.
  const auto several = etinspect({"verify", "--device", "upstream-host", kBundle, "--etdump", trace});
  EXPECT_EQ(several.exit_code, 2);
  EXPECT_TRUE(contains(several.err, "--etdump traces one case")) << several.err;
}

TEST(RunnerContract, AUsersRunnerIsJudgedByTheOutputsItWrites) {
  // Writes its first input as output 0: case 0's first input is all zeros
  // (etinspect info), the expected output all twos.
  const std::string echo = test::shell_script("echo-runner", R"(out=; in=
while [ $# -gt 0 ]; do case "$1" in --output-dir) out=$2; shift;; --input) [ -z "$in" ] && in=$2; shift;; esac; shift; done
cp "$in" "$out/output_0.npy"
)");
  const auto echoed = etinspect({"verify", "--runner", echo, kBundle, "--case", "0"});
  EXPECT_EQ(echoed.exit_code, 1) << echoed.err;
  EXPECT_TRUE(contains(echoed.out, "case 0: FAIL")) << echoed.out;
  EXPECT_TRUE(contains(echoed.out, "[0, 0]: expected 2, actual 0")) << echoed.out;
  EXPECT_TRUE(contains(echoed.out, "on host via echo-runner")) << echoed.out;

  const std::string failing = test::shell_script("failing-runner", "echo 'my runtime: out of memory' >&2\nexit 3\n");
  const auto failed = etinspect({"verify", "--runner", failing, kBundle, "--case", "0"});
  EXPECT_EQ(failed.exit_code, 2) << "no case could run";
  EXPECT_TRUE(contains(failed.err, "exited with code 3: my runtime: out of memory")) << failed.err;

  // A runner with flags of its own, called through --runner-args.
  const std::string own_flags = test::shell_script("own-flags-runner", R"(out=; in=
for a in "$@"; do case "$a" in -o=*) out=${a#-o=};; --tensor=*) [ -z "$in" ] && in=${a#--tensor=};; *) ;; esac; done
[ -n "$out" ] && [ -n "$in" ] || { echo "own-flags-runner: usage: -o=DIR --tensor=IN..." >&2; exit 64; }
cp "$in" "$out/output_0.npy"
)");
  const auto templated = etinspect({"verify", "--runner", own_flags, "--runner-args",
                                    "--model={program} --tensor={inputs} -o={output_dir}", kBundle, "--case", "0"});
  EXPECT_TRUE(contains(templated.out, "[0, 0]: expected 2, actual 0")) << templated.out << templated.err;
  const auto untemplated = etinspect({"verify", "--runner", own_flags, kBundle, "--case", "0"});
  EXPECT_TRUE(contains(untemplated.err, "exited with code 64: own-flags-runner: usage")) << untemplated.err;

  const std::string silent = test::shell_script("silent-runner", "exit 0\n");
  const auto nothing = etinspect({"verify", "--runner", silent, kBundle, "--case", "0"});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_TRUE(contains(nothing.err, "exited 0 but wrote no outputs/output_0.npy")) << nothing.err;
}

}  // namespace
}  // namespace etkit
