// ssh:// targets as --device parses them: user, host, port and scratch
// folder; and what it refuses (anything ssh could read as an option or a
// remote shell could split, ports out of range).

#include <gtest/gtest.h>

#include "ssh_device.h"

namespace etkit::cli {
namespace {

TEST(SshTarget, ParsesUserHostPortAndFolder) {
  auto full = parse_ssh_target("ssh://ci@board-7.lab:2222/data/local/tmp/");
  ASSERT_TRUE(full.ok()) << full.error().message();
  EXPECT_EQ(full->user_host, "ci@board-7.lab");
  EXPECT_EQ(full->scp_host, "ci@board-7.lab");
  EXPECT_EQ(full->port, "2222");
  EXPECT_EQ(full->folder, "/data/local/tmp");

  auto bare = parse_ssh_target("ssh://pi");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->user_host, "pi");
  EXPECT_EQ(bare->port, "");
  EXPECT_EQ(bare->folder, "");

  // IPv6: ssh takes the address bare, scp in brackets.
  auto v6 = parse_ssh_target("ssh://root@[::1]:22");
  ASSERT_TRUE(v6.ok()) << v6.error().message();
  EXPECT_EQ(v6->user_host, "root@::1");
  EXPECT_EQ(v6->scp_host, "root@[::1]");
  EXPECT_EQ(v6->port, "22");
}

TEST(SshTarget, RefusesWhatSshOrAShellWouldMisread) {
  for (const char* bad : {"ssh://", "ssh://-oProxyCommand=x", "ssh://host:22a", "ssh://host:", "ssh://host:0",
                          "ssh://host:70000", "ssh://host:123456", "ssh://us er@host", "ssh://host/tmp/a b",
                          "ssh://host/tmp/$(reboot)", "ssh://[::1", "ssh://[::1]x", "scp://host"}) {
    auto parsed = parse_ssh_target(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.error().code(), ErrorCode::kInvalidArgument) << bad;
    }
  }
}

TEST(SshTarget, RunnersByArchitecture) {
  EXPECT_EQ(*runner_for_architecture("t", "x86_64"), "etkit-runner-x86_64");
  EXPECT_EQ(*runner_for_architecture("t", "arm64"), "etkit-runner-aarch64");
  EXPECT_EQ(*runner_for_architecture("t", "aarch64"), "etkit-runner-aarch64");
  EXPECT_EQ(*runner_for_architecture("t", "riscv64"), "etkit-runner-riscv64");
  EXPECT_FALSE(runner_for_architecture("t", "armv7l").ok());
}

}  // namespace
}  // namespace etkit::cli
