#pragma once
// What every kind of device shares: the runner installed beside etinspect,
// the job's files staged in a work folder under the short names the runner
// is given, and the runner's report and files read back from a folder.

#include <string>
#include <vector>

#include "device_target.h"

namespace etkit::cli {

/// The runner file `runner` beside etinspect (or in $ETKIT_RUNNER_DIR); a
/// missing one is a set-up error naming `device` and the fix.
Result<std::string> installed_runner(const std::string& device, const std::string& runner);

/// Links the job's files into `dir` (program.pte or .bpte, data<i>.ptd,
/// input<i>.npy; an outputs/ folder for run) and returns the runner's
/// arguments, which name only those.
Result<std::vector<std::string>> stage_job(const WorkDir& dir, const DeviceJob& job);

/// The files the runner writes, relative to its folder, that the job wants
/// back given the runner's report.
std::vector<std::string> files_to_bring_back(const DeviceJob& job, const bundled::DeviceReport& report);

/// Reads `dir`/report.txt (etkit's runner) or judges the user's runner by
/// its exit code and files, and copies the files the job wants to where it
/// says; `device` names the target in errors.
Result<bundled::DeviceReport> read_back(const std::string& device, const WorkDir& dir, const DeviceJob& job,
                                        int exit_code);

/// A user's runner's outcome: exit 0 with every file the job wants in
/// `dir` is a run with job.outputs outputs; anything else an error naming
/// the exit code and the runner's first line of output.
Result<bundled::DeviceReport> user_runner_outcome(const std::string& device, int exit_code, const WorkDir& dir,
                                                  const DeviceJob& job);

/// The runner's exit codes that are not its own verdicts (0, 1, 2, 3).
constexpr int kRunnerOutOfMemory = 124;
constexpr int kRunnerFault = 125;

}  // namespace etkit::cli
