#include "ssh_device.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "child_process.h"
#include "device_staging.h"

namespace fs = std::filesystem;

namespace etkit::cli {
namespace {

constexpr double kShortCallSeconds = 60;  // connecting, making and removing folders, copying back
constexpr const char* kExitMarker = "etkit-runner-exit ";

bool only(const std::string& text, const char* allowed_punctuation) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [&](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || std::strchr(allowed_punctuation, c) != nullptr;
         });
}

// A word for the target's shell, in single quotes.
std::string quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Answer {
  ChildExit exit;
  std::string output;
};

// The ssh and scp command lines for one target, and calls through them.
class SshSession {
 public:
  SshSession(const SshTarget& target, const DeviceOptions& options, const WorkDir& work)
      : target_(target), options_(options), log_(work.str() + "/ssh-output.txt"), control_(work.str() + "/cm") {}
  // The shared connection ends with the session (it would linger a minute).
  ~SshSession() {
    std::vector<std::string> argv{"ssh"};
    add_common(argv, "-p");
    argv.insert(argv.end(), {"-O", "exit", "--", target_.user_host});
    (void)run_child(argv, ChildOptions{"", log_ + ".exit", kShortCallSeconds, false});
  }
  SshSession(const SshSession&) = delete;
  SshSession& operator=(const SshSession&) = delete;

  std::vector<std::string> ssh(const std::string& remote_command) const {
    std::vector<std::string> argv{"ssh"};
    add_common(argv, "-p");
    argv.insert(argv.end(), {"--", target_.user_host, remote_command});
    return argv;
  }
  std::vector<std::string> scp(const std::vector<std::string>& sources, const std::string& destination) const {
    std::vector<std::string> argv{"scp", "-q"};
    add_common(argv, "-P");
    argv.push_back("--");
    argv.insert(argv.end(), sources.begin(), sources.end());
    argv.push_back(destination);
    return argv;
  }
  std::string remote(const std::string& path) const { return target_.scp_host + ":" + path; }

  Result<Answer> call(const std::vector<std::string>& argv, double seconds, bool stoppable = true) const {
    ChildOptions child{"", log_, seconds, stoppable};
    auto ran = run_child(argv, child);
    if (!ran.ok()) {
      return Error::make(ErrorCode::kNotFound, "%s: %s (the OpenSSH client: apt install openssh-client)",
                         target_.text.c_str(), ran.error().message());
    }
    return Answer{*ran, read_text_file(log_)};
  }

 private:
  void add_common(std::vector<std::string>& argv, const char* port_flag) const {
    // The user's options first: for ssh the first value of an option wins.
    for (const std::string& option : options_.ssh_options) argv.insert(argv.end(), {"-o", option});
    // No prompts in CI; a dead host fails in seconds, not minutes; one
    // connection for the job's calls (each would otherwise log in anew).
    argv.insert(argv.end(), {"-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "-o", "ControlMaster=auto", "-o",
                             "ControlPath=" + control_, "-o", "ControlPersist=60"});
    if (!target_.port.empty()) argv.insert(argv.end(), {port_flag, target_.port});
  }
  const SshTarget& target_;
  const DeviceOptions& options_;
  std::string log_;
  std::string control_;
};

// ssh exits 255 when the connection itself failed; its message says why.
Error connection_error(const SshTarget& target, const std::string& output) {
  const std::string line = first_line(output);
  if (output.find("Permission denied") != std::string::npos) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: the target refused the key (%s): pass one it accepts with --ssh-option "
                       "IdentityFile=KEY, or load it into ssh-agent",
                       target.text.c_str(), line.c_str());
  }
  if (output.find("Host key verification failed") != std::string::npos) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: the target's host key is not known (%s): add it to known_hosts, or pass "
                       "--ssh-option StrictHostKeyChecking=accept-new",
                       target.text.c_str(), line.c_str());
  }
  return Error::make(ErrorCode::kInvalidArgument, "%s: cannot reach the target: %s", target.text.c_str(),
                     line.empty() ? "ssh failed without a message" : line.c_str());
}

Error stopped(const SshTarget& target, const ChildExit& exit, double seconds) {
  if (exit.interrupted) return Error::make(ErrorCode::kInternal, "%s: interrupted", target.text.c_str());
  return Error::make(ErrorCode::kInternal, "%s: no answer within %g s (stopped; --device-timeout sets the limit)",
                     target.text.c_str(), seconds);
}

