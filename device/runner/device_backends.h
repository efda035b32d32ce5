#pragma once
// The delegate backends this runner was built with: XNNPACK on aarch64 when
// the arm64 XNNPACK packages were installed (device/CMakeLists.txt), none
// on the Cortex-M55. A program whose delegate has no backend here fails to
// load naming the backend, as on the host without it.

#include "etkit/core/backend.h"

namespace etkit::device {

/// The runner's backends, made once.
const BackendRegistry& device_backends();

}  // namespace etkit::device
