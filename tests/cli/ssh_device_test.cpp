// `--device ssh://…` against a real OpenSSH server: Debian's sshd, started
// here on the loopback address with throwaway keys, running this build's
// own x86-64 runner. Nothing outside the machine is reached. Checked: the
// host's PASS and FAIL verdicts, a trace brought back and tabulated with
// the host's events, run's outputs with the host's bits, the scratch
// folder gone afterwards, and each set-up and device error by name.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli.h"
#include "support/tampered_bundle.h"

extern char** environ;

namespace etkit {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::etinspect;
using test::verify_verdicts;

const std::string kBundle = test::corpus("upstream/bundled/add_mul_int.bpte");

// A free TCP port on the loopback address (the kernel picks one).
int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(s);
  return ntohs(address.sin_port);
}

bool accepts_connections(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(s);
  return ok;
}

void shell(const std::string& command) { ASSERT_EQ(std::system(command.c_str()), 0) << command; }

// One sshd for the whole file, on a free port, accepting one client key.
class SshDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_TRUE(fs::exists("/usr/sbin/sshd")) << "the SSH device test needs Debian's openssh-server "
                                                  "(scripts/install-deps --tests installs it)";
    dir_ = test::temp("sshd");
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/scratch");
    shell("ssh-keygen -q -t ed25519 -N '' -f " + dir_ + "/host_key");
    shell("ssh-keygen -q -t ed25519 -N '' -f " + dir_ + "/client_key");
    shell("ssh-keygen -q -t ed25519 -N '' -f " + dir_ + "/stranger_key");
    fs::copy_file(dir_ + "/client_key.pub", dir_ + "/authorized_keys");
    if (::geteuid() == 0) fs::create_directories("/run/sshd");  // sshd's privilege separation folder, as root
    port_ = free_port();
    std::ofstream(dir_ + "/sshd_config") << "Port " << port_ << "\nListenAddress 127.0.0.1\nHostKey " << dir_
                                         << "/host_key\nAuthorizedKeysFile " << dir_
                                         << "/authorized_keys\nPidFile " << dir_
                                         << "/sshd.pid\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
                                            "KbdInteractiveAuthentication no\n"
                                            "Subsystem sftp /usr/lib/openssh/sftp-server\n";
    std::vector<std::string> args{"/usr/sbin/sshd", "-D", "-e", "-f", dir_ + "/sshd_config", "-E", dir_ + "/sshd.log"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ASSERT_EQ(::posix_spawn(&sshd_, argv[0], nullptr, nullptr, argv.data(), environ), 0);
    for (int i = 0; i < 500 && !accepts_connections(port_); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream log(dir_ + "/sshd.log");
    ASSERT_TRUE(accepts_connections(port_)) << std::string(std::istreambuf_iterator<char>(log), {});
  }
  static void TearDownTestSuite() {
    if (sshd_ > 0) {
      ::kill(sshd_, SIGTERM);
      ::waitpid(sshd_, nullptr, 0);
    }
  }

  static std::string user() { return ::getpwuid(::geteuid())->pw_name; }
  // The target, its scratch folder under our own, so the test sees it.
  static std::string device() {
    return "ssh://" + user() + "@127.0.0.1:" + std::to_string(port_) + dir_ + "/scratch";
  }
  static std::vector<std::string> options(const std::string& key = "client_key") {
    return {"--ssh-option", "IdentityFile=" + dir_ + "/" + key, "--ssh-option", "IdentitiesOnly=yes",
            "--ssh-option", "StrictHostKeyChecking=no", "--ssh-option", "UserKnownHostsFile=/dev/null",
            "--ssh-option", "LogLevel=ERROR"};
  }
  static test::CommandResult on_device(std::vector<std::string> args, const std::string& target = device(),
                                       const std::string& key = "client_key") {
    args.insert(args.begin() + 1, {"--device", target});
    for (const std::string& o : options(key)) args.push_back(o);
    return etinspect(args);
  }
  void TearDown() override {
    // However the job ended, the target's scratch folder is gone.
    EXPECT_TRUE(fs::is_empty(dir_ + "/scratch")) << "left on the target: " << fs::directory_iterator(dir_ + "/scratch")->path();
  }

  static std::string dir_;
  static int port_;
  static pid_t sshd_;
};
std::string SshDevice::dir_;
int SshDevice::port_ = 0;
pid_t SshDevice::sshd_ = 0;

