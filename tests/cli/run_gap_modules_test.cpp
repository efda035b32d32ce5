// etinspect run, gap and modules against hand-derived truth: the tiny
// affine program computes y = 3x + 2; a gap against a reference perturbed
// at one instruction diverges there first; module totals equal hand sums of
// the same trace's table rows; bfloat16 intermediates against a float32
// trace agree with the two runs' output files.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>
#include <vector>

#include "etkit/core/file_data.h"
#include "etkit/core/tensor_access.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/npy.h"
#include "etkit/inspector/numeric_gap.h"
#include "support/cli.h"
#include "support/program_builder.h"

namespace etkit {
namespace {

using test::etinspect;
using test::sample;
using test::temp;


void write_floats(const std::string& path, std::vector<float> values, std::vector<int64_t> sizes) {
  auto tensor = Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), sizes.size()), {}, values.data(),
                             values.size() * sizeof(float));
  ASSERT_TRUE(tensor.ok());
  ASSERT_TRUE(inspector::write_npy(path, *tensor).ok());
}

TEST(RunCommand, ComputesTheAffineProgramFromNpyInputs) {
  const std::string input = temp("x.npy"), out_dir = temp("outputs");
  write_floats(input, {1, 2, -3, 0.5f}, {2, 2});
  auto run = etinspect({"run", sample("tiny/affine.pte"), "--input", input, "--output-dir", out_dir,
                        "--iterations", "3", "--json", "--print-outputs"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["iterations"], 3);
  EXPECT_LE(report["latency_ms"]["min"].get<double>(), report["latency_ms"]["median"].get<double>());
  // y = 3x + 2, by hand.
  EXPECT_EQ(report["outputs"][0]["values"], nlohmann::json::parse("[5.0, 8.0, -7.0, 3.5]"));
  auto written = inspector::read_npy(out_dir + "/output_0.npy");
  ASSERT_TRUE(written.ok()) << written.error().message();
  auto view = written->view();
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(written->shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(element_as_double(*view, 2), -7.0);
}

// A mutable buffer (a running sum, initially 10, 20, 30, 40) keeps its
// state from run to run; --reset-state starts every run from the initial
// state; `memory` marks it and keeps its bytes alive through the method.
TEST(RunCommand, StateCarriesAcrossIterationsUnlessReset) {
  const std::string program = test::write_temp("running_sum.pte", test::running_sum_program().build());
  const std::string input = temp("ones.npy");
  write_floats(input, {1, 1, 1, 1}, {4});
  auto last_output = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", program, "--input", input, "--iterations", "3", "--json",
                                     "--print-outputs"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto run = etinspect(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return nlohmann::json::parse(run.out)["outputs"][0]["values"];
  };
  EXPECT_EQ(last_output({}), nlohmann::json::parse("[13.0, 23.0, 33.0, 43.0]"));
  EXPECT_EQ(last_output({"--reset-state"}), nlohmann::json::parse("[11.0, 21.0, 31.0, 41.0]"));
  EXPECT_EQ(last_output({"--reset-state", "--warmup", "2"}), nlohmann::json::parse("[11.0, 21.0, 31.0, 41.0]"));
  auto memory = etinspect({"memory", program, "--json"});
  ASSERT_EQ(memory.exit_code, 0) << memory.err;
  const auto report = nlohmann::json::parse(memory.out);
  bool found = false;
  for (const auto& tensor : report["methods"][0]["tensors"]) {
    if (tensor["value"] != 1) continue;
    found = true;
    EXPECT_EQ(tensor["state"], "mutable buffer");
    EXPECT_EQ(tensor["first"], 0);
  }
  EXPECT_TRUE(found) << memory.out;
}

// Warm-ups are traced as blocks named Warmup and left out of statistics:
// the table's Execute rows hold the timed runs only, unless --include-warmup.
TEST(RunCommand, WarmupsAreTaggedAndLeftOutOfStatistics) {
  const std::string trace = temp("warmup.etdp");
  auto run = etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--warmup", "2", "--iterations", "3",
                        "--etdump", trace});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto runs_of = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"table", trace, "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto table = etinspect(args);
    EXPECT_EQ(table.exit_code, 0) << table.err;
    std::map<std::string, size_t> runs;
    for (const auto& row : nlohmann::json::parse(table.out)) {
      if (row["event_name"] == "Method::execute") runs[row["event_block_name"]] = row["raw"].size();
    }
    return runs;
  };
  EXPECT_EQ(runs_of({}), (std::map<std::string, size_t>{{"Execute", 3}}));
  EXPECT_EQ(runs_of({"--include-warmup"}), (std::map<std::string, size_t>{{"Execute", 3}, {"Warmup", 2}}));
}

