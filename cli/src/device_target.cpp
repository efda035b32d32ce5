#include "device_target.h"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "device_staging.h"
#include "emulated_device.h"
#include "ssh_device.h"

namespace fs = std::filesystem;

namespace etkit::cli {

Status make_work_dir(WorkDir& dir, const char* purpose) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/etinspect-" + purpose + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Error::make(ErrorCode::kIo, "cannot create a work folder %s: %s", pattern.c_str(), std::strerror(errno));
  }
  dir.path = pattern;
  return Ok{};
}

void add_device_options(CLI::App& command, DeviceOptions& options, bool fleet) {
  // upstream-host goes through the runner contract, which verify speaks.
  const auto device_name = [fleet](const std::string& value) -> std::string {
    if (is_emulated_device(value) || (fleet && value == kUpstreamHost)) return {};
    if (value == kUpstreamHost) return "upstream-host runs bundles: it is a device of verify only";
    if (is_ssh_device(value)) {
      auto parsed = parse_ssh_target(value);
      return parsed.ok() ? std::string() : std::string(parsed.error().message());
    }
    return "'" + value + "' is not a device: qemu-cortex-m, qemu-aarch64, qemu-riscv64, upstream-host or "
           "ssh://[user@]host[:port][/folder]";
  };
  auto* device = command.add_option("--device", options.targets,
                                    fleet ? "Run inside a device (repeat for several, run at once): qemu-cortex-m, "
                                            "qemu-aarch64, qemu-riscv64, ssh://[user@]host[:port][/folder] or upstream-host (upstream's "
                                            "runtime from the pinned wheel)"
                                          : "Run inside a device: qemu-cortex-m, qemu-aarch64, qemu-riscv64 or "
                                            "ssh://[user@]host[:port][/folder]");
  device->check(CLI::Validator(device_name, "DEVICE", "device"))->type_size(1)->allow_extra_args(false);
  if (!fleet) device->expected(1);  // run and generate: one device
  command.add_option("--device-timeout", options.timeout_seconds, "Seconds before the device run is stopped (default 600)")
      ->check(CLI::PositiveNumber);
  command.add_option("--device-arch", options.device_arch,
                     "An ssh:// device's architecture (x86_64, aarch64, riscv64) instead of asking it (uname -m)");
  command.add_option("--ssh-option", options.ssh_options,
                     "Passed as -o OPT to every ssh and scp call (repeatable), e.g. IdentityFile=KEY")
      ->type_size(1)
      ->allow_extra_args(false);
  if (fleet) {
    command.add_option("--device-jobs", options.jobs, "Devices run at once (default 4)")->check(CLI::PositiveNumber);
  }
}

void add_runner_option(CLI::App& command, DeviceOptions& options) {
  command.add_option("--runner", options.runner,
                     "Run this runner instead of etkit's (on the host, or on --device): your own runtime's, called "
                     "as README \"Your own runner\" says; etkit compares its outputs")
      ->check(CLI::ExistingFile);
  command.add_option("--runner-args", options.runner_args,
                     "The runner's command line, with {program} {method} {inputs} {data} {output_dir} {etdump} "
                     "{debug_buffer} (default: the contract's; README \"Your own runner\")")
      ->needs("--runner");
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

Result<bundled::DeviceReport> run_on_device(const DeviceOptions& options, const std::string& target,
                                            const DeviceJob& job) {
  if (target == kUpstreamHost) {
    // Upstream's runtime from the pinned wheel, behind the runner contract.
    DeviceJob upstream = job;
    ETKIT_ASSIGN_OR_RETURN(upstream.runner, installed_runner(kUpstreamHost, "etkit-upstream-runner"));
    return run_user_runner_here(options, kUpstreamHost, upstream);
  }
  if (target == "host") return run_user_runner_here(options, "host", job);
  if (is_ssh_device(target)) return run_on_ssh_device(options, target, job);
  return run_on_emulated_device(options, target, job);
}

std::vector<std::string> device_targets(const DeviceOptions& options) {
  if (options.targets.empty()) return {"host"};
  return options.targets;
}

bool uses_runner_contract(const DeviceOptions& options, const std::string& target) {
  return !options.runner.empty() || target == kUpstreamHost;
}

}  // namespace etkit::cli
