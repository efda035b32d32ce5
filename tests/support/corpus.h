#pragma once
// Helpers shared by the tests: where the upstream corpus is, reading and
// mutating files, running commands.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace etkit::test {

/// The value of `result`; when it holds an error, the running test fails
/// and stops (an exception gtest reports) instead of reading a value that
/// is not there. For helpers that return values and so cannot ASSERT.
template <typename R>
auto checked(R&& result, const std::string& what) -> decltype(std::move(result).value()) {
  if (!result.ok()) throw std::runtime_error(what + ": " + result.error().message());
  return std::move(result).value();
}

/// Absolute path of a corpus file, e.g. corpus("upstream/pte/add.pte").
std::string corpus(const std::string& relative);

/// The program (or its bundle or ETRecord) the corpus's upstream-runtime
/// tutorial_cnn traces were made from (tests/fixtures/corpus_programs/).
std::string corpus_program(const std::string& file);

/// Every corpus artifact (programs, bundles, traces, ETRecords, .ptd).
std::vector<std::string> all_corpus_files();

std::vector<uint8_t> read_file(const std::string& path);
/// Writes `bytes` to a fresh file under the test temp dir; returns its path.
std::string write_temp(const std::string& name, const std::vector<uint8_t>& bytes);

struct CommandResult {
  int exit_code = -1;  ///< -1 when killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};
/// Runs `argv` without a shell, capturing stdout and stderr.
CommandResult run_command(const std::vector<std::string>& argv);

/// Runs Debian's flatc to convert a binary to JSON with one of our schemas.
/// Returns the JSON text.
/// Runs Debian's flatc to compile `json` into a binary with one of our
/// schemas (to build test inputs in a format's own layout).
std::vector<uint8_t> flatc_binary(const std::string& schema, const std::string& json);

std::string flatc_json(const std::string& schema, const std::string& binary,
                       bool size_prefixed);

}  // namespace etkit::test
