#pragma once
// Diagnostics on stderr as "etinspect: error: <what>" / "warning:", coloured
// only on a terminal and never when NO_COLOR is set. Repeated identical
// warnings are folded into one with a count.

#include <map>
#include <string>

#include "etkit/core/error.h"

namespace etkit::cli {

/// Exit codes shared by all subcommands.
enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,
  kExitBadInput = 2,
  kExitInternal = 3,
};

class Diagnostics {
 public:
  Diagnostics();
  /// Diagnostics kept in `held` instead of printed, for work done on
  /// another thread whose messages are printed later, in order.
  explicit Diagnostics(std::string* held);
  void error(const std::string& message);
  void warning(const std::string& message);
  /// Reports `error` and returns its exit code, for commands' early
  /// returns: `return diagnostics.fail(result.error());`. Internal errors
  /// (etkit's own fault, or out of memory) exit 3, every other error 2.
  int fail(const Error& error);
  /// Reports a gate that ran and failed (a regression, a divergence, a
  /// failed case) as "etinspect: check failed: <what>", the one form every
  /// command's exit 1 takes, and returns kExitCheckFailed.
  int check_failed(const std::string& what);
  /// Prints the folded counts of repeated warnings.
  void flush();
  size_t error_count() const { return errors_; }

 private:
  void emit(const char* level, const char* colour, const std::string& message);
  bool colour_;
  std::string* held_ = nullptr;
  size_t errors_ = 0;
  std::map<std::string, size_t> repeated_warnings_;
};

/// True when colour may be used on `fd`.
bool use_colour(int fd);

}  // namespace etkit::cli
