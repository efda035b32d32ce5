#pragma once
/// @file
/// Every op set etkit has, for host tools that run any program
/// (library etkit::kernels).

#include "etkit/core/kernel_registry.h"

namespace etkit {

/// Registers every op set into `registry`.
void register_all_kernels(KernelRegistry& registry);

/// A process-wide registry holding every op set, built on first use
/// (thread-safe); what the CLI, the GUI, benchmarks and fuzzers pass as
/// MethodOptions::kernels.
const KernelRegistry& all_kernels();

}  // namespace etkit
