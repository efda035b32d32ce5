#pragma once
// A bundle verified on this machine: loaded with its data files and etkit's
// backends, every test case run (or the one asked for) and compared, the
// trace written when one is asked for. etinspect verify (without --device)
// and the Python module's etkit.verify.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "etkit/bundled/verify.h"
#include "etkit/core/result.h"
#include "etkit/session/loaded_program.h"
#include "etkit/session/tracing.h"

namespace etkit::session {

struct VerifyRequest {
  double rtol = 1e-5;  ///< upstream's allclose defaults
  double atol = 1e-8;
  std::string method;        ///< only this method's suite; empty: all
  int64_t case_index = -1;   ///< only this case; -1: all
  std::vector<std::string> data;  ///< external data files (.ptd)
  int threads = 0;           ///< the runtime's threads (0: every core)
  TracingOptions tracing;
  /// Called after each case with (done, total); may be empty.
  std::function<void(size_t done, size_t total)> progress;
};

/// Verifies `bundle`. Fails when it cannot run at all (not a bundle, an
/// unreadable file, bad trace options, a trace that cannot be written); a
/// case that fails or cannot run is in the report. What a user must hear
/// about the trace (dropped events, a filter that matched nothing) is
/// appended to `warnings`.
Result<bundled::VerifyReport> verify_on_host(const std::string& bundle, const VerifyRequest& request,
                                             std::vector<std::string>& warnings);

}  // namespace etkit::session
