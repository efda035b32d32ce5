// Traces upstream's tools take as theirs: etkit's traces of the tutorial
// sample have the structure of the trace upstream's runtime wrote for the
// same program (corpus upstream-runtime/tutorial_cnn_intermediates.etdp),
// and repeated runs log what a single run logs, on every sample.

#include <gtest/gtest.h>

#include <algorithm>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "etkit/core/file_data.h"
#include "etkit/core/scalar_type.h"
#include "etkit/etdump/etdump_reader.h"
#include "support/cli.h"

namespace etkit {
namespace {

using test::etinspect;
using test::sample;
using test::temp;



std::string shape_text(const etdump::DebugTensorView& tensor) {
  std::string text = to_string(tensor.scalar_type);
  text += '[';
  for (size_t d = 0; d < tensor.sizes.size(); ++d) text += (d ? "," : "") + std::to_string(tensor.sizes[d]);
  return text + ']';
}

// One line per event, timestamps and buffer offsets aside: what two traces
// of the same program must share.
std::string event_line(const etdump::EventView& event) {
  switch (event.kind) {
    case etdump::EventKind::kProfile: {
      const auto& p = event.profile;
      return "profile '" + std::string(p.name) + "' chain " + std::to_string(p.chain_index) + " instruction " +
             std::to_string(p.instruction_id) + " delegate " + std::to_string(p.delegate_debug_id_int);
    }
    case etdump::EventKind::kAllocation:
      return "allocation";
    case etdump::EventKind::kDebug: {
      const auto& d = event.debug;
      std::string line = "debug '" + std::string(d.name) + "' chain " + std::to_string(int64_t(d.chain_index)) +
                         " instruction " + std::to_string(d.instruction_id) + " " + std::string(d.value_type) +
                         (d.is_output ? " output" : "");
      for (const auto& tensor : d.tensors) line += " " + shape_text(tensor);
      return line;
    }
  }
  return "?";
}

struct BlockStructure {
  std::string name;
  int32_t bundled_input_index = -1;
  size_t allocators = 0;
  std::vector<std::string> events;
};

std::vector<BlockStructure> structure(const std::string& path, bool profile_only = false) {
  auto trace = etdump::ETDump::load_file(path);
  EXPECT_TRUE(trace.ok()) << path << ": " << trace.error().message();
  std::vector<BlockStructure> blocks;
  if (!trace.ok()) return blocks;
  for (size_t b = 0; b < trace->block_count(); ++b) {
    const etdump::RunBlock block = trace->block(b);
    BlockStructure s{std::string(block.name()), block.bundled_input_index(), block.allocator_count(), {}};
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etdump::EventView event = block.event(e);
      if (profile_only && event.kind != etdump::EventKind::kProfile) continue;
      s.events.push_back(event_line(event));
    }
    blocks.push_back(std::move(s));
  }
  return blocks;
}

void expect_same_block(const BlockStructure& actual, const BlockStructure& expected) {
  EXPECT_EQ(actual.name, expected.name);
  EXPECT_EQ(actual.allocators, expected.allocators);
  ASSERT_EQ(actual.events.size(), expected.events.size()) << "block " << actual.name;
  for (size_t e = 0; e < actual.events.size(); ++e) EXPECT_EQ(actual.events[e], expected.events[e]) << "event " << e;
}

const std::string kUpstreamTrace = "upstream-runtime/tutorial_cnn_intermediates.etdp";

TEST(UpstreamTraceCompat, IntermediatesOverSeveralRunsMatchUpstreamsTrace) {
  const auto upstream = structure(test::corpus(kUpstreamTrace));
  ASSERT_EQ(upstream.size(), 3u);
  const std::string trace = temp("compat_intermediates.etdp");
  auto run = etinspect({"run", test::corpus_program("tutorial_cnn.pte"), "--iterations", "2", "--etdump", trace,
                        "--debug-level", "intermediates", "--debug-buffer", temp("compat_intermediates.bin")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto ours = structure(trace);
  ASSERT_EQ(ours.size(), upstream.size());
  for (size_t b = 0; b < ours.size(); ++b) {
    SCOPED_TRACE("block " + std::to_string(b));
    expect_same_block(ours[b], upstream[b]);
    EXPECT_EQ(ours[b].bundled_input_index, upstream[b].bundled_input_index);
  }
}

TEST(UpstreamTraceCompat, PlainRunMatchesUpstreamsProfileEvents) {
  const auto upstream = structure(test::corpus(kUpstreamTrace), /*profile_only=*/true);
  const std::string trace = temp("compat_plain.etdp");
  auto run = etinspect({"run", test::corpus_program("tutorial_cnn.pte"), "--iterations", "2", "--etdump", trace});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto ours = structure(trace);
  ASSERT_EQ(ours.size(), upstream.size());
  for (size_t b = 0; b < ours.size(); ++b) expect_same_block(ours[b], upstream[b]);
}

TEST(UpstreamTraceCompat, VerifyTraceHasABlockPerCaseShapedAsUpstreamsRun) {
  const auto upstream = structure(test::corpus(kUpstreamTrace));
  const std::string trace = temp("compat_verify.etdp");
  auto verify = etinspect({"verify", test::corpus_program("tutorial_cnn.bpte"), "--etdump", trace, "--debug-level",
                           "intermediates", "--debug-buffer", temp("compat_verify.bin")});
  ASSERT_EQ(verify.exit_code, 0) << verify.err;
  const auto ours = structure(trace);
  ASSERT_EQ(ours.size(), 1u + 3u);  // the load block, then one block per test case
  expect_same_block(ours[0], upstream[0]);
  for (size_t b = 1; b < ours.size(); ++b) {
    SCOPED_TRACE("case " + std::to_string(b - 1));
    expect_same_block(ours[b], upstream[1]);
    EXPECT_EQ(ours[b].bundled_input_index, int32_t(b - 1));
  }
}

TEST(UpstreamTraceCompat, AllocationEventsOnlyWhenAsked) {
  const std::string trace = temp("compat_allocations.etdp");
  auto run = etinspect({"run", test::corpus_program("tutorial_cnn.pte"), "--etdump", trace, "--trace-allocations"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto ours = structure(trace);
  ASSERT_FALSE(ours.empty());
  EXPECT_EQ(ours[0].allocators, 1u);
  EXPECT_NE(std::find(ours[0].events.begin(), ours[0].events.end(), "allocation"), ours[0].events.end());
  auto refused = etinspect({"run", test::corpus_program("tutorial_cnn.pte"), "--trace-allocations"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("need --etdump"), std::string::npos) << refused.err;
}

// A trace in a device clock's cycles reads as real time with the clock's
// rate: T cycles at F Hz are T / F seconds (hand-derived: the same trace
// read as cycles, divided by the rate), and without the rate cycles stay
// cycles, as upstream's Inspector has it.
TEST(UpstreamTraceCompat, CyclesAtTheDevicesClockRateReadAsTime) {
  const auto table = [](std::vector<std::string> units) {
    std::vector<std::string> args{"table", test::corpus(kUpstreamTrace), "--format", "json", "--source-time-unit", "cycles"};
    args.insert(args.end(), units.begin(), units.end());
    auto result = etinspect(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return nlohmann::json::parse(result.out.empty() ? "[]" : result.out);
  };
  const auto cycles = table({"--time-unit", "cycles"});
  const auto at_250mhz = table({"--time-unit", "us", "--clock-hz", "250e6"});
  ASSERT_EQ(cycles.size(), at_250mhz.size());
  ASSERT_FALSE(cycles.empty());
  for (size_t i = 0; i < cycles.size(); ++i) {
    for (const char* stat : {"p50", "min", "max"}) {
      const double in_cycles = cycles[i][stat].get<double>(), in_us = at_250mhz[i][stat].get<double>();
      EXPECT_NEAR(in_us, in_cycles / 250.0, 1e-9 * std::max(1.0, in_cycles)) << cycles[i]["event_name"] << " " << stat;
    }
  }
  const auto no_rate = etinspect({"table", test::corpus(kUpstreamTrace), "--source-time-unit", "cycles"});
  EXPECT_EQ(no_rate.exit_code, 2);
  EXPECT_NE(no_rate.err.find("clock rate"), std::string::npos) << no_rate.err;
  const auto not_cycles = etinspect({"table", test::corpus(kUpstreamTrace), "--clock-hz", "1e9"});
  EXPECT_EQ(not_cycles.exit_code, 2);
  EXPECT_NE(not_cycles.err.find("--source-time-unit cycles"), std::string::npos) << not_cycles.err;
}

// Upstream's own trace: 18 rows as upstream's Inspector shows them, each
// max-pool row carrying both of its outputs, values first.
TEST(UpstreamTraceCompat, TableOfUpstreamsTraceKeepsEveryOutputOfAnInstruction) {
  auto table = etinspect({"table", test::corpus(kUpstreamTrace), "--debug-buffer",
                          test::corpus("upstream-runtime/tutorial_cnn_intermediates.bin"), "--format", "json",
                          "--source-time-unit", "cycles", "--time-unit", "cycles"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto rows = nlohmann::json::parse(table.out);
  ASSERT_EQ(rows.size(), 18u);
  size_t max_pools = 0;
  for (const auto& row : rows) {
    if (row["event_name"] != "native_call_max_pool2d_with_indices.out") continue;
    ++max_pools;
    ASSERT_EQ(row["debug_data"].size(), 2u);
    EXPECT_EQ(row["debug_data"][0]["dtype"], "float32");
    EXPECT_EQ(row["debug_data"][1]["dtype"], "int64");
    EXPECT_EQ(row["debug_data"][0]["sizes"], row["debug_data"][1]["sizes"]);
  }
  EXPECT_EQ(max_pools, 2u);
  auto text = etinspect({"table", test::corpus(kUpstreamTrace), "--debug-buffer",
                         test::corpus("upstream-runtime/tutorial_cnn_intermediates.bin"), "--source-time-unit",
                         "cycles", "--time-unit", "cycles"});
  EXPECT_NE(text.out.find("float32[1,16,14,14], int64[1,16,14,14]"), std::string::npos) << text.out;
}

// Upstream's runtime refuses the deprecated inline constant buffer: every
// shipped program keeps its constants in a segment.
TEST(UpstreamProgramCompat, EveryShippedSampleUsesTheConstantSegment) {
  std::vector<std::string> args = {"info", "--json"};
  for (const char* name : {"tutorial_cnn/tutorial_cnn", "mobilenet_v2/mobilenet_v2", "resnet18/resnet18",
                           "nano_gpt/nano_gpt", "tiny/affine"}) {
    args.push_back(sample(std::string(name) + ".pte"));
    args.push_back(sample(std::string(name) + ".bpte"));
  }
  auto info = etinspect(args);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const auto files = nlohmann::json::parse(info.out);
  ASSERT_EQ(files.size(), 10u);
  for (const auto& file : files) {
    const auto& program = file["kind"] == "bundled_program" ? file["program"] : file;
    EXPECT_EQ(program["constants"]["storage"], "segment") << file["path"];
  }
}

// The bytes of every tensor block `b` logged, in order.
std::vector<std::vector<uint8_t>> logged_tensors(const std::string& trace_path, const std::string& buffer_path,
                                                 size_t b) {
  auto trace = etdump::ETDump::load_file(trace_path);
  auto buffer = FileData::load(buffer_path);
  std::vector<std::vector<uint8_t>> tensors;
  EXPECT_TRUE(trace.ok() && buffer.ok());
  if (!trace.ok() || !buffer.ok() || b >= trace->block_count()) return tensors;
  const etdump::RunBlock block = trace->block(b);
  for (size_t e = 0; e < block.event_count(); ++e) {
    const etdump::EventView event = block.event(e);
    if (event.kind != etdump::EventKind::kDebug) continue;
    for (const auto& view : event.debug.tensors) {
      auto tensor = etdump::debug_tensor(view, (*buffer)->bytes());
      EXPECT_TRUE(tensor.ok());
      if (!tensor.ok()) continue;
      const auto* bytes = static_cast<const uint8_t*>(tensor->data());
      tensors.emplace_back(bytes, bytes + tensor->nbytes());
    }
  }
  return tensors;
}

class RepeatedRuns : public ::testing::TestWithParam<std::string> {};

TEST_P(RepeatedRuns, EveryRunLogsWhatASingleRunLogs) {
  const std::string name = GetParam();
  const std::string program = sample(name + "/" + name + ".pte");
  auto traced = [&](const std::string& tag, const std::string& iterations) {
    const std::string trace = temp(name + "_" + tag + ".etdp");
    const std::string buffer = temp(name + "_" + tag + ".bin");
    auto run = etinspect({"run", program, "--fill", "random", "--seed", "7", "--iterations", iterations,
                          "--etdump", trace, "--debug-level", "intermediates", "--debug-buffer", buffer});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return std::make_pair(trace, buffer);
  };
  const auto [single_trace, single_buffer] = traced("single", "1");
  const auto [repeated_trace, repeated_buffer] = traced("repeated", "5");
  const auto expected = logged_tensors(single_trace, single_buffer, 1);
  ASSERT_FALSE(expected.empty());
  for (size_t run = 1; run <= 5; ++run) {
    const auto actual = logged_tensors(repeated_trace, repeated_buffer, run);
    ASSERT_EQ(actual.size(), expected.size()) << "run " << run;
    for (size_t t = 0; t < actual.size(); ++t) {
      EXPECT_TRUE(actual[t] == expected[t]) << "run " << run << ", logged tensor " << t << " differs";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, RepeatedRuns,
                         ::testing::Values("tutorial_cnn", "mobilenet_v2", "resnet18", "nano_gpt"));

}  // namespace
}  // namespace etkit
