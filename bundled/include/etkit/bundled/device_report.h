#pragma once
/// @file
/// The report a device runner writes and the host reads back: a verify
/// report (every case and output with its error figures), or a run's
/// latencies, or the error that stopped the runner. A small line-based
/// text, so a runner on a bare-metal board can write it with printf and a
/// person can read it on a serial console.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/bundled/verify.h"
#include "etkit/core/result.h"

namespace etkit::bundled {

/// What the device's trace recorder kept and dropped (ETDumpGen's totals).
struct TraceTotals {
  uint64_t blocks = 0, events = 0, dropped_events = 0, dropped_blocks = 0, dropped_values = 0;
  uint64_t debug_bytes = 0, intermediate_values = 0;
};

struct DeviceReport {
  enum class Kind { kVerify, kRun };
  Kind kind = Kind::kVerify;
  /// Set when the runner could not verify or run: the error as the host
  /// would have reported it.
  bool failed = false;
  ErrorCode error_code = ErrorCode::kInternal;
  std::string error_message;
  VerifyReport verify;               ///< kVerify
  std::vector<double> latencies_ms;  ///< kRun: one per timed execution
  size_t outputs = 0;                ///< kRun: output_<i>.npy files written
  bool traced = false;               ///< an ETDump was written
  TraceTotals trace;
};

/// The report's text (first line "etkit-device-report 2").
std::string format_device_report(const DeviceReport& report);

/// Reads a report back; errors name the line that does not parse.
Result<DeviceReport> parse_device_report(std::string_view text);

}  // namespace etkit::bundled
