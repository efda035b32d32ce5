#include "etkit/etrecord/etrecord_archive.h"

#include <gtest/gtest.h>

#include <map>

#include "etkit/core/file_data.h"
#include "support/corpus.h"

namespace etkit::etrecord {
namespace {

TEST(EtrecordArchive, CorpusRecordUsesTheLegacyLayout) {
  auto archive = EtrecordArchive::load_file(test::corpus("upstream/etrecord/toy_model_v0.etrecord"));
  ASSERT_TRUE(archive.ok()) << archive.error().message();
  EXPECT_EQ(archive->layout(), Layout::kLegacy);
  EXPECT_EQ(archive->methods(), std::vector<std::string>{"forward"});
  std::map<std::string, EntryKind> kinds;
  for (const auto& entry : archive->entries()) {
    kinds[entry.name] = entry.kind;
  }
  // Entries and what they hold, per the corpus README.
  EXPECT_EQ(kinds.size(), 7u);
  EXPECT_EQ(kinds.at("ETRECORD_V0"), EntryKind::kMarker);
  EXPECT_EQ(kinds.at("edge_dialect_exported_program"), EntryKind::kExportedProgram);
  EXPECT_EQ(kinds.at("aten_dialect_output/forward"), EntryKind::kExportedProgram);
  EXPECT_EQ(kinds.at("edge_dialect_exported_program_state_dict"), EntryKind::kPickle);
  EXPECT_EQ(kinds.at("aten_dialect_output/forward_state_dict"), EntryKind::kPickle);
  EXPECT_EQ(kinds.at("debug_handle_map"), EntryKind::kJsonMap);
  EXPECT_EQ(kinds.at("delegate_map"), EntryKind::kJsonMap);
  auto map = archive->read("debug_handle_map");
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(*map, "{}");
  EXPECT_EQ(archive->read("nope").error().code(), ErrorCode::kNotFound);
}

TEST(EtrecordArchive, RejectsNonZipAndTruncatedZip) {
  auto bytes = test::read_file(test::corpus("upstream/etrecord/toy_model_v0.etrecord"));
  bytes.resize(bytes.size() / 2);  // central directory lost
  auto cut = EtrecordArchive::load(FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "r.zip"),
                                   "r.zip");
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().code(), ErrorCode::kMalformed);
  EXPECT_NE(std::string(cut.error().message()).find("r.zip: not a readable zip archive"),
            std::string::npos);
}

TEST(EtrecordArchive, ZipWithoutMarkerIsNotAnEtrecord) {
  // A stored (uncompressed) zip with one entry "a.txt" = "hi", built by hand.
  const std::vector<uint8_t> zip = {
      // local file header
      'P', 'K', 3, 4, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xac, 0x2a, 0x93, 0xd8, 2, 0, 0, 0, 2, 0,
      0, 0, 5, 0, 0, 0, 'a', '.', 't', 'x', 't', 'h', 'i',
      // central directory header
      'P', 'K', 1, 2, 20, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xac, 0x2a, 0x93, 0xd8, 2, 0, 0,
      0, 2, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'a', '.', 't', 'x',
      't',
      // end of central directory
      'P', 'K', 5, 6, 0, 0, 0, 0, 1, 0, 1, 0, 51, 0, 0, 0, 37, 0, 0, 0, 0, 0};
  auto archive = EtrecordArchive::load(FileData::copy_of(ByteSpan{zip.data(), zip.size()}, "p.zip"),
                                       "p.zip");
  ASSERT_FALSE(archive.ok());
  EXPECT_STREQ(archive.error().message(),
               "p.zip: zip archive has no ETRECORD_V0 entry: not an ETRecord");
}

}  // namespace
}  // namespace etkit::etrecord
