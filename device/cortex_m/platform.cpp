// The Cortex-M runner's platform: time from the semihosting host (a real
// board would read its cycle counter, DWT->CYCCNT, with the core's clock as
// the period), and the heap confined to the static arena the linker script
// reserves.

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <sys/time.h>

#include "../runner/platform.h"
#include "semihosting.h"

extern "C" {
extern char __arena_start, __arena_end;
void* _sbrk(ptrdiff_t increment);
}

namespace etkit::device {
namespace {

uint64_t elapsed(void*) { return semihosting_elapsed_ticks(); }

}  // namespace

etdump::TickSource trace_clock() {
  etdump::TickSource clock;
  clock.now = &elapsed;
  clock.ns_per_tick = 1e9 / double(semihosting_ticks_per_second());
  return clock;
}

double seconds_now() { return double(semihosting_elapsed_ticks()) / double(semihosting_ticks_per_second()); }

}  // namespace etkit::device

// newlib's malloc grows its heap through _sbrk: here, inside the arena only,
// so running out of memory is a clean allocation failure.
extern "C" void* _sbrk(ptrdiff_t increment) {
  static char* end = &__arena_start;
  if (increment > &__arena_end - end || increment < &__arena_start - end) {
    errno = ENOMEM;
    return reinterpret_cast<void*>(-1);
  }
  char* previous = end;
  end += increment;
  return previous;
}

// The C library's clock (std::chrono, verify's per-case seconds) from the
// semihosting host's elapsed ticks: newlib's own reads SYS_TIME, whole
// seconds. The link wraps newlib's (-Wl,--wrap=_gettimeofday).
extern "C" int __wrap__gettimeofday(struct timeval* tv, void* timezone);
extern "C" int __wrap__gettimeofday(struct timeval* tv, void*) {
  if (tv != nullptr) {
    const uint64_t ticks = etkit::device::semihosting_elapsed_ticks();
    const uint64_t per_second = etkit::device::semihosting_ticks_per_second();
    tv->tv_sec = time_t(ticks / per_second);
    tv->tv_usec = suseconds_t((ticks % per_second) * 1000000u / per_second);
  }
  return 0;
}
