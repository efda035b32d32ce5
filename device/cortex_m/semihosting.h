#pragma once
// Arm semihosting calls the runner makes directly (newlib's librdimon
// covers files and exit): the command line, elapsed time, and the exit
// used by the fault handler.

#include <cstddef>
#include <cstdint>

namespace etkit::device {

/// The host's command line for this program; false when there is none.
bool semihosting_command_line(char* buffer, size_t size);
/// Ticks since an arbitrary start, and ticks per second.
uint64_t semihosting_elapsed_ticks();
uint64_t semihosting_ticks_per_second();
/// Writes a NUL-terminated message to the host's console.
void semihosting_write_console(const char* text);
[[noreturn]] void semihosting_exit(int code);

}  // namespace etkit::device
