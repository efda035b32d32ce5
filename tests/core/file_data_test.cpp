#include "etkit/core/file_data.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/corpus.h"

namespace etkit {
namespace {

TEST(FileData, MissingFileNamesPathAndReason) {
  auto file = FileData::load("/nonexistent/etkit.pte");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().code(), ErrorCode::kIo);
  EXPECT_STREQ(file.error().message(),
               "/nonexistent/etkit.pte: cannot open: No such file or directory");
}

TEST(FileData, DirectoryIsAnError) {
  auto file = FileData::load(std::filesystem::temp_directory_path().string());
  ASSERT_FALSE(file.ok());
  EXPECT_NE(std::string(file.error().message()).find("is a directory"), std::string::npos);
}

TEST(FileData, EmptyFileHasNoBytes) {
  auto file = FileData::load(test::write_temp("empty.bin", {}));
  ASSERT_TRUE(file.ok());
  EXPECT_EQ((*file)->bytes().size, 0u);
}

TEST(FileData, LargeFilesAreMappedAndMatchAPlainRead) {
  const std::string path = test::corpus("upstream/pte/stories260k_qnn_multimethod.pte");
  auto file = FileData::load(path);
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE((*file)->is_mapped());
  const auto expected = test::read_file(path);
  ASSERT_EQ((*file)->bytes().size, expected.size());
  EXPECT_EQ(std::memcmp((*file)->bytes().data, expected.data(), expected.size()), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*file)->bytes().data) % 64, 0u);
}

TEST(FileData, SmallFilesAreReadIntoAlignedMemory) {
  const std::string path = test::corpus("upstream/pte/add.pte");
  auto file = FileData::load(path);
  ASSERT_TRUE(file.ok());
  EXPECT_FALSE((*file)->is_mapped());
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*file)->bytes().data) % 64, 0u);
  EXPECT_EQ((*file)->bytes().size, test::read_file(path).size());
}

TEST(FileData, ReadsNonSeekableInput) {
  const std::string fifo = test::write_temp("fifo-placeholder", {}) + ".fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<uint8_t> payload(100000, 0x5a);
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out.write(reinterpret_cast<const char*>(payload.data()), payload.size());
  });
  auto file = FileData::load(fifo);
  writer.join();
  ASSERT_TRUE(file.ok()) << file.error().message();
  EXPECT_FALSE((*file)->is_mapped());
  EXPECT_EQ((*file)->bytes().size, payload.size());
  ::unlink(fifo.c_str());
}

}  // namespace
}  // namespace etkit
