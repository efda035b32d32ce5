// etinspect table and trace on the upstream traces: rows as upstream
// prints them, delegate backends from the program, and a Chrome trace whose
// events nest properly on every track.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "etkit/etdump/etdump_gen.h"
#include "support/cli.h"

namespace etkit {
namespace {

using test::etinspect;

TEST(TableCommand, TutorialRowsLeaveOutOperatorCalls) {
  auto result = etinspect({"table", test::corpus("upstream/etdump/tutorial_cnn.etdp"), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows = nlohmann::json::parse(result.out);
  // 2 load events + 14 kernel events + Method::execute; no OPERATOR_CALL.
  ASSERT_EQ(rows.size(), 17u);
  for (const auto& row : rows) {
    EXPECT_NE(row["event_name"], "OPERATOR_CALL");
    for (const char* key : {"event_block_name", "event_name", "raw", "p10", "p50", "p90", "avg", "min", "max",
                            "op_types", "delegate_debug_identifier", "stack_traces", "module_hierarchy",
                            "is_delegated_op", "delegate_backend_name", "debug_data", "start_time"}) {
      EXPECT_TRUE(row.contains(key)) << key;
    }
  }
  EXPECT_EQ(rows[2]["event_name"], "native_call_convolution.out");
  EXPECT_DOUBLE_EQ(rows[2]["p50"].get<double>(), 0.544783);  // (971569 - 426786) ns in ms
  auto all = etinspect({"table", test::corpus("upstream/etdump/tutorial_cnn.etdp"), "--format", "csv",
                        "--include-operator-call"});
  EXPECT_EQ(std::count(all.out.begin(), all.out.end(), '\n'), 1 + 31);
}

TEST(TableCommand, XnnpackEventsNamedByIdWithBackendFromProgram) {
  auto result = etinspect({"table", test::corpus("upstream-runtime/xnn_mlp.etdp"), "--program",
                           test::corpus("upstream-runtime/xnn_mlp.pte"), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows = nlohmann::json::parse(result.out);
  size_t delegated = 0;
  for (const auto& row : rows) {
    if (row["is_delegated_op"] == true) {
      ++delegated;
      EXPECT_EQ(row["delegate_backend_name"], "XnnpackBackend");
      EXPECT_EQ(row["event_name"], row["delegate_debug_identifier"]);
      EXPECT_EQ(row["raw"].size(), 3u);  // three executions merged
    }
  }
  EXPECT_EQ(delegated, 3u);
}

// Every complete event on a track lies inside the enclosing one or after it.
void expect_nested(const nlohmann::json& trace, const std::string& label) {
  std::map<int, std::vector<const nlohmann::json*>> tracks;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "X") tracks[event["tid"].get<int>()].push_back(&event);
  }
  ASSERT_FALSE(tracks.empty());
  const double eps = 1e-6;
  for (auto& [tid, events] : tracks) {
    std::stable_sort(events.begin(), events.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
      const double ta = (*a)["ts"], tb = (*b)["ts"];
      return ta != tb ? ta < tb : (*a)["dur"].get<double>() > (*b)["dur"].get<double>();
    });
    std::vector<const nlohmann::json*> stack;
    for (const nlohmann::json* e : events) {
      const double ts = (*e)["ts"], end = ts + (*e)["dur"].get<double>();
      while (!stack.empty()) {
        const double top_end = (*stack.back())["ts"].get<double>() + (*stack.back())["dur"].get<double>();
        if (top_end < ts - eps || (top_end <= ts + eps && end > ts + eps)) stack.pop_back();
        else break;
      }
      if (!stack.empty()) {
        const double top_end = (*stack.back())["ts"].get<double>() + (*stack.back())["dur"].get<double>();
        EXPECT_LE(end, top_end + eps) << label << ": " << (*e)["name"] << " overlaps " << (*stack.back())["name"];
      }
      if ((*e)["cat"] == "delegate") {
        const bool inside = std::any_of(stack.begin(), stack.end(),
                                        [](const nlohmann::json* p) { return (*p)["name"] == "DELEGATE_CALL"; });
        EXPECT_TRUE(inside) << label << ": " << (*e)["name"] << " outside its DELEGATE_CALL";
      }
      stack.push_back(e);
    }
  }
}

// A trace of `runs` runs, each with its own bundled input index (one block
// per run) of four operator calls with their kernel events.
std::string trace_of_runs(int runs) {
  uint64_t ticks = 0;
  etdump::ETDumpGenOptions options;
  options.event_capacity = size_t(runs) * 9;
  options.clock = {[](void* c) { return *static_cast<uint64_t*>(c) += 37; }, &ticks, 1.0};
  etdump::ETDumpGen gen(options);
  for (int run = 0; run < runs; ++run) {
    gen.create_event_block("Execute");
    gen.set_bundled_input_index(run);
    for (int op = 0; op < 4; ++op) {
      auto call = gen.start_profiling("OPERATOR_CALL", 0, op);
      auto kernel = gen.start_profiling(op % 2 ? "native_call_relu.out" : "native_call, \"quoted\".out", 0, op);
      gen.end_profiling(kernel);
      gen.end_profiling(call);
    }
  }
  auto bytes = gen.serialize();
  EXPECT_TRUE(bytes.ok());
  return test::write_temp("blocks_" + std::to_string(runs) + ".etdp", bytes.ok() ? *bytes : std::vector<uint8_t>{});
}

TEST(TableCommand, ManyBlocksPrintAsOneWorkerPrintsThem) {
  // 40 blocks, few enough for the table to keep them between its two
  // passes, and 700, which it streams over workers and chunks twice: the
  // rows of both must equal the sequential path's (--top large).
  for (int runs : {40, 700}) {
    const std::string trace = trace_of_runs(runs);
    for (const char* format : {"text", "csv", "markdown"}) {
      const auto parallel = etinspect({"table", trace, "--format", format});
      const auto sequential = etinspect({"table", trace, "--format", format, "--top", "1000000"});
      ASSERT_EQ(parallel.exit_code, 0) << parallel.err;
      EXPECT_EQ(parallel.out, sequential.out) << runs << " blocks, " << format;
      // A block's 4 kernel rows, plus the header (and markdown's rule).
      const size_t lines = size_t(std::count(parallel.out.begin(), parallel.out.end(), '\n'));
      EXPECT_EQ(lines, size_t(runs) * 4 + (std::string(format) == "markdown" ? 2 : 1)) << format;
    }
  }
}

// A kernel event whose clock reads end before start (a 32-bit timer that
// rolled over): table and info time it with upstream's wraparound rule and
// both warn naming it.
TEST(TableCommand, EventsEndingBeforeTheyStartAreTimedOneWayAndNamed) {
  struct Clock {
    uint64_t readings[4] = {1000, 1100, 1050, 1200};
    size_t next = 0;
  } clock;
  etdump::ETDumpGenOptions options;
  options.event_capacity = 16;
  options.clock = {[](void* c) {
                     auto* k = static_cast<Clock*>(c);
                     return k->next < 4 ? k->readings[k->next++] : 2000 + k->next++;
                   },
                   &clock, 1.0};
  etdump::ETDumpGen gen(options);
  gen.create_event_block("Execute");
  auto call = gen.start_profiling("OPERATOR_CALL", 0, 0);
  auto kernel = gen.start_profiling("native_call_relu.out", 0, 0);
  gen.end_profiling(kernel);
  gen.end_profiling(call);
  auto bytes = gen.serialize();
  ASSERT_TRUE(bytes.ok());
  const std::string trace = test::write_temp("reversed.etdp", *bytes);
  const std::string warning = "run block 0 ('Execute'): 1 event(s) end before they start, the first event 0 "
                              "'native_call_relu.out'; they are timed with upstream's 32-bit wraparound rule";
  auto table = etinspect({"table", trace, "--format", "csv"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.err.find(warning), std::string::npos) << table.err;
  // (2^32 - 1) - 1100 + 1050 ns, in ms.
  EXPECT_NE(table.out.find("4294.967245"), std::string::npos) << table.out;
  auto info = etinspect({"info", "--json", trace});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.err.find(warning), std::string::npos) << info.err;
  EXPECT_EQ(nlohmann::json::parse(info.out)[0]["run_blocks"][0]["span"], 200);
}

// The same check over many blocks (read on two threads): each block with a
// reversed event is named once, in trace order, the others not at all.
TEST(TableCommand, ReversedEventsAreNamedInEveryBlockOfALongTrace) {
  constexpr uint64_t kBlocks = 300;
  const auto reversed = [](uint64_t block) { return block == 7 || block == 150 || block == 299; };
  struct Clock {
    uint64_t reading = 0;
    bool (*reversed)(uint64_t);
  } clock{0, +reversed};
  etdump::ETDumpGenOptions options;
  options.event_capacity = 2 * kBlocks;
  // Block b's kernel starts at 1000 b and ends 100 ns later, or 50 ns
  // earlier in the reversed blocks.
  options.clock = {[](void* c) -> uint64_t {
                     auto* k = static_cast<Clock*>(c);
                     const uint64_t block = k->reading / 2, end = k->reading++ % 2;
                     if (!end) return 1000 * block + 100;
                     return k->reversed(block) ? 1000 * block + 50 : 1000 * block + 200;
                   },
                   &clock, 1.0};
  etdump::ETDumpGen gen(options);
  for (uint64_t block = 0; block < kBlocks; ++block) {
    gen.create_event_block("Execute");
    gen.end_profiling(gen.start_profiling("native_call_relu.out", 0, 0));
  }
  auto bytes = gen.serialize();
  ASSERT_TRUE(bytes.ok());
  auto table = etinspect({"table", test::write_temp("reversed_blocks.etdp", *bytes), "--format", "csv"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  size_t named = 0, at = 0;
  for (uint64_t block = 0; block < kBlocks; ++block) {
    const std::string warning = "run block " + std::to_string(block) + " ('Execute'): 1 event(s) end before";
    const size_t found = table.err.find(warning);
    if (!reversed(block)) {
      EXPECT_EQ(found, std::string::npos) << block;
      continue;
    }
    ASSERT_NE(found, std::string::npos) << block << "\n" << table.err;
    EXPECT_GE(found, at) << "block " << block << " named out of order";
    at = found;
    ++named;
  }
  EXPECT_EQ(named, 3u);
}

TEST(TraceCommand, ChromeTracesNestOnEveryTrack) {
  for (const char* file : {"upstream/etdump/tutorial_cnn.etdp", "upstream-runtime/xnn_mlp.etdp",
                           "upstream-runtime/xnn_dbg.etdp"}) {
    for (const char* layout : {"blocks", "sequence"}) {
      const std::string out = test::write_temp("trace.json", {});
      auto result = etinspect({"trace", test::corpus(file), "-o", out, "--layout", layout});
      ASSERT_EQ(result.exit_code, 0) << result.err;
      const auto bytes = test::read_file(out);
      const auto trace = nlohmann::json::parse(bytes.begin(), bytes.end());
      expect_nested(trace, std::string(file) + " " + layout);
    }
  }
}

TEST(TraceCommand, KernelEventsNestInsideTheirOperatorCall) {
  const std::string out = test::write_temp("tutorial.json", {});
  ASSERT_EQ(etinspect({"trace", test::corpus("upstream/etdump/tutorial_cnn.etdp"), "-o", out}).exit_code, 0);
  const auto bytes = test::read_file(out);
  const auto trace = nlohmann::json::parse(bytes.begin(), bytes.end());
  std::map<int, std::pair<double, double>> operator_calls;  // instruction -> interval
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "OPERATOR_CALL") {
      operator_calls[e["args"]["instruction_id"]] = {e["ts"], e["ts"].get<double>() + e["dur"].get<double>()};
    }
  }
  ASSERT_EQ(operator_calls.size(), 14u);
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["name"].get<std::string>().rfind("native_call_", 0) != 0) continue;
    const auto [start, end] = operator_calls.at(e["args"]["instruction_id"]);
    EXPECT_GE(e["ts"].get<double>(), start);
    EXPECT_LE(e["ts"].get<double>() + e["dur"].get<double>(), end + 1e-6);
  }
}

}  // namespace
}  // namespace etkit
