#include "device_staging.h"

#include <cstdlib>
#include <filesystem>
#include <utility>

#include "child_process.h"
#include "runner_template.h"

namespace fs = std::filesystem;

namespace etkit::cli {
namespace {

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

}  // namespace

Result<std::string> installed_runner(const std::string& device, const std::string& runner) {
  fs::path dir;
  if (const char* env = std::getenv("ETKIT_RUNNER_DIR"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
    std::error_code error;
    dir = fs::read_symlink("/proc/self/exe", error).parent_path();
  }
  const fs::path path = dir / runner;
  // A set-up problem, not etkit's fault (exit 2): typically a build
  // configured before the cross toolchains were installed.
  if (!fs::is_regular_file(path)) {
    return Error::make(ErrorCode::kNotFound,
                       "device %s: its runner %s is not installed beside etinspect: install the cross toolchains "
                       "(scripts/install-deps --device), configure the build again (cmake -S . -B BUILD; a build "
                       "configured before they were installed has no runners) and build, or set ETKIT_RUNNER_DIR "
                       "to a folder holding %s",
                       device.c_str(), path.c_str(), runner.c_str());
  }
  return path.string();
}

Result<std::vector<std::string>> stage_job(const WorkDir& dir, const DeviceJob& job) {
  TemplateValues files{{"program", {}}, {"method", {job.method}}, {"inputs", {}}, {"data", {}},
                       {"output_dir", {}}, {"etdump", {}}, {"debug_buffer", {}}};
  ETKIT_ASSIGN_OR_RETURN(std::string program, link_in(dir, job.file, "program" + fs::path(job.file).extension().string()));
  files["program"].push_back(program);
  for (size_t i = 0; i < job.data.size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(std::string name, link_in(dir, job.data[i], "data" + std::to_string(i) + ".ptd"));
    files["data"].push_back(name);
  }
  for (size_t i = 0; i < job.inputs.size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(std::string name, link_in(dir, job.inputs[i], "input" + std::to_string(i) + ".npy"));
    files["inputs"].push_back(name);
  }
  if (!job.etdump.empty()) files["etdump"].push_back("trace.etdp");
  if (!job.debug_buffer.empty()) files["debug_buffer"].push_back("debug.bin");
  if (!job.output_dir.empty()) {
    fs::create_directory(dir.path / "outputs");
    files["output_dir"].push_back("outputs");
  }
  std::vector<std::string> args;
  if (!job.runner.empty()) {
    ETKIT_ASSIGN_OR_RETURN(args, expand_runner_template(job.runner_args.empty() ? kDefaultRunnerTemplate
                                                                                : job.runner_args,
                                                        files));
  } else {
    // etkit's runner: its own flags for the same staged files (device/runner/main.cpp).
    args = {job.command, program, "--report", "report.txt"};
    constexpr std::pair<const char*, const char*> kRunnerFlags[] = {
        {"data", "--data"}, {"inputs", "--input"}, {"etdump", "--etdump"}, {"debug_buffer", "--debug-buffer"},
        {"output_dir", "--output-dir"}};
    for (const auto& [placeholder, flag] : kRunnerFlags) {
      for (const std::string& value : files[placeholder]) args.insert(args.end(), {flag, value});
    }
    args.insert(args.end(), job.arguments.begin(), job.arguments.end());
  }
  for (const std::string& a : args) {
    if (a.empty() || a.find_first_of(" \t\n'\"\\") != std::string::npos) {
      return Error::make(ErrorCode::kInvalidArgument, "a device's command line cannot carry the value '%s'",
                         a.c_str());
    }
  }
  return args;
}

Result<bundled::DeviceReport> user_runner_outcome(const std::string& device, int exit_code, const WorkDir& dir,
                                                  const DeviceJob& job) {
  if (exit_code != 0) {
    std::string console = first_line(read_text_file((dir.path / "console.txt").string()));
    if (!console.empty()) console = ": " + console;
    return Error::make(ErrorCode::kInternal, "%s: the runner %s exited with code %d%s", device.c_str(),
                       job.runner.c_str(), exit_code, console.c_str());
  }
  bundled::DeviceReport report;
  report.kind = bundled::DeviceReport::Kind::kRun;
  report.outputs = job.outputs;
  for (const std::string& file : files_to_bring_back(job, report)) {
    if (!fs::exists(dir.path / file)) {
      return Error::make(ErrorCode::kInternal, "%s: the runner %s exited 0 but wrote no %s", device.c_str(),
                         job.runner.c_str(), file.c_str());
    }
  }
  return report;
}

std::vector<std::string> files_to_bring_back(const DeviceJob& job, const bundled::DeviceReport& report) {
  std::vector<std::string> files;
  if (report.failed) return files;
  if (!job.etdump.empty()) files.push_back("trace.etdp");
  if (!job.debug_buffer.empty()) files.push_back("debug.bin");
  for (size_t i = 0; i < report.outputs && !job.output_dir.empty(); ++i) {
    files.push_back("outputs/output_" + std::to_string(i) + ".npy");
  }
  return files;
}

Result<bundled::DeviceReport> read_back(const std::string& device, const WorkDir& dir, const DeviceJob& job,
                                        int exit_code) {
  auto report = job.runner.empty() ? bundled::parse_device_report(read_text_file((dir.path / "report.txt").string()))
                                   : user_runner_outcome(device, exit_code, dir, job);
  if (!report.ok() && !job.runner.empty()) return report.error();
  if (!report.ok()) {
    return Error::make(ErrorCode::kInternal, "%s: the runner's report does not read: %s", device.c_str(),
                       report.error().message());
  }
  for (const std::string& file : files_to_bring_back(job, *report)) {
    const std::string name = fs::path(file).filename().string();
    const std::string to = name == "trace.etdp" ? job.etdump
                           : name == "debug.bin" ? job.debug_buffer
                                                 : job.output_dir + "/" + name;
    ETKIT_TRY(copy_back((dir.path / file).string(), to));
  }
  return report;
}

}  // namespace etkit::cli
