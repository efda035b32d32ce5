// The .npy reader against hand-written bytes (NumPy's format 1.0 header)
// and round trips through the writer; malformed files are errors naming
// the problem.

#include "etkit/inspector/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "etkit/core/tensor_access.h"
#include "support/corpus.h"

namespace etkit::inspector {
namespace {

// A version 1.0 file: magic, version, header length, a dict header padded
// with spaces to a 64-byte boundary and ending in '\n', then the data.
std::vector<uint8_t> npy_bytes(const std::string& dict, const std::vector<uint8_t>& data) {
  std::string header = dict;
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const uint8_t preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size() & 0xff),
                                uint8_t(header.size() >> 8)};
  std::vector<uint8_t> bytes(sizeof(preamble) + header.size() + data.size());
  std::memcpy(bytes.data(), preamble, sizeof(preamble));
  std::memcpy(bytes.data() + sizeof(preamble), header.data(), header.size());
  if (!data.empty()) std::memcpy(bytes.data() + sizeof(preamble) + header.size(), data.data(), data.size());
  return bytes;
}

std::vector<uint8_t> floats(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(Npy, ReadsAHandWrittenFile) {
  const auto bytes = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                               floats({1, 2, 3, 4, 5, 6}));
  auto array = parse_npy(bytes.data(), bytes.size(), "hand.npy");
  ASSERT_TRUE(array.ok()) << array.error().message();
  EXPECT_EQ(array->dtype, ScalarType::kFloat);
  EXPECT_EQ(array->shape, (std::vector<int64_t>{2, 3}));
  auto view = array->view();
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(element_as_double(*view, 4), 5.0);
  const auto scalar = npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                                {42, 0, 0, 0, 0, 0, 0, 0});
  auto zero_d = parse_npy(scalar.data(), scalar.size(), "scalar.npy");
  ASSERT_TRUE(zero_d.ok()) << zero_d.error().message();
  EXPECT_EQ(zero_d->dtype, ScalarType::kLong);
  EXPECT_TRUE(zero_d->shape.empty());
  EXPECT_EQ(zero_d->numel(), 1);
}

TEST(Npy, RoundTripsThroughTheWriter) {
  std::vector<int32_t> values = {-3, 0, 7, 11, 2, 5};
  const std::vector<int64_t> sizes = {3, 2};
  auto tensor = Tensor::make(ScalarType::kInt, Span<const int64_t>(sizes.data(), sizes.size()), {}, values.data(),
                             values.size() * 4);
  ASSERT_TRUE(tensor.ok());
  const std::string path = test::write_temp("round_trip.npy", {});
  ASSERT_TRUE(write_npy(path, *tensor).ok());
  auto array = read_npy(path);
  ASSERT_TRUE(array.ok()) << array.error().message();
  EXPECT_EQ(array->dtype, ScalarType::kInt);
  EXPECT_EQ(array->shape, sizes);
  ASSERT_EQ(array->data.size(), values.size() * 4);
  EXPECT_EQ(std::memcmp(array->data.data(), values.data(), array->data.size()), 0);
}

TEST(Npy, MalformedFilesAreErrorsNamingTheProblem) {
  const auto good = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", floats({1, 2}));
  struct Case {
    std::vector<uint8_t> bytes;
    std::string expected;
  };
  std::vector<uint8_t> truncated = good;
  truncated.resize(truncated.size() - 3);
  std::vector<uint8_t> bad_magic = good;
  bad_magic[1] = 'X';
  const std::vector<Case> cases = {
      {bad_magic, "not a .npy file"},
      {truncated, "data bytes expected"},
      {npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", floats({1, 2})), "Fortran-order"},
      {npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", floats({1, 2})), "big-endian"},
      {npy_bytes("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", {}), "has no etkit equivalent"},
      {npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", {}), "bad shape"},
      {npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", {}), "too large"},
      {npy_bytes("{'descr': '<f4', 'shape': (2,), }", floats({1, 2})), "lacks descr, fortran_order or shape"},
  };
  for (const Case& c : cases) {
    auto array = parse_npy(c.bytes.data(), c.bytes.size(), "bad.npy");
    ASSERT_FALSE(array.ok()) << c.expected;
    const std::string message = array.error().message();
    EXPECT_NE(message.find("bad.npy"), std::string::npos) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace etkit::inspector
