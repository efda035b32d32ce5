// etinspect diff-program against facts known by construction: two programs
// built here that differ in one constant element and one op, and the
// MobileNetV2 sample against its XNNPACK export (the model's 52
// convolutions move into one delegate call).

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli.h"
#include "support/corpus.h"
#include "support/program_builder.h"

namespace etkit {
namespace {

using test::etinspect;

std::vector<uint8_t> floats(std::vector<float> values) {
  std::vector<uint8_t> out(values.size() * 4);
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// y = (x * scale) + shift, and in the second version shift[2] is 0.5 larger
// and a relu follows (`added_op` names it).
std::string affine_program(const std::string& name, bool changed, const std::string& added_op = "aten::relu") {
  test::ProgramBuilder b;
  const int32_t x = b.tensor({4}, 0), scaled = b.tensor({4}, 16), y = b.tensor({4}, 32), z = b.tensor({4}, 48);
  const int32_t scale = b.constant_tensor({4}, ScalarType::kFloat, floats({1, 2, 3, 4}));
  const int32_t shift = b.constant_tensor({4}, ScalarType::kFloat, floats({0.25f, -1, changed ? 2.5f : 2.0f, 7}));
  b.kernel_call("aten::mul", "out", {x, scale, scaled, scaled});
  b.kernel_call("aten::add", "out", {scaled, shift, b.integer(1), y, y});
  if (changed) b.kernel_call(added_op, "out", {y, z, z});
  b.inputs({x});
  b.outputs({changed ? z : y});
  b.arena(64);
  return test::write_temp(name, b.build());
}

TEST(DiffProgramCommand, OneChangedConstantAndOneAddedOpAreTheFactsReported) {
  const std::string old_pte = affine_program("diff_old.pte", false), new_pte = affine_program("diff_new.pte", true);
  const auto result = etinspect({"diff-program", old_pte, new_pte, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json d = nlohmann::json::parse(result.out);
  EXPECT_EQ(d["old_file_bytes"], std::filesystem::file_size(old_pte));
  EXPECT_EQ(d["new_file_bytes"], std::filesystem::file_size(new_pte));
  ASSERT_EQ(d["methods"].size(), 1u);
  EXPECT_EQ(d["methods"][0]["old_instructions"], 2);
  EXPECT_EQ(d["methods"][0]["new_instructions"], 3);
  ASSERT_EQ(d["methods"][0]["operators"].size(), 1u);
  EXPECT_EQ(d["methods"][0]["operators"][0]["name"], "aten::relu.out");
  EXPECT_EQ(d["methods"][0]["operators"][0]["old"], 0);
  EXPECT_EQ(d["methods"][0]["operators"][0]["new"], 1);
  ASSERT_EQ(d["constants"].size(), 1u);  // scale is equal, shift changed by 0.5 in one element
  EXPECT_EQ(d["constants"][0]["status"], "changed");
  EXPECT_EQ(d["constants"][0]["new_shape"], "float32[4]");
  EXPECT_DOUBLE_EQ(d["constants"][0]["max_abs_change"].get<double>(), 0.5);
  EXPECT_EQ(d["constants_unchanged"], 1);
  EXPECT_TRUE(d["methods_added"].empty() && d["methods_removed"].empty());
}

// An op name that is not UTF-8 (a damaged file) reaches the JSON with
// U+FFFD in its place; it used to end the command with an internal error.
TEST(DiffProgramCommand, NamesThatAreNotUtf8AreReplacedInTheJson) {
  const std::string old_pte = affine_program("utf8_old.pte", false);
  const std::string new_pte = affine_program("utf8_new.pte", true, "aten::re\xfflu");
  const auto result = etinspect({"diff-program", old_pte, new_pte, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json d = nlohmann::json::parse(result.out);
  ASSERT_EQ(d["methods"][0]["operators"].size(), 1u);
  EXPECT_EQ(d["methods"][0]["operators"][0]["name"], "aten::re\xEF\xBF\xBDlu.out");
}

TEST(DiffProgramCommand, DelegatingMobileNetMovesEveryConvolutionIntoOneXnnpackCall) {
  const std::string portable = test::sample("mobilenet_v2/mobilenet_v2.pte");
  const std::string delegated = test::sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte");
  const auto result = etinspect({"diff-program", portable, delegated, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json d = nlohmann::json::parse(result.out);
  ASSERT_EQ(d["methods"].size(), 1u);
  const nlohmann::json& forward = d["methods"][0];
  EXPECT_EQ(forward["new_instructions"], 1);
  ASSERT_EQ(forward["delegate_calls"].size(), 1u);
  EXPECT_EQ(forward["delegate_calls"][0]["name"], "XnnpackBackend");
  EXPECT_EQ(forward["delegate_calls"][0]["new"], 1);
  bool convolutions = false;
  for (const auto& op : forward["operators"]) {
    if (op["name"] == "aten::convolution.out") {
      convolutions = true;
      EXPECT_EQ(op["old"], 52);  // MobileNetV2's convolutions
      EXPECT_EQ(op["new"], 0);
    }
  }
  EXPECT_TRUE(convolutions);
  // The weights move from the constant segment into XNNPACK's named data.
  int64_t named_new = -1, constants_old = -1;
  for (const auto& s : d["sizes"]) {
    if (s["category"] == "named data (delegate constants)") named_new = s["new_bytes"];
    if (s["category"] == "constants") constants_old = s["old_bytes"];
  }
  EXPECT_GT(named_new, 3'000'000);
  EXPECT_GT(constants_old, 3'000'000);
  // A size gate: the delegated file is smaller, so it passes any threshold;
  // the other way round it grew, and --fail-above-bytes 0 fails it.
  EXPECT_EQ(etinspect({"diff-program", portable, delegated, "--fail-above-bytes", "0"}).exit_code, 0);
  const auto grew = etinspect({"diff-program", delegated, portable, "--fail-above-bytes", "0"});
  EXPECT_EQ(grew.exit_code, 1);
  EXPECT_NE(grew.err.find("etinspect: check failed: "), std::string::npos) << grew.err;
  EXPECT_NE(grew.err.find("more than --fail-above-bytes 0"), std::string::npos) << grew.err;
}

TEST(DiffProgramCommand, UnreadableInputsAreErrorsNamingTheFile) {
  const std::string junk = test::write_temp("diff_junk.pte", std::vector<uint8_t>(64, 7));
  const auto result = etinspect({"diff-program", junk, test::sample("tiny/affine.pte")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("diff_junk.pte"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace etkit
