// Malformed input never crashes, hangs or reads out of bounds (this suite
// runs under ASan+UBSan in the test command): every mutated corpus file is
// either read or rejected with a one-line message naming the file.

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "etkit/inspector/file_description.h"
#include "support/corpus.h"

namespace etkit::inspector {
namespace {

// Runs the reader on `bytes`; asserts the outcome is well-formed.
void expect_read_or_clean_error(const std::string& label, const std::vector<uint8_t>& bytes) {
  const std::string path = test::write_temp("mutant.bin", bytes);
  auto description = describe_file(path);
  if (description.ok()) {
    return;  // some mutations are harmless
  }
  const std::string message = description.error().message();
  EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << label << ": " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << label;
  EXPECT_GT(message.size(), path.size() + 4) << label;
}

class MalformedCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(MalformedCorpus, TruncatedAtEverySixteenth) {
  const auto original = test::read_file(GetParam());
  for (size_t k = 0; k < 16; ++k) {
    std::vector<uint8_t> cut(original.begin(), original.begin() + original.size() * k / 16);
    expect_read_or_clean_error("truncated " + std::to_string(k) + "/16", cut);
  }
}

TEST_P(MalformedCorpus, SingleByteFlipsInTheFirst256Bytes) {
  const auto original = test::read_file(GetParam());
  const size_t limit = std::min<size_t>(256, original.size());
  for (size_t i = 0; i < limit; ++i) {
    for (uint8_t mask : {uint8_t{0xff}, uint8_t{0x01}, uint8_t{0x80}}) {
      auto mutant = original;
      mutant[i] ^= mask;
      expect_read_or_clean_error("flip byte " + std::to_string(i), mutant);
    }
  }
}

TEST_P(MalformedCorpus, LargeValuesWrittenOverEveryWordOfTheHeader) {
  // Offsets and sizes pointing past the end: overwrite each 32-bit word of
  // the first 64 bytes with values just past and far past the file size.
  const auto original = test::read_file(GetParam());
  const uint32_t size = static_cast<uint32_t>(original.size());
  for (size_t at = 0; at + 4 <= std::min<size_t>(64, original.size()); at += 4) {
    for (uint32_t value : {size, size + 1, size * 2, 0x7fffffffu, 0xffffffffu}) {
      auto mutant = original;
      std::memcpy(mutant.data() + at, &value, 4);
      expect_read_or_clean_error("word at " + std::to_string(at), mutant);
    }
  }
}

TEST_P(MalformedCorpus, RandomBytesKeepingTheMagic) {
  const auto original = test::read_file(GetParam());
  std::mt19937 random(1234);
  for (int trial = 0; trial < 32; ++trial) {
    auto mutant = original;
    for (size_t i = 12; i < mutant.size(); ++i) {
      if (random() % 8 == 0) {
        mutant[i] = static_cast<uint8_t>(random());
      }
    }
    expect_read_or_clean_error("random " + std::to_string(trial), mutant);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedCorpus, ::testing::ValuesIn(test::all_corpus_files()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = std::filesystem::path(param.param).filename();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(MalformedInput, RandomBytesAndWrongMagic) {
  std::mt19937 random(99);
  for (size_t size : {1u, 7u, 8u, 12u, 64u, 4096u}) {
    std::vector<uint8_t> bytes(size);
    for (auto& b : bytes) b = static_cast<uint8_t>(random());
    expect_read_or_clean_error("random", bytes);
    for (const char* magic : {"ET12", "BP08", "FT01"}) {
      if (size >= 8) {
        std::memcpy(bytes.data() + 4, magic, 4);
        expect_read_or_clean_error(magic, bytes);
      }
    }
  }
}

}  // namespace
}  // namespace etkit::inspector
