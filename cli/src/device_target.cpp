#include "device_target.h"

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
extern char** environ;

namespace etkit::cli {
namespace {

// Exit codes of the runner that are not its own verdicts (0, 1, 2, 3).
constexpr int kRunnerOutOfMemory = 124;
constexpr int kRunnerFault = 125;
constexpr int kQemuLockup = 134;

struct Target {
  const char* name;
  const char* runner;    // file beside etinspect
  const char* emulator;  // program on PATH
};
constexpr Target kTargets[] = {
    {"qemu-cortex-m", "etkit-runner-cortex-m55.elf", "qemu-system-arm"},
    {"qemu-aarch64", "etkit-runner-aarch64", "qemu-aarch64"},
};

const Target* find_target(const std::string& name) {
  for (const Target& t : kTargets) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

// Runners are installed beside etinspect; ETKIT_RUNNER_DIR overrides.
Result<std::string> runner_path(const Target& target) {
  fs::path dir;
  if (const char* env = std::getenv("ETKIT_RUNNER_DIR"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
    std::error_code error;
    dir = fs::read_symlink("/proc/self/exe", error).parent_path();
  }
  const fs::path path = dir / target.runner;
  // A set-up problem, not etkit's fault (exit 2): typically a build
  // configured before the cross toolchains were installed.
  if (!fs::is_regular_file(path)) {
    return Error::make(ErrorCode::kNotFound,
                       "device %s: its runner %s is not installed beside etinspect: install the cross toolchains "
                       "(scripts/install-deps --device), configure the build again (cmake -S . -B BUILD; a build "
                       "configured before they were installed has no runners) and build, or set ETKIT_RUNNER_DIR "
                       "to a folder holding %s",
                       target.name, path.c_str(), target.runner);
  }
  return path.string();
}

// Files reach the runner under short names in the work folder: the board's
// command line is split at spaces, so user paths never appear on it.
Result<std::string> link_in(const WorkDir& dir, const std::string& file, const std::string& name) {
  std::error_code error;
  fs::create_symlink(fs::absolute(file, error), dir.path / name, error);
  if (error) {
    return Error::make(ErrorCode::kIo, "%s: cannot link into %s: %s", file.c_str(), dir.path.c_str(),
                       error.message().c_str());
  }
  return name;
}

Result<std::vector<std::string>> runner_arguments(const WorkDir& dir, const DeviceJob& job) {
  std::vector<std::string> args{job.command};
  ETKIT_ASSIGN_OR_RETURN(std::string file, link_in(dir, job.file, "program" + fs::path(job.file).extension().string()));
  args.push_back(file);
  args.insert(args.end(), {"--report", "report.txt"});
  for (size_t i = 0; i < job.data.size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(std::string name, link_in(dir, job.data[i], "data" + std::to_string(i) + ".ptd"));
    args.insert(args.end(), {"--data", name});
  }
  for (size_t i = 0; i < job.inputs.size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(std::string name, link_in(dir, job.inputs[i], "input" + std::to_string(i) + ".npy"));
    args.insert(args.end(), {"--input", name});
  }
  if (!job.etdump.empty()) args.insert(args.end(), {"--etdump", "trace.etdp"});
  if (!job.debug_buffer.empty()) args.insert(args.end(), {"--debug-buffer", "debug.bin"});
  if (!job.output_dir.empty()) {
    fs::create_directory(dir.path / "outputs");
    args.insert(args.end(), {"--output-dir", "outputs"});
  }
  args.insert(args.end(), job.arguments.begin(), job.arguments.end());
  for (const std::string& a : args) {
    if (a.empty() || a.find_first_of(" \t\n") != std::string::npos) {
      return Error::make(ErrorCode::kInvalidArgument, "a device's command line cannot carry the value '%s'",
                         a.c_str());
    }
  }
  return args;
}

// The emulator's command line for the runner and its arguments.
std::vector<std::string> emulator_command(const Target& target, const std::string& runner,
                                          const std::vector<std::string>& args) {
  if (std::string(target.emulator) == "qemu-aarch64") {
    // The cross C library's loader and libraries, for a runner linked
    // dynamically (with XNNPACK); a static runner ignores them.
    std::vector<std::string> command{target.emulator, "-L", "/usr/aarch64-linux-gnu", runner};
    command.insert(command.end(), args.begin(), args.end());
    return command;
  }
  // Semihosting passes the arguments; QEMU's option syntax doubles commas.
  std::string config = "enable=on,target=native,arg=etkit-runner";
  for (const std::string& a : args) {
    config += ",arg=";
    for (char c : a) config += c == ',' ? std::string(",,") : std::string(1, c);
  }
  return {target.emulator, "-M", "mps3-an547", "-display", "none", "-monitor", "none", "-serial", "none",
          "-semihosting-config", config, "-kernel", runner};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The emulator's own output (QEMU's complaint, the runner's console): its
// first line, which says what went wrong (a register dump may follow).
std::string console_tail(const WorkDir& dir) {
  std::string text = read_text(dir.path / "console.txt");
  const size_t start = text.find_first_not_of(" \n");
  if (start == std::string::npos) return {};
  text = text.substr(start, text.find('\n', start) - start);
  if (text.size() > 200) text = text.substr(0, 200) + "...";
  return ": " + text;
}

// Runs `command` in the work folder with a deadline; returns the exit code.
Result<int> run_with_timeout(const Target& target, const WorkDir& dir, const std::vector<std::string>& command,
                             double timeout_seconds) {
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string console = (dir.path / "console.txt").string();
  posix_spawn_file_actions_addopen(&actions, 1, console.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addchdir_np(&actions, dir.path.c_str());
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return Error::make(ErrorCode::kInternal, "%s: cannot start %s: %s%s", target.name, target.emulator,
                       std::strerror(spawned),
                       spawned == ENOENT ? " (scripts/install-deps --device installs QEMU)" : "");
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      return Error::make(ErrorCode::kInternal, "%s: lost the emulator: %s", target.name, std::strerror(errno));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return Error::make(ErrorCode::kInternal, "%s: no answer within %g s (stopped; --device-timeout sets the limit)",
                         target.name, timeout_seconds);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFSIGNALED(status)) {
    return Error::make(ErrorCode::kInternal, "%s: %s was killed by signal %d%s", target.name, target.emulator,
                       WTERMSIG(status), console_tail(dir).c_str());
  }
  return WEXITSTATUS(status);
}

Error runner_failure(const Target& target, int code, const WorkDir& dir) {
  const char* what = code == kRunnerOutOfMemory ? "ran out of memory (the program does not fit the device)"
                     : code == kRunnerFault || code == kQemuLockup ? "crashed (hard fault)"
                                                                   : "failed without a report";
  return Error::make(ErrorCode::kInternal, "%s: the runner %s, exit code %d%s", target.name, what, code,
                     console_tail(dir).c_str());
}

Status bring_back(const WorkDir& dir, const DeviceJob& job, const bundled::DeviceReport& report) {
  if (report.failed) return Ok{};
  if (!job.etdump.empty()) ETKIT_TRY(copy_back((dir.path / "trace.etdp").string(), job.etdump));
  if (!job.debug_buffer.empty()) ETKIT_TRY(copy_back((dir.path / "debug.bin").string(), job.debug_buffer));
  for (size_t i = 0; i < report.outputs && !job.output_dir.empty(); ++i) {
    const std::string name = "output_" + std::to_string(i) + ".npy";
    ETKIT_TRY(copy_back((dir.path / "outputs" / name).string(), job.output_dir + "/" + name));
  }
  return Ok{};
}

}  // namespace

Status make_work_dir(WorkDir& dir, const char* purpose) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/etinspect-" + purpose + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Error::make(ErrorCode::kIo, "cannot create a work folder %s: %s", pattern.c_str(), std::strerror(errno));
  }
  dir.path = pattern;
  return Ok{};
}

void add_device_options(CLI::App& command, DeviceOptions& options) {
  command.add_option("--device", options.target, "Run inside a device: qemu-cortex-m or qemu-aarch64")
      ->check(CLI::IsMember({"qemu-cortex-m", "qemu-aarch64"}));
  command.add_option("--device-timeout", options.timeout_seconds, "Seconds before the device run is stopped (default 600)")
      ->check(CLI::PositiveNumber);
}

Status copy_back(const std::string& from, const std::string& to) {
  // Copied beside the destination, then renamed: whole or not at all.
  const std::string partial = to + ".partial-" + std::to_string(::getpid());
  std::error_code error;
  fs::copy_file(from, partial, fs::copy_options::overwrite_existing, error);
  if (!error) fs::rename(partial, to, error);
  if (error) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    return Error::make(ErrorCode::kIo, "%s: cannot write: %s", to.c_str(), error.message().c_str());
  }
  return Ok{};
}

etdump::ETDumpGenStats trace_stats(const bundled::TraceTotals& t) {
  etdump::ETDumpGenStats s;
  s.blocks = size_t(t.blocks);
  s.events = size_t(t.events);
  s.dropped_events = size_t(t.dropped_events);
  s.dropped_blocks = size_t(t.dropped_blocks);
  s.dropped_values = size_t(t.dropped_values);
  s.debug_bytes = size_t(t.debug_bytes);
  s.intermediate_values = size_t(t.intermediate_values);
  return s;
}

Result<bundled::DeviceReport> run_on_device(const DeviceOptions& device, const DeviceJob& job) {
  const Target* target = find_target(device.target);
  if (target == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "unknown device '%s'", device.target.c_str());
  }
  ETKIT_ASSIGN_OR_RETURN(std::string runner, runner_path(*target));
  WorkDir dir;
  ETKIT_TRY(make_work_dir(dir));
  ETKIT_ASSIGN_OR_RETURN(std::vector<std::string> args, runner_arguments(dir, job));
  ETKIT_ASSIGN_OR_RETURN(int code, run_with_timeout(*target, dir, emulator_command(*target, runner, args),
                                                    device.timeout_seconds));
  if (code > 2 || !fs::exists(dir.path / "report.txt")) return runner_failure(*target, code, dir);
  auto report = bundled::parse_device_report(read_text(dir.path / "report.txt"));
  if (!report.ok()) {
    return Error::make(ErrorCode::kInternal, "%s: the runner's report does not read: %s", target->name,
                       report.error().message());
  }
  ETKIT_TRY(bring_back(dir, job, *report));
  return report;
}

}  // namespace etkit::cli
