#include "etkit/inspector/file_description.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/corpus.h"

namespace etkit::inspector {
namespace {

TEST(FileDescription, EveryCorpusFileIsDescribed) {
  for (const std::string& path : test::all_corpus_files()) {
    auto description = describe_file(path);
    ASSERT_TRUE(description.ok()) << description.error().message();
    const std::string extension = std::filesystem::path(path).extension();
    const FileKind expected = extension == ".pte"    ? FileKind::kProgram
                              : extension == ".bpte" ? FileKind::kBundledProgram
                              : extension == ".etdp" ? FileKind::kETDump
                              : extension == ".ptd"  ? FileKind::kFlatTensor
                                                     : FileKind::kZip;
    EXPECT_EQ(description->kind, expected) << path;
  }
}

TEST(FileDescription, BundleSummaryIncludesItsProgram) {
  auto d = describe_file(test::corpus("upstream/bundled/add_mul_int.bpte"));
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(d->bundled.has_value());
  ASSERT_EQ(d->bundled->suites.size(), 1u);
  EXPECT_EQ(d->bundled->suites[0].method, "forward");
  EXPECT_EQ(d->bundled->suites[0].case_count, 10u);
  EXPECT_EQ(d->bundled->program_size, 1696u);
  EXPECT_EQ(d->bundled->program.methods[0].operators,
            (std::vector<std::string>{"aten::mul.out", "aten::add.out"}));
}

TEST(FileDescription, TraceSummaryCountsEventsPerBlock) {
  auto d = describe_file(test::corpus("upstream/etdump/tutorial_cnn.etdp"));
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->etdump->blocks.size(), 2u);
  EXPECT_EQ(d->etdump->blocks[0].name, "Default");
  EXPECT_EQ(d->etdump->blocks[0].profile_events, 2u);
  EXPECT_EQ(d->etdump->blocks[1].name, "Execute");
  EXPECT_EQ(d->etdump->blocks[1].profile_events, 29u);
}

TEST(FileDescription, UnknownAndEmptyFilesAreErrorsNamingThePath) {
  const std::string empty = test::write_temp("empty.pte", {});
  auto d = describe_file(empty);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(std::string(d.error().message()), empty + ": file is empty");
  const std::string text = test::write_temp("notes.txt", {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o',
                                                          'r', 'l', 'd', '!'});
  auto unknown = describe_file(text);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(std::string(unknown.error().message()).rfind(text + ": unrecognised file", 0), 0u);
}

}  // namespace
}  // namespace etkit::inspector
