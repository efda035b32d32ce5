#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace etkit::cli {
namespace {

volatile sig_atomic_t g_interrupted = 0;
std::atomic<int> g_guards{0};
struct sigaction g_previous_int, g_previous_term;

void on_interrupt(int) { g_interrupted = 1; }

}  // namespace

InterruptGuard::InterruptGuard() {
  if (g_guards++ > 0) return;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &g_previous_int);
  ::sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptGuard::~InterruptGuard() {
  if (--g_guards > 0) return;
  ::sigaction(SIGINT, &g_previous_int, nullptr);
  ::sigaction(SIGTERM, &g_previous_term, nullptr);
}

bool InterruptGuard::interrupted() { return g_interrupted != 0; }

Result<ChildExit> run_child(const std::vector<std::string>& command, const ChildOptions& options) {
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, options.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (!options.working_dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return Error::make(spawned == ENOENT ? ErrorCode::kNotFound : ErrorCode::kInternal, "cannot start %s: %s",
                       argv[0], std::strerror(spawned));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.timeout_seconds);
  ChildExit result;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      return Error::make(ErrorCode::kInternal, "lost %s: %s", argv[0], std::strerror(errno));
    }
    result.interrupted = options.stoppable && InterruptGuard::interrupted();
    result.timed_out = !result.interrupted && std::chrono::steady_clock::now() > deadline;
    if (result.interrupted || result.timed_out) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  else result.exit_code = WEXITSTATUS(status);
  // Ctrl-C reaches the child too (one process group), which may end first.
  result.interrupted = options.stoppable && InterruptGuard::interrupted();
  return result;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string first_line(const std::string& text) {
  const size_t start = text.find_first_not_of(" \r\n");
  if (start == std::string::npos) return {};
  std::string line = text.substr(start, text.find_first_of("\r\n", start) - start);
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

}  // namespace etkit::cli
