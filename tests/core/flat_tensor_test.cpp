#include "etkit/core/flat_tensor.h"

#include <gtest/gtest.h>

#include <cstring>

#include "etkit/core/file_data.h"
#include "support/corpus.h"

namespace etkit {
namespace {

std::vector<float> floats(ByteSpan data) {
  std::vector<float> out(data.size / sizeof(float));
  std::memcpy(out.data(), data.data, out.size() * sizeof(float));
  return out;
}

TEST(FlatTensor, ReadsCorpusExternalConstants) {
  auto data = FlatTensor::load_file(test::corpus("upstream/ptd/add_mul_external.ptd"));
  ASSERT_TRUE(data.ok()) << data.error().message();
  // Header fields read by hand from the file's hex dump.
  EXPECT_EQ(data->header().length, 40u);
  EXPECT_EQ(data->header().flatbuffer_offset, 48u);
  EXPECT_EQ(data->header().flatbuffer_size, 256u);
  EXPECT_EQ(data->header().segment_base_offset, 304u);
  EXPECT_EQ(data->header().segment_data_size, 32u);
  ASSERT_EQ(data->entries().size(), 2u);
  // The corpus README: y = a*x + b with a = 3, b = 2 (float32 [2, 2]).
  const NamedTensorData* a = data->find("a");
  const NamedTensorData* b = data->find("b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(a->has_layout);
  EXPECT_EQ(a->scalar_type, ScalarType::kFloat);
  EXPECT_EQ(a->sizes, (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(a->dim_order, (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(floats(a->data), (std::vector<float>{3, 3, 3, 3}));
  EXPECT_EQ(floats(b->data), (std::vector<float>{2, 2, 2, 2}));
  EXPECT_EQ(data->find("c"), nullptr);
}

TEST(FlatTensor, RejectsSegmentDataPastTheEnd) {
  auto bytes = test::read_file(test::corpus("upstream/ptd/add_mul_external.ptd"));
  bytes.resize(320);  // cut into the segment data
  auto data = FlatTensor::load(FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "cut.ptd"),
                               "cut.ptd");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().code(), ErrorCode::kTruncated);
  EXPECT_NE(std::string(data.error().message()).find("cut.ptd: byte 32"), std::string::npos)
      << data.error().message();
}

}  // namespace
}  // namespace etkit
