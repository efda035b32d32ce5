// The user's runner's command line from --runner-args: placeholders,
// per-file repetition, absent values left out with their flags.

#include <gtest/gtest.h>

#include "runner_template.h"

namespace etkit::cli {
namespace {

TemplateValues values(std::vector<std::string> inputs, std::vector<std::string> etdump) {
  return {{"program", {"program.pte"}}, {"method", {"forward"}}, {"inputs", inputs}, {"data", {}},
          {"output_dir", {"outputs"}}, {"etdump", etdump}, {"debug_buffer", {}}};
}

std::vector<std::string> expand(const std::string& text, const TemplateValues& v) {
  auto args = expand_runner_template(text, v);
  EXPECT_TRUE(args.ok()) << args.error().message();
  return args.ok() ? *args : std::vector<std::string>{};
}

TEST(RunnerTemplate, TheContractsCommandLine) {
  EXPECT_EQ(expand(kDefaultRunnerTemplate, values({"input0.npy", "input1.npy"}, {"trace.etdp"})),
            (std::vector<std::string>{"run", "program.pte", "--method", "forward", "--input", "input0.npy", "--input",
                                      "input1.npy", "--output-dir", "outputs", "--etdump", "trace.etdp"}));
  EXPECT_EQ(expand(kDefaultRunnerTemplate, values({}, {})),
            (std::vector<std::string>{"run", "program.pte", "--method", "forward", "--output-dir", "outputs"}));
}

TEST(RunnerTemplate, FlagsOfTheirOwn) {
  EXPECT_EQ(expand("--model_path={program} --inputs={inputs} -o {output_dir} --etdump_path={etdump} -v",
                   values({"a.npy", "b.npy"}, {})),
            (std::vector<std::string>{"--model_path=program.pte", "--inputs=a.npy", "--inputs=b.npy", "-o", "outputs",
                                      "-v"}));
}

TEST(RunnerTemplate, UnknownAndUnclosedPlaceholdersAreNamed) {
  auto unknown = expand_runner_template("--model {model}", values({}, {}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(std::string(unknown.error().message()).find("'{model}'"), std::string::npos);
  EXPECT_FALSE(expand_runner_template("--x {program", values({}, {})).ok());
  EXPECT_FALSE(expand_runner_template("{program}{method}", values({}, {})).ok());
}

}  // namespace
}  // namespace etkit::cli
