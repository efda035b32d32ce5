// Output files appear whole or not at all.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "etkit/core/atomic_file.h"
#include "support/corpus.h"

namespace etkit {
namespace {

namespace fs = std::filesystem;

// An empty folder of this test's own.
std::string folder(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("atomic-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

size_t files_in(const std::string& dir) {
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(AtomicFile, ReplacesAFileWhole) {
  const std::string dir = folder("replace"), path = dir + "/out.bin";
  std::ofstream(path) << "old contents, longer than the new ones";
  const uint8_t bytes[] = {1, 2, 3};
  ASSERT_TRUE(write_file_atomically(path, ByteSpan{bytes, 3}).ok());
  EXPECT_EQ(test::read_file(path), (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(files_in(dir), 1u) << "no temporary file left";
}

TEST(AtomicFile, NothingAppearsUntilCommitAndNothingStaysWithout) {
  const std::string dir = folder("stream"), path = dir + "/streamed.bin";
  {
    auto file = AtomicFile::create(path);
    ASSERT_TRUE(file.ok());
    std::fputs("half", file->file());
    std::fflush(file->file());
    EXPECT_FALSE(fs::exists(path));
  }  // dropped uncommitted
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(files_in(dir), 0u);
  auto file = AtomicFile::create(path);
  ASSERT_TRUE(file.ok());
  std::fputs("whole", file->file());
  ASSERT_TRUE(file->commit().ok());
  EXPECT_EQ(test::read_file(path).size(), 5u);
  EXPECT_FALSE(file->commit().ok()) << "a second commit is refused";
}

TEST(AtomicFile, UnwritableFolderIsAnErrorNamingThePath) {
  const uint8_t byte = 0;
  Status status = write_file_atomically("/nonexistent-folder/out.bin", ByteSpan{&byte, 1});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code(), ErrorCode::kIo);
  EXPECT_NE(std::string(status.error().message()).find("/nonexistent-folder/out.bin"), std::string::npos);
}

}  // namespace
}  // namespace etkit