TEST_F(SshDevice, VerifyGivesTheHostsPassAndFailVerdicts) {
  const std::string tampered = test::write_temp("ssh-tampered.bpte", test::tampered_corpus_bundle());
  for (const std::string& bundle : {kBundle, tampered}) {
    const auto host = etinspect({"verify", bundle});
    const auto remote = on_device({"verify", bundle});
    EXPECT_EQ(remote.exit_code, host.exit_code) << remote.err;
    ASSERT_FALSE(verify_verdicts(host.out).empty());
    EXPECT_EQ(verify_verdicts(remote.out), verify_verdicts(host.out)) << remote.out << remote.err;
    EXPECT_TRUE(contains(remote.out, ") on " + device() + "\n")) << remote.out;
  }
  EXPECT_TRUE(contains(etinspect({"verify", tampered}).out, "FAIL")) << "the tampered bundle must fail a case";
}

TEST_F(SshDevice, TheTraceComesBackAndTabulatesTheHostsEvents) {
  const std::string host_trace = test::temp("ssh-host.etdp"), remote_trace = test::temp("ssh-remote.etdp");
  ASSERT_EQ(etinspect({"verify", kBundle, "--etdump", host_trace}).exit_code, 0);
  const auto remote = on_device({"verify", kBundle, "--etdump", remote_trace});
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  const auto events = [](const std::string& trace) {
    const auto table = etinspect({"table", trace, "--format", "json"});
    EXPECT_EQ(table.exit_code, 0) << table.err;
    std::string names;
    for (const auto& row : nlohmann::json::parse(table.out)) {
      names += row["event_block_name"].get<std::string>() + "/" + row["event_name"].get<std::string>() + "\n";
    }
    return names;
  };
  EXPECT_EQ(events(remote_trace), events(host_trace));
  EXPECT_TRUE(contains(events(remote_trace), "Execute/native_call_add.out")) << events(remote_trace);
}

TEST_F(SshDevice, RunComputesTheHostsBits) {
  const std::string program = test::corpus("upstream/pte/keyword_spotting_cortex_m.pte");
  const std::string host_dir = test::temp("ssh-run-host"), remote_dir = test::temp("ssh-run-remote");
  fs::create_directories(host_dir);
  fs::create_directories(remote_dir);
  ASSERT_EQ(etinspect({"run", program, "--fill", "random", "--seed", "5", "--output-dir", host_dir}).exit_code, 0);
  const auto remote = on_device({"run", program, "--fill", "random", "--seed", "5", "--output-dir", remote_dir});
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_TRUE(test::read_file(remote_dir + "/output_0.npy") == test::read_file(host_dir + "/output_0.npy"));
}

TEST_F(SshDevice, TheUsersRunnerRunsThereAndEtkitJudgesItsOutputs) {
  // Upstream's runtime behind the runner contract, copied to the target
  // (which is this machine, so its pinned environment is there).
  const std::string runner = (fs::path(ETINSPECT_PATH).parent_path() / "etkit-upstream-runner").string();
  const auto host = etinspect({"verify", kBundle, "--case", "9"});
  const auto remote = on_device({"verify", kBundle, "--case", "9", "--runner", runner});
  EXPECT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_EQ(verify_verdicts(remote.out), verify_verdicts(host.out)) << remote.out << remote.err;
  EXPECT_TRUE(contains(remote.out, "via etkit-upstream-runner")) << remote.out;
}

