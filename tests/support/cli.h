#pragma once
// Helpers of the CLI tests: running etinspect, the shipped samples, and a
// temporary folder per test process (ctest runs a file's tests as parallel
// processes, so files they write must not collide).

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/corpus.h"

namespace etkit::test {

/// Runs the etinspect under test (ETINSPECT_PATH) with `args`.
inline CommandResult etinspect(std::vector<std::string> args) {
  args.insert(args.begin(), ETINSPECT_PATH);
  return run_command(args);
}

/// A file of the repository's samples/ folder.
inline std::string sample(const std::string& relative) {
  return std::string(ETKIT_SOURCE_DIR) + "/samples/" + relative;
}

/// Whether `text` holds `part` (messages and reports checked by key words).
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// `name` in this process's own temporary folder.
inline std::string temp(const std::string& name) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("etinspect-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

}  // namespace etkit::test
