#include "support/corpus.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <gtest/gtest.h>

namespace etkit::test {
namespace fs = std::filesystem;

std::string corpus(const std::string& relative) {
  return std::string(ETKIT_CORPUS_DIR) + "/" + relative;
}

std::string corpus_program(const std::string& file) {
  return std::string(ETKIT_SOURCE_DIR) + "/tests/fixtures/corpus_programs/" + file;
}

std::vector<std::string> all_corpus_files() {
  std::vector<std::string> files;
  for (const char* dir : {"upstream", "upstream-runtime"}) {
    for (const auto& entry : fs::recursive_directory_iterator(corpus(dir))) {
      const std::string path = entry.path().string();
      // Debug buffers (.bin) are raw tensor bytes with no magic: they are
      // read only beside their trace, never as files of their own.
      const auto extension = entry.path().extension();
      if (entry.is_regular_file() && extension != ".md" && extension != ".bin") {
        files.push_back(path);
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path);
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

namespace {

// A test process's own temporary folders (write_temp's and cli.h's temp())
// go when its tests are done, unless one failed: then they stay, named on
// stderr, for whoever looks into the failure.
class RemoveTemporaryFolders : public ::testing::Environment {
 public:
  void TearDown() override {
    const std::string pid = std::to_string(::getpid());
    for (const fs::path& dir : {fs::temp_directory_path() / ("etkit-tests-" + pid),
                                fs::path(::testing::TempDir()) / ("etinspect-" + pid)}) {
      std::error_code error;
      if (!fs::exists(dir, error)) continue;
      if (::testing::UnitTest::GetInstance()->Failed()) {
        std::fprintf(stderr, "test files kept for the failure: %s\n", dir.c_str());
        continue;
      }
      fs::remove_all(dir, error);
    }
  }
};
[[maybe_unused]] ::testing::Environment* const kRemoveTemporaryFolders =
    ::testing::AddGlobalTestEnvironment(new RemoveTemporaryFolders);

}  // namespace

std::string write_temp(const std::string& name, const std::vector<uint8_t>& bytes) {
  const fs::path dir = fs::temp_directory_path() / ("etkit-tests-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

namespace {
std::string slurp_fd(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) {
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}
}  // namespace

CommandResult run_command(const std::vector<std::string>& argv) {
  // Output goes to temp files rather than pipes so a chatty child cannot
  // deadlock against us.
  const std::string base = write_temp("cmd", {});
  const std::string out_path = base + ".out";
  const std::string err_path = base + ".err";
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> args;
    for (const auto& arg : argv) {
      args.push_back(const_cast<char*>(arg.c_str()));
    }
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  CommandResult result;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  int out = ::open(out_path.c_str(), O_RDONLY);
  int err = ::open(err_path.c_str(), O_RDONLY);
  result.out = slurp_fd(out);
  result.err = slurp_fd(err);
  ::close(out);
  ::close(err);
  return result;
}

std::string flatc_json(const std::string& schema, const std::string& binary,
                       bool size_prefixed) {
  const fs::path dir = fs::path(write_temp("flatc", {})).parent_path() / "flatc-json";
  fs::create_directories(dir);
  std::vector<std::string> argv = {ETKIT_FLATC, "--json", "--strict-json",
                                   "--raw-binary", "--defaults-json", "-I",
                                   ETKIT_SCHEMA_DIR, "-o", dir.string()};
  if (size_prefixed) {
    argv.push_back("--size-prefixed");
  }
  argv.push_back(schema);
  argv.push_back("--");
  argv.push_back(binary);
  CommandResult result = run_command(argv);
  if (result.exit_code != 0) {
    throw std::runtime_error("flatc failed on " + binary + ": " + result.err);
  }
  const fs::path json = dir / (fs::path(binary).stem().string() + ".json");
  const auto bytes = read_file(json.string());
  return std::string(bytes.begin(), bytes.end());
}

std::vector<uint8_t> flatc_binary(const std::string& schema, const std::string& json) {
  const std::string source = write_temp("flatc-source.json", std::vector<uint8_t>(json.begin(), json.end()));
  const fs::path dir = fs::path(source).parent_path() / "flatc-binary";
  fs::create_directories(dir);
  CommandResult result = run_command({ETKIT_FLATC, "--binary", "-I", ETKIT_SCHEMA_DIR, "-o",
                                      dir.string(), schema, source});
  if (result.exit_code != 0) throw std::runtime_error("flatc failed: " + result.err);
  return read_file((dir / (fs::path(source).stem().string() + ".bin")).string());
}

}  // namespace etkit::test

// LeakSanitizer's built-in suppressions for every test binary (this file is
// linked into all of them). Only third-party allocations belong here:
// Graphviz (Debian's libgvc, the GUI graph view's layout) keeps one buffer
// for the life of the process, a 3.6 KB gmalloc on the first layout that is
// never freed. etkit's own memory stays checked.
extern "C" const char* __lsan_default_suppressions() { return "leak:libgvc.so\n"; }
