// The Linux runners' platform (aarch64, riscv64, the host's x86-64): the
// monotonic clock.

#include <chrono>

#include "../runner/platform.h"

namespace etkit::device {

etdump::TickSource trace_clock() { return etdump::monotonic_ns_clock(); }

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace etkit::device