// A corrupted plan asking for more memory than the machine has is bad
// input (exit 2 naming the arena and size), found before any allocation.
TEST(RunCommand, PlannedArenasBeyondTheMachinesMemoryAreBadInput) {
  for (int64_t bytes : {int64_t(1) << 44, int64_t(1) << 54}) {
    test::ProgramBuilder b = test::two_step_program(0, 64);
    b.arena(bytes);
    const std::string path = test::write_temp("huge_arena.pte", b.build());
    auto result = etinspect({"run", path, "--fill", "zeros"});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find("memory arena 1 asks for " + std::to_string(bytes) + " bytes"), std::string::npos)
        << result.err;
  }
}

TEST(RunCommand, WrongInputsAreUsageErrors) {
  const std::string wrong = temp("wrong.npy");
  write_floats(wrong, {1, 2, 3}, {3});
  auto shape = etinspect({"run", sample("tiny/affine.pte"), "--input", wrong});
  EXPECT_EQ(shape.exit_code, 2);
  EXPECT_NE(shape.err.find("input 0"), std::string::npos) << shape.err;
  auto count = etinspect({"run", sample("tiny/affine.pte"), "--input", wrong, "--input", wrong});
  EXPECT_EQ(count.exit_code, 2);
  EXPECT_NE(count.err.find("takes 1 inputs, 2 given"), std::string::npos) << count.err;
}

// References for a traced run, one .npy per instruction (named by
// instruction id), taken from the trace's own intermediate outputs.
void write_references(const std::string& trace_path, const std::string& buffer_path, const std::string& folder,
                      int perturbed_instruction) {
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  auto trace = etdump::ETDump::load_file(trace_path);
  auto buffer = FileData::load(buffer_path);
  ASSERT_TRUE(trace.ok() && buffer.ok());
  auto outputs = inspector::recorded_outputs(*trace, (*buffer)->bytes());
  ASSERT_TRUE(outputs.ok());
  for (const inspector::RecordedOutput& output : *outputs) {
    if (output.output_index != 0) continue;
    std::vector<float> values(output.values.begin(), output.values.end());
    if (output.instruction_id == perturbed_instruction) values[0] += 1.0f;
    write_floats(folder + "/" + std::to_string(output.instruction_id) + ".npy", values, output.sizes);
  }
}

