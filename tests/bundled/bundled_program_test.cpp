#include "etkit/bundled/bundled_program.h"

#include <gtest/gtest.h>

#include <cstring>

#include "etkit/core/file_data.h"
#include "etkit/core/program_summary.h"
#include "support/corpus.h"

namespace etkit::bundled {
namespace {

std::vector<int32_t> ints(ByteSpan data) {
  std::vector<int32_t> out(data.size / 4);
  std::memcpy(out.data(), data.data, data.size);
  return out;
}

TEST(BundledProgram, CorpusBundleAsTheReadmeDescribes) {
  auto bundle = BundledProgram::load_file(test::corpus("upstream/bundled/add_mul_int.bpte"));
  ASSERT_TRUE(bundle.ok()) << bundle.error().message();
  EXPECT_EQ(bundle->version(), 2u);
  ASSERT_EQ(bundle->suites().size(), 1u);
  const MethodTestSuite& suite = bundle->suites()[0];
  EXPECT_EQ(suite.method_name, "forward");
  ASSERT_EQ(suite.cases.size(), 10u);
  for (const TestCase& test_case : suite.cases) {
    ASSERT_EQ(test_case.inputs.size(), 2u);
    for (const BundledValue& input : test_case.inputs) {
      EXPECT_EQ(input.kind, BundledValue::Kind::kTensor);
      EXPECT_EQ(input.scalar_type, ScalarType::kInt);
      EXPECT_EQ(input.sizes, (std::vector<int32_t>{2, 2}));
      EXPECT_EQ(ints(input.data), (std::vector<int32_t>{0, 0, 0, 0}));
    }
    ASSERT_EQ(test_case.expected_outputs.size(), 1u);
    EXPECT_EQ(ints(test_case.expected_outputs[0].data), (std::vector<int32_t>{2, 2, 2, 2}));
  }
  EXPECT_EQ(bundle->program_bytes().size, 1696u);
  EXPECT_EQ(bundle->program_offset() % 32, 0u);  // force_align: 32
}

TEST(BundledProgram, EmbeddedProgramLoadsInPlace) {
  auto bundle = BundledProgram::load_file(test::corpus("upstream/bundled/add_mul_int.bpte"));
  ASSERT_TRUE(bundle.ok());
  auto program = bundle->load_program();
  ASSERT_TRUE(program.ok()) << program.error().message();
  EXPECT_EQ(program->bytes().data, bundle->program_bytes().data);  // not copied
  ProgramSummary summary = summarize(*program);
  ASSERT_EQ(summary.methods.size(), 1u);
  EXPECT_EQ(summary.methods[0].operators,
            (std::vector<std::string>{"aten::mul.out", "aten::add.out"}));
}

TEST(BundledProgram, WrongMagicAndTruncation) {
  auto bytes = test::read_file(test::corpus("upstream/bundled/add_mul_int.bpte"));
  auto wrong = bytes;
  wrong[4] = 'Q';
  auto bad = BundledProgram::load(FileData::copy_of(ByteSpan{wrong.data(), wrong.size()}, "w.bpte"),
                                  "w.bpte");
  ASSERT_FALSE(bad.ok());
  EXPECT_STREQ(bad.error().message(),
               "w.bpte: not a bundled program: expected identifier 'BP08' at byte 4");
  // Cut inside the embedded program (the bulk of a bundle) or inside the
  // root table, upstream's bundle is "truncated": a root vector reaches past
  // the end. (A cut inside the test suites' own tables is only seen as a
  // table outside the file: "malformed".)
  auto read_u32 = [&](size_t at) {
    return uint32_t(bytes[at]) | uint32_t(bytes[at + 1]) << 8 | uint32_t(bytes[at + 2]) << 16 |
           uint32_t(bytes[at + 3]) << 24;
  };
  const size_t table = read_u32(0);
  const size_t vtable = table - int32_t(read_u32(table));
  auto vector_at = [&](size_t field) {
    const size_t slot = table + (bytes[vtable + 4 + 2 * field] | bytes[vtable + 5 + 2 * field] << 8);
    return slot + read_u32(slot);
  };
  const size_t program = vector_at(2), program_end = program + 4 + read_u32(program);
  for (size_t length : {size_t(12), table + 2, program + 2, (program + program_end) / 2, program_end - 1}) {
    auto cut = bytes;
    cut.resize(length);
    auto truncated = BundledProgram::load(FileData::copy_of(ByteSpan{cut.data(), cut.size()}, "c.bpte"), "c.bpte");
    ASSERT_FALSE(truncated.ok()) << length;
    EXPECT_EQ(truncated.error().code(), ErrorCode::kTruncated) << length << ": " << truncated.error().message();
  }
  // The first test suite's offset garbled (root table and vectors intact).
  const size_t suites = vector_at(1);
  auto garbled = bytes;
  for (size_t i = 0; i < 4; ++i) garbled[suites + 4 + i] = 0xF1;
  auto corrupt = BundledProgram::load(FileData::copy_of(ByteSpan{garbled.data(), garbled.size()}, "g.bpte"), "g.bpte");
  ASSERT_FALSE(corrupt.ok());
  EXPECT_EQ(corrupt.error().code(), ErrorCode::kMalformed) << corrupt.error().message();
}

}  // namespace
}  // namespace etkit::bundled
