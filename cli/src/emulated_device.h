#pragma once
// The emulated devices: a bare-metal Cortex-M55 board under
// qemu-system-arm (semihosting), aarch64 and riscv64 Linux under qemu-user;
// and the user's own runner on this machine.

#include "device_target.h"

namespace etkit::cli {

/// True for qemu-cortex-m, qemu-aarch64 and qemu-riscv64.
bool is_emulated_device(const std::string& target);

/// Runs `job` inside the emulated `target`.
Result<bundled::DeviceReport> run_on_emulated_device(const DeviceOptions& options, const std::string& target,
                                                     const DeviceJob& job);

/// Runs `job` with the user's runner (job.runner) on this machine;
/// `name` ("host" or "upstream-host") names it in errors.
Result<bundled::DeviceReport> run_user_runner_here(const DeviceOptions& options, const std::string& name,
                                                   const DeviceJob& job);

}  // namespace etkit::cli
