#include "etkit/core/file_kind.h"

#include <gtest/gtest.h>

#include "support/corpus.h"

namespace etkit {
namespace {

FileKind kind_of(const std::string& relative) {
  auto bytes = test::read_file(test::corpus(relative));
  return detect_file_kind(ByteSpan{bytes.data(), bytes.size()});
}

TEST(FileKind, DetectsEveryCorpusKindByMagic) {
  EXPECT_EQ(kind_of("upstream/pte/add.pte"), FileKind::kProgram);
  EXPECT_EQ(kind_of("upstream/pte/stories260k_qnn_multimethod.pte"), FileKind::kProgram);
  EXPECT_EQ(kind_of("upstream/bundled/add_mul_int.bpte"), FileKind::kBundledProgram);
  EXPECT_EQ(kind_of("upstream/etdump/tutorial_cnn.etdp"), FileKind::kETDump);
  EXPECT_EQ(kind_of("upstream-runtime/xnn_dbg.etdp"), FileKind::kETDump);
  EXPECT_EQ(kind_of("upstream/etrecord/toy_model_v0.etrecord"), FileKind::kZip);
  EXPECT_EQ(kind_of("upstream/ptd/add_mul_external.ptd"), FileKind::kFlatTensor);
}

TEST(FileKind, IgnoresExtensionsAndShortInput) {
  const uint8_t tiny[] = {1, 2, 3};
  EXPECT_EQ(detect_file_kind(ByteSpan{tiny, 3}), FileKind::kUnknown);
  EXPECT_EQ(detect_file_kind(ByteSpan{nullptr, 0}), FileKind::kUnknown);
  const uint8_t program[] = {0, 0, 0, 0, 'E', 'T', '1', '2'};
  EXPECT_EQ(detect_file_kind(ByteSpan{program, 8}), FileKind::kProgram);
  const uint8_t text[] = "hello world, not a model";
  EXPECT_EQ(detect_file_kind(ByteSpan{text, sizeof(text)}), FileKind::kUnknown);
}

}  // namespace
}  // namespace etkit
