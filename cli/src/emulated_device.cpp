#include "emulated_device.h"

#include <cstring>
#include <filesystem>

#include "child_process.h"
#include "device_staging.h"

namespace fs = std::filesystem;

namespace etkit::cli {
namespace {

// QEMU's own exit code when the board locks up (a fault it cannot take).
constexpr int kQemuLockup = 134;

struct Target {
  const char* name;
  const char* runner;    // file beside etinspect
  const char* emulator;  // program on PATH
};
constexpr Target kTargets[] = {
    {"qemu-cortex-m", "etkit-runner-cortex-m55.elf", "qemu-system-arm"},
    {"qemu-aarch64", "etkit-runner-aarch64", "qemu-aarch64"},
    {"qemu-riscv64", "etkit-runner-riscv64", "qemu-riscv64"},
};

const Target* find_target(const std::string& name) {
  for (const Target& t : kTargets) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

// The emulator's command line for the runner and its arguments.
std::vector<std::string> emulator_command(const Target& target, const std::string& runner,
                                          const std::vector<std::string>& args) {
  if (std::string(target.emulator) != "qemu-system-arm") {
    // The cross C library's loader and libraries, for a runner linked
    // dynamically (the phone's, with XNNPACK); a static runner ignores them.
    const std::string arch = std::string(target.emulator).substr(std::strlen("qemu-"));
    std::vector<std::string> command{target.emulator, "-L", "/usr/" + arch + "-linux-gnu", runner};
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

// The emulator's own output (QEMU's complaint, the runner's console): its
// first line, which says what went wrong (a register dump may follow).
std::string console_tail(const WorkDir& dir) {
  const std::string line = first_line(read_text_file((dir.path / "console.txt").string()));
  return line.empty() ? line : ": " + line;
}

// A child that did not end by itself (Ctrl-C, the deadline, a signal) as
// an error naming `device` and `what` ran there; Ok when it exited.
Status check_ended(const std::string& device, const std::string& what, const ChildExit& ran, const WorkDir& dir,
                   double timeout_seconds) {
  if (ran.interrupted) return Error::make(ErrorCode::kInternal, "%s: interrupted", device.c_str());
  if (ran.timed_out) {
    return Error::make(ErrorCode::kInternal, "%s: no answer within %g s (stopped; --device-timeout sets the limit)",
                       device.c_str(), timeout_seconds);
  }
  if (ran.signal != 0) {
    return Error::make(ErrorCode::kInternal, "%s: %s was killed by signal %d (%s)%s", device.c_str(), what.c_str(),
                       ran.signal, strsignal(ran.signal), console_tail(dir).c_str());
  }
  return Ok{};
}

Error runner_failure(const Target& target, int code, const WorkDir& dir) {
  const char* what = code == kRunnerOutOfMemory ? "ran out of memory (the program does not fit the device)"
                     : code == kRunnerFault || code == kQemuLockup ? "crashed (hard fault)"
                                                                   : "failed without a report";
  return Error::make(ErrorCode::kInternal, "%s: the runner %s, exit code %d%s", target.name, what, code,
                     console_tail(dir).c_str());
}

}  // namespace

bool is_emulated_device(const std::string& target) { return find_target(target) != nullptr; }

Result<bundled::DeviceReport> run_user_runner_here(const DeviceOptions& options, const std::string& name,
                                                   const DeviceJob& job) {
  WorkDir dir;
  ETKIT_TRY(make_work_dir(dir, "runner"));
  ETKIT_ASSIGN_OR_RETURN(std::vector<std::string> args, stage_job(dir, job));
  args.insert(args.begin(), fs::absolute(job.runner).string());
  InterruptGuard stop_cleanly;
  ChildOptions child{dir.str(), (dir.path / "console.txt").string(), options.timeout_seconds};
  auto ran = run_child(args, child);
  if (!ran.ok()) return Error::make(ErrorCode::kInvalidArgument, "%s: %s", name.c_str(), ran.error().message());
  ETKIT_TRY(check_ended(name, "the runner " + job.runner, *ran, dir, options.timeout_seconds));
  return read_back(name, dir, job, ran->exit_code);
}

Result<bundled::DeviceReport> run_on_emulated_device(const DeviceOptions& options, const std::string& name,
                                                     const DeviceJob& job) {
  const Target* target = find_target(name);
  if (target == nullptr) return Error::make(ErrorCode::kInvalidArgument, "unknown device '%s'", name.c_str());
  if (!job.runner.empty() && std::string(target->emulator) == "qemu-system-arm") {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: --runner runs Linux programs; a board's own runner is flashed and run by the user "
                       "(README: \"A real board or phone\")",
                       target->name);
  }
  std::string runner = job.runner;
  if (runner.empty()) {
    ETKIT_ASSIGN_OR_RETURN(runner, installed_runner(target->name, target->runner));
  }
  WorkDir dir;
  ETKIT_TRY(make_work_dir(dir));
  ETKIT_ASSIGN_OR_RETURN(std::vector<std::string> args, stage_job(dir, job));
  InterruptGuard stop_cleanly;  // Ctrl-C stops the emulator; the work folder still goes
  ChildOptions child{dir.str(), (dir.path / "console.txt").string(), options.timeout_seconds};
  auto ran = run_child(emulator_command(*target, runner, args), child);
  if (!ran.ok()) {
    return Error::make(ErrorCode::kInternal, "%s: %s%s", target->name, ran.error().message(),
                       ran.error().code() == ErrorCode::kNotFound ? " (scripts/install-deps --device installs QEMU)"
                                                                  : "");
  }
  ETKIT_TRY(check_ended(target->name, target->emulator, *ran, dir, options.timeout_seconds));
  if (job.runner.empty() && (ran->exit_code > 2 || !fs::exists(dir.path / "report.txt"))) {
    return runner_failure(*target, ran->exit_code, dir);
  }
  return read_back(target->name, dir, job, ran->exit_code);
}

}  // namespace etkit::cli
