#pragma once
// The op sets this runner was built with (ETKIT_DEVICE_ONLY_OP_SETS, default all).

#include "etkit/core/kernel_registry.h"

namespace etkit::device {

/// The runner's kernels: every op set it links, registered once.
const KernelRegistry& device_kernels();

}  // namespace etkit::device