// The scratch folder on the target, removed when the job is done however
// it ends (Ctrl-C included: the removal is not stoppable).
class RemoteScratch {
 public:
  RemoteScratch(const SshSession& session, std::string path) : session_(session), path_(std::move(path)) {}
  ~RemoteScratch() { (void)session_.call(session_.ssh("rm -rf " + quote(path_)), kShortCallSeconds, false); }
  RemoteScratch(const RemoteScratch&) = delete;
  RemoteScratch& operator=(const RemoteScratch&) = delete;
  const std::string& path() const { return path_; }

 private:
  const SshSession& session_;
  std::string path_;
};

// One round trip: the target's architecture and a fresh scratch folder.
Result<std::pair<std::string, std::string>> open_target(const SshSession& session, const SshTarget& target) {
  const std::string pattern = "etkit-device-XXXXXX";
  const std::string make_dir = target.folder.empty() ? "mktemp -d \"${TMPDIR:-/tmp}/" + pattern + "\""
                                                     : "mktemp -d " + quote(target.folder + "/" + pattern);
  ETKIT_ASSIGN_OR_RETURN(Answer answer, session.call(session.ssh("uname -m && " + make_dir), kShortCallSeconds));
  if (answer.exit.interrupted || answer.exit.timed_out) return stopped(target, answer.exit, kShortCallSeconds);
  if (answer.exit.exit_code == 255) return connection_error(target, answer.output);
  std::vector<std::string> lines;
  std::istringstream in(answer.output);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  if (answer.exit.exit_code != 0 || lines.size() < 2 || lines.back()[0] != '/' || !only(lines.back(), "/._-")) {
    return Error::make(ErrorCode::kIo, "%s: cannot make a scratch folder there (%s): %s", target.text.c_str(),
                       make_dir.c_str(), first_line(answer.output).c_str());
  }
  return std::make_pair(lines[lines.size() - 2], lines.back());
}

// Why copying the job's files failed: a full disk says so with numbers.
Error upload_error(const SshSession& session, const SshTarget& target, const std::string& dir,
                   const std::string& scp_output, uintmax_t needed_bytes) {
  auto free_space = session.call(session.ssh("df -Pk " + quote(dir)), kShortCallSeconds, false);
  uintmax_t free_kib = 0;
  bool known = false;
  if (free_space.ok() && free_space->exit.exit_code == 0) {
    std::istringstream in(free_space->output.substr(free_space->output.rfind('\n', free_space->output.size() - 2) + 1));
    std::string filesystem, blocks, used;
    known = bool(in >> filesystem >> blocks >> used >> free_kib);
  }
  if (scp_output.find("No space left") != std::string::npos || (known && free_kib * 1024 < needed_bytes)) {
    return Error::make(ErrorCode::kInternal,
                       "%s: the target's disk is full: %s has %ju KiB free, the runner and the job's files need "
                       "%ju KiB",
                       target.text.c_str(), dir.c_str(), known ? free_kib : uintmax_t(0), (needed_bytes + 1023) / 1024);
  }
  return Error::make(ErrorCode::kInternal, "%s: cannot copy the job's files to %s: %s", target.text.c_str(),
                     dir.c_str(), first_line(scp_output).c_str());
}

// Copies the staged files (symlinks followed) to the target's folder.
Status upload(const SshSession& session, const SshTarget& target, const WorkDir& stage, const std::string& dir) {
  std::vector<std::string> files;
  uintmax_t bytes = 0;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(stage.path)) {
    if (!entry.is_regular_file(error)) continue;  // the outputs folder is made there
    files.push_back(entry.path().string());
    bytes += fs::file_size(entry.path(), error);
  }
  std::sort(files.begin(), files.end());
  ETKIT_ASSIGN_OR_RETURN(Answer answer, session.call(session.scp(files, session.remote(dir + "/")), kShortCallSeconds * 10));
  if (answer.exit.interrupted || answer.exit.timed_out) return stopped(target, answer.exit, kShortCallSeconds * 10);
  if (answer.exit.exit_code == 255 && answer.output.find("Permission denied") != std::string::npos) {
    return connection_error(target, answer.output);
  }
  if (answer.exit.exit_code != 0) return upload_error(session, target, dir, answer.output, bytes);
  return Ok{};
}

// The runner under the target's shell, with the deadline there too (GNU or
// busybox timeout, when the target has one) so a stuck run does not stay.
std::string runner_command(const std::string& dir, const std::vector<std::string>& args, double seconds) {
  std::string command = "cd " + quote(dir) + " && chmod +x etkit-runner && mkdir -p outputs && T= && "
                        "if command -v timeout >/dev/null 2>&1; then T=\"timeout -s KILL " +
                        std::to_string(int64_t(seconds + 0.999)) + "\"; fi && { $T ./etkit-runner";
  for (const std::string& a : args) command += " " + quote(a);
  return command + " > console.txt 2>&1; echo \"" + kExitMarker + "$?\"; }";
}

