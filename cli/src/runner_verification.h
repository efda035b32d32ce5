#pragma once
// verify through the runner contract: a user's runner (--runner) or
// upstream's runtime (--device upstream-host) runs each bundled test case
// on its inputs as .npy files; etkit compares the outputs it writes with
// the bundle's expected outputs, with the same allclose rule and report as
// its own runtime's.

#include <string>

#include "device_target.h"
#include "etkit/bundled/verify.h"
#include "etkit/session/host_verification.h"

namespace etkit::cli {

/// Verifies `bundle` on `target` (device_targets) through the contract.
/// Fails as a whole when the bundle cannot be read or the target cannot be
/// reached at all; a case whose run fails is a case error.
Result<bundled::VerifyReport> verify_through_runner(const DeviceOptions& options, const std::string& target,
                                                    const std::string& bundle, const session::VerifyRequest& request);

}  // namespace etkit::cli
