// Reset and fault handling for the Cortex-M55 runner: set up C and C++
// state, enable the FPU, take the command line from the host through
// semihosting, run main and report its exit code. A fault ends the run with
// exit code 125 and a message, never a hang.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "semihosting.h"

extern "C" {
extern uint32_t __data_start, __data_end, __data_load, __bss_start__, __bss_end__, __stack_top;
void __libc_init_array(void);
void initialise_monitor_handles(void);
int main(int argc, char** argv);
void Reset_Handler(void);
void Fault_Handler(void);
}

namespace {

constexpr int kMaxArgs = 64;
char command_line[4096];
char* arguments[kMaxArgs + 1];

// SYS_GET_CMDLINE gives one string, the arguments joined by spaces (the host
// side never passes arguments that contain spaces).
int split_command_line() {
  if (!etkit::device::semihosting_command_line(command_line, sizeof(command_line))) return 0;
  int argc = 0;
  for (char* p = command_line; *p != '\0' && argc < kMaxArgs;) {
    while (*p == ' ') *p++ = '\0';
    if (*p == '\0') break;
    arguments[argc++] = p;
    while (*p != '\0' && *p != ' ') ++p;
  }
  arguments[argc] = nullptr;
  return argc;
}

}  // namespace

// What crt0 and crtbegin would provide: the handle C++ static destructors
// register against, and empty init/fini hooks (constructors run through
// __libc_init_array's arrays).
extern "C" {
void* __dso_handle = nullptr;
void _init(void) {}
void _fini(void) {}
}

// An allocation the arena cannot hold ends the run with a code the host
// reports as "does not fit the device" (exit 124).
void out_of_memory() {
  etkit::device::semihosting_write_console("etkit runner: out of memory: the static arena is full\n");
  etkit::device::semihosting_exit(124);
}

extern "C" void Reset_Handler(void) {
  std::memcpy(&__data_start, &__data_load,
              size_t(reinterpret_cast<char*>(&__data_end) - reinterpret_cast<char*>(&__data_start)));
  std::memset(&__bss_start__, 0,
              size_t(reinterpret_cast<char*>(&__bss_end__) - reinterpret_cast<char*>(&__bss_start__)));
  // CPACR: full access to CP10 and CP11 (the FPU), before any float code.
  *reinterpret_cast<volatile uint32_t*>(0xE000ED88) |= 0xFu << 20;
  __asm volatile("dsb\n isb");
  initialise_monitor_handles();
  __libc_init_array();
  std::set_new_handler(out_of_memory);
  const int argc = split_command_line();
  std::exit(main(argc, arguments));
}

extern "C" void Fault_Handler(void) {
  static const char message[] = "etkit runner: hard fault (invalid memory access or instruction)\n";
  etkit::device::semihosting_write_console(message);
  etkit::device::semihosting_exit(125);
}

// Vector table: initial stack pointer, reset, then the faults. Interrupts
// are not used.
__attribute__((section(".vectors"), used)) void (*const vector_table[16])(void) = {
    reinterpret_cast<void (*)(void)>(&__stack_top),
    Reset_Handler,
    Fault_Handler,  // NMI
    Fault_Handler,  // HardFault
    Fault_Handler,  // MemManage
    Fault_Handler,  // BusFault
    Fault_Handler,  // UsageFault
    Fault_Handler,  // SecureFault
    nullptr, nullptr, nullptr,
    Fault_Handler,  // SVCall
    Fault_Handler,  // DebugMonitor
    nullptr,
    Fault_Handler,  // PendSV
    Fault_Handler,  // SysTick
};
