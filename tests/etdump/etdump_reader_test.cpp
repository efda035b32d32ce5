#include "etkit/etdump/etdump_reader.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "etkit/core/file_data.h"
#include "support/corpus.h"

namespace etkit::etdump {
namespace {

const std::string kSchema = std::string(ETKIT_SOURCE_DIR) + "/etdump/schema/etdump.fbs";

ETDump load(const std::string& relative) {
  return test::checked(ETDump::load_file(test::corpus(relative)), relative);
}

TEST(ETDumpReader, TutorialCnnBlocksAsTheCorpusReadmeDescribes) {
  ETDump trace = load("upstream/etdump/tutorial_cnn.etdp");
  ASSERT_EQ(trace.block_count(), 2u);
  RunBlock init = trace.block(0);
  EXPECT_EQ(init.name(), "Default");
  ASSERT_EQ(init.event_count(), 2u);
  EXPECT_EQ(init.event(0).profile.name, "Method::init");
  EXPECT_EQ(init.event(1).profile.name, "Program::load_method");
  EXPECT_EQ(init.event(0).profile.chain_index, -1);

  RunBlock execute = trace.block(1);
  EXPECT_EQ(execute.name(), "Execute");
  ASSERT_EQ(execute.event_count(), 29u);
  // Per instruction i in 0..13: the kernel event, then its OPERATOR_CALL.
  const std::vector<std::string> ops = {"convolution", "relu", "max_pool2d_with_indices",
                                        "permute_copy", "addmm"};
  for (int i = 0; i < 14; ++i) {
    const ProfileEventView kernel = execute.event(2 * i).profile;
    const ProfileEventView call = execute.event(2 * i + 1).profile;
    EXPECT_EQ(call.name, "OPERATOR_CALL");
    EXPECT_EQ(kernel.instruction_id, i);
    EXPECT_EQ(call.instruction_id, i);
    EXPECT_EQ(kernel.name.substr(0, 12), "native_call_");
    const std::string op(kernel.name.substr(12, kernel.name.size() - 12 - 4));
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << kernel.name;
    // Nested: the kernel lies inside its operator call.
    EXPECT_LE(call.start_time, kernel.start_time);
    EXPECT_GE(call.end_time, kernel.end_time);
  }
  EXPECT_EQ(execute.event(28).profile.name, "Method::execute");
  // Timestamps read by hand from the file.
  EXPECT_EQ(init.event(0).profile.start_time, 399054u);
  EXPECT_EQ(init.event(0).profile.end_time, 421538u);
  EXPECT_EQ(execute.event(0).profile.start_time, 426786u);
  EXPECT_EQ(execute.event(0).profile.end_time, 971569u);
}

// Every field our reader returns equals what Debian's flatc decodes from
// the same bytes: a second, independent decoder.
void expect_matches_flatc(const std::string& relative) {
  ETDump trace = load(relative);
  const auto json = nlohmann::json::parse(test::flatc_json(kSchema, test::corpus(relative), true));
  const auto& blocks = json.at("run_data");
  ASSERT_EQ(blocks.size(), trace.block_count());
  for (size_t b = 0; b < blocks.size(); ++b) {
    RunBlock block = trace.block(b);
    EXPECT_EQ(block.name(), blocks[b].value("name", ""));
    EXPECT_EQ(block.bundled_input_index(), blocks[b].value("bundled_input_index", -1));
    const auto& events = blocks[b].at("events");
    ASSERT_EQ(events.size(), block.event_count());
    for (size_t e = 0; e < events.size(); ++e) {
      const EventView event = block.event(e);
      ASSERT_TRUE(events[e].contains("profile_event")) << relative;
      ASSERT_EQ(event.kind, EventKind::kProfile);
      const auto& p = events[e]["profile_event"];
      EXPECT_EQ(event.profile.name, p.value("name", ""));
      EXPECT_EQ(event.profile.chain_index, p.value("chain_index", 0));
      EXPECT_EQ(event.profile.instruction_id, p.value("instruction_id", -1));
      EXPECT_EQ(event.profile.delegate_debug_id_int, p.value("delegate_debug_id_int", -1));
      EXPECT_EQ(event.profile.delegate_debug_id_str, p.value("delegate_debug_id_str", ""));
      EXPECT_EQ(event.profile.start_time, p.value("start_time", uint64_t{0}));
      EXPECT_EQ(event.profile.end_time, p.value("end_time", uint64_t{0}));
    }
  }
}

TEST(ETDumpReader, AgreesWithFlatcOnEveryCorpusTrace) {
  expect_matches_flatc("upstream/etdump/tutorial_cnn.etdp");
  expect_matches_flatc("upstream-runtime/xnn_mlp.etdp");
  expect_matches_flatc("upstream-runtime/xnn_dbg.etdp");
}

TEST(ETDumpReader, XnnpackOperatorEventsPrecedeTheirDelegateCall) {
  ETDump trace = load("upstream-runtime/xnn_mlp.etdp");
  ASSERT_EQ(trace.block_count(), 4u);
  EXPECT_EQ(trace.block(0).name(), "Default");
  const std::vector<std::string> expected = {"Fully Connected (NC, F32) GEMM #1",
                                             "Fully Connected (NC, F32) GEMM #2",
                                             "Softmax (NC, F32) #1"};
  for (size_t b = 1; b < 4; ++b) {
    RunBlock block = trace.block(b);
    EXPECT_EQ(block.name(), "Execute");
    ASSERT_EQ(block.event_count(), 5u);
    for (size_t e = 0; e < 3; ++e) {
      const ProfileEventView p = block.event(e).profile;
      EXPECT_TRUE(p.name.empty());
      EXPECT_EQ(p.delegate_debug_id_str, expected[e]);
      EXPECT_EQ(p.delegate_debug_id_int, -1);
      EXPECT_EQ(p.instruction_id, 0);
    }
    EXPECT_EQ(block.event(3).profile.name, "DELEGATE_CALL");
    EXPECT_EQ(block.event(4).profile.name, "Method::execute");
  }
}

TEST(ETDumpReader, XnnDebugTraceHasKernelAndDelegateEventsPerRun) {
  ETDump trace = load("upstream-runtime/xnn_dbg.etdp");
  ASSERT_EQ(trace.block_count(), 4u);
  for (size_t b = 1; b < 4; ++b) {
    RunBlock block = trace.block(b);
    size_t kernels = 0;
    size_t delegate_ops = 0;
    for (size_t e = 0; e < block.event_count(); ++e) {
      const ProfileEventView p = block.event(e).profile;
      kernels += p.name.rfind("native_call_", 0) == 0;
      delegate_ops += !p.delegate_debug_id_str.empty();
    }
    EXPECT_EQ(kernels, 2u);
    EXPECT_EQ(delegate_ops, 6u);
  }
}

TEST(ETDumpReader, StatsCountKindsAndSpan) {
  ETDump trace = load("upstream/etdump/tutorial_cnn.etdp");
  RunBlockStats stats = trace.block(0).stats();
  EXPECT_EQ(stats.profile_events, 2u);
  EXPECT_EQ(stats.debug_events, 0u);
  EXPECT_EQ(stats.first_start, 398073u);  // Program::load_method start
  EXPECT_EQ(stats.last_end, 422930u);     // Program::load_method end
}

TEST(ETDumpReader, TruncatedTraceSaysHowMuchIsMissing) {
  auto bytes = test::read_file(test::corpus("upstream/etdump/tutorial_cnn.etdp"));
  bytes.resize(1000);
  auto trace = ETDump::load(FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "t.etdp"),
                            "t.etdp");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().code(), ErrorCode::kTruncated);
  EXPECT_STREQ(trace.error().message(),
               "t.etdp: size prefix says 2316 bytes follow, the file has 996 after it (a trace cut short: "
               "nothing of it can be read, the layouts its tables share are at its end)");
}

TEST(ETDumpReader, NotSizePrefixedIsRejected) {
  auto bytes = test::read_file(test::corpus("upstream/etdump/tutorial_cnn.etdp"));
  bytes.erase(bytes.begin(), bytes.begin() + 4);  // drop the size prefix
  auto trace = ETDump::load(FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "u.etdp"),
                            "u.etdp");
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(std::string(trace.error().message()).find("expected identifier 'ED00' at byte 8"),
            std::string::npos);
}

}  // namespace
}  // namespace etkit::etdump
