// Memory-plan facts for programs built in the test (hand-derived
// lifetimes, peaks, best-fit sizes and errors), an independent second
// reading of the corpus programs' allocation info through Debian's flatc,
// and every sample and corpus program: no planning error, best fit never
// below the peak of live bytes.

#include "etkit/inspector/memory_plan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "etkit/core/program.h"
#include "support/corpus.h"
#include "support/program_builder.h"

namespace etkit::inspector {
namespace {

// test::two_step_program's memory: x (input, at 0) -> a = x + x (at 16) ->
// b = a * a (the output, at `b_offset`).
MethodMemory two_step_program(int64_t b_offset, int64_t arena) {
  const Program program = test::checked(test::two_step_program(b_offset, arena).load(), "built program");
  return analyze_memory(summarize(program).methods.at(0));
}

TEST(MemoryPlan, LifetimesPeaksAndBestFitByHand) {
  const MethodMemory memory = two_step_program(0, 32);  // b reuses x's bytes once x is dead
  ASSERT_EQ(memory.tensors.size(), 3u);
  EXPECT_TRUE(memory.errors.empty());
  const TensorLifetime& x = memory.tensors[0];
  const TensorLifetime& a = memory.tensors[1];
  const TensorLifetime& b = memory.tensors[2];
  EXPECT_EQ(x.first, 0u);
  EXPECT_EQ(x.last, 0u);
  EXPECT_FALSE(x.producer.has_value());  // an input
  EXPECT_EQ(x.consumers, std::vector<std::string>{"aten::add.out"});
  EXPECT_EQ(a.first, 0u);
  EXPECT_EQ(a.last, 1u);
  EXPECT_EQ(a.producer, "aten::add.out");
  EXPECT_EQ(a.consumers, std::vector<std::string>{"aten::mul.out"});
  EXPECT_EQ(b.first, 1u);
  EXPECT_EQ(b.last, 1u);  // the output lives to the last step
  EXPECT_EQ(b.planned.bytes, 16u);
  ASSERT_EQ(memory.arenas.size(), 1u);
  const ArenaUse& arena = memory.arenas[0];
  EXPECT_EQ(arena.size, 32u);
  EXPECT_EQ(arena.peak_live_bytes, 32u);  // x + a at step 0, a + b at step 1
  EXPECT_EQ(arena.peak_step, 0u);
  EXPECT_DOUBLE_EQ(arena.utilization, 1.0);
  EXPECT_EQ(arena.best_fit_bytes, 32u);  // b fits into x's freed bytes
}

TEST(MemoryPlan, OverlapsAndOverrunsAreErrors) {
  const MethodMemory overlapping = two_step_program(16, 32);  // b on a's bytes while a is read
  ASSERT_EQ(overlapping.errors.size(), 1u);
  EXPECT_NE(overlapping.errors[0].find("values 1 and 2 are alive together (steps 1-1)"), std::string::npos)
      << overlapping.errors[0];
  // A program that plans past its arena is refused at load; the analysis
  // still reports it for a summary that says so.
  MethodSummary method;
  method.planned_buffer_sizes = {0, 32};
  PlannedTensorSummary t;
  t.value = 7;
  t.arena = 1;
  t.offset = 24;
  t.bytes = 16;
  method.planned_tensors = {t};
  const MethodMemory overrun = analyze_memory(method);
  bool past_end = false;
  for (const std::string& error : overrun.errors) past_end |= error.find("past the end of arena 1") != std::string::npos;
  EXPECT_TRUE(past_end) << overrun.errors.size();
}

// Upstream's remove_view_copy leaves every reshape as executorch_prim::
// et_view, whose output the planner puts on its input's bytes: a view, not
// two tensors alive together. A real overlap in the same program (the add's
// output on the view's bytes while the view is read) is still an error.
TEST(MemoryPlan, AViewSharingItsInputsBytesIsNoPlanningError) {
  const auto build = [](int64_t sum_offset) {
    test::ProgramBuilder b;
    const int32_t x = b.tensor({2, 3}, 0);
    const int32_t view = b.tensor({3, 2}, 0);  // et_view's output: x's bytes
    const int32_t sum = b.tensor({3, 2}, sum_offset);
    b.kernel_call("executorch_prim::et_view", "default", {x, b.int_list({3, 2}), view});
    b.kernel_call("aten::add", "out", {view, view, b.integer(1), sum, sum});
    b.inputs({x});
    b.outputs({sum});
    b.arena(64);
    return analyze_memory(summarize(test::checked(b.load(), "view program")).methods.at(0));
  };
  const MethodMemory view = build(32);
  EXPECT_TRUE(view.errors.empty()) << view.errors.front();
  const MethodMemory clobbered = build(8);  // the sum overwrites the view while the add reads it
  ASSERT_EQ(clobbered.errors.size(), 1u);  // the input it views is dead by then
  EXPECT_NE(clobbered.errors[0].find("values 1 and 2 are alive together (steps 1-1)"), std::string::npos)
      << clobbered.errors[0];
}

TEST(MemoryPlan, BestFitPrefersTheSmallestGap) {
  // Three live-together tensors of 64, 16 and 48 bytes are placed 0, 64 and
  // 80 (largest first); a fourth of 16 bytes alive only with the 16-byte
  // one fits the 64-byte gap at 0 after the 64-byte tensor has died.
  auto tensor = [](uint64_t bytes, size_t first, size_t last) {
    TensorLifetime t;
    t.planned.bytes = bytes;
    t.first = first;
    t.last = last;
    return t;
  };
  const std::vector<TensorLifetime> tensors = {tensor(64, 0, 1), tensor(16, 0, 3), tensor(48, 0, 1),
                                               tensor(16, 2, 3)};
  EXPECT_EQ(best_fit_size(tensors), 128u);  // 64 + 16 + 48, the fourth reuses freed bytes
}

// The allocation info of every planned tensor, read by flatc from the file.
std::map<int64_t, std::pair<uint64_t, uint64_t>> flatc_allocations(const std::string& path) {
  std::string text = test::flatc_json(std::string(ETKIT_SCHEMA_DIR) + "/program.fbs", path, false);
  text = std::regex_replace(text, std::regex(R"(([:\[,]\s*)[-+]?(inf|nan)\b)"), "$1null");
  const auto program = nlohmann::json::parse(text);
  std::map<int64_t, std::pair<uint64_t, uint64_t>> out;  // value -> (arena, offset)
  const auto& values = program["execution_plan"][0]["values"];
  for (size_t v = 0; v < values.size(); ++v) {
    if (values[v]["val_type"] != "Tensor" || !values[v]["val"].contains("allocation_info")) continue;
    const auto& info = values[v]["val"]["allocation_info"];
    out[int64_t(v)] = {info.value("memory_id", 0u),
                       uint64_t(info.value("memory_offset_high", 0u)) << 32 | info.value("memory_offset_low", 0u)};
  }
  return out;
}

std::vector<std::string> programs() {
  std::vector<std::string> out;
  for (const char* sample : {"tutorial_cnn/tutorial_cnn", "mobilenet_v2/mobilenet_v2", "resnet18/resnet18",
                             "nano_gpt/nano_gpt", "tiny/affine"}) {
    out.push_back(std::string(ETKIT_SOURCE_DIR) + "/samples/" + sample + ".pte");
  }
  for (const std::string& file : test::all_corpus_files()) {
    if (file.size() > 4 && file.compare(file.size() - 4, 4, ".pte") == 0) out.push_back(file);
  }
  return out;
}

TEST(MemoryPlan, EveryProgramReadsAsFlatcReadsItAndPlansWithoutErrors) {
  for (const std::string& path : programs()) {
    SCOPED_TRACE(path);
    const Program program = test::checked(Program::load_file(path), path);
    const ProgramSummary summary = summarize(program);
    const auto expected = flatc_allocations(path);
    const MethodSummary& first = summary.methods.at(0);
    ASSERT_EQ(first.planned_tensors.size(), expected.size());
    for (const PlannedTensorSummary& t : first.planned_tensors) {
      ASSERT_TRUE(expected.count(t.value));
      EXPECT_EQ(t.arena, expected.at(t.value).first);
      EXPECT_EQ(t.offset, expected.at(t.value).second);
    }
    for (const MethodSummary& method : summary.methods) {
      const MethodMemory memory = analyze_memory(method);
      EXPECT_TRUE(memory.errors.empty()) << memory.errors.front();
      for (const ArenaUse& arena : memory.arenas) {
        EXPECT_GE(arena.best_fit_bytes, arena.peak_live_bytes) << method.name;
        EXPECT_LE(arena.peak_live_bytes, arena.size) << method.name;
      }
    }
  }
}

}  // namespace
}  // namespace etkit::inspector
