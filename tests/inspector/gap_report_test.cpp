// The numeric-gap analysis on hand-made outputs and references: ops the
// runtime runs as several instructions are compared where the last writes,
// the divergence rule, and a gap over nothing is an error.

#include <gtest/gtest.h>

#include <map>

#include "etkit/inspector/gap_report.h"

namespace etkit::inspector {
namespace {

// References by debug handle, with a handle map of its own (as a folder's
// index.json gives).
class HandleReference final : public ReferenceSource {
 public:
  std::map<int64_t, ReferenceValue> values;
  std::map<int32_t, std::vector<int64_t>> handles;
  Result<std::optional<ReferenceValue>> find(int32_t, const std::vector<int64_t>& keys,
                                             std::string& tried) const override {
    for (int64_t key : keys) {
      tried += std::to_string(key) + " ";
      if (auto it = values.find(key); it != values.end()) return std::optional<ReferenceValue>(it->second);
    }
    return std::optional<ReferenceValue>();
  }
  std::vector<int64_t> handles_of(int32_t instruction) const override {
    auto it = handles.find(instruction);
    return it == handles.end() ? std::vector<int64_t>{} : it->second;
  }
  size_t size() const override { return values.size(); }
};

RecordedOutput output(int32_t instruction, std::vector<double> values, int32_t output_index = 0) {
  RecordedOutput out;
  out.instruction_id = instruction;
  out.output_index = output_index;
  out.sizes = {int64_t(values.size())};
  out.values = std::move(values);
  return out;
}

TEST(GapReport, AnOpOfSeveralInstructionsIsComparedWhereTheLastWrites) {
  // linear -> permute_copy (0) + addmm (1), both debug handle 5; relu (2)
  // is handle 6. A max-pool-like second output (index 1) is never compared.
  const std::vector<RecordedOutput> outputs = {output(0, {9, 9}), output(1, {1, 2}), output(1, {7, 7}, 1),
                                               output(2, {1, 2})};
  HandleReference reference;
  reference.handles = {{0, {5}}, {1, {5}}, {2, {6}}};
  reference.values[5] = {{2}, {1, 2}};
  reference.values[6] = {{2}, {1, 2.5}};  // |diff| 0.5 > 1e-5 + 1e-4 * 2.5
  GapOptions options;
  options.instruction_ops = {"aten::permute_copy.out", "aten::addmm.out", "aten::relu.out"};
  auto report = numeric_gap(outputs, reference, nullptr, options);
  ASSERT_TRUE(report.ok()) << report.error().message();
  ASSERT_EQ(report->rows.size(), 3u);
  EXPECT_EQ(report->rows[0].status, GapStatus::kFolded);
  EXPECT_EQ(report->rows[0].detail, "compared at instruction 1");
  EXPECT_EQ(report->rows[1].status, GapStatus::kOk);
  EXPECT_EQ(report->rows[1].op, "aten::addmm.out");
  EXPECT_EQ(report->rows[1].metrics.max_abs, 0.0);
  EXPECT_EQ(report->rows[2].status, GapStatus::kDiverged);
  EXPECT_DOUBLE_EQ(report->rows[2].metrics.max_abs, 0.5);
  ASSERT_TRUE(report->first_divergence.has_value());
  EXPECT_EQ(*report->first_divergence, 2u);
  EXPECT_EQ(report->compared, 2u);
  EXPECT_EQ(report->missing, 0u);
}

TEST(GapReport, AFusedInstructionIsComparedWithItsLastOp) {
  // conv + relu fused into one instruction: handles 3 then 4.
  HandleReference reference;
  reference.handles = {{0, {3, 4}}};
  reference.values[3] = {{2}, {-1, 2}};  // before the relu
  reference.values[4] = {{2}, {0, 2}};   // after it: what the instruction writes
  auto report = numeric_gap({output(0, {0, 2})}, reference, nullptr, GapOptions{});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->rows[0].status, GapStatus::kOk);
}

TEST(GapReport, WithinToleranceIsNoDivergence) {
  HandleReference reference;
  reference.handles = {{0, {1}}};
  reference.values[1] = {{1}, {100.0}};
  GapOptions options;  // atol 1e-5 + rtol 1e-4 * 100 = 0.01001
  auto close = numeric_gap({output(0, {100.01})}, reference, nullptr, options);
  ASSERT_TRUE(close.ok());
  EXPECT_FALSE(close->first_divergence.has_value());
  auto far = numeric_gap({output(0, {100.02})}, reference, nullptr, options);
  ASSERT_TRUE(far.ok());
  EXPECT_TRUE(far->first_divergence.has_value());
}

TEST(GapReport, ShapeMismatchesAndMissingReferencesAreReported) {
  HandleReference reference;
  reference.handles = {{0, {1}}, {1, {2}}, {2, {3}}};
  reference.values[1] = {{3}, {1, 2, 3}};
  reference.values[3] = {{1}, {4}};
  auto report = numeric_gap({output(0, {1, 2}), output(1, {1}), output(2, {4})}, reference, nullptr, GapOptions{});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->rows[0].status, GapStatus::kShapeMismatch);
  EXPECT_EQ(report->rows[0].detail, "reference [3]");
  EXPECT_EQ(report->rows[1].status, GapStatus::kNoReference);
  EXPECT_EQ(report->missing, 1u);
  EXPECT_EQ(report->shape_mismatches, 1u);
}

