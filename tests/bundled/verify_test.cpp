// The verifier on the upstream bundle, on variants of it built here, and
// on bundles our writer makes.

#include "etkit/bundled/verify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "bundled_program_generated.h"
#include "etkit/bundled/bundled_writer.h"
#include "etkit/core/file_data.h"
#include "support/corpus.h"
#include "support/program_builder.h"
#include "support/kernels.h"

namespace etkit::bundled {
namespace {

struct Loaded {
  std::shared_ptr<const FileData> file;
  BundledProgram bundle;
  Program program;
};

Loaded load_bytes(const std::vector<uint8_t>& bytes) {
  auto file = FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "bundle.bpte");
  BundledProgram bundle = test::checked(BundledProgram::load(file, "bundle.bpte"), "bundle.bpte");
  Program program = test::checked(bundle.load_program(), "the embedded program");
  return Loaded{file, std::move(bundle), std::move(program)};
}

VerifyReport run(const Loaded& loaded, VerifyOptions options = {}) {
  return test::checked(verify(loaded.bundle, loaded.program, test::with_kernels(), options), "verify");
}

TEST(Verify, UpstreamBundlePassesAllTenCases) {
  Loaded loaded = load_bytes(test::read_file(test::corpus("upstream/bundled/add_mul_int.bpte")));
  VerifyReport report = run(loaded);
  EXPECT_EQ(report.cases.size(), 10u);
  EXPECT_EQ(report.passed, 10u);
  EXPECT_EQ(report.failed, 0u);
}

// Byte offset of case `c`'s expected output 0 (data or sizes) in the file,
// found through the generated flatbuffer API (a second path to the bytes).
size_t expected_offset(const std::vector<uint8_t>& bytes, size_t c, bool sizes) {
  const auto* root = bundled_program_flatbuffer::GetBundledProgram(bytes.data());
  const auto* tensor = root->method_test_suites()->Get(0)->test_cases()->Get(uint32_t(c))
                           ->expected_outputs()->Get(0)->val_as_Tensor();
  const uint8_t* at = sizes ? reinterpret_cast<const uint8_t*>(tensor->sizes()->data()) : tensor->data()->data();
  return size_t(at - bytes.data());
}

TEST(Verify, ChangedExpectedByteFailsNamingCaseOutputAndElement) {
  auto bytes = test::read_file(test::corpus("upstream/bundled/add_mul_int.bpte"));
  // Case 3's expected output is [2, 2, 2, 2] (int32): make element [0, 1] 7.
  bytes[expected_offset(bytes, 3, false) + 4] = 7;
  Loaded loaded = load_bytes(bytes);
  VerifyReport report = run(loaded);
  EXPECT_EQ(report.passed, 9u);
  ASSERT_EQ(report.failed, 1u);
  const CaseReport& failed = *std::find_if(report.cases.begin(), report.cases.end(),
                                           [](const CaseReport& c) { return !c.passed; });
  EXPECT_EQ(failed.case_index, 3u);
  ASSERT_EQ(failed.outputs.size(), 1u);
  const OutputReport& output = failed.outputs[0];
  EXPECT_EQ(output.mismatched, 1);
  EXPECT_EQ(output.numel, 4);
  ASSERT_EQ(output.first_mismatches.size(), 1u);
  EXPECT_EQ(output.first_mismatches[0].position, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(output.first_mismatches[0].expected, 7);
  EXPECT_EQ(output.first_mismatches[0].actual, 2);
  EXPECT_EQ(output.max_abs_error, 5);
  EXPECT_EQ(output.max_abs_position, (std::vector<int64_t>{0, 1}));
}

TEST(Verify, ChangedExpectedShapeFailsSayingSo) {
  auto bytes = test::read_file(test::corpus("upstream/bundled/add_mul_int.bpte"));
  // Sizes [2, 2] -> [4, 1]: same element count, different shape.
  const size_t at = expected_offset(bytes, 0, true);
  bytes[at] = 4;
  bytes[at + 4] = 1;
  Loaded loaded = load_bytes(bytes);
  VerifyReport report = run(loaded);
  ASSERT_EQ(report.failed, 1u);
  EXPECT_EQ(report.cases[0].outputs[0].structural_error,
            "shape [2, 2] differs from the expected [4, 1]");
}

// A case that cannot run (here case 3's input holds its four values as
// [4, 1], not as the program's static [2, 2]) is reported as an error naming why; the other
// nine still run and pass.
TEST(Verify, ACaseThatCannotRunIsAnErrorAndTheOthersStillRun) {
  auto bytes = test::read_file(test::corpus("upstream/bundled/add_mul_int.bpte"));
  const auto* root = bundled_program_flatbuffer::GetBundledProgram(bytes.data());
  const auto* input = root->method_test_suites()->Get(0)->test_cases()->Get(3)->inputs()->Get(0)->val_as_Tensor();
  ASSERT_EQ(input->sizes()->size(), 2u);
  ASSERT_EQ(input->sizes()->Get(0), 2);
  const size_t sizes_at = size_t(reinterpret_cast<const uint8_t*>(input->sizes()->data()) - bytes.data());
  bytes[sizes_at] = 4;      // [2, 2] -> [4, 1]
  bytes[sizes_at + 4] = 1;
  Loaded loaded = load_bytes(bytes);
  VerifyReport report = run(loaded);
  ASSERT_EQ(report.cases.size(), 10u);
  EXPECT_EQ(report.errors, 1u);
  EXPECT_EQ(report.passed, 9u);
  EXPECT_EQ(report.failed, 0u);
  EXPECT_FALSE(report.cases[3].passed);
  EXPECT_NE(report.cases[3].error.find("[4, 1]"), std::string::npos) << report.cases[3].error;
  EXPECT_TRUE(report.cases[3].outputs.empty());
  EXPECT_TRUE(report.cases[4].error.empty());
}

TEST(Verify, AllcloseRuleMatchesUpstream) {
  EXPECT_TRUE(values_close(NAN, NAN, 0, 0));
  EXPECT_TRUE(values_close(INFINITY, INFINITY, 0, 0));
  EXPECT_FALSE(values_close(INFINITY, -INFINITY, 1, 1));
  EXPECT_FALSE(values_close(NAN, 1.0, 1, 1));
  EXPECT_TRUE(values_close(1.0 + 1e-9, 1.0, 1e-5, 1e-8));
  EXPECT_FALSE(values_close(1.0 + 1e-9, 1.0, 0, 0));  // rtol = atol = 0: exact
  EXPECT_TRUE(values_close(100.0009, 100.0, 1e-5, 0));   // 0.0009 <= 0.001
  EXPECT_FALSE(values_close(100.0011, 100.0, 1e-5, 0));
}

// forward(x, y) = x + y on f32[2, 3].
std::vector<uint8_t> add_program() {
  test::ProgramBuilder b;
  const int32_t x = b.tensor({2, 3}, 0), y = b.tensor({2, 3}, 32), one = b.integer(1), out = b.tensor({2, 3}, 64);
  b.kernel_call("aten::add", "out", {x, y, one, out, out});
  b.inputs({x, y});
  b.outputs({out});
  b.arena(96);
  return b.build();
}

OwnedValue f32(const std::vector<float>& values, std::vector<int32_t> sizes) {
  OwnedValue v;
  v.sizes = std::move(sizes);
  v.data.resize(values.size() * 4);
  std::memcpy(v.data.data(), values.data(), v.data.size());
  return v;
}

TEST(Writer, WrittenBundlesReadBackAndVerify) {
  const auto program = add_program();
  OwnedTestSuite suite{"forward", {}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-5, 5);
  for (int c = 0; c < 5; ++c) {
    std::vector<float> x(6), y(6), sum(6);
    for (int i = 0; i < 6; ++i) {
      x[i] = uniform(rng);
      y[i] = uniform(rng);
      sum[i] = x[i] + y[i];  // hand-derived expected output
    }
    suite.cases.push_back({{f32(x, {2, 3}), f32(y, {2, 3})}, {f32(sum, {2, 3})}});
  }
  auto bytes = write_bundled_program(ByteSpan{program.data(), program.size()}, {suite});
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  Loaded loaded = load_bytes(*bytes);
  EXPECT_EQ(loaded.bundle.program_offset() % 32, 0u);
  EXPECT_EQ(loaded.bundle.program_bytes().size, program.size());
  for (const TestCase& c : loaded.bundle.suites()[0].cases) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(c.inputs[0].data.data) % 16, 0u);
  }
  EXPECT_EQ(run(loaded).passed, 5u);
  // Debian's flatc reads our bundle with our schema (a second reader).
  const std::string path = test::write_temp("written.bpte", *bytes);
  const std::string json = test::flatc_json(std::string(ETKIT_SOURCE_DIR) + "/bundled/schema/bundled_program.fbs",
                                            path, false);
  EXPECT_NE(json.find("\"method_name\": \"forward\""), std::string::npos);
}

TEST(Writer, RejectsCasesThatDoNotFitTheMethod) {
  const auto program = add_program();
  OwnedTestSuite wrong_shape{"forward", {{{f32(std::vector<float>(4), {2, 2}), f32(std::vector<float>(6), {2, 3})},
                                          {f32(std::vector<float>(6), {2, 3})}}}};
  auto bytes = write_bundled_program(ByteSpan{program.data(), program.size()}, {wrong_shape});
  ASSERT_FALSE(bytes.ok());
  EXPECT_STREQ(bytes.error().message(), "method 'forward' case 0: input 0 must have shape [2, 3], got [2, 2]");
  OwnedTestSuite wrong_method{"backward", {}};
  EXPECT_FALSE(write_bundled_program(ByteSpan{program.data(), program.size()}, {wrong_method}).ok());
}

}  // namespace
}  // namespace etkit::bundled
