#pragma once
// Runs the device runner on a target (an emulated board or phone today)
// and brings back its report, outputs and trace, so `verify --device` and
// `run --device` print exactly what the host commands print.

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
  std::string target;          ///< "qemu-cortex-m" or "qemu-aarch64"; empty: run on the host
  double timeout_seconds = 600;
};

/// Adds --device and --device-timeout to a command.
void add_device_options(CLI::App& command, DeviceOptions& options);

/// One job for the runner: its command, files going in, files coming back.
struct DeviceJob {
  std::string command;                      ///< "verify" or "run"
  std::string file;                         ///< bundle or program
  std::vector<std::string> data;            ///< .ptd files
  std::vector<std::string> inputs;          ///< .npy files (run)
  std::vector<std::string> arguments;       ///< further runner options, e.g. {"--rtol", "1e-3"}
  std::string etdump, debug_buffer;         ///< where the trace and its data go (empty: none)
  std::string output_dir;                   ///< where output_<i>.npy go (run; empty: none)
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

/// Runs `job` on the target and returns the runner's report; the files it
/// wrote are copied to where the job says. Fails (kInternal, exit 3) when
/// the runner is not installed, the emulator is missing, fails, crashes or
/// does not finish within the timeout.
Result<bundled::DeviceReport> run_on_device(const DeviceOptions& device, const DeviceJob& job);

}  // namespace etkit::cli