// Another shape is no divergence (a delegate's entry transpose against the
// portable graph's NCHW value): not compared, counted; when nothing else has
// a reference, there is nothing to compare, which is an error naming why.
TEST(GapReport, ShapeMismatchesAreNotDivergences) {
  HandleReference reference;
  reference.handles = {{0, {1}}, {1, {2}}};
  reference.values[1] = {{3}, {1, 2, 3}};
  reference.values[2] = {{1}, {5}};
  auto report = numeric_gap({output(0, {1, 2}), output(1, {5})}, reference, nullptr, GapOptions{});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->shape_mismatches, 1u);
  EXPECT_EQ(report->compared, 1u);
  EXPECT_FALSE(report->first_divergence.has_value());
  // Mostly other shapes: a reference of another program, refused.
  auto only_mismatches = numeric_gap({output(0, {1, 2})}, reference, nullptr, GapOptions{});
  ASSERT_FALSE(only_mismatches.ok());
  EXPECT_NE(std::string(only_mismatches.error().message()).find("the reference does not match this trace: 1 of the 1"),
            std::string::npos)
      << only_mismatches.error().message();
  EXPECT_NE(std::string(only_mismatches.error().message()).find("--reference-etrecord"), std::string::npos);
}

TEST(GapReport, NothingToCompareIsAnError) {
  HandleReference reference;
  auto report = numeric_gap({output(0, {1})}, reference, nullptr, GapOptions{});
  ASSERT_FALSE(report.ok());
  EXPECT_NE(std::string(report.error().message()).find("nothing to compare"), std::string::npos);
}

TEST(GapReport, ASecondTraceIsAReferenceByInstruction) {
  auto reference = trace_reference({output(0, {1, 2}), output(0, {5, 5}, 1)});
  auto report = numeric_gap({output(0, {1, 2})}, *reference, nullptr, GapOptions{});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->rows[0].status, GapStatus::kOk);
  EXPECT_EQ(report->compared, 1u);
}

TEST(GapReport, NhwcValuesAreComparedAsNchw) {
  // [1, H=2, W=1, C=3] as a delegate holds it; the reference is [1, 3, 2, 1]
  // with value = 10 * channel + row, so a wrong permutation cannot pass.
  RecordedOutput nhwc = output(0, {0, 10, 20, 1, 11, 21});
  nhwc.sizes = {1, 2, 1, 3};
  nhwc.nhwc = true;
  HandleReference reference;
  reference.handles = {{0, {4}}};
  reference.values[4] = {{1, 3, 2, 1}, {0, 1, 10, 11, 20, 21}};
  auto report = numeric_gap({nhwc}, reference, nullptr, GapOptions{});
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_EQ(report->rows[0].status, GapStatus::kOk);
  EXPECT_EQ(report->rows[0].metrics.max_abs, 0);
  EXPECT_EQ(report->rows[0].detail, "NHWC compared as NCHW");
  EXPECT_EQ(report->rows[0].relative_error, 0);
  // The same bytes read as NCHW differ.
  nhwc.nhwc = false;
  nhwc.sizes = {1, 3, 2, 1};
  auto plain = numeric_gap({nhwc}, reference, nullptr, GapOptions{});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->rows[0].status, GapStatus::kDiverged);
}

TEST(GapReport, ADelegateNodeIsComparedOnTheLastValueItLogged) {
  // Instruction 3 is a delegate call: node 7 logs an entry transpose, a
  // convert and its convolution (one debug id), node 9 one value; then the
  // call's own output. An ordinary instruction compares its first output.
  auto logged = [](int64_t id, int32_t index) {
    RecordedOutput out = output(3, {double(index)}, index);
    out.delegate_debug_id = id;
    return out;
  };
  const std::vector<RecordedOutput> outputs = {output(2, {1}), output(2, {2}, 1), logged(7, 0), logged(7, 1),
                                               logged(7, 2), logged(9, 0), output(3, {5})};
  std::vector<bool> compared;
  for (size_t i = 0; i < outputs.size(); ++i) compared.push_back(is_compared_output(outputs, i));
  EXPECT_EQ(compared, (std::vector<bool>{true, false, false, false, true, true, true}));
}

}  // namespace
}  // namespace etkit::inspector