TEST(GapCommand, FirstDivergenceIsThePerturbedInstruction) {
  const std::string trace = temp("gap.etdp"), buffer = temp("gap.bin");
  ASSERT_EQ(etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--etdump", trace, "--debug-level",
                       "intermediates", "--debug-buffer", buffer})
                .exit_code,
            0);
  write_references(trace, buffer, temp("same"), -1);
  auto same = etinspect({"gap", trace, "--debug-buffer", buffer, "--reference", temp("same"), "--json"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  const auto agree = nlohmann::json::parse(same.out);
  EXPECT_EQ(agree["compared"], 14);  // one per instruction: conv, relu, pool twice, then three linears as
                                     // weight transpose and addmm, relus between
  EXPECT_TRUE(agree["first_divergence"].is_null());
  write_references(trace, buffer, temp("perturbed"), 4);
  auto perturbed = etinspect({"gap", trace, "--debug-buffer", buffer, "--reference", temp("perturbed"), "--json",
                              "--program", sample("tutorial_cnn/tutorial_cnn.pte")});
  EXPECT_EQ(perturbed.exit_code, 1) << perturbed.err;
  const auto report = nlohmann::json::parse(perturbed.out);
  EXPECT_EQ(report["first_divergence"]["instruction_id"], 4);
  EXPECT_EQ(report["first_divergence"]["op"], "aten::relu.out");
  EXPECT_NEAR(report["rows"][4]["max_abs"].get<double>(), 1.0, 1e-6);  // +1 in float32
  EXPECT_EQ(report["rows"][3]["status"], "ok");
  // The failed gate says on stderr what diverged first and by how much.
  EXPECT_NE(perturbed.err.find("etinspect: check failed: 1 of 14 compared outputs diverged; the first is "
                               "aten::relu.out (instruction 4): max abs error 1 > atol 1e-05"),
            std::string::npos)
      << perturbed.err;
}

// bfloat16 intermediates against a float32 trace of the same model: every
// op is compared, and the last row's max error equals the one computed
// from the two runs' output files (a second path: run's .npy writer and
// the npy reader, not the debug buffer).
TEST(GapCommand, ComparesBFloat16IntermediatesWithAFloat32Trace) {
  struct Run {
    std::string trace, buffer, outputs;
  };
  auto traced = [](const std::string& name, const std::string& bundle) {
    Run run{temp(name + ".etdp"), temp(name + ".bin"), temp(name + "_outputs")};
    auto result = etinspect({"run", sample(bundle), "--bundled-input", "0", "--etdump", run.trace, "--debug-level",
                             "intermediates", "--debug-buffer", run.buffer, "--output-dir", run.outputs});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return run;
  };
  const Run low = traced("bf16", "nano_gpt_bf16/nano_gpt_bf16.bpte");
  const Run reference = traced("f32", "nano_gpt/nano_gpt.bpte");
  // Upstream's exporter gives the bfloat16 program two dtype casts the
  // float32 one lacks, so the ops are matched by graph node, not instruction.
  auto gap = etinspect({"gap", low.trace, "--debug-buffer", low.buffer, "--reference", reference.trace,
                        "--reference-debug-buffer", reference.buffer, "--etrecord",
                        sample("nano_gpt_bf16/nano_gpt_bf16.etrecord"), "--reference-etrecord",
                        sample("nano_gpt/nano_gpt.etrecord"), "--atol", "0.05", "--json"});
  ASSERT_EQ(gap.exit_code, 0) << gap.err << gap.out;
  const auto report = nlohmann::json::parse(gap.out);
  EXPECT_EQ(report["missing_references"], 2);
  ASSERT_GT(report["compared"].get<int>(), 40);
  for (const auto& row : report["rows"]) {
    if (row["status"] == "no reference") {
      EXPECT_NE(row["node"].get<std::string>().find("to_dim_order_copy"), std::string::npos) << row.dump();
      continue;
    }
    if (row["status"] == "compared later") continue;
    EXPECT_EQ(row["status"], "ok") << row.dump();
    EXPECT_GT(row["cosine"].get<double>(), 0.999) << row.dump();  // bfloat16 rounding, not garbage
  }
  auto a = inspector::read_npy(low.outputs + "/output_0.npy");
  auto b = inspector::read_npy(reference.outputs + "/output_0.npy");
  ASSERT_TRUE(a.ok() && b.ok());
  auto va = a->view(), vb = b->view();
  ASSERT_TRUE(va.ok() && vb.ok());
  ASSERT_EQ(va->numel(), vb->numel());
  double max_abs = 0;
  for (int64_t i = 0; i < va->numel(); ++i) {
    max_abs = std::max(max_abs, std::fabs(element_as_double(*va, i) - element_as_double(*vb, i)));
  }
  EXPECT_GT(max_abs, 0);  // the dtypes differ, so must the logits
  EXPECT_NEAR(report["rows"].back()["max_abs"].get<double>(), max_abs, 1e-7);
}

// run --save-intermediates writes a folder gap reads as its reference: a
// second run on the same input agrees with it everywhere, one on another
// input does not (the folder holds values, not the trace's own numbers).
TEST(RunCommand, SavedIntermediatesAreAGapReference) {
  const std::string dir = temp("saved_intermediates");
  auto traced = [&](const std::string& stem, const std::string& seed, bool save) {
    std::vector<std::string> args = {"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--fill", "random", "--seed", seed,
                                     "--etdump", temp(stem + ".etdp"), "--debug-level", "intermediates",
                                     "--debug-buffer", temp(stem + ".bin")};
    if (save) args.insert(args.end(), {"--save-intermediates", dir});
    return etinspect(args);
  };
  auto saved = traced("saved", "2", true);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  EXPECT_NE(saved.err.find("16 intermediate outputs of the first run"), std::string::npos) << saved.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/0.npy"));      // the first convolution
  EXPECT_TRUE(std::filesystem::exists(dir + "/2.out1.npy"));  // the first max pool's indices
  ASSERT_EQ(traced("same", "2", false).exit_code, 0);
  auto same = etinspect({"gap", temp("same.etdp"), "--debug-buffer", temp("same.bin"), "--reference", dir, "--json"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(nlohmann::json::parse(same.out)["compared"], 14);
  ASSERT_EQ(traced("other", "3", false).exit_code, 0);
  EXPECT_EQ(etinspect({"gap", temp("other.etdp"), "--debug-buffer", temp("other.bin"), "--reference", dir}).exit_code, 1);
  auto untraced = etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--save-intermediates", dir});
  EXPECT_EQ(untraced.exit_code, 2);
  EXPECT_NE(untraced.err.find("needs --etdump, --debug-level intermediates and --debug-buffer"), std::string::npos)
      << untraced.err;
}

TEST(ModulesCommand, TotalsAreHandSumsOfTheTable) {
  const std::string trace = temp("modules.etdp"), record = sample("tutorial_cnn/tutorial_cnn.etrecord");
  ASSERT_EQ(etinspect({"run", sample("tutorial_cnn/tutorial_cnn.pte"), "--iterations", "2", "--etdump", trace})
                .exit_code,
            0);
  auto modules = etinspect({"modules", trace, "--etrecord", record, "--json", "--stat", "avg"});
  ASSERT_EQ(modules.exit_code, 0) << modules.err;
  auto table = etinspect({"table", trace, "--etrecord", record, "--block", "Execute", "--format", "json"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto tree = nlohmann::json::parse(modules.out);
  double linked_sum = 0;
  int64_t linked = 0;
  double method_execute = 0;
  for (const auto& row : nlohmann::json::parse(table.out)) {
    if (row["event_name"] == "Method::execute") method_execute = row["avg"].get<double>();
    if (row["module_hierarchy"].empty()) continue;
    linked_sum += row["avg"].get<double>();
    ++linked;
  }
  const auto& root = tree["modules"][0];
  EXPECT_EQ(root["path"], "");
  EXPECT_EQ(root["op_events"], linked);
  EXPECT_NEAR(root["total"].get<double>(), linked_sum, 1e-9);
  EXPECT_NEAR(tree["run_total"].get<double>(), method_execute, 1e-9);
  EXPECT_NEAR(root["share"].get<double>(), linked_sum / method_execute, 1e-9);
  // Children index the printed rows; --depth 1 prints the root alone.
  auto shallow = etinspect({"modules", trace, "--etrecord", record, "--json", "--depth", "1"});
  ASSERT_EQ(shallow.exit_code, 0) << shallow.err;
  const auto one = nlohmann::json::parse(shallow.out)["modules"];
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0]["children"].empty());
  // --sort total: flat, largest first; --top keeps the first rows.
  auto largest = etinspect({"modules", trace, "--etrecord", record, "--json", "--sort", "total", "--top", "3"});
  ASSERT_EQ(largest.exit_code, 0) << largest.err;
  const auto three = nlohmann::json::parse(largest.out)["modules"];
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0]["path"], "");  // the root holds everything
  EXPECT_GE(three[1]["total"].get<double>(), three[2]["total"].get<double>());
}

}  // namespace
}  // namespace etkit