TEST_F(SshDevice, AnUnreachableHostAndARefusedKeyAreBadInput) {
  const auto unreachable =
      on_device({"verify", kBundle}, "ssh://" + user() + "@127.0.0.1:" + std::to_string(free_port()));
  EXPECT_EQ(unreachable.exit_code, 2);
  EXPECT_TRUE(contains(unreachable.err, "cannot reach the target")) << unreachable.err;
  EXPECT_TRUE(contains(unreachable.err, "Connection refused")) << unreachable.err;

  const auto refused = on_device({"verify", kBundle}, device(), "stranger_key");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(contains(refused.err, "the target refused the key")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "--ssh-option IdentityFile=KEY")) << refused.err;
}

TEST_F(SshDevice, AMissingRunnerNamesTheArchitectureAndTheFix) {
  const auto unknown = on_device({"verify", kBundle, "--device-arch", "sparc64"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(contains(unknown.err, "no etkit runner for the architecture 'sparc64'")) << unknown.err;

  const std::string empty = test::temp("ssh-no-runners");
  fs::create_directories(empty);
  ::setenv("ETKIT_RUNNER_DIR", empty.c_str(), 1);
  const auto missing = on_device({"verify", kBundle});
  ::unsetenv("ETKIT_RUNNER_DIR");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "etkit-runner-x86_64 is not installed")) << missing.err;
}

TEST_F(SshDevice, ARunnerKilledThereIsNamedWithItsSignal) {
  // A runner the target kills: the exit code and the signal are named.
  const std::string runner = test::shell_script("ssh-crashing-runner/etkit-runner-x86_64", "kill -SEGV $$\n");
  ::setenv("ETKIT_RUNNER_DIR", fs::path(runner).parent_path().c_str(), 1);
  const auto killed = on_device({"verify", kBundle});
  ::unsetenv("ETKIT_RUNNER_DIR");
  EXPECT_EQ(killed.exit_code, 3);
  EXPECT_TRUE(contains(killed.err, "the runner was killed by signal 11 (Segmentation fault), exit code 139"))
      << killed.err;
}

TEST_F(SshDevice, CtrlCStopsTheJobAndStillRemovesTheScratchFolder) {
  const std::string runner = test::shell_script("ssh-slow-runner/etkit-runner-x86_64", "sleep 20\n");
  ::setenv("ETKIT_RUNNER_DIR", fs::path(runner).parent_path().c_str(), 1);
  std::vector<std::string> args{ETINSPECT_PATH, "verify", kBundle, "--device", device()};
  for (const std::string& o : options()) args.push_back(o);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
  ::unsetenv("ETKIT_RUNNER_DIR");
  // Once the job's files are on the target, the runner is running there.
  const std::string scratch = dir_ + "/scratch";
  for (int i = 0; i < 1000 && fs::is_empty(scratch); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(pid, SIGINT);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15)) << "stopped, not waited out";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
}

TEST_F(SshDevice, AFullDiskIsNamedWithTheSpaceThereIs) {
  // A 64 KiB file system as the target's scratch folder: the runner alone
  // does not fit. Mounting needs root (as CI runs).
  const std::string tiny = test::temp("ssh-tiny-disk");
  fs::create_directories(tiny);
  if (::mount("tmpfs", tiny.c_str(), "tmpfs", 0, "size=64k") != 0) {
    GTEST_SKIP() << "cannot mount a small file system here (needs root): " << std::strerror(errno);
  }
  const auto full = on_device({"verify", kBundle}, "ssh://" + user() + "@127.0.0.1:" + std::to_string(port_) + tiny);
  const bool empty_after = fs::is_empty(tiny);
  ::umount(tiny.c_str());
  EXPECT_EQ(full.exit_code, 3);
  EXPECT_TRUE(contains(full.err, "the target's disk is full: " + tiny)) << full.err;
  EXPECT_TRUE(contains(full.err, "KiB free")) << full.err;
  EXPECT_TRUE(empty_after) << "the scratch folder on the full disk was not removed";
}

}  // namespace
}  // namespace etkit
