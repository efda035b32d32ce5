#pragma once
// Runs another program (an emulator, ssh, scp) with a deadline, its output
// in a file, and stops it when the user presses Ctrl-C, so the caller can
// clean up (a device's scratch folder) before etinspect exits.

#include <string>
#include <vector>

#include "etkit/core/result.h"

namespace etkit::cli {

struct ChildOptions {
  std::string working_dir;   ///< empty: etinspect's own
  std::string output_file;   ///< stdout and stderr go here (required)
  double timeout_seconds = 600;
  bool stoppable = true;     ///< false: Ctrl-C does not stop it (clean-up after Ctrl-C)
};

/// How a child ended: its exit code, or the signal that killed it, or
/// stopped by us (the deadline passed, or Ctrl-C).
struct ChildExit {
  int exit_code = 0;
  int signal = 0;          ///< non-zero: killed by this signal
  bool timed_out = false;  ///< stopped at the deadline
  bool interrupted = false;  ///< stopped because etinspect was asked to stop
};

/// Starts `argv` (argv[0] looked up on PATH) and waits for it. Fails only
/// when it cannot be started (the error carries strerror).
Result<ChildExit> run_child(const std::vector<std::string>& argv, const ChildOptions& options);

/// While one exists, Ctrl-C and SIGTERM do not end etinspect: they stop the
/// running child (run_child then says `interrupted`) and are remembered, so
/// the caller can clean up and then exit 130.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  /// True once Ctrl-C or SIGTERM arrived while a guard existed.
  static bool interrupted();
};

/// The text of a file a child wrote (empty when it does not exist).
std::string read_text_file(const std::string& path);

/// The first line of `text` that says something, cut at 200 characters.
std::string first_line(const std::string& text);

}  // namespace etkit::cli
