#pragma once
// A device reached over SSH (`--device ssh://[user@]host[:port][/folder]`):
// the runner for its architecture and the job's files are copied with scp
// to a scratch folder made there (under /folder when given, else the
// target's $TMPDIR or /tmp), the runner runs, its report and files come
// back, and the scratch folder is removed, also on failure and Ctrl-C.
// Uses the system's OpenSSH client (its config, keys and agent) in batch
// mode: no password prompts.

#include <string>

#include "device_target.h"

namespace etkit::cli {

/// A parsed ssh:// target.
struct SshTarget {
  std::string text;        ///< as given, for messages
  std::string user_host;   ///< "user@host" or "host" (IPv6 without brackets)
  std::string scp_host;    ///< as scp wants it: IPv6 in brackets
  std::string port;        ///< empty: ssh's default (or its config's)
  std::string folder;      ///< scratch parent on the target; empty: $TMPDIR or /tmp there
};

/// True for targets written ssh://…
bool is_ssh_device(const std::string& target);

/// Parses ssh://[user@]host[:port][/folder]; refuses what ssh would read
/// as an option or what a remote shell would split.
Result<SshTarget> parse_ssh_target(const std::string& text);

/// The runner file for a `uname -m` answer (x86_64, aarch64/arm64, riscv64).
Result<std::string> runner_for_architecture(const std::string& target, const std::string& arch);

/// Runs `job` on the SSH target.
Result<bundled::DeviceReport> run_on_ssh_device(const DeviceOptions& options, const std::string& target,
                                                const DeviceJob& job);

}  // namespace etkit::cli
