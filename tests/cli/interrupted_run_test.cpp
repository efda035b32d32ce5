// A tracing run killed midway leaves, under the names the user asked for,
// either no file or a complete one: never a half-written trace or buffer.

#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "support/cli.h"

extern char** environ;

namespace etkit {
namespace {

namespace fs = std::filesystem;

// Starts etinspect with `args`, kills it after `after`; true when it was
// still running then (so the kill interrupted it).
bool kill_midway(std::vector<std::string> args, std::chrono::milliseconds after) {
  args.insert(args.begin(), ETINSPECT_PATH);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  std::this_thread::sleep_for(after);
  int status = 0;
  const bool running = ::waitpid(pid, &status, WNOHANG) == 0;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return running;
}

TEST(InterruptedRun, KilledTracingRunLeavesNoHalfWrittenFiles) {
  const std::string trace = test::temp("killed.etdp"), buffer = test::temp("killed.bin");
  // Tens of thousands of traced runs with every intermediate output streamed
  // to the debug buffer: far longer than the half second before the kill.
  const bool interrupted = kill_midway({"run", test::sample("tutorial_cnn/tutorial_cnn.pte"), "--iterations",
                                        "1000000", "--etdump", trace, "--debug-level", "intermediates",
                                        "--debug-buffer", buffer},
                                       std::chrono::milliseconds(500));
  ASSERT_TRUE(interrupted) << "the run finished before the kill: nothing was tested";
  EXPECT_FALSE(fs::exists(trace));
  EXPECT_FALSE(fs::exists(buffer)) << "the streamed buffer must only appear when the run completes";
  // The same run, completed, leaves both, and they read.
  const auto done = test::etinspect({"run", test::sample("tutorial_cnn/tutorial_cnn.pte"), "--iterations", "2",
                                     "--etdump", trace, "--debug-level", "intermediates", "--debug-buffer", buffer});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const auto table = test::etinspect({"table", trace, "--debug-buffer", buffer});
  EXPECT_EQ(table.exit_code, 0) << table.err;
}

}  // namespace
}  // namespace etkit
