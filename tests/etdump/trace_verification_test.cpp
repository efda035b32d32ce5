// Loading checks a trace block by block, on several threads for traces of
// many blocks. Its verdict must be the one the flatbuffer's own verifier
// gives the whole buffer, and its errors the same on every load.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "etdump_generated.h"
#include "etkit/core/file_data.h"
#include "etkit/etdump/etdump_reader.h"

namespace etkit::etdump {
namespace {

namespace fb = ::etdump;

// Enough blocks that the reader checks them on several threads (it starts
// them from about a hundred blocks).
constexpr size_t kBlocks = 400;
constexpr size_t kEventsPerBlock = 6;

struct TraceShape {
  std::vector<size_t> two_kind_blocks;  ///< blocks whose event 2 is a profile and an allocation event
};

// A size-prefixed ED00 trace written with flatbuffers' builder, each event
// an op's profile event with its own times.
std::vector<uint8_t> build_trace(const TraceShape& shape = {}) {
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<fb::RunData>> blocks;
  for (size_t b = 0; b < kBlocks; ++b) {
    std::vector<flatbuffers::Offset<fb::Event>> events;
    for (size_t e = 0; e < kEventsPerBlock; ++e) {
      const uint64_t start = 1000 * b + 10 * e;
      auto profile = fb::CreateProfileEventDirect(builder, ("op" + std::to_string(e)).c_str(), 0, int(e), -1, nullptr,
                                                  nullptr, start, start + e + 1);
      flatbuffers::Offset<fb::AllocationEvent> allocation = 0;
      if (e == 2 && std::find(shape.two_kind_blocks.begin(), shape.two_kind_blocks.end(), b) !=
                        shape.two_kind_blocks.end()) {
        allocation = fb::CreateAllocationEvent(builder, 0, 64);
      }
      events.push_back(fb::CreateEvent(builder, profile, allocation));
    }
    blocks.push_back(fb::CreateRunDataDirect(builder, ("run" + std::to_string(b)).c_str(), int(b), nullptr, &events));
  }
  builder.FinishSizePrefixed(fb::CreateETDumpDirect(builder, 0, &blocks), fb::ETDumpIdentifier());
  return std::vector<uint8_t>(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
}

Result<ETDump> load(const std::vector<uint8_t>& bytes) {
  return ETDump::load(FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "t.etdp"), "t.etdp");
}

// The byte offset of run_data[index]'s entry in the run_data vector.
size_t block_entry_offset(const std::vector<uint8_t>& bytes, size_t index) {
  const fb::ETDump* root = fb::GetSizePrefixedETDump(bytes.data());
  return size_t(reinterpret_cast<const uint8_t*>(root->run_data()->Data()) - bytes.data()) + 4 * index;
}

TEST(TraceVerification, ManyBlocksReadBackAsWritten) {
  const std::vector<uint8_t> bytes = build_trace();
  auto trace = load(bytes);
  ASSERT_TRUE(trace.ok()) << trace.error().message();
  ASSERT_EQ(trace->block_count(), kBlocks);
  for (size_t b = 0; b < kBlocks; ++b) {
    const RunBlock block = trace->block(b);
    EXPECT_EQ(block.name(), "run" + std::to_string(b));
    EXPECT_EQ(block.bundled_input_index(), int32_t(b));
    ASSERT_EQ(block.event_count(), kEventsPerBlock);
    const EventView last = block.event(kEventsPerBlock - 1);
    EXPECT_EQ(last.profile.start_time, 1000 * b + 10 * (kEventsPerBlock - 1));
  }
}

TEST(TraceVerification, TheLowestBlocksEventErrorIsReportedOnEveryLoad) {
  const std::vector<uint8_t> bytes = build_trace({{377, 123, 301}});
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto trace = load(bytes);
    ASSERT_FALSE(trace.ok());
    EXPECT_EQ(trace.error().code(), ErrorCode::kMalformed);
    EXPECT_STREQ(trace.error().message(),
                 "t.etdp: run_data[123].events[2] has 2 event kinds set (expected exactly one)");
  }
}

TEST(TraceVerification, ACorruptBlockAfterAnEventErrorMakesTheTraceCorrupt) {
  // As the whole buffer verified first would say: block 350's entry points
  // past the end, whatever block 10 holds.
  std::vector<uint8_t> bytes = build_trace({{10}});
  const size_t entry = block_entry_offset(bytes, 350);
  const uint32_t past_end = uint32_t(bytes.size());
  std::memcpy(bytes.data() + entry, &past_end, 4);
  flatbuffers::Verifier whole(bytes.data(), bytes.size());
  ASSERT_FALSE(fb::VerifySizePrefixedETDumpBuffer(whole));
  auto trace = load(bytes);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(std::string(trace.error().message()).find("t.etdp: the ETDump flatbuffer (bytes 4.."), std::string::npos)
      << trace.error().message();
  EXPECT_NE(std::string(trace.error().message()).find("is corrupt"), std::string::npos);
}

// Random byte changes across the buffer: whenever flatbuffers' verifier
// rejects the whole buffer, loading says it is corrupt; whenever it accepts
// it, loading does not (it may still refuse an event).
TEST(TraceVerification, AgreesWithTheWholeBufferVerifierOnDamagedTraces) {
  const std::vector<uint8_t> sound = build_trace();
  std::mt19937 random(45);
  size_t rejected = 0, accepted = 0;
  for (int trial = 0; trial < 150; ++trial) {
    std::vector<uint8_t> bytes = sound;
    // A few bytes at random past the prefix, root offset and identifier
    // (those have errors of their own), sometimes in the run_data entries.
    for (int change = 0; change < 3; ++change) {
      const size_t at = trial % 3 == 0 ? block_entry_offset(sound, random() % kBlocks) + random() % 4
                                       : 12 + random() % (bytes.size() - 12);
      bytes[at] = uint8_t(random());
    }
    flatbuffers::Verifier whole(bytes.data(), bytes.size(), 64, 1u << 27);
    const bool sound_buffer = fb::VerifySizePrefixedETDumpBuffer(whole);
    auto trace = load(bytes);
    const bool said_corrupt = !trace.ok() && std::string(trace.error().message()).find("is corrupt") != std::string::npos;
    if (sound_buffer) {
      ++accepted;
      EXPECT_FALSE(said_corrupt) << "trial " << trial << ": " << trace.error().message();
    } else {
      // The one other reading: the same bytes as a flatbuffer aligned from
      // byte 4 (the fallback), which damaged offsets almost never form.
      std::vector<uint8_t> body(bytes.begin() + 4, bytes.end());
      flatbuffers::Verifier shifted(body.data(), body.size(), 64, 1u << 27);
      if (fb::VerifyETDumpBuffer(shifted)) continue;
      ++rejected;
      EXPECT_TRUE(said_corrupt) << "trial " << trial << ": "
                                << (trace.ok() ? std::string("loaded") : trace.error().message());
    }
  }
  // Both verdicts were exercised.
  EXPECT_GT(rejected, 10u);
  EXPECT_GT(accepted, 10u);
}

}  // namespace
}  // namespace etkit::etdump
