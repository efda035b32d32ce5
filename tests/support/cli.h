#pragma once
// Helpers of the CLI tests: running etinspect, the shipped samples, and a
// temporary folder per test process (ctest runs a file's tests as parallel
// processes, so files they write must not collide).

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
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

/// The "case N: PASS" (FAIL, ERROR) verdicts of verify's text, in order.
inline std::vector<std::string> verify_verdicts(const std::string& text) {
  std::vector<std::string> out;
  const std::regex line("case ([0-9]+): (PASS|FAIL|ERROR)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[0].str());
  }
  return out;
}

/// An executable shell script `name` in this process's temporary folder
/// (a stand-in runner), with `body` after the #! line; returns its path.
inline std::string shell_script(const std::string& name, const std::string& body) {
  const std::string path = temp(name);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << "#!/bin/sh\n" << body;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

}  // namespace etkit::test
