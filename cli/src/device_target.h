#pragma once
// Runs the device runner on a target and brings back its report, outputs
// and trace, so `verify --device`, `run --device` and `generate --device`
// print exactly what the host commands print. Targets: the emulated board
// and Linux devices (emulated_device.h) and any machine reached over SSH
// (ssh_device.h).

#include <filesystem>
#include <string>
#include <vector>

#include "etkit/bundled/device_report.h"
#include "etkit/core/result.h"
#include "etkit/etdump/etdump_gen.h"

namespace CLI {
class App;
}

namespace etkit::cli {

struct DeviceOptions {
  /// qemu-cortex-m, qemu-aarch64, qemu-riscv64, ssh://[user@]host[:port][/folder]
  /// or upstream-host; empty: run on the host. More than one: a fleet
  /// (verify only).
  std::vector<std::string> targets;
  /// --runner: the user's runner (host path) run instead of etkit's, with
  /// --runner-args (runner_template.h; empty: the contract's).
  std::string runner;
  std::string runner_args;
  double timeout_seconds = 600;
  std::vector<std::string> ssh_options;  ///< each passed as `-o OPT` to ssh and scp
  std::string device_arch;               ///< an SSH target's architecture, instead of asking uname -m
  size_t jobs = 4;                       ///< devices verified at once
  /// etkit's own runtime, in this process: no device and no --runner.
  bool on_host() const { return targets.empty() && runner.empty(); }
};

/// Adds --device, --device-timeout, --device-arch and --ssh-option to a
/// command; `fleet` lets --device repeat (and adds --device-jobs).
void add_device_options(CLI::App& command, DeviceOptions& options, bool fleet = false);

/// Adds --runner (verify and run).
void add_runner_option(CLI::App& command, DeviceOptions& options);

/// The device that means upstream's runtime from the pinned wheel on this
/// machine (scripts/upstream-runner, installed beside etinspect).
inline constexpr const char* kUpstreamHost = "upstream-host";

/// The targets a job runs on: --device's, or "host" (the user's runner
/// here) when only --runner was given.
std::vector<std::string> device_targets(const DeviceOptions& options);

/// True when the job on `target` goes through the runner contract (a
/// user's runner, or upstream-host) rather than etkit's own runner.
bool uses_runner_contract(const DeviceOptions& options, const std::string& target);

/// One job for the runner: its command, files going in, files coming back.
struct DeviceJob {
  std::string command;                      ///< "verify", "run" or "generate"
  std::string file;                         ///< bundle or program
  std::vector<std::string> data;            ///< .ptd files
  std::vector<std::string> inputs;          ///< .npy files (run)
  std::vector<std::string> arguments;       ///< further runner options, e.g. {"--rtol", "1e-3"}
  std::string etdump, debug_buffer;         ///< where the trace and its data go (empty: none)
  std::string output_dir;                   ///< where output_<i>.npy go (run; empty: none)
  /// A runner the user provides instead of etkit's (empty: etkit's). It is
  /// called with `runner_args` (runner_template.h; empty: the contract's
  /// `run PROGRAM --method M [--input X.npy]... --output-dir DIR ...`,
  /// README "Your own runner") and writes no report: exit 0 and
  /// DIR/output_<i>.npy for `outputs` outputs.
  std::string runner;
  std::string runner_args;
  std::string method;  ///< the user's runner's {method}
  size_t outputs = 0;
};

/// A scratch folder for one job, removed with everything in it when the
/// job is done.
struct WorkDir {
  std::filesystem::path path;
  WorkDir() = default;
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  ~WorkDir() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
  std::string str() const { return path.string(); }
};

/// Creates `dir` under $TMPDIR (else /tmp), named after `purpose`.
Status make_work_dir(WorkDir& dir, const char* purpose = "device");

/// Copies a file the device wrote to `to`, atomically (a temporary sibling,
/// then a rename).
Status copy_back(const std::string& from, const std::string& to);

/// The device recorder's totals as the host's recorder reports them.
etdump::ETDumpGenStats trace_stats(const bundled::TraceTotals& totals);

/// Runs `job` on `target` (one of device_targets(options)) and returns the
/// runner's report; the files it wrote are copied to where the job says.
/// Set-up problems (no runner installed, an unreachable host, a refused
/// key) fail as bad input (exit 2); an emulator or runner that fails,
/// crashes or misses the deadline fails as kInternal (exit 3).
Result<bundled::DeviceReport> run_on_device(const DeviceOptions& options, const std::string& target,
                                            const DeviceJob& job);

}  // namespace etkit::cli
