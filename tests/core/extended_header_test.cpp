#include "etkit/core/extended_header.h"

#include <gtest/gtest.h>

#include <vector>

#include "support/corpus.h"

namespace etkit {
namespace {

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

std::vector<uint8_t> header_bytes(uint32_t length, uint64_t program_size,
                                  uint64_t base, size_t file_size = 128) {
  std::vector<uint8_t> bytes(file_size, 0);
  std::memcpy(bytes.data() + 4, "ET12eh00", 8);
  put_u32(bytes, 12, length);
  put_u64(bytes, 16, program_size);
  put_u64(bytes, 24, base);
  return bytes;
}

ByteSpan span(const std::vector<uint8_t>& b) { return ByteSpan{b.data(), b.size()}; }

TEST(ExtendedHeader, AbsentMagicIsNotAnError) {
  std::vector<uint8_t> bytes(64, 0);
  std::memcpy(bytes.data() + 4, "ET12", 4);
  auto header = ExtendedHeader::parse(span(bytes));
  ASSERT_TRUE(header.ok());
  EXPECT_FALSE(header->present);
}

TEST(ExtendedHeader, ParsesHandBuiltFields) {
  auto bytes = header_bytes(24, 96, 100);
  auto header = ExtendedHeader::parse(span(bytes));
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_TRUE(header->present);
  EXPECT_EQ(header->program_size, 96u);
  EXPECT_EQ(header->segment_base_offset, 100u);
  EXPECT_EQ(header->segment_data_size, 0u);  // 24-byte header predates it
}

TEST(ExtendedHeader, RejectsShortLength) {
  auto bytes = header_bytes(16, 96, 100);
  auto header = ExtendedHeader::parse(span(bytes));
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().code(), ErrorCode::kMalformed);
  EXPECT_NE(std::string(header.error().message()).find("length 16"), std::string::npos);
}

TEST(ExtendedHeader, RejectsProgramSizePastEnd) {
  auto bytes = header_bytes(32, 4096, 0);
  auto header = ExtendedHeader::parse(span(bytes));
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().code(), ErrorCode::kTruncated);
}

TEST(ExtendedHeader, RejectsSegmentBaseInsideFlatbufferOrPastEnd) {
  EXPECT_FALSE(ExtendedHeader::parse(span(header_bytes(32, 96, 50))).ok());
  EXPECT_FALSE(ExtendedHeader::parse(span(header_bytes(32, 96, 4000))).ok());
}

TEST(ExtendedHeader, UnknownVersionIsUnsupported) {
  auto bytes = header_bytes(32, 96, 100);
  bytes[10] = '9';
  auto header = ExtendedHeader::parse(span(bytes));
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().code(), ErrorCode::kUnsupported);
}

TEST(ExtendedHeader, ReadsCorpusArduinoHeader) {
  // Values read by hand from a hex dump of the file's first 40 bytes.
  auto bytes = test::read_file(test::corpus("upstream/pte/add_arduino.pte"));
  auto header = ExtendedHeader::parse(span(bytes));
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->length, 32u);
  EXPECT_EQ(header->program_size, 0x410u);
  EXPECT_EQ(header->segment_base_offset, 0x480u);
  EXPECT_EQ(header->segment_data_size, 4u);
}

}  // namespace
}  // namespace etkit