// The runner's exit code from the marker the shell printed, or -1.
int runner_exit_code(const std::string& output) {
  const size_t at = output.rfind(kExitMarker);
  if (at == std::string::npos) return -1;
  return std::atoi(output.c_str() + at + std::strlen(kExitMarker));
}

Status fetch(const SshSession& session, const SshTarget& target, const std::string& dir,
             const std::vector<std::string>& files, const fs::path& to, bool must_exist) {
  if (files.empty()) return Ok{};
  std::vector<std::string> sources;
  for (const std::string& file : files) sources.push_back(session.remote(dir + "/" + file));
  ETKIT_ASSIGN_OR_RETURN(Answer answer, session.call(session.scp(sources, to.string() + "/"), kShortCallSeconds * 10));
  if (answer.exit.interrupted || answer.exit.timed_out) return stopped(target, answer.exit, kShortCallSeconds * 10);
  if (answer.exit.exit_code != 0 && must_exist) {
    return Error::make(ErrorCode::kInternal, "%s: cannot copy the runner's files back from %s: %s",
                       target.text.c_str(), dir.c_str(), first_line(answer.output).c_str());
  }
  return Ok{};
}

Error runner_failure(const SshTarget& target, int code, const fs::path& back) {
  std::string console = first_line(read_text_file((back / "console.txt").string()));
  if (!console.empty()) console = ": " + console;
  if (code > 128) {
    return Error::make(ErrorCode::kInternal, "%s: the runner was killed by signal %d (%s), exit code %d%s",
                       target.text.c_str(), code - 128, strsignal(code - 128), code, console.c_str());
  }
  const char* what = code == kRunnerOutOfMemory ? "ran out of memory (the program does not fit the device)"
                     : code == kRunnerFault     ? "crashed"
                     : code == 126 || code == 127 ? "could not be started there"
                                                : "failed without a report";
  return Error::make(ErrorCode::kInternal, "%s: the runner %s, exit code %d%s", target.text.c_str(), what, code,
                     console.c_str());
}

}  // namespace

bool is_ssh_device(const std::string& target) { return target.rfind("ssh://", 0) == 0; }