namespace etkit {
namespace {

TEST(MemoryCommand, ArenasTensorsAndErrorsOfAProgram) {
  auto memory = test::etinspect({"memory", test::sample("tiny/affine.pte"), "--json"});
  ASSERT_EQ(memory.exit_code, 0) << memory.err;
  const auto report = nlohmann::json::parse(memory.out);
  const auto& method = report["methods"][0];
  EXPECT_EQ(method["name"], "forward");
  EXPECT_EQ(method["instructions"], 2);
  // x at 0, 3x at 16, y at 32 (16 bytes each), per samples/tiny: x and 3x
  // live at step 0, 3x and y at step 1.
  EXPECT_EQ(method["arenas"][0]["size"], 48);
  EXPECT_EQ(method["arenas"][0]["peak_live_bytes"], 32);
  EXPECT_EQ(method["tensors"].size(), 3u);
  // y = add(mul(x, 3), 2): the input is read by the mul, the mul's result by
  // the add, and nothing reads y. Consumers are a JSON list of op names.
  std::map<std::string, nlohmann::json> consumers_by_producer;
  for (const auto& tensor : method["tensors"]) {
    consumers_by_producer[tensor["producer"].is_null() ? "input" : tensor["producer"].get<std::string>()] =
        tensor["consumers"];
  }
  EXPECT_EQ(consumers_by_producer["input"], nlohmann::json::array({"aten::mul.out"}));
  EXPECT_EQ(consumers_by_producer["aten::mul.out"], nlohmann::json::array({"aten::add.out"}));
  EXPECT_EQ(consumers_by_producer["aten::add.out"], nlohmann::json::array());
  EXPECT_TRUE(method["errors"].empty());
  // A plan that puts a value on bytes another still needs: exit 1, both named.
  const std::string bad = test::write_temp("overlap.pte", test::two_step_program(16, 32).build());
  auto overlap = test::etinspect({"memory", bad});
  EXPECT_EQ(overlap.exit_code, 1);
  EXPECT_NE(overlap.out.find("values 1 and 2 are alive together"), std::string::npos) << overlap.out;
}

TEST(MemoryCommand, AllocationsOfATraceByAllocator) {
  const std::string trace = test::temp("allocations.etdp");
  ASSERT_EQ(test::etinspect({"run", test::sample("tiny/affine.pte"), "--etdump", trace, "--trace-allocations"})
                .exit_code,
            0);
  auto memory = test::etinspect({"memory", trace, "--json"});
  ASSERT_EQ(memory.exit_code, 0) << memory.err;
  const auto rows = nlohmann::json::parse(memory.out)["allocators"];
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["phase"], "load");
  EXPECT_EQ(rows[0]["allocator"], "planned_memory");
  EXPECT_EQ(rows[0]["total"], 48);  // the affine program's one arena
  EXPECT_EQ(rows[0]["count"], 1);
  const std::string plain = test::temp("plain.etdp");
  ASSERT_EQ(test::etinspect({"run", test::sample("tiny/affine.pte"), "--etdump", plain}).exit_code, 0);
  auto missing = test::etinspect({"memory", plain});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--trace-allocations"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace etkit
