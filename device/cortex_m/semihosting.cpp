#include "semihosting.h"

namespace etkit::device {
namespace {

enum : uint32_t {
  kSysWrite0 = 0x04,
  kSysGetCmdline = 0x15,
  kSysExitExtended = 0x20,
  kSysElapsed = 0x30,
  kSysTickFreq = 0x31,
};

// The M-profile semihosting trap: operation in r0, parameter block in r1.
uint32_t call(uint32_t operation, const void* parameters) {
  register uint32_t r0 __asm("r0") = operation;
  register const void* r1 __asm("r1") = parameters;
  __asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

}  // namespace

bool semihosting_command_line(char* buffer, size_t size) {
  uint32_t block[2] = {uint32_t(reinterpret_cast<uintptr_t>(buffer)), uint32_t(size)};
  return call(kSysGetCmdline, block) == 0;
}

uint64_t semihosting_elapsed_ticks() {
  uint32_t ticks[2] = {0, 0};
  if (call(kSysElapsed, ticks) != 0) return 0;
  return uint64_t(ticks[0]) | (uint64_t(ticks[1]) << 32);
}

uint64_t semihosting_ticks_per_second() {
  const uint32_t frequency = call(kSysTickFreq, nullptr);
  return frequency == 0xFFFFFFFFu || frequency == 0 ? 1000000000u : frequency;
}

void semihosting_write_console(const char* text) { call(kSysWrite0, text); }

void semihosting_exit(int code) {
  // ADP_Stopped_ApplicationExit with the code (SYS_EXIT_EXTENDED).
  uint32_t block[2] = {0x20026, uint32_t(code)};
  for (;;) call(kSysExitExtended, block);
}

}  // namespace etkit::device