Result<SshTarget> parse_ssh_target(const std::string& text) {
  const auto bad = [&](const char* why) {
    return Error::make(ErrorCode::kInvalidArgument, "--device %s: %s (ssh://[user@]host[:port][/folder])",
                       text.c_str(), why);
  };
  if (!is_ssh_device(text)) return bad("not an ssh:// target");
  SshTarget t;
  t.text = text;
  std::string rest = text.substr(6);
  if (const size_t slash = rest.find('/'); slash != std::string::npos) {
    t.folder = rest.substr(slash);
    rest.resize(slash);
    while (t.folder.size() > 1 && t.folder.back() == '/') t.folder.pop_back();
    if (!only(t.folder, "/._-")) return bad("the folder may hold letters, digits and / . _ - only");
  }
  std::string user;
  if (const size_t at = rest.rfind('@'); at != std::string::npos) {
    user = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (!only(user, "._-") || user[0] == '-') return bad("the user name may hold letters, digits and . _ - only");
  }
  std::string host = rest;
  if (!rest.empty() && rest[0] == '[') {  // [IPv6]:port
    const size_t close = rest.find(']');
    if (close == std::string::npos) return bad("an IPv6 address needs its closing ]");
    host = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
    if (!rest.empty() && rest[0] != ':') return bad("only :port may follow an IPv6 address");
    if (!rest.empty()) t.port = rest.substr(1);
  } else if (const size_t colon = rest.find(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    t.port = rest.substr(colon + 1);
  }
  if (!only(host, ".-_:") || host[0] == '-') return bad("no host name");
  const bool digits = std::all_of(t.port.begin(), t.port.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (rest.find(':') != std::string::npos && (t.port.empty() || !digits)) return bad("the port must be a number");
  if (!t.port.empty() && (t.port.size() > 5 || std::stoul(t.port) == 0 || std::stoul(t.port) > 65535)) {
    return bad("the port must be 1 to 65535");
  }
  t.user_host = (user.empty() ? "" : user + "@") + host;
  t.scp_host = (user.empty() ? "" : user + "@") + (host.find(':') != std::string::npos ? "[" + host + "]" : host);
  return t;
}

Result<std::string> runner_for_architecture(const std::string& target, const std::string& arch) {
  if (arch == "x86_64" || arch == "amd64") return std::string("etkit-runner-x86_64");
  if (arch == "aarch64" || arch == "arm64") return std::string("etkit-runner-aarch64");
  if (arch == "riscv64") return std::string("etkit-runner-riscv64");
  return Error::make(ErrorCode::kInvalidArgument,
                     "%s: no etkit runner for the architecture '%s' (runners are built for x86_64, aarch64 and "
                     "riscv64; --device-arch names the target's when uname -m does not)",
                     target.c_str(), arch.c_str());
}

Result<bundled::DeviceReport> run_on_ssh_device(const DeviceOptions& options, const std::string& text,
                                                const DeviceJob& job) {
  ETKIT_ASSIGN_OR_RETURN(SshTarget target, parse_ssh_target(text));
  WorkDir local, stage, back;
  ETKIT_TRY(make_work_dir(local, "ssh"));
  ETKIT_TRY(make_work_dir(stage, "ssh-stage"));
  ETKIT_TRY(make_work_dir(back, "ssh-back"));
  fs::create_directory(back.path / "outputs");
  InterruptGuard stop_cleanly;  // Ctrl-C stops the call under way; the scratch folder still goes
  const SshSession session(target, options, local);
  ETKIT_ASSIGN_OR_RETURN(auto opened, open_target(session, target));
  const RemoteScratch scratch(session, opened.second);
  std::string runner = job.runner;  // the user's, or etkit's for the target's architecture
  if (runner.empty()) {
    ETKIT_ASSIGN_OR_RETURN(std::string runner_file, runner_for_architecture(text, options.device_arch.empty()
                                                                                      ? opened.first
                                                                                      : options.device_arch));
    ETKIT_ASSIGN_OR_RETURN(runner, installed_runner(text, runner_file));
  }
  ETKIT_ASSIGN_OR_RETURN(std::vector<std::string> args, stage_job(stage, job));
  std::error_code error;
  fs::create_symlink(fs::absolute(runner), stage.path / "etkit-runner", error);
  ETKIT_TRY(upload(session, target, stage, scratch.path()));

  const auto start = std::chrono::steady_clock::now();
  // Our own deadline a little later than the target's, which ends the runner there.
  ETKIT_ASSIGN_OR_RETURN(Answer ran, session.call(session.ssh(runner_command(scratch.path(), args, options.timeout_seconds)),
                                                  options.timeout_seconds + 30));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (ran.exit.interrupted || ran.exit.timed_out) return stopped(target, ran.exit, options.timeout_seconds);
  const int code = runner_exit_code(ran.output);
  if (code < 0) {
    return ran.exit.exit_code == 255 ? Error::make(ErrorCode::kInternal, "%s: lost the connection during the run: %s",
                                                   text.c_str(), first_line(ran.output).c_str())
                                     : Error::make(ErrorCode::kInternal, "%s: the target's shell failed: %s",
                                                   text.c_str(), first_line(ran.output).c_str());
  }
  if (code == 128 + 9 && seconds >= options.timeout_seconds) return stopped(target, ran.exit, options.timeout_seconds);
  ETKIT_TRY(fetch(session, target, scratch.path(), {"report.txt", "console.txt"}, back.path, false));
  if (code > 128 || (job.runner.empty() && (code > 2 || !fs::exists(back.path / "report.txt")))) {
    return runner_failure(target, code, back.path);
  }
  if (!job.runner.empty() && code != 0) return user_runner_outcome(text, code, back, job);
  auto report = job.runner.empty() ? bundled::parse_device_report(read_text_file((back.path / "report.txt").string()))
                                   : Result<bundled::DeviceReport>(bundled::DeviceReport{});
  if (report.ok() && !job.runner.empty()) {
    report->kind = bundled::DeviceReport::Kind::kRun;
    report->outputs = job.outputs;
  }
  if (report.ok()) {
    std::vector<std::string> files = files_to_bring_back(job, *report), outputs;
    auto is_output = [](const std::string& f) { return f.rfind("outputs/", 0) == 0; };
    std::copy_if(files.begin(), files.end(), std::back_inserter(outputs), is_output);
    files.erase(std::remove_if(files.begin(), files.end(), is_output), files.end());
    ETKIT_TRY(fetch(session, target, scratch.path(), files, back.path, true));
    ETKIT_TRY(fetch(session, target, scratch.path(), outputs, back.path / "outputs", true));
  }
  return read_back(text, back, job, code);
}

}  // namespace etkit::cli
